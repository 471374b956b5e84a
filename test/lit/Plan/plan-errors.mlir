// RUN: poot-opt %s --split-input-file --verify-diagnostics --poot-plan=device=vulkan

// The typed capability errors, each naming its numbers.

// A value 8192 wide needs 32776 bytes of running state for one lane; the
// generic Vulkan device has 16384.
func.func @lds(%q: tensor<1x1x1x64xf32>, %k: tensor<1x1x16x64xf32>, %v: tensor<1x1x16x8192xf32>) -> tensor<1x1x1x8192xf32> {
  // expected-error @+1 {{AttentionLds: value width 8192 needs 32776 bytes of workgroup memory for one lane, device vulkan has 16384}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 1 : i64} : tensor<1x1x1x64xf32>, tensor<1x1x16x64xf32>, tensor<1x1x16x8192xf32> -> tensor<1x1x1x8192xf32>
  return %o : tensor<1x1x1x8192xf32>
}
