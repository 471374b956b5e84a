// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// The reference implementation in Triton's fused-attention tutorial
// (python/tutorials/06-fused-attention.py, test_op, mode "fwd", f16,
// causal): M = torch.tril(torch.ones((N_CTX, N_CTX))) (an f32 table of
// ones on and below the diagonal); p = torch.matmul(q, k.transpose(2, 3))
// * sm_scale with the fixed sm_scale = 0.5, in f16; p[:, :, M == 0] =
// float("-inf"), a boolean index_put that a trace records as
// where(M == 0, -inf, p) broadcast over batch and heads; p =
// torch.softmax(p.float(), dim=-1); p = p.to(f16); ref_out =
// torch.matmul(p, v).half(). The table compared with 0 is the causal
// band negated. Strongest form: causal, scale 0.5, n_rep 1, the f32
// softmax between two f16 products. Z = 1, H = 2, N_CTX = 8,
// HEAD_DIM = 32.

// CHECK-LABEL: func.func @triton_tutorial_fused_attention_ref_tril_eq0_index_put_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 5.000000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.5, causal{{$}}
func.func @triton_tutorial_fused_attention_ref_tril_eq0_index_put_f16(
    %q: tensor<1x2x8x32xf16>, %k: tensor<1x2x8x32xf16>, %v: tensor<1x2x8x32xf16>)
    -> tensor<1x2x8x32xf16> {
  %M = poot.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<8x8xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x32xf16>
  %qk = poot.matmul %q, %kt : tensor<1x2x8x32xf16>, tensor<1x2x32x8xf16>
  %sm_scale = poot.constant dense<5.000000e-01> : tensor<f16>
  %p0 = poot.mul %qk, %sm_scale : tensor<1x2x8x8xf16>, tensor<f16>
  // p[:, :, M == 0] = float("-inf")
  %zero = poot.constant dense<0.0> : tensor<f32>
  %hide = poot.compare eq, %M, %zero : tensor<8x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFC00> : tensor<f16>
  %p1 = poot.select %hide, %ninf, %p0 : tensor<8x8xi1>, tensor<f16>, tensor<1x2x8x8xf16>
  // torch.softmax(p.float(), dim=-1); p.to(f16)
  %pf = poot.convert %p1 : tensor<1x2x8x8xf16> -> tensor<1x2x8x8xf32>
  %m = poot.reduce_max %pf {axis = 3 : i64, keepdim} : tensor<1x2x8x8xf32>
  %d = poot.sub %pf, %m : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>
  %e = poot.exp %d : tensor<1x2x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x8x8xf32>
  %p2 = poot.div %e, %z : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>
  %p = poot.convert %p2 : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf16>
  %o = poot.matmul %p, %v : tensor<1x2x8x8xf16>, tensor<1x2x8x32xf16>
  return %o : tensor<1x2x8x32xf16>
}
