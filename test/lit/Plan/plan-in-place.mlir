// RUN: poot-opt %s --split-input-file --poot-plan=device=sm_90 | FileCheck %s
// RUN: poot-opt %s --split-input-file --poot-plan=device=sm_90 --poot-generate=target=nvvm | FileCheck %s --check-prefix=GEN

// A cache write whose operand 0 is a graph input used by nothing else takes
// that input's storage: the kernel has no result buffer and one thread per
// written element (2 x 1 x 128 = 256 for the row: 4 workgroups of 64; 3 x 2
// = 6 for the slots),
// where the copying form has one per element of the whole cache.
// CHECK-LABEL: func.func @cache
// CHECK: poot.dynamic_update_slice {{.*}} {poot.in_place}
// CHECK: poot.scatter_update {{.*}} {poot.in_place}
// GEN-LABEL: func.func @cache
// GEN: poot.dynamic_update_slice {{.*}}args = ["in0", "in1", "in2", "in3", "in4"], grid = array<i64: 4, 1>, kernel = "dynamic_update_slice_0", lanes = 64
// GEN: poot.scatter_update {{.*}}args = ["in0", "in1", "in2", "err"], grid = array<i64: 1, 1>
// GEN: gpu.func @dynamic_update_slice_0(%{{.*}}: memref<1048576xbf16, {{.*}}>, %{{.*}}: memref<256xbf16, {{.*}}>, %{{.*}}: memref<1xi32, {{.*}}>, %{{.*}}: memref<1xi32, {{.*}}>, %{{.*}}: memref<1xi32, {{.*}}>) kernel
func.func @cache(%cache: tensor<2x4096x128xbf16>, %row: tensor<2x1x128xbf16>, %p: tensor<i32>,
                 %pool: tensor<64x2xf32>, %slots: tensor<3xi32>, %rows: tensor<3x2xf32>)
    -> (tensor<2x4096x128xbf16>, tensor<64x2xf32>) {
  %z = poot.constant dense<0> : tensor<i32>
  %0 = poot.dynamic_update_slice %cache[%z, %p, %z], %row : tensor<2x4096x128xbf16>, tensor<2x1x128xbf16>, tensor<i32>, tensor<i32>, tensor<i32>
  %1 = poot.scatter_update %pool[%slots], %rows : tensor<64x2xf32>, tensor<3xi32>, tensor<3x2xf32>
  return %0, %1 : tensor<2x4096x128xbf16>, tensor<64x2xf32>
}

// -----

// The input is also read after the write (here, returned as it was), or
// the written value is computed: both keep the copy, with a result buffer.
// CHECK-LABEL: func.func @shared
// CHECK-NOT: poot.in_place
// CHECK: return
// GEN-LABEL: func.func @shared
// GEN: poot.dynamic_update_slice {{.*}}args = ["in0", "in1", "in2", "in3", "out0"]
// GEN: poot.scatter_update {{.*}}args = ["in0", "in1", "in2", "out0", "err"]
func.func @shared(%cache: tensor<4x8xf32>, %row: tensor<1x8xf32>, %p: tensor<i32>,
                  %slots: tensor<1xi32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %z = poot.constant dense<0> : tensor<i32>
  %0 = poot.dynamic_update_slice %cache[%p, %z], %row : tensor<4x8xf32>, tensor<1x8xf32>, tensor<i32>, tensor<i32>
  %1 = poot.neg %cache : tensor<4x8xf32>
  %2 = poot.scatter_update %1[%slots], %row : tensor<4x8xf32>, tensor<1xi32>, tensor<1x8xf32>
  return %0, %2, %cache : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
