// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers SeamlessM4T v2 speech encoder (models/seamless_m4t_v2/
// modeling_seamless_m4t_v2.py, SeamlessM4Tv2ConformerSelfAttention.forward
// with position_embeddings_type "relative_key", and
// SeamlessM4Tv2ConformerEncoder.forward / _apply_chunk_attention):
// attn_weights = q @ k^T / sqrt(head_size); distance = arange(Lk)[None] -
// arange(Lq)[:, None], clamp(-left_max, right_max), distance_embedding(
// distance + left_max) (a gather of the table) .to(q.dtype);
// einsum("bhld,lrd->bhlr", q, pe) (lowered by torch.einsum to a bmm batched
// over the query rows l) / sqrt(head_size) added to the weights. The mask:
// 1.0 - attention_mask[:, None, None, :].float() expanded to [B, 1, T, T];
// chunk_indices = torch.div(arange(T), chunk_size).long() (true division,
// then truncation); start = (chunk - left_chunk_num).clamp_(min=0) *
// chunk_size; end = ((chunk + 1) * chunk_size).clamp_(max=T); chunk_mask =
// (t < start) | (t >= end); attention_mask.bool() | chunk_mask, .to(f32),
// * finfo(f32).min; scores + mask; softmax; @ v. A key is visible from
// its own chunk and one chunk to the left (not a band), and a padding key
// may hide every key of a row: the mask stays a tensor, and so does the
// relative-key term. left_max = 3, right_max = 1, chunk_size = 2,
// left_chunk_num = 1; B = 2, H = 2, T = 6, head_size = 16.

