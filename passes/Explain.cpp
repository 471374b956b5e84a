//===- Explain.cpp - The tools' --poot-explain switch ---------------------===//

#include "poot/Passes/Passes.h"

#include <atomic>

static std::atomic<bool> explainAll{false};

void poot::setExplainByDefault(bool on) { explainAll = on; }
bool poot::explainByDefault() { return explainAll; }
