//===- CAPIInternal.h - What the C API's handles hold -----------*- C++ -*-===//
#ifndef POOT_LIB_CAPI_CAPIINTERNAL_H
#define POOT_LIB_CAPI_CAPIINTERNAL_H

#include "poot/Runtime/CudaRunner.h"
#include "poot/Runtime/HipRunner.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/VulkanRunner.h"
#include "poot/Runtime/Status.h"
#include "poot/poot.h"

#include <map>
#include <memory>
#include <string>

struct poot_plan {
  poot::rt::Plan plan;
};

struct poot_session {
  const poot_plan *plan = nullptr;
  bool reference = false;
  /// The device that runs the plan's kernels (null for cpu and oracle).
  std::unique_ptr<poot::rt::VulkanDevice> vulkan;
  std::unique_ptr<poot::rt::CudaDevice> cuda;
  std::unique_ptr<poot::rt::HipDevice> hip;
  std::unique_ptr<poot::rt::EqnRunner> runner;
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
