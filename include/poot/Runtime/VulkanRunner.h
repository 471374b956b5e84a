//===- VulkanRunner.h - Running a plan's kernels on Vulkan ------*- C++ -*-===//
//
// The Vulkan device of a plan: each eqn that carries generated launches
// (`poot.launches.*`) is dispatched with the plan's SPIR-V kernels; the other
// eqns run in the evaluator on the host. Operands are uploaded in their
// storage dtype, launches run in order in one submission, the result is read
// back. Kernels are built once per runner.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_VULKANRUNNER_H
#define POOT_RUNTIME_VULKANRUNNER_H

#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/VulkanDevice.h"

#include <map>
#include <memory>

namespace poot::rt {

class VulkanRunner : public EqnRunner {
public:
  VulkanRunner(VulkanDevice &device, const Plan &plan)
      : device(device), plan(plan) {}

  Status run(const Eqn &eqn, const std::vector<const Tensor *> &operands,
             const std::vector<TensorType> &resultTypes,
             std::vector<Tensor> &results, bool &claimed) override;

  /// Eqns dispatched to the device so far.
  int64_t dispatchedEqns() const { return dispatched; }

private:
  Status kernel(const std::string &name, int numBuffers,
                const VulkanKernel *&out);

  VulkanDevice &device;
  const Plan &plan;
  std::map<std::string, VulkanKernel> kernels;
  int64_t dispatched = 0;
};

} // namespace poot::rt

#endif // POOT_RUNTIME_VULKANRUNNER_H
