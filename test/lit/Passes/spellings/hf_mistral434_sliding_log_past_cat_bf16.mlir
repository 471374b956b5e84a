// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers 4.34 MistralAttention (eager) with a past of 3 tokens:
// _make_sliding_window_causal_mask builds torch.full(1), tril(diagonal=0),
// triu(diagonal=-sliding_window), torch.log(mask).to(bf16) (a traced
// constant), then torch.cat([zeros(L, past), mask], -1); repeat_kv by
// expand/reshape; attn_weights = q @ k^T / sqrt(D) + mask; softmax in f32,
// .to(bf16); @ v. GQA 4/2, D = 64, L = 4, past = 3, sliding_window = 2.
// The table's keys are the new tokens only: row i sees new keys i - 2 .. i
// and every past key, which is no band over the whole key axis; its -inf
// cells (keys past the diagonal) give the causal band at offset 3, read
// beside the table.

// CHECK-LABEL: func.func @hf_mistral434_sliding_log_past_cat_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.125, tensor mask, causal at offset 3; band read off the table's -inf cells{{$}}
func.func @hf_mistral434_sliding_log_past_cat_bf16(%q: tensor<1x4x4x64xbf16>, %k: tensor<1x2x7x64xbf16>,
                                                   %v: tensor<1x2x7x64xbf16>) -> tensor<1x4x4x64xbf16> {
  %band = poot.constant dense<[[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0]]> : tensor<4x4xbf16>
  %lg = poot.log %band : tensor<4x4xbf16>
  %zp = poot.constant dense<0.0> : tensor<4x3xbf16>
  %mk = poot.concat %zp, %lg {axis = 1 : i64} : tensor<4x3xbf16>, tensor<4x4xbf16>
  %mask = poot.reshape %mk : tensor<4x7xbf16> -> tensor<1x1x4x7xbf16>
  %k5 = poot.reshape %k : tensor<1x2x7x64xbf16> -> tensor<1x2x1x7x64xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 7, 64>} : tensor<1x2x1x7x64xbf16>
  %kr = poot.reshape %kb : tensor<1x2x2x7x64xbf16> -> tensor<1x4x7x64xbf16>
  %v5 = poot.reshape %v : tensor<1x2x7x64xbf16> -> tensor<1x2x1x7x64xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 7, 64>} : tensor<1x2x1x7x64xbf16>
  %vr = poot.reshape %vb : tensor<1x2x2x7x64xbf16> -> tensor<1x4x7x64xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x64xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x4x64xbf16>, tensor<1x4x64x7xbf16>
  %c = poot.constant dense<8.0> : tensor<bf16>
  %ss = poot.div %s, %c : tensor<1x4x4x7xbf16>, tensor<bf16>
  %sm = poot.add %ss, %mask : tensor<1x4x4x7xbf16>, tensor<1x1x4x7xbf16>
  %x = poot.convert %sm : tensor<1x4x4x7xbf16> -> tensor<1x4x4x7xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x4x7xf32>
  %d = poot.sub %x, %mx : tensor<1x4x4x7xf32>, tensor<1x4x4x1xf32>
  %e = poot.exp %d : tensor<1x4x4x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x4x7xf32>
  %p = poot.div %e, %z : tensor<1x4x4x7xf32>, tensor<1x4x4x1xf32>
  %pb = poot.convert %p : tensor<1x4x4x7xf32> -> tensor<1x4x4x7xbf16>
  %o = poot.matmul %pb, %vr : tensor<1x4x4x7xbf16>, tensor<1x4x7x64xbf16>
  return %o : tensor<1x4x4x64xbf16>
}
