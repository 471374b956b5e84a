// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// An iota along a unit dim (the key index taken along dim 2 of a
// [1, 1, 1, 4] tensor: 0 at every key) in an ALiBi-and-causal mask
// expression. Rebuilding the condition over the axes it varies along once
// made an iota of a dim past its rank out of it (found by the fuzzer); it
// is the constant 0 there. Here t = 0 hides no key and the bias -i * slope
// is constant along each row: it fuses with the mask kept as a tensor.
// CHECK-LABEL: func.func @iota_along_unit_dim
// CHECK: poot.attention %arg0, %arg1, %arg2 mask(
func.func @iota_along_unit_dim(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x4x1xi32>
  %t = poot.iota {dim = 2 : i64} : tensor<1x1x1x4xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %i1 = poot.add %i, %one : tensor<1x1x4x1xi32>, tensor<i32>
  %hid = poot.compare gt, %t, %i1 : tensor<1x1x1x4xi32>, tensor<1x1x4x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<1x1x4x4xf32>
  %zero = poot.constant dense<0.0> : tensor<1x1x4x4xf32>
  %causal = poot.select %hid, %ninf, %zero : tensor<1x1x4x4xi1>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
  %rel = poot.sub %t, %i : tensor<1x1x1x4xi32>, tensor<1x1x4x1xi32>
  %relf = poot.convert %rel : tensor<1x1x4x4xi32> -> tensor<1x1x4x4xf32>
  %slopes = poot.constant dense<[[[[2.5e-01]], [[6.25e-02]]]]> : tensor<1x2x1x1xf32>
  %bias = poot.mul %relf, %slopes : tensor<1x1x4x4xf32>, tensor<1x2x1x1xf32>
  %mask = poot.add %causal, %bias : tensor<1x1x4x4xf32>, tensor<1x2x4x4xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x4xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %d = poot.sub %sm, %m : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}
