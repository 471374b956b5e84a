// RUN: poot-opt %s --split-input-file --verify-diagnostics

// Every diagnostic of the poot ops and of the graph conventions.

func.func @iota_dim() -> tensor<4xi32> {
  // expected-error @+1 {{expected dim in [0, 1), got 1}}
  %0 = poot.iota {dim = 1 : i64} : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @convert_shape(%x: tensor<4xf32>) -> tensor<5xf16> {
  // expected-error @+1 {{expected result shape [4], got [5]}}
  %0 = poot.convert %x : tensor<4xf32> -> tensor<5xf16>
  return %0 : tensor<5xf16>
}

// -----

func.func @reshape_type(%x: tensor<4xf32>) -> tensor<2x2xf16> {
  // expected-error @+1 {{expected result element type 'f32', got 'f16'}}
  %0 = poot.reshape %x : tensor<4xf32> -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

// -----

func.func @reshape_count(%x: tensor<4xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{expected 4 result elements, got 6}}
  %0 = poot.reshape %x : tensor<4xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @transpose_length(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected perm of length 2, got 3}}
  %0 = poot.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected perm to be a permutation of [0, 2), got [1, 1]}}
  %0 = poot.transpose %x {perm = array<i64: 1, 1>} : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "poot.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected target rank >= 2, got 1}}
  %0 = poot.broadcast %x {shape = array<i64: 3>} : tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected shape [2, 3] to broadcast to [4, 3], got dim 0 of size 2}}
  %0 = poot.broadcast %x {shape = array<i64: 4, 3>} : tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_positive(%x: tensor<1xf32>) {
  // expected-error @+1 {{expected positive target dims, got [0, 1]}}
  %0 = poot.broadcast %x {shape = array<i64: 0, 1>} : tensor<1xf32>
  return
}

// -----

func.func @slice_lengths(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected start, limit and step of length 1, got 1, 2 and 1}}
  %0 = poot.slice %x {start = array<i64: 0>, limit = array<i64: 2, 2>, step = array<i64: 1>} : tensor<4xf32>
  return
}

// -----

func.func @slice_step(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected step >= 1 on dim 0, got 0}}
  %0 = poot.slice %x {start = array<i64: 0>, limit = array<i64: 2>, step = array<i64: 0>} : tensor<4xf32>
  return
}

// -----

func.func @slice_bounds(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected 0 <= start < limit <= 4 on dim 0, got [2, 5)}}
  %0 = poot.slice %x {start = array<i64: 2>, limit = array<i64: 5>, step = array<i64: 1>} : tensor<4xf32>
  return
}

// -----

func.func @concat_type(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{expected element type 'f32' for input 1, got 'f16'}}
  %0 = poot.concat %x, %y {axis = 0 : i64} : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @concat_rank(%x: tensor<4xf32>, %y: tensor<4x1xf32>) {
  // expected-error @+1 {{expected rank 1 for input 1, got 2}}
  %0 = poot.concat %x, %y {axis = 0 : i64} : tensor<4xf32>, tensor<4x1xf32>
  return
}

// -----

