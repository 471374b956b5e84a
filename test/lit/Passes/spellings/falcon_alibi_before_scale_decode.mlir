// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF FalconAttention 4.33 eager, ALiBi branch, decoding one token after 7
// cached ones in f32 (no padding): attention_scores = q @ k^T viewed
// [B, H, 1, kv]; attention_logits = attention_scores + alibi.view(B, H, 1,
// -1); attention_logits *= self.inv_norm_factor (the bias added BEFORE the
// scale); softmax; @ v. The causal mask of the last row hides nothing, so
// the export drops it. build_alibi_tensor: slopes 0.25^(h+1) times
// arange_tensor [0 .. kv-1], folded to the constant [1, H, 1, kv].
// B = 1, H = 4, kv = 8, D = 32.

// The bias distributed over the scale is ALiBi with the slopes times c.
// CHECK-LABEL: func.func @falcon_alibi_before_scale_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x1x32xf32>, %[[K:[^:]+]]: tensor<1x4x8x32xf32>, %[[V:[^:]+]]: tensor<1x4x8x32xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {alibi_slopes = array<f64: 0.0441941{{[0-9]+}}, 0.0110485{{[0-9]+}}, 0.00276213{{[0-9]+}}, 6.905339{{[0-9]+}}E-4>, n_rep = 1 : i64, scale = 0.17677{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777, alibi; a bias added before the scale, multiplied by it{{$}}
func.func @falcon_alibi_before_scale_decode(%q: tensor<1x4x1x32xf32>, %k: tensor<1x4x8x32xf32>,
                                            %v: tensor<1x4x8x32xf32>) -> tensor<1x4x1x32xf32> {
  %alibi = poot.constant dense<[[[[0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75]], [[0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375]], [[0.0, 0.015625, 0.03125, 0.046875, 0.0625, 0.078125, 0.09375, 0.109375]], [[0.0, 0.00390625, 0.0078125, 0.01171875, 0.015625, 0.01953125, 0.0234375, 0.02734375]]]]> : tensor<1x4x1x8xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x32xf32>, tensor<1x4x32x8xf32>
  %sa = poot.add %s, %alibi : tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>
  %inv = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %sa, %inv : tensor<1x4x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x1x8xf32>, tensor<1x4x8x32xf32>
  return %o : tensor<1x4x1x32xf32>
}
