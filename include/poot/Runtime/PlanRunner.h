//===- PlanRunner.h - Running a plan's kernels on any GPU device -*- C++ -*-===//
//
// The one run path of every GPU device (CUDA, HIP, Vulkan), over the
// GpuDevice interface. Each eqn that carries generated launches
// (`poot.launches.*`: attention, RoPE, the sparse ops and every primitive
// op) runs the plan's kernels; the other eqns run in the evaluator on the
// host, or fail the run in device-only mode. Operands go up in their device
// storage (i1 as i32 words; the attention's i64 positions and lengths
// narrowed to i32, refusing a value that does not fit, before anything
// runs), the launches run in order, a kernel's error word becomes the typed
// error (and nothing is read back), then the results come back. The module
// is loaded once per runner, and each eqn's buffers are kept from one run
// to the next, so a decode loop uploads but never reallocates.
//
// prepare() stops short of the launches, for the benchmark: an eqn's
// operands go up once, then its launches are timed as often as needed.
//
// Resident runs (on by default where the device says so, see
// GpuDevice::residentByDefault): a graph whose every eqn has kernels runs
// whole on the device. The plan's arena holds the computed intermediates
// and split scratches, every other value gets a buffer of its own,
// constants go up once, and the launches of all eqns are recorded once
// (a CUDA graph) and replayed at every run (the grids do not depend on
// live lengths, so one recording serves every decode step); each run
// uploads the inputs, zeroes the error words, replays, and reads back the
// outputs only.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_PLANRUNNER_H
#define POOT_RUNTIME_PLANRUNNER_H

#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/GpuDevice.h"
#include "poot/Runtime/PlanFile.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace poot::rt {

/// An eqn ready to run: its operands on the device and its launches. The
/// pointers are into the runner's buffers and kernels, valid until the
/// runner goes or prepares the same eqn again.
struct PreparedEqn {
  std::vector<GpuLaunch> launches;
  /// Every result's buffer and type.
  std::vector<GpuBuffer *> outs;
  std::vector<TensorType> resultTypes;
  /// The error word the simple kernels write, or null.
  GpuBuffer *err = nullptr;
  /// The bytes the benchmark counts (poot/Runtime/Bench.h).
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  /// The kernels in launch order, joined with ','.
  std::string kernelNames;
};

/// An operand of prepare(): a host tensor to upload or, with `tensor` null,
/// one of `type` the device fills itself, so that timing a shape of
/// gigabytes never builds its operands in host memory. `zero` fills zeros;
/// otherwise values uniform in [-1, 1) drawn from `seed`: a 1 MiB block is
/// drawn and encoded on the host, and device-side copies double it until
/// the buffer is full (the values repeat every MiB, which no kernel's
/// timing depends on). Floating-point types only.
struct OperandSource {
  const Tensor *tensor = nullptr;
  TensorType type;
  bool zero = false;
  uint64_t seed = 0;
};

class PlanRunner : public EqnRunner {
public:
  /// `device` and `plan` must outlive the runner.
  PlanRunner(GpuDevice &device, const Plan &plan);
  ~PlanRunner() override;

  Status run(const Eqn &eqn, const std::vector<const Tensor *> &operands,
             const std::vector<TensorType> &resultTypes,
             std::vector<Tensor> &results, bool &claimed) override;

  /// Runs `graph` whole when resident runs are on and every eqn has
  /// kernels (or is a constant). Declines (ran = false) a graph with an
  /// eqn for the host, or whose attention reads a computed i64 position or
  /// length (the kernels take them as i32; an input is narrowed on upload).
  Status runGraph(const Graph &graph, std::vector<Tensor> &values,
                  std::vector<bool> &defined, bool &ran) override;

