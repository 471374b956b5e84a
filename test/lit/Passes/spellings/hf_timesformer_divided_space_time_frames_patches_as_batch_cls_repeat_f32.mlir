// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Hugging Face transformers, TimeSformer (models/timesformer/
// modeling_timesformer.py), TimesformerLayer.forward with attention_type =
// "divided_space_time", f32. Tokens are [cls, (h w t)]. Temporal: xt =
// hidden_states[:, 1:, :].reshape(B, H, W, T, C).reshape(B * H * W, T, C)
// (each patch's frames are one batch row), temporal_layernorm,
// temporal_attention (TimeSformerSelfAttention: qkv = Linear(C, 3C,
// bias).reshape(B, N, 3, heads, C // heads).permute(2, 0, 3, 1, 4); (q @
// k.transpose(-2, -1)) * head_dim ** -0.5; softmax(dim=-1); (attn @ v)
// .transpose(1, 2).reshape(B, N, C); then the output dense),
// reshape(B, H * W * T, C), temporal_dense, residual. Spatial: the cls token
// hidden_states[:, 0, :].unsqueeze(1).repeat(1, T, 1).reshape(B * T, 1, C);
// xs = xt.reshape(B, H, W, T, C).permute(0, 3, 1, 2, 4).reshape(B * T, H *
// W, C) (each frame's patches are one batch row), cat((cls_token, xs), 1),
// layernorm_before, attention (same module), giving res_spatial. LayerNorm
// as aten decomposes it (mean, centred variance, rsqrt(var + 1e-6), affine).
// B = 1, T = 8 frames of 2 x 2 patches, C = 32, 2 heads of 16.
//
// Strongest form: two unmasked attentions, each exactly softmax(q k^T / 4)
// v over its own rows: the temporal one over [B*H*W = 4, 2, T = 8, 16], the
// spatial one over [B*T = 8, 2, 1 + H*W = 5, 16], both n_rep 1, scale 0.25;
// all the reshapes, the permute and the cls concat stay outside them.

