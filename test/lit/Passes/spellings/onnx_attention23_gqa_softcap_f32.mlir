// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// ONNX Attention (opset 23) as its function body decomposes it, on 4D
// inputs with q_num_heads 4 and kv_num_heads 2, no mask, softcap 20:
// scale_sqrt = Sqrt(scale); K repeated per group (Unsqueeze, Expand,
// Reshape); qk = MatMul(Q * scale_sqrt, Transpose(K) * scale_sqrt);
// qk = softcap * Tanh(qk / softcap); Softmax(axis=-1) as its body (ReduceMax,
// Sub, Exp, ReduceSum, Div); MatMul(p, V). scale 1/sqrt(16).
// B = 1, Hq = 4, Hkv = 2, L = 6, D = 16.

// CHECK-LABEL: func.func @onnx_attention23_gqa_softcap_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 2 : i64, scale = 2.500000e-01 : f64, softcap = 2.000000e+01 : f64} : tensor<1x4x6x16xf32>, tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum|tanh}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, softcap 20
func.func @onnx_attention23_gqa_softcap_f32(%q: tensor<1x4x6x16xf32>, %k: tensor<1x2x6x16xf32>,
                                            %v: tensor<1x2x6x16xf32>) -> tensor<1x4x6x16xf32> {
  %k5 = poot.reshape %k : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x6x16xf32> -> tensor<1x4x6x16xf32>
  %v5 = poot.reshape %v : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x6x16xf32> -> tensor<1x4x6x16xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.sqrt %sc : tensor<f32>
  %qs = poot.mul %q, %ss : tensor<1x4x6x16xf32>, tensor<f32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x16xf32>
  %kts = poot.mul %kt, %ss : tensor<1x4x16x6xf32>, tensor<f32>
  %qk = poot.matmul %qs, %kts : tensor<1x4x6x16xf32>, tensor<1x4x16x6xf32>
  %cap = poot.constant dense<20.0> : tensor<f32>
  %q1 = poot.div %qk, %cap : tensor<1x4x6x6xf32>, tensor<f32>
  %q2 = poot.tanh %q1 : tensor<1x4x6x6xf32>
  %q3 = poot.mul %cap, %q2 : tensor<f32>, tensor<1x4x6x6xf32>
  %m = poot.reduce_max %q3 {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %q3, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x6x6xf32>, tensor<1x4x6x16xf32>
  return %o : tensor<1x4x6x16xf32>
}
