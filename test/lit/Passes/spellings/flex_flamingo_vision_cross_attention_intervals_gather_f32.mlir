// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// pytorch-labs/attention-gym attn_gym/masks/flamingo.py
// (generate_vision_cross_attention_mask_mod with the intervals [[0, 7],
// [1, 7], [7, 12]] and 3 tokens per image of its main()) through PyTorch's
// dense FlexAttention reference (math_attention): image_boundaries =
// repeat_interleave(arange(3), 3) (a trace-time constant), and for every
// (q_idx, kv_idx): image_idx = image_boundaries[kv_idx], interval =
// intervals[image_idx], (q_idx >= interval[0]) & (q_idx < interval[1]);
// text queries cross-attend to image keys: where(mask, scores * scale,
// -inf); torch._safe_softmax; @ v. Not a band; every text row lies in some
// image's interval, so the mask, a constant, leaves each row a key and the
// guard never fires. B = 1, H = 1, 12 text queries, 9 image keys, D = 16.

// CHECK-LABEL: func.func @flex_flamingo_vision_cross_attention_intervals_gather_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; empty-row guard never fires{{$}}
func.func @flex_flamingo_vision_cross_attention_intervals_gather_f32(
    %q: tensor<1x1x12x16xf32>, %k: tensor<1x1x9x16xf32>, %v: tensor<1x1x9x16xf32>) -> tensor<1x1x12x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x9x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x1x12x16xf32>, tensor<1x1x16x9xf32>
  %scale = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %scale : tensor<1x1x12x9xf32>, tensor<f32>
  // vision_cross_attention_mask_mod, vmapped over m = arange(12), n = arange(9)
  %intervals = poot.constant dense<[[0, 7], [1, 7], [7, 12]]> : tensor<3x2xi64>
  %bounds = poot.constant dense<[0, 0, 0, 1, 1, 1, 2, 2, 2]> : tensor<9xi64>
  %n = poot.iota {dim = 0 : i64} : tensor<9xi64>
  %image_idx = poot.gather %bounds[%n] {axis = 0 : i64} : tensor<9xi64>, tensor<9xi64>
  %interval = poot.gather %intervals[%image_idx] {axis = 0 : i64} : tensor<3x2xi64>, tensor<9xi64>
  %lo0 = poot.slice %interval {start = array<i64: 0, 0>, limit = array<i64: 9, 1>, step = array<i64: 1, 1>} : tensor<9x2xi64>
  %hi0 = poot.slice %interval {start = array<i64: 0, 1>, limit = array<i64: 9, 2>, step = array<i64: 1, 1>} : tensor<9x2xi64>
  %lo = poot.reshape %lo0 : tensor<9x1xi64> -> tensor<1x9xi64>
  %hi = poot.reshape %hi0 : tensor<9x1xi64> -> tensor<1x9xi64>
  %m = poot.iota {dim = 0 : i64} : tensor<12x1xi64>
  %ge = poot.compare ge, %m, %lo : tensor<12x1xi64>, tensor<1x9xi64>
  %lt = poot.compare lt, %m, %hi : tensor<12x1xi64>, tensor<1x9xi64>
  %mask2 = poot.and %ge, %lt : tensor<12x9xi1>, tensor<12x9xi1>
  %mask = poot.reshape %mask2 : tensor<12x9xi1> -> tensor<1x1x12x9xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %mask, %s, %ninf : tensor<1x1x12x9xi1>, tensor<1x1x12x9xf32>, tensor<f32>
  // torch._safe_softmax
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x1x12x9xf32>
  %d = poot.sub %x, %mx : tensor<1x1x12x9xf32>, tensor<1x1x12x1xf32>
  %e = poot.exp %d : tensor<1x1x12x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x1x12x9xf32>
  %p = poot.div %e, %z : tensor<1x1x12x9xf32>, tensor<1x1x12x1xf32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x1x12x9xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x1x12x9xi1> -> tensor<1x1x12x9xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x1x12x9xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x1x12x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x1x12x1xi1>, tensor<f32>, tensor<1x1x12x9xf32>
  %o = poot.matmul %ps, %v : tensor<1x1x12x9xf32>, tensor<1x1x9x16xf32>
  return %o : tensor<1x1x12x16xf32>
}
