// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}
// The graph's i64 values are 64-bit integers in the Vulkan kernels too
// (shaderInt64), so it is planned against this machine's device, which has
// them, rather than the generic one, which does not promise them.
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Near miss: the ONNX prefill mask with the padding mask an input and the
// finfo.min fill Hugging Face uses. A row whose visible keys are all
// padding is not empty under a finite fill: every key gets finfo.min and
// the row averages all values, where causal -inf on the others would
// average only the causal ones. No row is proven to keep a key, so the
// whole mask stays one additive tensor (causal and padding together),
// which computes the same sum. GQA 2/1, D = 40, B = 2, L = 5.

// CHECK-LABEL: func.func @nm_causal_finite_padding
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x5x40xf32>, %[[K:[^:]+]]: tensor<2x1x5x40xf32>, %[[V:[^:]+]]: tensor<2x1x5x40xf32>, %[[PAD:[^:]+]]: tensor<2x5xi1>
// CHECK: %[[CAUSAL:.+]] = poot.compare le
// CHECK: %[[P4:.+]] = poot.reshape %[[PAD]]
// CHECK: %[[AND:.+]] = poot.and %[[CAUSAL]], %[[P4]]
// CHECK: %[[M:.+]] = poot.select %[[AND]]
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x5x5xf32>) {n_rep = 2 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.158114, tensor mask; mask kept as a tensor: finite fill -3.40282e+38 over a condition read only in part{{$}}
func.func @nm_causal_finite_padding(%q: tensor<2x2x5x40xf32>, %k: tensor<2x1x5x40xf32>,
                                    %v: tensor<2x1x5x40xf32>, %pad: tensor<2x5xi1>)
    -> tensor<2x2x5x40xf32> {
  %keys = poot.constant dense<[[[[0, 1, 2, 3, 4]]]]> : tensor<1x1x1x5xi64>
  %rows = poot.constant dense<[[[[0], [1], [2], [3], [4]]]]> : tensor<1x1x5x1xi64>
  %causal = poot.compare le, %keys, %rows : tensor<1x1x1x5xi64>, tensor<1x1x5x1xi64>
  %pad4 = poot.reshape %pad : tensor<2x5xi1> -> tensor<2x1x1x5xi1>
  %mask = poot.and %causal, %pad4 : tensor<1x1x5x5xi1>, tensor<2x1x1x5xi1>
  %f0 = poot.constant dense<0.0> : tensor<f32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %bias = poot.select %mask, %f0, %fmin : tensor<2x1x5x5xi1>, tensor<f32>, tensor<f32>
  %k5 = poot.reshape %k : tensor<2x1x5x40xf32> -> tensor<2x1x1x5x40xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 1, 2, 5, 40>} : tensor<2x1x1x5x40xf32>
  %kr = poot.reshape %kb : tensor<2x1x2x5x40xf32> -> tensor<2x2x5x40xf32>
  %v5 = poot.reshape %v : tensor<2x1x5x40xf32> -> tensor<2x1x1x5x40xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 1, 2, 5, 40>} : tensor<2x1x1x5x40xf32>
  %vr = poot.reshape %vb : tensor<2x1x2x5x40xf32> -> tensor<2x2x5x40xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x5x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x5x40xf32>, tensor<2x2x40x5xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x5x5xf32>, tensor<f32>
  %sm = poot.add %ss, %bias : tensor<2x2x5x5xf32>, tensor<2x1x5x5xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x5x5xf32>
  %d = poot.sub %sm, %m : tensor<2x2x5x5xf32>, tensor<2x2x5x1xf32>
  %e = poot.exp %d : tensor<2x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x5x5xf32>
  %p = poot.div %e, %z : tensor<2x2x5x5xf32>, tensor<2x2x5x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x2x5x5xf32>, tensor<2x2x5x40xf32>
  return %o : tensor<2x2x5x40xf32>
}
