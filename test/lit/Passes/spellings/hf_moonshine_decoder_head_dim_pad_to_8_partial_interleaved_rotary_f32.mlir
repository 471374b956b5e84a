// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Moonshine (models/moonshine/modeling_moonshine.py,
// MoonshineAttention.forward with eager_attention_forward), decoder
// self-attention on a 5-token prefill, f32. head_dim = 288 / 8 = 36 is not
// a multiple of pad_head_dim_to_multiple_of = 8, so q, k and v are each
// F.pad(x, (0, 4)) with zeros to 40 channels before the attention and the
// output is sliced back with attn_output[..., :-4]; the scaling stays
// 36 ** -0.5. The rotary is partial (partial_rotary_factor 0.9: 32 of 36
// channels) and interleaved: apply_rotary_pos_emb takes
// cos[..., :16].repeat_interleave(2, dim=-1) and rotate_half as
// stack((-x[..., 1::2], x[..., 0::2]), -1).flatten(-2) on q[..., :32], the
// last 4 channels passed through by torch.cat. The mask is the 4.49
// _update_causal_mask one: no decoder attention_mask, so target_length =
// past + L + 1 = 6, triu(full(finfo.min), 1) * (arange(6) > cache_position),
// sliced to the 5 keys by the eager path. q is viewed with
// config.num_key_value_heads, which MoonshineAttention sets equal to the
// query heads (MHA, 2 heads).

