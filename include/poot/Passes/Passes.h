//===- Passes.h - The fusion passes -----------------------------*- C++ -*-===//
#ifndef POOT_PASSES_PASSES_H
#define POOT_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include "poot/Dialect/PootDialect.h"

namespace poot {

/// Makes every fusion pass report its candidates as remarks (the tools'
/// --poot-explain flag), as if each had explain=true.
void setExplainByDefault(bool on);
bool explainByDefault();

#define GEN_PASS_DECL
#include "poot/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "poot/Passes/Passes.h.inc"

} // namespace poot

#endif // POOT_PASSES_PASSES_H
