//===- GpuDevice.h - The one interface every GPU device implements -*- C++ -*-===//
//
// What the runtime needs of a GPU, whatever its driver: memory it can fill
// and read back, a plan's kernels loaded once, launches run in order, and,
// where the driver can, work recorded once and replayed, and timed. CUDA,
// HIP and Vulkan each implement it (CudaDevice, HipDevice, VulkanDevice), and
// one runner (PlanRunner) runs a plan over it, so the run path (operand
// roles, range checks, error words, read-back, graph residency) is written
// once and tested once, on fake drivers as much as on real ones.
//
// The objects a device hands out (buffers, kernels, modules, recordings)
// belong to it: passing one to another device is refused by that device,
// never a crash. A device is meant to be used from one thread at a time.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_GPUDEVICE_H
#define POOT_RUNTIME_GPUDEVICE_H

#include "poot/Plan/DeviceFacts.h"
#include "poot/Runtime/Status.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace poot::rt {

struct Plan;

/// Device memory. Uploads and downloads wait for themselves; they are not
/// ordered with launches still running, which is why the runner only moves
/// data between runs (every GpuDevice::run waits for its launches).
class GpuBuffer {
public:
  virtual ~GpuBuffer();
  /// Bytes the buffer holds, as asked for.
  virtual int64_t size() const = 0;
  /// Copies `bytes` from `src` into the buffer at `offset`.
  virtual Status upload(const void *src, int64_t bytes, int64_t offset = 0) = 0;
  /// Copies `bytes` at `offset` of the buffer into `dst`.
  virtual Status download(void *dst, int64_t bytes,
                          int64_t offset = 0) const = 0;
  /// The driver state the buffer belongs to (how a device tells its own
  /// buffers from another's).
  virtual const void *owner() const = 0;
};

/// One entry point of a loaded module.
class GpuKernel {
public:
  virtual ~GpuKernel();
  virtual const std::string &name() const = 0;
  virtual const void *owner() const = 0;
};

/// A plan's kernels on one device, each built on first use and kept.
class GpuModule {
public:
  virtual ~GpuModule();
  /// The entry point `name`, whose parameters are `numArgs` buffers (a
  /// count the loader checks where the driver says how many a kernel has,
  /// and SPIR-V needs for its pipeline layout).
  virtual Status kernel(const std::string &name, int numArgs,
                        const GpuKernel *&out) = 0;
};

/// A kernel argument: a whole buffer, or the range of one from `offset`
/// (a multiple of GpuDevice::argOffsetAlignment()).
struct GpuArg {
  const GpuBuffer *buffer = nullptr;
  int64_t offset = 0;
  int64_t bytes = -1; ///< -1: from offset to the end of the buffer
};

/// One launch: `gridX` x `gridY` workgroups of `lanes` threads, each given
/// `shared` bytes of workgroup memory dynamically (kernels that declare
/// theirs take 0).
struct GpuLaunch {
  const GpuKernel *kernel = nullptr;
  std::vector<GpuArg> args;
  int64_t gridX = 1;
  int64_t gridY = 1;
  int64_t lanes = 1;
  int64_t shared = 0;
};

/// One device-side copy: `bytes` bytes of `src` from `srcOffset` into `dst`
/// at `dstOffset` (the same buffer is fine where the ranges do not meet).
struct GpuCopy {
  const GpuBuffer *src = nullptr;
  int64_t srcOffset = 0;
  GpuBuffer *dst = nullptr;
  int64_t dstOffset = 0;
  int64_t bytes = 0;
};

/// Launches recorded once, replayed many times (a CUDA graph; elsewhere
/// the launches themselves, run again).
class GpuRecording {
public:
  explicit GpuRecording(std::vector<GpuLaunch> launches)
      : launches_(std::move(launches)) {}
  virtual ~GpuRecording();
  const std::vector<GpuLaunch> &launches() const { return launches_; }
  /// The device whose own recorded form this is; null for the launches
  /// alone.
  virtual const void *owner() const { return nullptr; }

private:
  std::vector<GpuLaunch> launches_;
};

