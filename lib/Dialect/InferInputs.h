//===- InferInputs.h - What type inference may assume ----------*- C++ -*-===//
//
// An op's inferReturnTypes runs on what the parser read, before the
// verifier: a required attribute may be missing or of another kind, and an
// operand of any type. Each inference checks both first, so a malformed
// graph gets a typed error at the op instead of a bad cast.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_LIB_DIALECT_INFERINPUTS_H
#define POOT_LIB_DIALECT_INFERINPUTS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/ValueRange.h"

#include <optional>

namespace poot::detail {

/// The adaptor's attributes are present and of their declared kinds (ODS's
/// adaptor verifier), and every operand is a tensor of static shape, as
/// every poot op's operands are declared.
template <typename AdaptorT>
mlir::LogicalResult checkInferInputs(AdaptorT &adaptor, mlir::MLIRContext *ctx,
                                     std::optional<mlir::Location> loc,
                                     mlir::ValueRange operands) {
  if (failed(adaptor.verify(loc ? *loc : mlir::UnknownLoc::get(ctx))))
    return mlir::failure();
  for (mlir::Value operand : operands) {
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape())
      return mlir::emitOptionalError(
          loc, "expected operands of static-shaped tensor type, got ",
          operand.getType());
  }
  return mlir::success();
}

} // namespace poot::detail

#endif // POOT_LIB_DIALECT_INFERINPUTS_H
