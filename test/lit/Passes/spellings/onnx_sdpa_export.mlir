// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// torch.onnx export of scaled_dot_product_attention: the scale is computed in
// the graph (Cast(Shape(q)[-1]) -> Sqrt -> Div(1, .) -> Sqrt) and multiplied
// onto q and onto Transpose(k) as 0-d tensors; the float attn_mask is added.
// D = 96, B = 2, MHA, Lq = 4.

// CHECK-LABEL: func.func @onnx_sdpa_export
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x3x4x96xf32>, %[[K:[^:]+]]: tensor<2x3x10x96xf32>, %[[V:[^:]+]]: tensor<2x3x10x96xf32>, %[[M:[^:]+]]: tensor<4x10xf32>
// out = softmax((q . k) * 96^-1/2 + mask) . v; the [Lq, Lk] mask is brought
// to rank 4
// CHECK: %[[M4:.+]] = poot.reshape %[[M]] : tensor<4x10xf32> -> tensor<1x1x4x10xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M4]] : tensor<1x1x4x10xf32>) {n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @onnx_sdpa_export(%q: tensor<2x3x4x96xf32>, %k: tensor<2x3x10x96xf32>,
                            %v: tensor<2x3x10x96xf32>, %mask: tensor<4x10xf32>)
    -> tensor<2x3x4x96xf32> {
  %e = poot.constant dense<96> : tensor<i64>
  %ef = poot.convert %e : tensor<i64> -> tensor<f32>
  %sq = poot.sqrt %ef : tensor<f32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %scale = poot.div %one, %sq : tensor<f32>, tensor<f32>
  %sf = poot.sqrt %scale : tensor<f32>
  %qs = poot.mul %q, %sf : tensor<2x3x4x96xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x10x96xf32>
  %kts = poot.mul %kt, %sf : tensor<2x3x96x10xf32>, tensor<f32>
  %s = poot.matmul %qs, %kts : tensor<2x3x4x96xf32>, tensor<2x3x96x10xf32>
  %sm = poot.add %s, %mask : tensor<2x3x4x10xf32>, tensor<4x10xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x3x4x10xf32>
  %d = poot.sub %sm, %m : tensor<2x3x4x10xf32>, tensor<2x3x4x1xf32>
  %x = poot.exp %d : tensor<2x3x4x10xf32>
  %z = poot.reduce_sum %x {axis = 3 : i64, keepdim} : tensor<2x3x4x10xf32>
  %p = poot.div %x, %z : tensor<2x3x4x10xf32>, tensor<2x3x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x3x4x10xf32>, tensor<2x3x10x96xf32>
  return %o : tensor<2x3x4x96xf32>
}
