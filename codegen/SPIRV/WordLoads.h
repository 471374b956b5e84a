//===- WordLoads.h - 16-bit buffers read a 32-bit word at a time -*- C++ -*-===//
//
// SPIR-V's logical addressing has no pointer casts, so a vector load of a
// buffer is one load per element, and a bf16 or f16 element is a 16-bit
// load. Private to codegen/SPIRV.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_CODEGEN_SPIRV_WORDLOADS_H
#define POOT_CODEGEN_SPIRV_WORDLOADS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace poot::codegen {

/// Before the bf16 rewrite: every bf16 or f16 buffer argument of a kernel
/// that the kernel only reads (memref.load and vector.load, nothing else),
/// with a static shape whose last dim is even, is retyped to pairs
/// (memref<... x D/2 x vector<2 x E>>: the same bytes), and its loads read
/// pairs: a vector load of 2k elements at a last index proven even is k
/// pair loads, any other load takes its element out of the pair it falls
/// in. A bf16 pair is then one 32-bit word (storeBf16AsWords), so the keys
/// and values of a decode travel two elements a load instead of one.
void readSixteenBitPairs(mlir::gpu::GPUModuleOp module);

/// Whether index `v` is even by how it is computed (constants, products
/// with an even factor, sums of evens, shifts left, loop variables that
/// start even and step evenly); false when that cannot be shown.
bool isProvablyEven(mlir::Value v, int depth = 0);

} // namespace poot::codegen

#endif // POOT_CODEGEN_SPIRV_WORDLOADS_H
