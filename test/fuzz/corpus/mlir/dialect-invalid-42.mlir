func.func @dynamic_shape(%a: tensor<?xf32>) {
  %0 = poot.exp %a : tensor<?xf32>
  return
}
