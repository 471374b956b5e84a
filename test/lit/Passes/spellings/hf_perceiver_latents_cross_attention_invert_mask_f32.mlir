// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers Perceiver (models/perceiver/modeling_perceiver.py,
// PerceiverModel.forward into the encoder's cross-attention layer,
// PerceiverSelfAttention.forward with is_cross_attention), f32: the queries
// are the learned latents, PerceiverEmbeddings: latents.expand(B, -1, -1)
// (one [N, d_latents] parameter for every batch row); layernorm1(latents),
// layernorm2(inputs) (nn.LayerNorm, eps 1e-5); queries = query(latents),
// keys / values = key / value(inputs), with qk_channels and v_channels
// differing (per head 16 and 32); transpose_for_scores; scores =
// matmul(q, k^T) / math.sqrt(q_head_dim) + inputs_mask, where inputs_mask
// is invert_attention_mask(attention_mask): attention_mask[:, None, None, :]
// .to(f32), (1.0 - m) * finfo(f32).min, m a float [B, S] input; Softmax(
// dim=-1); matmul(probs, v); permute(0, 2, 1, 3).view(B, N, heads * 32).
// B = 2, 4 latents of 32, 8 inputs of 24, 2 heads.

// CHECK-LABEL: func.func @hf_perceiver_latents_cross_attention_invert_mask_f32
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x2x4x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x32xf32>
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @hf_perceiver_latents_cross_attention_invert_mask_f32(
    %latents: tensor<4x32xf32>, %inputs: tensor<2x8x24xf32>, %am: tensor<2x8xf32>,
    %ln1w: tensor<32xf32>, %ln1b: tensor<32xf32>, %ln2w: tensor<24xf32>, %ln2b: tensor<24xf32>,
    %wq: tensor<32x32xf32>, %bq: tensor<32xf32>, %wk: tensor<32x24xf32>, %bk: tensor<32xf32>,
    %wv: tensor<64x24xf32>, %bv: tensor<64xf32>) -> tensor<2x4x64xf32> {
  %eps = poot.constant dense<9.99999974E-6> : tensor<f32>
  // self.embeddings(batch_size): latents.expand(batch_size, -1, -1)
  %lat3 = poot.reshape %latents : tensor<4x32xf32> -> tensor<1x4x32xf32>
  %lat = poot.broadcast %lat3 {shape = array<i64: 2, 4, 32>} : tensor<1x4x32xf32>
  // invert_attention_mask(attention_mask)
  %am4 = poot.reshape %am : tensor<2x8xf32> -> tensor<2x1x1x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %am4 : tensor<f32>, tensor<2x1x1x8xf32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %mask = poot.mul %inv, %fmin : tensor<2x1x1x8xf32>, tensor<f32>
  // self.layernorm1(hidden_states)
  %n32 = poot.constant dense<32.0> : tensor<f32>
  %s1 = poot.reduce_sum %lat {axis = 2 : i64, keepdim} : tensor<2x4x32xf32>
  %m1 = poot.div %s1, %n32 : tensor<2x4x1xf32>, tensor<f32>
  %c1 = poot.sub %lat, %m1 : tensor<2x4x32xf32>, tensor<2x4x1xf32>
  %c1s = poot.mul %c1, %c1 : tensor<2x4x32xf32>, tensor<2x4x32xf32>
  %v1s = poot.reduce_sum %c1s {axis = 2 : i64, keepdim} : tensor<2x4x32xf32>
  %v1 = poot.div %v1s, %n32 : tensor<2x4x1xf32>, tensor<f32>
  %v1e = poot.add %v1, %eps : tensor<2x4x1xf32>, tensor<f32>
  %r1 = poot.rsqrt %v1e : tensor<2x4x1xf32>
  %x1 = poot.mul %c1, %r1 : tensor<2x4x32xf32>, tensor<2x4x1xf32>
  %x1w = poot.mul %x1, %ln1w : tensor<2x4x32xf32>, tensor<32xf32>
  %hq = poot.add %x1w, %ln1b : tensor<2x4x32xf32>, tensor<32xf32>
  // self.layernorm2(inputs)
  %n24 = poot.constant dense<24.0> : tensor<f32>
  %s2 = poot.reduce_sum %inputs {axis = 2 : i64, keepdim} : tensor<2x8x24xf32>
  %m2 = poot.div %s2, %n24 : tensor<2x8x1xf32>, tensor<f32>
  %c2 = poot.sub %inputs, %m2 : tensor<2x8x24xf32>, tensor<2x8x1xf32>
  %c2s = poot.mul %c2, %c2 : tensor<2x8x24xf32>, tensor<2x8x24xf32>
  %v2s = poot.reduce_sum %c2s {axis = 2 : i64, keepdim} : tensor<2x8x24xf32>
  %v2 = poot.div %v2s, %n24 : tensor<2x8x1xf32>, tensor<f32>
  %v2e = poot.add %v2, %eps : tensor<2x8x1xf32>, tensor<f32>
  %r2 = poot.rsqrt %v2e : tensor<2x8x1xf32>
  %x2 = poot.mul %c2, %r2 : tensor<2x8x24xf32>, tensor<2x8x1xf32>
  %x2w = poot.mul %x2, %ln2w : tensor<2x8x24xf32>, tensor<24xf32>
  %hi = poot.add %x2w, %ln2b : tensor<2x8x24xf32>, tensor<24xf32>
  // queries = self.query(hidden_states); keys, values from the inputs
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<32x32xf32>
  %q0 = poot.matmul %hq, %wqt : tensor<2x4x32xf32>, tensor<32x32xf32>
  %q1 = poot.add %q0, %bq : tensor<2x4x32xf32>, tensor<32xf32>
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<32x24xf32>
  %k0 = poot.matmul %hi, %wkt : tensor<2x8x24xf32>, tensor<24x32xf32>
  %k1 = poot.add %k0, %bk : tensor<2x8x32xf32>, tensor<32xf32>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<64x24xf32>
  %v0 = poot.matmul %hi, %wvt : tensor<2x8x24xf32>, tensor<24x64xf32>
  %vv1 = poot.add %v0, %bv : tensor<2x8x64xf32>, tensor<64xf32>
  // transpose_for_scores
  %q4 = poot.reshape %q1 : tensor<2x4x32xf32> -> tensor<2x4x2x16xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x16xf32>
  %k4 = poot.reshape %k1 : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf32>
  %v4 = poot.reshape %vv1 : tensor<2x8x64xf32> -> tensor<2x8x2x32xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x32xf32>
  // matmul(queries, keys^T) / math.sqrt(q_head_dim) + attention_mask
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %sc0 = poot.matmul %q, %kt : tensor<2x2x4x16xf32>, tensor<2x2x16x8xf32>
  %four = poot.constant dense<4.0> : tensor<f32>
  %sc1 = poot.div %sc0, %four : tensor<2x2x4x8xf32>, tensor<f32>
  %sc = poot.add %sc1, %mask : tensor<2x2x4x8xf32>, tensor<2x1x1x8xf32>
  // nn.Softmax(dim=-1)
  %mx = poot.reduce_max %sc {axis = 3 : i64, keepdim} : tensor<2x2x4x8xf32>
  %d = poot.sub %sc, %mx : tensor<2x2x4x8xf32>, tensor<2x2x4x1xf32>
  %e = poot.exp %d : tensor<2x2x4x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x8xf32>
  %p = poot.div %e, %z : tensor<2x2x4x8xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x8xf32>, tensor<2x2x8x32xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x4x32xf32>
  %out = poot.reshape %ot : tensor<2x4x2x32xf32> -> tensor<2x4x64xf32>
  return %out : tensor<2x4x64xf32>
}
