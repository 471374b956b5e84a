// RUN: poot-opt %s --split-input-file --verify-diagnostics --poot-plan=device=vulkan

// The typed capability errors, each naming its numbers.

// A value 8192 wide needs 32776 bytes of running state for one lane; the
// generic Vulkan device has 16384.
func.func @lds(%q: tensor<1x1x1x64xf32>, %k: tensor<1x1x16x64xf32>, %v: tensor<1x1x16x8192xf32>) -> tensor<1x1x1x8192xf32> {
  // expected-error @+1 {{AttentionLds: value width 8192 needs 32776 bytes of workgroup memory for one lane, device vulkan has 16384}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 1 : i64} : tensor<1x1x1x64xf32>, tensor<1x1x16x64xf32>, tensor<1x1x16x8192xf32> -> tensor<1x1x1x8192xf32>
  return %o : tensor<1x1x1x8192xf32>
}

// -----

// A kernel would store and compute these i64 values in 64 bits, which the
// generic Vulkan device does not promise (shaderInt64 is optional).
func.func @int64_values(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi1> {
  // expected-error @+1 {{DtypeLowering: target spirv on device vulkan cannot store i64 buffers: the device lacks shaderInt64}}
  %c = poot.compare lt, %a, %b : tensor<4xi64>, tensor<4xi64>
  return %c : tensor<4xi1>
}

// -----

// An attention's i64 position reaches its kernel as i32 (the runtime
// narrows it, refusing a value that does not fit), and a constant has no
// kernel: nothing here needs 64-bit integers on the device.
func.func @int64_position(%q: tensor<1x1x1x64xf32>, %k: tensor<1x1x16x64xf32>, %v: tensor<1x1x16x64xf32>, %p: tensor<i64>) -> (tensor<1x1x1x64xf32>, tensor<i64>) {
  %o = poot.attention %q, %k, %v pos(%p : tensor<i64>) {causal, scale = 0.125 : f64, n_rep = 1 : i64} : tensor<1x1x1x64xf32>, tensor<1x1x16x64xf32>, tensor<1x1x16x64xf32> -> tensor<1x1x1x64xf32>
  %c = poot.constant dense<5000000000> : tensor<i64>
  return %o, %c : tensor<1x1x1x64xf32>, tensor<i64>
}
