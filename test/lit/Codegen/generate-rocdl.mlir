// RUN: poot-opt %s --poot-plan=device=gfx942 --poot-generate="target=rocdl chip=gfx942" | FileCheck %s --check-prefix=GFX942
// RUN: poot-opt %s --poot-plan=device=gfx1100 --poot-generate="target=rocdl chip=gfx1100" | FileCheck %s --check-prefix=GFX1100

// The ROCDL hooks: global buffers, LDS as workgroup attributions, the
// workgroup size as known_block_size, e^x as LLVM's exp intrinsic (no math
// op for the ROCDL conversion to turn into an ocml call). The channel
// schedule sums the dot product over one wavefront: 64 lanes on gfx942, 32
// on gfx1100.
// GFX942-LABEL: gpu.func @attention_0_stream
// GFX942-SAME: memref<8x8x1x128xf32, #gpu.address_space<global>>
// GFX942-SAME: workgroup(%{{.*}} : memref<{{[0-9]+}}xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}
// GFX942-SAME: known_block_size = array<i32: 1024, 1, 1>
// GFX942: gpu.shuffle  xor %{{.*}}, %{{.*}}, %c64_i32 : f32
// GFX942: llvm.call_intrinsic "llvm.exp.f32"
// GFX942-NOT: math.exp
// GFX1100-LABEL: gpu.func @attention_0_stream
// GFX1100-SAME: known_block_size = array<i32: 512, 1, 1>
// GFX1100: gpu.shuffle  xor %{{.*}}, %{{.*}}, %c32_i32 : f32
func.func @decode(%q: tensor<8x8x1x128xf32>, %k: tensor<8x2x128x128xf32>, %v: tensor<8x2x128x128xf32>) -> tensor<8x8x1x128xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 4 : i64} : tensor<8x8x1x128xf32>, tensor<8x2x128x128xf32>, tensor<8x2x128x128xf32> -> tensor<8x8x1x128xf32>
  return %o : tensor<8x8x1x128xf32>
}
