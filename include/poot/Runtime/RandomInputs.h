//===- RandomInputs.h - Seeded random bindings for a graph ------*- C++ -*-===//
//
// Fills every input of a graph with seeded random values that respect what
// the graph declares: floats uniform in [-1, 1) (never all zero; a rank-2
// weight matrix [fan_in, fan_out] with variance 1/fan_in), integers
// inside their declared poot.range, a write map with distinct slots, and
// `pos` / `len` slots drawn so a decode of `steps` steps stays inside their
// ranges.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_RANDOMINPUTS_H
#define POOT_RUNTIME_RANDOMINPUTS_H

#include "poot/Runtime/Graph.h"
#include "poot/Runtime/Status.h"

#include <cstdint>

namespace poot::rt {

/// A random tensor for `input` of `graph`. `headroom` is how far a `pos` or
/// `len` slot must stay below its range's end (steps still to run).
Tensor randomInput(const Graph &graph, const GraphInput &input, uint64_t seed,
                   int64_t headroom = 0);

/// randomInput into `out`, or a typed error (nothing thrown) when the
/// input's type is one the runtime cannot hold (checkTensorType) or its
/// memory cannot be allocated.
Status randomInput(const Graph &graph, const GraphInput &input, uint64_t seed,
                   int64_t headroom, Tensor &out);

} // namespace poot::rt

#endif // POOT_RUNTIME_RANDOMINPUTS_H
