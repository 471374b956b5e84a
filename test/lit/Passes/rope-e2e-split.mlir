// RUN: poot-opt %s --poot-rope | FileCheck %s
// RUN: poot-opt %s --poot-rope -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
//
// JAX-style split halves with a partial width, on [B, S, H, D] with
// half-width [S, 1, r/2] tables (D = 40, r = 16):
// out = concat(x1 * c - x2 * s, x2 * c + x1 * s, x[..., r:]). The fused op
// reads cos = concat(c, c) and sin = concat(s, s), reshaped to x's rank.
// CHECK-LABEL: func.func @rope_split
// CHECK-NOT: poot.sub
// CHECK: poot.rope %{{.+}} {rotary_dim = 16 : i64, style = "half"} : tensor<1x6x2x40xf32>, tensor<1x6x1x16xf32>, tensor<1x6x1x16xf32>
// CHECK-NOT: poot.sub

func.func @rope_split(%x: tensor<1x6x2x40xf32>, %c: tensor<6x1x8xf32>, %s: tensor<6x1x8xf32>) -> tensor<1x6x2x40xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 6, 2, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x2x40xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 6, 2, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x2x40xf32>
  %pass = poot.slice %x {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 6, 2, 40>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x2x40xf32>
  %a = poot.mul %x1, %c : tensor<1x6x2x8xf32>, tensor<6x1x8xf32>
  %b = poot.mul %x2, %s : tensor<1x6x2x8xf32>, tensor<6x1x8xf32>
  %lo = poot.sub %a, %b : tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>
  %d = poot.mul %x2, %c : tensor<1x6x2x8xf32>, tensor<6x1x8xf32>
  %e = poot.mul %x1, %s : tensor<1x6x2x8xf32>, tensor<6x1x8xf32>
  %hi = poot.add %d, %e : tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>
  %out = poot.concat %lo, %hi, %pass {axis = 3 : i64} : tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x24xf32>
  return %out : tensor<1x6x2x40xf32>
}
