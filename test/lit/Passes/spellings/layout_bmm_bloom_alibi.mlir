// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// BLOOM's eager attention with heads in the batch: q [b*h, q, d] and the
// keys already transposed [b*h, d, k]; baddbmm(alibi, q, k, alpha) is
// alibi [b*h, 1, k] + (q @ k) * alpha; the scores are viewed as [b, h, q, k]
// for masked_fill(-inf) by a causal mask, softmax(dim=-1), viewed back to
// [b*h, q, k] for bmm with v [b*h, k, d]. The view moves up to the first
// matmul, which then multiplies over [b, h] (the ALiBi tensor is viewed
// [b, h, 1, k] with it); the view back moves after P . V. (With a finite
// fill next to a tensor bias the matcher declines: the bias may hide a row.)
// B = 2, H = 4, L = 5 (prefill), D = 40.

// CHECK-LABEL: func.func @layout_bmm_bloom_alibi
// CHECK-SAME: %[[Q:[^:]+]]: tensor<8x5x40xf32>, %[[K:[^:]+]]: tensor<8x40x5xf32>, %[[V:[^:]+]]: tensor<8x5x40xf32>, %[[A:[^:]+]]: tensor<8x1x5xf32>
// CHECK-DAG: %[[Q4:.+]] = poot.reshape %[[Q]] : tensor<8x5x40xf32> -> tensor<2x4x5x40xf32>
// CHECK-DAG: %[[KT4:.+]] = poot.reshape %[[K]] : tensor<8x40x5xf32> -> tensor<2x4x40x5xf32>
// CHECK-DAG: %[[V4:.+]] = poot.reshape %[[V]] : tensor<8x5x40xf32> -> tensor<2x4x5x40xf32>
// CHECK-DAG: %[[A4:.+]] = poot.reshape %[[A]] : tensor<8x1x5xf32> -> tensor<2x4x1x5xf32>
// CHECK-DAG: %[[K4:.+]] = poot.transpose %[[KT4]] {perm = array<i64: 0, 1, 3, 2>}
// CHECK-DAG: %[[M:.+]] = poot.broadcast %[[A4]]
// out = softmax((q . k) * 40^-1/2 + alibi, keys t <= i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q4]], %[[K4]], %[[V4]] mask(%[[M]] : tensor<2x4x5x5xf32>) {causal, n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[R:.+]] = poot.reshape %[[O]] : tensor<2x4x5x40xf32> -> tensor<8x5x40xf32>
// CHECK: return %[[R]]
func.func @layout_bmm_bloom_alibi(%q: tensor<8x5x40xf32>, %k: tensor<8x40x5xf32>,
                                  %v: tensor<8x5x40xf32>, %alibi: tensor<8x1x5xf32>)
    -> tensor<8x5x40xf32> {
  %s = poot.matmul %q, %k : tensor<8x5x40xf32>, tensor<8x40x5xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<8x5x5xf32>, tensor<f32>
  %sa = poot.add %alibi, %ss : tensor<8x1x5xf32>, tensor<8x5x5xf32>
  %s4 = poot.reshape %sa : tensor<8x5x5xf32> -> tensor<2x4x5x5xf32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x1x5x5xi32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x1x5x5xi32>
  %hid = poot.compare gt, %col, %row : tensor<1x1x5x5xi32>, tensor<1x1x5x5xi32>
  %min = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %min, %s4 : tensor<1x1x5x5xi1>, tensor<f32>, tensor<2x4x5x5xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<2x4x5x5xf32>
  %d = poot.sub %sm, %m : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %e = poot.exp %d : tensor<2x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x4x5x5xf32>
  %p = poot.div %e, %z : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %p3 = poot.reshape %p : tensor<2x4x5x5xf32> -> tensor<8x5x5xf32>
  %o = poot.matmul %p3, %v : tensor<8x5x5xf32>, tensor<8x5x40xf32>
  return %o : tensor<8x5x40xf32>
}
