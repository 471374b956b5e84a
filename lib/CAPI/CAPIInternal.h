//===- CAPIInternal.h - What the C API's handles hold -----------*- C++ -*-===//
#ifndef POOT_LIB_CAPI_CAPIINTERNAL_H
#define POOT_LIB_CAPI_CAPIINTERNAL_H

#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/Status.h"
#include "poot/poot.h"

#include <map>
#include <string>

struct poot_plan {
  poot::rt::Plan plan;
};

struct poot_session {
  const poot_plan *plan = nullptr;
  bool reference = false;
  std::map<std::string, poot::rt::Tensor> inputs;
  std::map<std::string, void *> state;
  std::map<std::string, poot::rt::Tensor> outputs;
};

namespace poot::capi {
/// Records `message` as this thread's last error and returns `status`.
poot_status fail(poot_status status, const std::string &message);
poot_status fail(const rt::Status &status);
} // namespace poot::capi

#endif // POOT_LIB_CAPI_CAPIINTERNAL_H
