// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Pixtral vision encoder (models/pixtral/modeling_pixtral.py,
// PixtralVisionModel.forward -> PixtralAttention.forward with
// eager_attention_forward), bf16, two images packed in one sequence (2 x 2
// and 1 x 2 patches): PixtralRotaryEmbedding's 2D table, inv_freq =
// cat([outer(h, freqs[::2]) repeated over w, outer(w, freqs[1::2]) repeated
// over h], -1).reshape(-1, dim // 2), then cat((inv_freq, inv_freq), -1),
// a [max_patches^2, head_dim] buffer (max 4 x 4 patches, theta 10000);
// forward gathers it by position_ids_in_meshgrid (h * max_width + w for each
// image: 0, 1, 4, 5, then 0, 1), cos() and sin() in f32, .to(bf16);
// apply_rotary_pos_emb(unsqueeze_dim=0) with rotate_half; the mask is
// generate_block_attention_mask: torch.full((L, L), finfo(bf16).min) with
// each image's diagonal block set to 0, [None, None] (block-diagonal, no
// band); eager: matmul(q, k^T) * scaling + mask, softmax(dim=-1, f32)
// .to(bf16), matmul(probs, v), transpose(1, 2).reshape(B, L, -1).
// B = 1, L = 6, 2 heads of 16, hidden 32, projections without bias.

