//===- Device.cpp - Opening the device a plan runs on ---------------------===//
//
// One adapter puts each device's runner behind PlanDevice; the device and
// its runner live and die together.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Device.h"
#include "poot/Runtime/CudaRunner.h"
#include "poot/Runtime/HipRunner.h"
#include "poot/Runtime/VulkanRunner.h"

#include <type_traits>

using namespace poot::rt;

PlanDevice::~PlanDevice() = default;

namespace {

/// `DeviceT` and the runner `RunnerT` over it, as one PlanDevice.
template <typename DeviceT, typename RunnerT>
class DeviceAdapter final : public PlanDevice {
public:
  DeviceAdapter(std::string kind, std::unique_ptr<DeviceT> device,
                const Plan &plan)
      : kind_(std::move(kind)), device(std::move(device)),
        runner(*this->device, plan) {}

  Status run(const Eqn &eqn, const std::vector<const Tensor *> &operands,
             const std::vector<TensorType> &resultTypes,
             std::vector<Tensor> &results, bool &claimed) override {
    return runner.run(eqn, operands, resultTypes, results, claimed);
  }
  Status runGraph(const Graph &graph, std::vector<Tensor> &values,
                  std::vector<bool> &defined, bool &ran) override {
    return runner.runGraph(graph, values, defined, ran);
  }
  const std::string &kind() const override { return kind_; }
  const std::string &description() const override {
    return device->description();
  }
  int64_t dispatchedEqns() const override { return runner.dispatchedEqns(); }
  void setDeviceOnly(bool on) override { runner.setDeviceOnly(on); }
  RunnerT &getRunner() { return runner; }

private:
  std::string kind_;
  std::unique_ptr<DeviceT> device; // before the runner, which refers to it
  RunnerT runner;
};

template <typename DeviceT, typename RunnerT>
Status open(const std::string &kind, const Plan &plan,
            const DeviceOptions &options, std::unique_ptr<PlanDevice> &out) {
  std::unique_ptr<DeviceT> device;
  POOT_RETURN_IF_ERROR(DeviceT::create(device, options.ordinal));
  auto adapter = std::make_unique<DeviceAdapter<DeviceT, RunnerT>>(
      kind, std::move(device), plan);
  if constexpr (std::is_same_v<RunnerT, CudaRunner>)
    adapter->getRunner().setResident(options.resident);
  adapter->setDeviceOnly(options.deviceOnly);
  out = std::move(adapter);
  return Status::ok();
}

} // namespace

const std::vector<std::string> &poot::rt::deviceKinds() {
  static const std::vector<std::string> kinds = {"cpu", "vulkan", "cuda",
                                                 "hip"};
  return kinds;
}

std::string poot::rt::deviceKindForTarget(const std::string &target) {
  if (target == "cpu" || target == "vulkan")
    return target;
  if (target.rfind("cuda:", 0) == 0)
    return "cuda";
  if (target.rfind("rocm:", 0) == 0)
    return "hip";
  return "";
}

Status poot::rt::openDevice(const std::string &kind, const Plan &plan,
                            const DeviceOptions &options,
                            std::unique_ptr<PlanDevice> &out) {
  out.reset();
  bool known = false;
  std::string kinds;
  for (const std::string &k : deviceKinds()) {
    known |= k == kind;
    kinds += (kinds.empty() ? "" : ", ") + k;
  }
  if (!known)
    return Status(ErrorCode::InvalidArgument,
                  "unknown device '" + kind + "' (" + kinds + ")");
  if (deviceKindForTarget(plan.target) != kind)
    return Status(ErrorCode::InvalidArgument,
                  "the plan is for target " + plan.target + ", not the " +
                      kind + " device");
  if (kind == "vulkan")
    return open<VulkanDevice, VulkanRunner>(kind, plan, options, out);
  if (kind == "cuda")
    return open<CudaDevice, CudaRunner>(kind, plan, options, out);
  if (kind == "hip")
    return open<HipDevice, HipRunner>(kind, plan, options, out);
  return Status::ok(); // cpu: the evaluator runs every eqn
}