  /// Uploads `eqn`'s operands into its device buffers and resolves its
  /// launches. Leaves `claimed` false (and does nothing) for an eqn the
  /// device does not run.
  Status prepare(const Eqn &eqn, const std::vector<const Tensor *> &operands,
                 const std::vector<TensorType> &resultTypes, PreparedEqn &out,
                 bool &claimed);
  /// The same with operands filled on the device where a source says so
  /// (InvalidArgument for a fill of a non-float type).
  Status prepare(const Eqn &eqn, const std::vector<OperandSource> &operands,
                 const std::vector<TensorType> &resultTypes, PreparedEqn &out,
                 bool &claimed);

  GpuDevice &gpu() const { return device; }
  /// Eqns run on the device so far.
  int64_t dispatchedEqns() const { return dispatched; }
  /// Eqns the evaluator ran on the host so far, constants not counted
  /// (always 0 with deviceOnly).
  int64_t hostEqns() const { return onHost; }
  /// With `on`, an eqn without kernels fails the run (Unsupported) instead
  /// of running on the host.
  void setDeviceOnly(bool on) { deviceOnly = on; }
  /// Whether a graph may run whole on the device.
  void setResident(bool on) { residentOn = on; }
  /// Values and split scratches of the last resident run that lived in the
  /// plan's arena rather than in buffers of their own.
  int64_t arenaBindings() const;
  /// Launches recorded for the last resident run (0: none).
  int64_t capturedLaunches() const;
  /// Keeps state input `inputName` (and the output carrying its state) in
  /// `buffer` from run to run: a buffer of this runner's device holding
  /// the state's device storage (GpuDevice::allocate of its storageBytes;
  /// the caller fills it, zeros for an empty K/V pool). A run reads the
  /// buffer in place and leaves the new state in it: the pool never
  /// travels, and its host binding is neither needed nor touched. Blocks
  /// move inside it with GpuDevice::copy (serve::applyBlockCopies); read it
  /// back with download. Only a run of the whole graph on the device can
  /// hold state, so with any held, a run that would go eqn by eqn (resident
  /// runs off, an eqn without kernels) is refused before anything runs.
  /// Null releases the state to the host bindings again. UnknownName for
  /// no such state input; InvalidArgument for another device's buffer or
  /// one of another size. A run of a graph where the input is missing or
  /// carries no state is refused (UnknownName) before anything runs. The
  /// buffer must outlive the runner or its release.
  Status holdState(const std::string &inputName, GpuBuffer *buffer);
  bool holdsState(const std::string &inputName) const override;
  /// The key tiles each workgroup of `eqn`'s last run visited, by
  /// workgroup index: for a plan compiled with --count-tiles, run eqn by
  /// eqn (a graph with counted tiles never runs whole). InvalidArgument for
  /// an eqn without them.
  Status tileCounts(const Eqn &eqn, std::vector<int32_t> &counts) const;
  /// Times `iterations` replays of the last resident run's recording
  /// (inputs already on the device, cache flushed before each), in
  /// microseconds.
  Status timeResident(int iterations, std::vector<double> &microseconds);

private:
  Status kernel(const std::string &name, int numArgs, const GpuKernel *&out);
  /// The launches of `eqn`, each argument bound by its role in `byRole`.
  Status bindLaunches(const Eqn &eqn, const std::map<std::string, GpuArg> &byRole,
                      std::vector<GpuLaunch> &out, std::string *names);
  /// The device side of a graph run whole (PlanRunner.cpp).
  struct Resident;
  Status buildResident(const Graph &graph);

  GpuDevice &device;
  const Plan &plan;
  std::unique_ptr<GpuModule> module;
  /// One eqn's device buffers by role ("q", "in0", "out", "err", ...).
  using EqnBuffers = std::map<std::string, std::unique_ptr<GpuBuffer>>;
  std::map<const Eqn *, EqnBuffers> buffers;
  std::unique_ptr<Resident> resident;
  /// State inputs kept in the caller's device buffers, by input name.
  std::map<std::string, GpuBuffer *> held;
  int64_t dispatched = 0;
  int64_t onHost = 0;
  bool deviceOnly = false;
  bool residentOn;
};

} // namespace poot::rt

#endif // POOT_RUNTIME_PLANRUNNER_H
