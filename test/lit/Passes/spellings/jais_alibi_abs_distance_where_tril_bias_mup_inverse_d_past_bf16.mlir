// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Jais (core42/jais-13b on the Hugging Face Hub, modeling_jais.py, a
// GPT-2 derivative by Cerebras), bf16, one cached step. JAISModel.forward
// takes position_bias = AlibiPositionEmbeddingLayer(length, length,
// cached_kv_length): context_position = arange(cached, cached + L)[:, None],
// memory_position = arange(L + cached)[None, :], relative_position =
// abs(memory - context) expanded over the heads, alibi = (slopes *
// -1.0).unsqueeze(1) * relative_position (f32; slopes 2^-2, 2^-4, 2^-6,
// 2^-8 for 4 heads, a frozen parameter). JAISAttention.forward: c_attn
// (Conv1D, x @ W + b) split into q, k, v; _split_heads (view, permute(0, 2,
// 1, 3)); key = cat((past_key, key), -2), likewise values. _attn: matmul(q,
// k^T) / torch.full([], head_dim ** attn_scale_power) with
// mup_scale_qk_dot_by_d (attn_scale_power = 1.0: divided by d, not sqrt d);
// causal_mask = self.bias[:, :, Lk - L : Lk, :Lk] (the registered bool
// tril(ones(n_positions, n_positions)) buffer); torch.where(causal_mask,
// attn_weights, finfo(bf16).min); attn_weights += position_bias
// .type_as(attn_weights).unsqueeze(0); softmax(dim=-1) (f32 accumulation,
// bf16 out); .type(value.dtype); @ value; _merge_heads. Called without an
// attention_mask. L = 3 new tokens after a static past of 4 (Lk = 7), one
// batch row, 4 heads of 16, n_positions = 8.
//
// Strongest form: on the cells the tril slice keeps (t <= 4 + i) the bias
// -slope[h] * |t - (4 + i)| is exactly slope[h] * (t - (4 + i)), the ALiBi
// bias of the fused op; on the other cells the select has already put
// finfo.min, which the (at most 6 * 2^-2) bias cannot pull back, and every
// row keeps key 0. So it is causal at pos 4 with alibi_slopes [2^-2, 2^-4,
// 2^-6, 2^-8] and no tensor mask, scale 1/16 (mup's 1/d).

