// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers 4.38 CLIPAttention in the CLIP text tower, f16:
// query_states = q_proj(x) * self.scale; _shape to [B, H, L, D] and views
// to [B * H, L, D]; attn_weights = torch.bmm(q, k.transpose(1, 2));
// view [B, H, L, L] + causal_attention_mask (_create_4d_causal_attention_mask:
// _make_causal_mask's full(finfo(f16).min) masked_fill(arange < (arange +
// 1).view(L, 1), 0)), view back to [B * H, L, L]; softmax(dim=-1); bmm with
// v. No padding mask (the text pipeline passes none). B = 2, H = 2, L = 5,
// D = 80.

// CHECK-LABEL: func.func @clip_text_bmm_causal_finfo_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.1118{{[0-9]*}}, causal{{$}}
func.func @clip_text_bmm_causal_finfo_f16(%q: tensor<2x2x5x80xf16>, %k: tensor<2x2x5x80xf16>,
                                          %v: tensor<2x2x5x80xf16>) -> tensor<2x2x5x80xf16> {
  %c = poot.constant dense<0.111803398> : tensor<f16>
  %qs = poot.mul %q, %c : tensor<2x2x5x80xf16>, tensor<f16>
  %q3 = poot.reshape %qs : tensor<2x2x5x80xf16> -> tensor<4x5x80xf16>
  %k3 = poot.reshape %k : tensor<2x2x5x80xf16> -> tensor<4x5x80xf16>
  %v3 = poot.reshape %v : tensor<2x2x5x80xf16> -> tensor<4x5x80xf16>
  %kt = poot.transpose %k3 {perm = array<i64: 0, 2, 1>} : tensor<4x5x80xf16>
  %w = poot.matmul %q3, %kt : tensor<4x5x80xf16>, tensor<4x80x5xf16>
  %ar = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %ar1 = poot.add %ar, %one : tensor<5xi64>, tensor<i64>
  %col = poot.reshape %ar1 : tensor<5xi64> -> tensor<5x1xi64>
  %vis = poot.compare lt, %ar, %col : tensor<5xi64>, tensor<5x1xi64>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %min = poot.constant dense<-65504.0> : tensor<5x5xf16>
  %cm = poot.select %vis, %zero, %min : tensor<5x5xi1>, tensor<f16>, tensor<5x5xf16>
  %cm4 = poot.reshape %cm : tensor<5x5xf16> -> tensor<1x1x5x5xf16>
  %w4 = poot.reshape %w : tensor<4x5x5xf16> -> tensor<2x2x5x5xf16>
  %wm = poot.add %w4, %cm4 : tensor<2x2x5x5xf16>, tensor<1x1x5x5xf16>
  %w3 = poot.reshape %wm : tensor<2x2x5x5xf16> -> tensor<4x5x5xf16>
  %mx = poot.reduce_max %w3 {axis = 2 : i64, keepdim} : tensor<4x5x5xf16>
  %d = poot.sub %w3, %mx : tensor<4x5x5xf16>, tensor<4x5x1xf16>
  %e = poot.exp %d : tensor<4x5x5xf16>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x5x5xf16>
  %p = poot.div %e, %z : tensor<4x5x5xf16>, tensor<4x5x1xf16>
  %o3 = poot.matmul %p, %v3 : tensor<4x5x5xf16>, tensor<4x5x80xf16>
  %o = poot.reshape %o3 : tensor<4x5x80xf16> -> tensor<2x2x5x80xf16>
  return %o : tensor<2x2x5x80xf16>
}
