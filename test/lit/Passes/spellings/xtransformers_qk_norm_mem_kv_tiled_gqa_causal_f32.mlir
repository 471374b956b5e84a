// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// lucidrains/x-transformers (x_transformers.py Attention.forward with
// attn_qk_norm=True, attn_num_mem_kv=2, attn_kv_heads=2, causal; attend.py
// Attend.forward, non-flash): qk norm is l2norm (F.normalize, x /
// max(||x||, 1e-12)) then q * qk_norm_q_scale, k * qk_norm_k_scale
// (learned per-channel), the attention scale becoming qk_norm_scale = 10;
// the memory key/values (params [kv_heads, 2, d]) are repeated over the
// batch, mem_k l2-normalised and scaled like k, and cat'd before the keys;
// Attend repeats the key/value heads 'b kvh n d -> b (r kvh) n d' (tiled:
// query head h reads key head h % 2); sim = einsum(q, k) * scale;
// causal_mask = ones((i, j), bool).triu(j - i + 1) with j = i + 2, so the
// memory columns stay visible; masked_fill(causal_mask, -finfo.max);
// softmax(dim=-1); einsum(attn, v). The memory slots are ordinary keys and
// values: keys t <= i + 2 of cat(mem, k). B = 1, 4 query heads over 2,
// n = 5, d = 16.

// CHECK-LABEL: func.func @xtransformers_qk_norm_mem_kv_tiled_gqa_causal_f32
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 2 : i64, scale = 1.000000e+01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 10, causal at offset 2; query heads regrouped by key head{{$}}
func.func @xtransformers_qk_norm_mem_kv_tiled_gqa_causal_f32(
    %q0: tensor<1x4x5x16xf32>, %k0: tensor<1x2x5x16xf32>, %v0: tensor<1x2x5x16xf32>,
    %q_scale: tensor<16xf32>, %k_scale: tensor<16xf32>,
    %mem_k: tensor<2x2x16xf32>, %mem_v: tensor<2x2x16xf32>) -> tensor<1x4x5x16xf32> {
  %eps = poot.constant dense<9.99999996E-13> : tensor<f32>
  // l2norm(q) * q_scale
  %qq = poot.mul %q0, %q0 : tensor<1x4x5x16xf32>, tensor<1x4x5x16xf32>
  %qs = poot.reduce_sum %qq {axis = 3 : i64, keepdim} : tensor<1x4x5x16xf32>
  %qn = poot.sqrt %qs : tensor<1x4x5x1xf32>
  %qc = poot.max %qn, %eps : tensor<1x4x5x1xf32>, tensor<f32>
  %ql = poot.div %q0, %qc : tensor<1x4x5x16xf32>, tensor<1x4x5x1xf32>
  %q = poot.mul %ql, %q_scale : tensor<1x4x5x16xf32>, tensor<16xf32>
  // l2norm(k) * k_scale
  %kk = poot.mul %k0, %k0 : tensor<1x2x5x16xf32>, tensor<1x2x5x16xf32>
  %ks = poot.reduce_sum %kk {axis = 3 : i64, keepdim} : tensor<1x2x5x16xf32>
  %kn = poot.sqrt %ks : tensor<1x2x5x1xf32>
  %kc = poot.max %kn, %eps : tensor<1x2x5x1xf32>, tensor<f32>
  %kl = poot.div %k0, %kc : tensor<1x2x5x16xf32>, tensor<1x2x5x1xf32>
  %k = poot.mul %kl, %k_scale : tensor<1x2x5x16xf32>, tensor<16xf32>
  // memory key / values: repeat 'h n d -> b h n d', l2norm(mem_k) * k_scale
  %mk4 = poot.reshape %mem_k : tensor<2x2x16xf32> -> tensor<1x2x2x16xf32>
  %mv4 = poot.reshape %mem_v : tensor<2x2x16xf32> -> tensor<1x2x2x16xf32>
  %mm = poot.mul %mk4, %mk4 : tensor<1x2x2x16xf32>, tensor<1x2x2x16xf32>
  %ms = poot.reduce_sum %mm {axis = 3 : i64, keepdim} : tensor<1x2x2x16xf32>
  %mn = poot.sqrt %ms : tensor<1x2x2x1xf32>
  %mc = poot.max %mn, %eps : tensor<1x2x2x1xf32>, tensor<f32>
  %ml = poot.div %mk4, %mc : tensor<1x2x2x16xf32>, tensor<1x2x2x1xf32>
  %mks = poot.mul %ml, %k_scale : tensor<1x2x2x16xf32>, tensor<16xf32>
  %kcat = poot.concat %mks, %k {axis = 2 : i64} : tensor<1x2x2x16xf32>, tensor<1x2x5x16xf32>
  %vcat = poot.concat %mv4, %v0 {axis = 2 : i64} : tensor<1x2x2x16xf32>, tensor<1x2x5x16xf32>
  // Attend: repeat 'b kvh n d -> b (r kvh) n d', r = 2
  %k5 = poot.reshape %kcat : tensor<1x2x7x16xf32> -> tensor<1x1x2x7x16xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 7, 16>} : tensor<1x1x2x7x16xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x7x16xf32> -> tensor<1x4x7x16xf32>
  %v5 = poot.reshape %vcat : tensor<1x2x7x16xf32> -> tensor<1x1x2x7x16xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 7, 16>} : tensor<1x1x2x7x16xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x7x16xf32> -> tensor<1x4x7x16xf32>
  // sim = einsum('b h i d, b h j d -> b h i j') * scale
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x16xf32>
  %sim0 = poot.matmul %q, %kt : tensor<1x4x5x16xf32>, tensor<1x4x16x7xf32>
  %scale = poot.constant dense<10.0> : tensor<f32>
  %sim = poot.mul %sim0, %scale : tensor<1x4x5x7xf32>, tensor<f32>
  // causal_mask = ones((5, 7), bool).triu(3)
  %ri = poot.iota {dim = 0 : i64} : tensor<5x7xi32>
  %ci = poot.iota {dim = 1 : i64} : tensor<5x7xi32>
  %dji = poot.sub %ci, %ri : tensor<5x7xi32>, tensor<5x7xi32>
  %three = poot.constant dense<3> : tensor<i32>
  %causal = poot.compare ge, %dji, %three : tensor<5x7xi32>, tensor<i32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %causal, %mv, %sim : tensor<5x7xi1>, tensor<f32>, tensor<1x4x5x7xf32>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x5x7xf32>
  %d = poot.sub %sm, %mx : tensor<1x4x5x7xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x7xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x7xf32>
  %attn = poot.div %e, %zs : tensor<1x4x5x7xf32>, tensor<1x4x5x1xf32>
  %out = poot.matmul %attn, %vr : tensor<1x4x5x7xf32>, tensor<1x4x7x16xf32>
  return %out : tensor<1x4x5x16xf32>
}
