// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF Gemma2 eager with masking_utils: the sliding layer's mask is
// and_masks(causal_mask_function, sliding_window_overlay(W)): kv_idx <= q_idx
// and kv_idx > q_idx - W, q_idx = cache_position = arange(past, past + L);
// eager mask torch.where(mask, 0.0, finfo(f32).min); w = q @ k^T * scaling
// (query_pre_attn_scalar^-0.5); softcap: w / 50, tanh, * 50; w + mask;
// softmax(dim=-1, f32); @ v; repeat_kv GQA 4/2. A chunk of L = 3 at pos,
// static cache Lk = 12, W = 4, D = 64, B = 1.

// CHECK-LABEL: func.func @gemma2_masking_utils_sliding_softcap
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 2 : i64, scale = 1.250000e-01 : f64, softcap = 5.000000e+01 : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.125, softcap 50, causal, window 4 from pos
func.func @gemma2_masking_utils_sliding_softcap(%q: tensor<1x4x3x64xf32>, %k: tensor<1x2x12x64xf32>,
                                                %v: tensor<1x2x12x64xf32>,
                                                %pos: tensor<i64> {poot.slot = "pos", poot.range = array<i64: 0, 10>})
    -> tensor<1x4x3x64xf32> {
  %ci = poot.iota {dim = 0 : i64} : tensor<3xi64>
  %cp = poot.add %ci, %pos : tensor<3xi64>, tensor<i64>
  %qi = poot.reshape %cp : tensor<3xi64> -> tensor<1x1x3x1xi64>
  %kv = poot.iota {dim = 3 : i64} : tensor<1x1x1x12xi64>
  %causal = poot.compare le, %kv, %qi : tensor<1x1x1x12xi64>, tensor<1x1x3x1xi64>
  %w = poot.constant dense<4> : tensor<i64>
  %lo = poot.sub %qi, %w : tensor<1x1x3x1xi64>, tensor<i64>
  %slide = poot.compare gt, %kv, %lo : tensor<1x1x1x12xi64>, tensor<1x1x3x1xi64>
  %vis = poot.and %causal, %slide : tensor<1x1x3x12xi1>, tensor<1x1x3x12xi1>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %mask = poot.select %vis, %zero, %min : tensor<1x1x3x12xi1>, tensor<f32>, tensor<f32>
  %k5 = poot.reshape %k : tensor<1x2x12x64xf32> -> tensor<1x2x1x12x64xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 12, 64>} : tensor<1x2x1x12x64xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x12x64xf32> -> tensor<1x4x12x64xf32>
  %v5 = poot.reshape %v : tensor<1x2x12x64xf32> -> tensor<1x2x1x12x64xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 12, 64>} : tensor<1x2x1x12x64xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x12x64xf32> -> tensor<1x4x12x64xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x12x64xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x3x64xf32>, tensor<1x4x64x12xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x3x12xf32>, tensor<f32>
  %cap = poot.constant dense<50.0> : tensor<f32>
  %s1 = poot.div %ss, %cap : tensor<1x4x3x12xf32>, tensor<f32>
  %s2 = poot.tanh %s1 : tensor<1x4x3x12xf32>
  %s3 = poot.mul %s2, %cap : tensor<1x4x3x12xf32>, tensor<f32>
  %sm = poot.add %s3, %mask : tensor<1x4x3x12xf32>, tensor<1x1x3x12xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x3x12xf32>
  %d = poot.sub %sm, %m : tensor<1x4x3x12xf32>, tensor<1x4x3x1xf32>
  %e = poot.exp %d : tensor<1x4x3x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x12xf32>
  %p = poot.div %e, %z : tensor<1x4x3x12xf32>, tensor<1x4x3x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x3x12xf32>, tensor<1x4x12x64xf32>
  return %o : tensor<1x4x3x64xf32>
}
