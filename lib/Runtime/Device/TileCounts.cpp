//===- TileCounts.cpp - What a tile schedule's workgroups must visit ------===//

#include "poot/Runtime/TileCounts.h"

#include <algorithm>
#include <string>

using namespace poot::rt;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

Status poot::rt::expectedTileCounts(const Eqn &eqn, const Tensor *pos,
                                    const Tensor *len, ExpectedTiles &out) {
  out = ExpectedTiles();
  auto intAttr = [&](const char *name, int64_t fallback) {
    const Attr *a = eqn.attr(name);
    return a ? a->i : fallback;
  };
  const int64_t rowsPerGroup = intAttr("poot.schedule.tile_rows", 0);
  const int64_t keys = intAttr("poot.schedule.tile_keys", 0);
  const Attr *shape = eqn.attr("poot.request.shape");
  if (eqn.op != "attention" || rowsPerGroup <= 0 || keys <= 0 || !shape ||
      shape->ints.size() != 7)
    return Status(ErrorCode::InvalidArgument,
                  eqn.location + ": no tile schedule to count tiles of");
  // b, hq, hkv, lq, lk, dk, dv
  const int64_t b = shape->ints[0], hq = shape->ints[1], lq = shape->ints[3],
                lk = shape->ints[4];
  const int64_t group = intAttr("poot.schedule.group", 1);
  const int64_t splits = std::max<int64_t>(intAttr("poot.schedule.splits", 1), 1);
  const bool causal = intAttr("causal", 0) != 0;
  const Attr *windowAttr = eqn.attr("window");
  const int64_t window = windowAttr ? windowAttr->i : 0;
  auto position = [&](int64_t bi) -> int64_t {
    if (!pos || pos->size() == 0)
      return 0;
    return static_cast<int64_t>(pos->at(pos->size() == 1 ? 0 : bi));
  };
  auto keyEnd = [&](int64_t bi) -> int64_t {
    if (!len || len->size() == 0)
      return lk;
    return std::clamp<int64_t>(static_cast<int64_t>(len->at(len->size() == 1 ? 0 : bi)),
                               0, lk);
  };
  // The kernel's workgroup order: split fastest, then (batch row, head
  // group), then the row blocks of packed rows (query row x the group's
  // heads), the last block first; with tile_units U, each round of U
  // workgroups in that order, the odd rounds reversed.
  const int64_t groups = hq / group, packed = group * lq;
  const int64_t blocks = ceilDiv(packed, rowsPerGroup);
  const int64_t workgroups = b * groups * blocks * splits;
  const int64_t units = intAttr("poot.schedule.tile_units", 0);
  out.perWorkgroup.assign(static_cast<size_t>(workgroups), 0);
  for (int64_t id = 0; id < workgroups; ++id) {
    const int64_t split = id % splits;
    int64_t rest = id / splits;
    if (units > 0) {
      const int64_t round = rest / units, first = round * units;
      const int64_t size = std::min(units, b * groups * blocks - first);
      rest = first + (round % 2 ? size - 1 - rest % units : rest % units);
    }
    const int64_t block = blocks - 1 - rest / (b * groups);
    const int64_t bi = (rest % (b * groups)) / groups;
    // The keys any of the block's rows sees, row by row.
    int64_t lo = lk, hi = 0;
    for (int64_t p = block * rowsPerGroup;
         p < std::min((block + 1) * rowsPerGroup, packed); ++p) {
      const int64_t qpos = position(bi) + p / group;
      int64_t rowLo = window ? std::max<int64_t>(qpos - window + 1, 0) : 0;
      int64_t rowHi = keyEnd(bi);
      if (causal)
        rowHi = std::min(rowHi, std::max<int64_t>(qpos + 1, 0));
      if (rowHi <= rowLo)
        continue;
      lo = std::min(lo, rowLo);
      hi = std::max(hi, rowHi);
    }
    // Split-KV cuts the seen range into `splits` chunks; each chunk's
    // tiles start at its first key.
    const int64_t seen = std::max<int64_t>(hi - lo, 0);
    const int64_t chunk = ceilDiv(seen, splits);
    const int64_t begin = std::min(lo + split * chunk, hi);
    const int64_t end = std::min(begin + chunk, hi);
    out.perWorkgroup[id] = end > begin ? ceilDiv(end - begin, keys) : 0;
    out.total += out.perWorkgroup[id];
    out.withoutSkipping += ceilDiv(ceilDiv(lk, splits), keys);
  }
  return Status::ok();
}