// Not the strongest form yet; the strongest, from the source, was:
//   poot.attention q, k, v pos(... : tensor<i64>) {alibi_slopes = array<f64:
//   2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03>, causal,
//   n_rep = 1 : i64, scale = 6.250000e-02 : f64}
// Today (sound, checked against the oracle):
// the fused op, causal at offset 4, with the position bias kept as a tensor
// mask: the bias is the f32 table -slope * |t - (4 + i)| (an abs of the
// distance) cast to bf16, which is not read as ALiBi; that it equals
// slope * (t - qpos) on every cell the tril keeps is not used.
// CHECK-LABEL: func.func @jais_alibi_abs_distance_where_tril_bias_mup_inverse_d_past_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x4x3x7xbf16>) pos(%{{.+}} : tensor<i64>) {causal, n_rep = 1 : i64, scale = 6.250000e-02 : f64} : tensor<1x4x3x16xbf16>, tensor<1x4x7x16xbf16>, tensor<1x4x7x16xbf16> -> tensor<1x4x3x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.0625, tensor mask, causal at offset 4{{$}}
func.func @jais_alibi_abs_distance_where_tril_bias_mup_inverse_d_past_bf16(
    %x: tensor<1x3x64xbf16>, %c_attn_w: tensor<64x192xbf16>, %c_attn_b: tensor<192xbf16>,
    %past_k: tensor<1x4x4x16xbf16>, %past_v: tensor<1x4x4x16xbf16>) -> tensor<1x3x64xbf16> {
  // AlibiPositionEmbeddingLayer.forward(seq_length=3, key_length=3, cached_qk_len=4)
  %slopes = poot.constant dense<[[0.25], [0.0625], [0.015625], [0.00390625]]> : tensor<4x1xf32>
  %ctx0 = poot.iota {dim = 0 : i64} : tensor<3xi64>
  %cached = poot.constant dense<4> : tensor<i64>
  %ctx1 = poot.add %ctx0, %cached : tensor<3xi64>, tensor<i64>
  %ctx = poot.reshape %ctx1 : tensor<3xi64> -> tensor<3x1xi64>
  %mem = poot.iota {dim = 1 : i64} : tensor<1x7xi64>
  %rel = poot.sub %mem, %ctx : tensor<1x7xi64>, tensor<3x1xi64>
  %rabs = poot.abs %rel : tensor<3x7xi64>
  %rabs3 = poot.reshape %rabs : tensor<3x7xi64> -> tensor<1x3x7xi64>
  %rexp = poot.broadcast %rabs3 {shape = array<i64: 4, 3, 7>} : tensor<1x3x7xi64>
  %mone = poot.constant dense<-1.0> : tensor<f32>
  %nslopes = poot.mul %slopes, %mone : tensor<4x1xf32>, tensor<f32>
  %ns3 = poot.reshape %nslopes : tensor<4x1xf32> -> tensor<4x1x1xf32>
  %rf = poot.convert %rexp : tensor<4x3x7xi64> -> tensor<4x3x7xf32>
  %alibi = poot.mul %ns3, %rf : tensor<4x1x1xf32>, tensor<4x3x7xf32>
  // c_attn: Conv1D (x @ W + b), split(64, dim=2)
  %qkv0 = poot.matmul %x, %c_attn_w : tensor<1x3x64xbf16>, tensor<64x192xbf16>
  %qkv = poot.add %qkv0, %c_attn_b : tensor<1x3x192xbf16>, tensor<192xbf16>
  %ql = poot.slice %qkv {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 3, 64>, step = array<i64: 1, 1, 1>} : tensor<1x3x192xbf16>
  %kl = poot.slice %qkv {start = array<i64: 0, 0, 64>, limit = array<i64: 1, 3, 128>, step = array<i64: 1, 1, 1>} : tensor<1x3x192xbf16>
  %vl = poot.slice %qkv {start = array<i64: 0, 0, 128>, limit = array<i64: 1, 3, 192>, step = array<i64: 1, 1, 1>} : tensor<1x3x192xbf16>
  // _split_heads: view(B, L, H, D).permute(0, 2, 1, 3)
  %q4 = poot.reshape %ql : tensor<1x3x64xbf16> -> tensor<1x3x4x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x16xbf16>
  %k4 = poot.reshape %kl : tensor<1x3x64xbf16> -> tensor<1x3x4x16xbf16>
  %kn = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x16xbf16>
  %v4 = poot.reshape %vl : tensor<1x3x64xbf16> -> tensor<1x3x4x16xbf16>
  %vn = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x16xbf16>
  // layer_past: key = torch.cat((past_key, key), dim=-2)
  %k = poot.concat %past_k, %kn {axis = 2 : i64} : tensor<1x4x4x16xbf16>, tensor<1x4x3x16xbf16>
  %v = poot.concat %past_v, %vn {axis = 2 : i64} : tensor<1x4x4x16xbf16>, tensor<1x4x3x16xbf16>
  // _attn: matmul(query, key.transpose(-1, -2)) / torch.full([], 16 ** 1.0)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x16xbf16>
  %w0 = poot.matmul %q, %kt : tensor<1x4x3x16xbf16>, tensor<1x4x16x7xbf16>
  %dpow = poot.constant dense<16.0> : tensor<bf16>
  %w1 = poot.div %w0, %dpow : tensor<1x4x3x7xbf16>, tensor<bf16>
  // causal_mask = self.bias[:, :, 4:7, :7]; where(causal_mask, w, finfo(bf16).min)
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false], [true, true, true, false, false, false, false, false], [true, true, true, true, false, false, false, false], [true, true, true, true, true, false, false, false], [true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true]]]]> : tensor<1x1x8x8xi1>
  %cmask = poot.slice %bias {start = array<i64: 0, 0, 4, 0>, limit = array<i64: 1, 1, 7, 7>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x8x8xi1>
  %minv = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %w2 = poot.select %cmask, %w1, %minv : tensor<1x1x3x7xi1>, tensor<1x4x3x7xbf16>, tensor<bf16>
  // attn_weights += position_bias.type_as(attn_weights).unsqueeze(0)
  %pb = poot.convert %alibi : tensor<4x3x7xf32> -> tensor<4x3x7xbf16>
  %pb4 = poot.reshape %pb : tensor<4x3x7xbf16> -> tensor<1x4x3x7xbf16>
  %w3 = poot.add %w2, %pb4 : tensor<1x4x3x7xbf16>, tensor<1x4x3x7xbf16>
  // nn.functional.softmax(attn_weights, dim=-1): f32 accumulation, bf16 out
  %xf = poot.convert %w3 : tensor<1x4x3x7xbf16> -> tensor<1x4x3x7xf32>
  %mx = poot.reduce_max %xf {axis = 3 : i64, keepdim} : tensor<1x4x3x7xf32>
  %d = poot.sub %xf, %mx : tensor<1x4x3x7xf32>, tensor<1x4x3x1xf32>
  %e = poot.exp %d : tensor<1x4x3x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x7xf32>
  %pf = poot.div %e, %z : tensor<1x4x3x7xf32>, tensor<1x4x3x1xf32>
  %p = poot.convert %pf : tensor<1x4x3x7xf32> -> tensor<1x4x3x7xbf16>
  // attn_output = torch.matmul(attn_weights, value); _merge_heads
  %o = poot.matmul %p, %v : tensor<1x4x3x7xbf16>, tensor<1x4x7x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x3x16xbf16>
  %out = poot.reshape %ot : tensor<1x3x4x16xbf16> -> tensor<1x3x64xbf16>
  return %out : tensor<1x3x64xbf16>
}
