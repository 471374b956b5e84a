// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// llama.cpp build_attn_mha (non-flash) with GQA: q = permute(q_cur, 0, 2, 1,
// 3) [H, Lq, D]; kq = ggml_mul_mat(k, q) where k [Hkv, Lk, D] is broadcast
// over the query heads inside mul_mat (query head h reads key head
// h / (H / Hkv)), spelled here as q viewed [Hkv, H/Hkv, Lq, D] against k
// [Hkv, 1, Lk, D]; kq viewed [H, Lq, Lk]; ggml_soft_max_ext(kq, kq_mask,
// kq_scale = 1/sqrt(D), 0) with the f32 mask input [Lq, Lk]; kqv =
// mul_mat(v_trans, kq) with the transposed value cache [Hkv, D, Lk];
// permute(0, 2, 1, 3), cont_2d [Lq, H*D]. H = 4, Hkv = 2, Lq = 3, Lk = 12,
// D = 64.

// CHECK-LABEL: func.func @ggml_build_attn_gqa_broadcast
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x1x3x12xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.125, tensor mask
func.func @ggml_build_attn_gqa_broadcast(%q_cur: tensor<3x4x64xf32>, %k: tensor<2x12x64xf32>,
                                         %vt: tensor<2x64x12xf32>, %kq_mask: tensor<3x12xf32>)
    -> tensor<3x256xf32> {
  %q = poot.transpose %q_cur {perm = array<i64: 1, 0, 2>} : tensor<3x4x64xf32>
  %qg = poot.reshape %q : tensor<4x3x64xf32> -> tensor<2x2x3x64xf32>
  %k4 = poot.reshape %k : tensor<2x12x64xf32> -> tensor<2x1x12x64xf32>
  %kt = poot.transpose %k4 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x12x64xf32>
  %kq4 = poot.matmul %qg, %kt : tensor<2x2x3x64xf32>, tensor<2x1x64x12xf32>
  %kq = poot.reshape %kq4 : tensor<2x2x3x12xf32> -> tensor<4x3x12xf32>
  %sc = poot.constant dense<0.125> : tensor<f32>
  %kqs = poot.mul %kq, %sc : tensor<4x3x12xf32>, tensor<f32>
  %x = poot.add %kqs, %kq_mask : tensor<4x3x12xf32>, tensor<3x12xf32>
  %m = poot.reduce_max %x {axis = 2 : i64, keepdim} : tensor<4x3x12xf32>
  %d = poot.sub %x, %m : tensor<4x3x12xf32>, tensor<4x3x1xf32>
  %e = poot.exp %d : tensor<4x3x12xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x3x12xf32>
  %p = poot.div %e, %z : tensor<4x3x12xf32>, tensor<4x3x1xf32>
  %p4 = poot.reshape %p : tensor<4x3x12xf32> -> tensor<2x2x3x12xf32>
  %vt4 = poot.reshape %vt : tensor<2x64x12xf32> -> tensor<2x1x64x12xf32>
  %v = poot.transpose %vt4 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x64x12xf32>
  %kqv4 = poot.matmul %p4, %v : tensor<2x2x3x12xf32>, tensor<2x1x12x64xf32>
  %kqv = poot.reshape %kqv4 : tensor<2x2x3x64xf32> -> tensor<4x3x64xf32>
  %mg = poot.transpose %kqv {perm = array<i64: 1, 0, 2>} : tensor<4x3x64xf32>
  %o = poot.reshape %mg : tensor<3x4x64xf32> -> tensor<3x256xf32>
  return %o : tensor<3x256xf32>
}
