// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// NVIDIA/Megatron-LM megatron/core/transformer/dot_product_attention.py
// (DotProductAttention.forward) with FusedScaleMaskSoftmax's
// forward_torch_softmax (megatron/core/fusions/fused_softmax.py), fp16 with
// attention_softmax_in_fp32 and apply_query_key_layer_scaling at
// layer_number = 3, causal mask type: activations are [s, b, heads, hn];
// key and value repeat_interleave(np // ng, dim=2); query.reshape(sq, b *
// np, hn), key.view(sk, b * np, hn); torch.baddbmm(buffer,
// q.transpose(0, 1), k.transpose(0, 1).transpose(1, 2), beta=0.0,
// alpha=softmax_scale) with softmax_scale = 1 / sqrt(hn) / layer_number;
// .view(b, np, sq, sk); the softmax takes input.float(), multiplies by
// scale = layer_number, builds get_default_causal_mask = triu(ones(sq, sq),
// diagonal=1).bool() and applies attention_mask_func
// (masked_fill(mask, -10000.0)), softmax, .half(); the context is
// bmm(probs.view(b * np, sq, sk), value.view(sk, b * np, hn).transpose(0,
// 1)), viewed [b, np, sq, hn], permute(2, 0, 1, 3), view [sq, b, hp]. B =
// 2, 4 query heads over 2 groups, hn = 32, s = 5.

// CHECK-LABEL: func.func @megatron_core_baddbmm_layer_scaling_gqa_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 2 : i64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.1767{{[0-9]*}}, causal{{$}}
func.func @megatron_core_baddbmm_layer_scaling_gqa_f16(
    %query: tensor<5x2x4x32xf16>, %key: tensor<5x2x2x32xf16>, %value: tensor<5x2x2x32xf16>) -> tensor<5x2x128xf16> {
  // key.repeat_interleave(2, dim=2)
  %k5 = poot.reshape %key : tensor<5x2x2x32xf16> -> tensor<5x2x2x1x32xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 5, 2, 2, 2, 32>} : tensor<5x2x2x1x32xf16>
  %kr = poot.reshape %kb : tensor<5x2x2x2x32xf16> -> tensor<5x2x4x32xf16>
  %v5 = poot.reshape %value : tensor<5x2x2x32xf16> -> tensor<5x2x2x1x32xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 5, 2, 2, 2, 32>} : tensor<5x2x2x1x32xf16>
  %vr = poot.reshape %vb : tensor<5x2x2x2x32xf16> -> tensor<5x2x4x32xf16>
  // [sq, b, np, hn] -> [sq, b * np, hn]
  %q3 = poot.reshape %query : tensor<5x2x4x32xf16> -> tensor<5x8x32xf16>
  %k3 = poot.reshape %kr : tensor<5x2x4x32xf16> -> tensor<5x8x32xf16>
  %qt = poot.transpose %q3 {perm = array<i64: 1, 0, 2>} : tensor<5x8x32xf16>
  %kt0 = poot.transpose %k3 {perm = array<i64: 1, 0, 2>} : tensor<5x8x32xf16>
  %kt = poot.transpose %kt0 {perm = array<i64: 0, 2, 1>} : tensor<8x5x32xf16>
  // baddbmm(beta=0, alpha=softmax_scale)
  %mm = poot.matmul %qt, %kt : tensor<8x5x32xf16>, tensor<8x32x5xf16>
  %alpha = poot.constant dense<0.0589255651> : tensor<f16>
  %mr = poot.mul %mm, %alpha : tensor<8x5x5xf16>, tensor<f16>
  %scores = poot.reshape %mr : tensor<8x5x5xf16> -> tensor<2x4x5x5xf16>
  // forward_torch_softmax
  %sf = poot.convert %scores : tensor<2x4x5x5xf16> -> tensor<2x4x5x5xf32>
  %coeff = poot.constant dense<3.0> : tensor<f32>
  %ss = poot.mul %sf, %coeff : tensor<2x4x5x5xf32>, tensor<f32>
  %ri = poot.iota {dim = 0 : i64} : tensor<5x5xi32>
  %ci = poot.iota {dim = 1 : i64} : tensor<5x5xi32>
  %dji = poot.sub %ci, %ri : tensor<5x5xi32>, tensor<5x5xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %up = poot.compare ge, %dji, %one : tensor<5x5xi32>, tensor<i32>
  %ones = poot.constant dense<1.0> : tensor<5x5xf32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %triu = poot.select %up, %ones, %zf : tensor<5x5xi1>, tensor<5x5xf32>, tensor<f32>
  %cmask = poot.convert %triu : tensor<5x5xf32> -> tensor<5x5xi1>
  %fill = poot.constant dense<-10000.0> : tensor<f32>
  %sm = poot.select %cmask, %fill, %ss : tensor<5x5xi1>, tensor<f32>, tensor<2x4x5x5xf32>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf32>
  %d = poot.sub %sm, %mx : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %e = poot.exp %d : tensor<2x4x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf32>
  %p = poot.div %e, %zs : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %ph = poot.convert %p : tensor<2x4x5x5xf32> -> tensor<2x4x5x5xf16>
  // context
  %v3 = poot.reshape %vr : tensor<5x2x4x32xf16> -> tensor<5x8x32xf16>
  %p3 = poot.reshape %ph : tensor<2x4x5x5xf16> -> tensor<8x5x5xf16>
  %vt = poot.transpose %v3 {perm = array<i64: 1, 0, 2>} : tensor<5x8x32xf16>
  %ctx = poot.matmul %p3, %vt : tensor<8x5x5xf16>, tensor<8x5x32xf16>
  %c4 = poot.reshape %ctx : tensor<8x5x32xf16> -> tensor<2x4x5x32xf16>
  %cp = poot.transpose %c4 {perm = array<i64: 2, 0, 1, 3>} : tensor<2x4x5x32xf16>
  %out = poot.reshape %cp : tensor<5x2x4x32xf16> -> tensor<5x2x128xf16>
  return %out : tensor<5x2x128xf16>
}
