// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// tinygrad Tensor.scaled_dot_product_attention(is_causal=True) on f16:
// qk = self.matmul(key.transpose(-2, -1), dtype=float32) / sqrt(D);
// attn_mask = qk.ones_like(dtype=bool).tril(), tril being
// _tri(r, c, 1).where(0, self) with _tri = arange(r)[:, None] <=
// arange(-1, c - 1)[None, :]; attn_mask.where(0, -inf) added to qk;
// qk.cast(f16).softmax(-1) (m = x - x.max(-1, keepdim); e = m.exp();
// e.div(e.sum(-1, keepdim))) @ value. B = 1, H = 2, L = 7, D = 40.

// CHECK-LABEL: func.func @tinygrad_sdpa_causal_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 0.15811{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, causal
func.func @tinygrad_sdpa_causal_f16(%q: tensor<1x2x7x40xf16>, %k: tensor<1x2x7x40xf16>,
                                    %v: tensor<1x2x7x40xf16>) -> tensor<1x2x7x40xf16> {
  %qf = poot.convert %q : tensor<1x2x7x40xf16> -> tensor<1x2x7x40xf32>
  %kf = poot.convert %k : tensor<1x2x7x40xf16> -> tensor<1x2x7x40xf32>
  %kt = poot.transpose %kf {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x7x40xf32>
  %qk0 = poot.matmul %qf, %kt : tensor<1x2x7x40xf32>, tensor<1x2x40x7xf32>
  %sq = poot.constant dense<6.32455532> : tensor<f32>
  %qk = poot.div %qk0, %sq : tensor<1x2x7x7xf32>, tensor<f32>
  %ones = poot.constant dense<true> : tensor<1x2x7x7xi1>
  %ar = poot.iota {dim = 0 : i64} : tensor<7xi32>
  %r = poot.reshape %ar : tensor<7xi32> -> tensor<7x1xi32>
  %m1 = poot.constant dense<-1> : tensor<i32>
  %ac = poot.add %ar, %m1 : tensor<7xi32>, tensor<i32>
  %cc = poot.reshape %ac : tensor<7xi32> -> tensor<1x7xi32>
  %tri = poot.compare le, %r, %cc : tensor<7x1xi32>, tensor<1x7xi32>
  %f = poot.constant dense<false> : tensor<i1>
  %tril = poot.select %tri, %f, %ones : tensor<7x7xi1>, tensor<i1>, tensor<1x2x7x7xi1>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %am = poot.select %tril, %zero, %ninf : tensor<1x2x7x7xi1>, tensor<f32>, tensor<f32>
  %qkm = poot.add %qk, %am : tensor<1x2x7x7xf32>, tensor<1x2x7x7xf32>
  %x = poot.convert %qkm : tensor<1x2x7x7xf32> -> tensor<1x2x7x7xf16>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x7x7xf16>
  %d = poot.sub %x, %mx : tensor<1x2x7x7xf16>, tensor<1x2x7x1xf16>
  %e = poot.exp %d : tensor<1x2x7x7xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x7x7xf16>
  %p = poot.div %e, %z : tensor<1x2x7x7xf16>, tensor<1x2x7x1xf16>
  %o = poot.matmul %p, %v : tensor<1x2x7x7xf16>, tensor<1x2x7x40xf16>
  return %o : tensor<1x2x7x40xf16>
}
