//===- Explain.cpp - The tools' --poot-explain switch ---------------------===//

#include "Explain.h"

#include "poot/Passes/Passes.h"

#include "mlir/IR/Location.h"

#include <atomic>

static std::atomic<bool> explainAll{false};

void poot::setExplainByDefault(bool on) { explainAll = on; }
bool poot::explainByDefault() { return explainAll; }

std::string poot::describeOp(mlir::Operation *op) {
  std::string out = "'" + op->getName().getStringRef().str() + "'";
  unsigned line = 0;
  op->getLoc()->walk([&](mlir::Location loc) {
    if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(loc)) {
      line = file.getLine();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  if (line)
    out += " at line " + std::to_string(line);
  return out;
}
