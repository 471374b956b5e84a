// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF WhisperAttention (4.3x eager) as cross-attention: query_states =
// q_proj(h) * self.scaling; _shape(t) = view(B, L, H, D).transpose(1, 2);
// proj_shape = (B*H, -1, D): q, k, v viewed [B*H, L, D];
// attn_weights = bmm(q, k.transpose(1, 2)); no mask; softmax(dim=-1) on the
// 3-D [B*H, tgt, src] view; bmm(attn_probs, v); view(B, H, tgt, D)
// .transpose(1, 2).reshape(B, tgt, H*D). B = 2, H = 4, tgt = 3, src = 10
// (encoder frames), D = 40.

// CHECK-LABEL: func.func @whisper_bmm_flat_heads_cross
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 0.15811{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114
func.func @whisper_bmm_flat_heads_cross(%xq: tensor<2x3x160xf32>, %xk: tensor<2x10x160xf32>,
                                        %xv: tensor<2x10x160xf32>) -> tensor<2x3x160xf32> {
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %qs = poot.mul %xq, %c : tensor<2x3x160xf32>, tensor<f32>
  %q4 = poot.reshape %qs : tensor<2x3x160xf32> -> tensor<2x3x4x40xf32>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x40xf32>
  %q = poot.reshape %qh : tensor<2x4x3x40xf32> -> tensor<8x3x40xf32>
  %k4 = poot.reshape %xk : tensor<2x10x160xf32> -> tensor<2x10x4x40xf32>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x10x4x40xf32>
  %k = poot.reshape %kh : tensor<2x4x10x40xf32> -> tensor<8x10x40xf32>
  %v4 = poot.reshape %xv : tensor<2x10x160xf32> -> tensor<2x10x4x40xf32>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x10x4x40xf32>
  %v = poot.reshape %vh : tensor<2x4x10x40xf32> -> tensor<8x10x40xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<8x10x40xf32>
  %s = poot.matmul %q, %kt : tensor<8x3x40xf32>, tensor<8x40x10xf32>
  %m = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<8x3x10xf32>
  %d = poot.sub %s, %m : tensor<8x3x10xf32>, tensor<8x3x1xf32>
  %e = poot.exp %d : tensor<8x3x10xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x3x10xf32>
  %p = poot.div %e, %z : tensor<8x3x10xf32>, tensor<8x3x1xf32>
  %o = poot.matmul %p, %v : tensor<8x3x10xf32>, tensor<8x10x40xf32>
  %o4 = poot.reshape %o : tensor<8x3x40xf32> -> tensor<2x4x3x40xf32>
  %ot = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x3x40xf32>
  %o3 = poot.reshape %ot : tensor<2x3x4x40xf32> -> tensor<2x3x160xf32>
  return %o3 : tensor<2x3x160xf32>
}
