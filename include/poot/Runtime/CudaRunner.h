//===- CudaRunner.h - Running a plan's kernels on CUDA ----------*- C++ -*-===//
//
// The CUDA device of a plan (target "cuda:sm_80", "cuda:sm_90"): each eqn
// that carries generated launches (`poot.launches.*`: attention, RoPE, the
// sparse ops and every primitive op) runs the plan's PTX kernels; the other
// eqns run in the evaluator on the host. Operands are
// uploaded in their storage dtype (i64 positions and lengths narrowed to
// i32, as the kernels take them), the launches run in order on the device's
// stream, the result is read back. The module is loaded once per runner,
// and each eqn's device buffers are kept from one run to the next, so a
// decode loop uploads but never reallocates.
//
// prepare() and enqueue() split run() for the benchmark: an eqn's operands
// go up once, then its launches are enqueued (or captured into a graph) as
// many times as the timing needs.
//
// Resident runs (setResident; off by default, since they have not yet run
// on a GPU): a graph whose every eqn has kernels runs whole on the device.
// Every value gets a device buffer, constants go up once, the launches of
// all eqns are captured into one CUDA graph at the first run and replayed
// at every run after (the grids do not depend on live lengths, so one
// capture serves every decode step); each run uploads the inputs, zeroes
// the error words, replays, and reads back the outputs only.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_CUDARUNNER_H
#define POOT_RUNTIME_CUDARUNNER_H

#include "poot/Runtime/CudaDevice.h"
#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/PlanFile.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace poot::rt {

/// One launch of an eqn, resolved against the device: the kernel, its
/// buffers in parameter order, the grid and the block width.
struct CudaLaunch {
  const CudaKernel *kernel = nullptr;
  std::vector<CudaDeviceBuffer *> args;
  int64_t gridX = 1;
  int64_t gridY = 1;
  int64_t lanes = 1;
};

/// An eqn ready to run: its operands on the device and its launches. The
/// pointers are into the runner's buffers and kernels, valid until the
/// runner goes or prepares the same eqn with other operand sizes.
struct CudaPreparedEqn {
  std::vector<CudaLaunch> launches;
  CudaDeviceBuffer *out = nullptr;
  TensorType resultType;
  /// Every result's buffer and type (the attention's is `out` alone).
  std::vector<CudaDeviceBuffer *> outs;
  std::vector<TensorType> resultTypes;
  /// The error word the simple kernels write, or null.
  CudaDeviceBuffer *err = nullptr;
  /// Storage bytes of the q, k (and k_shared) and v operands, as uploaded.
  int64_t bytesRead = 0;
  /// Storage bytes of the result.
  int64_t bytesWritten = 0;
  /// The kernels in launch order, joined with ','.
  std::string kernelNames;
};

class CudaRunner : public EqnRunner {
public:
  CudaRunner(CudaDevice &device, const Plan &plan);
  ~CudaRunner() override;

  Status run(const Eqn &eqn, const std::vector<const Tensor *> &operands,
             const std::vector<TensorType> &resultTypes,
             std::vector<Tensor> &results, bool &claimed) override;

  /// Uploads `eqn`'s operands into its device buffers and resolves its
  /// launches. Leaves `claimed` false (and does nothing) for an eqn the
  /// device does not run.
  Status prepare(const Eqn &eqn, const std::vector<const Tensor *> &operands,
                 const std::vector<TensorType> &resultTypes,
                 CudaPreparedEqn &out, bool &claimed);

  /// Enqueues the launches of `prepared` in order on `stream` (nullptr: the
  /// device's stream) without waiting.
  Status enqueue(const CudaPreparedEqn &prepared, CudaStream stream = nullptr);

  /// Eqns run on the device so far.
  int64_t dispatchedEqns() const { return dispatched; }
  /// With `on`, an eqn without kernels fails the run (Unsupported) instead
  /// of running on the host.
  void setDeviceOnly(bool on) { deviceOnly = on; }

  /// Runs `graph` whole when resident runs are on and every eqn has
  /// kernels (or is a constant). Declines (ran = false) a graph with an
  /// eqn for the host, or whose attention reads a computed i64 position or
  /// length (the kernels take them as i32; an input is narrowed on upload).
  Status runGraph(const Graph &graph, std::vector<Tensor> &values,
                  std::vector<bool> &defined, bool &ran) override;
  void setResident(bool on) { residentOn = on; }
  /// Launches in the graph captured for the last resident run (0: none).
  int64_t capturedLaunches() const;
  /// Times `iterations` replays of the captured graph (inputs already on
  /// the device, L2 flushed before each), in microseconds.
  Status timeResident(int iterations, std::vector<double> &microseconds);

private:
  Status kernel(const std::string &name, const CudaKernel *&out);
  /// Enqueues `launches` in order on `stream` without waiting.
  Status enqueueLaunches(const std::vector<CudaLaunch> &launches,
                         CudaStream stream);
  /// prepare() for every eqn but attention: roles in<i>, out<i>, err.
  Status prepareSimple(const Eqn &eqn,
                       const std::vector<const Tensor *> &operands,
                       const std::vector<TensorType> &resultTypes,
                       CudaPreparedEqn &out, bool &claimed);

  /// One eqn's device buffers by role ("q", "out", "scratch", ...).
  using EqnBuffers = std::map<std::string, CudaDeviceBuffer>;

  /// The device side of a graph run whole (CudaRunner.cpp).
  struct Resident;
  Status buildResident(const Graph &graph);

  CudaDevice &device;
  const Plan &plan;
  std::unique_ptr<Resident> resident;
  bool residentOn = false;
  CudaModule module;
  std::map<std::string, CudaKernel> kernels;
  std::map<const Eqn *, EqnBuffers> buffers;
  int64_t dispatched = 0;
  bool deviceOnly = false;
};

} // namespace poot::rt

#endif // POOT_RUNTIME_CUDARUNNER_H
