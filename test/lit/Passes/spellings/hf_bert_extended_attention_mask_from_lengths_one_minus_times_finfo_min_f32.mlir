// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: poot-run %t.mlir --set=lengths=2,12,5 --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --set=lengths=1,4,12 --check --ref=%s --quiet %}

// Hugging Face BERT-family encoders fed a padding mask built from lengths
// (a collator's arange(L)[None, :] < lengths[:, None], as a 0/1 float):
// ModuleUtilsMixin.get_extended_attention_mask gives
// (1.0 - mask[:, None, None, :]) * torch.finfo(dtype).min, and
// BertSelfAttention (eager) adds it to q @ k^T / sqrt(d_head) before
// nn.functional.softmax(dim=-1) and the product with v. The finfo.min
// fill is far below any score and every row keeps key 0 (lengths >= 1),
// so it stands for -inf, and the mask is the live length. B = 3, heads =
// 2, L = 12, d_head = 16.
// CHECK-LABEL: func.func @hf_bert_extended_attention_mask_from_lengths_one_minus_times_finfo_min_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} len(%arg3 : tensor<3xi64>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<3x2x12x16xf32>, tensor<3x2x12x16xf32>, tensor<3x2x12x16xf32> -> tensor<3x2x12x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, live length; the live length read from the scores' mask alone (keys past it are not read){{$}}
func.func @hf_bert_extended_attention_mask_from_lengths_one_minus_times_finfo_min_f32(
    %q: tensor<3x2x12x16xf32>, %k: tensor<3x2x12x16xf32>, %v: tensor<3x2x12x16xf32>,
    %lengths: tensor<3xi64> {poot.name = "lengths", poot.range = array<i64: 1, 13>}) -> tensor<3x2x12x16xf32> {
  // the collator's attention_mask, as float
  %ar = poot.iota {dim = 1 : i64} : tensor<3x12xi64>
  %len = poot.reshape %lengths : tensor<3xi64> -> tensor<3x1xi64>
  %keep = poot.compare lt, %ar, %len : tensor<3x12xi64>, tensor<3x1xi64>
  %am = poot.convert %keep : tensor<3x12xi1> -> tensor<3x12xf32>
  // get_extended_attention_mask
  %am4 = poot.reshape %am : tensor<3x12xf32> -> tensor<3x1x1x12xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %am4 : tensor<f32>, tensor<3x1x1x12xf32>
  %min = poot.constant dense<-3.40282347e+38> : tensor<f32>
  %ext = poot.mul %inv, %min : tensor<3x1x1x12xf32>, tensor<f32>
  // BertSelfAttention.forward (eager)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<3x2x12x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<3x2x12x16xf32>, tensor<3x2x16x12xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %s = poot.div %s0, %sq : tensor<3x2x12x12xf32>, tensor<f32>
  %sm = poot.add %s, %ext : tensor<3x2x12x12xf32>, tensor<3x1x1x12xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<3x2x12x12xf32>
  %d = poot.sub %sm, %m : tensor<3x2x12x12xf32>, tensor<3x2x12x1xf32>
  %e = poot.exp %d : tensor<3x2x12x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<3x2x12x12xf32>
  %p = poot.div %e, %z : tensor<3x2x12x12xf32>, tensor<3x2x12x1xf32>
  %o = poot.matmul %p, %v : tensor<3x2x12x12xf32>, tensor<3x2x12x16xf32>
  return %o : tensor<3x2x12x16xf32>
}
