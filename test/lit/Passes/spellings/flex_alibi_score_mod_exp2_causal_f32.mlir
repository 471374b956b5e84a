// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// pytorch-labs/attention-gym attn_gym/mods/alibi.py (generate_alibi_bias(H)
// as score_mod, with the causal mask_mod of its main()) through PyTorch's
// dense FlexAttention reference (torch/_higher_order_ops/flex_attention.py,
// _math_attention_inner): the score_mod is vmapped over b, h, m, n with
// h = arange(H): scale = torch.exp2(-((h + 1) * 8.0 / H)) (a pow of 2 over
// the head arange, in f32), bias = (kv_idx - q_idx) * scale,
// score + bias, evaluated on scores * softmax_scale; then
// torch.where(q_idx >= kv_idx, score_mod(...), -inf), torch._safe_softmax,
// @ v. The slopes are 2^-2, 2^-4, 2^-6, 2^-8; every row keeps its own key.
// MHA, B = 1, H = 4, L = 6, D = 24.

// CHECK-LABEL: func.func @flex_alibi_score_mod_exp2_causal_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {alibi_slopes = array<f64: 2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03>, causal, n_rep = 1 : i64, scale = 0.2041241{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.204124, causal, alibi; empty-row guard never fires{{$}}
func.func @flex_alibi_score_mod_exp2_causal_f32(
    %q: tensor<1x4x6x24xf32>, %k: tensor<1x4x6x24xf32>, %v: tensor<1x4x6x24xf32>) -> tensor<1x4x6x24xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x24xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x4x6x24xf32>, tensor<1x4x24x6xf32>
  %sm_scale = poot.constant dense<0.204124153> : tensor<f32>
  %s = poot.mul %s0, %sm_scale : tensor<1x4x6x6xf32>, tensor<f32>
  // vmapped alibi_mod(score, b, h, q_idx, kv_idx)
  %h = poot.iota {dim = 1 : i64} : tensor<1x4x6x6xi64>
  %qi = poot.iota {dim = 2 : i64} : tensor<1x4x6x6xi64>
  %ki = poot.iota {dim = 3 : i64} : tensor<1x4x6x6xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %h1 = poot.add %h, %one : tensor<1x4x6x6xi64>, tensor<i64>
  %h1f = poot.convert %h1 : tensor<1x4x6x6xi64> -> tensor<1x4x6x6xf32>
  %eight = poot.constant dense<8.0> : tensor<f32>
  %h8 = poot.mul %h1f, %eight : tensor<1x4x6x6xf32>, tensor<f32>
  %nh = poot.constant dense<4.0> : tensor<f32>
  %hd = poot.div %h8, %nh : tensor<1x4x6x6xf32>, tensor<f32>
  %hn = poot.neg %hd : tensor<1x4x6x6xf32>
  %two = poot.constant dense<2.0> : tensor<f32>
  %slope = poot.pow %two, %hn : tensor<f32>, tensor<1x4x6x6xf32>
  %dist = poot.sub %ki, %qi : tensor<1x4x6x6xi64>, tensor<1x4x6x6xi64>
  %distf = poot.convert %dist : tensor<1x4x6x6xi64> -> tensor<1x4x6x6xf32>
  %bias = poot.mul %distf, %slope : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
  %sb = poot.add %s, %bias : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
  // vmapped causal mask_mod: q_idx >= kv_idx
  %keep = poot.compare ge, %qi, %ki : tensor<1x4x6x6xi64>, tensor<1x4x6x6xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %sb, %ninf : tensor<1x4x6x6xi1>, tensor<1x4x6x6xf32>, tensor<f32>
  // torch._safe_softmax
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %x, %mx : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x4x6x6xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x4x6x6xi1> -> tensor<1x4x6x6xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %onef : tensor<1x4x6x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x4x6x1xi1>, tensor<f32>, tensor<1x4x6x6xf32>
  %o = poot.matmul %ps, %v : tensor<1x4x6x6xf32>, tensor<1x4x6x24xf32>
  return %o : tensor<1x4x6x24xf32>
}
