// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers ESM-2 (models/esm/modeling_esm.py, EsmSelfAttention.forward
// with position_embedding_type = "rotary", the classic eager path): q, k, v =
// transpose_for_scores(.) ([B, L, H*D] viewed [B, L, H, D], permuted (0, 2,
// 1, 3)); query_layer = query_layer * head_size ** -0.5 BEFORE the rotary
// embedding; EsmRotaryEmbedding / apply_rotary_pos_emb: cos[:, :, :L] (cos,
// sin [1, 1, L, D] from cat((freqs, freqs), -1)), x * cos + rotate_half(x) *
// sin with rotate_half = cat((-x2, x1), -1) of x.chunk(2, -1); scores =
// q @ k^T + the extended mask (1.0 - mask[:, None, None, :].to(f32)) *
// finfo(f32).min (get_extended_attention_mask) from the int64 input mask;
// softmax(dim=-1); matmul(probs.to(v.dtype), v); permute back, view [B, L,
// H*D]. B = 2, L = 7, H = 4, D = 16, f32.

// Strongest form the graph allows: the 0.25 on q before the rotary moves
// after it (the rotary is linear) and becomes the scale; the padding mask is
// an input, so a tensor.
// CHECK-LABEL: func.func @esm_rotary_scale_before_rope_f32
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x7x7xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x7x16xf32>, tensor<2x4x7x16xf32>, tensor<2x4x7x16xf32> -> tensor<2x4x7x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @esm_rotary_scale_before_rope_f32(%xq: tensor<2x7x64xf32>, %xk: tensor<2x7x64xf32>,
                                            %xv: tensor<2x7x64xf32>, %cos0: tensor<1x1x7x16xf32>,
                                            %sin0: tensor<1x1x7x16xf32>,
                                            %am: tensor<2x7xi64> {poot.range = array<i64: 0, 1>}) -> tensor<2x7x64xf32> {
  %q4 = poot.reshape %xq : tensor<2x7x64xf32> -> tensor<2x7x4x16xf32>
  %q0 = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x4x16xf32>
  %k4 = poot.reshape %xk : tensor<2x7x64xf32> -> tensor<2x7x4x16xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x4x16xf32>
  %v4 = poot.reshape %xv : tensor<2x7x64xf32> -> tensor<2x7x4x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x4x16xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %q = poot.mul %q0, %sc : tensor<2x4x7x16xf32>, tensor<f32>
  %cos = poot.slice %cos0 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 7, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x7x16xf32>
  %sin = poot.slice %sin0 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 7, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x7x16xf32>
  %q1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 7, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x7x16xf32>
  %q2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 4, 7, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x7x16xf32>
  %nq2 = poot.neg %q2 : tensor<2x4x7x8xf32>
  %qrot = poot.concat %nq2, %q1 {axis = 3 : i64} : tensor<2x4x7x8xf32>, tensor<2x4x7x8xf32>
  %qa = poot.mul %q, %cos : tensor<2x4x7x16xf32>, tensor<1x1x7x16xf32>
  %qb = poot.mul %qrot, %sin : tensor<2x4x7x16xf32>, tensor<1x1x7x16xf32>
  %qe = poot.add %qa, %qb : tensor<2x4x7x16xf32>, tensor<2x4x7x16xf32>
  %k1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 7, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x7x16xf32>
  %k2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 4, 7, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x7x16xf32>
  %nk2 = poot.neg %k2 : tensor<2x4x7x8xf32>
  %krot = poot.concat %nk2, %k1 {axis = 3 : i64} : tensor<2x4x7x8xf32>, tensor<2x4x7x8xf32>
  %ka = poot.mul %k, %cos : tensor<2x4x7x16xf32>, tensor<1x1x7x16xf32>
  %kb = poot.mul %krot, %sin : tensor<2x4x7x16xf32>, tensor<1x1x7x16xf32>
  %ke = poot.add %ka, %kb : tensor<2x4x7x16xf32>, tensor<2x4x7x16xf32>
  %kt = poot.transpose %ke {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x7x16xf32>
  %s = poot.matmul %qe, %kt : tensor<2x4x7x16xf32>, tensor<2x4x16x7xf32>
  %am4 = poot.reshape %am : tensor<2x7xi64> -> tensor<2x1x1x7xi64>
  %amf = poot.convert %am4 : tensor<2x1x1x7xi64> -> tensor<2x1x1x7xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %amf : tensor<f32>, tensor<2x1x1x7xf32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %ext = poot.mul %inv, %min : tensor<2x1x1x7xf32>, tensor<f32>
  %sm = poot.add %s, %ext : tensor<2x4x7x7xf32>, tensor<2x1x1x7xf32>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x7x7xf32>
  %d = poot.sub %sm, %mx : tensor<2x4x7x7xf32>, tensor<2x4x7x1xf32>
  %e = poot.exp %d : tensor<2x4x7x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x7x7xf32>
  %p = poot.div %e, %z : tensor<2x4x7x7xf32>, tensor<2x4x7x1xf32>
  %c = poot.matmul %p, %v : tensor<2x4x7x7xf32>, tensor<2x4x7x16xf32>
  %ct = poot.transpose %c {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x7x16xf32>
  %o = poot.reshape %ct : tensor<2x7x4x16xf32> -> tensor<2x7x64xf32>
  return %o : tensor<2x7x64xf32>
}
