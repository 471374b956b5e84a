// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// facebookresearch/xformers (the tree before the fmha move to mslk,
// ca6d2aa0~1), xformers/attn_bias_utils.py ref_attention_bmhk, the
// reference memory_efficient_attention is tested against, with attn_bias =
// fmha.attn_bias.BlockDiagonalCausalMask.from_seqlens([3, 5]) (two
// sequences packed into one batch row), f32, q, k, v in BMHK [1, 8, 4, 16].
// ref_attention_bmhk: attn_bias.materialize((B, H, Mq, Mk), f32) (in
// xformers/ops/fmha/attn_bias.py: BlockDiagonalMask.materialize fills
// torch.empty(Mq, Mk) with -inf, then for each (q, k) interval pair writes
// mask[q0:q1, k0:k1] = _create_block_mask(..), which for the causal class
// is LowerTriangularMask().materialize = _materialize_causal_mask:
// torch.log(torch.tril(torch.full(shape, 1))), 0 on and below the diagonal
// and log(0) = -inf above it; unsqueeze(0) twice, expand(shape)), then
// .reshape([B * H, Mq, Mk]); T(t) = t.permute(0, 2, 1, 3).reshape([B * H, M,
// K]) on q, k, v; ref_attention on the BMK tensors: q.float(), scale = 1 /
// q.shape[-1] ** 0.5, q = q * scale, attn = q @ k.transpose(-2, -1), attn =
// attn + attn_bias_tensor.float() (3-D, so no reshape), attn.softmax(-1),
// attn @ v; out.reshape([B, H, Mq, Kv]).permute(0, 2, 1, 3). B = 1, H = 4,
// M = 3 + 5, K = 16.
//
// Strongest form: the table is -inf off (t <= i and t in i's sequence), so
// the band it keeps at most is causal with a window of 5 (the longer
// sequence: no row sees a key more than 4 back), and the rest (keys of the
// other sequence) stays one constant tensor mask shared by every head:
// poot.attention q, k, v mask(.. : tensor<1x1x8x8xf32>) {causal, n_rep = 1,
// scale = 0.25, window = 5}; every row keeps its own diagonal key, so no
// row is empty.
// CHECK-LABEL: func.func @xformers_ref_attention_bmhk_block_diagonal_causal_materialize_log_tril_fill_neg_inf_merged_heads_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x1x8x8xf32>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64, window = 5 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal, window 5; band read off the table's -inf cells{{$}}
func.func @xformers_ref_attention_bmhk_block_diagonal_causal_materialize_log_tril_fill_neg_inf_merged_heads_f32(
    %query: tensor<1x8x4x16xf32>, %key: tensor<1x8x4x16xf32>, %value: tensor<1x8x4x16xf32>)
    -> tensor<1x8x4x16xf32> {
  // BlockDiagonalMask.materialize: mask = torch.empty(shape[-2:]); mask.fill_(-math.inf)
  %mask0 = poot.constant dense<0xFF800000> : tensor<8x8xf32>
  // _create_block_mask((3, 3)) = LowerTriangularMask().materialize: torch.log(torch.tril(torch.full((3, 3), 1)))
  %full3 = poot.constant dense<1.0> : tensor<3x3xf32>
  %r3 = poot.iota {dim = 0 : i64} : tensor<3x3xi64>
  %c3 = poot.iota {dim = 1 : i64} : tensor<3x3xi64>
  %tri3 = poot.compare le, %c3, %r3 : tensor<3x3xi64>, tensor<3x3xi64>
  %zero3 = poot.constant dense<0.0> : tensor<f32>
  %tril3 = poot.select %tri3, %full3, %zero3 : tensor<3x3xi1>, tensor<3x3xf32>, tensor<f32>
  %blk0 = poot.log %tril3 : tensor<3x3xf32>
  // _create_block_mask((5, 5))
  %full5 = poot.constant dense<1.0> : tensor<5x5xf32>
  %r5 = poot.iota {dim = 0 : i64} : tensor<5x5xi64>
  %c5 = poot.iota {dim = 1 : i64} : tensor<5x5xi64>
  %tri5 = poot.compare le, %c5, %r5 : tensor<5x5xi64>, tensor<5x5xi64>
  %tril5 = poot.select %tri5, %full5, %zero3 : tensor<5x5xi1>, tensor<5x5xf32>, tensor<f32>
  %blk1 = poot.log %tril5 : tensor<5x5xf32>
  // mask[q_start:q_end, k_start:k_end] = block, for the intervals (0, 3) and (3, 8)
  %s0 = poot.constant dense<0> : tensor<i64>
  %s3 = poot.constant dense<3> : tensor<i64>
  %mask1 = poot.dynamic_update_slice %mask0[%s0, %s0], %blk0 : tensor<8x8xf32>, tensor<3x3xf32>, tensor<i64>, tensor<i64>
  %mask2 = poot.dynamic_update_slice %mask1[%s3, %s3], %blk1 : tensor<8x8xf32>, tensor<5x5xf32>, tensor<i64>, tensor<i64>
  // mask.unsqueeze(0) twice; mask.expand((B, H, Mq, Mk)); .reshape([B * H, Mq, Mk])
  %m4 = poot.reshape %mask2 : tensor<8x8xf32> -> tensor<1x1x8x8xf32>
  %mx4 = poot.broadcast %m4 {shape = array<i64: 1, 4, 8, 8>} : tensor<1x1x8x8xf32>
  %attn_bias = poot.reshape %mx4 : tensor<1x4x8x8xf32> -> tensor<4x8x8xf32>
  // T(t) = t.permute((0, 2, 1, 3)).reshape([B * H, M, K])
  %qp = poot.transpose %query {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x16xf32>
  %q = poot.reshape %qp : tensor<1x4x8x16xf32> -> tensor<4x8x16xf32>
  %kp = poot.transpose %key {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x16xf32>
  %k = poot.reshape %kp : tensor<1x4x8x16xf32> -> tensor<4x8x16xf32>
  %vp = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x16xf32>
  %v = poot.reshape %vp : tensor<1x4x8x16xf32> -> tensor<4x8x16xf32>
  // ref_attention: scale = 1 / q.shape[-1] ** 0.5; q = q * scale
  %scale = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %scale : tensor<4x8x16xf32>, tensor<f32>
  // attn = q @ k.transpose(-2, -1)
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<4x8x16xf32>
  %attn0 = poot.matmul %qs, %kt : tensor<4x8x16xf32>, tensor<4x16x8xf32>
  // attn = attn + attn_bias_tensor.float()
  %attn1 = poot.add %attn0, %attn_bias : tensor<4x8x8xf32>, tensor<4x8x8xf32>
  // attn = attn.softmax(-1)
  %mx = poot.reduce_max %attn1 {axis = 2 : i64, keepdim} : tensor<4x8x8xf32>
  %d = poot.sub %attn1, %mx : tensor<4x8x8xf32>, tensor<4x8x1xf32>
  %e = poot.exp %d : tensor<4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x8x8xf32>
  %p = poot.div %e, %z : tensor<4x8x8xf32>, tensor<4x8x1xf32>
  // attn @ v
  %o = poot.matmul %p, %v : tensor<4x8x8xf32>, tensor<4x8x16xf32>
  // out.reshape([B, H, Mq, Kv]).permute((0, 2, 1, 3))
  %o4 = poot.reshape %o : tensor<4x8x16xf32> -> tensor<1x4x8x16xf32>
  %out = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x8x16xf32>
  return %out : tensor<1x8x4x16xf32>
}
