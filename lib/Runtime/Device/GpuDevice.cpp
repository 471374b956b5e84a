//===- GpuDevice.cpp - What a GpuDevice does unless it says otherwise -----===//

#include "poot/Runtime/GpuDevice.h"

using namespace poot::rt;

GpuBuffer::~GpuBuffer() = default;
GpuKernel::~GpuKernel() = default;
GpuModule::~GpuModule() = default;
GpuRecording::~GpuRecording() = default;
GpuDevice::~GpuDevice() = default;

Status GpuDevice::record(std::vector<GpuLaunch> launches,
                         std::unique_ptr<GpuRecording> &out) {
  out = std::make_unique<GpuRecording>(std::move(launches));
  return Status::ok();
}

Status GpuDevice::replay(const GpuRecording &recording) {
  return run(recording.launches());
}

Status GpuDevice::timingSupport() const {
  return Status(ErrorCode::Unsupported,
                std::string("the ") + kind() + " device cannot time kernels");
}

Status GpuDevice::time(const std::vector<GpuLaunch> &, int, bool,
                       std::vector<double> &) {
  return timingSupport();
}

Status GpuDevice::time(const GpuRecording &recording, int iterations,
                       bool flushCache, std::vector<double> &microseconds) {
  return time(recording.launches(), iterations, flushCache, microseconds);
}

Status GpuDevice::checkKernel(const GpuLaunch &launch, size_t index) const {
  if (!launch.kernel || launch.kernel->owner() != this)
    return Status(ErrorCode::InvalidArgument,
                  "launch " + std::to_string(index) +
                      ": the kernel belongs to another device");
  return Status::ok();
}

Status GpuDevice::checkArg(const GpuArg &arg, const std::string &where) const {
  if (!arg.buffer || arg.buffer->owner() != this)
    return Status(ErrorCode::InvalidArgument,
                  where + " belongs to another device");
  int64_t size = arg.buffer->size();
  int64_t align = argOffsetAlignment();
  if (arg.offset < 0 || (align > 0 && arg.offset % align) ||
      arg.offset >= size || (arg.bytes >= 0 && arg.offset + arg.bytes > size))
    return Status(ErrorCode::InvalidArgument,
                  where + ": a range at " + std::to_string(arg.offset) +
                      " outside its buffer of " + std::to_string(size) +
                      " bytes, or not a multiple of " + std::to_string(align));
  return Status::ok();
}
