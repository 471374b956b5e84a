// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// wenet-e2e/wenet wenet/transformer/attention.py (MultiHeadedAttention
// .forward and forward_attention) in a streaming encoder with a static
// chunk size of 2 (wenet/utils/mask.py): masks = ~make_pad_mask(xs_lens, T)
// .unsqueeze(1) (arange(T) >= lens[:, None], negated); chunk_masks =
// subsequent_chunk_mask(T, 2) (pos_idx < ((pos_idx // 2) + 1) * 2 per
// row), masks & chunk_masks; scores = q @ k^T / sqrt(d_k); mask =
// mask.unsqueeze(1).eq(0); scores.masked_fill(mask, -inf); softmax(dim=-1)
// .masked_fill(mask, 0.0); @ v. Row i sees keys up to the end of its
// chunk (not a band) that are not padding. With lens >= 1 every row keeps
// key 0, so the trailing masked_fill never changes a weight and the graph
// is the attention with the -inf mask as a tensor. B = 2, H = 2, T = 6,
// d_k = 16.

// CHECK-LABEL: func.func @wenet_chunk_mask_masked_fill_twice_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{.*}}
func.func @wenet_chunk_mask_masked_fill_twice_f32(
    %q: tensor<2x2x6x16xf32>, %k: tensor<2x2x6x16xf32>, %v: tensor<2x2x6x16xf32>,
    %xs_lens: tensor<2xi64> {poot.range = array<i64: 1, 7>}) -> tensor<2x6x32xf32> {
  // masks = ~make_pad_mask(xs_lens, 6).unsqueeze(1)
  %seq = poot.iota {dim = 1 : i64} : tensor<2x6xi64>
  %lens = poot.reshape %xs_lens : tensor<2xi64> -> tensor<2x1xi64>
  %pad = poot.compare ge, %seq, %lens : tensor<2x6xi64>, tensor<2x1xi64>
  %keep = poot.not %pad : tensor<2x6xi1>
  %masks = poot.reshape %keep : tensor<2x6xi1> -> tensor<2x1x6xi1>
  // subsequent_chunk_mask(6, 2)
  %pos = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %two = poot.constant dense<2> : tensor<i64>
  %one = poot.constant dense<1> : tensor<i64>
  %blk = poot.div %pos, %two : tensor<6xi64>, tensor<i64>
  %blk1 = poot.add %blk, %one : tensor<6xi64>, tensor<i64>
  %bv = poot.mul %blk1, %two : tensor<6xi64>, tensor<i64>
  %cols = poot.reshape %pos : tensor<6xi64> -> tensor<1x6xi64>
  %rows = poot.reshape %bv : tensor<6xi64> -> tensor<6x1xi64>
  %chunk = poot.compare lt, %cols, %rows : tensor<1x6xi64>, tensor<6x1xi64>
  %chunk3 = poot.reshape %chunk : tensor<6x6xi1> -> tensor<1x6x6xi1>
  %cm = poot.and %masks, %chunk3 : tensor<2x1x6xi1>, tensor<1x6x6xi1>
  // forward: scores
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %scores = poot.div %s0, %sq : tensor<2x2x6x6xf32>, tensor<f32>
  // forward_attention: mask = mask.unsqueeze(1).eq(0)
  %m4 = poot.reshape %cm : tensor<2x6x6xi1> -> tensor<2x1x6x6xi1>
  %mi = poot.convert %m4 : tensor<2x1x6x6xi1> -> tensor<2x1x6x6xi64>
  %z = poot.constant dense<0> : tensor<i64>
  %hid = poot.compare eq, %mi, %z : tensor<2x1x6x6xi64>, tensor<i64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %scores : tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x2x6x6xf32>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %sm, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %zs : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %attn = poot.select %hid, %zf, %p : tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x2x6x6xf32>
  %x = poot.matmul %attn, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  %xt = poot.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x16xf32>
  %out = poot.reshape %xt : tensor<2x6x2x16xf32> -> tensor<2x6x32xf32>
  return %out : tensor<2x6x32xf32>
}
