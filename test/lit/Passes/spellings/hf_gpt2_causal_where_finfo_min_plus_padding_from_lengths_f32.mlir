// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: poot-run %t.mlir --set=lengths=3,9 --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --set=lengths=1,6 --check --ref=%s --quiet %}

// Hugging Face GPT-2 (eager, right padding from lengths): GPT2Attention.
// _attn takes the causal bias table, where(causal, w, finfo.min), after
// w = q @ k^T / sqrt(d), then adds the padding mask, (1.0 - mask[:, None,
// None, :]) * finfo.min with mask = arange(L) < lengths[:, None] as float,
// and normalises with softmax(dim=-1). Both fills are finfo.min: every
// row keeps key 0 (causal, lengths >= 1), so both stand for -inf, the
// band is causal and the padding is the live length. B = 2, heads = 2,
// L = 9, d = 16.
// CHECK-LABEL: func.func @hf_gpt2_causal_where_finfo_min_plus_padding_from_lengths_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} len(%arg3 : tensor<2xi64>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x2x9x16xf32>, tensor<2x2x9x16xf32>, tensor<2x2x9x16xf32> -> tensor<2x2x9x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal, live length; the live length read from the scores' mask alone (keys past it are not read){{$}}
func.func @hf_gpt2_causal_where_finfo_min_plus_padding_from_lengths_f32(
    %q: tensor<2x2x9x16xf32>, %k: tensor<2x2x9x16xf32>, %v: tensor<2x2x9x16xf32>,
    %lengths: tensor<2xi64> {poot.name = "lengths", poot.range = array<i64: 1, 10>}) -> tensor<2x2x9x16xf32> {
  // the padding mask
  %ar = poot.iota {dim = 1 : i64} : tensor<2x9xi64>
  %len = poot.reshape %lengths : tensor<2xi64> -> tensor<2x1xi64>
  %keep = poot.compare lt, %ar, %len : tensor<2x9xi64>, tensor<2x1xi64>
  %am = poot.convert %keep : tensor<2x9xi1> -> tensor<2x9xf32>
  %am4 = poot.reshape %am : tensor<2x9xf32> -> tensor<2x1x1x9xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %am4 : tensor<f32>, tensor<2x1x1x9xf32>
  %min = poot.constant dense<-3.40282347e+38> : tensor<f32>
  %pad = poot.mul %inv, %min : tensor<2x1x1x9xf32>, tensor<f32>
  // the causal bias table: tril(ones(L, L)) as bool
  %r = poot.iota {dim = 0 : i64} : tensor<9x9xi64>
  %c = poot.iota {dim = 1 : i64} : tensor<9x9xi64>
  %causal = poot.compare le, %c, %r : tensor<9x9xi64>, tensor<9x9xi64>
  // _attn
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x9x16xf32>
  %w0 = poot.matmul %q, %kt : tensor<2x2x9x16xf32>, tensor<2x2x16x9xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %w1 = poot.div %w0, %sq : tensor<2x2x9x9xf32>, tensor<f32>
  %w2 = poot.select %causal, %w1, %min : tensor<9x9xi1>, tensor<2x2x9x9xf32>, tensor<f32>
  %w3 = poot.add %w2, %pad : tensor<2x2x9x9xf32>, tensor<2x1x1x9xf32>
  %m = poot.reduce_max %w3 {axis = 3 : i64, keepdim} : tensor<2x2x9x9xf32>
  %d = poot.sub %w3, %m : tensor<2x2x9x9xf32>, tensor<2x2x9x1xf32>
  %e = poot.exp %d : tensor<2x2x9x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x9x9xf32>
  %p = poot.div %e, %z : tensor<2x2x9x9xf32>, tensor<2x2x9x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x9x9xf32>, tensor<2x2x9x16xf32>
  return %o : tensor<2x2x9x16xf32>
}
