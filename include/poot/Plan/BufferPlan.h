//===- BufferPlan.h - One arena with lifetime colouring ---------*- C++ -*-===//
//
// Every intermediate value of a plan, and every split-KV scratch, gets an
// offset in one arena. Two buffers share bytes only when their lifetimes
// (in eqn order) do not overlap, so a scratch that lives exactly as long as
// its attention reuses the previous layer's slot and the arena does not grow
// with the layer count.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_PLAN_BUFFERPLAN_H
#define POOT_PLAN_BUFFERPLAN_H

#include "poot/Runtime/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace poot {

/// A buffer live from eqn `first` to eqn `last`, inclusive.
struct BufferRequest {
  std::string name;
  int64_t bytes = 0;
  int64_t first = 0;
  int64_t last = 0;
  int value = -1; ///< the graph value it holds, or -1 for a scratch
};

struct ArenaPlan {
  std::vector<int64_t> offsets; ///< one per request, in request order
  int64_t bytes = 0;            ///< the arena's size
};

/// Places `requests` in one arena, `alignment`-aligned: largest first, each
/// at the lowest offset free for its whole lifetime.
ArenaPlan planArena(const std::vector<BufferRequest> &requests,
                    int64_t alignment = 256);

/// The arena buffers of `graph`: every value an eqn defines that is not a
/// graph output, live from its eqn to its last use, plus the scratch an
/// attention declares (its `poot.schedule.scratch_bytes`), live during that
/// eqn only.
std::vector<BufferRequest> graphBuffers(const rt::Graph &graph);

} // namespace poot

#endif // POOT_PLAN_BUFFERPLAN_H
