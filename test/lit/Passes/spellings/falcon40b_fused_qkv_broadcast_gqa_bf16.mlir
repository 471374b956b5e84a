// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF FalconAttention with new_decoder_architecture (Falcon-40B): the fused
// qkv projection viewed [B, L, Hkv, n + 2, D]; query = qkv[..., :-2, :]
// reshaped to [B, L, Hkv * n, D]; key = qkv[..., [-2], :] and value =
// qkv[..., [-1], :] broadcast_to the query shape and flattened the same way
// (each key head read by the n query heads of its group, in order); the
// heads transposed first; scores = q @ k^T / sqrt(D) + the causal mask
// (select(t > i, finfo(bf16).min, 0)); softmax; @ v.
// B = 1, L = 4, Hkv = 2, n = 3, D = 32.

// CHECK-LABEL: func.func @falcon40b_fused_qkv_broadcast_gqa_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 3 : i64, scale = 0.1767{{[0-9]*}} : f64} : tensor<1x6x4x32xbf16>, tensor<1x2x4x32xbf16>, tensor<1x2x4x32xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 0.1767{{[0-9]*}}, causal
func.func @falcon40b_fused_qkv_broadcast_gqa_bf16(%qkv: tensor<1x4x2x5x32xbf16>) -> tensor<1x6x4x32xbf16> {
  %q5 = poot.slice %qkv {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 4, 2, 3, 32>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x2x5x32xbf16>
  %k5 = poot.slice %qkv {start = array<i64: 0, 0, 0, 3, 0>, limit = array<i64: 1, 4, 2, 4, 32>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x2x5x32xbf16>
  %v5 = poot.slice %qkv {start = array<i64: 0, 0, 0, 4, 0>, limit = array<i64: 1, 4, 2, 5, 32>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x2x5x32xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 4, 2, 3, 32>} : tensor<1x4x2x1x32xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 4, 2, 3, 32>} : tensor<1x4x2x1x32xbf16>
  %qf = poot.reshape %q5 : tensor<1x4x2x3x32xbf16> -> tensor<1x4x6x32xbf16>
  %kf = poot.reshape %kb : tensor<1x4x2x3x32xbf16> -> tensor<1x4x6x32xbf16>
  %vf = poot.reshape %vb : tensor<1x4x2x3x32xbf16> -> tensor<1x4x6x32xbf16>
  %qh = poot.transpose %qf {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x32xbf16>
  %kh = poot.transpose %kf {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x32xbf16>
  %vh = poot.transpose %vf {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x32xbf16>
  %kt = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<1x6x4x32xbf16>
  %s = poot.matmul %qh, %kt : tensor<1x6x4x32xbf16>, tensor<1x6x32x4xbf16>
  %sd = poot.constant dense<5.65625> : tensor<bf16>
  %ss = poot.div %s, %sd : tensor<1x6x4x4xbf16>, tensor<bf16>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x4x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x4xi32>
  %hid = poot.compare gt, %t, %i : tensor<1x1x1x4xi32>, tensor<1x1x4x1xi32>
  %min = poot.constant dense<0xFF7F> : tensor<bf16>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %cm = poot.select %hid, %min, %zero : tensor<1x1x4x4xi1>, tensor<bf16>, tensor<bf16>
  %sm = poot.add %ss, %cm : tensor<1x6x4x4xbf16>, tensor<1x1x4x4xbf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x6x4x4xbf16>
  %d = poot.sub %sm, %m : tensor<1x6x4x4xbf16>, tensor<1x6x4x1xbf16>
  %e = poot.exp %d : tensor<1x6x4x4xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x6x4x4xbf16>
  %p = poot.div %e, %z : tensor<1x6x4x4xbf16>, tensor<1x6x4x1xbf16>
  %o = poot.matmul %p, %vh : tensor<1x6x4x4xbf16>, tensor<1x6x4x32xbf16>
  return %o : tensor<1x6x4x32xbf16>
}
