// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers 4.53 Qwen2Attention on a sliding layer, a prefill chunk
// against a static cache: masking_utils.sliding_window_causal_mask_function
// through _non_vmap_expansion_sdpa, q_idx = cache_position[:, None] with
// cache_position = arange(Lq) + past, kv_idx = arange(S)[None, :];
// eager_mask's torch.where(mask, 0, finfo(f16).min), eager_attention_forward
// (matmul * scaling + causal_mask[:, :, :, :S], softmax in f32, .to(f16)).
// GQA 6/2, D = 40, Lq = 3, S = 16, sliding_window = 5, past in [0, 13].

// CHECK-LABEL: func.func @qwen2_masking_utils_sliding_chunk_f16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x6x3x40xf16>, %[[K:[^:]+]]: tensor<1x2x16x40xf16>, %[[V:[^:]+]]: tensor<1x2x16x40xf16>, %[[POS:[^:]+]]: tensor<i64>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i64>) {causal, n_rep = 3 : i64, scale = 0.15{{[0-9]*}} : f64, window = 5 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 0.15{{[0-9]*}}, causal, window 5 from pos{{$}}
func.func @qwen2_masking_utils_sliding_chunk_f16(%q: tensor<1x6x3x40xf16>, %k: tensor<1x2x16x40xf16>,
                                                 %v: tensor<1x2x16x40xf16>,
                                                 %pos: tensor<i64> {poot.slot = "pos", poot.range = array<i64: 0, 14>})
    -> tensor<1x6x3x40xf16> {
  %ar = poot.iota {dim = 0 : i64} : tensor<3xi64>
  %cp = poot.add %ar, %pos : tensor<3xi64>, tensor<i64>
  %qi = poot.reshape %cp : tensor<3xi64> -> tensor<1x1x3x1xi64>
  %kv = poot.iota {dim = 0 : i64} : tensor<16xi64>
  %ki = poot.reshape %kv : tensor<16xi64> -> tensor<1x1x1x16xi64>
  %w = poot.constant dense<5> : tensor<i64>
  %lo = poot.sub %qi, %w : tensor<1x1x3x1xi64>, tensor<i64>
  %sl = poot.compare gt, %ki, %lo : tensor<1x1x1x16xi64>, tensor<1x1x3x1xi64>
  %ca = poot.compare le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x3x1xi64>
  %both = poot.and %sl, %ca : tensor<1x1x3x16xi1>, tensor<1x1x3x16xi1>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %min = poot.constant dense<-65504.0> : tensor<f16>
  %mask = poot.select %both, %zero, %min : tensor<1x1x3x16xi1>, tensor<f16>, tensor<f16>
  %k5 = poot.reshape %k : tensor<1x2x16x40xf16> -> tensor<1x2x1x16x40xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 3, 16, 40>} : tensor<1x2x1x16x40xf16>
  %kr = poot.reshape %kb : tensor<1x2x3x16x40xf16> -> tensor<1x6x16x40xf16>
  %v5 = poot.reshape %v : tensor<1x2x16x40xf16> -> tensor<1x2x1x16x40xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 3, 16, 40>} : tensor<1x2x1x16x40xf16>
  %vr = poot.reshape %vb : tensor<1x2x3x16x40xf16> -> tensor<1x6x16x40xf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x6x16x40xf16>
  %s = poot.matmul %q, %kt : tensor<1x6x3x40xf16>, tensor<1x6x40x16xf16>
  %c = poot.constant dense<0.158113882> : tensor<f16>
  %ss = poot.mul %s, %c : tensor<1x6x3x16xf16>, tensor<f16>
  %sm = poot.add %ss, %mask : tensor<1x6x3x16xf16>, tensor<1x1x3x16xf16>
  %x = poot.convert %sm : tensor<1x6x3x16xf16> -> tensor<1x6x3x16xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x6x3x16xf32>
  %d = poot.sub %x, %mx : tensor<1x6x3x16xf32>, tensor<1x6x3x1xf32>
  %e = poot.exp %d : tensor<1x6x3x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x6x3x16xf32>
  %p = poot.div %e, %z : tensor<1x6x3x16xf32>, tensor<1x6x3x1xf32>
  %ph = poot.convert %p : tensor<1x6x3x16xf32> -> tensor<1x6x3x16xf16>
  %o = poot.matmul %ph, %vr : tensor<1x6x3x16xf16>, tensor<1x6x16x40xf16>
  return %o : tensor<1x6x3x40xf16>
}
