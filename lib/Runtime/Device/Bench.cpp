//===- Bench.cpp - What every device's benchmark counts and prints -------===//
//
// The median, the bytes an eqn moves and the benchmark line, shared by the
// CUDA and the Vulkan timing paths so both devices report alike.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Bench.h"

#include "Device/DeviceEqn.h"

#include <algorithm>
#include <cstdio>

double poot::rt::medianOf(std::vector<double> values) {
  if (values.empty())
    return 0.0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

poot::rt::BenchBytes
poot::rt::benchBytes(const Eqn &eqn, const std::vector<TensorType> &operandTypes,
                     const std::vector<TensorType> &resultTypes) {
  BenchBytes out;
  if (eqn.op == "attention") {
    // K and V read once, plus q and the output; the mask, lengths,
    // positions and read map are not counted.
    std::vector<std::string> roles = device::operandRoles(eqn);
    for (size_t i = 0; i < roles.size() && i < operandTypes.size(); ++i)
      if (roles[i] == "q" || roles[i] == "k" || roles[i] == "k_shared" ||
          roles[i] == "v")
        out.read += storageBytes(operandTypes[i]);
    if (!resultTypes.empty())
      out.written = storageBytes(resultTypes[0]);
    return out;
  }
  for (const TensorType &type : operandTypes)
    out.read += device::deviceBytes(type);
  for (const TensorType &type : resultTypes)
    out.written += device::deviceBytes(type);
  return out;
}

poot::rt::BenchBytes
poot::rt::benchBytes(const Eqn &eqn, const std::vector<const Tensor *> &operands,
                     const std::vector<TensorType> &resultTypes) {
  std::vector<TensorType> types;
  for (const Tensor *t : operands)
    types.push_back(t->type());
  return benchBytes(eqn, types, resultTypes);
}

double poot::rt::gigabytesPerSecond(int64_t bytes, double microseconds) {
  // Bytes over microseconds is 1e6 bytes a second: / 1e3 for GB/s.
  return microseconds > 0
             ? static_cast<double>(bytes) / (microseconds * 1e3)
             : 0.0;
}

std::string poot::rt::benchLine(size_t eqnIndex, const std::string &kernelNames,
                                double medianUs, double gbps,
                                double replayUs) {
  char buf[160];
  std::snprintf(buf, sizeof(buf), ": median %.2f us, %.1f GB/s", medianUs,
                gbps);
  std::string line =
      "bench eqn " + std::to_string(eqnIndex) + " " + kernelNames + buf;
  if (replayUs >= 0) {
    std::snprintf(buf, sizeof(buf), ", graph replay median %.2f us",
                  replayUs);
    line += buf;
  }
  return line;
}
