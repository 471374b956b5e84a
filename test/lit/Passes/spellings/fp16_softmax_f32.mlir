// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// An f16 graph (HF eager under torch_dtype=float16): scores and scale in
// f16, softmax(dim=-1, dtype=torch.float32).to(torch.float16), p @ v in f16.
// GQA 8/2, D = 96, B = 2, Lq = 2.

// CHECK-LABEL: func.func @fp16_softmax_f32
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x2x96xf16>, %[[K:[^:]+]]: tensor<2x2x10x96xf16>, %[[V:[^:]+]]: tensor<2x2x10x96xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 4 : i64, scale = 0.1021118{{[0-9]+}} : f64} : tensor<2x8x2x96xf16>, tensor<2x2x10x96xf16>, tensor<2x2x10x96xf16> -> tensor<2x8x2x96xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @fp16_softmax_f32(%q: tensor<2x8x2x96xf16>, %k: tensor<2x2x10x96xf16>,
                            %v: tensor<2x2x10x96xf16>) -> tensor<2x8x2x96xf16> {
  %k5 = poot.reshape %k : tensor<2x2x10x96xf16> -> tensor<2x2x1x10x96xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 4, 10, 96>} : tensor<2x2x1x10x96xf16>
  %kr = poot.reshape %kb : tensor<2x2x4x10x96xf16> -> tensor<2x8x10x96xf16>
  %v5 = poot.reshape %v : tensor<2x2x10x96xf16> -> tensor<2x2x1x10x96xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 4, 10, 96>} : tensor<2x2x1x10x96xf16>
  %vr = poot.reshape %vb : tensor<2x2x4x10x96xf16> -> tensor<2x8x10x96xf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x10x96xf16>
  %s = poot.matmul %q, %kt : tensor<2x8x2x96xf16>, tensor<2x8x96x10xf16>
  %c = poot.constant dense<0.1021> : tensor<f16>
  %ss = poot.mul %s, %c : tensor<2x8x2x10xf16>, tensor<f16>
  %s32 = poot.convert %ss : tensor<2x8x2x10xf16> -> tensor<2x8x2x10xf32>
  %m = poot.reduce_max %s32 {axis = 3 : i64, keepdim} : tensor<2x8x2x10xf32>
  %d = poot.sub %s32, %m : tensor<2x8x2x10xf32>, tensor<2x8x2x1xf32>
  %e = poot.exp %d : tensor<2x8x2x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x2x10xf32>
  %p32 = poot.div %e, %z : tensor<2x8x2x10xf32>, tensor<2x8x2x1xf32>
  %p = poot.convert %p32 : tensor<2x8x2x10xf32> -> tensor<2x8x2x10xf16>
  %o = poot.matmul %p, %vr : tensor<2x8x2x10xf16>, tensor<2x8x10x96xf16>
  return %o : tensor<2x8x2x96xf16>
}
