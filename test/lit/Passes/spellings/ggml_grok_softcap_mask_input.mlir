// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// llama.cpp build_attn_mha (non-flash) for LLM_ARCH_GROK: kq = mul_mat(k, q)
// [H, Lq, Lk] (f32 precision); kq = ggml_tanh(ggml_scale(kq,
// 0.08838834764831845 / 30)); kq = ggml_scale(kq, 30); kq =
// ggml_soft_max_ext(kq, kq_mask, kq_scale = 1.0, max_bias = 0) with kq_mask
// the f32 graph input [GGML_PAD(n_tokens), n_kv] (rows past n_tokens unused);
// kqv = mul_mat(v_trans, kq); permute(0, 2, 1, 3); cont_2d [Lq, H*D].
// MHA, H = 2, Lq = 3 (mask padded to 4 rows), Lk = 6, D = 128.

// CHECK-LABEL: func.func @ggml_grok_softcap_mask_input
// 30 * tanh(kq * 0.0884 / 30) is the softcap 30 of the scores scaled by
// 0.0884: the scale folded into the tanh's factor is read back out.
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.*}} mask({{.*}}) {n_rep = 1 : i64, scale = 0.08838{{[0-9]+}} : f64, softcap = 3.000000e+01 : f64}
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.0883883, softcap 30, tensor mask
func.func @ggml_grok_softcap_mask_input(%q: tensor<2x3x128xf32>, %k: tensor<2x6x128xf32>,
                                        %vt: tensor<2x128x6xf32>, %kq_mask: tensor<4x6xf32>)
    -> tensor<3x256xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x6x128xf32>
  %kq = poot.matmul %q, %kt : tensor<2x3x128xf32>, tensor<2x128x6xf32>
  %a = poot.constant dense<0.00294627825> : tensor<f32>
  %kqs = poot.mul %kq, %a : tensor<2x3x6xf32>, tensor<f32>
  %th = poot.tanh %kqs : tensor<2x3x6xf32>
  %cap = poot.constant dense<30.0> : tensor<f32>
  %kqc = poot.mul %th, %cap : tensor<2x3x6xf32>, tensor<f32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %kq1 = poot.mul %kqc, %one : tensor<2x3x6xf32>, tensor<f32>
  %mrows = poot.slice %kq_mask {start = array<i64: 0, 0>, limit = array<i64: 3, 6>, step = array<i64: 1, 1>} : tensor<4x6xf32>
  %x = poot.add %kq1, %mrows : tensor<2x3x6xf32>, tensor<3x6xf32>
  %m = poot.reduce_max %x {axis = 2 : i64, keepdim} : tensor<2x3x6xf32>
  %d = poot.sub %x, %m : tensor<2x3x6xf32>, tensor<2x3x1xf32>
  %e = poot.exp %d : tensor<2x3x6xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x3x6xf32>
  %r = poot.div %one, %z : tensor<f32>, tensor<2x3x1xf32>
  %p = poot.mul %e, %r : tensor<2x3x6xf32>, tensor<2x3x1xf32>
  %v = poot.transpose %vt {perm = array<i64: 0, 2, 1>} : tensor<2x128x6xf32>
  %kqv = poot.matmul %p, %v : tensor<2x3x6xf32>, tensor<2x6x128xf32>
  %mg = poot.transpose %kqv {perm = array<i64: 1, 0, 2>} : tensor<2x3x128xf32>
  %o = poot.reshape %mg : tensor<3x2x128xf32> -> tensor<3x256xf32>
  return %o : tensor<3x256xf32>
}