class GpuDevice {
public:
  virtual ~GpuDevice();

  /// "cuda", "hip" or "vulkan": the device kind of poot::rt::openDevice.
  virtual const char *kind() const = 0;
  /// Limits in the planner's terms.
  virtual const DeviceFacts &facts() const = 0;
  /// The device as its driver names it, for reports.
  virtual const std::string &description() const = 0;

  /// Allocates `bytes` (> 0) of device memory; its contents are undefined.
  virtual Status allocate(int64_t bytes, std::unique_ptr<GpuBuffer> &out) = 0;
  /// Loads the kernels of `plan` for this device. InvalidArgument when the
  /// plan holds none for it; Unsupported, naming both, when they were
  /// built for a chip this device cannot run.
  virtual Status loadModule(const Plan &plan,
                            std::unique_ptr<GpuModule> &out) = 0;
  /// What a GpuArg's offset must be a multiple of.
  virtual int64_t argOffsetAlignment() const = 0;

  /// Runs `launches` in order, each seeing every write of the ones before
  /// it, and waits for the last. Every launch is checked before the first
  /// is issued, so a refused sequence runs nothing; a kernel's fault comes
  /// back as the driver's typed error.
  virtual Status run(const std::vector<GpuLaunch> &launches) = 0;

  /// Records `launches` for replay(). The default keeps the launches and
  /// replays by running them.
  virtual Status record(std::vector<GpuLaunch> launches,
                        std::unique_ptr<GpuRecording> &out);
  /// Performs `copies` in order on the device and waits, as run() does:
  /// what a serving engine needs to move K/V blocks inside a pool that
  /// stays on the device (copy-on-write). Every copy is checked before the
  /// first is made (this device's buffers, ranges inside them, no overlap
  /// within one copy), so a refused list copies nothing. The default goes
  /// through host memory; the devices copy device to device.
  virtual Status copy(const std::vector<GpuCopy> &copies);
  /// Runs what `recording` holds and waits, as run() does.
  virtual Status replay(const GpuRecording &recording);

  /// Whether the device can time: Ok, or Unsupported naming why.
  virtual Status timingSupport() const;
  /// Times `iterations` runs of `launches` (the cache flushed before each,
  /// outside the timing, when `flushCache`), each run's microseconds into
  /// `microseconds`. Unsupported by default.
  virtual Status time(const std::vector<GpuLaunch> &launches, int iterations,
                      bool flushCache, std::vector<double> &microseconds);
  /// The same for replays of `recording` (by default: its launches).
  virtual Status time(const GpuRecording &recording, int iterations,
                      bool flushCache, std::vector<double> &microseconds);
  /// Whether the device's replay is its own recorded form (a CUDA graph)
  /// rather than the launches run again, so that timing both tells two
  /// different things.
  virtual bool replaysNatively() const { return false; }

  /// Whether a plan runs whole on this device (every value resident, one
  /// submission) unless told otherwise: where that path has been checked
  /// against the eqn-by-eqn one on every example.
  virtual bool residentByDefault() const { return false; }

protected:
  /// Ok when launch `index` names a kernel of this device; InvalidArgument
  /// otherwise.
  Status checkKernel(const GpuLaunch &launch, size_t index) const;
  /// Ok when `arg` is a range of one of this device's buffers at an
  /// aligned offset inside it; InvalidArgument starting with `where`
  /// otherwise.
  Status checkArg(const GpuArg &arg, const std::string &where) const;
  /// Ok when every copy is one copy() may make; InvalidArgument naming the
  /// first that is not.
  Status checkCopies(const std::vector<GpuCopy> &copies) const;
};

} // namespace poot::rt

#endif // POOT_RUNTIME_GPUDEVICE_H
