// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Baichuan-13B (trust_remote_code BaichuanAttention): _gen_alibi_mask builds
// once, in Python, alibi = slopes[:, None, None] * arange(max_pos) plus the
// future mask triu(fill_with_neg_inf(zeros(max_pos, max_pos)), 1), one
// [H, N, N] tensor a trace keeps as a constant; the model slices it to
// [:H, :L, :L], the layer adds mask[None] to q @ k^T / sqrt(D), clamps with
// torch.max(w, finfo(f32).min) and takes the softmax. Every visible entry is
// slope[h] * t (the key position alone: ALiBi up to a constant per row),
// every other -inf above the diagonal. H = 4 (slopes 4^-(h+1)), N = 8,
// L = 6, D = 32.

// Not the strongest form yet; the strongest would be causal with
// alibi_slopes 4^-(h+1). Today (sound, checked against the oracle): the
// table's -inf cells give the causal band (read as well), but its finite
// cells are not read as ALiBi, so it stays the fused op's tensor mask;
// read entry by entry it leaves every row a finite key, so the
// clamp behind it changes nothing and drops.
// CHECK-LABEL: func.func @baichuan13b_alibi_future_mask_table_f32
// CHECK: poot.attention %arg0, %arg1, %arg2 mask({{.+}}) {causal, n_rep = 1 : i64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|max}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777, tensor mask, causal; band read off the table's -inf cells{{$}}
func.func @baichuan13b_alibi_future_mask_table_f32(%q: tensor<1x4x6x32xf32>, %k: tensor<1x4x6x32xf32>,
                                                   %v: tensor<1x4x6x32xf32>) -> tensor<1x4x6x32xf32> {
  %fm = poot.constant dense<[[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.25, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.25, 0.5, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.25, 0.5, 0.75, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.25, 0.5, 0.75, 1.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 0xFF800000, 0xFF800000], [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 0xFF800000], [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75]], [[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0625, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0625, 0.125, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0625, 0.125, 0.1875, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0625, 0.125, 0.1875, 0.25, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0xFF800000, 0xFF800000], [0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0xFF800000], [0.0, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375]], [[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.015625, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.015625, 0.03125, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.015625, 0.03125, 0.046875, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.015625, 0.03125, 0.046875, 0.0625, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.015625, 0.03125, 0.046875, 0.0625, 0.078125, 0xFF800000, 0xFF800000], [0.0, 0.015625, 0.03125, 0.046875, 0.0625, 0.078125, 0.09375, 0xFF800000], [0.0, 0.015625, 0.03125, 0.046875, 0.0625, 0.078125, 0.09375, 0.109375]], [[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.00390625, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.00390625, 0.0078125, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.00390625, 0.0078125, 0.01171875, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.00390625, 0.0078125, 0.01171875, 0.015625, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.00390625, 0.0078125, 0.01171875, 0.015625, 0.01953125, 0xFF800000, 0xFF800000], [0.0, 0.00390625, 0.0078125, 0.01171875, 0.015625, 0.01953125, 0.0234375, 0xFF800000], [0.0, 0.00390625, 0.0078125, 0.01171875, 0.015625, 0.01953125, 0.0234375, 0.02734375]]]> : tensor<4x8x8xf32>
  %ms = poot.slice %fm {start = array<i64: 0, 0, 0>, limit = array<i64: 4, 6, 6>, step = array<i64: 1, 1, 1>} : tensor<4x8x8xf32>
  %m4 = poot.reshape %ms : tensor<4x6x6xf32> -> tensor<1x4x6x6xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x6x32xf32>, tensor<1x4x32x6xf32>
  %sd = poot.constant dense<5.65685415> : tensor<f32>
  %ss = poot.div %s, %sd : tensor<1x4x6x6xf32>, tensor<f32>
  %sm = poot.add %ss, %m4 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %cl = poot.max %sm, %min : tensor<1x4x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %cl {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %cl, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x6x6xf32>, tensor<1x4x6x32xf32>
  return %o : tensor<1x4x6x32xf32>
}
