//===- HipRunner.h - Running a plan's kernels on HIP ------------*- C++ -*-===//
//
// The HIP device of a plan (target "rocm:gfx90a", "rocm:gfx942",
// "rocm:gfx1100"): each eqn that carries generated launches
// (`poot.launches.*`: attention and every other op the plan gave kernels)
// runs the plan's AMDGPU code object; the other eqns run in the evaluator on
// the host, or fail the run in device-only mode. The contract is
// CudaRunner's: operands uploaded in their storage dtype (i1 as i32 words,
// the attention's i64 positions and lengths narrowed to i32), launches in
// order, a kernel's error word turned into the typed error (nothing read
// back then), the results read back; the module is loaded once per runner
// and each eqn's buffers are kept from one run to the next.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_HIPRUNNER_H
#define POOT_RUNTIME_HIPRUNNER_H

#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/HipDevice.h"
#include "poot/Runtime/PlanFile.h"

#include <map>
#include <string>

namespace poot::rt {

class HipRunner : public EqnRunner {
public:
  HipRunner(HipDevice &device, const Plan &plan);
  ~HipRunner() override;

  Status run(const Eqn &eqn, const std::vector<const Tensor *> &operands,
             const std::vector<TensorType> &resultTypes,
             std::vector<Tensor> &results, bool &claimed) override;

  /// Eqns run on the device so far.
  int64_t dispatchedEqns() const { return dispatched; }
  /// With `on`, an eqn without kernels fails the run (Unsupported) instead
  /// of running on the host.
  void setDeviceOnly(bool on) { deviceOnly = on; }

private:
  Status kernel(const std::string &name, const HipKernel *&out);

  HipDevice &device;
  const Plan &plan;
  HipModule module;
  std::map<std::string, HipKernel> kernels;
  /// One eqn's device buffers by role ("q", "in0", "out0", "err", ...).
  using EqnBuffers = std::map<std::string, HipDeviceBuffer>;
  std::map<const Eqn *, EqnBuffers> buffers;
  int64_t dispatched = 0;
  bool deviceOnly = false;
};

} // namespace poot::rt

#endif // POOT_RUNTIME_HIPRUNNER_H
