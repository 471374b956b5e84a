//===- GpuDevice.cpp - What a GpuDevice does unless it says otherwise -----===//

#include "poot/Runtime/GpuDevice.h"

#include <new>

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

Status GpuDevice::checkCopies(const std::vector<GpuCopy> &copies) const {
  for (size_t i = 0; i < copies.size(); ++i) {
    const GpuCopy &c = copies[i];
    std::string where = "copy " + std::to_string(i);
    if (!c.src || !c.dst || c.src->owner() != this || c.dst->owner() != this)
      return Status(ErrorCode::InvalidArgument,
                    where + ": a buffer belongs to another device");
    auto inside = [](int64_t offset, int64_t bytes, int64_t size) {
      return offset >= 0 && bytes >= 0 && offset <= size &&
             bytes <= size - offset;
    };
    if (!inside(c.srcOffset, c.bytes, c.src->size()) ||
        !inside(c.dstOffset, c.bytes, c.dst->size()))
      return Status(ErrorCode::InvalidArgument,
                    where + ": " + std::to_string(c.bytes) + " bytes from " +
                        std::to_string(c.srcOffset) + " to " +
                        std::to_string(c.dstOffset) +
                        " leave buffers of " + std::to_string(c.src->size()) +
                        " and " + std::to_string(c.dst->size()) + " bytes");
    if (c.src == c.dst && c.bytes > 0 && c.srcOffset < c.dstOffset + c.bytes &&
        c.dstOffset < c.srcOffset + c.bytes)
      return Status(ErrorCode::InvalidArgument,
                    where + ": the source and destination ranges overlap");
  }
  return Status::ok();
}

Status GpuDevice::copy(const std::vector<GpuCopy> &copies) {
  POOT_RETURN_IF_ERROR(checkCopies(copies));
  for (const GpuCopy &c : copies) {
    if (c.bytes == 0)
      continue;
    std::vector<unsigned char> staging;
    try {
      staging.resize(static_cast<size_t>(c.bytes));
    } catch (const std::bad_alloc &) {
      return Status(ErrorCode::Unsupported,
                    "out of host memory staging a copy of " +
                        std::to_string(c.bytes) + " bytes");
    }
    POOT_RETURN_IF_ERROR(c.src->download(staging.data(), c.bytes, c.srcOffset));
    POOT_RETURN_IF_ERROR(c.dst->upload(staging.data(), c.bytes, c.dstOffset));
  }
  return Status::ok();
}
