func.func @transpose_scalar_operand(%x: i32) {
  %0 = "poot.transpose"(%x) {perm = array<i64: 0>} : (i32) -> i32
  return
}
