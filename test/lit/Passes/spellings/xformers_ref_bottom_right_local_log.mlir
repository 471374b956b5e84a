// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// xformers 0.0.2x tests ref_attention_bmk (q = q * scale; q @ k^T + bias;
// softmax; @ v) on the BMK layout [B * H, L, D], with the bias
// LowerTriangularFromBottomRightLocalAttentionMask(window_size=3)
// materialized by _materialize_causal_mask: torch.full(1), tril(diagonal =
// Lk - Lq), triu(diagonal = shift - window_size + 1), then torch.log, so
// 0 on the band and log(0) = -inf off it (the traced table is a constant).
// B * H = 2, Lq = 4, Lk = 9, D = 40: keys t with 3 <= t - i <= 5.

// CHECK-LABEL: func.func @xformers_ref_bottom_right_local_log
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-SAME: window = 3 : i64
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, causal, window 3 at offset 5{{$}}
func.func @xformers_ref_bottom_right_local_log(%q: tensor<2x4x40xf32>, %k: tensor<2x9x40xf32>,
                                               %v: tensor<2x9x40xf32>) -> tensor<2x4x40xf32> {
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<2x4x40xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x9x40xf32>
  %s = poot.matmul %qs, %kt : tensor<2x4x40xf32>, tensor<2x40x9xf32>
  %band = poot.constant dense<[[0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]]> : tensor<4x9xf32>
  %bias = poot.log %band : tensor<4x9xf32>
  %sb = poot.add %s, %bias : tensor<2x4x9xf32>, tensor<4x9xf32>
  %m = poot.reduce_max %sb {axis = 2 : i64, keepdim} : tensor<2x4x9xf32>
  %x = poot.sub %sb, %m : tensor<2x4x9xf32>, tensor<2x4x1xf32>
  %e = poot.exp %x : tensor<2x4x9xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x4x9xf32>
  %p = poot.div %e, %z : tensor<2x4x9xf32>, tensor<2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x4x9xf32>, tensor<2x9x40xf32>
  return %o : tensor<2x4x40xf32>
}
