//===- Passes.h - The planner's pass ----------------------------*- C++ -*-===//
#ifndef POOT_PLAN_PASSES_H
#define POOT_PLAN_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

#include "poot/Dialect/PootDialect.h"
#include "poot/Plan/DeviceFacts.h"

namespace poot {

#define GEN_PASS_DECL
#include "poot/Plan/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "poot/Plan/Passes.h.inc"

/// The planner against `facts` (a live device's) rather than a preset;
/// `options` carries the tuning overrides (its device is ignored).
std::unique_ptr<mlir::Pass> createPlan(const DeviceFacts &facts,
                                       const PlanOptions &options = {});

} // namespace poot

#endif // POOT_PLAN_PASSES_H
