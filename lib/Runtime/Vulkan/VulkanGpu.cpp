//===- VulkanGpu.cpp - The Vulkan device as a GpuDevice -------------------===//
//
// Buffers and kernels handed out through GpuDevice wrap the device's own
// objects and remember the device; a sequence of launches becomes one
// submission (dispatchAll), checked whole before anything is recorded.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/VulkanDevice.h"

#include "Device/GpuObjects.h"


using namespace poot::rt;

namespace {

using Buffer = device::OwnedBuffer<VulkanBuffer>;
using Kernel = device::OwnedKernel<VulkanKernel>;

} // namespace

Status VulkanDevice::allocate(int64_t bytes, std::unique_ptr<GpuBuffer> &out) {
  VulkanBuffer buffer;
  POOT_RETURN_IF_ERROR(createBuffer(bytes, buffer));
  out = std::make_unique<Buffer>(std::move(buffer), this);
  return Status::ok();
}

Status VulkanDevice::loadModule(const Plan &plan,
                                std::unique_ptr<GpuModule> &out) {
  if (plan.spirv.empty())
    return Status(ErrorCode::InvalidArgument,
                  "the plan names launches but holds no SPIR-V kernels");
  // SPIR-V has no loaded module: each entry point becomes a pipeline of its
  // own, built on first use with the descriptor layout of its launch.
  auto spirv = std::make_shared<std::vector<uint32_t>>(plan.spirv);
  out = std::make_unique<device::KernelCache<VulkanKernel>>(
      [this, spirv](const std::string &name, int numArgs, VulkanKernel &k) {
        return createKernel(*spirv, name, numArgs, k);
      },
      this);
  return Status::ok();
}

Status VulkanDevice::toDispatches(const std::vector<GpuLaunch> &launches,
                                  std::vector<VulkanDispatch> &out) const {
  out.clear();
  for (size_t l = 0; l < launches.size(); ++l) {
    const GpuLaunch &launch = launches[l];
    POOT_RETURN_IF_ERROR(checkKernel(launch, l));
    VulkanDispatch d;
    d.kernel = &Kernel::of(launch);
    // SPIR-V declares every workgroup variable in the module.
    if (launch.shared != 0)
      return Status(ErrorCode::Unsupported,
                    d.kernel->entry() + ": a Vulkan dispatch has no dynamic "
                                        "workgroup memory (the launch asks "
                                        "for " +
                        std::to_string(launch.shared) + " bytes)");
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const GpuArg &a = launch.args[i];
      POOT_RETURN_IF_ERROR(checkArg(a, d.kernel->entry() + ": argument " +
                                           std::to_string(i)));
      const VulkanBuffer &b = Buffer::of(a);
      d.bindings.emplace_back(b, a.offset, a.bytes);
    }
    d.groupsX = launch.gridX;
    d.groupsY = launch.gridY;
    out.push_back(std::move(d));
  }
  return Status::ok();
}

Status VulkanDevice::run(const std::vector<GpuLaunch> &launches) {
  std::vector<VulkanDispatch> dispatches;
  POOT_RETURN_IF_ERROR(toDispatches(launches, dispatches));
  return dispatchAll(dispatches);
}

Status VulkanDevice::copy(const std::vector<GpuCopy> &copies) {
  // Device to device, whichever memory the buffers are in.
  POOT_RETURN_IF_ERROR(checkCopies(copies));
  std::vector<VulkanBufferCopy> list;
  for (const GpuCopy &c : copies)
    list.push_back({&static_cast<const Buffer *>(c.src)->native, c.srcOffset,
                    &static_cast<Buffer *>(c.dst)->native, c.dstOffset,
                    c.bytes});
  return copyBuffers(list);
}

Status VulkanDevice::time(const std::vector<GpuLaunch> &launches,
                          int iterations, bool flushCache,
                          std::vector<double> &microseconds) {
  std::vector<VulkanDispatch> dispatches;
  POOT_RETURN_IF_ERROR(toDispatches(launches, dispatches));
  return timeDispatches(dispatches, iterations, flushCache, microseconds);
}
