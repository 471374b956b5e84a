// RUN: poot-opt %s --verify-diagnostics --poot-plan="device=sm_90 memory-bytes=4096"
// RUN: poot-opt %s --poot-plan="device=sm_90 max-buffer-bytes=4096" | FileCheck %s

// One row over 32768 keys splits 16 ways: 16 * 130 floats = 8320 bytes of
// partials. A device that can allocate only 4096 bytes refuses the plan with
// ScratchBytes; a device whose single-buffer limit is 4096 keeps streaming.
// CHECK: #poot.attention_schedule<
// CHECK-NOT: split = true
func.func @scratch(%q: tensor<1x1x1x128xf32>, %k: tensor<1x1x32768x128xf32>, %v: tensor<1x1x32768x128xf32>) -> tensor<1x1x1x128xf32> {
  // expected-error @+1 {{ScratchBytes: split-KV scratch of 8320 bytes (1 rows x 16 splits x 130 floats) exceeds the 4096 bytes device sm_90 can allocate}}
  %o = poot.attention %q, %k, %v {scale = 0.088 : f64, n_rep = 1 : i64} : tensor<1x1x1x128xf32>, tensor<1x1x32768x128xf32>, tensor<1x1x32768x128xf32> -> tensor<1x1x1x128xf32>
  return %o : tensor<1x1x1x128xf32>
}
