// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: poot-run %t.mlir --set=n_kv=5 --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --set=n_kv=17 --check --ref=%s --quiet %}

// A GGML-style decode graph over a fixed cache of 32 cells with one
// sequence: the KQ mask is built on the host as 0 for the n_kv filled
// cells and -INFINITY for the rest (one scalar n_kv, the cells past it
// never written), then ggml_soft_max_ext(kq, kq_mask, scale) adds it to the
// scaled scores before the softmax, and the weights multiply the whole V
// cache. Spelled here as select(cell < n_kv, 0, -inf) added to the
// scores, with n_kv a scalar. With 1 <= n_kv <= 32 proven it is the live
// length [n_kv]. GQA 8/2 heads, head width 64, f16.
// CHECK-LABEL: func.func @ggml_kq_mask_n_kv_single_batch_scalar_length_add_neg_inf_decode_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[LEN:.+]] = poot.reshape %arg3 : tensor<i32> -> tensor<1xi32>
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} len(%[[LEN]] : tensor<1xi32>) {n_rep = 4 : i64, scale = 1.250000e-01 : f64} : tensor<1x8x1x64xf16>, tensor<1x2x32x64xf16>, tensor<1x2x32x64xf16> -> tensor<1x8x1x64xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.125, live length; the live length read from the scores' mask alone (keys past it are not read){{$}}
func.func @ggml_kq_mask_n_kv_single_batch_scalar_length_add_neg_inf_decode_f16(
    %q: tensor<1x8x1x64xf16>, %kc: tensor<1x2x32x64xf16>, %vc: tensor<1x2x32x64xf16>,
    %n_kv: tensor<i32> {poot.name = "n_kv", poot.range = array<i64: 1, 33>}) -> tensor<1x8x1x64xf16> {
  // the host's KQ mask: 0 below n_kv, -inf past it
  %cell = poot.iota {dim = 3 : i64} : tensor<1x1x1x32xi32>
  %filled = poot.compare lt, %cell, %n_kv : tensor<1x1x1x32xi32>, tensor<i32>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %ninf = poot.constant dense<0xFC00> : tensor<f16>
  %mask = poot.select %filled, %zero, %ninf : tensor<1x1x1x32xi1>, tensor<f16>, tensor<f16>
  // repeat the 2 KV heads over their 4 query heads (ggml broadcasts them)
  %k5 = poot.reshape %kc : tensor<1x2x32x64xf16> -> tensor<1x2x1x32x64xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 4, 32, 64>} : tensor<1x2x1x32x64xf16>
  %k = poot.reshape %kb : tensor<1x2x4x32x64xf16> -> tensor<1x8x32x64xf16>
  %v5 = poot.reshape %vc : tensor<1x2x32x64xf16> -> tensor<1x2x1x32x64xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 4, 32, 64>} : tensor<1x2x1x32x64xf16>
  %v = poot.reshape %vb : tensor<1x2x4x32x64xf16> -> tensor<1x8x32x64xf16>
  // kq = ggml_mul_mat(k, q); ggml_soft_max_ext(kq, kq_mask, scale)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x32x64xf16>
  %kq = poot.matmul %q, %kt : tensor<1x8x1x64xf16>, tensor<1x8x64x32xf16>
  %sc = poot.constant dense<0.125> : tensor<f16>
  %s = poot.mul %kq, %sc : tensor<1x8x1x32xf16>, tensor<f16>
  %sm = poot.add %s, %mask : tensor<1x8x1x32xf16>, tensor<1x1x1x32xf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x8x1x32xf16>
  %d = poot.sub %sm, %m : tensor<1x8x1x32xf16>, tensor<1x8x1x1xf16>
  %e = poot.exp %d : tensor<1x8x1x32xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x8x1x32xf16>
  %p = poot.div %e, %z : tensor<1x8x1x32xf16>, tensor<1x8x1x1xf16>
  %o = poot.matmul %p, %v : tensor<1x8x1x32xf16>, tensor<1x8x32x64xf16>
  return %o : tensor<1x8x1x64xf16>
}
