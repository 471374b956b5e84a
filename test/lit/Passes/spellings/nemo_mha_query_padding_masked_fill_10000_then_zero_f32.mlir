// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// NVIDIA NeMo (nemo/collections/asr/parts/submodules/
// multi_head_attention.py, MultiHeadAttention.forward without sdpa and
// forward_attention), with the Conformer encoder's full-context mask from
// ConformerEncoder._create_masks: pad_mask = arange(T) < length[:, None];
// pad_mask.unsqueeze(1).repeat([1, T, 1]) and-ed with its transpose(1, 2),
// so a padded frame hides every key of its own row; att_mask = ~that.
// scores = q @ k^T / s_d_k; mask.unsqueeze(1); scores.masked_fill(mask,
// -INF_VAL) with INF_VAL = 10000.0; softmax(dim=-1).masked_fill(mask,
// 0.0); @ v. On a padded query row every score is -10000, the softmax is
// uniform and the trailing masked_fill zeroes the whole row: the graph
// gives 0 there. On a row that keeps a key the -10000 fill's weights
// underflow to 0 (within the score bound the BERT convention relies on).
// The combined mask is the one mask and the trailing fill repeats it: the
// -inf tensor mask under zero_empty_rows, 0 on the padded rows as in the
// graph. B = 2, T = 6, H = 2, d_k = 16; length in [1, 6].
//
// Strongest form: the combined padding as a tensor mask, zero_empty_rows
// (the padded query rows are 0, which no live length gives).
// CHECK-LABEL: func.func @nemo_mha_query_padding_masked_fill_10000_then_zero_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.*}}zero_empty_rows}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; rows with no visible key are 0, as 'poot.select' at line {{[0-9]+}} makes them;
func.func @nemo_mha_query_padding_masked_fill_10000_then_zero_f32(
    %q0: tensor<2x6x32xf32>, %k0: tensor<2x6x32xf32>, %v0: tensor<2x6x32xf32>,
    %length: tensor<2xi64> {poot.range = array<i64: 1, 7>}) -> tensor<2x6x32xf32> {
  // _create_masks: pad_mask = arange(0, T).expand(B, -1) < padding_length.unsqueeze(-1)
  %ar = poot.iota {dim = 1 : i64} : tensor<2x6xi64>
  %len2 = poot.reshape %length : tensor<2xi64> -> tensor<2x1xi64>
  %pad = poot.compare lt, %ar, %len2 : tensor<2x6xi64>, tensor<2x1xi64>
  %pad3 = poot.reshape %pad : tensor<2x6xi1> -> tensor<2x1x6xi1>
  %padr = poot.broadcast %pad3 {shape = array<i64: 2, 6, 6>} : tensor<2x1x6xi1>
  %padt = poot.transpose %padr {perm = array<i64: 0, 2, 1>} : tensor<2x6x6xi1>
  %keep = poot.and %padr, %padt : tensor<2x6x6xi1>, tensor<2x6x6xi1>
  %mask = poot.not %keep : tensor<2x6x6xi1>
  // forward_qkv
  %q4 = poot.reshape %q0 : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %k4 = poot.reshape %k0 : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %v4 = poot.reshape %v0 : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  // scores = torch.matmul(q, k.transpose(-2, -1)) / self.s_d_k
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  %sdk = poot.constant dense<4.0> : tensor<f32>
  %scores = poot.div %s0, %sdk : tensor<2x2x6x6xf32>, tensor<f32>
  // forward_attention
  %m4 = poot.reshape %mask : tensor<2x6x6xi1> -> tensor<2x1x6x6xi1>
  %fill = poot.constant dense<-10000.0> : tensor<f32>
  %sm = poot.select %m4, %fill, %scores : tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x2x6x6xf32>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %sm, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %zs : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %attn = poot.select %m4, %zf, %p : tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x2x6x6xf32>
  %x = poot.matmul %attn, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  %xt = poot.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x16xf32>
  %o = poot.reshape %xt : tensor<2x6x2x16xf32> -> tensor<2x6x32xf32>
  return %o : tensor<2x6x32xf32>
}
