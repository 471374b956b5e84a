//===- PootDialect.h - The poot dialect -------------------------*- C++ -*-===//
//
// Declares the poot dialect, its ops, and the names of the graph-convention
// attributes it verifies on functions.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_DIALECT_POOTDIALECT_H
#define POOT_DIALECT_POOTDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "poot/Dialect/PootDialect.h.inc"
#include "poot/Dialect/PootEnums.h.inc"

namespace poot::detail {
/// Parses a boolean attribute field written `true` or `false`.
mlir::FailureOr<bool> parseFlag(mlir::AsmParser &parser);
} // namespace poot::detail

#define GET_ATTRDEF_CLASSES
#include "poot/Dialect/PootAttrs.h.inc"

#define GET_OP_CLASSES
#include "poot/Dialect/PootOps.h.inc"

namespace poot {

/// Argument/result attributes of the graph conventions (docs/architecture.md, "The IR").
namespace attrs {
inline constexpr llvm::StringLiteral kSlot = "poot.slot";
inline constexpr llvm::StringLiteral kRange = "poot.range";
inline constexpr llvm::StringLiteral kState = "poot.state";
inline constexpr llvm::StringLiteral kValidation = "poot.validation";
inline constexpr llvm::StringLiteral kName = "poot.name";
/// On a dynamic_update_slice or scatter_update: its result takes operand
/// 0's storage, so the device kernel writes only the updated elements.
inline constexpr llvm::StringLiteral kInPlace = "poot.in_place";
/// On a poot.attention: its `#poot.attention_schedule`, written by poot-plan.
inline constexpr llvm::StringLiteral kSchedule = "poot.schedule";
/// On a poot.attention with a tile schedule: its kernel counts the key
/// tiles each workgroup visits (poot-plan's count-tiles, for tests).
inline constexpr llvm::StringLiteral kCountTiles = "poot.count_tiles";
} // namespace attrs

/// The slot names a graph input may declare.
bool isKnownSlot(llvm::StringRef slot);

} // namespace poot

#endif // POOT_DIALECT_POOTDIALECT_H