func.func @concat_dim(%x: tensor<4x2xf32>, %y: tensor<3x2xf32>) {
  // expected-error @+1 {{expected dim 0 of input 1 to be 4, got 3}}
  %0 = poot.concat %x, %y {axis = 1 : i64} : tensor<4x2xf32>, tensor<3x2xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected axis in [-1, 1), got 1}}
  %0 = poot.concat %x, %x {axis = 1 : i64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @dynamic_slice_starts(%x: tensor<4x4xf32>, %p: tensor<i32>) {
  // expected-error @+1 {{expected 2 starts, got 1}}
  %0 = poot.dynamic_slice %x[%p] {sizes = array<i64: 1, 1>} : tensor<4x4xf32>, tensor<i32>
  return
}

// -----

func.func @dynamic_slice_sizes(%x: tensor<4x4xf32>, %p: tensor<i32>) {
  // expected-error @+1 {{expected sizes of length 2, got 1}}
  %0 = poot.dynamic_slice %x[%p, %p] {sizes = array<i64: 1>} : tensor<4x4xf32>, tensor<i32>, tensor<i32>
  return
}

// -----

func.func @dynamic_slice_size(%x: tensor<4x4xf32>, %p: tensor<i32>) {
  // expected-error @+1 {{expected size in [1, 4] on dim 1, got 5}}
  %0 = poot.dynamic_slice %x[%p, %p] {sizes = array<i64: 1, 5>} : tensor<4x4xf32>, tensor<i32>, tensor<i32>
  return
}

// -----

func.func @dynamic_slice_start_type(%x: tensor<4xf32>, %p: tensor<1xi32>) {
  // expected-error @+1 {{operand #1 must be variadic of 0D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<1xi32>'}}
  %0 = poot.dynamic_slice %x[%p] {sizes = array<i64: 1>} : tensor<4xf32>, tensor<1xi32>
  return
}

// -----

func.func @update_type(%x: tensor<4x8xf32>, %u: tensor<1x8xf16>, %p: tensor<i32>) {
  // expected-error @+1 {{expected update element type 'f32', got 'f16'}}
  %0 = poot.dynamic_update_slice %x[%p, %p], %u : tensor<4x8xf32>, tensor<1x8xf16>, tensor<i32>, tensor<i32>
  return
}

// -----

func.func @update_rank(%x: tensor<4x8xf32>, %u: tensor<8xf32>, %p: tensor<i32>) {
  // expected-error @+1 {{expected update rank 2, got 1}}
  %0 = poot.dynamic_update_slice %x[%p, %p], %u : tensor<4x8xf32>, tensor<8xf32>, tensor<i32>, tensor<i32>
  return
}

// -----

func.func @update_starts(%x: tensor<4x8xf32>, %u: tensor<1x8xf32>, %p: tensor<i32>) {
  // expected-error @+1 {{expected 2 starts, got 1}}
  %0 = poot.dynamic_update_slice %x[%p], %u : tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>
  return
}

// -----

func.func @update_dim(%x: tensor<4x8xf32>, %u: tensor<1x9xf32>, %p: tensor<i32>) {
  // expected-error @+1 {{expected update dim 1 <= 8, got 9}}
  %0 = poot.dynamic_update_slice %x[%p, %p], %u : tensor<4x8xf32>, tensor<1x9xf32>, tensor<i32>, tensor<i32>
  return
}

// -----

func.func @gather_axis(%x: tensor<4x8xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{expected axis in [-2, 2), got 2}}
  %0 = poot.gather %x[%i] {axis = 2 : i64} : tensor<4x8xf32>, tensor<3xi32>
  return
}

// -----

func.func @gather_index_type(%x: tensor<4x8xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = poot.gather %x[%i] {axis = 0 : i64} : tensor<4x8xf32>, tensor<3xf32>
  return
}

// -----

func.func @scatter_rank(%x: tensor<4x8xf32>, %i: tensor<1x2xi32>, %u: tensor<2x8xf32>) {
  // expected-error @+1 {{expected a rank-1 index, got rank 2}}
  %0 = poot.scatter_update %x[%i], %u : tensor<4x8xf32>, tensor<1x2xi32>, tensor<2x8xf32>
  return
}

// -----

func.func @scatter_shape(%x: tensor<4x8xf32>, %i: tensor<2xi32>, %u: tensor<3x8xf32>) {
  // expected-error @+1 {{expected updates of shape [2, 8], got [3, 8]}}
  %0 = poot.scatter_update %x[%i], %u : tensor<4x8xf32>, tensor<2xi32>, tensor<3x8xf32>
  return
}

// -----

