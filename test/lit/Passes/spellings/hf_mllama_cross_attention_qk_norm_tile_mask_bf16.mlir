// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Mllama (models/mllama/modeling_mllama.py,
// MllamaTextCrossAttention.forward with eager_attention_forward, and
// _prepare_cross_attention_mask), bf16: 4 text tokens attend to 6 vision
// tokens (1 image, 2 tiles of 3 tokens); q = q_norm(q_proj(h).view(B, L, H,
// D).transpose(1, 2)), k = k_norm(k_proj(cross_states).view(..).transpose)
// (MllamaTextRMSNorm over head_dim: to(f32), pow(2).mean(-1), rsqrt,
// weight * x.to(bf16)); the mask: cross_attention_mask [B, L, images,
// tiles] repeat_interleave(num_vision_tokens, dim=3), view(B, L, -1),
// unsqueeze(1), inverted = (1.0 - m).to(bf16), masked_fill(inverted
// .to(bool), finfo.min); full_text_row_masked_out_mask = (mask != min)
// .any(-1) as bf16 [..., None]; mask *= that (a text row with no image
// gets mask 0); repeat_kv; matmul * scaling + mask; softmax(f32).to(bf16);
// @ v; the decoder layer multiplies the attention output by
// full_text_row_masked_out_mask[:, 0] (here before o_proj, which is linear
// without bias). GQA 4/2, D = 16.

