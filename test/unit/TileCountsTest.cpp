//===- TileCountsTest.cpp - The tiles a tile schedule must visit ----------===//
//
// expectedTileCounts against a brute force over every (row, key) pair: the
// tiles of the schedule's key tile that hold a key some row of the
// workgroup sees.

#include "poot/Runtime/TileCounts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace poot::rt;

namespace {

struct Case {
  int64_t b, hq, hkv, lq, lk, rows, keys, group;
  bool causal = true;
  int64_t window = 0;
  std::vector<double> pos; ///< empty: none
  std::vector<double> len; ///< empty: none
  int64_t units = 0;       ///< tile_units (0: heaviest first)
};

Eqn eqnOf(const Case &c) {
  Eqn e;
  e.op = "attention";
  e.location = "t.mlir:1:1";
  e.attrs["poot.schedule.tile_rows"] = Attr::ofInt(c.rows);
  e.attrs["poot.schedule.tile_keys"] = Attr::ofInt(c.keys);
  e.attrs["poot.schedule.group"] = Attr::ofInt(c.group);
  e.attrs["poot.schedule.splits"] = Attr::ofInt(1);
  e.attrs["poot.request.shape"] =
      Attr::ofInts({c.b, c.hq, c.hkv, c.lq, c.lk, 64, 64});
  if (c.causal)
    e.attrs["causal"] = Attr::ofInt(1);
  if (c.window)
    e.attrs["window"] = Attr::ofInt(c.window);
  if (c.units)
    e.attrs["poot.schedule.tile_units"] = Attr::ofInt(c.units);
  return e;
}

/// Every workgroup's tiles by enumeration, in the kernel's workgroup order
/// (split fastest, then batch row and head group, the last row block
/// first). Tiles start at the first key any row of the block sees.
std::vector<int64_t> bruteForce(const Case &c) {
  const int64_t packed = c.group * c.lq;
  const int64_t blocks = (packed + c.rows - 1) / c.rows;
  const int64_t groups = c.hq / c.group;
  // The heaviest-first order, then (with units) dealt: the order cut into
  // rounds of `units`, every second round reversed.
  const int64_t total = c.b * groups * blocks;
  std::vector<int64_t> order(total);
  for (int64_t i = 0; i < total; ++i)
    order[i] = i;
  if (c.units)
    for (int64_t r = 0; r * c.units < total; ++r)
      if (r % 2)
        std::reverse(order.begin() + r * c.units,
                     order.begin() + std::min(total, (r + 1) * c.units));
  std::vector<int64_t> out;
  for (int64_t wg = 0; wg < total; ++wg) {
    const int64_t id = order[wg];
    int64_t block = blocks - 1 - id / (c.b * groups);
    int64_t bi = (id % (c.b * groups)) / groups;
    std::vector<std::pair<int64_t, int64_t>> seen; // (row, key)
    for (int64_t p = block * c.rows; p < std::min((block + 1) * c.rows, packed);
         ++p) {
      int64_t qpos = (c.pos.empty() ? 0
                                    : static_cast<int64_t>(
                                          c.pos[c.pos.size() == 1 ? 0 : bi])) +
                     p / c.group;
      int64_t end = c.len.empty() ? c.lk
                                  : static_cast<int64_t>(
                                        c.len[c.len.size() == 1 ? 0 : bi]);
      for (int64_t k = 0; k < c.lk; ++k) {
        bool visible = k < end && (!c.causal || k <= qpos) &&
                       (!c.window || k > qpos - c.window);
        if (visible)
          seen.emplace_back(p, k);
      }
    }
    if (seen.empty()) {
      out.push_back(0);
      continue;
    }
    int64_t first = c.lk;
    for (auto &[p, k] : seen)
      first = std::min(first, k);
    std::set<int64_t> tiles;
    for (auto &[p, k] : seen)
      tiles.insert((k - first) / c.keys);
    // Tiles between the first and the last seen one are visited too (the
    // range is contiguous): count the span.
    out.push_back(*tiles.rbegin() + 1);
  }
  return out;
}

void expectMatches(const Case &c) {
  Tensor pos(TensorType{DType::I32, {static_cast<int64_t>(c.pos.size())}}, c.pos);
  Tensor len(TensorType{DType::I32, {static_cast<int64_t>(c.len.size())}}, c.len);
  ExpectedTiles got;
  ASSERT_TRUE(expectedTileCounts(eqnOf(c), c.pos.empty() ? nullptr : &pos,
                                 c.len.empty() ? nullptr : &len, got)
                  .isOk());
  EXPECT_EQ(got.perWorkgroup, bruteForce(c));
}

TEST(TileCountsTest, CausalPrefillVisitsTheLowerTriangle) {
  // 64 packed rows (16 query rows x 4 heads) a block, 64-key tiles.
  Case c{1, 8, 2, 300, 300, 64, 64, 4};
  expectMatches(c);
  ExpectedTiles got;
  ASSERT_TRUE(expectedTileCounts(eqnOf(c), nullptr, nullptr, got).isOk());
  // Block i holds query rows 16 i .. 16 i + 15: ceil((16 i + 16) / 64)
  // tiles, for 19 blocks and 2 head groups.
  int64_t want = 0;
  for (int64_t i = 0; i < 19; ++i)
    want += 2 * ((16 * i + 16 + 63) / 64);
  EXPECT_EQ(got.total, want);
  EXPECT_EQ(got.withoutSkipping, 2 * 19 * 5);
  EXPECT_LT(got.total, got.withoutSkipping);
}

TEST(TileCountsTest, OddShapesWindowsPositionsAndLengths) {
  expectMatches({1, 4, 4, 17, 17, 64, 32, 1});             // MHA, one block
  expectMatches({2, 4, 1, 1000, 1000, 64, 64, 4});         // MQA
  expectMatches({1, 32, 2, 129, 129, 64, 64, 16});          // n_rep 16
  expectMatches({1, 8, 2, 1000, 1000, 64, 64, 4, true, 100}); // window
  expectMatches({1, 8, 2, 700, 700, 64, 32, 2, false, 64});  // window only
  // A chunk of 48 rows at positions 200 and 17 against 256 keys, causal.
  expectMatches({2, 8, 2, 48, 256, 64, 64, 4, true, 0, {200, 17}});
  // Live lengths below the causal edge, one row with no key at all.
  expectMatches({2, 8, 8, 64, 128, 64, 64, 1, true, 0, {0}, {40, 0}});
  expectMatches({2, 8, 2, 8, 4096, 64, 64, 4, false, 0, {}, {4000, 17}});
}

TEST(TileCountsTest, DealtOrderMatchesTheKernels) {
  // Rounds of 7 and 132 units over 38 and 256 workgroups (the last round
  // partial, odd and even), batch rows and head groups interleaved.
  Case c{2, 8, 2, 300, 300, 64, 64, 4};
  c.units = 7;
  expectMatches(c);
  c.units = 5;
  expectMatches(c);
  Case big{1, 32, 8, 1024, 1024, 128, 64, 4};
  big.units = 132;
  expectMatches(big);
  // Dealt, a unit's two blocks weigh about the same: workgroups u and
  // 2U - 1 - u of the first two rounds.
  ExpectedTiles got;
  ASSERT_TRUE(expectedTileCounts(eqnOf(big), nullptr, nullptr, got).isOk());
  const int64_t first = got.perWorkgroup[0] + got.perWorkgroup[132];
  for (int64_t u = 0; u < 124; ++u)
    EXPECT_NEAR(got.perWorkgroup[u] + got.perWorkgroup[132 + u], first, 2);
}

TEST(TileCountsTest, SplitsCutTheSeenRange) {
  Case c{1, 8, 8, 1, 1000, 64, 64, 1, false};
  Eqn e = eqnOf(c);
  e.attrs["poot.schedule.splits"] = Attr::ofInt(4);
  ExpectedTiles got;
  ASSERT_TRUE(expectedTileCounts(e, nullptr, nullptr, got).isOk());
  // 8 heads in groups of 1, one row each, 4 splits of 250 keys: 4 tiles.
  ASSERT_EQ(got.perWorkgroup.size(), 32u);
  for (int64_t n : got.perWorkgroup)
    EXPECT_EQ(n, 4);
}

TEST(TileCountsTest, RefusesAnEqnWithoutATileSchedule) {
  Eqn e;
  e.op = "attention";
  ExpectedTiles got;
  EXPECT_EQ(expectedTileCounts(e, nullptr, nullptr, got).code(),
            ErrorCode::InvalidArgument);
}

} // namespace
