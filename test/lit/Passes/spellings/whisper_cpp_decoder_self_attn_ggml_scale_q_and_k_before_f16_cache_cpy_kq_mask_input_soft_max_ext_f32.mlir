// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// ggerganov/whisper.cpp at f0d2bfb, src/whisper.cpp whisper_build_graph_decoder,
// the text decoder's self-attention with flash_attn off, as the CPU backend
// computes it (ggml/src/ggml-cpu: mul_mat, soft_max_f32), layer 0, f32
// activations. KQscale = pow(float(n_state_head), -0.25); Qcur =
// ggml_scale(attn_q_w * cur + attn_q_b, KQscale); Kcur = ggml_scale(attn_k_w
// * cur, KQscale) (no key bias); Vcur = attn_v_w * cur + attn_v_b (the
// three projections left outside: their outputs are the inputs, [n_tokens,
// n_state] row-major). The KV store: k = ggml_view_1d(kv_self.k, n_tokens *
// n_state, at row kv_head), ggml_cpy(Kcur, k); Vcur = ggml_transpose(
// ggml_reshape_2d(Vcur, n_state, n_tokens)), v = ggml_view_2d(kv_self.v,
// n_tokens, n_state, row stride n_ctx, at column kv_head), ggml_cpy(Vcur,
// v); the cache is wctx.itype = GGML_TYPE_F16 (so each cpy rounds to f16),
// K stored as [n_ctx, n_state] and V transposed as [n_state, n_ctx].
// kv_head is the slot whisper_kv_cache_find_slot chose (an input here).
// Q = ggml_permute(ggml_reshape_3d(Qcur, n_state_head, n_head, n_tokens),
// 0, 2, 1, 3) ([H, n_tokens, D]); K = ggml_view_3d(kv_self.k,
// n_state_head, n_kv, n_head, nb1 = n_state, nb2 = n_state_head) ([H, n_kv,
// D] read from [n_kv, H, D]); KQ = ggml_mul_mat(K, Q): src0 F16, so src1
// (Q) is converted to the vec_dot_type F16 row by row and the dots run in
// f32, [H, n_tokens, n_kv]; KQ_soft_max = ggml_soft_max_ext(KQ, KQ_mask,
// 1.0f, 0.0f): per row wp = KQ * 1.0 + 1.0 * mask row (i1 % n_tokens),
// max, exp(wp - max) summed, sum = 1.0 / sum, dp *= sum. KQ_mask is the
// graph input [1, GGML_PAD(n_tokens, GGML_KQ_MASK_PAD = 64), n_kv] f32 the
// host fills with 0 or -INFINITY (cell not of the sequence or cells[i].pos
// > pos), its padding rows never read. V = ggml_view_3d(kv_self.v, n_kv,
// n_state_head, n_head, nb1 = n_ctx, nb2 = n_ctx * n_state_head) ([H, D,
// n_kv]); KQV = ggml_mul_mat(V, KQ_soft_max) (the probabilities rounded to
// F16 the same way); KQV_merged = ggml_permute(KQV, 0, 2, 1, 3);
// ggml_cont_2d(KQV_merged, n_state, n_tokens). n_state = 64, n_head = 4
// (D = 16, KQscale = 0.5), n_tokens = 3, n_ctx = kv_self.size = 16, so n_kv
// = min(size, max(32, GGML_PAD(cell_max, 32))) = 16; kv_head in [0, 14).
//
// Strongest form: the mask is host data, so poot.attention over the updated
// f16 caches with the first n_tokens rows of KQ_mask as a tensor mask:
// poot.attention q, k, v mask(.. : tensor<1x1x3x16xf32>) {n_rep = 1,
// scale = 1}, q being Q as mul_mat reads it, f16(Qcur * KQscale): the
// KQscale on Q sits inside that f16 rounding, where taking it out is not
// exact (f16 subnormals), and the KQscale on Kcur reaches only the rows
// written this step, so it is no factor of the keys the product reads.
// Nothing proves a row keeps a key (no zero_empty_rows; ggml gives NaN on
// such a row, as the plain fused op does).

