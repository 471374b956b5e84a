//===- Passes.h - The kernel generator's pass -------------------*- C++ -*-===//
#ifndef POOT_CODEGEN_PASSES_H
#define POOT_CODEGEN_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "poot/Dialect/PootDialect.h"

namespace poot {

#define GEN_PASS_DECL
#include "poot/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "poot/Codegen/Passes.h.inc"

} // namespace poot

#endif // POOT_CODEGEN_PASSES_H