// CHECK-LABEL: func.func @hf_mllama_cross_attention_qk_norm_tile_mask_bf16
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} mask(%{{.+}} : tensor<1x1x4x6xbf16>) {n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, tensor mask{{$}}
func.func @hf_mllama_cross_attention_qk_norm_tile_mask_bf16(
    %xq: tensor<1x4x64xbf16>, %xk: tensor<1x6x32xbf16>, %xv: tensor<1x6x32xbf16>,
    %qw: tensor<16xbf16>, %kw: tensor<16xbf16>,
    %cross_attention_mask: tensor<1x4x1x2xi64> {poot.range = array<i64: 0, 2>}) -> tensor<1x4x64xbf16> {
  %eps = poot.constant dense<9.99999974E-6> : tensor<f32>
  %n16 = poot.constant dense<16.0> : tensor<f32>
  %q4 = poot.reshape %xq : tensor<1x4x64xbf16> -> tensor<1x4x4x16xbf16>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x4x16xbf16>
  %k4 = poot.reshape %xk : tensor<1x6x32xbf16> -> tensor<1x6x2x16xbf16>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  %v4 = poot.reshape %xv : tensor<1x6x32xbf16> -> tensor<1x6x2x16xbf16>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  %qf = poot.convert %qh : tensor<1x4x4x16xbf16> -> tensor<1x4x4x16xf32>
  %qsq = poot.mul %qf, %qf : tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>
  %qss = poot.reduce_sum %qsq {axis = 3 : i64, keepdim} : tensor<1x4x4x16xf32>
  %qvar = poot.div %qss, %n16 : tensor<1x4x4x1xf32>, tensor<f32>
  %qve = poot.add %qvar, %eps : tensor<1x4x4x1xf32>, tensor<f32>
  %qr = poot.rsqrt %qve : tensor<1x4x4x1xf32>
  %qxn = poot.mul %qf, %qr : tensor<1x4x4x16xf32>, tensor<1x4x4x1xf32>
  %qxc = poot.convert %qxn : tensor<1x4x4x16xf32> -> tensor<1x4x4x16xbf16>
  %qn = poot.mul %qw, %qxc : tensor<16xbf16>, tensor<1x4x4x16xbf16>
  %kf = poot.convert %kh : tensor<1x2x6x16xbf16> -> tensor<1x2x6x16xf32>
  %ksq = poot.mul %kf, %kf : tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>
  %kss = poot.reduce_sum %ksq {axis = 3 : i64, keepdim} : tensor<1x2x6x16xf32>
  %kvar = poot.div %kss, %n16 : tensor<1x2x6x1xf32>, tensor<f32>
  %kve = poot.add %kvar, %eps : tensor<1x2x6x1xf32>, tensor<f32>
  %kr = poot.rsqrt %kve : tensor<1x2x6x1xf32>
  %kxn = poot.mul %kf, %kr : tensor<1x2x6x16xf32>, tensor<1x2x6x1xf32>
  %kxc = poot.convert %kxn : tensor<1x2x6x16xf32> -> tensor<1x2x6x16xbf16>
  %kn = poot.mul %kw, %kxc : tensor<16xbf16>, tensor<1x2x6x16xbf16>
  // _prepare_cross_attention_mask
  %cm5 = poot.reshape %cross_attention_mask : tensor<1x4x1x2xi64> -> tensor<1x4x1x2x1xi64>
  %cmb = poot.broadcast %cm5 {shape = array<i64: 1, 4, 1, 2, 3>} : tensor<1x4x1x2x1xi64>
  %cmr = poot.reshape %cmb : tensor<1x4x1x2x3xi64> -> tensor<1x4x1x6xi64>
  %cmv = poot.reshape %cmr : tensor<1x4x1x6xi64> -> tensor<1x1x4x6xi64>
  %cmf = poot.convert %cmv : tensor<1x1x4x6xi64> -> tensor<1x1x4x6xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv32 = poot.sub %one, %cmf : tensor<f32>, tensor<1x1x4x6xf32>
  %inv = poot.convert %inv32 : tensor<1x1x4x6xf32> -> tensor<1x1x4x6xbf16>
  %invb = poot.convert %inv : tensor<1x1x4x6xbf16> -> tensor<1x1x4x6xi1>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %cam = poot.select %invb, %min, %inv : tensor<1x1x4x6xi1>, tensor<bf16>, tensor<1x1x4x6xbf16>
  %ne = poot.compare ne, %cam, %min : tensor<1x1x4x6xbf16>, tensor<bf16>
  %nei = poot.convert %ne : tensor<1x1x4x6xi1> -> tensor<1x1x4x6xi32>
  %anyi = poot.reduce_max %nei {axis = 3 : i64} : tensor<1x1x4x6xi32>
  %anyb = poot.convert %anyi : tensor<1x1x4xi32> -> tensor<1x1x4xi1>
  %anyf = poot.convert %anyb : tensor<1x1x4xi1> -> tensor<1x1x4xbf16>
  %frow = poot.reshape %anyf : tensor<1x1x4xbf16> -> tensor<1x1x4x1xbf16>
  %mask = poot.mul %cam, %frow : tensor<1x1x4x6xbf16>, tensor<1x1x4x1xbf16>
  // repeat_kv and eager_attention_forward
  %kx = poot.reshape %kn : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %kxb = poot.broadcast %kx {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %krep = poot.reshape %kxb : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %vx = poot.reshape %vh : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %vxb = poot.broadcast %vx {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %vrep = poot.reshape %vxb : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %kt = poot.transpose %krep {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x16xbf16>
  %s0 = poot.matmul %qn, %kt : tensor<1x4x4x16xbf16>, tensor<1x4x16x6xbf16>
  %sc = poot.constant dense<0.25> : tensor<bf16>
  %s = poot.mul %s0, %sc : tensor<1x4x4x6xbf16>, tensor<bf16>
  %sm = poot.add %s, %mask : tensor<1x4x4x6xbf16>, tensor<1x1x4x6xbf16>
  %x = poot.convert %sm : tensor<1x4x4x6xbf16> -> tensor<1x4x4x6xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x4x6xf32>
  %d = poot.sub %x, %mx : tensor<1x4x4x6xf32>, tensor<1x4x4x1xf32>
  %e = poot.exp %d : tensor<1x4x4x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x4x6xf32>
  %p = poot.div %e, %zs : tensor<1x4x4x6xf32>, tensor<1x4x4x1xf32>
  %pb = poot.convert %p : tensor<1x4x4x6xf32> -> tensor<1x4x4x6xbf16>
  %o = poot.matmul %pb, %vrep : tensor<1x4x4x6xbf16>, tensor<1x4x6x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x4x16xbf16>
  %or = poot.reshape %ot : tensor<1x4x4x16xbf16> -> tensor<1x4x64xbf16>
  %fr3 = poot.reshape %frow : tensor<1x1x4x1xbf16> -> tensor<1x4x1xbf16>
  %out = poot.mul %fr3, %or : tensor<1x4x1xbf16>, tensor<1x4x64xbf16>
  return %out : tensor<1x4x64xbf16>
}
