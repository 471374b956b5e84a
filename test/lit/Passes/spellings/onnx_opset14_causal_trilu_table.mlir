// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// torch.onnx (TorchScript exporter, symbolic_opset14) scaled_dot_product_
// attention(is_causal=True): _causal_attention_mask = Expand(1.0, [L, S]) ->
// Trilu(upper=0) (constant-folded to a 0/1 float table) ->
// Where(Equal(mask, 0), -inf, 0); _attention_scale folded to 1/sqrt(D);
// MatMul(Mul(q, Sqrt(scale)), Mul(Transpose(k), Sqrt(scale))); Add(mask);
// Softmax(axis=-1); MatMul(v). B = 2, H = 3, L = S = 7, D = 40.

// CHECK-LABEL: func.func @onnx_opset14_causal_trilu_table
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 0.15811{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, causal
func.func @onnx_opset14_causal_trilu_table(%q: tensor<2x3x7x40xf32>, %k: tensor<2x3x7x40xf32>,
                                           %v: tensor<2x3x7x40xf32>) -> tensor<2x3x7x40xf32> {
  %tri = poot.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<7x7xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %eq = poot.compare eq, %tri, %zero : tensor<7x7xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %am = poot.select %eq, %ninf, %zero : tensor<7x7xi1>, tensor<f32>, tensor<f32>
  %sc = poot.constant dense<0.397635471> : tensor<f32>
  %qs = poot.mul %q, %sc : tensor<2x3x7x40xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x7x40xf32>
  %ks = poot.mul %kt, %sc : tensor<2x3x40x7xf32>, tensor<f32>
  %s = poot.matmul %qs, %ks : tensor<2x3x7x40xf32>, tensor<2x3x40x7xf32>
  %sm = poot.add %s, %am : tensor<2x3x7x7xf32>, tensor<7x7xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x3x7x7xf32>
  %d = poot.sub %sm, %m : tensor<2x3x7x7xf32>, tensor<2x3x7x1xf32>
  %e = poot.exp %d : tensor<2x3x7x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x3x7x7xf32>
  %p = poot.div %e, %z : tensor<2x3x7x7xf32>, tensor<2x3x7x1xf32>
  %o = poot.matmul %p, %v : tensor<2x3x7x7xf32>, tensor<2x3x7x40xf32>
  return %o : tensor<2x3x7x40xf32>
}
