// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Mask2Former (models/mask2former/modeling_mask2former.py):
// Mask2FormerMaskPredictor.forward turns the (interpolated) mask logits
// [B, Q, h, w] into attention_mask = (sigmoid().flatten(2).unsqueeze(1)
// .repeat(1, num_heads, 1, 1).flatten(0, 1) < 0.5) (True = hidden); the
// decoder loop re-enables the rows that hide everything,
// attention_mask[torch.where(attention_mask.sum(-1) == shape[-1])] =
// False; the masked cross attention is torch.nn.MultiheadAttention
// (F.multi_head_attention_forward, need_weights=True path) over the
// seq-first projections: the bool mask made float by _canonical_mask
// (zeros.masked_fill_(mask, -inf)), q/k/v .view(L, B * H, hd).transpose(0,
// 1), q_scaled = q * sqrt(1 / hd), baddbmm(attn_mask, q_scaled, k^T),
// softmax(dim=-1), bmm(w, v), transpose(0, 1).view(Q, B, E). The sigmoid is
// written 1 / (1 + exp(-x)). A -inf tensor mask per batch row and head
// (repeated over the heads), every row keeping at least one key.
// MHA, B = 2, H = 4, Q = 5 queries, S = 12 pixels (3 x 4), hd = 16.

// CHECK-LABEL: func.func @hf_mask2former_masked_cross_attn_reenable_rows_baddbmm_f32
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @hf_mask2former_masked_cross_attn_reenable_rows_baddbmm_f32(
    %q: tensor<5x2x64xf32>, %k: tensor<12x2x64xf32>, %v: tensor<12x2x64xf32>,
    %outputs_mask: tensor<2x5x3x4xf32>) -> tensor<5x2x64xf32> {
  // Mask2FormerMaskPredictor: sigmoid().flatten(2).unsqueeze(1).repeat(1, H, 1, 1)
  %nx = poot.neg %outputs_mask : tensor<2x5x3x4xf32>
  %ex = poot.exp %nx : tensor<2x5x3x4xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %den = poot.add %ex, %one : tensor<2x5x3x4xf32>, tensor<f32>
  %sig = poot.div %one, %den : tensor<f32>, tensor<2x5x3x4xf32>
  %flat = poot.reshape %sig : tensor<2x5x3x4xf32> -> tensor<2x1x5x12xf32>
  %rep = poot.broadcast %flat {shape = array<i64: 2, 4, 5, 12>} : tensor<2x1x5x12xf32>
  %rep3 = poot.reshape %rep : tensor<2x4x5x12xf32> -> tensor<8x5x12xf32>
  %half = poot.constant dense<0.5> : tensor<f32>
  %am0 = poot.compare lt, %rep3, %half : tensor<8x5x12xf32>, tensor<f32>
  // attention_mask[torch.where(attention_mask.sum(-1) == attention_mask.shape[-1])] = False
  %ami = poot.convert %am0 : tensor<8x5x12xi1> -> tensor<8x5x12xi64>
  %cnt = poot.reduce_sum %ami {axis = 2 : i64, keepdim} : tensor<8x5x12xi64>
  %len = poot.constant dense<12> : tensor<i64>
  %allhid = poot.compare eq, %cnt, %len : tensor<8x5x1xi64>, tensor<i64>
  %false = poot.constant dense<false> : tensor<i1>
  %am = poot.select %allhid, %false, %am0 : tensor<8x5x1xi1>, tensor<i1>, tensor<8x5x12xi1>
  // F._canonical_mask: float mask, -inf where True
  %zf = poot.constant dense<0.0> : tensor<8x5x12xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %fmask = poot.select %am, %ninf, %zf : tensor<8x5x12xi1>, tensor<f32>, tensor<8x5x12xf32>
  // q/k/v .view(L, B * H, hd).transpose(0, 1)
  %q3 = poot.reshape %q : tensor<5x2x64xf32> -> tensor<5x8x16xf32>
  %qh = poot.transpose %q3 {perm = array<i64: 1, 0, 2>} : tensor<5x8x16xf32>
  %k3 = poot.reshape %k : tensor<12x2x64xf32> -> tensor<12x8x16xf32>
  %kh = poot.transpose %k3 {perm = array<i64: 1, 0, 2>} : tensor<12x8x16xf32>
  %v3 = poot.reshape %v : tensor<12x2x64xf32> -> tensor<12x8x16xf32>
  %vh = poot.transpose %v3 {perm = array<i64: 1, 0, 2>} : tensor<12x8x16xf32>
  // q_scaled = q * math.sqrt(1.0 / float(E)); baddbmm(attn_mask, q_scaled, k^T)
  %sc = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %qh, %sc : tensor<8x5x16xf32>, tensor<f32>
  %kt = poot.transpose %kh {perm = array<i64: 0, 2, 1>} : tensor<8x12x16xf32>
  %s0 = poot.matmul %qs, %kt : tensor<8x5x16xf32>, tensor<8x16x12xf32>
  %s = poot.add %fmask, %s0 : tensor<8x5x12xf32>, tensor<8x5x12xf32>
  %mx = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<8x5x12xf32>
  %d = poot.sub %s, %mx : tensor<8x5x12xf32>, tensor<8x5x1xf32>
  %e = poot.exp %d : tensor<8x5x12xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x5x12xf32>
  %p = poot.div %e, %z : tensor<8x5x12xf32>, tensor<8x5x1xf32>
  %o0 = poot.matmul %p, %vh : tensor<8x5x12xf32>, tensor<8x12x16xf32>
  %o1 = poot.transpose %o0 {perm = array<i64: 1, 0, 2>} : tensor<8x5x16xf32>
  %o = poot.reshape %o1 : tensor<5x8x16xf32> -> tensor<5x2x64xf32>
  return %o : tensor<5x2x64xf32>
}
