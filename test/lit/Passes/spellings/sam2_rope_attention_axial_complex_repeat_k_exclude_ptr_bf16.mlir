// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Meta SAM 2 (sam2/modeling/sam/transformer.py, RoPEAttention.forward as
// the memory attention's cross_attn_image, rope_k_repeat=True, and
// sam2/modeling/position_encoding.py, compute_axial_cis + apply_rotary_enc),
// bf16: after q_proj / k_proj / v_proj, _separate_heads (reshape(b, n, H,
// c // H).transpose(1, 2)); freqs_cis is the axial buffer built in
// __init__ (first half of the frequencies on t_x = t % end_x, second half
// on t_y = t // end_x, theta 10000, torch.polar), here its real and
// imaginary parts; the keys are 2 memory frames of the same 2 x 2 grid
// plus num_k_exclude_rope = 2 object-pointer tokens; apply_rotary_enc:
// view_as_complex(x.float().reshape(..., -1, 2)) times freqs_cis (complex
// multiply: (a c - b s, a s + b c)), view_as_real(...).flatten(3)
// .type_as(x); for k the table is repeated r = 8 // 4 times along the
// sequence (the non-CUDA spelling, freqs_cis.unsqueeze(2).expand(-1, -1, r,
// -1, -1).flatten(2, 3)) and only k[:, :, :8] is rotated, written back in
// place (the pointer tokens keep their values); F.scaled_dot_product_attention
// as the math kernel computes it (q and k^T times sqrt(scale) each,
// softmax, @ v); _recombine_heads. B = 1, 4 queries, 10 keys, 2 heads
// of 16.