// CHECK-LABEL: func.func @hf_pixtral_2d_rope_gather_block_diagonal_images_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @hf_pixtral_2d_rope_gather_block_diagonal_images_bf16(
    %h: tensor<1x6x32xbf16>, %wq: tensor<32x32xbf16>, %wk: tensor<32x32xbf16>,
    %wv: tensor<32x32xbf16>) -> tensor<1x6x32xbf16> {
  // PixtralRotaryEmbedding: freqs = self.inv_freq[position_ids]
  %inv_freq = poot.constant dense<[[0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00],[0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,3.162277639e-01,3.162277490e-02,3.162277630e-03,3.162277571e-04,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,3.162277639e-01,3.162277490e-02,3.162277630e-03,3.162277571e-04],[0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,6.324555278e-01,6.324554980e-02,6.324555259e-03,6.324555143e-04,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,6.324555278e-01,6.324554980e-02,6.324555259e-03,6.324555143e-04],[0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,9.486832619e-01,9.486832470e-02,9.486832656e-03,9.486832423e-04,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,9.486832619e-01,9.486832470e-02,9.486832656e-03,9.486832423e-04],[1.000000000e+00,1.000000015e-01,9.999999776e-03,1.000000047e-03,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,1.000000000e+00,1.000000015e-01,9.999999776e-03,1.000000047e-03,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00],[1.000000000e+00,1.000000015e-01,9.999999776e-03,1.000000047e-03,3.162277639e-01,3.162277490e-02,3.162277630e-03,3.162277571e-04,1.000000000e+00,1.000000015e-01,9.999999776e-03,1.000000047e-03,3.162277639e-01,3.162277490e-02,3.162277630e-03,3.162277571e-04],[1.000000000e+00,1.000000015e-01,9.999999776e-03,1.000000047e-03,6.324555278e-01,6.324554980e-02,6.324555259e-03,6.324555143e-04,1.000000000e+00,1.000000015e-01,9.999999776e-03,1.000000047e-03,6.324555278e-01,6.324554980e-02,6.324555259e-03,6.324555143e-04],[1.000000000e+00,1.000000015e-01,9.999999776e-03,1.000000047e-03,9.486832619e-01,9.486832470e-02,9.486832656e-03,9.486832423e-04,1.000000000e+00,1.000000015e-01,9.999999776e-03,1.000000047e-03,9.486832619e-01,9.486832470e-02,9.486832656e-03,9.486832423e-04],[2.000000000e+00,2.000000030e-01,1.999999955e-02,2.000000095e-03,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,2.000000000e+00,2.000000030e-01,1.999999955e-02,2.000000095e-03,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00],[2.000000000e+00,2.000000030e-01,1.999999955e-02,2.000000095e-03,3.162277639e-01,3.162277490e-02,3.162277630e-03,3.162277571e-04,2.000000000e+00,2.000000030e-01,1.999999955e-02,2.000000095e-03,3.162277639e-01,3.162277490e-02,3.162277630e-03,3.162277571e-04],[2.000000000e+00,2.000000030e-01,1.999999955e-02,2.000000095e-03,6.324555278e-01,6.324554980e-02,6.324555259e-03,6.324555143e-04,2.000000000e+00,2.000000030e-01,1.999999955e-02,2.000000095e-03,6.324555278e-01,6.324554980e-02,6.324555259e-03,6.324555143e-04],[2.000000000e+00,2.000000030e-01,1.999999955e-02,2.000000095e-03,9.486832619e-01,9.486832470e-02,9.486832656e-03,9.486832423e-04,2.000000000e+00,2.000000030e-01,1.999999955e-02,2.000000095e-03,9.486832619e-01,9.486832470e-02,9.486832656e-03,9.486832423e-04],[3.000000000e+00,3.000000119e-01,2.999999933e-02,3.000000026e-03,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00,3.000000000e+00,3.000000119e-01,2.999999933e-02,3.000000026e-03,0.000000000e+00,0.000000000e+00,0.000000000e+00,0.000000000e+00],[3.000000000e+00,3.000000119e-01,2.999999933e-02,3.000000026e-03,3.162277639e-01,3.162277490e-02,3.162277630e-03,3.162277571e-04,3.000000000e+00,3.000000119e-01,2.999999933e-02,3.000000026e-03,3.162277639e-01,3.162277490e-02,3.162277630e-03,3.162277571e-04],[3.000000000e+00,3.000000119e-01,2.999999933e-02,3.000000026e-03,6.324555278e-01,6.324554980e-02,6.324555259e-03,6.324555143e-04,3.000000000e+00,3.000000119e-01,2.999999933e-02,3.000000026e-03,6.324555278e-01,6.324554980e-02,6.324555259e-03,6.324555143e-04],[3.000000000e+00,3.000000119e-01,2.999999933e-02,3.000000026e-03,9.486832619e-01,9.486832470e-02,9.486832656e-03,9.486832423e-04,3.000000000e+00,3.000000119e-01,2.999999933e-02,3.000000026e-03,9.486832619e-01,9.486832470e-02,9.486832656e-03,9.486832423e-04]]> : tensor<16x16xf32>
  %pid = poot.constant dense<[0, 1, 4, 5, 0, 1]> : tensor<6xi64>
  %freqs = poot.gather %inv_freq[%pid] {axis = 0 : i64} : tensor<16x16xf32>, tensor<6xi64>
  %cosf = poot.cos %freqs : tensor<6x16xf32>
  %sinf = poot.sin %freqs : tensor<6x16xf32>
  %cos0 = poot.convert %cosf : tensor<6x16xf32> -> tensor<6x16xbf16>
  %sin0 = poot.convert %sinf : tensor<6x16xf32> -> tensor<6x16xbf16>
  // generate_block_attention_mask([4, 2], patch_embeds)
  %mask = poot.constant dense<[[0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38],
                               [0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38],
                               [0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38],
                               [0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38],
                               [-3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, 0.0, 0.0],
                               [-3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, 0.0, 0.0]]> : tensor<6x6xbf16>
  %mask4 = poot.reshape %mask : tensor<6x6xbf16> -> tensor<1x1x6x6xbf16>
  // q_proj / k_proj / v_proj, view(B, L, H, D).transpose(1, 2)
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<32x32xbf16>
  %q0 = poot.matmul %h, %wqt : tensor<1x6x32xbf16>, tensor<32x32xbf16>
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<32x32xbf16>
  %k0 = poot.matmul %h, %wkt : tensor<1x6x32xbf16>, tensor<32x32xbf16>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<32x32xbf16>
  %v0 = poot.matmul %h, %wvt : tensor<1x6x32xbf16>, tensor<32x32xbf16>
  %q4 = poot.reshape %q0 : tensor<1x6x32xbf16> -> tensor<1x6x2x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  %k4 = poot.reshape %k0 : tensor<1x6x32xbf16> -> tensor<1x6x2x16xbf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  %v4 = poot.reshape %v0 : tensor<1x6x32xbf16> -> tensor<1x6x2x16xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  // apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=0)
  %cos = poot.reshape %cos0 : tensor<6x16xbf16> -> tensor<1x6x16xbf16>
  %sin = poot.reshape %sin0 : tensor<6x16xbf16> -> tensor<1x6x16xbf16>
  %q1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %q2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %qn2 = poot.neg %q2 : tensor<1x2x6x8xbf16>
  %qrh = poot.concat %qn2, %q1 {axis = 3 : i64} : tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>
  %qa = poot.mul %q, %cos : tensor<1x2x6x16xbf16>, tensor<1x6x16xbf16>
  %qb = poot.mul %qrh, %sin : tensor<1x2x6x16xbf16>, tensor<1x6x16xbf16>
  %qe = poot.add %qa, %qb : tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16>
  %k1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %k2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %kn2 = poot.neg %k2 : tensor<1x2x6x8xbf16>
  %krh = poot.concat %kn2, %k1 {axis = 3 : i64} : tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>
  %ka = poot.mul %k, %cos : tensor<1x2x6x16xbf16>, tensor<1x6x16xbf16>
  %kb = poot.mul %krh, %sin : tensor<1x2x6x16xbf16>, tensor<1x6x16xbf16>
  %ke = poot.add %ka, %kb : tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16>
  // eager_attention_forward
  %kt = poot.transpose %ke {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xbf16>
  %s0 = poot.matmul %qe, %kt : tensor<1x2x6x16xbf16>, tensor<1x2x16x6xbf16>
  %sc = poot.constant dense<2.500000e-01> : tensor<bf16>
  %s1 = poot.mul %s0, %sc : tensor<1x2x6x6xbf16>, tensor<bf16>
  %s = poot.add %s1, %mask4 : tensor<1x2x6x6xbf16>, tensor<1x1x6x6xbf16>
  %x = poot.convert %s : tensor<1x2x6x6xbf16> -> tensor<1x2x6x6xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %d = poot.sub %x, %mx : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %p = poot.div %e, %z : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %pb = poot.convert %p : tensor<1x2x6x6xf32> -> tensor<1x2x6x6xbf16>
  %o = poot.matmul %pb, %v : tensor<1x2x6x6xbf16>, tensor<1x2x6x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x6x16xbf16>
  %out = poot.reshape %ot : tensor<1x6x2x16xbf16> -> tensor<1x6x32xbf16>
  return %out : tensor<1x6x32xbf16>
}
