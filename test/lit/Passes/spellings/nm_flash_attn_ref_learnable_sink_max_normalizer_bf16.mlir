// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN --allow-empty
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, Dao-AILab/flash-attention flash_attn/utils/testing.py
// (attention_ref with causal=True, learnable_sink given, upcast): q, k, v
// .float(); k, v repeated "b s h d -> b s (h g) d"; scores =
// einsum("bthd,bshd->bhts", q * softmax_scale, k); construct_local_mask
// with window (None, 0): col > row + sk - sq, masked_fill_ -inf; then the
// sink branch: logits_max = amax(scores, -1, keepdim), logits_or_sinks_max
// = maximum(sink[h, None, None], logits_max), unnormalized = exp(scores -
// that), normalizer = unnormalized.sum(-1, keepdim) + exp(sink -
// logits_or_sinks_max); unnormalized / normalizer; masked_fill(all(
// local_mask), 0); einsum with v; .to(bf16). The sink takes a share of
// every row (gpt-oss attention sinks): the weights sum to less than 1, no
// plain softmax. Must decline. GQA 4/2, B = 1, L = 6, d = 32.

// CHECK-LABEL: func.func @nm_flash_attn_ref_learnable_sink_max_normalizer_bf16
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN-NOT: remark: attention fused
func.func @nm_flash_attn_ref_learnable_sink_max_normalizer_bf16(
    %q0: tensor<1x6x4x32xbf16>, %k0: tensor<1x6x2x32xbf16>, %v0: tensor<1x6x2x32xbf16>,
    %learnable_sink: tensor<4xf32>) -> tensor<1x6x4x32xbf16> {
  %q = poot.convert %q0 : tensor<1x6x4x32xbf16> -> tensor<1x6x4x32xf32>
  %kf = poot.convert %k0 : tensor<1x6x2x32xbf16> -> tensor<1x6x2x32xf32>
  %vf = poot.convert %v0 : tensor<1x6x2x32xbf16> -> tensor<1x6x2x32xf32>
  %k5 = poot.reshape %kf : tensor<1x6x2x32xf32> -> tensor<1x6x2x1x32xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 6, 2, 2, 32>} : tensor<1x6x2x1x32xf32>
  %k = poot.reshape %kb : tensor<1x6x2x2x32xf32> -> tensor<1x6x4x32xf32>
  %v5 = poot.reshape %vf : tensor<1x6x2x32xf32> -> tensor<1x6x2x1x32xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 6, 2, 2, 32>} : tensor<1x6x2x1x32xf32>
  %v = poot.reshape %vb : tensor<1x6x2x2x32xf32> -> tensor<1x6x4x32xf32>
  %sm = poot.constant dense<0.176776695> : tensor<f32>
  %qs = poot.mul %q, %sm : tensor<1x6x4x32xf32>, tensor<f32>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x32xf32>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x6x4x32xf32>
  %s0 = poot.matmul %qh, %kh : tensor<1x4x6x32xf32>, tensor<1x4x32x6xf32>
  // construct_local_mask(6, 6, (None, 0)): col_idx > row_idx + sk - sq + 0
  %row1 = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %row = poot.reshape %row1 : tensor<6xi64> -> tensor<6x1xi64>
  %col = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %skmsq = poot.constant dense<0> : tensor<i64>
  %rb = poot.add %row, %skmsq : tensor<6x1xi64>, tensor<i64>
  %local = poot.compare gt, %col, %rb : tensor<6xi64>, tensor<6x1xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %s = poot.select %local, %ninf, %s0 : tensor<6x6xi1>, tensor<f32>, tensor<1x4x6x6xf32>
  // learnable_sink branch
  %lmax = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %sink = poot.reshape %learnable_sink : tensor<4xf32> -> tensor<4x1x1xf32>
  %lsmax = poot.max %sink, %lmax : tensor<4x1x1xf32>, tensor<1x4x6x1xf32>
  %d = poot.sub %s, %lsmax : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %un = poot.exp %d : tensor<1x4x6x6xf32>
  %us = poot.reduce_sum %un {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %sd = poot.sub %sink, %lsmax : tensor<4x1x1xf32>, tensor<1x4x6x1xf32>
  %se = poot.exp %sd : tensor<1x4x6x1xf32>
  %norm = poot.add %us, %se : tensor<1x4x6x1xf32>, tensor<1x4x6x1xf32>
  %p = poot.div %un, %norm : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  // masked_fill(torch.all(local_mask, dim=-1, keepdim=True), 0.0)
  %li = poot.convert %local : tensor<6x6xi1> -> tensor<6x6xi32>
  %lall = poot.reduce_min %li {axis = 1 : i64, keepdim} : tensor<6x6xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %full = poot.compare eq, %lall, %one : tensor<6x1xi32>, tensor<i32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %pa = poot.select %full, %zf, %p : tensor<6x1xi1>, tensor<f32>, tensor<1x4x6x6xf32>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x32xf32>
  %oh = poot.matmul %pa, %vh : tensor<1x4x6x6xf32>, tensor<1x4x6x32xf32>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x32xf32>
  %ob = poot.convert %o : tensor<1x6x4x32xf32> -> tensor<1x6x4x32xbf16>
  return %ob : tensor<1x6x4x32xbf16>
}
