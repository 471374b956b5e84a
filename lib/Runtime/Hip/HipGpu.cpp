//===- HipGpu.cpp - The HIP device as a GpuDevice -------------------------===//
//
// Buffers and kernels handed out through GpuDevice wrap the device's own
// objects and remember the device, so a launch naming another device's
// buffer is refused; every launch of a sequence is checked before the first
// is issued.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/HipDevice.h"
#include "poot/Runtime/PlanFile.h"

#include "Device/GpuObjects.h"


using namespace poot::rt;

namespace {

using Buffer = device::OwnedBuffer<HipDeviceBuffer>;
using Kernel = device::OwnedKernel<HipKernel>;

} // namespace

Status HipDevice::allocate(int64_t bytes, std::unique_ptr<GpuBuffer> &out) {
  HipDeviceBuffer buffer;
  POOT_RETURN_IF_ERROR(createBuffer(bytes, buffer));
  out = std::make_unique<Buffer>(std::move(buffer), this);
  return Status::ok();
}

Status HipDevice::loadModule(const Plan &plan,
                             std::unique_ptr<GpuModule> &out) {
  if (plan.hsaco.empty())
    return Status(ErrorCode::InvalidArgument,
                  "the plan names launches but holds no AMDGPU code object");
  // A code object runs only on the architecture it was compiled for; say so
  // before the loader's less telling error where the device names it.
  const std::string &have = facts().name;
  if (!plan.hsacoChip.empty() && have != "amdgpu" && have != plan.hsacoChip)
    return Status(ErrorCode::Unsupported, "the plan's kernels are for " +
                                              plan.hsacoChip +
                                              ", the device is " + have);
  HipModule module;
  POOT_RETURN_IF_ERROR(createModule(plan.hsaco, module));
  auto shared = std::make_shared<HipModule>(std::move(module));
  out = std::make_unique<device::KernelCache<HipKernel>>(
      [shared](const std::string &name, int, HipKernel &k) {
        return shared->kernel(name, k);
      },
      this);
  return Status::ok();
}

Status HipDevice::copy(const std::vector<GpuCopy> &copies) {
  POOT_RETURN_IF_ERROR(checkCopies(copies));
  for (const GpuCopy &c : copies)
    POOT_RETURN_IF_ERROR(static_cast<Buffer *>(c.dst)->native.copyFrom(
        static_cast<const Buffer *>(c.src)->native, c.srcOffset, c.dstOffset,
        c.bytes));
  return Status::ok();
}

Status HipDevice::run(const std::vector<GpuLaunch> &launches) {
  std::vector<std::vector<void *>> pointers(launches.size());
  for (size_t l = 0; l < launches.size(); ++l) {
    const GpuLaunch &launch = launches[l];
    POOT_RETURN_IF_ERROR(checkKernel(launch, l));
    const HipKernel &k = Kernel::of(launch);
    if (launch.shared != 0)
      return Status(ErrorCode::Unsupported,
                    k.name() + ": the HIP device gives no dynamic workgroup "
                               "memory (the launch asks for " +
                        std::to_string(launch.shared) + " bytes)");
    POOT_RETURN_IF_ERROR(
        checkLaunch(k, launch.gridX, launch.gridY, launch.lanes));
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const GpuArg &a = launch.args[i];
      std::string where = k.name() + ": argument " + std::to_string(i);
      POOT_RETURN_IF_ERROR(checkArg(a, where));
      const HipDeviceBuffer &b = Buffer::of(a);
      pointers[l].push_back(static_cast<char *>(b.devicePointer()) + a.offset);
    }
  }
  for (size_t l = 0; l < launches.size(); ++l) {
    const GpuLaunch &launch = launches[l];
    const HipKernel &k = Kernel::of(launch);
    POOT_RETURN_IF_ERROR(issueLaunch(k, pointers[l], launch.gridX,
                                     launch.gridY, launch.lanes));
  }
  // A fault in a kernel surfaces here, from the synchronisation.
  return synchronize();
}
