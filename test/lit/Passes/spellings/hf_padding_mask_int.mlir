// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}
// The graph's i64 values are 64-bit integers in the Vulkan kernels too
// (shaderInt64), so it is planned against this machine's device, which has
// them, rather than the generic one, which does not promise them.

// BERT-era HF: an integer attention_mask [B, Lk] of 0/1, viewed as
// [B, 1, 1, Lk]; scores.masked_fill(attention_mask == 0, -inf). B = 2,
// H = 2, D = 64, Lq = 4.

// CHECK-LABEL: func.func @hf_padding_mask_int
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x4x64xf32>, %[[K:[^:]+]]: tensor<2x2x16x64xf32>, %[[V:[^:]+]]: tensor<2x2x16x64xf32>, %[[AM:[^:]+]]: tensor<2x16xi64>
// mask = (attention_mask == 0) ? -inf : 0, as an additive tensor
// CHECK: %[[HID:.+]] = poot.compare eq
// CHECK: %[[SEL:.+]] = poot.select %[[HID]]
// CHECK: %[[M:.+]] = poot.broadcast %[[SEL]] {shape = array<i64: 2, 1, 4, 16>}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x4x16xf32>) {n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @hf_padding_mask_int(%q: tensor<2x2x4x64xf32>, %k: tensor<2x2x16x64xf32>,
                               %v: tensor<2x2x16x64xf32>,
                               %am: tensor<2x16xi64> {poot.range = array<i64: 0, 2>})
    -> tensor<2x2x4x64xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x16x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x4x64xf32>, tensor<2x2x64x16xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x4x16xf32>, tensor<f32>
  %am4 = poot.reshape %am : tensor<2x16xi64> -> tensor<2x1x1x16xi64>
  %zero = poot.constant dense<0> : tensor<i64>
  %hid = poot.compare eq, %am4, %zero : tensor<2x1x1x16xi64>, tensor<i64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %ss : tensor<2x1x1x16xi1>, tensor<f32>, tensor<2x2x4x16xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x4x16xf32>
  %d = poot.sub %sm, %m : tensor<2x2x4x16xf32>, tensor<2x2x4x1xf32>
  %e = poot.exp %d : tensor<2x2x4x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x16xf32>
  %p = poot.div %e, %z : tensor<2x2x4x16xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x16xf32>, tensor<2x2x16x64xf32>
  return %o : tensor<2x2x4x64xf32>
}
