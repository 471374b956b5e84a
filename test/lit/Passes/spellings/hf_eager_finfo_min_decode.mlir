// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF eager decode: the causal mask is built as in
// _prepare_4d_causal_attention_mask, torch.full(min_dtype) times
// (arange(Lk) > cache_position), so a hidden key gets finfo(f32).min, not
// -inf, added to its score. pos is declared inside the cache, so every row
// sees key 0 and the finite fill hides exactly what -inf would. GQA 8/2,
// D = 64, Lk = 16.

// CHECK-LABEL: func.func @hf_eager_finfo_min_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x8x1x64xf32>, %[[K:[^:]+]]: tensor<1x2x16x64xf32>, %[[V:[^:]+]]: tensor<1x2x16x64xf32>, %[[POS:[^:]+]]: tensor<i32>
// out = softmax((q . k) * 64^-1/2, keys t <= pos) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @hf_eager_finfo_min_decode(%q: tensor<1x8x1x64xf32>, %k: tensor<1x2x16x64xf32>,
                                     %v: tensor<1x2x16x64xf32>,
                                     %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 16>})
    -> tensor<1x8x1x64xf32> {
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %hidf = poot.convert %hid : tensor<1x1x1x16xi1> -> tensor<1x1x1x16xf32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %mask = poot.mul %hidf, %min : tensor<1x1x1x16xf32>, tensor<f32>
  %k5 = poot.reshape %k : tensor<1x2x16x64xf32> -> tensor<1x2x1x16x64xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 4, 16, 64>} : tensor<1x2x1x16x64xf32>
  %kr = poot.reshape %kb : tensor<1x2x4x16x64xf32> -> tensor<1x8x16x64xf32>
  %v5 = poot.reshape %v : tensor<1x2x16x64xf32> -> tensor<1x2x1x16x64xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 4, 16, 64>} : tensor<1x2x1x16x64xf32>
  %vr = poot.reshape %vb : tensor<1x2x4x16x64xf32> -> tensor<1x8x16x64xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x16x64xf32>
  %s = poot.matmul %q, %kt : tensor<1x8x1x64xf32>, tensor<1x8x64x16xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x8x1x16xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x8x1x16xf32>, tensor<1x1x1x16xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<1x8x1x16xf32>
  %d = poot.sub %sm, %m : tensor<1x8x1x16xf32>, tensor<1x8x1x1xf32>
  %e = poot.exp %d : tensor<1x8x1x16xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<1x8x1x16xf32>
  %p = poot.div %e, %z : tensor<1x8x1x16xf32>, tensor<1x8x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x8x1x16xf32>, tensor<1x8x16x64xf32>
  return %o : tensor<1x8x1x64xf32>
}
