// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// An ONNX export's prefill mask with a -inf fill, in bf16: key positions
// and query positions are constant aranges ([0..5] along the keys, and
// [0..5] laid out along the rows), LessOrEqual, And with the padding mask
// (a bool input [B, Lk], unsqueezed), Where(mask, 0, -inf) added. With a
// -inf fill a key is hidden iff some conjunct hides it, so the mask splits:
// the causal conjunct is the op's causal flag, the padding conjunct stays
// a tensor mask. GQA 4/2, D = 40, B = 2, L = 6.

// CHECK-LABEL: func.func @causal_onnx_range_prefill_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x6x40xbf16>, %[[K:[^:]+]]: tensor<2x2x6x40xbf16>, %[[V:[^:]+]]: tensor<2x2x6x40xbf16>, %[[PAD:[^:]+]]: tensor<2x6xi1>
// the padding conjunct alone stays a tensor: select(pad, 0, -inf)
// CHECK: %[[P4:.+]] = poot.reshape %[[PAD]] : tensor<2x6xi1> -> tensor<2x1x1x6xi1>
// CHECK: %[[SEL:.+]] = poot.select %[[P4]]
// CHECK: %[[M:.+]] = poot.broadcast %[[SEL]] {shape = array<i64: 2, 1, 6, 6>}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x6x6xbf16>) {causal, n_rep = 2 : i64, scale = 0.158{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @causal_onnx_range_prefill_bf16(%q: tensor<2x4x6x40xbf16>, %k: tensor<2x2x6x40xbf16>,
                                          %v: tensor<2x2x6x40xbf16>, %pad: tensor<2x6xi1>)
    -> tensor<2x4x6x40xbf16> {
  %keys = poot.constant dense<[[[[0, 1, 2, 3, 4, 5]]]]> : tensor<1x1x1x6xi64>
  %rows = poot.constant dense<[[[[0], [1], [2], [3], [4], [5]]]]> : tensor<1x1x6x1xi64>
  %causal = poot.compare le, %keys, %rows : tensor<1x1x1x6xi64>, tensor<1x1x6x1xi64>
  %pad4 = poot.reshape %pad : tensor<2x6xi1> -> tensor<2x1x1x6xi1>
  %mask = poot.and %causal, %pad4 : tensor<1x1x6x6xi1>, tensor<2x1x1x6xi1>
  %f0 = poot.constant dense<0.0> : tensor<bf16>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %bias = poot.select %mask, %f0, %ninf : tensor<2x1x6x6xi1>, tensor<bf16>, tensor<bf16>
  %k5 = poot.reshape %k : tensor<2x2x6x40xbf16> -> tensor<2x2x1x6x40xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 2, 6, 40>} : tensor<2x2x1x6x40xbf16>
  %kr = poot.reshape %kb : tensor<2x2x2x6x40xbf16> -> tensor<2x4x6x40xbf16>
  %v5 = poot.reshape %v : tensor<2x2x6x40xbf16> -> tensor<2x2x1x6x40xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 2, 6, 40>} : tensor<2x2x1x6x40xbf16>
  %vr = poot.reshape %vb : tensor<2x2x2x6x40xbf16> -> tensor<2x4x6x40xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x6x40xbf16>
  %s = poot.matmul %q, %kt : tensor<2x4x6x40xbf16>, tensor<2x4x40x6xbf16>
  %c = poot.constant dense<0.158113882> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<2x4x6x6xbf16>, tensor<bf16>
  %sm = poot.add %ss, %bias : tensor<2x4x6x6xbf16>, tensor<2x1x6x6xbf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x6x6xbf16>
  %d = poot.sub %sm, %m : tensor<2x4x6x6xbf16>, tensor<2x4x6x1xbf16>
  %e = poot.exp %d : tensor<2x4x6x6xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x6x6xbf16>
  %p = poot.div %e, %z : tensor<2x4x6x6xbf16>, tensor<2x4x6x1xbf16>
  %o = poot.matmul %p, %vr : tensor<2x4x6x6xbf16>, tensor<2x4x6x40xbf16>
  return %o : tensor<2x4x6x40xbf16>
}
