// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// timm Swin Transformer (huggingface/pytorch-image-models
// timm/models/swin_transformer.py, WindowAttention.forward, the non-fused
// branch) in a shifted block (SW-MSA): qkv.reshape(B_, N, 3, nH, -1)
// .permute(2, 0, 3, 1, 4).unbind(0); q = q * scale; attn = q @ k^T;
// attn + _get_rel_pos_bias(): relative_position_bias_table[
// relative_position_index.view(-1)].view(N, N, -1).permute(2, 0, 1)
// .unsqueeze(0) (the index a constant buffer from
// get_relative_position_index); attn.view(-1, nW, nH, N, N) +
// mask.unsqueeze(1).unsqueeze(0) with the buffer of get_attn_mask (0 inside
// a region, -100.0 across regions of the cyclic shift, a constant [nW, N, N]);
// .view(-1, nH, N, N); nn.Softmax(dim=-1); attn @ v; transpose(1, 2)
// .reshape(B_, N, -1). A 6x6 map, window 3 (N = 9), shift 1, nW = 4, B = 1,
// nH = 2, head 16, f32.

// Strongest form the graph allows: the per-window mask added in the
// [B_/nW, nW, nH, N, N] view moves into the scores' own layout; the relative
// position bias and the -100 region mask stay one tensor mask (a finite bias,
// not a visibility).
// CHECK-LABEL: func.func @swin_shifted_window_relpos_mask_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<4x2x9x9xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<4x2x9x16xf32>, tensor<4x2x9x16xf32>, tensor<4x2x9x16xf32> -> tensor<4x2x9x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @swin_shifted_window_relpos_mask_f32(%qkv: tensor<4x9x96xf32>, %table: tensor<25x2xf32>)
    -> tensor<4x9x32xf32> {
  %r5 = poot.reshape %qkv : tensor<4x9x96xf32> -> tensor<4x9x3x2x16xf32>
  %p5 = poot.transpose %r5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<4x9x3x2x16xf32>
  %q1 = poot.slice %p5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 4, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x4x2x9x16xf32>
  %k1 = poot.slice %p5 {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 4, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x4x2x9x16xf32>
  %v1 = poot.slice %p5 {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 4, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x4x2x9x16xf32>
  %q = poot.reshape %q1 : tensor<1x4x2x9x16xf32> -> tensor<4x2x9x16xf32>
  %k = poot.reshape %k1 : tensor<1x4x2x9x16xf32> -> tensor<4x2x9x16xf32>
  %v = poot.reshape %v1 : tensor<1x4x2x9x16xf32> -> tensor<4x2x9x16xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %sc : tensor<4x2x9x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x9x16xf32>
  %attn = poot.matmul %qs, %kt : tensor<4x2x9x16xf32>, tensor<4x2x16x9xf32>
  %idx = poot.constant dense<[12, 11, 10, 7, 6, 5, 2, 1, 0, 13, 12, 11, 8, 7, 6, 3, 2, 1, 14, 13, 12, 9, 8, 7, 4, 3, 2, 17, 16, 15, 12, 11, 10, 7, 6, 5, 18, 17, 16, 13, 12, 11, 8, 7, 6, 19, 18, 17, 14, 13, 12, 9, 8, 7, 22, 21, 20, 17, 16, 15, 12, 11, 10, 23, 22, 21, 18, 17, 16, 13, 12, 11, 24, 23, 22, 19, 18, 17, 14, 13, 12]> : tensor<81xi64>
  %rb0 = poot.gather %table[%idx] {axis = 0 : i64} : tensor<25x2xf32>, tensor<81xi64>
  %rb1 = poot.reshape %rb0 : tensor<81x2xf32> -> tensor<9x9x2xf32>
  %rb2 = poot.transpose %rb1 {perm = array<i64: 2, 0, 1>} : tensor<9x9x2xf32>
  %rb = poot.reshape %rb2 : tensor<2x9x9xf32> -> tensor<1x2x9x9xf32>
  %a1 = poot.add %attn, %rb : tensor<4x2x9x9xf32>, tensor<1x2x9x9xf32>
  %a5 = poot.reshape %a1 : tensor<4x2x9x9xf32> -> tensor<1x4x2x9x9xf32>
  %mask = poot.constant dense<[[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, -100.0, 0.0, 0.0, -100.0, 0.0, 0.0, -100.0], [0.0, 0.0, -100.0, 0.0, 0.0, -100.0, 0.0, 0.0, -100.0], [-100.0, -100.0, 0.0, -100.0, -100.0, 0.0, -100.0, -100.0, 0.0], [0.0, 0.0, -100.0, 0.0, 0.0, -100.0, 0.0, 0.0, -100.0], [0.0, 0.0, -100.0, 0.0, 0.0, -100.0, 0.0, 0.0, -100.0], [-100.0, -100.0, 0.0, -100.0, -100.0, 0.0, -100.0, -100.0, 0.0], [0.0, 0.0, -100.0, 0.0, 0.0, -100.0, 0.0, 0.0, -100.0], [0.0, 0.0, -100.0, 0.0, 0.0, -100.0, 0.0, 0.0, -100.0], [-100.0, -100.0, 0.0, -100.0, -100.0, 0.0, -100.0, -100.0, 0.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -100.0, -100.0, -100.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -100.0, -100.0, -100.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -100.0, -100.0, -100.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -100.0, -100.0, -100.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -100.0, -100.0, -100.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -100.0, -100.0, -100.0], [-100.0, -100.0, -100.0, -100.0, -100.0, -100.0, 0.0, 0.0, 0.0], [-100.0, -100.0, -100.0, -100.0, -100.0, -100.0, 0.0, 0.0, 0.0], [-100.0, -100.0, -100.0, -100.0, -100.0, -100.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, -100.0, 0.0, 0.0, -100.0, -100.0, -100.0, -100.0], [0.0, 0.0, -100.0, 0.0, 0.0, -100.0, -100.0, -100.0, -100.0], [-100.0, -100.0, 0.0, -100.0, -100.0, 0.0, -100.0, -100.0, -100.0], [0.0, 0.0, -100.0, 0.0, 0.0, -100.0, -100.0, -100.0, -100.0], [0.0, 0.0, -100.0, 0.0, 0.0, -100.0, -100.0, -100.0, -100.0], [-100.0, -100.0, 0.0, -100.0, -100.0, 0.0, -100.0, -100.0, -100.0], [-100.0, -100.0, -100.0, -100.0, -100.0, -100.0, 0.0, 0.0, -100.0], [-100.0, -100.0, -100.0, -100.0, -100.0, -100.0, 0.0, 0.0, -100.0], [-100.0, -100.0, -100.0, -100.0, -100.0, -100.0, -100.0, -100.0, 0.0]]]> : tensor<4x9x9xf32>
  %m5 = poot.reshape %mask : tensor<4x9x9xf32> -> tensor<1x4x1x9x9xf32>
  %a6 = poot.add %a5, %m5 : tensor<1x4x2x9x9xf32>, tensor<1x4x1x9x9xf32>
  %s = poot.reshape %a6 : tensor<1x4x2x9x9xf32> -> tensor<4x2x9x9xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<4x2x9x9xf32>
  %d = poot.sub %s, %m : tensor<4x2x9x9xf32>, tensor<4x2x9x1xf32>
  %e = poot.exp %d : tensor<4x2x9x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<4x2x9x9xf32>
  %p = poot.div %e, %z : tensor<4x2x9x9xf32>, tensor<4x2x9x1xf32>
  %x = poot.matmul %p, %v : tensor<4x2x9x9xf32>, tensor<4x2x9x16xf32>
  %xt = poot.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x9x16xf32>
  %o = poot.reshape %xt : tensor<4x9x2x16xf32> -> tensor<4x9x32xf32>
  return %o : tensor<4x9x32xf32>
}
