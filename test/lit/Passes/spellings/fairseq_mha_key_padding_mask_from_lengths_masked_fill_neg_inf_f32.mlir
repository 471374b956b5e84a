// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: poot-run %t.mlir --set=src_lengths=3,10 --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --set=src_lengths=1,7 --check --ref=%s --quiet %}

// fairseq's MultiheadAttention over an encoder batch: the key padding mask
// comes from the source lengths (fairseq.utils.lengths_to_padding_mask:
// arange(max_len)[None, :] >= lengths[:, None]), and the weights, viewed
// [bsz, heads, tgt, src], are filled with -inf where it is set:
// attn_weights.masked_fill(key_padding_mask.unsqueeze(1).unsqueeze(2)
// .to(torch.bool), float("-inf")); softmax over src; bmm with v. Only the
// scores see the lengths (the k and v rows past them hold whatever the
// encoder computed for the padding). With 1 <= lengths <= 10 proven the
// mask is the live length. B = 2, heads = 4, L = 10, Hd = 8.
// CHECK-LABEL: func.func @fairseq_mha_key_padding_mask_from_lengths_masked_fill_neg_inf_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} len(%arg3 : tensor<2xi32>) {n_rep = 1 : i64, scale = 0.35355338454246521 : f64} : tensor<2x4x10x8xf32>, tensor<2x4x10x8xf32>, tensor<2x4x10x8xf32> -> tensor<2x4x10x8xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.353553, live length; the live length read from the scores' mask alone (keys past it are not read){{$}}
func.func @fairseq_mha_key_padding_mask_from_lengths_masked_fill_neg_inf_f32(
    %q: tensor<2x4x10x8xf32>, %k: tensor<2x4x10x8xf32>, %v: tensor<2x4x10x8xf32>,
    %src_lengths: tensor<2xi32> {poot.name = "src_lengths", poot.range = array<i64: 1, 11>}) -> tensor<2x4x10x8xf32> {
  // lengths_to_padding_mask
  %ar = poot.iota {dim = 1 : i64} : tensor<1x10xi32>
  %len = poot.reshape %src_lengths : tensor<2xi32> -> tensor<2x1xi32>
  %pad = poot.compare ge, %ar, %len : tensor<1x10xi32>, tensor<2x1xi32>
  %pad4 = poot.reshape %pad : tensor<2x10xi1> -> tensor<2x1x1x10xi1>
  // q *= scaling; attn_weights = bmm(q, k.transpose(1, 2))
  %sc = poot.constant dense<0.35355339059327373> : tensor<f32>
  %qs = poot.mul %q, %sc : tensor<2x4x10x8xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x10x8xf32>
  %w = poot.matmul %qs, %kt : tensor<2x4x10x8xf32>, tensor<2x4x8x10xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %wm = poot.select %pad4, %ninf, %w : tensor<2x1x1x10xi1>, tensor<f32>, tensor<2x4x10x10xf32>
  // utils.softmax(attn_weights, dim=-1)
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x4x10x10xf32>
  %d = poot.sub %wm, %m : tensor<2x4x10x10xf32>, tensor<2x4x10x1xf32>
  %e = poot.exp %d : tensor<2x4x10x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x10x10xf32>
  %p = poot.div %e, %z : tensor<2x4x10x10xf32>, tensor<2x4x10x1xf32>
  %o = poot.matmul %p, %v : tensor<2x4x10x10xf32>, tensor<2x4x10x8xf32>
  return %o : tensor<2x4x10x8xf32>
}
