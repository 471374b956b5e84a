//===- WordLoads.h - Read-only buffers read in groups --------- -*- C++ -*-===//
//
// SPIR-V's logical addressing has no pointer casts, so a vector load of a
// buffer of scalars is one load per element: a bf16 or f16 element is a
// 16-bit load, an f32 one a 32-bit load. Private to codegen/SPIRV.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_CODEGEN_SPIRV_WORDLOADS_H
#define POOT_CODEGEN_SPIRV_WORDLOADS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace poot::codegen {

/// Before the bf16 rewrite: every bf16, f16 or f32 buffer argument of a
/// kernel that the kernel only reads (memref.load and 1-D vector.load,
/// nothing else), of static shape, is retyped to groups of N elements of
/// its last dim (the same bytes), where a group is 16, 8 or 4 bytes:
///   - f32: `vector<N x f32>` (N = 4 or 2);
///   - bf16 and f16: 32-bit words, `vector<N/2 x i32>` (N = 8 or 4) or
///     `i32` (N = 2), since SPIR-V vectors hold at most 4 components and
///     a vector of f16 would be a float type the buffer does not need.
/// The group is the widest that divides the last dim and that every
/// vector load of the buffer covers whole (its length and the alignment
/// of its last index, isProvablyMultipleOf); a buffer whose vector loads
/// cover no group of two elements and 4 bytes (or that has none) stays as
/// it is.
/// A vector load of whole groups is one load a group; any other load
/// takes its element out of the group it falls in (selects on the index's
/// low bits). Loaded values keep their type: a bf16 element is the
/// arith.truncf of the exact f32 its word half holds, which the bf16
/// rewrite folds (storeBf16AsWords), an f16 one an element of the word
/// bitcast to two f16.
///
/// The f16 vector loads of a buffer left as it is become element loads.
void readBuffersInGroups(mlir::gpu::GPUModuleOp module);

/// The largest k, at most 30, for which index `v` is provably a multiple
/// of 2^k by how it is computed: constants, products (whose factors'
/// powers add), sums, differences, min/max and selects (the smaller
/// power), shifts left (which add theirs), masks, casts, and loop
/// variables whose start and step are multiples. 0 when nothing can be
/// shown.
int64_t provablePowerOfTwoFactor(mlir::Value v, int depth = 0);

/// Whether `v` is provably a multiple of `powerOfTwo` (a power of two).
bool isProvablyMultipleOf(mlir::Value v, int64_t powerOfTwo);

} // namespace poot::codegen

#endif // POOT_CODEGEN_SPIRV_WORDLOADS_H