// CHECK-LABEL: func.func @hf_seamless_m4t_v2_conformer_relative_key_clamped_distance_chunk_mask_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @hf_seamless_m4t_v2_conformer_relative_key_clamped_distance_chunk_mask_f32(
    %xq: tensor<2x6x32xf32>, %xk: tensor<2x6x32xf32>, %xv: tensor<2x6x32xf32>,
    %distance_embedding: tensor<5x16xf32>,
    %attention_mask: tensor<2x6xi64> {poot.range = array<i64: 0, 2>}) -> tensor<2x6x32xf32> {
  // SeamlessM4Tv2ConformerEncoder.forward: 1.0 - attention_mask[:, None, None, :], expanded
  %amf = poot.convert %attention_mask : tensor<2x6xi64> -> tensor<2x6xf32>
  %am4 = poot.reshape %amf : tensor<2x6xf32> -> tensor<2x1x1x6xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %onef, %am4 : tensor<f32>, tensor<2x1x1x6xf32>
  %invx = poot.broadcast %inv {shape = array<i64: 2, 1, 6, 6>} : tensor<2x1x1x6xf32>
  // _apply_chunk_attention
  %ar = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %arf = poot.convert %ar : tensor<6xi64> -> tensor<6xf32>
  %csf = poot.constant dense<2.0> : tensor<f32>
  %chf = poot.div %arf, %csf : tensor<6xf32>, tensor<f32>
  %chunk = poot.convert %chf : tensor<6xf32> -> tensor<6xi64>
  %lcn = poot.constant dense<1> : tensor<i64>
  %cs = poot.constant dense<2> : tensor<i64>
  %zero = poot.constant dense<0> : tensor<i64>
  %seq = poot.constant dense<6> : tensor<i64>
  %st0 = poot.sub %chunk, %lcn : tensor<6xi64>, tensor<i64>
  %st1 = poot.max %st0, %zero : tensor<6xi64>, tensor<i64>
  %start = poot.mul %st1, %cs : tensor<6xi64>, tensor<i64>
  %start2 = poot.reshape %start : tensor<6xi64> -> tensor<6x1xi64>
  %startx = poot.broadcast %start2 {shape = array<i64: 6, 6>} : tensor<6x1xi64>
  %en0 = poot.add %chunk, %lcn : tensor<6xi64>, tensor<i64>
  %en1 = poot.mul %en0, %cs : tensor<6xi64>, tensor<i64>
  %end = poot.min %en1, %seq : tensor<6xi64>, tensor<i64>
  %end2 = poot.reshape %end : tensor<6xi64> -> tensor<6x1xi64>
  %endx = poot.broadcast %end2 {shape = array<i64: 6, 6>} : tensor<6x1xi64>
  %idx0 = poot.reshape %ar : tensor<6xi64> -> tensor<1x6xi64>
  %idx = poot.broadcast %idx0 {shape = array<i64: 6, 6>} : tensor<1x6xi64>
  %before = poot.compare lt, %idx, %startx : tensor<6x6xi64>, tensor<6x6xi64>
  %after = poot.compare ge, %idx, %endx : tensor<6x6xi64>, tensor<6x6xi64>
  %cm0 = poot.or %before, %after : tensor<6x6xi1>, tensor<6x6xi1>
  %cm = poot.reshape %cm0 : tensor<6x6xi1> -> tensor<1x1x6x6xi1>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %padb = poot.compare ne, %invx, %zf : tensor<2x1x6x6xf32>, tensor<f32>
  %hid = poot.or %padb, %cm : tensor<2x1x6x6xi1>, tensor<1x1x6x6xi1>
  %hidf = poot.convert %hid : tensor<2x1x6x6xi1> -> tensor<2x1x6x6xf32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %mask = poot.mul %hidf, %fmin : tensor<2x1x6x6xf32>, tensor<f32>
  // linear_q / linear_k / linear_v viewed and transposed
  %q4 = poot.reshape %xq : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %k4 = poot.reshape %xk : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %v4 = poot.reshape %xv : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  // attn_weights = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(self.head_size)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %s = poot.div %s0, %sq : tensor<2x2x6x6xf32>, tensor<f32>
  // relative_key: distance = position_ids_r - position_ids_l, clamped
  %pl = poot.iota {dim = 0 : i64} : tensor<6x1xi64>
  %pr = poot.iota {dim = 1 : i64} : tensor<1x6xi64>
  %dist0 = poot.sub %pr, %pl : tensor<1x6xi64>, tensor<6x1xi64>
  %lmax = poot.constant dense<-3> : tensor<i64>
  %rmax = poot.constant dense<1> : tensor<i64>
  %dist1 = poot.max %dist0, %lmax : tensor<6x6xi64>, tensor<i64>
  %dist = poot.min %dist1, %rmax : tensor<6x6xi64>, tensor<i64>
  %off = poot.constant dense<3> : tensor<i64>
  %didx = poot.add %dist, %off : tensor<6x6xi64>, tensor<i64>
  %pe = poot.gather %distance_embedding[%didx] {axis = 0 : i64} : tensor<5x16xf32>, tensor<6x6xi64>
  // einsum("bhld,lrd->bhlr", query, positional_embedding): bmm over l
  %eq0 = poot.transpose %q {perm = array<i64: 2, 0, 1, 3>} : tensor<2x2x6x16xf32>
  %eq = poot.reshape %eq0 : tensor<6x2x2x16xf32> -> tensor<6x4x16xf32>
  %ep = poot.transpose %pe {perm = array<i64: 0, 2, 1>} : tensor<6x6x16xf32>
  %rel0 = poot.matmul %eq, %ep : tensor<6x4x16xf32>, tensor<6x16x6xf32>
  %rel1 = poot.reshape %rel0 : tensor<6x4x6xf32> -> tensor<6x2x2x6xf32>
  %rel2 = poot.transpose %rel1 {perm = array<i64: 1, 2, 0, 3>} : tensor<6x2x2x6xf32>
  %rel = poot.div %rel2, %sq : tensor<2x2x6x6xf32>, tensor<f32>
  %sr = poot.add %s, %rel : tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  // attn_weights + attention_mask; softmax(dim=-1); @ value
  %x = poot.add %sr, %mask : tensor<2x2x6x6xf32>, tensor<2x1x6x6xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %x, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %zs : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %o0 = poot.matmul %p, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  %o1 = poot.transpose %o0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x16xf32>
  %o = poot.reshape %o1 : tensor<2x6x2x16xf32> -> tensor<2x6x32xf32>
  return %o : tensor<2x6x32xf32>
}
