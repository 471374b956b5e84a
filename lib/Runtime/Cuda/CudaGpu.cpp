//===- CudaGpu.cpp - The CUDA device as a GpuDevice -----------------------===//
//
// Buffers, kernels and recordings handed out through GpuDevice wrap the
// device's own objects and remember the device, so a launch naming another
// device's buffer is refused. Every launch of a sequence is resolved to
// device addresses and checked before the first is issued.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/CudaDevice.h"
#include "poot/Runtime/PlanFile.h"

#include "Device/GpuObjects.h"

#include <cstdlib>

using namespace poot::rt;

namespace {

using Buffer = device::OwnedBuffer<CudaDeviceBuffer>;
using Kernel = device::OwnedKernel<CudaKernel>;

class CudaGpuRecording final : public GpuRecording {
public:
  CudaGpuRecording(std::vector<GpuLaunch> launches, CudaGraph graph,
                   const GpuDevice *device)
      : GpuRecording(std::move(launches)), graph(std::move(graph)),
        device(device) {}
  const void *owner() const override { return device; }

  CudaGraph graph;

private:
  const GpuDevice *device;
};

} // namespace

Status CudaDevice::allocate(int64_t bytes, std::unique_ptr<GpuBuffer> &out) {
  CudaDeviceBuffer buffer;
  POOT_RETURN_IF_ERROR(createBuffer(bytes, buffer));
  out = std::make_unique<Buffer>(std::move(buffer), this);
  return Status::ok();
}

Status CudaDevice::loadModule(const Plan &plan,
                              std::unique_ptr<GpuModule> &out) {
  if (plan.ptx.empty())
    return Status(ErrorCode::InvalidArgument,
                  "the plan names launches but holds no PTX kernels");
  // PTX is forward compatible, never backward: a module for sm_90 does not
  // load on sm_80, and the driver's error for that is obscure.
  const std::string prefix = "cuda:sm_";
  if (plan.target.rfind(prefix, 0) == 0) {
    int wanted = std::atoi(plan.target.c_str() + prefix.size());
    if (wanted > computeCapability())
      return Status(ErrorCode::Unsupported,
                    "the plan's kernels are for " + plan.target.substr(5) +
                        ", the device is " + facts().name);
  }
  CudaModule module;
  POOT_RETURN_IF_ERROR(createModule(plan.ptx, module));
  // The argument count is checked at each launch, against the count the
  // driver reports for the kernel.
  auto shared = std::make_shared<CudaModule>(std::move(module));
  out = std::make_unique<device::KernelCache<CudaKernel>>(
      [shared](const std::string &name, int, CudaKernel &k) {
        return shared->kernel(name, k);
      },
      this);
  return Status::ok();
}

Status CudaDevice::resolve(const std::vector<GpuLaunch> &launches,
                           std::vector<std::vector<uint64_t>> &pointers) const {
  pointers.assign(launches.size(), {});
  for (size_t l = 0; l < launches.size(); ++l) {
    const GpuLaunch &launch = launches[l];
    POOT_RETURN_IF_ERROR(checkKernel(launch, l));
    const CudaKernel &k = Kernel::of(launch);
    POOT_RETURN_IF_ERROR(checkLaunch(k, launch.args.size(), launch.gridX,
                                     launch.gridY, launch.lanes,
                                     launch.shared));
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const GpuArg &a = launch.args[i];
      std::string where =
          "launch of '" + k.name() + "': argument " + std::to_string(i);
      POOT_RETURN_IF_ERROR(checkArg(a, where));
      const CudaDeviceBuffer &b = Buffer::of(a);
      pointers[l].push_back(b.devicePointer() + static_cast<uint64_t>(a.offset));
    }
  }
  return Status::ok();
}

Status CudaDevice::enqueueResolved(
    const std::vector<GpuLaunch> &launches,
    const std::vector<std::vector<uint64_t>> &pointers, CudaStream stream) {
  for (size_t l = 0; l < launches.size(); ++l) {
    const GpuLaunch &launch = launches[l];
    const CudaKernel &k = Kernel::of(launch);
    POOT_RETURN_IF_ERROR(issueLaunch(k, pointers[l], launch.gridX,
                                     launch.gridY, launch.lanes, stream,
                                     launch.shared));
  }
  return Status::ok();
}

Status CudaDevice::run(const std::vector<GpuLaunch> &launches) {
  std::vector<std::vector<uint64_t>> pointers;
  POOT_RETURN_IF_ERROR(resolve(launches, pointers));
  POOT_RETURN_IF_ERROR(enqueueResolved(launches, pointers, nullptr));
  // A fault in a kernel surfaces here, from the synchronisation.
  return synchronize();
}

Status CudaDevice::copy(const std::vector<GpuCopy> &copies) {
  POOT_RETURN_IF_ERROR(checkCopies(copies));
  for (const GpuCopy &c : copies)
    POOT_RETURN_IF_ERROR(
        static_cast<Buffer *>(c.dst)->native.copyFrom(
            static_cast<const Buffer *>(c.src)->native, c.srcOffset,
            c.dstOffset, c.bytes));
  return Status::ok();
}

Status CudaDevice::record(std::vector<GpuLaunch> launches,
                          std::unique_ptr<GpuRecording> &out) {
  std::vector<std::vector<uint64_t>> pointers;
  POOT_RETURN_IF_ERROR(resolve(launches, pointers));
  CudaGraph graph;
  POOT_RETURN_IF_ERROR(captureGraph(
      [&](CudaStream stream) {
        return enqueueResolved(launches, pointers, stream);
      },
      graph));
  out = std::make_unique<CudaGpuRecording>(std::move(launches),
                                           std::move(graph), this);
  return Status::ok();
}

Status CudaDevice::replay(const GpuRecording &recording) {
  if (recording.owner() != this)
    return run(recording.launches());
  POOT_RETURN_IF_ERROR(
      static_cast<const CudaGpuRecording &>(recording).graph.replay());
  return synchronize();
}

Status CudaDevice::time(const std::vector<GpuLaunch> &launches,
                        int iterations, bool flushCache,
                        std::vector<double> &microseconds) {
  std::vector<std::vector<uint64_t>> pointers;
  POOT_RETURN_IF_ERROR(resolve(launches, pointers));
  return timeRuns(
      iterations,
      [&](CudaStream stream) {
        return enqueueResolved(launches, pointers, stream);
      },
      flushCache, microseconds);
}

Status CudaDevice::time(const GpuRecording &recording, int iterations,
                        bool flushCache, std::vector<double> &microseconds) {
  if (recording.owner() != this)
    return time(recording.launches(), iterations, flushCache, microseconds);
  const CudaGraph &graph = static_cast<const CudaGpuRecording &>(recording).graph;
  return timeRuns(
      iterations, [&](CudaStream stream) { return graph.replay(stream); },
      flushCache, microseconds);
}
