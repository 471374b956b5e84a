// bf16 on SPIR-V rounds to nearest even and keeps a NaN a NaN, bit for bit
// with the runtime's f32 -> bf16 (on lavapipe in CI). The values are f32
// bit patterns; the outputs are written as f4, a bf16 in the high half.
// REQUIRES: vulkan
// RUN: rm -rf %t && poot-run %s --device=vulkan --device-only --no-fusion --out-dir=%t | FileCheck %s --check-prefix=RAN
// RAN: (9 eqns on the device)
// RUN: od -An -v -tx4 -j128 %t/y.npy | FileCheck %s --check-prefix=Y --match-full-lines
// RUN: od -An -v -tx4 -j128 %t/z.npy | FileCheck %s --check-prefix=Y --match-full-lines
// RUN: od -An -v -tx4 -j128 %t/s.npy | FileCheck %s --check-prefix=S --match-full-lines
// RUN: od -An -v -tx4 -j128 %t/m.npy | FileCheck %s --check-prefix=M --match-full-lines
//
// x -> bf16 (y), and y widened back to f32 (z), exactly the same words:
//   1 + 2^-8 (a tie: down to even 1), 1 + 3 2^-8 (a tie: up to even
//   1 + 2^-6), just past a tie (up), 1 + 2^-7 - 2^-23 (up);
//   the largest finite f32 and the tie above the largest bf16 (both to
//   inf), just below that tie (the largest bf16), inf, -inf, -0;
//   quiet NaNs, one whose low half would carry into the sign (0x7FFFFFFF
//   rounded as a number is -0), a negative one;
//   the smallest bf16 subnormal (kept), half of it (a tie: down to 0), and
//   a negative tie.
// Y:       3f800000 3f820000 3f810000 3f810000
// Y-NEXT:  7f800000 7f800000 7f7f0000 7f800000
// Y-NEXT:  ff800000 80000000 7fc00000 7fff0000
// Y-NEXT:  ffff0000 00010000 00000000 bf820000
//
// bf16 + bf16, summed in f32 and rounded once: 1 + 2^-8 (a tie: 1),
// (1 + 2^-7) + 2^-8 (a tie: up to 1 + 2^-6), -1 - 2^-8 (-1),
// 3 + 1.5 ulp (up to 3 + 2 ulp).
// S:       3f800000 3f820000 bf800000 40420000
//
// A bf16 matmul accumulates in f32 and rounds once: 1 + 2^-8 (a tie: 1),
// 1 + 2^-8 + 2^-9 (past the tie: 1 + 2^-7).
// M:       3f800000 40000000 3f810000 40000000
func.func @bf16_rounding() -> (tensor<16xbf16> {poot.name = "y"},
                               tensor<16xf32> {poot.name = "z"},
                               tensor<4xbf16> {poot.name = "s"},
                               tensor<2x2xbf16> {poot.name = "m"}) {
  %x = poot.constant dense<[0x3F808000, 0x3F818000, 0x3F808001, 0x3F80FFFF,
                            0x7F7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x7F800000,
                            0xFF800000, 0x80000000, 0x7FC00000, 0x7FFFFFFF,
                            0xFFFFFFFF, 0x00010000, 0x00008000, 0xBF818000]> : tensor<16xf32>
  %y = poot.convert %x : tensor<16xf32> -> tensor<16xbf16>
  %z = poot.convert %y : tensor<16xbf16> -> tensor<16xf32>
  %a = poot.constant dense<[1.0, 1.0078125, -1.0, 3.0]> : tensor<4xbf16>
  %b = poot.constant dense<[0.00390625, 0.00390625, -0.00390625, 0.0234375]> : tensor<4xbf16>
  %s = poot.add %a, %b : tensor<4xbf16>, tensor<4xbf16>
  %p = poot.constant dense<[[1.0, 0.00390625, 0.0], [1.0, 0.00390625, 0.001953125]]> : tensor<2x3xbf16>
  %q = poot.constant dense<[[1.0, 2.0], [1.0, 0.0], [1.0, 0.0]]> : tensor<3x2xbf16>
  %m = poot.matmul %p, %q : tensor<2x3xbf16>, tensor<3x2xbf16>
  return %y, %z, %s, %m : tensor<16xbf16>, tensor<16xf32>, tensor<4xbf16>, tensor<2x2xbf16>
}
