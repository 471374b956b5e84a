//===- GpuObjects.h - A device's own objects as GpuDevice objects -*- C++ -*-===//
//
// Each device hands out its driver-level buffers and kernels through the
// GpuDevice interface wrapped in these, which remember the device (so a
// launch naming another device's buffer is refused) and let the device
// reach its own object back. Private to the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_GPUOBJECTS_H
#define POOT_RUNTIME_GPUOBJECTS_H

#include "poot/Runtime/GpuDevice.h"

#include <functional>
#include <map>
#include <utility>

namespace poot::rt::device {

/// A device buffer (CudaDeviceBuffer, HipDeviceBuffer, VulkanBuffer).
template <typename Native> class OwnedBuffer final : public GpuBuffer {
public:
  OwnedBuffer(Native native, const GpuDevice *device)
      : native(std::move(native)), device(device) {}
  int64_t size() const override { return native.size(); }
  Status upload(const void *src, int64_t bytes, int64_t offset) override {
    return native.upload(src, bytes, offset);
  }
  Status download(void *dst, int64_t bytes, int64_t offset) const override {
    return native.download(dst, bytes, offset);
  }
  const void *owner() const override { return device; }

  /// The device's own buffer behind `arg` (whose owner was checked).
  static const Native &of(const GpuArg &arg) {
    return static_cast<const OwnedBuffer *>(arg.buffer)->native;
  }

  Native native;

private:
  const GpuDevice *device;
};

/// A device kernel (CudaKernel, HipKernel, VulkanKernel).
template <typename Native> class OwnedKernel final : public GpuKernel {
public:
  OwnedKernel(Native native, std::string name, const GpuDevice *device)
      : native(std::move(native)), name_(std::move(name)), device(device) {}
  const std::string &name() const override { return name_; }
  const void *owner() const override { return device; }

  /// The device's own kernel of `launch` (whose owner was checked).
  static const Native &of(const GpuLaunch &launch) {
    return static_cast<const OwnedKernel *>(launch.kernel)->native;
  }

  Native native;

private:
  std::string name_;
  const GpuDevice *device;
};

/// A plan's kernels on one device: each made by `make(name, numArgs, out)`
/// on first use and kept, by name and argument count.
template <typename Native> class KernelCache final : public GpuModule {
public:
  using Make = std::function<Status(const std::string &, int, Native &)>;
  KernelCache(Make make, const GpuDevice *device)
      : make(std::move(make)), device(device) {}
  Status kernel(const std::string &name, int numArgs,
                const GpuKernel *&out) override {
    auto key = std::make_pair(name, numArgs);
    auto it = kernels.find(key);
    if (it == kernels.end()) {
      Native k;
      POOT_RETURN_IF_ERROR(make(name, numArgs, k));
      it = kernels
               .emplace(key, std::make_unique<OwnedKernel<Native>>(
                                 std::move(k), name, device))
               .first;
    }
    out = it->second.get();
    return Status::ok();
  }

private:
  Make make;
  const GpuDevice *device;
  std::map<std::pair<std::string, int>, std::unique_ptr<OwnedKernel<Native>>>
      kernels;
};

} // namespace poot::rt::device

#endif // POOT_RUNTIME_GPUOBJECTS_H
