// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: gpt_bigcode_mqa_rows_heads.mlir with output_attentions=True:
// HF GPTBigCodeAttention also returns attn_weights, the probabilities in
// the [B, q, H, k] view. The fused op does not produce them, and the view
// of the scores cannot move to the product while the graph reads the
// probabilities in that layout. Declined; runs unfused.

// CHECK-LABEL: func.func @nm_bigcode_mqa_rows_attn_weights
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: the probabilities are also read by 'func.return' at line {{[0-9]+}}: fused, they would be computed twice{{$}}
func.func @nm_bigcode_mqa_rows_attn_weights(%query: tensor<2x3x160xf32>, %key: tensor<2x40x7xf32>,
                                      %value: tensor<2x7x40xf32>) -> (tensor<2x3x160xf32>, tensor<2x3x4x7xf32>) {
  %bias = poot.constant dense<[[true, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true]]> : tensor<10x10xi1>
  %sm0 = poot.slice %bias {start = array<i64: 4, 0>, limit = array<i64: 7, 7>, step = array<i64: 1, 1>} : tensor<10x10xi1>
  %sam = poot.reshape %sm0 : tensor<3x7xi1> -> tensor<1x3x1x7xi1>
  %q = poot.reshape %query : tensor<2x3x160xf32> -> tensor<2x12x40xf32>
  %qk = poot.matmul %q, %key : tensor<2x12x40xf32>, tensor<2x40x7xf32>
  %alpha = poot.constant dense<0.158113882> : tensor<f32>
  %a = poot.mul %qk, %alpha : tensor<2x12x7xf32>, tensor<f32>
  %a4 = poot.reshape %a : tensor<2x12x7xf32> -> tensor<2x3x4x7xf32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %w = poot.select %sam, %a4, %mv : tensor<1x3x1x7xi1>, tensor<2x3x4x7xf32>, tensor<f32>
  %m = poot.reduce_max %w {axis = 3 : i64, keepdim} : tensor<2x3x4x7xf32>
  %d = poot.sub %w, %m : tensor<2x3x4x7xf32>, tensor<2x3x4x1xf32>
  %e = poot.exp %d : tensor<2x3x4x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x3x4x7xf32>
  %p = poot.div %e, %z : tensor<2x3x4x7xf32>, tensor<2x3x4x1xf32>
  %p3 = poot.reshape %p : tensor<2x3x4x7xf32> -> tensor<2x12x7xf32>
  %o = poot.matmul %p3, %value : tensor<2x12x7xf32>, tensor<2x7x40xf32>
  %o3 = poot.reshape %o : tensor<2x12x40xf32> -> tensor<2x3x160xf32>
  return %o3, %p : tensor<2x3x160xf32>, tensor<2x3x4x7xf32>
}