func.func @scatter_type(%x: tensor<4x8xf32>, %i: tensor<2xi32>, %u: tensor<2x8xbf16>) {
  // expected-error @+1 {{expected updates element type 'f32', got 'bf16'}}
  %0 = poot.scatter_update %x[%i], %u : tensor<4x8xf32>, tensor<2xi32>, tensor<2x8xbf16>
  return
}

// -----

func.func @matmul_rank(%a: tensor<4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{expected operands of rank >= 2, got 1 and 2}}
  %0 = poot.matmul %a, %b : tensor<4xf32>, tensor<4x2xf32>
  return
}

// -----

func.func @matmul_type(%a: tensor<2x4xf32>, %b: tensor<4x2xf16>) {
  // expected-error @+1 {{expected one element type, got 'f32' and 'f16'}}
  %0 = poot.matmul %a, %b : tensor<2x4xf32>, tensor<4x2xf16>
  return
}

// -----

func.func @matmul_contracting(%a: tensor<2x4xf32>, %b: tensor<5x2xf32>) {
  // expected-error @+1 {{expected contracting dims to match, got 4 and 5}}
  %0 = poot.matmul %a, %b : tensor<2x4xf32>, tensor<5x2xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<3x2x4xf32>, %b: tensor<2x4x2xf32>) {
  // expected-error @+1 {{expected broadcastable batch dims, got [3] and [2]}}
  %0 = poot.matmul %a, %b : tensor<3x2x4xf32>, tensor<2x4x2xf32>
  return
}

// -----

func.func @binary_type(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{expected one element type, got 'f32' and 'f16'}}
  %0 = poot.add %a, %b : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @binary_broadcast(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expected broadcastable shapes, got [4] and [3]}}
  %0 = poot.mul %a, %b : tensor<4xf32>, tensor<3xf32>
  return
}

// -----

func.func @logic_type(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = poot.and %a, %a : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

func.func @compare_type(%a: tensor<4xi32>, %b: tensor<4xi64>) {
  // expected-error @+1 {{expected one element type, got 'i32' and 'i64'}}
  %0 = poot.compare lt, %a, %b : tensor<4xi32>, tensor<4xi64>
  return
}

// -----

func.func @compare_shape(%a: tensor<4xi32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{expected broadcastable shapes, got [4] and [2]}}
  %0 = poot.compare lt, %a, %b : tensor<4xi32>, tensor<2xi32>
  return
}

// -----

func.func @select_type(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{expected one element type, got 'f32' and 'f16'}}
  %0 = poot.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @select_shape(%c: tensor<3xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expected broadcastable shapes, got [3], [4] and [4]}}
  %0 = poot.select %c, %a, %b : tensor<3xi1>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @unary_int(%a: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %0 = poot.exp %a : tensor<4xi32>
  return
}

// -----

func.func @dynamic_shape(%a: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = poot.exp %a : tensor<?xf32>
  return
}

// -----

func.func @reduce_axis(%a: tensor<4x2xf32>) {
  // expected-error @+1 {{expected axis in [-2, 2), got -3}}
  %0 = poot.reduce_sum %a {axis = -3 : i64} : tensor<4x2xf32>
  return
}

// -----

func.func @topk_rank(%a: tensor<f32>) {
  // expected-error @+1 {{expected an operand of rank >= 1, got 0}}
  %0, %1 = poot.topk %a {k = 1 : i64} : tensor<f32>
  return
}

// -----

func.func @topk_k(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{expected k in [1, 4], got 5}}
  %0, %1 = poot.topk %a {k = 5 : i64} : tensor<2x4xf32>
  return
}

// -----

func.func @guard_bounds(%a: tensor<2xi32>) {
  // expected-error @+1 {{expected lo <= hi, got [5, 1]}}
  %0, %1 = poot.index_guard %a {lo = 5 : i64, hi = 1 : i64} : tensor<2xi32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Graph conventions
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected poot.slot one of "pos", "len", "slot_map", "write_map", "adapter", got "position"}}
func.func @slot_name(%p: tensor<i32> {poot.slot = "position"}) {
  return
}

