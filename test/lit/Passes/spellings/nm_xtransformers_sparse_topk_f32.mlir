// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, lucidrains/x-transformers attend.py sparse_topk_attn (Attend
// with sparse_topk = 3, non-causal, non-flash), f32: sim = einsum(q, k) *
// scale; top_values, _ = logits.topk(3, dim=-1); sparse_topk_mask =
// (logits >= top_values[..., -1:]) & (logits > -finfo.max); logits =
// logits.masked_fill(~sparse_topk_mask, -finfo.max); softmax(dim=-1);
// einsum(attn, v). The mask is computed from the scores themselves (each
// row keeps its 3 largest scores): no band, bias or input mask, so no
// attention that reads q, k, v once. At most the weaker form: a fused op
// whose tensor mask is itself built from a separate q . k (the select fill
// absorbs the scores, so s + select(drop, -max, 0) is the graph's select),
// which still materialises the score matrix. B = 1, H = 2, n = 6, d = 16.

// CHECK-LABEL: func.func @nm_xtransformers_sparse_topk_f32
// CHECK: %[[S:.+]] = poot.matmul
// CHECK: poot.topk %{{.+}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; the select fill -3.40282e+38 absorbs every score
func.func @nm_xtransformers_sparse_topk_f32(%q: tensor<1x2x6x16xf32>, %k: tensor<1x2x6x16xf32>,
                                            %v: tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x6x16xf32>, tensor<1x2x16x6xf32>
  %scale = poot.constant dense<0.25> : tensor<f32>
  %sim = poot.mul %s0, %scale : tensor<1x2x6x6xf32>, tensor<f32>
  // sparse_topk_attn
  %topv, %topi = poot.topk %sim {k = 3 : i64} : tensor<1x2x6x6xf32>
  %kth = poot.slice %topv {start = array<i64: 0, 0, 0, 2>, limit = array<i64: 1, 2, 6, 3>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x3xf32>
  %ge = poot.compare ge, %sim, %kth : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %gt = poot.compare gt, %sim, %mv : tensor<1x2x6x6xf32>, tensor<f32>
  %keep = poot.and %ge, %gt : tensor<1x2x6x6xi1>, tensor<1x2x6x6xi1>
  %drop = poot.not %keep : tensor<1x2x6x6xi1>
  %lm = poot.select %drop, %mv, %sim : tensor<1x2x6x6xi1>, tensor<f32>, tensor<1x2x6x6xf32>
  %mx = poot.reduce_max %lm {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %d = poot.sub %lm, %mx : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %attn = poot.div %e, %zs : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %out = poot.matmul %attn, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x16xf32>
  return %out : tensor<1x2x6x16xf32>
}
