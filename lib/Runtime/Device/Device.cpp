//===- Device.cpp - Opening the device a plan runs on ---------------------===//
//
// Every device is a GpuDevice run by the one PlanRunner; the device and its
// runner live and die together.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Device.h"
#include "poot/Runtime/CudaDevice.h"
#include "poot/Runtime/HipDevice.h"
#include "poot/Runtime/VulkanDevice.h"

using namespace poot::rt;

PlanDevice::~PlanDevice() = default;

namespace {

/// A device and the runner over it, as one PlanDevice.
class OpenedDevice final : public PlanDevice {
public:
  OpenedDevice(std::unique_ptr<GpuDevice> device, const Plan &plan)
      : device(std::move(device)), runner_(*this->device, plan) {}

  Status run(const Eqn &eqn, const std::vector<const Tensor *> &operands,
             const std::vector<TensorType> &resultTypes,
             std::vector<Tensor> &results, bool &claimed) override {
    return runner_.run(eqn, operands, resultTypes, results, claimed);
  }
  Status runGraph(const Graph &graph, std::vector<Tensor> &values,
                  std::vector<bool> &defined, bool &ran) override {
    return runner_.runGraph(graph, values, defined, ran);
  }
  bool holdsState(const std::string &inputName) const override {
    return runner_.holdsState(inputName);
  }
  const std::string &kind() const override { return kind_; }
  const std::string &description() const override {
    return device->description();
  }
  int64_t dispatchedEqns() const override { return runner_.dispatchedEqns(); }
  void setDeviceOnly(bool on) override { runner_.setDeviceOnly(on); }
  PlanRunner &runner() override { return runner_; }

private:
  std::unique_ptr<GpuDevice> device; // before the runner, which refers to it
  std::string kind_ = device->kind();
  PlanRunner runner_;
};

template <typename DeviceT>
Status create(int ordinal, std::unique_ptr<GpuDevice> &out) {
  std::unique_ptr<DeviceT> device;
  POOT_RETURN_IF_ERROR(DeviceT::create(device, ordinal));
  out = std::move(device);
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
  if (kind == "cpu")
    return Status::ok(); // the evaluator runs every eqn
  std::unique_ptr<GpuDevice> device;
  POOT_RETURN_IF_ERROR(openGpuDevice(kind, options.ordinal, device));
  auto opened = std::make_unique<OpenedDevice>(std::move(device), plan);
  if (options.resident)
    opened->runner().setResident(true);
  opened->setDeviceOnly(options.deviceOnly);
  out = std::move(opened);
  return Status::ok();
}

Status poot::rt::openGpuDevice(const std::string &kind, int ordinal,
                               std::unique_ptr<GpuDevice> &out) {
  out.reset();
  if (kind == "vulkan")
    return create<VulkanDevice>(ordinal, out);
  if (kind == "cuda")
    return create<CudaDevice>(ordinal, out);
  if (kind == "hip")
    return create<HipDevice>(ordinal, out);
  return Status(ErrorCode::InvalidArgument,
                "no GPU device '" + kind + "' (vulkan, cuda, hip)");
}
