// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// MLC-LLM's first Relax Llama (mlc_llm/relax_model/llama.py,
// LlamaAttention.forward with the mask from _make_causal_mask), the
// "encoding" (prefill) function with a KV cache already holding a past,
// f16. The mask is built by two TE kernels: min_max_triu_te is
// Select(j > i, min_value(f16), max_value(f16)) over [n, n] (-65504 above
// the diagonal, +65504 on and below it), broadcast_to [bsz, 1, n, n];
// extend_te prepends the m - n past keys as max_value
// (if_then_else(j < m - n, max_value, x[.., j - (m - n)])). The attention
// is then: attn = matmul(q, permute_dims(k, [0, 1, 3, 2])) /
// const(sqrt(head_dim), f16); attn = maximum(attn, min_value(f16));
// attn = minimum(attn, mask); astype f32; nn.softmax(axis=-1); astype f16;
// matmul with v; permute back. q and k arrive after the rotary kernel, k
// and v as the cache views [m, H, D] reshaped to [1, m, H, D]. The mask is
// applied as a minimum, not an add or a select: minimum(s, +65504) is s for
// every f16 score, and minimum(s, -65504) is -65504 after the clamp, so the
// scores are select(t > i + 3, -65504, s): a fill of the f16 lowest value
// over the band t <= i + (m - n), every row keeping its own keys, which in
// f32 hides every future key exactly (exp(-65504 - max) is 0). The clamp at
// the f16 lowest moves no finite score. Strongest form: causal at the
// static offset m - n = 3, scale 1/8, n_rep 1, one fused op.
// bsz = 1, n = 4 new tokens, m = 7 keys, H = 4, D = 64.

// CHECK-LABEL: func.func @mlc_llm_relax_llama_minimum_max_value_triu_extend_te_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125, causal at offset 3
func.func @mlc_llm_relax_llama_minimum_max_value_triu_extend_te_f16(
    %q_rot: tensor<1x4x4x64xf16>, %k_view: tensor<7x4x64xf16>, %v_view: tensor<7x4x64xf16>)
    -> tensor<1x4x256xf16> {
  // _make_causal_mask: min_max_triu_te, broadcast_to, extend_te
  %i = poot.iota {dim = 0 : i64} : tensor<4x4xi64>
  %j = poot.iota {dim = 1 : i64} : tensor<4x4xi64>
  %above = poot.compare gt, %j, %i : tensor<4x4xi64>, tensor<4x4xi64>
  %fmin = poot.constant dense<-6.550400e+04> : tensor<f16>
  %fmax = poot.constant dense<6.550400e+04> : tensor<f16>
  %triu = poot.select %above, %fmin, %fmax : tensor<4x4xi1>, tensor<f16>, tensor<f16>
  %diag = poot.broadcast %triu {shape = array<i64: 1, 1, 4, 4>} : tensor<4x4xf16>
  %past = poot.constant dense<6.550400e+04> : tensor<1x1x4x3xf16>
  %mask = poot.concat %past, %diag {axis = 3 : i64} : tensor<1x1x4x3xf16>, tensor<1x1x4x4xf16>
  // kv cache views, reshaped and permuted to [1, H, m, D]
  %k4 = poot.reshape %k_view : tensor<7x4x64xf16> -> tensor<1x7x4x64xf16>
  %v4 = poot.reshape %v_view : tensor<7x4x64xf16> -> tensor<1x7x4x64xf16>
  %q = poot.transpose %q_rot {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x4x64xf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x7x4x64xf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x7x4x64xf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x64xf16>
  %s = poot.matmul %q, %kt : tensor<1x4x4x64xf16>, tensor<1x4x64x7xf16>
  %sq = poot.constant dense<8.0> : tensor<f16>
  %s1 = poot.div %s, %sq : tensor<1x4x4x7xf16>, tensor<f16>
  // maximum(attn, min_value), minimum(attn, mask)
  %s2 = poot.max %s1, %fmin : tensor<1x4x4x7xf16>, tensor<f16>
  %s3 = poot.min %s2, %mask : tensor<1x4x4x7xf16>, tensor<1x1x4x7xf16>
  // astype f32, nn.softmax(axis=-1), astype f16
  %x = poot.convert %s3 : tensor<1x4x4x7xf16> -> tensor<1x4x4x7xf32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x4x7xf32>
  %d = poot.sub %x, %m : tensor<1x4x4x7xf32>, tensor<1x4x4x1xf32>
  %e = poot.exp %d : tensor<1x4x4x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x4x7xf32>
  %p = poot.div %e, %z : tensor<1x4x4x7xf32>, tensor<1x4x4x1xf32>
  %ph = poot.convert %p : tensor<1x4x4x7xf32> -> tensor<1x4x4x7xf16>
  %o = poot.matmul %ph, %v : tensor<1x4x4x7xf16>, tensor<1x4x7x64xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x4x64xf16>
  %out = poot.reshape %ot : tensor<1x4x4x64xf16> -> tensor<1x4x256xf16>
  return %out : tensor<1x4x256xf16>
}
