// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers SegFormer (models/segformer/modeling_segformer.py,
// SegformerEfficientSelfAttention.forward, sr_ratio = 2), f32: the queries
// come from all 4 x 4 = 16 tokens, query = transpose_for_scores(query(h));
// the keys and values from a spatially reduced sequence: h.permute(0, 2, 1)
// .reshape(B, C, 4, 4); self.sr, a Conv2d(C, C, kernel_size=2, stride=2),
// written out as the non-overlapping 2 x 2 patches it reads times the
// kernel viewed [C, C * 2 * 2], plus its bias; .reshape(B, C, -1)
// .permute(0, 2, 1); nn.LayerNorm(C) (biased variance, eps 1e-5, weight and
// bias); key / value = transpose_for_scores(Linear(h_sr)). scores =
// matmul(q, k^T) / math.sqrt(head_size) (sqrt(8), not a power of two, so
// a division stays); softmax(dim=-1); matmul(probs, v); permute(0, 2, 1, 3)
// .view(B, 16, C). B = 1, C = 16, 2 heads of 8, Lq = 16, Lk = 4.

// CHECK-LABEL: func.func @hf_segformer_spatial_reduction_conv_keys_f32
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention {{.+}} {n_rep = 1 : i64, scale = 0.35355{{[0-9]*}} : f64} : tensor<1x2x16x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.353553{{$}}
func.func @hf_segformer_spatial_reduction_conv_keys_f32(
    %h: tensor<1x16x16xf32>, %wq: tensor<16x16xf32>, %bq: tensor<16xf32>,
    %wsr: tensor<16x16x2x2xf32>, %bsr: tensor<16xf32>,
    %lnw: tensor<16xf32>, %lnb: tensor<16xf32>,
    %wk: tensor<16x16xf32>, %bk: tensor<16xf32>,
    %wv: tensor<16x16xf32>, %bv: tensor<16xf32>) -> tensor<1x16x16xf32> {
  // query = transpose_for_scores(self.query(hidden_states))
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<16x16xf32>
  %q0 = poot.matmul %h, %wqt : tensor<1x16x16xf32>, tensor<16x16xf32>
  %q1 = poot.add %q0, %bq : tensor<1x16x16xf32>, tensor<16xf32>
  %q4 = poot.reshape %q1 : tensor<1x16x16xf32> -> tensor<1x16x2x8xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x2x8xf32>
  // hidden_states.permute(0, 2, 1).reshape(B, C, H, W)
  %hp = poot.transpose %h {perm = array<i64: 0, 2, 1>} : tensor<1x16x16xf32>
  %img = poot.reshape %hp : tensor<1x16x16xf32> -> tensor<1x16x4x4xf32>
  // self.sr: Conv2d(kernel 2, stride 2): out[o, y, x] = sum_{c, dy, dx}
  // w[o, c, dy, dx] * img[c, 2y + dy, 2x + dx] + b[o]
  %pat6 = poot.reshape %img : tensor<1x16x4x4xf32> -> tensor<1x16x2x2x2x2xf32>
  %patt = poot.transpose %pat6 {perm = array<i64: 0, 1, 3, 5, 2, 4>} : tensor<1x16x2x2x2x2xf32>
  %pat = poot.reshape %patt : tensor<1x16x2x2x2x2xf32> -> tensor<1x64x4xf32>
  %wsr2 = poot.reshape %wsr : tensor<16x16x2x2xf32> -> tensor<16x64xf32>
  %conv0 = poot.matmul %wsr2, %pat : tensor<16x64xf32>, tensor<1x64x4xf32>
  %bsr2 = poot.reshape %bsr : tensor<16xf32> -> tensor<16x1xf32>
  %conv = poot.add %conv0, %bsr2 : tensor<1x16x4xf32>, tensor<16x1xf32>
  %convi = poot.reshape %conv : tensor<1x16x4xf32> -> tensor<1x16x2x2xf32>
  // .reshape(B, C, -1).permute(0, 2, 1)
  %hs0 = poot.reshape %convi : tensor<1x16x2x2xf32> -> tensor<1x16x4xf32>
  %hs = poot.transpose %hs0 {perm = array<i64: 0, 2, 1>} : tensor<1x16x4xf32>
  // self.layer_norm(hidden_states)
  %nc = poot.constant dense<16.0> : tensor<f32>
  %eps = poot.constant dense<9.99999974E-6> : tensor<f32>
  %sum = poot.reduce_sum %hs {axis = 2 : i64, keepdim} : tensor<1x4x16xf32>
  %mean = poot.div %sum, %nc : tensor<1x4x1xf32>, tensor<f32>
  %xc = poot.sub %hs, %mean : tensor<1x4x16xf32>, tensor<1x4x1xf32>
  %xc2 = poot.mul %xc, %xc : tensor<1x4x16xf32>, tensor<1x4x16xf32>
  %vsum = poot.reduce_sum %xc2 {axis = 2 : i64, keepdim} : tensor<1x4x16xf32>
  %var = poot.div %vsum, %nc : tensor<1x4x1xf32>, tensor<f32>
  %ve = poot.add %var, %eps : tensor<1x4x1xf32>, tensor<f32>
  %rs = poot.rsqrt %ve : tensor<1x4x1xf32>
  %xn = poot.mul %xc, %rs : tensor<1x4x16xf32>, tensor<1x4x1xf32>
  %xw = poot.mul %xn, %lnw : tensor<1x4x16xf32>, tensor<16xf32>
  %hn = poot.add %xw, %lnb : tensor<1x4x16xf32>, tensor<16xf32>
  // key_layer / value_layer = transpose_for_scores(self.key / self.value(hs))
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<16x16xf32>
  %k0 = poot.matmul %hn, %wkt : tensor<1x4x16xf32>, tensor<16x16xf32>
  %k1 = poot.add %k0, %bk : tensor<1x4x16xf32>, tensor<16xf32>
  %k4 = poot.reshape %k1 : tensor<1x4x16xf32> -> tensor<1x4x2x8xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x8xf32>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<16x16xf32>
  %v0 = poot.matmul %hn, %wvt : tensor<1x4x16xf32>, tensor<16x16xf32>
  %v1 = poot.add %v0, %bv : tensor<1x4x16xf32>, tensor<16xf32>
  %v4 = poot.reshape %v1 : tensor<1x4x16xf32> -> tensor<1x4x2x8xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x8xf32>
  // attention_scores = matmul(q, k^T) / math.sqrt(attention_head_size)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x8xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x16x8xf32>, tensor<1x2x8x4xf32>
  %sq = poot.constant dense<2.82842708> : tensor<f32>
  %s = poot.div %s0, %sq : tensor<1x2x16x4xf32>, tensor<f32>
  // nn.functional.softmax(attention_scores, dim=-1)
  %mx = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x16x4xf32>
  %d = poot.sub %s, %mx : tensor<1x2x16x4xf32>, tensor<1x2x16x1xf32>
  %e = poot.exp %d : tensor<1x2x16x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x16x4xf32>
  %p = poot.div %e, %z : tensor<1x2x16x4xf32>, tensor<1x2x16x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x16x4xf32>, tensor<1x2x4x8xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x16x8xf32>
  %out = poot.reshape %ot : tensor<1x16x2x8xf32> -> tensor<1x16x16xf32>
  return %out : tensor<1x16x16xf32>
}
