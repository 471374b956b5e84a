// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// torchaudio's wav2vec 2.0 / HuBERT encoder before it moved to SDPA
// (torchaudio/models/wav2vec2/components.py): Encoder._preprocess builds
// the padding mask from the lengths, mask = arange(max_len).expand(B,
// max_len) >= lengths[:, None]; mask = -10000.0 * mask[:, None, None,
// :].to(f32); mask.expand(B, 1, max_len, max_len). SelfAttention.forward:
// q = q_proj(x).view(B, L, nH, Hd).transpose(2, 1); k = k_proj(x).view(..)
// .permute(0, 2, 3, 1) (keys already [B, nH, Hd, L]); v like q;
// weights = (self.scaling * q) @ k; weights += attention_mask;
// weights = weights - weights.max(dim=-1, keepdim=True)[0] (an explicit
// shift "to avoid value overflow"), then torch.nn.functional.softmax
// (which subtracts its own max again); weights @ v; transpose(2, 1)
// .reshape(B, L, nH * Hd). The explicit shift is a row max of the score
// chain, which softmax does not see. The -10000 fill hides key t of batch
// row b iff t >= lengths[b] (-1e4 is far below any spread of these scores)
// and with lengths >= 1 every row keeps key 0: the mask is the live length
// lengths[b]. Strongest form: one fused op with len(lengths), scale 1/4,
// n_rep 1 and no tensor mask. B = 2, L = 8, nH = 2, Hd = 16.

// Fused in the strongest form: the -10000 fill stands for -inf (every row
// keeps key 0, the fill is far below the scores' spread), so the padding
// bias is the live length itself and the keys past it are not read.
// CHECK-LABEL: func.func @torchaudio_wav2vec2_pretransposed_k_lengths_minus_10000_double_max_subtract_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} len(%arg3 : tensor<2xi64>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32> -> tensor<2x2x8x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, live length; the live length read from the scores' mask alone (keys past it are not read){{$}}
func.func @torchaudio_wav2vec2_pretransposed_k_lengths_minus_10000_double_max_subtract_f32(
    %q_lin: tensor<2x8x32xf32>, %k_lin: tensor<2x8x32xf32>, %v_lin: tensor<2x8x32xf32>,
    %lengths: tensor<2xi64> {poot.range = array<i64: 1, 9>}) -> tensor<2x8x32xf32> {
  // Encoder._preprocess: the padding mask
  %ar = poot.iota {dim = 1 : i64} : tensor<2x8xi64>
  %len2 = poot.reshape %lengths : tensor<2xi64> -> tensor<2x1xi64>
  %pad = poot.compare ge, %ar, %len2 : tensor<2x8xi64>, tensor<2x1xi64>
  %pad4 = poot.reshape %pad : tensor<2x8xi1> -> tensor<2x1x1x8xi1>
  %padf = poot.convert %pad4 : tensor<2x1x1x8xi1> -> tensor<2x1x1x8xf32>
  %big = poot.constant dense<-1.0e+04> : tensor<f32>
  %mask1 = poot.mul %big, %padf : tensor<f32>, tensor<2x1x1x8xf32>
  %mask = poot.broadcast %mask1 {shape = array<i64: 2, 1, 8, 8>} : tensor<2x1x1x8xf32>
  // SelfAttention.forward
  %q4 = poot.reshape %q_lin : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf32>
  %k4 = poot.reshape %k_lin : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x2x16xf32>
  %v4 = poot.reshape %v_lin : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf32>
  %scaling = poot.constant dense<2.500000e-01> : tensor<f32>
  %qs = poot.mul %scaling, %q : tensor<f32>, tensor<2x2x8x16xf32>
  %w = poot.matmul %qs, %k : tensor<2x2x8x16xf32>, tensor<2x2x16x8xf32>
  %w1 = poot.add %w, %mask : tensor<2x2x8x8xf32>, tensor<2x1x8x8xf32>
  %wmax = poot.reduce_max %w1 {axis = 3 : i64, keepdim} : tensor<2x2x8x8xf32>
  %w2 = poot.sub %w1, %wmax : tensor<2x2x8x8xf32>, tensor<2x2x8x1xf32>
  // torch.nn.functional.softmax(weights, dim=-1)
  %m = poot.reduce_max %w2 {axis = 3 : i64, keepdim} : tensor<2x2x8x8xf32>
  %d = poot.sub %w2, %m : tensor<2x2x8x8xf32>, tensor<2x2x8x1xf32>
  %e = poot.exp %d : tensor<2x2x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x8x8xf32>
  %p = poot.div %e, %z : tensor<2x2x8x8xf32>, tensor<2x2x8x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x16xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x8x16xf32>
  %out = poot.reshape %ot : tensor<2x8x2x16xf32> -> tensor<2x8x32xf32>
  return %out : tensor<2x8x32xf32>
}
