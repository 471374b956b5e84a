//===- Explain.h - Naming ops in --poot-explain reasons ---------*- C++ -*-===//
#ifndef POOT_PASSES_EXPLAIN_H
#define POOT_PASSES_EXPLAIN_H

#include "mlir/IR/Operation.h"

#include <string>

namespace poot {

/// Names an op for a decline reason, so the remark points at the op that
/// breaks a proof: 'poot.sub' at line 12 (the line of its first file
/// location; just the name when it has none).
std::string describeOp(mlir::Operation *op);

} // namespace poot

#endif // POOT_PASSES_EXPLAIN_H
