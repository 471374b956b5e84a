// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// torch.nn.MultiheadAttention(need_weights=True) with
// attn_mask = nn.Transformer.generate_square_subsequent_mask(L) (the
// constant triu(full((L, L), -inf), 1)): F.multi_head_attention_forward
// views q, k, v as [B * H, L, D]; q_scaled = q * sqrt(1 / D);
// w = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1));
// softmax(dim=-1); torch.bmm(w, v). B * H = 4, L = 5, D = 16.

// CHECK-LABEL: func.func @torch_mha_baddbmm_square_subsequent_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal
func.func @torch_mha_baddbmm_square_subsequent_f32(%q: tensor<4x5x16xf32>, %k: tensor<4x5x16xf32>,
                                                   %v: tensor<4x5x16xf32>) -> tensor<4x5x16xf32> {
  %c = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<4x5x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<4x5x16xf32>
  %s = poot.matmul %qs, %kt : tensor<4x5x16xf32>, tensor<4x16x5xf32>
  %am = poot.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<5x5xf32>
  %w = poot.add %am, %s : tensor<5x5xf32>, tensor<4x5x5xf32>
  %m = poot.reduce_max %w {axis = 2 : i64, keepdim} : tensor<4x5x5xf32>
  %d = poot.sub %w, %m : tensor<4x5x5xf32>, tensor<4x5x1xf32>
  %e = poot.exp %d : tensor<4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x5x5xf32>
  %p = poot.div %e, %z : tensor<4x5x5xf32>, tensor<4x5x1xf32>
  %o = poot.matmul %p, %v : tensor<4x5x5xf32>, tensor<4x5x16xf32>
  return %o : tensor<4x5x16xf32>
}
