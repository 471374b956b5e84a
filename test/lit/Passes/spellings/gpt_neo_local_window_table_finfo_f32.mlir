// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF GPTNeoSelfAttention for a "local" layer: the bias buffer is
// tril(ones(N, N, bool)) xor tril(ones, -window_size), a sliding-window
// table (window 4 of 16 positions); _attn upcasts q and k to f32 and does
// not scale (GPT-Neo has no 1/sqrt(d)); causal_mask = bias[:, :, k - q : k,
// :k] (a chunk of 3 after 5 cached keys); w = torch.where(causal_mask, w,
// finfo(f32).min); softmax(dim=-1); @ v. B = 1, H = 2, D = 32.

// CHECK-LABEL: func.func @gpt_neo_local_window_table_finfo_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 1 : i64, scale = 1.000000e+00 : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, causal, window 4
func.func @gpt_neo_local_window_table_finfo_f32(%q: tensor<1x2x3x32xf32>, %k: tensor<1x2x8x32xf32>,
                                                %v: tensor<1x2x8x32xf32>) -> tensor<1x2x3x32xf32> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [false, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [false, false, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [false, false, false, true, true, true, true, false, false, false, false, false, false, false, false, false], [false, false, false, false, true, true, true, true, false, false, false, false, false, false, false, false], [false, false, false, false, false, true, true, true, true, false, false, false, false, false, false, false], [false, false, false, false, false, false, true, true, true, true, false, false, false, false, false, false], [false, false, false, false, false, false, false, true, true, true, true, false, false, false, false, false], [false, false, false, false, false, false, false, false, true, true, true, true, false, false, false, false], [false, false, false, false, false, false, false, false, false, true, true, true, true, false, false, false], [false, false, false, false, false, false, false, false, false, false, true, true, true, true, false, false], [false, false, false, false, false, false, false, false, false, false, false, true, true, true, true, false], [false, false, false, false, false, false, false, false, false, false, false, false, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %cm = poot.slice %bias {start = array<i64: 0, 0, 5, 0>, limit = array<i64: 1, 1, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x16x16xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x32xf32>
  %w = poot.matmul %q, %kt : tensor<1x2x3x32xf32>, tensor<1x2x32x8xf32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %wm = poot.select %cm, %w, %mv : tensor<1x1x3x8xi1>, tensor<1x2x3x8xf32>, tensor<f32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf32>
  %d = poot.sub %wm, %m : tensor<1x2x3x8xf32>, tensor<1x2x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf32>
  %p = poot.div %e, %z : tensor<1x2x3x8xf32>, tensor<1x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x3x8xf32>, tensor<1x2x8x32xf32>
  return %o : tensor<1x2x3x32xf32>
}
