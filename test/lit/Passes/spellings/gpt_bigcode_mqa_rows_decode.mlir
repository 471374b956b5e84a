// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF GPTBigCodeAttention._attn, multi_query, decoding one token after 9
// cached ones, no padding: query [B, 1, H*D] reshaped to [B, 1*H, D], the
// key cache [B, D, 10] (one shared head, pre-transposed);
// baddbmm(alpha=1/sqrt(D)) viewed [B, 1, H, 10]; self_attention_mask =
// self.bias[None, 9:10, :10] (the bool tril buffer, 12 positions)
// unsqueezed to [1, 1, 1, 10]; where(mask, attn, finfo.min); softmax;
// bmm(attn.view(B, H, 10), value [B, 10, D]) viewed [B, 1, H*D].
// B = 2, H = 8, D = 16.

// The last tril row keeps every cached key, so the mask folds away. The
// unit query axis is read as the query rows: the eight heads share the
// one key and value head, n_rep 8.
// CHECK-LABEL: func.func @gpt_bigcode_mqa_rows_decode
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{.+}}, %{{.+}}, %{{.+}} {n_rep = 8 : i64, scale = 2.500000e-01 : f64} : tensor<2x8x1x16xf32>, tensor<2x1x10x16xf32>, tensor<2x1x10x16xf32> -> tensor<2x8x1x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 8, scale 0.25{{$}}
func.func @gpt_bigcode_mqa_rows_decode(%query: tensor<2x1x128xf32>, %key: tensor<2x16x10xf32>,
                                       %value: tensor<2x10x16xf32>) -> tensor<2x1x128xf32> {
  %bias = poot.constant dense<[[true, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true]]> : tensor<12x12xi1>
  %sm0 = poot.slice %bias {start = array<i64: 9, 0>, limit = array<i64: 10, 10>, step = array<i64: 1, 1>} : tensor<12x12xi1>
  %sam = poot.reshape %sm0 : tensor<1x10xi1> -> tensor<1x1x1x10xi1>
  %q = poot.reshape %query : tensor<2x1x128xf32> -> tensor<2x8x16xf32>
  %qk = poot.matmul %q, %key : tensor<2x8x16xf32>, tensor<2x16x10xf32>
  %alpha = poot.constant dense<0.25> : tensor<f32>
  %a = poot.mul %qk, %alpha : tensor<2x8x10xf32>, tensor<f32>
  %a4 = poot.reshape %a : tensor<2x8x10xf32> -> tensor<2x1x8x10xf32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %w = poot.select %sam, %a4, %mv : tensor<1x1x1x10xi1>, tensor<2x1x8x10xf32>, tensor<f32>
  %m = poot.reduce_max %w {axis = 3 : i64, keepdim} : tensor<2x1x8x10xf32>
  %d = poot.sub %w, %m : tensor<2x1x8x10xf32>, tensor<2x1x8x1xf32>
  %e = poot.exp %d : tensor<2x1x8x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x1x8x10xf32>
  %p = poot.div %e, %z : tensor<2x1x8x10xf32>, tensor<2x1x8x1xf32>
  %p3 = poot.reshape %p : tensor<2x1x8x10xf32> -> tensor<2x8x10xf32>
  %o = poot.matmul %p3, %value : tensor<2x8x10xf32>, tensor<2x10x16xf32>
  %o3 = poot.reshape %o : tensor<2x8x16xf32> -> tensor<2x1x128xf32>
  return %o3 : tensor<2x1x128xf32>
}
