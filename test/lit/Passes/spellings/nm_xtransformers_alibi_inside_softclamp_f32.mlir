// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, lucidrains/x-transformers with alibi_pos_bias=True and
// attn_softclamp_logits=True, causal (x_transformers.py
// AlibiPositionalBias.forward, attend.py Attend.forward, non-flash), f32:
// the ALiBi bias -|j - i| (context arange minus seq arange, abs, negated)
// times slopes [h, 1, 1] (0.25, 0.0625, 0.015625, 0.00390625); sim =
// einsum(q, k) * scale; sim = sim + attn_bias; sim = softclamp(sim, 50) =
// tanh(sim / 50) * 50; causal masked_fill(ones(i, j).triu(j - i + 1),
// -finfo.max); softmax(dim=-1, dtype=f32); einsum(attn, v). The bias is
// added before the softcap: 50 tanh((s + b) / 50) is not 50 tanh(s / 50)
// plus any bias, and the fused op's order is scale, softcap, then mask;
// must not fuse. B = 1, H = 4, n = 5, d = 16.

// CHECK-LABEL: func.func @nm_xtransformers_alibi_inside_softclamp_f32
// CHECK-NOT: poot.attention
// CHECK: poot.tanh
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN-NOT: remark: attention fused
// EXPLAIN: remark: attention declined
func.func @nm_xtransformers_alibi_inside_softclamp_f32(%q: tensor<1x4x5x16xf32>, %k: tensor<1x4x5x16xf32>,
                                                       %v: tensor<1x4x5x16xf32>) -> tensor<1x4x5x16xf32> {
  // AlibiPositionalBias.forward(5, 5)
  %ctx = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %cj = poot.reshape %ctx : tensor<5xi64> -> tensor<1x1x5xi64>
  %si = poot.reshape %ctx : tensor<5xi64> -> tensor<1x5x1xi64>
  %dd = poot.sub %cj, %si : tensor<1x1x5xi64>, tensor<1x5x1xi64>
  %ad = poot.abs %dd : tensor<1x5x5xi64>
  %nad = poot.neg %ad : tensor<1x5x5xi64>
  %nadf = poot.convert %nad : tensor<1x5x5xi64> -> tensor<1x5x5xf32>
  %slopes = poot.constant dense<[[[0.25]], [[0.0625]], [[0.015625]], [[0.00390625]]]> : tensor<4x1x1xf32>
  %bias = poot.mul %nadf, %slopes : tensor<1x5x5xf32>, tensor<4x1x1xf32>
  // Attend.forward
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x4x5x16xf32>, tensor<1x4x16x5xf32>
  %scale = poot.constant dense<0.25> : tensor<f32>
  %sim0 = poot.mul %s0, %scale : tensor<1x4x5x5xf32>, tensor<f32>
  %sim1 = poot.add %sim0, %bias : tensor<1x4x5x5xf32>, tensor<4x5x5xf32>
  %cap = poot.constant dense<50.0> : tensor<f32>
  %c1 = poot.div %sim1, %cap : tensor<1x4x5x5xf32>, tensor<f32>
  %c2 = poot.tanh %c1 : tensor<1x4x5x5xf32>
  %sim2 = poot.mul %c2, %cap : tensor<1x4x5x5xf32>, tensor<f32>
  %ri = poot.iota {dim = 0 : i64} : tensor<5x5xi32>
  %ci = poot.iota {dim = 1 : i64} : tensor<5x5xi32>
  %dji = poot.sub %ci, %ri : tensor<5x5xi32>, tensor<5x5xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %causal = poot.compare ge, %dji, %one : tensor<5x5xi32>, tensor<i32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %causal, %mv, %sim2 : tensor<5x5xi1>, tensor<f32>, tensor<1x4x5x5xf32>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %sm, %mx : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %attn = poot.div %e, %zs : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %out = poot.matmul %attn, %v : tensor<1x4x5x5xf32>, tensor<1x4x5x16xf32>
  return %out : tensor<1x4x5x16xf32>
}
