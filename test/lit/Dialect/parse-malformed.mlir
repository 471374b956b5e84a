// RUN: poot-opt %s --split-input-file --verify-diagnostics

// Malformed ops that type inference sees before the verifier does (found by
// the MLIR fuzz target, test/fuzz/MlirFuzzer.cpp): a missing or misspelt
// required attribute, an attribute of another kind, an operand that is not a
// tensor of static shape. Each is a typed error at the op, not a crash.

func.func @transpose_no_perm(%k: tensor<2x1x20x64xf32>) {
  // expected-error @+1 {{'poot.transpose' op requires attribute 'perm'}}
  %kt = poot.transpose %k {permJ = array<i64: 0, 1, 3, 2>} : tensor<2x1x20x64xf32>
  return
}

// -----

func.func @transpose_perm_kind(%k: tensor<2x3xf32>) {
  // expected-error @+1 {{'poot.transpose' op attribute 'perm' failed to satisfy constraint}}
  %kt = poot.transpose %k {perm = 3 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_no_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'poot.reduce_sum' op requires attribute 'axis'}}
  %0 = poot.reduce_sum %x {keepdim} : tensor<2x3xf32>
  return
}

// -----

func.func @slice_no_limit(%x: tensor<4xf32>) {
  // expected-error @+1 {{'poot.slice' op requires attribute 'limit'}}
  %0 = poot.slice %x {start = array<i64: 0>, step = array<i64: 1>} : tensor<4xf32>
  return
}

// -----

func.func @rope_no_style(%x: tensor<1x2x4x8xf32>, %c: tensor<4x8xf32>, %s: tensor<4x8xf32>) {
  // expected-error @+1 {{'poot.rope' op requires attribute}}
  %0 = poot.rope %x, %c, %s {rotary_dim = 8 : i64} : tensor<1x2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @transpose_scalar_operand(%x: i32) {
  // expected-error @+1 {{'poot.transpose' op operand #0 must be}}
  %0 = "poot.transpose"(%x) {perm = array<i64: 0>} : (i32) -> i32
  return
}

// -----

func.func @add_dynamic_operand(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{expected operands of static-shaped tensor type, got 'tensor<?x4xf32>'}}
  %0 = poot.add %x, %x : tensor<?x4xf32>, tensor<?x4xf32>
  return
}
