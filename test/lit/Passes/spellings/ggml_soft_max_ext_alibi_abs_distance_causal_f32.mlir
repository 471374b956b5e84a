// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// llama.cpp with an ALiBi model (MPT, BLOOM in llama.cpp): the KQ mask the
// host builds is -|pos_i - pos_j| for a visible key and -inf for a hidden
// one (hparams.use_alibi), here built in the graph from the positions;
// ggml_soft_max_ext(kq, kq_mask, kq_scale, max_alibi_bias) computes
// kq * scale + slope[h] * mask, then the softmax (x - max, exp, sum,
// times 1 / sum). On the visible keys t <= i, -|i - t| = t - i: ALiBi at
// the query position; slope * -inf = -inf on the hidden ones.
// H = 4 (max_alibi_bias 8: slopes 2^-2, 2^-4, 2^-6, 2^-8), L = 5, D = 16.

// Weaker form today: -|i - t| is not read as affine under the band, so the
// product with the slopes stays a tensor mask (the same values the graph
// adds), with the causal band its -inf cells give read as well; the
// strongest form would be causal with alibi_slopes.

// CHECK-LABEL: func.func @ggml_soft_max_ext_alibi_abs_distance_causal_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x4x5x5xf32>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal; band read off the table's -inf cells
func.func @ggml_soft_max_ext_alibi_abs_distance_causal_f32(%q: tensor<1x4x5x16xf32>, %k: tensor<1x4x5x16xf32>,
                                                           %v: tensor<1x4x5x16xf32>) -> tensor<1x4x5x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x16xf32>
  %kq = poot.matmul %q, %kt : tensor<1x4x5x16xf32>, tensor<1x4x16x5xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ks = poot.mul %kq, %c : tensor<1x4x5x5xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<5x5xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<5x5xi32>
  %vis = poot.compare le, %t, %i : tensor<5x5xi32>, tensor<5x5xi32>
  %dd = poot.sub %i, %t : tensor<5x5xi32>, tensor<5x5xi32>
  %ad = poot.abs %dd : tensor<5x5xi32>
  %adf = poot.convert %ad : tensor<5x5xi32> -> tensor<5x5xf32>
  %nd = poot.neg %adf : tensor<5x5xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %mask = poot.select %vis, %nd, %ninf : tensor<5x5xi1>, tensor<5x5xf32>, tensor<f32>
  %sl = poot.constant dense<[[[[0.25]], [[0.0625]], [[0.015625]], [[0.00390625]]]]> : tensor<1x4x1x1xf32>
  %am = poot.mul %mask, %sl : tensor<5x5xf32>, tensor<1x4x1x1xf32>
  %w = poot.add %ks, %am : tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>
  %m = poot.reduce_max %w {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %w, %m : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %r = poot.div %one, %z : tensor<f32>, tensor<1x4x5x1xf32>
  %p = poot.mul %e, %r : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x5x5xf32>, tensor<1x4x5x16xf32>
  return %o : tensor<1x4x5x16xf32>
}
