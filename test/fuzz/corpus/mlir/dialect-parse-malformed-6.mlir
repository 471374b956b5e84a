func.func @add_dynamic_operand(%x: tensor<?x4xf32>) {
  %0 = poot.add %x, %x : tensor<?x4xf32>, tensor<?x4xf32>
  return
}
