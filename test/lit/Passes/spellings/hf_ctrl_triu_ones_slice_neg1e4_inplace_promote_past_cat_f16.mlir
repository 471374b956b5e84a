// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Hugging Face transformers, Salesforce CTRL (models/ctrl/modeling_ctrl.py):
// CTRLModel.forward builds mask = torch.triu(torch.ones(seq_len +
// past_length, seq_len + past_length), 1), a float32 table (1.0 strictly
// above the diagonal), whatever the model dtype. MultiHeadAttention.forward:
// Wq/Wk/Wv outputs, split_into_heads (reshape(B, -1, H, depth).permute([0,
// 2, 1, 3])), layer_past.update (DynamicCache: torch.cat([past, new], -2)).
// scaled_dot_product_attention: matmul(q, k.permute(0, 1, 3, 2)) /
// np.sqrt(dk); then `scaled_attention_logits += mask[ns - nd : ns, :ns] *
// -1e4`: the slice is the table's last nd rows, times -1e4 in f32, added in
// place to the f16 logits (type promotion: the add runs in f32 and is stored
// back in f16); torch.softmax(dim=-1) (f32 accumulation, f16 out); @ v;
// permute back and reshape. A cached step of nd = 3 new tokens after a
// static past of 5 (ns = 8), one batch row, H = 4, depth 16, f16.
//
// Strongest form: the sliced table hides key t from row i iff t > 5 + i, so
// the -1e4 term is the causal band at offset 5; -1e4 hides keys exactly
// (the fill is far below any score here and every row keeps key 0), so the
// whole mask is `causal` with pos = 5 and no tensor: one poot.attention
// over the concatenated cache, scale 1/4 (the division by sqrt(16)).

// CHECK-LABEL: func.func @hf_ctrl_triu_ones_slice_neg1e4_inplace_promote_past_cat_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal at offset 5{{$}}
func.func @hf_ctrl_triu_ones_slice_neg1e4_inplace_promote_past_cat_f16(
    %q_lin: tensor<1x3x64xf16>, %k_lin: tensor<1x3x64xf16>, %v_lin: tensor<1x3x64xf16>,
    %past_k: tensor<1x4x5x16xf16>, %past_v: tensor<1x4x5x16xf16>) -> tensor<1x3x64xf16> {
  // CTRLModel.forward: mask = torch.triu(torch.ones(8, 8), 1)
  %mask = poot.constant dense<[[0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
  // split_into_heads
  %q4 = poot.reshape %q_lin : tensor<1x3x64xf16> -> tensor<1x3x4x16xf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x16xf16>
  %k4 = poot.reshape %k_lin : tensor<1x3x64xf16> -> tensor<1x3x4x16xf16>
  %kn = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x16xf16>
  %v4 = poot.reshape %v_lin : tensor<1x3x64xf16> -> tensor<1x3x4x16xf16>
  %vn = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x16xf16>
  // layer_past.update: torch.cat([past, new], dim=-2)
  %k = poot.concat %past_k, %kn {axis = 2 : i64} : tensor<1x4x5x16xf16>, tensor<1x4x3x16xf16>
  %v = poot.concat %past_v, %vn {axis = 2 : i64} : tensor<1x4x5x16xf16>, tensor<1x4x3x16xf16>
  // matmul_qk = torch.matmul(q, k.permute(0, 1, 3, 2)); / np.sqrt(dk)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xf16>
  %qk = poot.matmul %q, %kt : tensor<1x4x3x16xf16>, tensor<1x4x16x8xf16>
  %sd = poot.constant dense<4.0> : tensor<f16>
  %logits = poot.div %qk, %sd : tensor<1x4x3x8xf16>, tensor<f16>
  // scaled_attention_logits += mask[ns - nd : ns, :ns] * -1e4 (f32, stored in f16)
  %rows = poot.slice %mask {start = array<i64: 5, 0>, limit = array<i64: 8, 8>, step = array<i64: 1, 1>} : tensor<8x8xf32>
  %neg = poot.constant dense<-1.0E+4> : tensor<f32>
  %pen = poot.mul %rows, %neg : tensor<3x8xf32>, tensor<f32>
  %lf = poot.convert %logits : tensor<1x4x3x8xf16> -> tensor<1x4x3x8xf32>
  %lm = poot.add %lf, %pen : tensor<1x4x3x8xf32>, tensor<3x8xf32>
  %lh = poot.convert %lm : tensor<1x4x3x8xf32> -> tensor<1x4x3x8xf16>
  // torch.softmax(scaled_attention_logits, dim=-1): f32 accumulation, f16 out
  %x = poot.convert %lh : tensor<1x4x3x8xf16> -> tensor<1x4x3x8xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x3x8xf32>
  %d = poot.sub %x, %mx : tensor<1x4x3x8xf32>, tensor<1x4x3x1xf32>
  %e = poot.exp %d : tensor<1x4x3x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x8xf32>
  %pf = poot.div %e, %z : tensor<1x4x3x8xf32>, tensor<1x4x3x1xf32>
  %p = poot.convert %pf : tensor<1x4x3x8xf32> -> tensor<1x4x3x8xf16>
  // output = torch.matmul(attention_weights, v); permute([0, 2, 1, 3]); reshape
  %o = poot.matmul %p, %v : tensor<1x4x3x8xf16>, tensor<1x4x8x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x3x16xf16>
  %out = poot.reshape %ot : tensor<1x3x4x16xf16> -> tensor<1x3x64xf16>
  return %out : tensor<1x3x64xf16>
}
