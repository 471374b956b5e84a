// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// timm Swin Transformer V2 (huggingface/pytorch-image-models
// timm/models/swin_transformer_v2.py, WindowAttention.forward) in a
// non-shifted block: cosine attention, attn = F.normalize(q, dim=-1) @
// F.normalize(k, dim=-1).transpose(-2, -1) (normalize: x /
// norm(x, dim=-1, keepdim).clamp_min(1e-12)); logit_scale =
// clamp(self.logit_scale, max=log(1 / 0.01)).exp() with the learned
// per-head parameter [nH, 1, 1]; attn * logit_scale; the continuous bias
// cpb_mlp(relative_coords_table).view(-1, nH) (the MLP's output an input
// here) gathered by relative_position_index, .view(N, N, -1).permute(2, 0,
// 1), 16 * sigmoid(.) (sigmoid as torch._refs writes it, 1 / (1 + exp(-x)));
// attn + bias.unsqueeze(0); softmax(dim=-1); attn @ v. Window 3 (N = 9),
// B_ = 4 windows, nH = 2, head 16, f32.

// Strongest form the graph allows: the per-head temperature
// exp(min(logit_scale, log 100)) [nH, 1, 1] on the scores moves onto q (it
// varies along the head axis only), the cosine-normalised q and k enter the
// fused op as they are, and the relative position bias stays a tensor mask.
// CHECK-LABEL: func.func @swinv2_cosine_logit_scale_f32
// The norms of q and k (reduce_sum) and the temperature (exp) stay before
// the fused op; nothing of the softmax is left after it.
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x2x9x9xf32>) {n_rep = 1 : i64, scale = 1.000000e+00 : f64} : tensor<4x2x9x16xf32>, tensor<4x2x9x16xf32>, tensor<4x2x9x16xf32> -> tensor<4x2x9x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, tensor mask{{$}}
func.func @swinv2_cosine_logit_scale_f32(%qkv: tensor<4x9x96xf32>, %logit_scale: tensor<2x1x1xf32>,
                                         %cpb: tensor<25x2xf32>) -> tensor<4x9x32xf32> {
  %r5 = poot.reshape %qkv : tensor<4x9x96xf32> -> tensor<4x9x3x2x16xf32>
  %p5 = poot.transpose %r5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<4x9x3x2x16xf32>
  %q1 = poot.slice %p5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 4, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x4x2x9x16xf32>
  %k1 = poot.slice %p5 {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 4, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x4x2x9x16xf32>
  %v1 = poot.slice %p5 {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 4, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x4x2x9x16xf32>
  %q = poot.reshape %q1 : tensor<1x4x2x9x16xf32> -> tensor<4x2x9x16xf32>
  %k = poot.reshape %k1 : tensor<1x4x2x9x16xf32> -> tensor<4x2x9x16xf32>
  %v = poot.reshape %v1 : tensor<1x4x2x9x16xf32> -> tensor<4x2x9x16xf32>
  %eps = poot.constant dense<9.99999996E-13> : tensor<f32>
  %qq = poot.mul %q, %q : tensor<4x2x9x16xf32>, tensor<4x2x9x16xf32>
  %qss = poot.reduce_sum %qq {axis = 3 : i64, keepdim} : tensor<4x2x9x16xf32>
  %qn0 = poot.sqrt %qss : tensor<4x2x9x1xf32>
  %qn = poot.max %qn0, %eps : tensor<4x2x9x1xf32>, tensor<f32>
  %qh = poot.div %q, %qn : tensor<4x2x9x16xf32>, tensor<4x2x9x1xf32>
  %kk = poot.mul %k, %k : tensor<4x2x9x16xf32>, tensor<4x2x9x16xf32>
  %kss = poot.reduce_sum %kk {axis = 3 : i64, keepdim} : tensor<4x2x9x16xf32>
  %kn0 = poot.sqrt %kss : tensor<4x2x9x1xf32>
  %kn = poot.max %kn0, %eps : tensor<4x2x9x1xf32>, tensor<f32>
  %kh = poot.div %k, %kn : tensor<4x2x9x16xf32>, tensor<4x2x9x1xf32>
  %kt = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x9x16xf32>
  %attn0 = poot.matmul %qh, %kt : tensor<4x2x9x16xf32>, tensor<4x2x16x9xf32>
  %lmax = poot.constant dense<4.60517025> : tensor<f32>
  %lc = poot.min %logit_scale, %lmax : tensor<2x1x1xf32>, tensor<f32>
  %ls = poot.exp %lc : tensor<2x1x1xf32>
  %attn = poot.mul %attn0, %ls : tensor<4x2x9x9xf32>, tensor<2x1x1xf32>
  %idx = poot.constant dense<[12, 11, 10, 7, 6, 5, 2, 1, 0, 13, 12, 11, 8, 7, 6, 3, 2, 1, 14, 13, 12, 9, 8, 7, 4, 3, 2, 17, 16, 15, 12, 11, 10, 7, 6, 5, 18, 17, 16, 13, 12, 11, 8, 7, 6, 19, 18, 17, 14, 13, 12, 9, 8, 7, 22, 21, 20, 17, 16, 15, 12, 11, 10, 23, 22, 21, 18, 17, 16, 13, 12, 11, 24, 23, 22, 19, 18, 17, 14, 13, 12]> : tensor<81xi64>
  %rb0 = poot.gather %cpb[%idx] {axis = 0 : i64} : tensor<25x2xf32>, tensor<81xi64>
  %rb1 = poot.reshape %rb0 : tensor<81x2xf32> -> tensor<9x9x2xf32>
  %rb2 = poot.transpose %rb1 {perm = array<i64: 2, 0, 1>} : tensor<9x9x2xf32>
  %nrb = poot.neg %rb2 : tensor<2x9x9xf32>
  %ex = poot.exp %nrb : tensor<2x9x9xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %den = poot.add %one, %ex : tensor<f32>, tensor<2x9x9xf32>
  %sig = poot.div %one, %den : tensor<f32>, tensor<2x9x9xf32>
  %sixteen = poot.constant dense<16.0> : tensor<f32>
  %rb3 = poot.mul %sixteen, %sig : tensor<f32>, tensor<2x9x9xf32>
  %rb = poot.reshape %rb3 : tensor<2x9x9xf32> -> tensor<1x2x9x9xf32>
  %s = poot.add %attn, %rb : tensor<4x2x9x9xf32>, tensor<1x2x9x9xf32>
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
