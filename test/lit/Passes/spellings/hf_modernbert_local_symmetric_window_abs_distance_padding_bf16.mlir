// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers ModernBERT (models/modernbert/modeling_modernbert.py as
// of 4.48, ModernBertModel._update_attention_mask and the eager
// ModernBertAttention), an encoder local-attention layer, bf16: the padding
// mask is _prepare_4d_attention_mask(attention_mask, bf16) (1.0 -
// mask[:, None, None, :].expand(B, 1, L, L), masked_fill where nonzero
// with finfo.min); rows = arange(L).unsqueeze(0), distance = abs(rows -
// rows.T), window_mask = (distance <= local_attention // 2)[None, None];
// sliding_window_mask = global_attention_mask.masked_fill(~window_mask,
// finfo.min). eager_attention_forward: qkv = Wqkv(h).view(B, -1, 3, H, D);
// query, key, value = qkv.transpose(3, 1).unbind(dim=2); rotate-half RoPE;
// matmul(q, k^T) * D^-0.5 + sliding_window_mask (local layer);
// softmax(dim=-1, dtype=f32).to(bf16); @ v; transpose(1, 2).view(B, -1,
// dim). The band |i - t| <= 2 is two-sided (no causal bound), which the
// fused op has no meaning for: it stays a tensor, as does the padding.
// B = 2, L = 8, H = 2, D = 16, local_attention = 4.

// CHECK-LABEL: func.func @hf_modernbert_local_symmetric_window_abs_distance_padding_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @hf_modernbert_local_symmetric_window_abs_distance_padding_bf16(
    %qkv0: tensor<2x8x96xbf16>, %cos0: tensor<2x8x16xbf16>, %sin0: tensor<2x8x16xbf16>,
    %attention_mask: tensor<2x8xi64> {poot.range = array<i64: 0, 2>}) -> tensor<2x8x32xbf16> {
  // _prepare_4d_attention_mask
  %am4 = poot.reshape %attention_mask : tensor<2x8xi64> -> tensor<2x1x1x8xi64>
  %amb = poot.broadcast %am4 {shape = array<i64: 2, 1, 8, 8>} : tensor<2x1x1x8xi64>
  %amf = poot.convert %amb : tensor<2x1x8x8xi64> -> tensor<2x1x8x8xbf16>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %inv = poot.sub %one, %amf : tensor<bf16>, tensor<2x1x8x8xbf16>
  %invb = poot.convert %inv : tensor<2x1x8x8xbf16> -> tensor<2x1x8x8xi1>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %global = poot.select %invb, %min, %inv : tensor<2x1x8x8xi1>, tensor<bf16>, tensor<2x1x8x8xbf16>
  // distance = abs(rows - rows.T); window_mask = distance <= 2
  %ar = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %rows = poot.reshape %ar : tensor<8xi64> -> tensor<1x8xi64>
  %rowsT = poot.transpose %rows {perm = array<i64: 1, 0>} : tensor<1x8xi64>
  %dd = poot.sub %rows, %rowsT : tensor<1x8xi64>, tensor<8x1xi64>
  %dist = poot.abs %dd : tensor<8x8xi64>
  %half = poot.constant dense<2> : tensor<i64>
  %win = poot.compare le, %dist, %half : tensor<8x8xi64>, tensor<i64>
  %win4 = poot.reshape %win : tensor<8x8xi1> -> tensor<1x1x8x8xi1>
  %nwin = poot.not %win4 : tensor<1x1x8x8xi1>
  %sliding = poot.select %nwin, %min, %global : tensor<1x1x8x8xi1>, tensor<bf16>, tensor<2x1x8x8xbf16>
  // qkv.view(B, -1, 3, H, D).transpose(3, 1).unbind(dim=2)
  %qkv = poot.reshape %qkv0 : tensor<2x8x96xbf16> -> tensor<2x8x3x2x16xbf16>
  %qkvt = poot.transpose %qkv {perm = array<i64: 0, 3, 2, 1, 4>} : tensor<2x8x3x2x16xbf16>
  %q5 = poot.slice %qkvt {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 2, 2, 1, 8, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x2x3x8x16xbf16>
  %k5 = poot.slice %qkvt {start = array<i64: 0, 0, 1, 0, 0>, limit = array<i64: 2, 2, 2, 8, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x2x3x8x16xbf16>
  %v5 = poot.slice %qkvt {start = array<i64: 0, 0, 2, 0, 0>, limit = array<i64: 2, 2, 3, 8, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x2x3x8x16xbf16>
  %q = poot.reshape %q5 : tensor<2x2x1x8x16xbf16> -> tensor<2x2x8x16xbf16>
  %k = poot.reshape %k5 : tensor<2x2x1x8x16xbf16> -> tensor<2x2x8x16xbf16>
  %v = poot.reshape %v5 : tensor<2x2x1x8x16xbf16> -> tensor<2x2x8x16xbf16>
  %cos = poot.reshape %cos0 : tensor<2x8x16xbf16> -> tensor<2x1x8x16xbf16>
  %sin = poot.reshape %sin0 : tensor<2x8x16xbf16> -> tensor<2x1x8x16xbf16>
  %qx1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x8x16xbf16>
  %qx2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 2, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x8x16xbf16>
  %qn2 = poot.neg %qx2 : tensor<2x2x8x8xbf16>
  %qrh = poot.concat %qn2, %qx1 {axis = 3 : i64} : tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>
  %qa = poot.mul %q, %cos : tensor<2x2x8x16xbf16>, tensor<2x1x8x16xbf16>
  %qbb = poot.mul %qrh, %sin : tensor<2x2x8x16xbf16>, tensor<2x1x8x16xbf16>
  %qe = poot.add %qa, %qbb : tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>
  %kx1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x8x16xbf16>
  %kx2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 2, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x8x16xbf16>
  %kn2 = poot.neg %kx2 : tensor<2x2x8x8xbf16>
  %krh = poot.concat %kn2, %kx1 {axis = 3 : i64} : tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>
  %ka = poot.mul %k, %cos : tensor<2x2x8x16xbf16>, tensor<2x1x8x16xbf16>
  %kbb = poot.mul %krh, %sin : tensor<2x2x8x16xbf16>, tensor<2x1x8x16xbf16>
  %ke = poot.add %ka, %kbb : tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>
  %kt = poot.transpose %ke {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xbf16>
  %s0 = poot.matmul %qe, %kt : tensor<2x2x8x16xbf16>, tensor<2x2x16x8xbf16>
  %sc = poot.constant dense<0.25> : tensor<bf16>
  %s = poot.mul %s0, %sc : tensor<2x2x8x8xbf16>, tensor<bf16>
  %sm = poot.add %s, %sliding : tensor<2x2x8x8xbf16>, tensor<2x1x8x8xbf16>
  %x = poot.convert %sm : tensor<2x2x8x8xbf16> -> tensor<2x2x8x8xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x8x8xf32>
  %d = poot.sub %x, %mx : tensor<2x2x8x8xf32>, tensor<2x2x8x1xf32>
  %e = poot.exp %d : tensor<2x2x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x8x8xf32>
  %p = poot.div %e, %z : tensor<2x2x8x8xf32>, tensor<2x2x8x1xf32>
  %pb = poot.convert %p : tensor<2x2x8x8xf32> -> tensor<2x2x8x8xbf16>
  %o = poot.matmul %pb, %v : tensor<2x2x8x8xbf16>, tensor<2x2x8x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x8x16xbf16>
  %out = poot.reshape %ot : tensor<2x8x2x16xbf16> -> tensor<2x8x32xbf16>
  return %out : tensor<2x8x32xbf16>
}
