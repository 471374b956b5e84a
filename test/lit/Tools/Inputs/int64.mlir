// Probed by lit.cfg.py: compiles for the Vulkan device of this machine only
// where it has 64-bit integers (shaderInt64).
func.func @int64(%a: tensor<2xi64>) -> tensor<2xi64> {
  %0 = poot.add %a, %a : tensor<2xi64>, tensor<2xi64>
  return %0 : tensor<2xi64>
}
