// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF Qwen2 4.45 _prepare_4d_causal_attention_mask_with_cache_position with
// sliding_window: causal_mask = full((L, T), finfo.min); diagonal_attend_mask
// = arange(T) > cache_position.reshape(-1, 1); sliding_attend_mask =
// arange(T) <= cache_position.reshape(-1, 1) - sliding_window;
// diagonal_attend_mask.bitwise_or_(sliding_attend_mask); causal_mask *=
// diagonal_attend_mask; eager + repeat_kv GQA 6/2. L = 4 at pos, T = 10,
// window 4, D = 40, B = 1.

// CHECK-LABEL: func.func @qwen2_cache_position_sliding_mul
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 3 : i64, scale = 0.15811{{[0-9]*}} : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 0.158114, causal, window 4 from pos
func.func @qwen2_cache_position_sliding_mul(%q: tensor<1x6x4x40xf32>, %k: tensor<1x2x10x40xf32>,
                                            %v: tensor<1x2x10x40xf32>,
                                            %pos: tensor<i64> {poot.slot = "pos", poot.range = array<i64: 0, 6>})
    -> tensor<1x6x4x40xf32> {
  %full = poot.constant dense<-3.40282347E+38> : tensor<4x10xf32>
  %ar = poot.iota {dim = 0 : i64} : tensor<10xi64>
  %qi = poot.iota {dim = 0 : i64} : tensor<4xi64>
  %cp = poot.add %qi, %pos : tensor<4xi64>, tensor<i64>
  %cpr = poot.reshape %cp : tensor<4xi64> -> tensor<4x1xi64>
  %diag = poot.compare gt, %ar, %cpr : tensor<10xi64>, tensor<4x1xi64>
  %w = poot.constant dense<4> : tensor<i64>
  %lo = poot.sub %cpr, %w : tensor<4x1xi64>, tensor<i64>
  %slide = poot.compare le, %ar, %lo : tensor<10xi64>, tensor<4x1xi64>
  %hid = poot.or %diag, %slide : tensor<4x10xi1>, tensor<4x10xi1>
  %hf = poot.convert %hid : tensor<4x10xi1> -> tensor<4x10xf32>
  %cm = poot.mul %full, %hf : tensor<4x10xf32>, tensor<4x10xf32>
  %cm4 = poot.reshape %cm : tensor<4x10xf32> -> tensor<1x1x4x10xf32>
  %k5 = poot.reshape %k : tensor<1x2x10x40xf32> -> tensor<1x2x1x10x40xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 3, 10, 40>} : tensor<1x2x1x10x40xf32>
  %kr = poot.reshape %kb : tensor<1x2x3x10x40xf32> -> tensor<1x6x10x40xf32>
  %v5 = poot.reshape %v : tensor<1x2x10x40xf32> -> tensor<1x2x1x10x40xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 3, 10, 40>} : tensor<1x2x1x10x40xf32>
  %vr = poot.reshape %vb : tensor<1x2x3x10x40xf32> -> tensor<1x6x10x40xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x6x10x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x6x4x40xf32>, tensor<1x6x40x10xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x6x4x10xf32>, tensor<f32>
  %sm = poot.add %ss, %cm4 : tensor<1x6x4x10xf32>, tensor<1x1x4x10xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x6x4x10xf32>
  %d = poot.sub %sm, %m : tensor<1x6x4x10xf32>, tensor<1x6x4x1xf32>
  %e = poot.exp %d : tensor<1x6x4x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x6x4x10xf32>
  %p = poot.div %e, %z : tensor<1x6x4x10xf32>, tensor<1x6x4x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x6x4x10xf32>, tensor<1x6x10x40xf32>
  return %o : tensor<1x6x4x40xf32>
}
