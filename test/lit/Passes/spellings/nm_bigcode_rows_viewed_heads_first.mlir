// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: GPT-BigCode's merged rows q * H + h (query [B, q, H*D]
// reshaped to [B, q*H, D]), but the scores viewed [B, H, q, k] as if the
// rows were h * q_len + q (a port that mixes the two orders), with the
// causal mask [q, k] applied in that view. Row r of the product lands at
// (r / q_len, r % q_len), which is not (h, q): no multi-query attention of
// the model's heads. The relabelling must follow the view exactly: the
// fused op's query rows are the view's q axis (the mask varies along it),
// its heads the view's H axis, its q the query rows regrouped by the view,
// so it computes what the graph computes (checked against the oracle), not
// the model's attention. B = 2, q = 3, H = 4, k = 3, D = 16.

// CHECK-LABEL: func.func @nm_bigcode_rows_viewed_heads_first
// CHECK-SAME: %[[QUERY:[^:]+]]: tensor<2x3x64xf32>
// CHECK: %[[Q:.+]] = poot.reshape %[[QUERY]] : tensor<2x3x64xf32> -> tensor<2x4x3x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %[[Q]], %{{.+}}, %{{.+}} {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x3x16xf32>, tensor<2x1x3x16xf32>, tensor<2x1x3x16xf32> -> tensor<2x4x3x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25, causal{{$}}
func.func @nm_bigcode_rows_viewed_heads_first(%query: tensor<2x3x64xf32>, %key: tensor<2x16x3xf32>,
                                              %value: tensor<2x3x16xf32>) -> tensor<2x3x64xf32> {
  %q = poot.reshape %query : tensor<2x3x64xf32> -> tensor<2x12x16xf32>
  %qk = poot.matmul %q, %key : tensor<2x12x16xf32>, tensor<2x16x3xf32>
  %alpha = poot.constant dense<0.25> : tensor<f32>
  %a = poot.mul %qk, %alpha : tensor<2x12x3xf32>, tensor<f32>
  %a4 = poot.reshape %a : tensor<2x12x3xf32> -> tensor<2x4x3x3xf32>
  %i = poot.iota {dim = 0 : i64} : tensor<3x3xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<3x3xi64>
  %vis = poot.compare le, %t, %i : tensor<3x3xi64>, tensor<3x3xi64>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %w = poot.select %vis, %a4, %mv : tensor<3x3xi1>, tensor<2x4x3x3xf32>, tensor<f32>
  %m = poot.reduce_max %w {axis = 3 : i64, keepdim} : tensor<2x4x3x3xf32>
  %d = poot.sub %w, %m : tensor<2x4x3x3xf32>, tensor<2x4x3x1xf32>
  %e = poot.exp %d : tensor<2x4x3x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x3x3xf32>
  %p = poot.div %e, %z : tensor<2x4x3x3xf32>, tensor<2x4x3x1xf32>
  %p3 = poot.reshape %p : tensor<2x4x3x3xf32> -> tensor<2x12x3xf32>
  %o = poot.matmul %p3, %value : tensor<2x12x3xf32>, tensor<2x3x16xf32>
  %o3 = poot.reshape %o : tensor<2x12x16xf32> -> tensor<2x3x64xf32>
  return %o3 : tensor<2x3x64xf32>
}