// CHECK-LABEL: func.func @hf_timesformer_divided_space_time_frames_patches_as_batch_cls_repeat_f32
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<4x2x8x16xf32>, tensor<4x2x8x16xf32>, tensor<4x2x8x16xf32> -> tensor<4x2x8x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<8x2x5x16xf32>, tensor<8x2x5x16xf32>, tensor<8x2x5x16xf32> -> tensor<8x2x5x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: return
// EXPLAIN-COUNT-2: remark: attention fused: dense attention, n_rep 1, scale 0.25{{$}}
func.func @hf_timesformer_divided_space_time_frames_patches_as_batch_cls_repeat_f32(
    %hidden: tensor<1x33x32xf32>,
    %t_ln_w: tensor<32xf32>, %t_ln_b: tensor<32xf32>,
    %t_qkv_w: tensor<32x96xf32>, %t_qkv_b: tensor<96xf32>,
    %t_out_w: tensor<32x32xf32>, %t_out_b: tensor<32xf32>,
    %t_dense_w: tensor<32x32xf32>, %t_dense_b: tensor<32xf32>,
    %s_ln_w: tensor<32xf32>, %s_ln_b: tensor<32xf32>,
    %s_qkv_w: tensor<32x96xf32>, %s_qkv_b: tensor<96xf32>,
    %s_out_w: tensor<32x32xf32>, %s_out_b: tensor<32xf32>) -> tensor<8x5x32xf32> {
  %cC = poot.constant dense<32.0> : tensor<f32>
  %eps = poot.constant dense<1.0E-6> : tensor<f32>
  %scale = poot.constant dense<0.25> : tensor<f32>
  // ---- Temporal: xt = hidden_states[:, 1:, :].reshape(B, H, W, T, C).reshape(B * H * W, T, C)
  %xt0 = poot.slice %hidden {start = array<i64: 0, 1, 0>, limit = array<i64: 1, 33, 32>, step = array<i64: 1, 1, 1>} : tensor<1x33x32xf32>
  %xt5 = poot.reshape %xt0 : tensor<1x32x32xf32> -> tensor<1x2x2x8x32xf32>
  %xt = poot.reshape %xt5 : tensor<1x2x2x8x32xf32> -> tensor<4x8x32xf32>
  // temporal_layernorm
  %tsum = poot.reduce_sum %xt {axis = 2 : i64, keepdim} : tensor<4x8x32xf32>
  %tmean = poot.div %tsum, %cC : tensor<4x8x1xf32>, tensor<f32>
  %tc = poot.sub %xt, %tmean : tensor<4x8x32xf32>, tensor<4x8x1xf32>
  %tsq = poot.mul %tc, %tc : tensor<4x8x32xf32>, tensor<4x8x32xf32>
  %tvs = poot.reduce_sum %tsq {axis = 2 : i64, keepdim} : tensor<4x8x32xf32>
  %tvar = poot.div %tvs, %cC : tensor<4x8x1xf32>, tensor<f32>
  %tve = poot.add %tvar, %eps : tensor<4x8x1xf32>, tensor<f32>
  %trs = poot.rsqrt %tve : tensor<4x8x1xf32>
  %tn = poot.mul %tc, %trs : tensor<4x8x32xf32>, tensor<4x8x1xf32>
  %tnw = poot.mul %tn, %t_ln_w : tensor<4x8x32xf32>, tensor<32xf32>
  %tln = poot.add %tnw, %t_ln_b : tensor<4x8x32xf32>, tensor<32xf32>
  // temporal_attention: qkv(...).reshape(B, N, 3, heads, C // heads).permute(2, 0, 3, 1, 4)
  %tq0 = poot.matmul %tln, %t_qkv_w : tensor<4x8x32xf32>, tensor<32x96xf32>
  %tq1 = poot.add %tq0, %t_qkv_b : tensor<4x8x96xf32>, tensor<96xf32>
  %tq5 = poot.reshape %tq1 : tensor<4x8x96xf32> -> tensor<4x8x3x2x16xf32>
  %tqkv = poot.transpose %tq5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<4x8x3x2x16xf32>
  %tqs = poot.slice %tqkv {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 4, 2, 8, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x4x2x8x16xf32>
  %tks = poot.slice %tqkv {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 4, 2, 8, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x4x2x8x16xf32>
  %tvs5 = poot.slice %tqkv {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 4, 2, 8, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x4x2x8x16xf32>
  %tqh = poot.reshape %tqs : tensor<1x4x2x8x16xf32> -> tensor<4x2x8x16xf32>
  %tkh = poot.reshape %tks : tensor<1x4x2x8x16xf32> -> tensor<4x2x8x16xf32>
  %tvh = poot.reshape %tvs5 : tensor<1x4x2x8x16xf32> -> tensor<4x2x8x16xf32>
  // (q @ k.transpose(-2, -1)) * self.scale; softmax(dim=-1); @ v
  %tkt = poot.transpose %tkh {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x8x16xf32>
  %ts0 = poot.matmul %tqh, %tkt : tensor<4x2x8x16xf32>, tensor<4x2x16x8xf32>
  %ts = poot.mul %ts0, %scale : tensor<4x2x8x8xf32>, tensor<f32>
  %tm = poot.reduce_max %ts {axis = 3 : i64, keepdim} : tensor<4x2x8x8xf32>
  %td = poot.sub %ts, %tm : tensor<4x2x8x8xf32>, tensor<4x2x8x1xf32>
  %te = poot.exp %td : tensor<4x2x8x8xf32>
  %tz = poot.reduce_sum %te {axis = 3 : i64, keepdim} : tensor<4x2x8x8xf32>
  %tp = poot.div %te, %tz : tensor<4x2x8x8xf32>, tensor<4x2x8x1xf32>
  %to = poot.matmul %tp, %tvh : tensor<4x2x8x8xf32>, tensor<4x2x8x16xf32>
  %tot = poot.transpose %to {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x8x16xf32>
  %tctx = poot.reshape %tot : tensor<4x8x2x16xf32> -> tensor<4x8x32xf32>
  // TimeSformerSelfOutput.dense
  %tao0 = poot.matmul %tctx, %t_out_w : tensor<4x8x32xf32>, tensor<32x32xf32>
  %tao = poot.add %tao0, %t_out_b : tensor<4x8x32xf32>, tensor<32xf32>
  // res_temporal.reshape(B, H, W, T, C).reshape(B, H * W * T, C); temporal_dense; residual
  %rt5 = poot.reshape %tao : tensor<4x8x32xf32> -> tensor<1x2x2x8x32xf32>
  %rt = poot.reshape %rt5 : tensor<1x2x2x8x32xf32> -> tensor<1x32x32xf32>
  %rtd0 = poot.matmul %rt, %t_dense_w : tensor<1x32x32xf32>, tensor<32x32xf32>
  %rtd = poot.add %rtd0, %t_dense_b : tensor<1x32x32xf32>, tensor<32xf32>
  %xtn = poot.add %xt0, %rtd : tensor<1x32x32xf32>, tensor<1x32x32xf32>
  // ---- Spatial: cls token repeated per frame
  %cls0 = poot.slice %hidden {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 1, 32>, step = array<i64: 1, 1, 1>} : tensor<1x33x32xf32>
  %clsr = poot.broadcast %cls0 {shape = array<i64: 1, 8, 32>} : tensor<1x1x32xf32>
  %cls = poot.reshape %clsr : tensor<1x8x32xf32> -> tensor<8x1x32xf32>
  // xs.reshape(B, H, W, T, C).permute(0, 3, 1, 2, 4).reshape(B * T, H * W, C); cat((cls_token, xs), 1)
  %xs5 = poot.reshape %xtn : tensor<1x32x32xf32> -> tensor<1x2x2x8x32xf32>
  %xsp = poot.transpose %xs5 {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<1x2x2x8x32xf32>
  %xs = poot.reshape %xsp : tensor<1x8x2x2x32xf32> -> tensor<8x4x32xf32>
  %xsc = poot.concat %cls, %xs {axis = 1 : i64} : tensor<8x1x32xf32>, tensor<8x4x32xf32>
  // layernorm_before
  %ssum = poot.reduce_sum %xsc {axis = 2 : i64, keepdim} : tensor<8x5x32xf32>
  %smean = poot.div %ssum, %cC : tensor<8x5x1xf32>, tensor<f32>
  %sc = poot.sub %xsc, %smean : tensor<8x5x32xf32>, tensor<8x5x1xf32>
  %ssq = poot.mul %sc, %sc : tensor<8x5x32xf32>, tensor<8x5x32xf32>
  %svs = poot.reduce_sum %ssq {axis = 2 : i64, keepdim} : tensor<8x5x32xf32>
  %svar = poot.div %svs, %cC : tensor<8x5x1xf32>, tensor<f32>
  %sve = poot.add %svar, %eps : tensor<8x5x1xf32>, tensor<f32>
  %srs = poot.rsqrt %sve : tensor<8x5x1xf32>
  %sn = poot.mul %sc, %srs : tensor<8x5x32xf32>, tensor<8x5x1xf32>
  %snw = poot.mul %sn, %s_ln_w : tensor<8x5x32xf32>, tensor<32xf32>
  %sln = poot.add %snw, %s_ln_b : tensor<8x5x32xf32>, tensor<32xf32>
  // attention
  %sq0 = poot.matmul %sln, %s_qkv_w : tensor<8x5x32xf32>, tensor<32x96xf32>
  %sq1 = poot.add %sq0, %s_qkv_b : tensor<8x5x96xf32>, tensor<96xf32>
  %sq5 = poot.reshape %sq1 : tensor<8x5x96xf32> -> tensor<8x5x3x2x16xf32>
  %sqkv = poot.transpose %sq5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<8x5x3x2x16xf32>
  %sqs = poot.slice %sqkv {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 8, 2, 5, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x8x2x5x16xf32>
  %sks = poot.slice %sqkv {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 8, 2, 5, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x8x2x5x16xf32>
  %svs5 = poot.slice %sqkv {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 8, 2, 5, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x8x2x5x16xf32>
  %sqh = poot.reshape %sqs : tensor<1x8x2x5x16xf32> -> tensor<8x2x5x16xf32>
  %skh = poot.reshape %sks : tensor<1x8x2x5x16xf32> -> tensor<8x2x5x16xf32>
  %svh = poot.reshape %svs5 : tensor<1x8x2x5x16xf32> -> tensor<8x2x5x16xf32>
  %skt = poot.transpose %skh {perm = array<i64: 0, 1, 3, 2>} : tensor<8x2x5x16xf32>
  %ss0 = poot.matmul %sqh, %skt : tensor<8x2x5x16xf32>, tensor<8x2x16x5xf32>
  %ss = poot.mul %ss0, %scale : tensor<8x2x5x5xf32>, tensor<f32>
  %sm = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<8x2x5x5xf32>
  %sd = poot.sub %ss, %sm : tensor<8x2x5x5xf32>, tensor<8x2x5x1xf32>
  %se = poot.exp %sd : tensor<8x2x5x5xf32>
  %sz = poot.reduce_sum %se {axis = 3 : i64, keepdim} : tensor<8x2x5x5xf32>
  %sp = poot.div %se, %sz : tensor<8x2x5x5xf32>, tensor<8x2x5x1xf32>
  %so = poot.matmul %sp, %svh : tensor<8x2x5x5xf32>, tensor<8x2x5x16xf32>
  %sot = poot.transpose %so {perm = array<i64: 0, 2, 1, 3>} : tensor<8x2x5x16xf32>
  %sctx = poot.reshape %sot : tensor<8x5x2x16xf32> -> tensor<8x5x32xf32>
  %sao0 = poot.matmul %sctx, %s_out_w : tensor<8x5x32xf32>, tensor<32x32xf32>
  %sao = poot.add %sao0, %s_out_b : tensor<8x5x32xf32>, tensor<32xf32>
  return %sao : tensor<8x5x32xf32>
}
