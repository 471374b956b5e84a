//===- RandomInputs.cpp - Seeded random bindings for a graph --------------===//

#include "poot/Runtime/RandomInputs.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <numeric>
#include <random>

using namespace poot::rt;

Tensor poot::rt::randomInput(const Graph &graph, const GraphInput &input,
                             uint64_t seed, int64_t headroom) {
  const TensorType &type = graph.values[input.value];
  // One stream per input name, so adding an input does not reshuffle others.
  std::seed_seq seq{static_cast<uint32_t>(seed),
                    static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(std::hash<std::string>()(input.name))};
  std::mt19937_64 rng(seq);
  Tensor t(type);
  int64_t n = t.size();
  if (isFloat(type.dtype)) {
    // A rank-2 float input is a weight matrix [fan_in, fan_out]: drawn with
    // variance 1/fan_in, as trained weights are scaled, so activations stay
    // of order one through the layers. Everything else is uniform in [-1, 1).
    double bound = 1.0;
    if (type.shape.size() == 2 && type.shape[0] > 1)
      bound = std::sqrt(3.0 / static_cast<double>(type.shape[0]));
    std::uniform_real_distribution<double> dist(-bound, bound);
    for (int64_t i = 0; i < n; ++i) {
      double v = 0.0;
      while (v == 0.0)
        v = roundTo(type.dtype, dist(rng));
      t.at(i) = v;
    }
    return t;
  }
  if (type.dtype == DType::I1) {
    std::bernoulli_distribution dist(0.5);
    for (int64_t i = 0; i < n; ++i)
      t.at(i) = dist(rng) ? 1.0 : 0.0;
    return t;
  }
  int64_t lo = 0, hi = 4;
  if (input.range) {
    lo = input.range->first;
    hi = input.range->second;
  }
  if (input.slot == "write_map") {
    // Distinct pool slots (never -1, so every new row lands somewhere).
    // Only `n` distinct slots are needed: of a range wider than max(n, 2^24)
    // slots only that many first ones are drawn from, so a huge declared
    // range allocates nothing huge.
    int64_t start = std::max<int64_t>(lo, 0);
    int64_t pool = std::min(std::max<int64_t>(hi - start, 0),
                            std::max<int64_t>(n, int64_t(1) << 24));
    std::vector<int64_t> slots(pool);
    std::iota(slots.begin(), slots.end(), start);
    std::shuffle(slots.begin(), slots.end(), rng);
    for (int64_t i = 0; i < n; ++i)
      t.at(i) = slots.empty() ? -1.0
                              : static_cast<double>(slots[i % slots.size()]);
    return t;
  }
  int64_t lowered;
  if ((input.slot == "pos" || input.slot == "len") &&
      !__builtin_sub_overflow(hi, headroom, &lowered))
    hi = std::max(lo + 1, lowered);
  std::uniform_int_distribution<int64_t> dist(lo, hi - 1);
  for (int64_t i = 0; i < n; ++i)
    t.at(i) = static_cast<double>(dist(rng));
  return t;
}

Status poot::rt::randomInput(const Graph &graph, const GraphInput &input,
                             uint64_t seed, int64_t headroom, Tensor &out) {
  if (input.value < 0 ||
      static_cast<size_t>(input.value) >= graph.values.size())
    return Status(ErrorCode::InvalidArgument,
                  "input '" + input.name + "' names no value of the graph");
  const TensorType &type = graph.values[input.value];
  if (Status s = checkTensorType(type); !s.isOk())
    return Status(s.code(), "input '" + input.name + "': " + s.message());
  if (input.range && input.range->first >= input.range->second)
    return Status(ErrorCode::InvalidArgument,
                  "input '" + input.name + "': its range is empty");
  // The allocation boundary: the type is sane, the memory may still lack.
  try {
    out = randomInput(graph, input, seed, headroom);
  } catch (const std::bad_alloc &) {
    return Status(ErrorCode::Unsupported, "input '" + input.name +
                                              "': out of memory allocating " +
                                              type.toString());
  }
  return Status::ok();
}
