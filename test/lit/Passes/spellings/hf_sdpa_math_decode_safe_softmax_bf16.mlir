// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers 4.53 sdpa_attention_forward (use_gqa_in_sdpa: enable_gqa)
// on a static-cache decode step, exported through torch 2.5's math
// decomposition: masking_utils.sdpa_mask gives the bool kv_idx <=
// cache_position; the math path turns it into zeros.masked_fill(~mask,
// -inf), repeats k and v with repeat_interleave(Hq / Hkv, -3), multiplies
// q and k^T by sqrt(scale) each, and ends with _safe_softmax
// (where(all(x == -inf, -1), 0, softmax(x))). GQA 8/2, D = 80, Lk = 16,
// cache_position in [0, 16).

// CHECK-LABEL: func.func @hf_sdpa_math_decode_safe_softmax_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x8x1x80xbf16>, %[[K:[^:]+]]: tensor<1x2x16x80xbf16>, %[[V:[^:]+]]: tensor<1x2x16x80xbf16>, %[[POS:[^:]+]]: tensor<i64>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i64>) {causal, n_rep = 4 : i64, scale = 0.11{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.11{{[0-9]*}}, causal from pos; empty-row guard never fires{{$}}
func.func @hf_sdpa_math_decode_safe_softmax_bf16(%q: tensor<1x8x1x80xbf16>, %k: tensor<1x2x16x80xbf16>,
                                                 %v: tensor<1x2x16x80xbf16>,
                                                 %pos: tensor<i64> {poot.slot = "pos", poot.range = array<i64: 0, 16>})
    -> tensor<1x8x1x80xbf16> {
  %kv = poot.iota {dim = 0 : i64} : tensor<16xi64>
  %ki = poot.reshape %kv : tensor<16xi64> -> tensor<1x1x1x16xi64>
  %qi = poot.reshape %pos : tensor<i64> -> tensor<1x1x1x1xi64>
  %keep = poot.compare le, %ki, %qi : tensor<1x1x1x16xi64>, tensor<1x1x1x1xi64>
  %nk = poot.not %keep : tensor<1x1x1x16xi1>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %am = poot.select %nk, %ninf, %zero : tensor<1x1x1x16xi1>, tensor<bf16>, tensor<bf16>
  %heads = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %four = poot.constant dense<4> : tensor<i64>
  %hk = poot.div %heads, %four : tensor<8xi64>, tensor<i64>
  %kr = poot.gather %k[%hk] {axis = 1 : i64} : tensor<1x2x16x80xbf16>, tensor<8xi64>
  %vr = poot.gather %v[%hk] {axis = 1 : i64} : tensor<1x2x16x80xbf16>, tensor<8xi64>
  %sc = poot.constant dense<0.334370166> : tensor<bf16>
  %qs = poot.mul %q, %sc : tensor<1x8x1x80xbf16>, tensor<bf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x16x80xbf16>
  %kts = poot.mul %kt, %sc : tensor<1x8x80x16xbf16>, tensor<bf16>
  %s = poot.matmul %qs, %kts : tensor<1x8x1x80xbf16>, tensor<1x8x80x16xbf16>
  %x = poot.add %s, %am : tensor<1x8x1x16xbf16>, tensor<1x1x1x16xbf16>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x8x1x16xbf16>
  %d = poot.sub %x, %m : tensor<1x8x1x16xbf16>, tensor<1x8x1x1xbf16>
  %e = poot.exp %d : tensor<1x8x1x16xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x8x1x16xbf16>
  %p = poot.div %e, %z : tensor<1x8x1x16xbf16>, tensor<1x8x1x1xbf16>
  %masked = poot.compare eq, %x, %ninf : tensor<1x8x1x16xbf16>, tensor<bf16>
  %mf = poot.convert %masked : tensor<1x8x1x16xi1> -> tensor<1x8x1x16xbf16>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x8x1x16xbf16>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %rows = poot.compare eq, %all, %one : tensor<1x8x1x1xbf16>, tensor<bf16>
  %ps = poot.select %rows, %zero, %p : tensor<1x8x1x1xi1>, tensor<bf16>, tensor<1x8x1x16xbf16>
  %o = poot.matmul %ps, %vr : tensor<1x8x1x16xbf16>, tensor<1x8x16x80xbf16>
  return %o : tensor<1x8x1x80xbf16>
}
