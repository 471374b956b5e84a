// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: poot-run %t.mlir --check --ref=%s --quiet --set=arg3=0,0,0,0,1,0,1,1
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF GPT-J (4.2x) with a padding mask: the model turns attention_mask
// [B, Lk] into (1.0 - m[:, None, None, :]) * finfo(f32).min; GPTJAttention._attn
// takes w = q @ k^T in f32, w = torch.where(causal_mask, w, finfo.min)
// with causal_mask the bool tril buffer sliced [k - q : k, :k], w = w /
// scale_attn (sqrt(64) = 8), w = w + attention_mask; softmax; @ v. The
// causal fill reaches the softmax as finfo.min / 8 and the padding term is
// 0 or finfo.min, whose sum overflows to -inf: a score added to either
// part rounds away, so the causal select is the additive mask
// select(causal, 0, finfo.min / 8), also on a row the padding hides
// whole. B = 2, H = 2, L = 4, D = 64.

// Fused: the padding term (1 - convert(am)) * finfo.min, am an integer in
// [0, 2), is bounded in [finfo.min, 0], so it adds a finite value to every
// key and the diagonal key the causal band keeps stays the row's visible
// key: the finite causal fill is the band. The padding stays a tensor mask.
// The second check binds a batch row padded whole.

// CHECK-LABEL: func.func @gptj_causal_where_padding_finfo_f32
// CHECK-NOT: poot.exp
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x4x4xf32>) {causal, n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125, tensor mask, causal{{$}}
func.func @gptj_causal_where_padding_finfo_f32(%q: tensor<2x2x4x64xf32>, %k: tensor<2x2x4x64xf32>,
                                               %v: tensor<2x2x4x64xf32>,
                                               %am: tensor<2x4xi32> {poot.range = array<i64: 0, 2>})
    -> tensor<2x2x4x64xf32> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false], [true, true, true, false, false, false, false, false], [true, true, true, true, false, false, false, false], [true, true, true, true, true, false, false, false], [true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true]]]]> : tensor<1x1x8x8xi1>
  %cm = poot.slice %bias {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x8x8xi1>
  %amf = poot.convert %am : tensor<2x4xi32> -> tensor<2x4xf32>
  %am4 = poot.reshape %amf : tensor<2x4xf32> -> tensor<2x1x1x4xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %am4 : tensor<f32>, tensor<2x1x1x4xf32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %pad = poot.mul %inv, %min : tensor<2x1x1x4xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x64xf32>
  %w = poot.matmul %q, %kt : tensor<2x2x4x64xf32>, tensor<2x2x64x4xf32>
  %wm = poot.select %cm, %w, %min : tensor<1x1x4x4xi1>, tensor<2x2x4x4xf32>, tensor<f32>
  %sa = poot.constant dense<8.0> : tensor<f32>
  %ws = poot.div %wm, %sa : tensor<2x2x4x4xf32>, tensor<f32>
  %wp = poot.add %ws, %pad : tensor<2x2x4x4xf32>, tensor<2x1x1x4xf32>
  %m = poot.reduce_max %wp {axis = 3 : i64, keepdim} : tensor<2x2x4x4xf32>
  %d = poot.sub %wp, %m : tensor<2x2x4x4xf32>, tensor<2x2x4x1xf32>
  %e = poot.exp %d : tensor<2x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x4xf32>
  %p = poot.div %e, %z : tensor<2x2x4x4xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x64xf32>
  return %o : tensor<2x2x4x64xf32>
}
