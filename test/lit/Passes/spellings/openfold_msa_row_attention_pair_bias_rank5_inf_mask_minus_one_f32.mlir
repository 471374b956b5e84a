// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// OpenFold (openfold/model/msa.py, MSARowAttentionWithPairBias; the stock
// path of openfold/model/primitives.py, Attention.forward -> _prep_qkv ->
// _attention), f32. _prep_qkv views the q/k/v projections of the MSA
// representation [*, N_seq, N_res, H * c] as [*, N_seq, N_res, H, c],
// transposes (-2, -3) to [*, N_seq, H, N_res, c] and divides q in place by
// sqrt(c_hidden). _prep_inputs builds two biases: mask_bias =
// (inf * (mask - 1))[..., :, None, None, :] with inf = 1e9 over the float
// MSA mask [*, N_seq, N_res], i.e. [*, N_seq, 1, 1, N_res], and the pair
// bias linear_z(layer_norm_z(z)) [*, N_res, N_res, H] permuted (2, 0, 1)
// and unsqueezed at -4, [*, 1, H, N_res, N_res]. _attention:
// key = permute_final_dims(key, (1, 0)); a = matmul(query, key) (rank 5);
// for b in biases: a += b; softmax_no_cast(a, -1); matmul(a, value); then
// o.transpose(-2, -3) and flatten_final_dims(o, 2) (the sigmoid gate and
// the output linear follow outside). The batch dims are [*, N_seq]; the
// rows of every MSA sequence attend over the residues with the same pair
// bias. Strongest form: one fused op over the batch dims merged (or kept),
// scale 1/4, n_rep 1, and the two biases as one tensor mask (the mask is a
// float input, so neither bias is a band). B = 1, N_seq = 3, N_res = 8,
// H = 2, c_hidden = 16.

// The batch dims [B, N_seq] are merged into one (every MSA sequence has its
// own keys and values: a plain batch axis), the mask bias regrouped to
// [B * N_seq, 1, 1, N_res] and the pair bias kept shared, so the two add
// into one [3, 2, 8, 8] tensor mask.
// CHECK-LABEL: func.func @openfold_msa_row_attention_pair_bias_rank5_inf_mask_minus_one_f32
// CHECK: poot.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<3x2x8x8xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<3x2x8x16xf32>
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @openfold_msa_row_attention_pair_bias_rank5_inf_mask_minus_one_f32(
    %q_lin: tensor<1x3x8x32xf32>, %k_lin: tensor<1x3x8x32xf32>, %v_lin: tensor<1x3x8x32xf32>,
    %msa_mask: tensor<1x3x8xf32>, %z_lin: tensor<1x8x8x2xf32>) -> tensor<1x3x8x32xf32> {
  // _prep_qkv
  %q5 = poot.reshape %q_lin : tensor<1x3x8x32xf32> -> tensor<1x3x8x2x16xf32>
  %k5 = poot.reshape %k_lin : tensor<1x3x8x32xf32> -> tensor<1x3x8x2x16xf32>
  %v5 = poot.reshape %v_lin : tensor<1x3x8x32xf32> -> tensor<1x3x8x2x16xf32>
  %qh = poot.transpose %q5 {perm = array<i64: 0, 1, 3, 2, 4>} : tensor<1x3x8x2x16xf32>
  %kh = poot.transpose %k5 {perm = array<i64: 0, 1, 3, 2, 4>} : tensor<1x3x8x2x16xf32>
  %vh = poot.transpose %v5 {perm = array<i64: 0, 1, 3, 2, 4>} : tensor<1x3x8x2x16xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %q = poot.div %qh, %sq : tensor<1x3x2x8x16xf32>, tensor<f32>
  // _prep_inputs: mask_bias = (inf * (mask - 1))[..., :, None, None, :]
  %one = poot.constant dense<1.0> : tensor<f32>
  %mm1 = poot.sub %msa_mask, %one : tensor<1x3x8xf32>, tensor<f32>
  %inf = poot.constant dense<1.0e+09> : tensor<f32>
  %mb = poot.mul %inf, %mm1 : tensor<f32>, tensor<1x3x8xf32>
  %mask_bias = poot.reshape %mb : tensor<1x3x8xf32> -> tensor<1x3x1x1x8xf32>
  // z = permute_final_dims(z, (2, 0, 1)).unsqueeze(-4)
  %zp = poot.transpose %z_lin {perm = array<i64: 0, 3, 1, 2>} : tensor<1x8x8x2xf32>
  %z = poot.reshape %zp : tensor<1x2x8x8xf32> -> tensor<1x1x2x8x8xf32>
  // _attention
  %kt = poot.transpose %kh {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x3x2x8x16xf32>
  %a = poot.matmul %q, %kt : tensor<1x3x2x8x16xf32>, tensor<1x3x2x16x8xf32>
  %a1 = poot.add %a, %mask_bias : tensor<1x3x2x8x8xf32>, tensor<1x3x1x1x8xf32>
  %a2 = poot.add %a1, %z : tensor<1x3x2x8x8xf32>, tensor<1x1x2x8x8xf32>
  %mx = poot.reduce_max %a2 {axis = 4 : i64, keepdim} : tensor<1x3x2x8x8xf32>
  %d = poot.sub %a2, %mx : tensor<1x3x2x8x8xf32>, tensor<1x3x2x8x1xf32>
  %e = poot.exp %d : tensor<1x3x2x8x8xf32>
  %s = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x3x2x8x8xf32>
  %p = poot.div %e, %s : tensor<1x3x2x8x8xf32>, tensor<1x3x2x8x1xf32>
  %o = poot.matmul %p, %vh : tensor<1x3x2x8x8xf32>, tensor<1x3x2x8x16xf32>
  // o.transpose(-2, -3); flatten_final_dims(o, 2)
  %ot = poot.transpose %o {perm = array<i64: 0, 1, 3, 2, 4>} : tensor<1x3x2x8x16xf32>
  %out = poot.reshape %ot : tensor<1x3x8x2x16xf32> -> tensor<1x3x8x32xf32>
  return %out : tensor<1x3x8x32xf32>
}
