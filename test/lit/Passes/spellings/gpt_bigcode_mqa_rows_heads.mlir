// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF GPTBigCodeAttention._attn, multi_query: query [B, q, H*D] reshaped to
// [B, q*H, D] (rows and heads merged), key [B, D, k] (one shared head,
// already transposed); attn = baddbmm(empty, query, key, beta=0,
// alpha=1/sqrt(D)).view(B, q, H, k); the model's self_attention_mask =
// self.bias[None, k - q : k, :k] (bool tril buffer) unsqueezed to
// [1, q, 1, k]; where(mask, attn, finfo.min); softmax(dim=-1);
// bmm(attn.view(B, q*H, k), value [B, k, D]).view(B, q, H*D).
// B = 2, H = 4, q = 3 after 4 cached keys (k = 7), D = 40.

// The view splits the rows q * H + h of the product: the scores are the
// product of q viewed [B, q, H, D] (heads moved in front of the rows)
// with the key viewed [B, 1, D, k], the one key head broadcast over the
// heads; P . V takes the same view, so the fused op reads the key and value
// once for the four heads: n_rep 4, causal at offset 4 (the tril slice).
// CHECK-LABEL: func.func @gpt_bigcode_mqa_rows_heads
// CHECK-SAME: %[[QUERY:[^:]+]]: tensor<2x3x160xf32>, %[[KEY:[^:]+]]: tensor<2x40x7xf32>, %[[VALUE:[^:]+]]: tensor<2x7x40xf32>
// CHECK-DAG: %[[Q4:.+]] = poot.reshape %[[QUERY]] : tensor<2x3x160xf32> -> tensor<2x3x4x40xf32>
// CHECK-DAG: %[[KT:.+]] = poot.reshape %[[KEY]] : tensor<2x40x7xf32> -> tensor<2x1x40x7xf32>
// CHECK-DAG: %[[Q:.+]] = poot.transpose %[[Q4]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[V:.+]] = poot.reshape %[[VALUE]] : tensor<2x7x40xf32> -> tensor<2x1x7x40xf32>
// CHECK-DAG: %[[K:.+]] = poot.transpose %[[KT]] {perm = array<i64: 0, 1, 3, 2>}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%{{.+}} : tensor<i64>) {causal, n_rep = 4 : i64, scale = 0.158{{[0-9]+}} : f64} : tensor<2x4x3x40xf32>, tensor<2x1x7x40xf32>, tensor<2x1x7x40xf32> -> tensor<2x4x3x40xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[OT:.+]] = poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: %[[R:.+]] = poot.reshape %[[OT]] : tensor<2x3x4x40xf32> -> tensor<2x3x160xf32>
// CHECK: return %[[R]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.158114, causal at offset 4{{$}}
func.func @gpt_bigcode_mqa_rows_heads(%query: tensor<2x3x160xf32>, %key: tensor<2x40x7xf32>,
                                      %value: tensor<2x7x40xf32>) -> tensor<2x3x160xf32> {
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
  return %o3 : tensor<2x3x160xf32>
}
