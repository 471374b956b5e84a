// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// ggml-org/llama.cpp, the non-flash attention graph (llm_build_kqv in
// llama.cpp, later llm_graph_context::build_attn_mha in llama-graph.cpp)
// for a GQA model with an F16 K/V cache (v_trans), as the CPU backend
// computes it: f32 activations, n_head 8, n_head_kv 2, n_embd_head 32, a
// batch of n_tokens = 5 against n_kv = 16 cache cells (kv_size 16). q =
// ggml_permute(q_cur, 0, 2, 1, 3) ([H, n_tokens, D] row-major); k =
// ggml_view_3d(k_l, D, n_kv, n_head_kv, row(n_embd_k_gqa), row(D)) (the
// cache [kv_size, Hkv * D] read as [Hkv, n_kv, D]); kq = ggml_mul_mat(k, q):
// src0 F16, so src1 (q) is converted to the vec_dot_type F16 row by row and
// the dot products run in f32; query head h reads key head h / (8 / 2)
// (mul_mat broadcasts src0 over ne2); kq = ggml_soft_max_ext(kq, kq_mask,
// kq_scale = 1/sqrtf(32), max_bias = 0): per row, wp = kq * scale + slope *
// mask row (i1 % n_tokens) with slope 1.0 (max_bias 0), max, exp(wp - max)
// summed, sum = 1.0/sum, dp *= sum. kq_mask is the input of
// build_inp_KQ_mask, [GGML_PAD(n_tokens, GGML_KQ_MASK_PAD = 32), n_kv], 0 or
// -INFINITY as the host fills it; rows past n_tokens are never read. Without
// flash attention it is GGML_TYPE_F32: the F16 mask (ggml_cast to F16, read
// by soft_max_ext through GGML_FP16_TO_FP32) is built only for the
// flash-attention path, so the mask here is f32. The K/V store of the
// batch (llm_build_kv_store's ggml_cpy of k_cur, v_cur^T into the cache
// views) runs before; the caches are the inputs as stored. v =
// ggml_view_3d(v_l, n_kv, D, n_head_kv, el * n_ctx, el * n_ctx * D) (the
// transposed cache [Hkv * D, kv_size] read as [Hkv, D, n_kv]); kqv =
// ggml_mul_mat(v, kq) (kq converted to F16 for the F16 src0);
// ggml_permute(kqv, 0, 2, 1, 3); ggml_cont_2d(.., D * H, n_tokens).
//
// Strongest form: the mask is host data, so poot.attention q, k, v with the
// first n_tokens rows of kq_mask as a tensor mask, {n_rep = 4, scale =
// 1/sqrt(32)}; nothing proves a row keeps a key, so no zero_empty_rows
// (ggml gives 0 * inf = NaN on such a row, as the plain fused op's 0/0).

