//===- Bf16Storage.h - bf16 buffers as 16-bit words on SPIR-V ---*- C++ -*-===//
//
// SPIR-V has no bfloat type without an extension, so the SPIR-V target
// stores bf16 as 16-bit integer words and converts in the kernel. Private to
// codegen/SPIRV.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_CODEGEN_SPIRV_BF16STORAGE_H
#define POOT_CODEGEN_SPIRV_BF16STORAGE_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

namespace poot::codegen {

/// Rewrites every bf16 of `module`'s kernels away, before the SPIR-V
/// conversion:
///   - a bf16 buffer (StorageBuffer) becomes an i16 memref, a bf16 memref
///     of another storage class (workgroup memory) an f32 one;
///   - a bf16 value is held as the f32 of the same number, so a bf16 load
///     is an i16 load widened to f32 (zero-extended, shifted left by 16,
///     bitcast), and arith.extf from bf16 folds into it;
///   - arith.truncf to bf16 rounds the f32 to the nearest even bf16 (add
///     0x7FFF plus the lowest kept bit, clear the low half; a NaN stays a
///     quiet NaN), and a store keeps the high half as the i16 word; an
///     f32 bitcast from a word whose low half is provably zero (a half of
///     a 32-bit word that WordLoads.h loaded) is a bf16 already and is not
///     rounded;
///   - constants, selects, comparisons, min/max and vector element moves
///     of bf16 act on the f32 form, which they leave exact.
/// Arithmetic on bf16 values themselves (the generator computes in f32) is
/// refused with a diagnostic rather than computed at another precision.
/// Sets `changed` when the module had a bf16 to rewrite.
mlir::LogicalResult storeBf16AsWords(mlir::gpu::GPUModuleOp module,
                                     bool &changed);

/// After the conversion: the i16 values a bf16 kernel holds are only
/// loaded and widened, or narrowed and stored, which StorageBuffer16BitAccess
/// allows without the Int16 capability. Checks that this holds for `module`
/// and then drops Int16 from its requirements (the conversion is run with
/// Int16 allowed so that it keeps those words 16 bits wide); fails on a
/// 16-bit integer that takes part in anything else.
mlir::LogicalResult dropStorageOnlyInt16(mlir::spirv::ModuleOp module);

} // namespace poot::codegen

#endif // POOT_CODEGEN_SPIRV_BF16STORAGE_H
