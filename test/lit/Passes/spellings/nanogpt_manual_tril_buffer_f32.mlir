// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// nanoGPT (karpathy/nanoGPT model.py, CausalSelfAttention.forward), the
// manual branch taken when F.scaled_dot_product_attention is missing:
// q, k, v = c_attn(x).split(n_embd, dim=2), each .view(B, T, nh, hs)
// .transpose(1, 2); att = (q @ k.transpose(-2, -1)) * (1.0 / sqrt(hs));
// att.masked_fill(self.bias[:, :, :T, :T] == 0, -inf) with the registered
// buffer bias = tril(ones(block_size, block_size)).view(1, 1, bs, bs) (an
// f32 constant here, block_size = 8); F.softmax(att, dim=-1); att @ v;
// transpose(1, 2).view(B, T, C). B = 1, T = 6, nh = 4, hs = 32, f32.

// CHECK-LABEL: func.func @nanogpt_manual_tril_buffer_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 0.17677{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777, causal{{$}}
func.func @nanogpt_manual_tril_buffer_f32(%qkv: tensor<1x6x384xf32>) -> tensor<1x6x128xf32> {
  %q0 = poot.slice %qkv {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 6, 128>, step = array<i64: 1, 1, 1>} : tensor<1x6x384xf32>
  %k0 = poot.slice %qkv {start = array<i64: 0, 0, 128>, limit = array<i64: 1, 6, 256>, step = array<i64: 1, 1, 1>} : tensor<1x6x384xf32>
  %v0 = poot.slice %qkv {start = array<i64: 0, 0, 256>, limit = array<i64: 1, 6, 384>, step = array<i64: 1, 1, 1>} : tensor<1x6x384xf32>
  %k4 = poot.reshape %k0 : tensor<1x6x128xf32> -> tensor<1x6x4x32xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x32xf32>
  %q4 = poot.reshape %q0 : tensor<1x6x128xf32> -> tensor<1x6x4x32xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x32xf32>
  %v4 = poot.reshape %v0 : tensor<1x6x128xf32> -> tensor<1x6x4x32xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x32xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x32xf32>
  %qk = poot.matmul %q, %kt : tensor<1x4x6x32xf32>, tensor<1x4x32x6xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %att = poot.mul %qk, %c : tensor<1x4x6x6xf32>, tensor<f32>
  %bias = poot.constant dense<[[[[1.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0],[1.0,1.0,0.0,0.0,0.0,0.0,0.0,0.0],[1.0,1.0,1.0,0.0,0.0,0.0,0.0,0.0],[1.0,1.0,1.0,1.0,0.0,0.0,0.0,0.0],[1.0,1.0,1.0,1.0,1.0,0.0,0.0,0.0],[1.0,1.0,1.0,1.0,1.0,1.0,0.0,0.0],[1.0,1.0,1.0,1.0,1.0,1.0,1.0,0.0],[1.0,1.0,1.0,1.0,1.0,1.0,1.0,1.0]]]]> : tensor<1x1x8x8xf32>
  %bs = poot.slice %bias {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x8x8xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %hide = poot.compare eq, %bs, %zero : tensor<1x1x6x6xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %am = poot.select %hide, %ninf, %att : tensor<1x1x6x6xi1>, tensor<f32>, tensor<1x4x6x6xf32>
  %m = poot.reduce_max %am {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %am, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %y = poot.matmul %p, %v : tensor<1x4x6x6xf32>, tensor<1x4x6x32xf32>
  %yt = poot.transpose %y {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x32xf32>
  %o = poot.reshape %yt : tensor<1x6x4x32xf32> -> tensor<1x6x128xf32>
  return %o : tensor<1x6x128xf32>
}