// Oracle note: the f64 oracle does not round the f16 cache writes of Kcur
// and Vcur (nor Q and the probabilities mul_mat rounds to f16), which
// whisper.cpp's F16 cache (wctx.itype) does, so this f32 result is held to
// f16's tolerance, the narrowest type the graph stores a value in. The
// fused outputs (result and both caches) equal the unfused f32 run bit for
// bit.

// Reached (the fused form is the unfused graph's f32 result exactly):
// CHECK-LABEL: func.func @whisper_cpp_decoder_self_attn_ggml_scale_q_and_k_before_f16_cache_cpy_kq_mask_input_soft_max_ext_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x1x3x16xf32>) {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, tensor mask{{$}}
func.func @whisper_cpp_decoder_self_attn_ggml_scale_q_and_k_before_f16_cache_cpy_kq_mask_input_soft_max_ext_f32(
    %q_proj: tensor<3x64xf32>, %k_proj: tensor<3x64xf32>, %v_proj: tensor<3x64xf32>,
    %kv_k: tensor<16x64xf16> {poot.state = "kv_self_k"},
    %kv_v: tensor<64x16xf16> {poot.state = "kv_self_v"},
    %KQ_mask: tensor<1x64x16xf32> {poot.name = "KQ_mask"},
    %kv_head: tensor<i32> {poot.name = "kv_head", poot.range = array<i64: 0, 14>})
    -> (tensor<3x64xf32>, tensor<16x64xf16> {poot.state = "kv_self_k"},
        tensor<64x16xf16> {poot.state = "kv_self_v"}) {
  // Qcur = ggml_scale(ctx0, Qcur, KQscale); Kcur = ggml_scale(ctx0, Kcur, KQscale)
  %KQscale = poot.constant dense<0.5> : tensor<f32>
  %Qcur = poot.mul %q_proj, %KQscale : tensor<3x64xf32>, tensor<f32>
  %Kcur = poot.mul %k_proj, %KQscale : tensor<3x64xf32>, tensor<f32>
  // Vcur = ggml_transpose(ctx0, ggml_reshape_2d(ctx0, Vcur, n_state, n_tokens))
  %Vcur = poot.transpose %v_proj {perm = array<i64: 1, 0>} : tensor<3x64xf32>
  // ggml_cpy(ctx0, Kcur, k): k = ggml_view_1d(kv_self.k, n_tokens*n_state, at kv_head rows)
  %z = poot.constant dense<0> : tensor<i32>
  %K16 = poot.convert %Kcur : tensor<3x64xf32> -> tensor<3x64xf16>
  %kv_k1 = poot.dynamic_update_slice %kv_k[%kv_head, %z], %K16 : tensor<16x64xf16>, tensor<3x64xf16>, tensor<i32>, tensor<i32>
  // ggml_cpy(ctx0, Vcur, v): v = ggml_view_2d(kv_self.v, n_tokens, n_state, n_ctx*el, at column kv_head)
  %V16 = poot.convert %Vcur : tensor<64x3xf32> -> tensor<64x3xf16>
  %kv_v1 = poot.dynamic_update_slice %kv_v[%z, %kv_head], %V16 : tensor<64x16xf16>, tensor<64x3xf16>, tensor<i32>, tensor<i32>
  // Q = ggml_permute(ctx0, ggml_reshape_3d(ctx0, Qcur, n_state_head, n_head, n_tokens), 0, 2, 1, 3)
  %Q3 = poot.reshape %Qcur : tensor<3x64xf32> -> tensor<3x4x16xf32>
  %Q = poot.transpose %Q3 {perm = array<i64: 1, 0, 2>} : tensor<3x4x16xf32>
  // K = ggml_view_3d(ctx0, kv_self.k, n_state_head, n_kv, n_head, el*n_state, el*n_state_head, 0)
  %Kc = poot.reshape %kv_k1 : tensor<16x64xf16> -> tensor<16x4x16xf16>
  %K = poot.transpose %Kc {perm = array<i64: 1, 0, 2>} : tensor<16x4x16xf16>
  // KQ = ggml_mul_mat(ctx0, K, Q): src1 to vec_dot_type F16, f32 dot products
  %Q16 = poot.convert %Q : tensor<4x3x16xf32> -> tensor<4x3x16xf16>
  %Qd = poot.convert %Q16 : tensor<4x3x16xf16> -> tensor<4x3x16xf32>
  %Kd = poot.convert %K : tensor<4x16x16xf16> -> tensor<4x16x16xf32>
  %Kt = poot.transpose %Kd {perm = array<i64: 0, 2, 1>} : tensor<4x16x16xf32>
  %KQ = poot.matmul %Qd, %Kt : tensor<4x3x16xf32>, tensor<4x16x16xf32>
  // KQ_soft_max = ggml_soft_max_ext(ctx0, KQ, KQ_mask, 1.0f, 0.0f)
  %scale = poot.constant dense<1.0> : tensor<f32>
  %wp0 = poot.mul %KQ, %scale : tensor<4x3x16xf32>, tensor<f32>
  %mrows = poot.slice %KQ_mask {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 3, 16>, step = array<i64: 1, 1, 1>} : tensor<1x64x16xf32>
  %slope = poot.constant dense<1.0> : tensor<f32>
  %ms = poot.mul %mrows, %slope : tensor<1x3x16xf32>, tensor<f32>
  %wp = poot.add %wp0, %ms : tensor<4x3x16xf32>, tensor<1x3x16xf32>
  %max = poot.reduce_max %wp {axis = 2 : i64, keepdim} : tensor<4x3x16xf32>
  %d = poot.sub %wp, %max : tensor<4x3x16xf32>, tensor<4x3x1xf32>
  %dp = poot.exp %d : tensor<4x3x16xf32>
  %sum = poot.reduce_sum %dp {axis = 2 : i64, keepdim} : tensor<4x3x16xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rsum = poot.div %one, %sum : tensor<f32>, tensor<4x3x1xf32>
  %sm = poot.mul %dp, %rsum : tensor<4x3x16xf32>, tensor<4x3x1xf32>
  // V = ggml_view_3d(ctx0, kv_self.v, n_kv, n_state_head, n_head, n_ctx*el, n_ctx*el*n_state_head, 0)
  %V = poot.reshape %kv_v1 : tensor<64x16xf16> -> tensor<4x16x16xf16>
  // KQV = ggml_mul_mat(ctx0, V, KQ_soft_max): src1 to F16, f32 dot products
  %P16 = poot.convert %sm : tensor<4x3x16xf32> -> tensor<4x3x16xf16>
  %Pd = poot.convert %P16 : tensor<4x3x16xf16> -> tensor<4x3x16xf32>
  %Vd = poot.convert %V : tensor<4x16x16xf16> -> tensor<4x16x16xf32>
  %Vt = poot.transpose %Vd {perm = array<i64: 0, 2, 1>} : tensor<4x16x16xf32>
  %KQV = poot.matmul %Pd, %Vt : tensor<4x3x16xf32>, tensor<4x16x16xf32>
  // KQV_merged = ggml_permute(ctx0, KQV, 0, 2, 1, 3); cur = ggml_cont_2d(ctx0, KQV_merged, n_state, n_tokens)
  %merged = poot.transpose %KQV {perm = array<i64: 1, 0, 2>} : tensor<4x3x16xf32>
  %cur = poot.reshape %merged : tensor<3x4x16xf32> -> tensor<3x64xf32>
  return %cur, %kv_k1, %kv_v1 : tensor<3x64xf32>, tensor<16x64xf16>, tensor<64x16xf16>
}
