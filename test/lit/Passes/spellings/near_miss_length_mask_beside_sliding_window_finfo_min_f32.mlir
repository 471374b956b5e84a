// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: poot-run %t.mlir --set=lengths=2,9 --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --set=lengths=1,3 --check --ref=%s --quiet %}

// Near miss of the live length: a Mistral-style sliding window of 3 keys
// (causal, i - t < 3) and a right-padding mask from lengths, both filled
// with finfo.min (Hugging Face's eager path). A query row at or past
// lengths + 2 keeps no key in both masks: the graph spreads such a row's
// weight over the keys the finite fill hides, where -inf would give 0/0,
// so the fill cannot stand for -inf and the padding is no live length.
// CHECK-LABEL: func.func @near_miss_length_mask_beside_sliding_window_finfo_min_f32
// CHECK-NOT: len(
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x9x9xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: len(
func.func @near_miss_length_mask_beside_sliding_window_finfo_min_f32(
    %q: tensor<2x2x9x16xf32>, %k: tensor<2x2x9x16xf32>, %v: tensor<2x2x9x16xf32>,
    %lengths: tensor<2xi64> {poot.name = "lengths", poot.range = array<i64: 1, 10>}) -> tensor<2x2x9x16xf32> {
  %ar = poot.iota {dim = 1 : i64} : tensor<2x9xi64>
  %len = poot.reshape %lengths : tensor<2xi64> -> tensor<2x1xi64>
  %keep = poot.compare lt, %ar, %len : tensor<2x9xi64>, tensor<2x1xi64>
  %am = poot.convert %keep : tensor<2x9xi1> -> tensor<2x9xf32>
  %am4 = poot.reshape %am : tensor<2x9xf32> -> tensor<2x1x1x9xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %am4 : tensor<f32>, tensor<2x1x1x9xf32>
  %min = poot.constant dense<-3.40282347e+38> : tensor<f32>
  %pad = poot.mul %inv, %min : tensor<2x1x1x9xf32>, tensor<f32>
  // the sliding window: t <= i and i - t < 3
  %r = poot.iota {dim = 0 : i64} : tensor<9x9xi64>
  %c = poot.iota {dim = 1 : i64} : tensor<9x9xi64>
  %causal = poot.compare le, %c, %r : tensor<9x9xi64>, tensor<9x9xi64>
  %dist = poot.sub %r, %c : tensor<9x9xi64>, tensor<9x9xi64>
  %three = poot.constant dense<3> : tensor<i64>
  %near = poot.compare lt, %dist, %three : tensor<9x9xi64>, tensor<i64>
  %win = poot.and %causal, %near : tensor<9x9xi1>, tensor<9x9xi1>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %wmask = poot.select %win, %zero, %min : tensor<9x9xi1>, tensor<f32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x9x16xf32>
  %w0 = poot.matmul %q, %kt : tensor<2x2x9x16xf32>, tensor<2x2x16x9xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %w1 = poot.mul %w0, %sc : tensor<2x2x9x9xf32>, tensor<f32>
  %w2 = poot.add %w1, %wmask : tensor<2x2x9x9xf32>, tensor<9x9xf32>
  %w3 = poot.add %w2, %pad : tensor<2x2x9x9xf32>, tensor<2x1x1x9xf32>
  %m = poot.reduce_max %w3 {axis = 3 : i64, keepdim} : tensor<2x2x9x9xf32>
  %d = poot.sub %w3, %m : tensor<2x2x9x9xf32>, tensor<2x2x9x1xf32>
  %e = poot.exp %d : tensor<2x2x9x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x9x9xf32>
  %p = poot.div %e, %z : tensor<2x2x9x9xf32>, tensor<2x2x9x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x9x9xf32>, tensor<2x2x9x16xf32>
  return %o : tensor<2x2x9x16xf32>
}
