//===- Device.h - Opening the device a plan runs on -------------*- C++ -*-===//
//
// Every way of running a plan (poot-run, poot-run-plan, the C API) opens its
// device here, by kind, and hands it to evaluate() as the EqnRunner: the
// device runs the eqns the plan gave kernels and the evaluator the rest. A
// plan runs only on the device kind it was compiled for, and the refusal
// names both.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_DEVICE_H
#define POOT_RUNTIME_DEVICE_H

#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/PlanRunner.h"

#include <memory>
#include <string>
#include <vector>

namespace poot::rt {

/// A GPU device opened for one plan, with the runner that dispatches the
/// plan's kernels on it.
class PlanDevice : public EqnRunner {
public:
  ~PlanDevice() override;
  /// "vulkan", "cuda" or "hip".
  virtual const std::string &kind() const = 0;
  /// The device as its driver names it, for reports.
  virtual const std::string &description() const = 0;
  /// Eqns dispatched on the device so far.
  virtual int64_t dispatchedEqns() const = 0;
  /// With `on`, an eqn without kernels fails the run (Unsupported) instead
  /// of running on the host.
  virtual void setDeviceOnly(bool on) = 0;
  /// The runner over the device (prepare for the benchmark, residency,
  /// timing), and through it the device itself (PlanRunner::gpu).
  virtual PlanRunner &runner() = 0;
};

struct DeviceOptions {
  bool deviceOnly = false;
  /// Run a graph whose every eqn has kernels whole on the device, recorded
  /// once and replayed, also where the device does not by default (CUDA
  /// and HIP run eqn by eqn unless asked; Vulkan always runs resident).
  bool resident = false;
  int ordinal = 0;
};

/// The device kinds of this build: cpu, vulkan, cuda, hip.
const std::vector<std::string> &deviceKinds();

/// The device kind a plan for `target` runs on ("cpu", "vulkan",
/// "cuda:sm_90" -> "cuda", "rocm:gfx942" -> "hip"); empty if none.
std::string deviceKindForTarget(const std::string &target);

/// Opens device `kind` for `plan` (which must outlive `out`). For "cpu"
/// sets `out` to null: the evaluator runs every eqn. InvalidArgument for an
/// unknown kind (listing the known ones) or a plan compiled for another
/// target; the driver's error (Unsupported where it is missing) otherwise.
Status openDevice(const std::string &kind, const Plan &plan,
                  const DeviceOptions &options,
                  std::unique_ptr<PlanDevice> &out);

/// Opens GPU device `kind` ("vulkan", "cuda" or "hip") by itself, for an
/// engine that runs several plans on one device (a PlanRunner for each, over
/// this device) and keeps buffers of its own there, such as the K/V pools
/// every step shape of a serving engine shares (PlanRunner::holdState).
/// InvalidArgument for "cpu" or an unknown kind; the driver's error
/// (Unsupported where it is missing) otherwise.
Status openGpuDevice(const std::string &kind, int ordinal,
                     std::unique_ptr<GpuDevice> &out);

} // namespace poot::rt

#endif // POOT_RUNTIME_DEVICE_H
