// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch: torch.exp(s - torch.logsumexp(s, -1, keepdim=True)) over causal
// scores (masked_fill(~tril, -inf)), as torch._refs.logsumexp decomposes it
// (the form torch.export and the Reformer's local attention leave):
// maxes = amax(s, -1, keepdim); maxes_squeezed = masked_fill(|maxes| ==
// inf, 0); result = log(sum(exp(s - maxes))) + maxes_squeezed. The max
// inside the exp is the raw one, the one added back has its infinities
// zeroed: equal on every row with a finite max, NaN either way on a row
// whose max is infinite. MHA, B = 1, H = 2, L = 6, D = 16, s = q k^T / 4.

// CHECK-LABEL: func.func @torch_logsumexp_decomposition_guarded_max_outside_causal_f32
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{$}}
func.func @torch_logsumexp_decomposition_guarded_max_outside_causal_f32(
    %q: tensor<1x2x6x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x6x16xf32>, tensor<1x2x16x6xf32>
  %four = poot.constant dense<4.0> : tensor<f32>
  %s1 = poot.div %s0, %four : tensor<1x2x6x6xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x6xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<6x6xi64>
  %fut = poot.compare gt, %t, %i : tensor<6x6xi64>, tensor<6x6xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %s = poot.select %fut, %ninf, %s1 : tensor<6x6xi1>, tensor<f32>, tensor<1x2x6x6xf32>
  %maxes = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %abs = poot.abs %maxes : tensor<1x2x6x1xf32>
  %inf = poot.constant dense<0x7F800000> : tensor<f32>
  %isinf = poot.compare eq, %abs, %inf : tensor<1x2x6x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %msq = poot.select %isinf, %zero, %maxes : tensor<1x2x6x1xi1>, tensor<f32>, tensor<1x2x6x1xf32>
  %d = poot.sub %s, %maxes : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %l = poot.log %z : tensor<1x2x6x1xf32>
  %lse = poot.add %l, %msq : tensor<1x2x6x1xf32>, tensor<1x2x6x1xf32>
  %ls = poot.sub %s, %lse : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %p = poot.exp %ls : tensor<1x2x6x6xf32>
  %o = poot.matmul %p, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x6x16xf32>
}
