// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, OpenNMT-py onmt/modules/multi_headed_attn.py
// (MultiHeadedAttention.forward with max_relative_positions = 2, type =
// "self", no mask) and onmt/utils/misc.py (generate_relative_positions_matrix,
// relative_matmul), f32: the Shaw et al. relative positions: distance =
// range_mat - range_mat^T (j - i), clamped to [-2, 2], + 2, gathered from
// one embedding table for relations_keys and relations_values ([L, L, d]);
// query = query / sqrt(d); scores = matmul(q, k^T) + relative_matmul(q,
// relations_keys, True) (q permuted to [L, b * h, d] against the per-row
// keys); scores.float(); attn = softmax(scores).to(query.dtype); context =
// matmul(attn, v) + relative_matmul(attn, relations_values, False). The
// probabilities also weight a second, position-dependent value tensor
// ([L, L, d], a different value per query row), so the output is no
// softmax(.) . v; must not fuse (the score bias alone would be a tensor
// mask). Fusing only the P . V term is sound but leaves the explicit
// softmax in place for the relative-values product: the probabilities are
// then computed twice, so the expected result is a decline. B = 1, H = 2,
// L = 5, d = 16.

// CHECK-LABEL: func.func @nm_opennmt_relative_positions_values_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN-NOT: remark: attention fused
// EXPLAIN: remark: attention declined
func.func @nm_opennmt_relative_positions_values_f32(%q0: tensor<1x2x5x16xf32>, %k: tensor<1x2x5x16xf32>,
                                                    %v: tensor<1x2x5x16xf32>, %emb: tensor<5x16xf32>)
    -> tensor<1x5x32xf32> {
  // generate_relative_positions_matrix(5, 2)
  %rv = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %rv1 = poot.reshape %rv : tensor<5xi64> -> tensor<5x1xi64>
  %rexp = poot.broadcast %rv1 {shape = array<i64: 5, 5>} : tensor<5x1xi64>
  %rmat = poot.transpose %rexp {perm = array<i64: 1, 0>} : tensor<5x5xi64>
  %rmatt = poot.transpose %rmat {perm = array<i64: 1, 0>} : tensor<5x5xi64>
  %dist = poot.sub %rmat, %rmatt : tensor<5x5xi64>, tensor<5x5xi64>
  %lo = poot.constant dense<-2> : tensor<i64>
  %hi = poot.constant dense<2> : tensor<i64>
  %dmax = poot.max %dist, %lo : tensor<5x5xi64>, tensor<i64>
  %dcl = poot.min %dmax, %hi : tensor<5x5xi64>, tensor<i64>
  %fin = poot.add %dcl, %hi : tensor<5x5xi64>, tensor<i64>
  %rel = poot.gather %emb[%fin] {axis = 0 : i64} : tensor<5x16xf32>, tensor<5x5xi64>
  // query / sqrt(dim_per_head)
  %sq = poot.constant dense<4.0> : tensor<f32>
  %q = poot.div %q0, %sq : tensor<1x2x5x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf32>
  %qk = poot.matmul %q, %kt : tensor<1x2x5x16xf32>, tensor<1x2x16x5xf32>
  // relative_matmul(query, relations_keys, True)
  %xt = poot.transpose %q {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x5x16xf32>
  %xtr = poot.reshape %xt : tensor<5x1x2x16xf32> -> tensor<5x2x16xf32>
  %zt = poot.transpose %rel {perm = array<i64: 0, 2, 1>} : tensor<5x5x16xf32>
  %xz = poot.matmul %xtr, %zt : tensor<5x2x16xf32>, tensor<5x16x5xf32>
  %xzr = poot.reshape %xz : tensor<5x2x5xf32> -> tensor<5x1x2x5xf32>
  %rk = poot.transpose %xzr {perm = array<i64: 1, 2, 0, 3>} : tensor<5x1x2x5xf32>
  %scores = poot.add %qk, %rk : tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>
  %mx = poot.reduce_max %scores {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %d = poot.sub %scores, %mx : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %attn = poot.div %e, %zs : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %ctx0 = poot.matmul %attn, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x16xf32>
  // relative_matmul(attn, relations_values, False)
  %at = poot.transpose %attn {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x5x5xf32>
  %atr = poot.reshape %at : tensor<5x1x2x5xf32> -> tensor<5x2x5xf32>
  %az = poot.matmul %atr, %rel : tensor<5x2x5xf32>, tensor<5x5x16xf32>
  %azr = poot.reshape %az : tensor<5x2x16xf32> -> tensor<5x1x2x16xf32>
  %rvv = poot.transpose %azr {perm = array<i64: 1, 2, 0, 3>} : tensor<5x1x2x16xf32>
  %ctx = poot.add %ctx0, %rvv : tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>
  // unshape
  %ct = poot.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x5x16xf32>
  %out = poot.reshape %ct : tensor<1x5x2x16xf32> -> tensor<1x5x32xf32>
  return %out : tensor<1x5x32xf32>
}
