// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near-miss of HF Llama 4.30's clamp: torch.max(w + mask, finfo.min) over a
// mask that is an input (as the model passes it in). A row the mask hides
// whole becomes uniform under the clamp (every score finfo.min), where the
// fused softmax would see -inf: the clamp cannot be peeled, so it declines.

// CHECK-LABEL: func.func @nm_clamp_over_input_mask
// CHECK-NOT: poot.attention
// CHECK: poot.max
// EXPLAIN: remark: attention declined: the scores are clamped at -3.38953e+38: finite mask fill -3.38953e+38 with rows that may have no visible key
func.func @nm_clamp_over_input_mask(%q: tensor<1x4x6x64xbf16>, %k: tensor<1x4x6x64xbf16>,
                                    %v: tensor<1x4x6x64xbf16>, %m4: tensor<1x1x6x6xbf16>) -> tensor<1x4x6x64xbf16> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x64xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x6x64xbf16>, tensor<1x4x64x6xbf16>
  %c = poot.constant dense<8.0> : tensor<bf16>
  %w = poot.div %s, %c : tensor<1x4x6x6xbf16>, tensor<bf16>
  %wm = poot.add %w, %m4 : tensor<1x4x6x6xbf16>, tensor<1x1x6x6xbf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %wc = poot.max %wm, %min : tensor<1x4x6x6xbf16>, tensor<bf16>
  %w32 = poot.convert %wc : tensor<1x4x6x6xbf16> -> tensor<1x4x6x6xf32>
  %m = poot.reduce_max %w32 {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %w32, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %pb = poot.convert %p : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xbf16>
  %o = poot.matmul %pb, %v : tensor<1x4x6x6xbf16>, tensor<1x4x6x64xbf16>
  return %o : tensor<1x4x6x64xbf16>
}
