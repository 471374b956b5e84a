// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir
// RUN: poot-run %t.mlir --func=narrow_q --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=narrow_k_bf16 --check --ref=%s --quiet

// q computed in f32 and rounded to f16 before an f16 attention (a rotary
// applied in f32, then `.to(f16)`): the fused op reads the rounded q, in
// f16, as the graph does; only widening converts are looked through on
// the operands (they are exact), so the attention does not run in f32 on
// values the graph never holds.

// CHECK-LABEL: func.func @narrow_q
// CHECK: %[[Q:.+]] = poot.convert %arg0 : tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf16>
// CHECK: poot.attention %[[Q]], %arg1, %arg2 {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16>
func.func @narrow_q(%q32: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf16>, %v: tensor<1x4x8x16xf16>) -> tensor<1x4x8x16xf16> {
  %q = poot.convert %q32 : tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xf16>
  %s = poot.matmul %q, %kt : tensor<1x4x8x16xf16>, tensor<1x4x16x8xf16>
  %c = poot.constant dense<0.25> : tensor<f16>
  %s1 = poot.mul %s, %c : tensor<1x4x8x8xf16>, tensor<f16>
  %m = poot.reduce_max %s1 {axis = 3 : i64, keepdim} : tensor<1x4x8x8xf16>
  %d = poot.sub %s1, %m : tensor<1x4x8x8xf16>, tensor<1x4x8x1xf16>
  %e = poot.exp %d : tensor<1x4x8x8xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x8x8xf16>
  %p = poot.div %e, %z : tensor<1x4x8x8xf16>, tensor<1x4x8x1xf16>
  %o = poot.matmul %p, %v : tensor<1x4x8x8xf16>, tensor<1x4x8x16xf16>
  return %o : tensor<1x4x8x16xf16>
}

// k rounded to bf16 from f32, against a bf16 value cache: a bf16 attention.
// CHECK-LABEL: func.func @narrow_k_bf16
// CHECK: %[[K:.+]] = poot.convert %arg1 : tensor<1x2x8x16xf32> -> tensor<1x2x8x16xbf16>
// CHECK: poot.attention %arg0, %[[K]], %arg2 {n_rep = 2 : i64, scale = 2.500000e-01 : f64} : tensor<1x4x1x16xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16> -> tensor<1x4x1x16xbf16>
func.func @narrow_k_bf16(%q: tensor<1x4x1x16xbf16>, %k32: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xbf16>) -> tensor<1x4x1x16xbf16> {
  %k = poot.convert %k32 : tensor<1x2x8x16xf32> -> tensor<1x2x8x16xbf16>
  %k5 = poot.reshape %k : tensor<1x2x8x16xbf16> -> tensor<1x2x1x8x16xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xbf16>
  %kr = poot.reshape %kb : tensor<1x2x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
  %v5 = poot.reshape %v : tensor<1x2x8x16xbf16> -> tensor<1x2x1x8x16xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xbf16>
  %vr = poot.reshape %vb : tensor<1x2x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x1x16xbf16>, tensor<1x4x16x8xbf16>
  %c = poot.constant dense<0.25> : tensor<bf16>
  %s1 = poot.mul %s, %c : tensor<1x4x1x8xbf16>, tensor<bf16>
  %sf = poot.convert %s1 : tensor<1x4x1x8xbf16> -> tensor<1x4x1x8xf32>
  %m = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %sf, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %pb = poot.convert %p : tensor<1x4x1x8xf32> -> tensor<1x4x1x8xbf16>
  %o = poot.matmul %pb, %vr : tensor<1x4x1x8xbf16>, tensor<1x4x8x16xbf16>
  return %o : tensor<1x4x1x16xbf16>
}
