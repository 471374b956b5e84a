// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, rosinality/vq-vae-2-pytorch (pixelsnail.py, CausalAttention
// .forward with causal_mask(size)), the PixelSNAIL prior over a 4 x 4
// latent map, f32. query and key are flattened (view(B, C, H * W)
// .transpose(1, 2)) and projected (the weight-normed linears are the
// inputs here); reshape = view(B, -1, n_head, dim_head).transpose(1, 2),
// the key also .transpose(2, 3); attn = matmul(query, key) /
// sqrt(dim_head). causal_mask builds mask = np.triu(ones, k=1).T, a
// STRICTLY lower triangle (key t visible to pixel i only when t < i, the
// pixel itself excluded, as the shifted input stream needs), made float
// by type_as, and start_mask = ones(size) with start_mask[0] = 0, shaped
// [size, 1]; attn.masked_fill(mask == 0, -1e4); softmax(attn, 3) *
// start_mask; attn @ value; transpose(1, 2).reshape(B, H, W, C)
// .permute(0, 3, 1, 2). B = 2, n_head = 2, dim_head = 16, 16 pixels.
// It looks like causal attention, but the diagonal is hidden: causal
// (t <= i) would let each pixel see itself. Row 0 has no visible key at
// all: the finite -1e4 fill makes its softmax the uniform average of
// every value, which start_mask then zeroes; the probabilities are scaled
// per row after the softmax. No single fused op is that: fusing as causal
// is wrong on every row, and even the exact band t <= i - 1 leaves the
// post-softmax row factor. Must decline.

// CHECK-LABEL: func.func @nm_pixelsnail_strict_past_triu_k1_t_start_mask_zero_first_row_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: the probabilities are not exp(s) / sum(exp(s)){{$}}
func.func @nm_pixelsnail_strict_past_triu_k1_t_start_mask_zero_first_row_f32(
    %q_lin: tensor<2x16x32xf32>, %k_lin: tensor<2x16x32xf32>, %v_lin: tensor<2x16x32xf32>)
    -> tensor<2x32x4x4xf32> {
  // reshape(input) = input.view(batch, -1, n_head, dim_head).transpose(1, 2)
  %q4 = poot.reshape %q_lin : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %query = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x16xf32>
  %k4 = poot.reshape %k_lin : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x16xf32>
  %key = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x16x16xf32>
  %v4 = poot.reshape %v_lin : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %value = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x16xf32>
  // attn = torch.matmul(query, key) / sqrt(self.dim_head)
  %s = poot.matmul %query, %key : tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %attn = poot.div %s, %sq : tensor<2x2x16x16xf32>, tensor<f32>
  // mask, start_mask = causal_mask(16), both type_as(query)
  %mask = poot.constant dense<[[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]]]> : tensor<1x16x16xf32>
  %start_mask = poot.constant dense<[[0.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0], [1.0]]> : tensor<16x1xf32>
  // attn.masked_fill(mask == 0, -1e4)
  %z = poot.constant dense<0.0> : tensor<f32>
  %hid = poot.compare eq, %mask, %z : tensor<1x16x16xf32>, tensor<f32>
  %fill = poot.constant dense<-1.0e+04> : tensor<f32>
  %am = poot.select %hid, %fill, %attn : tensor<1x16x16xi1>, tensor<f32>, tensor<2x2x16x16xf32>
  // torch.softmax(attn, 3) * start_mask
  %m = poot.reduce_max %am {axis = 3 : i64, keepdim} : tensor<2x2x16x16xf32>
  %d = poot.sub %am, %m : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>
  %e = poot.exp %d : tensor<2x2x16x16xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x16x16xf32>
  %p = poot.div %e, %zs : tensor<2x2x16x16xf32>, tensor<2x2x16x1xf32>
  %ps = poot.mul %p, %start_mask : tensor<2x2x16x16xf32>, tensor<16x1xf32>
  // out = attn @ value; transpose(1, 2).reshape(B, 4, 4, 32).permute(0, 3, 1, 2)
  %o = poot.matmul %ps, %value : tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x16xf32>
  %o4 = poot.reshape %ot : tensor<2x16x2x16xf32> -> tensor<2x4x4x32xf32>
  %out = poot.transpose %o4 {perm = array<i64: 0, 3, 1, 2>} : tensor<2x4x4x32xf32>
  return %out : tensor<2x32x4x4xf32>
}
