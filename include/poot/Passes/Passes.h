//===- Passes.h - poot passes -----------------------------------*- C++ -*-===//
#ifndef POOT_PASSES_PASSES_H
#define POOT_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include "poot/Dialect/PootDialect.h"
#include "poot/Plan/DeviceFacts.h"

namespace poot {

/// Makes every fusion pass report its candidates as remarks (the tools'
/// --poot-explain flag), as if each had explain=true.
void setExplainByDefault(bool on);
bool explainByDefault();

#define GEN_PASS_DECL
#include "poot/Passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "poot/Passes/Passes.h.inc"

/// The poot-plan pass planning against `facts` (a device read by the
/// runtime) rather than a named preset; the pass options still override.
/// The planner against `facts` (a live device's) rather than a preset;
/// `options` carries the tuning overrides (its device is ignored).
std::unique_ptr<mlir::Pass> createPlan(const DeviceFacts &facts,
                                       const PlanOptions &options = {});

} // namespace poot

#endif // POOT_PASSES_PASSES_H
