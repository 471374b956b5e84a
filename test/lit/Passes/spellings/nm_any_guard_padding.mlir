// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, PyTorch: the hand-written guard
// torch.where(keep.any(-1, keepdim=True), p, 0) (any() as a sum over the
// mask cast to int, > 0) on a key-padding mask [B, 1, 1, Lk]. A row with
// no kept key is 0 here and 0/0 in the fused op, and the mask does not
// rule it out; declined, runs unfused.
// MHA, B = 4, H = 1, Lq = 2, Lk = 3, D = 16.

// CHECK-LABEL: func.func @nm_any_guard_padding
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_any_guard_padding(%q: tensor<4x1x2x16xf32>, %k: tensor<4x1x3x16xf32>,
                                %v: tensor<4x1x3x16xf32>, %keep: tensor<4x1x1x3xi1>)
    -> tensor<4x1x2x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x1x3x16xf32>
  %s = poot.matmul %q, %kt : tensor<4x1x2x16xf32>, tensor<4x1x16x3xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<4x1x2x3xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %ss, %ninf : tensor<4x1x1x3xi1>, tensor<4x1x2x3xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<4x1x2x3xf32>
  %d = poot.sub %x, %m : tensor<4x1x2x3xf32>, tensor<4x1x2x1xf32>
  %e = poot.exp %d : tensor<4x1x2x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<4x1x2x3xf32>
  %p = poot.div %e, %z : tensor<4x1x2x3xf32>, tensor<4x1x2x1xf32>
  %ki = poot.convert %keep : tensor<4x1x1x3xi1> -> tensor<4x1x1x3xi32>
  %n = poot.reduce_sum %ki {axis = 3 : i64, keepdim} : tensor<4x1x1x3xi32>
  %izero = poot.constant dense<0> : tensor<i32>
  %any = poot.compare gt, %n, %izero : tensor<4x1x1x1xi32>, tensor<i32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  // EXPLAIN: remark: attention declined: 'poot.select' at line [[#@LINE+1]] zeroes the rows that have no visible key, where the fused op gives 0/0 (NaN), and they are not ruled out: its condition is not read as a causal or window band{{$}}
  %ps = poot.select %any, %p, %zero : tensor<4x1x1x1xi1>, tensor<4x1x2x3xf32>, tensor<f32>
  %o = poot.matmul %ps, %v : tensor<4x1x2x3xf32>, tensor<4x1x3x16xf32>
  return %o : tensor<4x1x2x16xf32>
}
