//===- TileCounts.h - What a tile schedule's workgroups must visit -*- C++ -*-===//
//
// A plan compiled with --count-tiles has its tile-schedule kernels count
// the key tiles each workgroup visits (PlanRunner::tileCounts reads them
// back). This is the other side of that check: from the mask's rules alone
// (causal at each row's position, the sliding window, the live length), the
// keys some row of each workgroup can see, and the tiles of the schedule's
// key tile that cover them. A causal prefill must visit exactly those (the
// lower triangle, tile by tile), never a tile no row sees.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_TILECOUNTS_H
#define POOT_RUNTIME_TILECOUNTS_H

#include "poot/Runtime/Graph.h"
#include "poot/Runtime/Status.h"

#include <cstdint>
#include <vector>

namespace poot::rt {

struct ExpectedTiles {
  /// By workgroup index (the kernel's linear workgroup id).
  std::vector<int64_t> perWorkgroup;
  /// Their sum, and the tiles a schedule that skipped nothing would visit.
  int64_t total = 0, withoutSkipping = 0;
};

/// The tiles each workgroup of attention `eqn` (a tile schedule: the
/// plan's poot.schedule.tile_rows / tile_keys / group / splits) must
/// visit, given the positions and lengths it ran with (null where the
/// attention has none). InvalidArgument for an eqn without a tile schedule.
Status expectedTileCounts(const Eqn &eqn, const Tensor *pos, const Tensor *len,
                          ExpectedTiles &out);

} // namespace poot::rt

#endif // POOT_RUNTIME_TILECOUNTS_H
