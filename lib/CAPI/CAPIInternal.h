//===- CAPIInternal.h - What the C API's handles hold -----------*- C++ -*-===//
#ifndef POOT_LIB_CAPI_CAPIINTERNAL_H
#define POOT_LIB_CAPI_CAPIINTERNAL_H

#include "poot/Runtime/Device.h"
#include "poot/Runtime/GpuDevice.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/Status.h"
#include "poot/poot.h"

#include <map>
#include <memory>
#include <string>

/// A handle on a shared plan: poot_plan_free drops the handle's reference,
/// and every session made from it holds another, so the plan lives until the
/// last of them is freed.
struct poot_plan {
  std::shared_ptr<const poot::rt::Plan> plan;
};

struct poot_session {
  /// First, so it is destroyed last: the runner and devices below refer to
  /// the plan.
  std::shared_ptr<const poot::rt::Plan> plan;
  bool reference = false;
  /// The device that runs the plan's kernels (null for cpu and oracle).
  std::unique_ptr<poot::rt::PlanDevice> device;
  std::map<std::string, poot::rt::Tensor> inputs;
  std::map<std::string, void *> state;
  /// State kept on the device (poot_state_keep_on_device), by input name:
  /// the runner holds these buffers from run to run.
  std::map<std::string, std::unique_ptr<poot::rt::GpuBuffer>> deviceState;
  std::map<std::string, poot::rt::Tensor> outputs;
};

namespace poot::capi {
/// Clears this thread's last error: every call that returns a poot_status
/// does this first, so poot_last_error() describes only the latest call.
void clearError();
/// Records "<status name>: <message>" as this thread's last error and
/// returns `status`.
poot_status fail(poot_status status, const std::string &message);
poot_status fail(const rt::Status &status);
} // namespace poot::capi

#endif // POOT_LIB_CAPI_CAPIINTERNAL_H
