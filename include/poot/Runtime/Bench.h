//===- Bench.h - What every device's kernel timing shares -------*- C++ -*-===//
//
// The benchmark of `poot-run-plan --bench` times one eqn's kernels on a GPU
// device (CUDA events on cuda, timestamp queries on vulkan) with the cache
// flushed before each run, and reports the median and a bandwidth. What
// it counts and how it prints are the same on every device, so the lines
// of two devices compare directly: they are here.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_BENCH_H
#define POOT_RUNTIME_BENCH_H

#include "poot/Runtime/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace poot::rt {

/// The median of `values` (the mean of the middle two for an even count),
/// 0 when empty.
double medianOf(std::vector<double> values);

/// The bytes a timing of one eqn counts as moved.
struct BenchBytes {
  /// An attention's q, k (and k_shared) and v in their storage dtype, each
  /// read once; every operand of any other eqn, as stored on the device.
  int64_t read = 0;
  /// The results, as stored (an attention's output in its storage dtype).
  int64_t written = 0;
};
/// What `eqn` with operands of `operandTypes` and results of `resultTypes`
/// moves, as BenchBytes says.
BenchBytes benchBytes(const Eqn &eqn,
                      const std::vector<TensorType> &operandTypes,
                      const std::vector<TensorType> &resultTypes);
/// The same for the operands themselves, as the runners hold them.
BenchBytes benchBytes(const Eqn &eqn,
                      const std::vector<const Tensor *> &operands,
                      const std::vector<TensorType> &resultTypes);

/// `bytes` over `microseconds` in GB/s (1e9 bytes a second); 0 for a time
/// that is not positive.
double gigabytesPerSecond(int64_t bytes, double microseconds);

/// The line every device prints for one timed eqn (no newline):
/// "bench eqn I KERNELS: median U us, G GB/s", and on devices that also
/// replay a captured graph ", graph replay median R us" (replayUs >= 0).
std::string benchLine(size_t eqnIndex, const std::string &kernelNames,
                      double medianUs, double gbps, double replayUs = -1);

} // namespace poot::rt

#endif // POOT_RUNTIME_BENCH_H