// CHECK-LABEL: func.func @llama_cpp_build_attn_mha_f16_kv_cache_views_vec_dot_f16_soft_max_ext_padded_mask_rows_recip_sum_gqa_broadcast_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x1x5x16xf32>) {n_rep = 4 : i64, scale = 0.17677669{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.176777, tensor mask{{$}}
func.func @llama_cpp_build_attn_mha_f16_kv_cache_views_vec_dot_f16_soft_max_ext_padded_mask_rows_recip_sum_gqa_broadcast_f32(
    %q_cur: tensor<5x8x32xf32>, %k_l: tensor<16x64xf16>, %v_l: tensor<64x16xf16>,
    %kq_mask: tensor<32x16xf32> {poot.name = "kq_mask"}) -> tensor<5x256xf32> {
  // q = ggml_permute(ctx0, q_cur, 0, 2, 1, 3)
  %q = poot.transpose %q_cur {perm = array<i64: 1, 0, 2>} : tensor<5x8x32xf32>
  // k = ggml_view_3d(ctx0, kv_self.k_l[il], n_embd_head_k, n_kv, n_head_kv, ...)
  %kc = poot.reshape %k_l : tensor<16x64xf16> -> tensor<16x2x32xf16>
  %k = poot.transpose %kc {perm = array<i64: 1, 0, 2>} : tensor<16x2x32xf16>
  // kq = ggml_mul_mat(ctx0, k, q): src1 to vec_dot_type F16, f32 dot products, src0 broadcast over heads
  %q16 = poot.convert %q : tensor<8x5x32xf32> -> tensor<8x5x32xf16>
  %qd = poot.convert %q16 : tensor<8x5x32xf16> -> tensor<8x5x32xf32>
  %kd = poot.convert %k : tensor<2x16x32xf16> -> tensor<2x16x32xf32>
  %qg = poot.reshape %qd : tensor<8x5x32xf32> -> tensor<2x4x5x32xf32>
  %kg = poot.reshape %kd : tensor<2x16x32xf32> -> tensor<2x1x16x32xf32>
  %kgt = poot.transpose %kg {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x16x32xf32>
  %kq4 = poot.matmul %qg, %kgt : tensor<2x4x5x32xf32>, tensor<2x1x32x16xf32>
  %kq = poot.reshape %kq4 : tensor<2x4x5x16xf32> -> tensor<8x5x16xf32>
  // kq = ggml_soft_max_ext(ctx0, kq, kq_mask, kq_scale, hparams.f_max_alibi_bias = 0)
  %scale = poot.constant dense<0.176776692> : tensor<f32>
  %wp = poot.mul %kq, %scale : tensor<8x5x16xf32>, tensor<f32>
  %mrows = poot.slice %kq_mask {start = array<i64: 0, 0>, limit = array<i64: 5, 16>, step = array<i64: 1, 1>} : tensor<32x16xf32>
  %slope = poot.constant dense<1.0> : tensor<f32>
  %ms = poot.mul %mrows, %slope : tensor<5x16xf32>, tensor<f32>
  %wm = poot.add %wp, %ms : tensor<8x5x16xf32>, tensor<5x16xf32>
  %max = poot.reduce_max %wm {axis = 2 : i64, keepdim} : tensor<8x5x16xf32>
  %d = poot.sub %wm, %max : tensor<8x5x16xf32>, tensor<8x5x1xf32>
  %dp = poot.exp %d : tensor<8x5x16xf32>
  %sum = poot.reduce_sum %dp {axis = 2 : i64, keepdim} : tensor<8x5x16xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rsum = poot.div %one, %sum : tensor<f32>, tensor<8x5x1xf32>
  %sm = poot.mul %dp, %rsum : tensor<8x5x16xf32>, tensor<8x5x1xf32>
  // v = ggml_view_3d(ctx0, kv_self.v_l[il], n_kv, n_embd_head_v, n_head_kv, ...) (v_trans)
  %v = poot.reshape %v_l : tensor<64x16xf16> -> tensor<2x32x16xf16>
  // kqv = ggml_mul_mat(ctx0, v, kq): kq to F16, f32 dot products, v broadcast over heads
  %p16 = poot.convert %sm : tensor<8x5x16xf32> -> tensor<8x5x16xf16>
  %pd = poot.convert %p16 : tensor<8x5x16xf16> -> tensor<8x5x16xf32>
  %vd = poot.convert %v : tensor<2x32x16xf16> -> tensor<2x32x16xf32>
  %pg = poot.reshape %pd : tensor<8x5x16xf32> -> tensor<2x4x5x16xf32>
  %vg = poot.reshape %vd : tensor<2x32x16xf32> -> tensor<2x1x32x16xf32>
  %vgt = poot.transpose %vg {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x32x16xf32>
  %kqv4 = poot.matmul %pg, %vgt : tensor<2x4x5x16xf32>, tensor<2x1x16x32xf32>
  %kqv = poot.reshape %kqv4 : tensor<2x4x5x32xf32> -> tensor<8x5x32xf32>
  // kqv_merged = ggml_permute(ctx0, kqv, 0, 2, 1, 3); cur = ggml_cont_2d(ctx0, kqv_merged, n_embd_head_v*n_head, n_tokens)
  %merged = poot.transpose %kqv {perm = array<i64: 1, 0, 2>} : tensor<8x5x32xf32>
  %cur = poot.reshape %merged : tensor<5x8x32xf32> -> tensor<5x256xf32>
  return %cur : tensor<5x256xf32>
}