// -----

// expected-error @+1 {{expected an integer tensor for slot "pos", got 'tensor<f32>'}}
func.func @slot_type(%p: tensor<f32> {poot.slot = "pos"}) {
  return
}

// -----

// expected-error @+1 {{expected poot.range = array<i64: lo, hi>, got array<i64: 1>}}
func.func @range_form(%p: tensor<i32> {poot.range = array<i64: 1>}) {
  return
}

// -----

// expected-error @+1 {{expected poot.range lo < hi, got [4, 4)}}
func.func @range_empty(%p: tensor<i32> {poot.range = array<i64: 4, 4>}) {
  return
}

// -----

// expected-error @+1 {{expected an integer tensor for poot.range, got 'tensor<2xf32>'}}
func.func @range_type(%p: tensor<2xf32> {poot.range = array<i64: 0, 4>}) {
  return
}

// -----

// expected-error @+1 {{expected a result with poot.state = "k", got none}}
func.func @state_unpaired(%k: tensor<4xf32> {poot.state = "k"}) {
  return
}

// -----

// expected-error @+1 {{expected one argument with poot.state = "k", got arguments #0 and #1}}
func.func @state_twice(%k: tensor<4xf32> {poot.state = "k"}, %k2: tensor<4xf32> {poot.state = "k"}) -> (tensor<4xf32> {poot.state = "k"}) {
  return %k : tensor<4xf32>
}

// -----

// expected-error @+1 {{expected state "k" to keep its type 'tensor<4xf32>', got 'tensor<4xf16>' on the result}}
func.func @state_type(%k: tensor<4xf32> {poot.state = "k"}) -> (tensor<4xf16> {poot.state = "k"}) {
  %0 = poot.convert %k : tensor<4xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// expected-error @+1 {{expected a string poot.state, got 1 : i64}}
func.func @state_form(%k: tensor<4xf32> {poot.state = 1}) {
  return
}

// -----

// expected-error @+1 {{expected an argument with poot.state = "v", got none}}
func.func @state_result_unpaired(%k: tensor<4xf32>) -> (tensor<4xf32> {poot.state = "v"}) {
  return %k : tensor<4xf32>
}

// -----

// expected-error @+1 {{expected unique poot.name "x", got it on arguments #0 and #1}}
func.func @name_twice(%a: tensor<4xf32> {poot.name = "x"}, %b: tensor<4xf32> {poot.name = "x"}) {
  return
}

// -----

// expected-error @+1 {{expected a non-empty poot.name}}
func.func @name_empty(%a: tensor<4xf32> {poot.name = ""}) {
  return
}

// -----

// expected-error @+1 {{expected a poot argument attribute (poot.slot, poot.range, poot.state, poot.name), got "poot.validation"}}
func.func @arg_unknown(%a: tensor<4xi1> {poot.validation}) {
  return
}

// -----

// expected-error @+1 {{expected an i1 tensor for a poot.validation result, got 'tensor<4xf32>'}}
func.func @validation_type(%a: tensor<4xf32>) -> (tensor<4xf32> {poot.validation}) {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{expected poot.validation to be a unit attribute, got true}}
func.func @validation_form(%a: tensor<i1>) -> (tensor<i1> {poot.validation = true}) {
  return %a : tensor<i1>
}

// -----

// expected-error @+1 {{expected a poot result attribute (poot.validation, poot.state, poot.name), got "poot.slot"}}
func.func @result_unknown(%a: tensor<i32>) -> (tensor<i32> {poot.slot = "pos"}) {
  return %a : tensor<i32>
}

// -----

// expected-error @+1 {{expected a validation result not to be state}}
func.func @validation_state(%a: tensor<i1> {poot.state = "w"}) -> (tensor<i1> {poot.validation, poot.state = "w"}) {
  return %a : tensor<i1>
}
