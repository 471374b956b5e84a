// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// pytorch-labs/attention-gym attn_gym/masks/prefix_lm.py
// (generate_prefix_lm_mask(prefix_length=3): or_masks(kv_idx <
// prefix_length, causal_mask)) through PyTorch's dense FlexAttention
// reference (torch/_higher_order_ops/flex_attention.py, math_attention):
// or_masks starts from b.new_zeros((), bool) and ors each mask_mod in;
// vmapped over aranges of the score axes it is a [B, H, M, N] condition;
// scores = q.to(f32) @ k.to(f32)^T * scale; where(mask, scores, -inf);
// torch._safe_softmax; .to(f16) @ v. A key is visible when it is in the
// prefix or not in the future: not a band (the prefix columns of the early
// rows lie above the diagonal), so the strongest form keeps the mask as a
// tensor; every row keeps its own key (t = i), so the guard never fires.
// MHA, B = 2, H = 2, L = 7, D = 16.

// CHECK-LABEL: func.func @flex_prefix_lm_or_masks_safe_softmax_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @flex_prefix_lm_or_masks_safe_softmax_f16(
    %q: tensor<2x2x7x16xf16>, %k: tensor<2x2x7x16xf16>, %v: tensor<2x2x7x16xf16>) -> tensor<2x2x7x16xf16> {
  %qf = poot.convert %q : tensor<2x2x7x16xf16> -> tensor<2x2x7x16xf32>
  %kf = poot.convert %k : tensor<2x2x7x16xf16> -> tensor<2x2x7x16xf32>
  %kt = poot.transpose %kf {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x7x16xf32>
  %s0 = poot.matmul %qf, %kt : tensor<2x2x7x16xf32>, tensor<2x2x16x7xf32>
  %scale = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %scale : tensor<2x2x7x7xf32>, tensor<f32>
  // vmapped or_masks(prefix_mask, causal_mask) over m = arange(M), n = arange(N)
  %m = poot.iota {dim = 2 : i64} : tensor<2x2x7x7xi64>
  %n = poot.iota {dim = 3 : i64} : tensor<2x2x7x7xi64>
  %false = poot.constant dense<false> : tensor<i1>
  %plen = poot.constant dense<3> : tensor<i64>
  %prefix = poot.compare lt, %n, %plen : tensor<2x2x7x7xi64>, tensor<i64>
  %r1 = poot.or %false, %prefix : tensor<i1>, tensor<2x2x7x7xi1>
  %causal = poot.compare ge, %m, %n : tensor<2x2x7x7xi64>, tensor<2x2x7x7xi64>
  %mask = poot.or %r1, %causal : tensor<2x2x7x7xi1>, tensor<2x2x7x7xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %mask, %s, %ninf : tensor<2x2x7x7xi1>, tensor<2x2x7x7xf32>, tensor<f32>
  // torch._safe_softmax
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x7x7xf32>
  %d = poot.sub %x, %mx : tensor<2x2x7x7xf32>, tensor<2x2x7x1xf32>
  %e = poot.exp %d : tensor<2x2x7x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x7x7xf32>
  %p = poot.div %e, %z : tensor<2x2x7x7xf32>, tensor<2x2x7x1xf32>
  %masked = poot.compare eq, %x, %ninf : tensor<2x2x7x7xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<2x2x7x7xi1> -> tensor<2x2x7x7xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<2x2x7x7xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<2x2x7x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<2x2x7x1xi1>, tensor<f32>, tensor<2x2x7x7xf32>
  %pb = poot.convert %ps : tensor<2x2x7x7xf32> -> tensor<2x2x7x7xf16>
  %o = poot.matmul %pb, %v : tensor<2x2x7x7xf16>, tensor<2x2x7x16xf16>
  return %o : tensor<2x2x7x16xf16>
}
