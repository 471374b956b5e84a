// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers 4.45 LlamaAttention (eager) decoding one token with a
// DynamicCache: past_key_value.update(k, v) is torch.cat([past, new],
// dim=-2) on each of k and v; repeat_kv by expand/reshape; the 4D mask from
// _prepare_4d_causal_attention_mask_with_cache_position at L = 1 is
// full(finfo(f32).min) * (arange(S) > cache_position) with cache_position =
// past length (15, traced), which reads as causal at offset 15 (every key
// visible); q @ k^T * scaling + mask; softmax(dim=-1,
// dtype=f32); @ v. GQA 8/2, D = 96, past = 15.

// CHECK-LABEL: func.func @hf_dynamic_cache_cat_decode_gqa_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: {causal, n_rep = 4 : i64, scale = 0.102062{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.102062, causal at offset 15{{$}}
func.func @hf_dynamic_cache_cat_decode_gqa_f32(%q: tensor<1x8x1x96xf32>, %pk: tensor<1x2x15x96xf32>,
                                               %pv: tensor<1x2x15x96xf32>, %kn: tensor<1x2x1x96xf32>,
                                               %vn: tensor<1x2x1x96xf32>) -> tensor<1x8x1x96xf32> {
  %k = poot.concat %pk, %kn {axis = 2 : i64} : tensor<1x2x15x96xf32>, tensor<1x2x1x96xf32>
  %v = poot.concat %pv, %vn {axis = 2 : i64} : tensor<1x2x15x96xf32>, tensor<1x2x1x96xf32>
  %full = poot.constant dense<-3.40282347E+38> : tensor<1x16xf32>
  %ar = poot.iota {dim = 0 : i64} : tensor<16xi64>
  %cp = poot.constant dense<15> : tensor<1xi64>
  %cpr = poot.reshape %cp : tensor<1xi64> -> tensor<1x1xi64>
  %gt = poot.compare gt, %ar, %cpr : tensor<16xi64>, tensor<1x1xi64>
  %gtf = poot.convert %gt : tensor<1x16xi1> -> tensor<1x16xf32>
  %cm = poot.mul %full, %gtf : tensor<1x16xf32>, tensor<1x16xf32>
  %mask = poot.reshape %cm : tensor<1x16xf32> -> tensor<1x1x1x16xf32>
  %k5 = poot.reshape %k : tensor<1x2x16x96xf32> -> tensor<1x2x1x16x96xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 4, 16, 96>} : tensor<1x2x1x16x96xf32>
  %kr = poot.reshape %kb : tensor<1x2x4x16x96xf32> -> tensor<1x8x16x96xf32>
  %v5 = poot.reshape %v : tensor<1x2x16x96xf32> -> tensor<1x2x1x16x96xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 4, 16, 96>} : tensor<1x2x1x16x96xf32>
  %vr = poot.reshape %vb : tensor<1x2x4x16x96xf32> -> tensor<1x8x16x96xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x16x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x8x1x96xf32>, tensor<1x8x96x16xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x8x1x16xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x8x1x16xf32>, tensor<1x1x1x16xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<1x8x1x16xf32>
  %d = poot.sub %sm, %m : tensor<1x8x1x16xf32>, tensor<1x8x1x1xf32>
  %e = poot.exp %d : tensor<1x8x1x16xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<1x8x1x16xf32>
  %p = poot.div %e, %z : tensor<1x8x1x16xf32>, tensor<1x8x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x8x1x16xf32>, tensor<1x8x16x96xf32>
  return %o : tensor<1x8x1x96xf32>
}
