//===- VulkanRunner.h - Running a plan's kernels on Vulkan ------*- C++ -*-===//
//
// The Vulkan device of a plan: each eqn that carries generated launches
// (`poot.launches.*`) is dispatched with the plan's SPIR-V kernels; the other
// eqns run in the evaluator on the host. Operands are uploaded in their
// storage dtype, launches run in order in one submission, the result is read
// back. Kernels are built once per runner. prepare() stops short of the
// dispatch, for the benchmark (poot-run-plan --bench), which times the
// prepared dispatches with the device's timestamp queries.
//
// When every eqn of the graph has kernels (constants are uploaded, not
// computed), the whole graph runs as one submission instead: the inputs go
// up once, every value lives in its own device buffer between eqns, and
// only the outputs come back.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_VULKANRUNNER_H
#define POOT_RUNTIME_VULKANRUNNER_H

#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/VulkanDevice.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace poot::rt {

namespace device {
struct LaunchRecord;
} // namespace device

/// An eqn ready to dispatch: its operands uploaded into buffers of its own,
/// its launches resolved against the runner's kernels. The dispatches bind
/// `buffers` (whose entries keep their place while the struct lives or is
/// moved) and the runner's kernels, valid while the runner lives.
struct VulkanPreparedEqn {
  /// Every buffer the launches bind, by role ("q", "in0", "out", "err"..).
  std::map<std::string, VulkanBuffer> buffers;
  std::vector<VulkanDispatch> dispatches;
  /// The role whose buffer holds each result, and the results' types.
  std::vector<std::string> resultRoles;
  std::vector<TensorType> resultTypes;
  /// The bytes the benchmark counts (poot/Runtime/Bench.h).
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  /// The kernels in launch order, joined with ','.
  std::string kernelNames;
};

class VulkanRunner : public EqnRunner {
public:
  VulkanRunner(VulkanDevice &device, const Plan &plan)
      : device(device), plan(plan) {}

  Status run(const Eqn &eqn, const std::vector<const Tensor *> &operands,
             const std::vector<TensorType> &resultTypes,
             std::vector<Tensor> &results, bool &claimed) override;

  Status runGraph(const Graph &graph, std::vector<Tensor> &values,
                  std::vector<bool> &defined, bool &ran) override;

  /// Uploads `eqn`'s operands into buffers of `out` and resolves its
  /// launches, without dispatching (what run() does before it dispatches;
  /// the benchmark then times out.dispatches). Leaves `claimed` false (and
  /// does nothing) for an eqn without kernels, a constant included.
  Status prepare(const Eqn &eqn, const std::vector<const Tensor *> &operands,
                 const std::vector<TensorType> &resultTypes,
                 VulkanPreparedEqn &out, bool &claimed);

  /// Eqns dispatched to the device so far.
  int64_t dispatchedEqns() const { return dispatched; }
  /// Eqns the evaluator ran on the host so far (always 0 with deviceOnly).
  int64_t hostEqns() const { return onHost; }
  /// With `on`, an eqn without kernels fails the run (Unsupported) instead
  /// of running on the host.
  void setDeviceOnly(bool on) { deviceOnly = on; }
  /// Whether the graph may run whole on the device (values resident).
  void setResident(bool on) { resident = on; }
  /// Values (and split scratches) of the last resident run that lived in
  /// the plan's arena rather than in buffers of their own.
  int64_t arenaBindings() const { return inArena; }

private:
  Status kernel(const std::string &name, int numBuffers,
                const VulkanKernel *&out);
  /// Appends the dispatches of `eqn`'s launches, each argument bound by
  /// its role.
  Status appendDispatches(const Eqn &eqn,
                          const std::vector<device::LaunchRecord> &launches,
                          const std::map<std::string, VulkanBinding> &byRole,
                          std::vector<VulkanDispatch> &out);
  /// prepare() for an attention: operands by role, out, scratch,
  /// counters.
  Status prepareAttention(const Eqn &eqn,
                          const std::vector<const Tensor *> &operands,
                          const std::vector<TensorType> &resultTypes,
                          VulkanPreparedEqn &out);

  VulkanDevice &device;
  const Plan &plan;
  std::map<std::string, VulkanKernel> kernels;
  /// The resident buffers of the graph last run whole: the plan's arena,
  /// and one buffer for each value the arena does not hold (inputs,
  /// outputs, constants, values wider on the device than planned).
  const Graph *residentGraph = nullptr;
  std::vector<VulkanBuffer> valueBuffers;
  /// Per graph value, the value whose buffer or range holds it (an
  /// in-place write's result is stored in its operand's).
  std::vector<int> valueStorage;
  VulkanBuffer arena;
  /// Per value: its range of the arena (offset, bytes), or bytes -1.
  std::vector<std::pair<int64_t, int64_t>> arenaRange;
  /// Per eqn: its scratch's range of the arena, or bytes -1.
  std::vector<std::pair<int64_t, int64_t>> scratchRange;
  int64_t inArena = 0;
  int64_t dispatched = 0;
  int64_t onHost = 0;
  bool deviceOnly = false;
  bool resident = true;
};

} // namespace poot::rt

#endif // POOT_RUNTIME_VULKANRUNNER_H
