// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Qwen3-Next (models/qwen3_next/modeling_qwen3_next.py,
// Qwen3NextAttention.forward with eager_attention_forward), a full-attention
// layer on a 5-token prefill, bf16: q_proj emits query and output gate
// together, viewed [B, L, H, 2 * D] and torch.chunk'ed in the last dim (q
// is each head's first half); q_norm and k_norm are Qwen3NextRMSNorm over
// head_dim with the (1 + weight) gain applied in f32 before .type_as(x);
// partial rotary (partial_rotary_factor 0.25: 4 of 16 channels) with the
// llama rotate_half and the pass-through concatenated back; masking_utils
// eager causal mask; repeat_kv from one key head to 4 query heads;
// matmul * scaling + mask, softmax(f32).to(bf16), @ v; after the reshape
// the output is gated, attn_output * sigmoid(gate).

// Strongest form: two half-style rotaries of 4 channels, one attention,
// causal, n_rep 4, scale 0.25; the gate's exp stays after it.
// CHECK-LABEL: func.func @hf_qwen3_next_gated_q_chunk_one_plus_weight_qk_norm_quarter_rotary_mqa_repeat_kv_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 4 : i64, style = "half"}
// CHECK-NOT: poot.exp
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{reduce_max|reduce_sum}}
// CHECK: poot.exp
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25, causal{{$}}
func.func @hf_qwen3_next_gated_q_chunk_one_plus_weight_qk_norm_quarter_rotary_mqa_repeat_kv_bf16(
    %q_proj_out: tensor<1x5x128xbf16>,
    %k_proj_out: tensor<1x5x16xbf16>,
    %v_proj_out: tensor<1x5x16xbf16>,
    %q_norm_weight: tensor<16xbf16>,
    %k_norm_weight: tensor<16xbf16>,
    %cos0: tensor<1x5x4xbf16>,
    %sin0: tensor<1x5x4xbf16>)
    -> tensor<1x5x64xbf16> {
  // query_states, gate = torch.chunk(q_proj(h).view(*input_shape, -1, head_dim * 2), 2, dim=-1)
  %q2 = poot.reshape %q_proj_out : tensor<1x5x128xbf16> -> tensor<1x5x4x32xbf16>
  %query_states = poot.slice %q2 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 5, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x5x4x32xbf16>
  %gate4 = poot.slice %q2 {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 5, 4, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x5x4x32xbf16>
  %gate = poot.reshape %gate4 : tensor<1x5x4x16xbf16> -> tensor<1x5x64xbf16>
  // qn: Qwen3NextRMSNorm(head_dim): x.float() * rsqrt(x.pow(2).mean(-1) + 1e-6) * (1.0 + w.float()), .type_as(x)
  %qnf = poot.convert %query_states : tensor<1x5x4x16xbf16> -> tensor<1x5x4x16xf32>
  %qnsq = poot.mul %qnf, %qnf : tensor<1x5x4x16xf32>, tensor<1x5x4x16xf32>
  %qnss = poot.reduce_sum %qnsq {axis = 3 : i64, keepdim} : tensor<1x5x4x16xf32>
  %qnn = poot.constant dense<16.0> : tensor<f32>
  %qnvar = poot.div %qnss, %qnn : tensor<1x5x4x1xf32>, tensor<f32>
  %qneps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %qnve = poot.add %qnvar, %qneps : tensor<1x5x4x1xf32>, tensor<f32>
  %qnr = poot.rsqrt %qnve : tensor<1x5x4x1xf32>
  %qnxn = poot.mul %qnf, %qnr : tensor<1x5x4x16xf32>, tensor<1x5x4x1xf32>
  %qnwf = poot.convert %q_norm_weight : tensor<16xbf16> -> tensor<16xf32>
  %qnone = poot.constant dense<1.0> : tensor<f32>
  %qnw1 = poot.add %qnone, %qnwf : tensor<f32>, tensor<16xf32>
  %qny = poot.mul %qnxn, %qnw1 : tensor<1x5x4x16xf32>, tensor<16xf32>
  %qn = poot.convert %qny : tensor<1x5x4x16xf32> -> tensor<1x5x4x16xbf16>
  %q = poot.transpose %qn {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x16xbf16>
  %k4 = poot.reshape %k_proj_out : tensor<1x5x16xbf16> -> tensor<1x5x1x16xbf16>
  // kn: Qwen3NextRMSNorm(head_dim): x.float() * rsqrt(x.pow(2).mean(-1) + 1e-6) * (1.0 + w.float()), .type_as(x)
  %knf = poot.convert %k4 : tensor<1x5x1x16xbf16> -> tensor<1x5x1x16xf32>
  %knsq = poot.mul %knf, %knf : tensor<1x5x1x16xf32>, tensor<1x5x1x16xf32>
  %knss = poot.reduce_sum %knsq {axis = 3 : i64, keepdim} : tensor<1x5x1x16xf32>
  %knn = poot.constant dense<16.0> : tensor<f32>
  %knvar = poot.div %knss, %knn : tensor<1x5x1x1xf32>, tensor<f32>
  %kneps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %knve = poot.add %knvar, %kneps : tensor<1x5x1x1xf32>, tensor<f32>
  %knr = poot.rsqrt %knve : tensor<1x5x1x1xf32>
  %knxn = poot.mul %knf, %knr : tensor<1x5x1x16xf32>, tensor<1x5x1x1xf32>
  %knwf = poot.convert %k_norm_weight : tensor<16xbf16> -> tensor<16xf32>
  %knone = poot.constant dense<1.0> : tensor<f32>
  %knw1 = poot.add %knone, %knwf : tensor<f32>, tensor<16xf32>
  %kny = poot.mul %knxn, %knw1 : tensor<1x5x1x16xf32>, tensor<16xf32>
  %kn = poot.convert %kny : tensor<1x5x1x16xf32> -> tensor<1x5x1x16xbf16>
  %k = poot.transpose %kn {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x1x16xbf16>
  %v4 = poot.reshape %v_proj_out : tensor<1x5x16xbf16> -> tensor<1x5x1x16xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x1x16xbf16>
  // apply_rotary_pos_emb: cos.unsqueeze(1); rotary_dim = cos.shape[-1] = 4 (partial_rotary_factor 0.25)
  %cos = poot.reshape %cos0 : tensor<1x5x4xbf16> -> tensor<1x1x5x4xbf16>
  %sin = poot.reshape %sin0 : tensor<1x5x4xbf16> -> tensor<1x1x5x4xbf16>
  %qrot = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x16xbf16>
  %qpass = poot.slice %q {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 4, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x16xbf16>
  // rotate_half: cat((-x[..., 2:], x[..., :2]), dim=-1)
  %qx1 = poot.slice %qrot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 2>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x4xbf16>
  %qx2 = poot.slice %qrot {start = array<i64: 0, 0, 0, 2>, limit = array<i64: 1, 4, 5, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x4xbf16>
  %qnx2 = poot.neg %qx2 : tensor<1x4x5x2xbf16>
  %qrh = poot.concat %qnx2, %qx1 {axis = 3 : i64} : tensor<1x4x5x2xbf16>, tensor<1x4x5x2xbf16>
  %qa = poot.mul %qrot, %cos : tensor<1x4x5x4xbf16>, tensor<1x1x5x4xbf16>
  %qb = poot.mul %qrh, %sin : tensor<1x4x5x4xbf16>, tensor<1x1x5x4xbf16>
  %qemb = poot.add %qa, %qb : tensor<1x4x5x4xbf16>, tensor<1x4x5x4xbf16>
  %qr = poot.concat %qemb, %qpass {axis = 3 : i64} : tensor<1x4x5x4xbf16>, tensor<1x4x5x12xbf16>
  %krot = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x5x16xbf16>
  %kpass = poot.slice %k {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 1, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x5x16xbf16>
  // rotate_half: cat((-x[..., 2:], x[..., :2]), dim=-1)
  %kx1 = poot.slice %krot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 2>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x5x4xbf16>
  %kx2 = poot.slice %krot {start = array<i64: 0, 0, 0, 2>, limit = array<i64: 1, 1, 5, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x5x4xbf16>
  %knx2 = poot.neg %kx2 : tensor<1x1x5x2xbf16>
  %krh = poot.concat %knx2, %kx1 {axis = 3 : i64} : tensor<1x1x5x2xbf16>, tensor<1x1x5x2xbf16>
  %ka = poot.mul %krot, %cos : tensor<1x1x5x4xbf16>, tensor<1x1x5x4xbf16>
  %kb = poot.mul %krh, %sin : tensor<1x1x5x4xbf16>, tensor<1x1x5x4xbf16>
  %kemb = poot.add %ka, %kb : tensor<1x1x5x4xbf16>, tensor<1x1x5x4xbf16>
  %kr = poot.concat %kemb, %kpass {axis = 3 : i64} : tensor<1x1x5x4xbf16>, tensor<1x1x5x12xbf16>
  // create_causal_mask, eager: where(kv_idx <= q_idx, 0, finfo(bf16).min), q_idx = cache_position
  %qi = poot.iota {dim = 2 : i64} : tensor<1x1x5x1xi64>
  %kvi = poot.iota {dim = 3 : i64} : tensor<1x1x1x5xi64>
  %vis = poot.compare le, %kvi, %qi : tensor<1x1x1x5xi64>, tensor<1x1x5x1xi64>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %mask = poot.select %vis, %zero, %min : tensor<1x1x5x5xi1>, tensor<bf16>, tensor<bf16>
  // repeat_kv(key, 4), repeat_kv(value, 4)
  %krep5 = poot.reshape %kr : tensor<1x1x5x16xbf16> -> tensor<1x1x1x5x16xbf16>
  %krepb = poot.broadcast %krep5 {shape = array<i64: 1, 1, 4, 5, 16>} : tensor<1x1x1x5x16xbf16>
  %krep = poot.reshape %krepb : tensor<1x1x4x5x16xbf16> -> tensor<1x4x5x16xbf16>
  %vrep5 = poot.reshape %v : tensor<1x1x5x16xbf16> -> tensor<1x1x1x5x16xbf16>
  %vrepb = poot.broadcast %vrep5 {shape = array<i64: 1, 1, 4, 5, 16>} : tensor<1x1x1x5x16xbf16>
  %vrep = poot.reshape %vrepb : tensor<1x1x4x5x16xbf16> -> tensor<1x4x5x16xbf16>
  %kt = poot.transpose %krep {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x16xbf16>
  %s = poot.matmul %qr, %kt : tensor<1x4x5x16xbf16>, tensor<1x4x16x5xbf16>
  %scaling = poot.constant dense<0.25> : tensor<bf16>
  %ss = poot.mul %s, %scaling : tensor<1x4x5x5xbf16>, tensor<bf16>
  %sm = poot.add %ss, %mask : tensor<1x4x5x5xbf16>, tensor<1x1x5x5xbf16>
  // softmax(dim=-1, dtype=float32).to(bf16)
  %x = poot.convert %sm : tensor<1x4x5x5xbf16> -> tensor<1x4x5x5xf32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %x, %m : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %pb = poot.convert %p : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xbf16>
  %o = poot.matmul %pb, %vrep : tensor<1x4x5x5xbf16>, tensor<1x4x5x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x16xbf16>
  %attn_output = poot.reshape %ot : tensor<1x5x4x16xbf16> -> tensor<1x5x64xbf16>
  // attn_output = attn_output * torch.sigmoid(gate)  (sigmoid written 1 / (1 + exp(-gate)))
  %ngate = poot.neg %gate : tensor<1x5x64xbf16>
  %egate = poot.exp %ngate : tensor<1x5x64xbf16>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %den = poot.add %one, %egate : tensor<bf16>, tensor<1x5x64xbf16>
  %sig = poot.div %one, %den : tensor<bf16>, tensor<1x5x64xbf16>
  %gated = poot.mul %attn_output, %sig : tensor<1x5x64xbf16>, tensor<1x5x64xbf16>
  return %gated : tensor<1x5x64xbf16>
}