// Strongest form: two interleaved partial rotaries (32 channels), then one
// attention over the zero-padded operands, causal, n_rep 1, scale 1/6; the
// output slice stays after it.
// CHECK-LABEL: func.func @hf_moonshine_decoder_head_dim_pad_to_8_partial_interleaved_rotary_f32
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 32 : i64, style = "interleaved"}
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} {causal, n_rep = 1 : i64, scale = 0.16666{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.16666{{[0-9]*}}, causal{{$}}
func.func @hf_moonshine_decoder_head_dim_pad_to_8_partial_interleaved_rotary_f32(
    %xq: tensor<1x5x72xf32>,
    %xk: tensor<1x5x72xf32>,
    %xv: tensor<1x5x72xf32>,
    %cos0: tensor<1x5x32xf32>,
    %sin0: tensor<1x5x32xf32>)
    -> tensor<1x5x72xf32> {
  // q_proj(h).view(bsz, q_len, num_key_value_heads, head_dim).transpose(1, 2), k and v alike
  %r = poot.reshape %xq : tensor<1x5x72xf32> -> tensor<1x5x2x36xf32>
  %q = poot.transpose %r {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x36xf32>
  %r1 = poot.reshape %xk : tensor<1x5x72xf32> -> tensor<1x5x2x36xf32>
  %k = poot.transpose %r1 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x36xf32>
  %r2 = poot.reshape %xv : tensor<1x5x72xf32> -> tensor<1x5x2x36xf32>
  %v = poot.transpose %r2 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x36xf32>
  // cos = cos.unsqueeze(1); cos = cos[..., : cos.shape[-1] // 2].repeat_interleave(2, dim=-1)
  %cosu = poot.reshape %cos0 : tensor<1x5x32xf32> -> tensor<1x1x5x32xf32>
  %cosh = poot.slice %cosu {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x5x32xf32>
  %cos5 = poot.reshape %cosh : tensor<1x1x5x16xf32> -> tensor<1x1x5x16x1xf32>
  %cosb = poot.broadcast %cos5 {shape = array<i64: 1, 1, 5, 16, 2>} : tensor<1x1x5x16x1xf32>
  %cos = poot.reshape %cosb : tensor<1x1x5x16x2xf32> -> tensor<1x1x5x32xf32>
  %sinu = poot.reshape %sin0 : tensor<1x5x32xf32> -> tensor<1x1x5x32xf32>
  %sinh = poot.slice %sinu {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x5x32xf32>
  %sin5 = poot.reshape %sinh : tensor<1x1x5x16xf32> -> tensor<1x1x5x16x1xf32>
  %sinb = poot.broadcast %sin5 {shape = array<i64: 1, 1, 5, 16, 2>} : tensor<1x1x5x16x1xf32>
  %sin = poot.reshape %sinb : tensor<1x1x5x16x2xf32> -> tensor<1x1x5x32xf32>
  // q_rot, q_pass = q[..., :rotary_dim], q[..., rotary_dim:]
  %qrot = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x36xf32>
  %qpass = poot.slice %q {start = array<i64: 0, 0, 0, 32>, limit = array<i64: 1, 2, 5, 36>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x36xf32>
  // rotate_half: x1 = x[..., 0::2], x2 = x[..., 1::2], torch.stack((-x2, x1), dim=-1).flatten(-2)
  %qx1 = poot.slice %qrot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x5x32xf32>
  %qx2 = poot.slice %qrot {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x5x32xf32>
  %qnx2 = poot.neg %qx2 : tensor<1x2x5x16xf32>
  %qs1 = poot.reshape %qnx2 : tensor<1x2x5x16xf32> -> tensor<1x2x5x16x1xf32>
  %qs2 = poot.reshape %qx1 : tensor<1x2x5x16xf32> -> tensor<1x2x5x16x1xf32>
  %qst = poot.concat %qs1, %qs2 {axis = 4 : i64} : tensor<1x2x5x16x1xf32>, tensor<1x2x5x16x1xf32>
  %qrh = poot.reshape %qst : tensor<1x2x5x16x2xf32> -> tensor<1x2x5x32xf32>
  %qa = poot.mul %qrot, %cos : tensor<1x2x5x32xf32>, tensor<1x1x5x32xf32>
  %qb = poot.mul %qrh, %sin : tensor<1x2x5x32xf32>, tensor<1x1x5x32xf32>
  %qe = poot.add %qa, %qb : tensor<1x2x5x32xf32>, tensor<1x2x5x32xf32>
  // torch.cat([q_embed, q_pass], dim=-1)
  %qr = poot.concat %qe, %qpass {axis = 3 : i64} : tensor<1x2x5x32xf32>, tensor<1x2x5x4xf32>
  // k_rot, k_pass = k[..., :rotary_dim], k[..., rotary_dim:]
  %krot = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x36xf32>
  %kpass = poot.slice %k {start = array<i64: 0, 0, 0, 32>, limit = array<i64: 1, 2, 5, 36>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x36xf32>
  // rotate_half: x1 = x[..., 0::2], x2 = x[..., 1::2], torch.stack((-x2, x1), dim=-1).flatten(-2)
  %kx1 = poot.slice %krot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x5x32xf32>
  %kx2 = poot.slice %krot {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x5x32xf32>
  %knx2 = poot.neg %kx2 : tensor<1x2x5x16xf32>
  %ks1 = poot.reshape %knx2 : tensor<1x2x5x16xf32> -> tensor<1x2x5x16x1xf32>
  %ks2 = poot.reshape %kx1 : tensor<1x2x5x16xf32> -> tensor<1x2x5x16x1xf32>
  %kst = poot.concat %ks1, %ks2 {axis = 4 : i64} : tensor<1x2x5x16x1xf32>, tensor<1x2x5x16x1xf32>
  %krh = poot.reshape %kst : tensor<1x2x5x16x2xf32> -> tensor<1x2x5x32xf32>
  %ka = poot.mul %krot, %cos : tensor<1x2x5x32xf32>, tensor<1x1x5x32xf32>
  %kb = poot.mul %krh, %sin : tensor<1x2x5x32xf32>, tensor<1x1x5x32xf32>
  %ke = poot.add %ka, %kb : tensor<1x2x5x32xf32>, tensor<1x2x5x32xf32>
  // torch.cat([k_embed, k_pass], dim=-1)
  %kr = poot.concat %ke, %kpass {axis = 3 : i64} : tensor<1x2x5x32xf32>, tensor<1x2x5x4xf32>
  // head_dim_padding = 40 - 36: F.pad(x, (0, 4)) on q, k and v
  %zpad = poot.constant dense<0.0> : tensor<1x2x5x4xf32>
  %qp = poot.concat %qr, %zpad {axis = 3 : i64} : tensor<1x2x5x36xf32>, tensor<1x2x5x4xf32>
  %kp = poot.concat %kr, %zpad {axis = 3 : i64} : tensor<1x2x5x36xf32>, tensor<1x2x5x4xf32>
  %vp = poot.concat %v, %zpad {axis = 3 : i64} : tensor<1x2x5x36xf32>, tensor<1x2x5x4xf32>
  // _update_causal_mask (no decoder attention_mask, DynamicCache): target_length = past + L + 1 = 6;
  // full((L, 6), finfo.min).triu(1) (a traced constant) *= arange(6) > cache_position.reshape(-1, 1)
  %row = poot.iota {dim = 0 : i64} : tensor<5x6xi64>
  %col = poot.iota {dim = 1 : i64} : tensor<5x6xi64>
  %dd = poot.sub %col, %row : tensor<5x6xi64>, tensor<5x6xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %up = poot.compare ge, %dd, %one : tensor<5x6xi64>, tensor<i64>
  %full = poot.constant dense<-3.40282347E+38> : tensor<5x6xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %triu = poot.select %up, %full, %zero : tensor<5x6xi1>, tensor<5x6xf32>, tensor<f32>
  %ar = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %cp = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %cpr = poot.reshape %cp : tensor<5xi64> -> tensor<5x1xi64>
  %gt = poot.compare gt, %ar, %cpr : tensor<6xi64>, tensor<5x1xi64>
  %gtf = poot.convert %gt : tensor<5x6xi1> -> tensor<5x6xf32>
  %cm = poot.mul %triu, %gtf : tensor<5x6xf32>, tensor<5x6xf32>
  %cm4 = poot.reshape %cm : tensor<5x6xf32> -> tensor<1x1x5x6xf32>
  // eager_attention_forward: causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
  %cms = poot.slice %cm4 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 5>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x5x6xf32>
  %kt = poot.transpose %kp {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x40xf32>
  %s = poot.matmul %qp, %kt : tensor<1x2x5x40xf32>, tensor<1x2x40x5xf32>
  %scaling = poot.constant dense<0.166666672> : tensor<f32>
  %ss = poot.mul %s, %scaling : tensor<1x2x5x5xf32>, tensor<f32>
  %sm = poot.add %ss, %cms : tensor<1x2x5x5xf32>, tensor<1x1x5x5xf32>
  // softmax(dim=-1, dtype=float32).to(float32)
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %d = poot.sub %sm, %m : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %p = poot.div %e, %z : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %o = poot.matmul %p, %vp : tensor<1x2x5x5xf32>, tensor<1x2x5x40xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x5x40xf32>
  // attn_output[..., : -head_dim_padding]
  %osl = poot.slice %ot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 5, 2, 36>, step = array<i64: 1, 1, 1, 1>} : tensor<1x5x2x40xf32>
  %out = poot.reshape %osl : tensor<1x5x2x36xf32> -> tensor<1x5x72xf32>
  return %out : tensor<1x5x72xf32>
}
