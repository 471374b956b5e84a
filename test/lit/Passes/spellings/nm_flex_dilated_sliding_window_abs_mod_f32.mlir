// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN --allow-empty
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss (weaker), pytorch-labs/attention-gym attn_gym/masks/
// dilated_sliding_window.py (generate_dilated_sliding_window(3, 2)):
// diff = abs(q_idx - kv_idx); (diff <= 3) & (diff % 2 == 0), through
// PyTorch's dense FlexAttention reference (math_attention: scores *
// scale, where(mask, score, -inf), torch._safe_softmax). It looks like a
// sliding window but is neither causal (keys on both sides) nor a band
// (every other key inside it is hidden): it must not fuse with causal or
// window; the strongest correct form keeps the mask as a tensor (each row
// keeps its own key, diff = 0, so the guard never fires). % on the
// non-negative diff is x - (x / 2) * 2. MHA, B = 1, H = 2, L = 10, D = 16.

// CHECK-LABEL: func.func @nm_flex_dilated_sliding_window_abs_mod_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: causal
// CHECK-NOT: window
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; empty-row guard never fires{{$}}
func.func @nm_flex_dilated_sliding_window_abs_mod_f32(
    %q: tensor<1x2x10x16xf32>, %k: tensor<1x2x10x16xf32>, %v: tensor<1x2x10x16xf32>) -> tensor<1x2x10x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x10x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x10x16xf32>, tensor<1x2x16x10xf32>
  %scale = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %scale : tensor<1x2x10x10xf32>, tensor<f32>
  // vmapped dilated_sliding_window(b, h, q_idx, kv_idx)
  %m = poot.iota {dim = 2 : i64} : tensor<1x2x10x10xi64>
  %n = poot.iota {dim = 3 : i64} : tensor<1x2x10x10xi64>
  %d0 = poot.sub %m, %n : tensor<1x2x10x10xi64>, tensor<1x2x10x10xi64>
  %diff = poot.abs %d0 : tensor<1x2x10x10xi64>
  %w = poot.constant dense<3> : tensor<i64>
  %inw = poot.compare le, %diff, %w : tensor<1x2x10x10xi64>, tensor<i64>
  %dil = poot.constant dense<2> : tensor<i64>
  %dq = poot.div %diff, %dil : tensor<1x2x10x10xi64>, tensor<i64>
  %dm = poot.mul %dq, %dil : tensor<1x2x10x10xi64>, tensor<i64>
  %rem = poot.sub %diff, %dm : tensor<1x2x10x10xi64>, tensor<1x2x10x10xi64>
  %z = poot.constant dense<0> : tensor<i64>
  %isd = poot.compare eq, %rem, %z : tensor<1x2x10x10xi64>, tensor<i64>
  %mask = poot.and %inw, %isd : tensor<1x2x10x10xi1>, tensor<1x2x10x10xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %mask, %s, %ninf : tensor<1x2x10x10xi1>, tensor<1x2x10x10xf32>, tensor<f32>
  // torch._safe_softmax
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x10x10xf32>
  %d = poot.sub %x, %mx : tensor<1x2x10x10xf32>, tensor<1x2x10x1xf32>
  %e = poot.exp %d : tensor<1x2x10x10xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x10x10xf32>
  %p = poot.div %e, %zs : tensor<1x2x10x10xf32>, tensor<1x2x10x1xf32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x2x10x10xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x2x10x10xi1> -> tensor<1x2x10x10xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x2x10x10xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x2x10x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x2x10x1xi1>, tensor<f32>, tensor<1x2x10x10xf32>
  %o = poot.matmul %ps, %v : tensor<1x2x10x10xf32>, tensor<1x2x10x16xf32>
  return %o : tensor<1x2x10x16xf32>
}
