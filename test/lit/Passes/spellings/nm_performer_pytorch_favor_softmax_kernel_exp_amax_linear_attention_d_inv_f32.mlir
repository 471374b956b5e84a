// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN --allow-empty
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, lucidrains/performer-pytorch (performer_pytorch/
// performer_pytorch.py, FastAttention.forward with the default softmax
// kernel: softmax_kernel + linear_attention), f32. softmax_kernel(data,
// projection_matrix, is_query): data_normalizer = D ** -0.25; ratio =
// M ** -0.5 (M random features); projection repeated 'j d -> b h j d';
// data_dash = einsum('...id,...jd->...ij', data_normalizer * data,
// projection); diag_data = sum(data ** 2, -1) / 2 * data_normalizer ** 2,
// unsqueezed; queries: ratio * (exp(data_dash - diag_data - amax(data_dash,
// -1, keepdim)) + eps), keys: the same with amax over (-1, -2) (eps =
// 1e-4). linear_attention(q', k', v): k_cumsum = k'.sum(-2); D_inv = 1 /
// einsum('...nd,...d->...n', q', k_cumsum); context = einsum('...nd,...ne
// ->...de', k', v); out = einsum('...de,...nd,...n->...ne', context, q',
// D_inv). Exponentials, a max shift, a normaliser and matmuls, but the
// exp is of feature projections, not of q . k scores, and no weight
// matrix over keys is ever formed: a random-feature approximation, not
// softmax attention. Must decline. B = 1, H = 2, N = 6, D = 16, M = 8.

// CHECK-LABEL: func.func @nm_performer_pytorch_favor_softmax_kernel_exp_amax_linear_attention_d_inv_f32
// CHECK-NOT: poot.attention
// EXPLAIN-NOT: attention fused
func.func @nm_performer_pytorch_favor_softmax_kernel_exp_amax_linear_attention_d_inv_f32(
    %q: tensor<1x2x6x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>,
    %projection_matrix: tensor<8x16xf32>) -> tensor<1x2x6x16xf32> {
  %norm = poot.constant dense<0.5> : tensor<f32>
  %ratio = poot.constant dense<0.353553385> : tensor<f32>
  %eps = poot.constant dense<1.0e-04> : tensor<f32>
  %two = poot.constant dense<2.0> : tensor<f32>
  %norm2 = poot.constant dense<0.25> : tensor<f32>
  // projection = repeat(projection_matrix, 'j d -> b h j d'); transposed for the einsum
  %pr4 = poot.reshape %projection_matrix : tensor<8x16xf32> -> tensor<1x1x8x16xf32>
  %proj = poot.broadcast %pr4 {shape = array<i64: 1, 2, 8, 16>} : tensor<1x1x8x16xf32>
  %projt = poot.transpose %proj {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  // softmax_kernel(q, is_query=True)
  %qn = poot.mul %q, %norm : tensor<1x2x6x16xf32>, tensor<f32>
  %qdash = poot.matmul %qn, %projt : tensor<1x2x6x16xf32>, tensor<1x2x16x8xf32>
  %qsq = poot.mul %q, %q : tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>
  %qdg0 = poot.reduce_sum %qsq {axis = 3 : i64, keepdim} : tensor<1x2x6x16xf32>
  %qdg1 = poot.div %qdg0, %two : tensor<1x2x6x1xf32>, tensor<f32>
  %qdg = poot.mul %qdg1, %norm2 : tensor<1x2x6x1xf32>, tensor<f32>
  %qmax = poot.reduce_max %qdash {axis = 3 : i64, keepdim} : tensor<1x2x6x8xf32>
  %qa = poot.sub %qdash, %qdg : tensor<1x2x6x8xf32>, tensor<1x2x6x1xf32>
  %qb = poot.sub %qa, %qmax : tensor<1x2x6x8xf32>, tensor<1x2x6x1xf32>
  %qe = poot.exp %qb : tensor<1x2x6x8xf32>
  %qe1 = poot.add %qe, %eps : tensor<1x2x6x8xf32>, tensor<f32>
  %qp = poot.mul %ratio, %qe1 : tensor<f32>, tensor<1x2x6x8xf32>
  // softmax_kernel(k, is_query=False): amax over (-1, -2)
  %kn = poot.mul %k, %norm : tensor<1x2x6x16xf32>, tensor<f32>
  %kdash = poot.matmul %kn, %projt : tensor<1x2x6x16xf32>, tensor<1x2x16x8xf32>
  %ksq = poot.mul %k, %k : tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>
  %kdg0 = poot.reduce_sum %ksq {axis = 3 : i64, keepdim} : tensor<1x2x6x16xf32>
  %kdg1 = poot.div %kdg0, %two : tensor<1x2x6x1xf32>, tensor<f32>
  %kdg = poot.mul %kdg1, %norm2 : tensor<1x2x6x1xf32>, tensor<f32>
  %kmax1 = poot.reduce_max %kdash {axis = 3 : i64, keepdim} : tensor<1x2x6x8xf32>
  %kmax = poot.reduce_max %kmax1 {axis = 2 : i64, keepdim} : tensor<1x2x6x1xf32>
  %ka = poot.sub %kdash, %kdg : tensor<1x2x6x8xf32>, tensor<1x2x6x1xf32>
  %kb = poot.sub %ka, %kmax : tensor<1x2x6x8xf32>, tensor<1x2x1x1xf32>
  %ke = poot.exp %kb : tensor<1x2x6x8xf32>
  %ke1 = poot.add %ke, %eps : tensor<1x2x6x8xf32>, tensor<f32>
  %kp = poot.mul %ratio, %ke1 : tensor<f32>, tensor<1x2x6x8xf32>
  // linear_attention: k_cumsum = k.sum(dim=-2); D_inv = 1 / einsum('...nd,...d->...n', q, k_cumsum)
  %kcs = poot.reduce_sum %kp {axis = 2 : i64, keepdim} : tensor<1x2x6x8xf32>
  %qk = poot.mul %qp, %kcs : tensor<1x2x6x8xf32>, tensor<1x2x1x8xf32>
  %den = poot.reduce_sum %qk {axis = 3 : i64, keepdim} : tensor<1x2x6x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %dinv = poot.div %one, %den : tensor<f32>, tensor<1x2x6x1xf32>
  // context = einsum('...nd,...ne->...de', k, v)
  %kpt = poot.transpose %kp {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x8xf32>
  %ctx = poot.matmul %kpt, %v : tensor<1x2x8x6xf32>, tensor<1x2x6x16xf32>
  // out = einsum('...de,...nd,...n->...ne', context, q, D_inv)
  %o0 = poot.matmul %qp, %ctx : tensor<1x2x6x8xf32>, tensor<1x2x8x16xf32>
  %out = poot.mul %o0, %dinv : tensor<1x2x6x16xf32>, tensor<1x2x6x1xf32>
  return %out : tensor<1x2x6x16xf32>
}