// CHECK-LABEL: func.func @sam2_rope_attention_axial_complex_repeat_k_exclude_ptr_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "interleaved"}
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<1x2x4x16xbf16>, tensor<1x2x10x16xbf16>, tensor<1x2x10x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25{{$}}
func.func @sam2_rope_attention_axial_complex_repeat_k_exclude_ptr_bf16(
    %qp: tensor<1x4x32xbf16>, %kp: tensor<1x10x32xbf16>, %vp: tensor<1x10x32xbf16>)
    -> tensor<1x4x32xbf16> {
  // self.freqs_cis = compute_axial_cis(dim=16, end_x=2, end_y=2): real, imag
  %fc = poot.constant dense<[[1.00000000e+00, 1.00000000e+00, 1.00000000e+00, 1.00000000e+00, 1.00000000e+00, 1.00000000e+00, 1.00000000e+00, 1.00000000e+00], [5.40302277e-01, 9.95004177e-01, 9.99949992e-01, 9.99999523e-01, 1.00000000e+00, 1.00000000e+00, 1.00000000e+00, 1.00000000e+00], [1.00000000e+00, 1.00000000e+00, 1.00000000e+00, 1.00000000e+00, 5.40302277e-01, 9.95004177e-01, 9.99949992e-01, 9.99999523e-01], [5.40302277e-01, 9.95004177e-01, 9.99949992e-01, 9.99999523e-01, 5.40302277e-01, 9.95004177e-01, 9.99949992e-01, 9.99999523e-01]]> : tensor<4x8xf32>
  %fs = poot.constant dense<[[0.00000000e+00, 0.00000000e+00, 0.00000000e+00, 0.00000000e+00, 0.00000000e+00, 0.00000000e+00, 0.00000000e+00, 0.00000000e+00], [8.41470957e-01, 9.98334214e-02, 9.99983307e-03, 9.99999931e-04, 0.00000000e+00, 0.00000000e+00, 0.00000000e+00, 0.00000000e+00], [0.00000000e+00, 0.00000000e+00, 0.00000000e+00, 0.00000000e+00, 8.41470957e-01, 9.98334214e-02, 9.99983307e-03, 9.99999931e-04], [8.41470957e-01, 9.98334214e-02, 9.99983307e-03, 9.99999931e-04, 8.41470957e-01, 9.98334214e-02, 9.99983307e-03, 9.99999931e-04]]> : tensor<4x8xf32>
  // _separate_heads
  %q4 = poot.reshape %qp : tensor<1x4x32xbf16> -> tensor<1x4x2x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x16xbf16>
  %k4 = poot.reshape %kp : tensor<1x10x32xbf16> -> tensor<1x10x2x16xbf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x10x2x16xbf16>
  %v4 = poot.reshape %vp : tensor<1x10x32xbf16> -> tensor<1x10x2x16xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x10x2x16xbf16>
  // reshape_for_broadcast(freqs_cis, xq_): [1, 1, 4, 8]
  %cq = poot.reshape %fc : tensor<4x8xf32> -> tensor<1x1x4x8xf32>
  %sq = poot.reshape %fs : tensor<4x8xf32> -> tensor<1x1x4x8xf32>
  // xq_ = view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
  %qf = poot.convert %q : tensor<1x2x4x16xbf16> -> tensor<1x2x4x16xf32>
  %qc = poot.reshape %qf : tensor<1x2x4x16xf32> -> tensor<1x2x4x8x2xf32>
  %qre5 = poot.slice %qc {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x8x2xf32>
  %qim5 = poot.slice %qc {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 2, 4, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x8x2xf32>
  %qre = poot.reshape %qre5 : tensor<1x2x4x8x1xf32> -> tensor<1x2x4x8xf32>
  %qim = poot.reshape %qim5 : tensor<1x2x4x8x1xf32> -> tensor<1x2x4x8xf32>
  // xq_ * freqs_cis
  %qac = poot.mul %qre, %cq : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %qbs = poot.mul %qim, %sq : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %qor = poot.sub %qac, %qbs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  %qas = poot.mul %qre, %sq : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %qbc = poot.mul %qim, %cq : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %qoi = poot.add %qas, %qbc : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  // view_as_real(...).flatten(3).type_as(xq)
  %qor5 = poot.reshape %qor : tensor<1x2x4x8xf32> -> tensor<1x2x4x8x1xf32>
  %qoi5 = poot.reshape %qoi : tensor<1x2x4x8xf32> -> tensor<1x2x4x8x1xf32>
  %qst = poot.concat %qor5, %qoi5 {axis = 4 : i64} : tensor<1x2x4x8x1xf32>, tensor<1x2x4x8x1xf32>
  %qrf = poot.reshape %qst : tensor<1x2x4x8x2xf32> -> tensor<1x2x4x16xf32>
  %qr = poot.convert %qrf : tensor<1x2x4x16xf32> -> tensor<1x2x4x16xbf16>
  // k[:, :, :num_k_rope], freqs_cis repeated r = 2 times along the sequence
  %kh = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x10x16xbf16>
  %kptr = poot.slice %k {start = array<i64: 0, 0, 8, 0>, limit = array<i64: 1, 2, 10, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x10x16xbf16>
  %cq5 = poot.reshape %cq : tensor<1x1x4x8xf32> -> tensor<1x1x1x4x8xf32>
  %cqb = poot.broadcast %cq5 {shape = array<i64: 1, 1, 2, 4, 8>} : tensor<1x1x1x4x8xf32>
  %ck = poot.reshape %cqb : tensor<1x1x2x4x8xf32> -> tensor<1x1x8x8xf32>
  %sq5 = poot.reshape %sq : tensor<1x1x4x8xf32> -> tensor<1x1x1x4x8xf32>
  %sqb = poot.broadcast %sq5 {shape = array<i64: 1, 1, 2, 4, 8>} : tensor<1x1x1x4x8xf32>
  %sk = poot.reshape %sqb : tensor<1x1x2x4x8xf32> -> tensor<1x1x8x8xf32>
  %kf = poot.convert %kh : tensor<1x2x8x16xbf16> -> tensor<1x2x8x16xf32>
  %kc = poot.reshape %kf : tensor<1x2x8x16xf32> -> tensor<1x2x8x8x2xf32>
  %kre5 = poot.slice %kc {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 8, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x8x8x2xf32>
  %kim5 = poot.slice %kc {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 2, 8, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x8x8x2xf32>
  %kre = poot.reshape %kre5 : tensor<1x2x8x8x1xf32> -> tensor<1x2x8x8xf32>
  %kim = poot.reshape %kim5 : tensor<1x2x8x8x1xf32> -> tensor<1x2x8x8xf32>
  %kac = poot.mul %kre, %ck : tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>
  %kbs = poot.mul %kim, %sk : tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>
  %kor = poot.sub %kac, %kbs : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
  %kas = poot.mul %kre, %sk : tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>
  %kbc = poot.mul %kim, %ck : tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>
  %koi = poot.add %kas, %kbc : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>
  %kor5 = poot.reshape %kor : tensor<1x2x8x8xf32> -> tensor<1x2x8x8x1xf32>
  %koi5 = poot.reshape %koi : tensor<1x2x8x8xf32> -> tensor<1x2x8x8x1xf32>
  %kst = poot.concat %kor5, %koi5 {axis = 4 : i64} : tensor<1x2x8x8x1xf32>, tensor<1x2x8x8x1xf32>
  %krf = poot.reshape %kst : tensor<1x2x8x8x2xf32> -> tensor<1x2x8x16xf32>
  %krb = poot.convert %krf : tensor<1x2x8x16xf32> -> tensor<1x2x8x16xbf16>
  // k[:, :, :num_k_rope] = ... (in place)
  %kr = poot.concat %krb, %kptr {axis = 2 : i64} : tensor<1x2x8x16xbf16>, tensor<1x2x2x16xbf16>
  // F.scaled_dot_product_attention(q, k, v), math kernel
  %ssc = poot.constant dense<5.000000e-01> : tensor<bf16>
  %qs = poot.mul %qr, %ssc : tensor<1x2x4x16xbf16>, tensor<bf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x10x16xbf16>
  %kts = poot.mul %kt, %ssc : tensor<1x2x16x10xbf16>, tensor<bf16>
  %s = poot.matmul %qs, %kts : tensor<1x2x4x16xbf16>, tensor<1x2x16x10xbf16>
  %mx = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x4x10xbf16>
  %d = poot.sub %s, %mx : tensor<1x2x4x10xbf16>, tensor<1x2x4x1xbf16>
  %e = poot.exp %d : tensor<1x2x4x10xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x10xbf16>
  %p = poot.div %e, %z : tensor<1x2x4x10xbf16>, tensor<1x2x4x1xbf16>
  %o = poot.matmul %p, %v : tensor<1x2x4x10xbf16>, tensor<1x2x10x16xbf16>
  // _recombine_heads
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x16xbf16>
  %out = poot.reshape %ot : tensor<1x4x2x16xbf16> -> tensor<1x4x32xbf16>
  return %out : tensor<1x4x32xbf16>
}
