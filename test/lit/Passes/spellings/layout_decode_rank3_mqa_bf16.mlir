// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Decode in bf16 with one key/value head broadcast by the matmuls (MQA) and
// the unit query axis squeezed: scores [b, h, 1, k] squeezed to [b, h, k],
// an additive mask [b, 1, k] (a padding mask, one row per sequence) added
// there, softmax over the last axis, unsqueezed for P . V. Moved up, the
// squeeze and unsqueeze cancel and the mask is read as [b, 1, 1, k].
// Four heads, D = 40, B = 2, Lk = 9.

// CHECK-LABEL: func.func @layout_decode_rank3_mqa_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x1x40xbf16>, %[[K:[^:]+]]: tensor<2x1x9x40xbf16>, %[[V:[^:]+]]: tensor<2x1x9x40xbf16>, %[[M:[^:]+]]: tensor<2x1x9xbf16>
// CHECK: %[[M4:.+]] = poot.reshape %[[M]] : tensor<2x1x9xbf16> -> tensor<2x1x1x9xbf16>
// out = softmax((q . k) * 40^-1/2 + mask) . v, every head reading key head 0
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M4]] : tensor<2x1x1x9xbf16>) {n_rep = 4 : i64, scale = 0.158{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @layout_decode_rank3_mqa_bf16(%q: tensor<2x4x1x40xbf16>, %k: tensor<2x1x9x40xbf16>,
                                        %v: tensor<2x1x9x40xbf16>, %mask: tensor<2x1x9xbf16>)
    -> tensor<2x4x1x40xbf16> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x9x40xbf16>
  %s4 = poot.matmul %q, %kt : tensor<2x4x1x40xbf16>, tensor<2x1x40x9xbf16>
  %s = poot.reshape %s4 : tensor<2x4x1x9xbf16> -> tensor<2x4x9xbf16>
  %c = poot.constant dense<0.158113882> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<2x4x9xbf16>, tensor<bf16>
  %sm = poot.add %ss, %mask : tensor<2x4x9xbf16>, tensor<2x1x9xbf16>
  %m = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<2x4x9xbf16>
  %d = poot.sub %sm, %m : tensor<2x4x9xbf16>, tensor<2x4x1xbf16>
  %e = poot.exp %d : tensor<2x4x9xbf16>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x4x9xbf16>
  %p = poot.div %e, %z : tensor<2x4x9xbf16>, tensor<2x4x1xbf16>
  %p4 = poot.reshape %p : tensor<2x4x9xbf16> -> tensor<2x4x1x9xbf16>
  %o = poot.matmul %p4, %v : tensor<2x4x1x9xbf16>, tensor<2x1x9x40xbf16>
  return %o : tensor<2x4x1x40xbf16>
}
