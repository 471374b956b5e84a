//===- ServingPoolTest.cpp - The KV block pool's invariants ---------------===//
//
// Admission, prefix reuse, reference counts, copy-on-write, LRU eviction and
// the weights identities of serve::KvCache: every allocator invariant is
// checked after each call, and a refused call must leave the whole pool as
// it was (the snapshot compares every table and every reference count).
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Serving.h"

#include <gtest/gtest.h>

#include <numeric>

using namespace poot::rt;
using namespace poot::rt::serve;

namespace {

std::unique_ptr<KvCache> makePool(int32_t blocks, int32_t blockSize = 4,
                                  int32_t maxTokens = 0) {
  std::unique_ptr<KvCache> pool;
  PoolConfig config{blocks, blockSize, maxTokens};
  EXPECT_TRUE(KvCache::create(config, pool).isOk());
  return pool;
}

std::vector<TokenId> range(TokenId from, int32_t count) {
  std::vector<TokenId> t(count);
  std::iota(t.begin(), t.end(), from);
  return t;
}

/// A wide step shape: room for any row in these tests.
StepShape wideShape(const KvCache &pool, int32_t rows = 4,
                    int32_t tokens = 64) {
  StepShape shape;
  shape.rows = rows;
  shape.tokens = tokens;
  shape.capacity = 256;
  shape.slots = int64_t(pool.config().numBlocks) * pool.config().blockSize;
  return shape;
}

/// Computes every known token of `seq` in one step (no device: the pool
/// only does bookkeeping).
void computeAll(KvCache &pool, SeqId seq) {
  std::vector<TokenId> tokens;
  int32_t done = 0;
  ASSERT_TRUE(pool.tokens(seq, tokens).isOk());
  ASSERT_TRUE(pool.computed(seq, done).isOk());
  int32_t left = static_cast<int32_t>(tokens.size()) - done;
  if (left == 0)
    return;
  StepPlan plan;
  ASSERT_TRUE(pool.prepareStep(wideShape(pool), {{seq, left}}, plan).isOk());
  ASSERT_EQ(plan.grant, Grant::Granted);
  ASSERT_TRUE(pool.checkStep(plan).isOk());
  ASSERT_TRUE(pool.commitStep(plan).isOk());
  ASSERT_TRUE(pool.checkInvariants().isOk())
      << pool.checkInvariants().toString();
}

/// Everything observable about the pool, to compare before and after a
/// refused call.
struct Snapshot {
  std::vector<int32_t> refs;
  std::map<SeqId, std::vector<BlockId>> tables;
  std::map<SeqId, int32_t> computed;
  int32_t free = 0, cached = 0, used = 0;
  bool operator==(const Snapshot &o) const {
    return refs == o.refs && tables == o.tables && computed == o.computed &&
           free == o.free && cached == o.cached && used == o.used;
  }
};

Snapshot snapshot(const KvCache &pool, const std::vector<SeqId> &seqs) {
  Snapshot s;
  for (BlockId b = 0; b < pool.config().numBlocks; ++b)
    s.refs.push_back(pool.blockRefCount(b));
  for (SeqId id : seqs)
    if (pool.contains(id)) {
      EXPECT_TRUE(pool.blockTable(id, s.tables[id]).isOk());
      EXPECT_TRUE(pool.computed(id, s.computed[id]).isOk());
    }
  PoolStats st = pool.stats();
  s.free = st.freeBlocks;
  s.cached = st.cachedBlocks;
  s.used = st.usedBlocks;
  return s;
}

TEST(ServingPoolTest, RefusesBadConfigs) {
  std::unique_ptr<KvCache> pool;
  EXPECT_EQ(KvCache::create({0, 16, 0}, pool).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(KvCache::create({4, 0, 0}, pool).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(KvCache::create({4, 16, -1}, pool).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(KvCache::create({1 << 30, 16, 0}, pool).code(),
            ErrorCode::InvalidArgument); // slots past i32
  ASSERT_TRUE(KvCache::create({4, 16, 0}, pool).isOk());
  EXPECT_EQ(pool->config().blockSize, kDefaultBlockSize);
  EXPECT_EQ(pool->config().maxSequenceTokens, 64);
}

TEST(ServingPoolTest, AdmitTakesBlocksForThePromptAndFinishFreesThem) {
  auto pool = makePool(8);
  Admission a;
  ASSERT_TRUE(pool->admit(1, pool->baseWeights(), range(0, 10), a).isOk());
  EXPECT_EQ(a.grant, Grant::Granted);
  EXPECT_EQ(a.blocksNeeded, 3);
  EXPECT_EQ(a.cachedTokens, 0);
  std::vector<BlockId> table;
  ASSERT_TRUE(pool->blockTable(1, table).isOk());
  EXPECT_EQ(table, (std::vector<BlockId>{0, 1, 2}));
  EXPECT_EQ(pool->stats().usedBlocks, 3);
  ASSERT_TRUE(pool->checkInvariants().isOk());
  // Nothing computed, so nothing cached: every block is free again.
  ASSERT_TRUE(pool->finish(1).isOk());
  PoolStats st = pool->stats();
  EXPECT_EQ(st.freeBlocks, 8);
  EXPECT_EQ(st.usedBlocks, 0);
  EXPECT_EQ(st.cachedBlocks, 0);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST(ServingPoolTest, RefusesBadAdmits) {
  auto pool = makePool(8, 4, 20);
  Admission a;
  WeightsId base = pool->baseWeights();
  ASSERT_TRUE(pool->admit(1, base, range(0, 5), a).isOk());
  Snapshot before = snapshot(*pool, {1, 2});
  EXPECT_EQ(pool->admit(1, base, range(0, 5), a).code(),
            ErrorCode::InvalidArgument); // id in use
  EXPECT_EQ(pool->admit(2, base, {}, a).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(pool->admit(2, base, range(0, 21), a).code(),
            ErrorCode::InvalidArgument); // past maxSequenceTokens
  EXPECT_EQ(pool->admit(2, 12345, range(0, 5), a).code(),
            ErrorCode::InvalidArgument); // never issued
  EXPECT_EQ(pool->append(1, range(0, 16)).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(pool->append(9, range(0, 1)).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(pool->finish(9).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(pool->fork(9, 10).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(pool->fork(1, 1).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(snapshot(*pool, {1, 2}) == before);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST(ServingPoolTest, FailedAdmitChangesNothing) {
  auto pool = makePool(6);
  WeightsId base = pool->baseWeights();
  Admission a;
  // A cached prefix nobody holds (2 blocks), and 3 held blocks.
  ASSERT_TRUE(pool->admit(1, base, range(0, 9), a).isOk());
  computeAll(*pool, 1);
  ASSERT_TRUE(pool->finish(1).isOk());
  ASSERT_TRUE(pool->admit(2, base, range(100, 12), a).isOk());
  ASSERT_EQ(pool->stats().cachedBlocks, 2);
  Snapshot before = snapshot(*pool, {1, 2, 3});
  PoolStats statsBefore = pool->stats();
  // The prompt matches the cached prefix (pinning both cached blocks), so
  // only the one free block is left for its 3 fresh ones.
  std::vector<TokenId> prompt = range(0, 8);
  std::vector<TokenId> tail = range(500, 12);
  prompt.insert(prompt.end(), tail.begin(), tail.end());
  ASSERT_TRUE(pool->admit(3, base, prompt, a).isOk());
  EXPECT_EQ(a.grant, Grant::PoolExhausted);
  EXPECT_EQ(a.blocksNeeded, 3);
  EXPECT_EQ(a.blocksAvailable, 1);
  EXPECT_FALSE(pool->contains(3));
  EXPECT_TRUE(snapshot(*pool, {1, 2, 3}) == before);
  EXPECT_EQ(pool->stats().evictions, statsBefore.evictions);
  EXPECT_EQ(pool->stats().refusedForSpace, statsBefore.refusedForSpace + 1);
  ASSERT_TRUE(pool->checkInvariants().isOk());
  // The same call, once there is room, is granted and shares the prefix.
  ASSERT_TRUE(pool->finish(2).isOk());
  ASSERT_TRUE(pool->admit(3, base, prompt, a).isOk());
  EXPECT_EQ(a.grant, Grant::Granted);
  EXPECT_EQ(a.cachedTokens, 8);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST(ServingPoolTest, SharesCachedPrefixBlocksWithReferenceCounts) {
  auto pool = makePool(16);
  WeightsId base = pool->baseWeights();
  std::vector<TokenId> system = range(0, 8); // two full blocks
  Admission a;
  std::vector<TokenId> p1 = system, p2 = system;
  p1.push_back(40);
  p2.insert(p2.end(), {50, 51, 52, 53, 54});
  ASSERT_TRUE(pool->admit(1, base, p1, a).isOk());
  EXPECT_EQ(a.cachedTokens, 0);
  computeAll(*pool, 1);
  // Held by sequence 1 and found by sequence 2: shared, counted twice.
  ASSERT_TRUE(pool->admit(2, base, p2, a).isOk());
  EXPECT_EQ(a.cachedTokens, 8);
  EXPECT_EQ(a.blocksNeeded, 2);
  std::vector<BlockId> t1, t2;
  ASSERT_TRUE(pool->blockTable(1, t1).isOk());
  ASSERT_TRUE(pool->blockTable(2, t2).isOk());
  EXPECT_EQ(t1[0], t2[0]);
  EXPECT_EQ(t1[1], t2[1]);
  EXPECT_NE(t1[2], t2[2]);
  EXPECT_EQ(pool->blockRefCount(t1[0]), 2);
  EXPECT_EQ(pool->stats().sharedBlocks, 2);
  EXPECT_EQ(pool->stats().prefillTokensSkipped, 8);
  int32_t done = 0;
  ASSERT_TRUE(pool->computed(2, done).isOk());
  EXPECT_EQ(done, 8);
  ASSERT_TRUE(pool->checkInvariants().isOk());
  // A prompt that is exactly the cached blocks still computes its last
  // block: its last token's logits are needed.
  ASSERT_TRUE(pool->admit(3, base, system, a).isOk());
  EXPECT_EQ(a.cachedTokens, 4);
  // Counts fall back to zero; the cached blocks stay for reuse.
  for (SeqId s : {1, 2, 3})
    ASSERT_TRUE(pool->finish(s).isOk());
  for (BlockId b = 0; b < 16; ++b)
    EXPECT_EQ(pool->blockRefCount(b), 0);
  PoolStats st = pool->stats();
  EXPECT_EQ(st.usedBlocks, 0);
  EXPECT_EQ(st.freeBlocks + st.cachedBlocks, 16);
  EXPECT_GT(st.cachedBlocks, 0);
  EXPECT_EQ(pool->evictUnpinned(), st.cachedBlocks);
  EXPECT_EQ(pool->stats().freeBlocks, 16);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST(ServingPoolTest, SameTokensAfterAnotherPrefixAreAnotherBlock) {
  auto pool = makePool(16);
  WeightsId base = pool->baseWeights();
  Admission a;
  std::vector<TokenId> p1 = {1, 2, 3, 4, 9, 9, 9, 9, 0};
  std::vector<TokenId> p2 = {5, 6, 7, 8, 9, 9, 9, 9, 0};
  ASSERT_TRUE(pool->admit(1, base, p1, a).isOk());
  computeAll(*pool, 1);
  ASSERT_TRUE(pool->admit(2, base, p2, a).isOk());
  EXPECT_EQ(a.cachedTokens, 0); // the second block matches, the first not
}

TEST(ServingPoolTest, EvictsLeastRecentlyUsedUnpinnedBlocksDeepestFirst) {
  auto pool = makePool(6);
  WeightsId base = pool->baseWeights();
  Admission a;
  // Sequence 1 caches blocks A0 A1 (finished first), sequence 2 B0 B1.
  ASSERT_TRUE(pool->admit(1, base, range(0, 9), a).isOk());
  computeAll(*pool, 1);
  ASSERT_TRUE(pool->admit(2, base, range(100, 9), a).isOk());
  computeAll(*pool, 2);
  std::vector<BlockId> t1, t2;
  ASSERT_TRUE(pool->blockTable(1, t1).isOk());
  ASSERT_TRUE(pool->blockTable(2, t2).isOk());
  ASSERT_TRUE(pool->finish(1).isOk());
  // Sequence 2 stays: its cached blocks are pinned.
  EXPECT_EQ(pool->stats().cachedBlocks, 2);
  EXPECT_EQ(pool->stats().freeBlocks, 1);
  // Two fresh blocks: the free one, then A1 (deeper than A0) is evicted.
  ASSERT_TRUE(pool->admit(3, base, range(200, 8), a).isOk());
  ASSERT_EQ(a.grant, Grant::Granted);
  EXPECT_EQ(pool->stats().evictions, 1);
  std::vector<BlockId> t3;
  ASSERT_TRUE(pool->blockTable(3, t3).isOk());
  EXPECT_EQ(t3[1], t1[1]);
  // A0 survives and is still found; B's blocks were never candidates.
  ASSERT_TRUE(pool->finish(3).isOk());
  ASSERT_TRUE(pool->admit(4, base, range(0, 5), a).isOk());
  EXPECT_EQ(a.cachedTokens, 4);
  EXPECT_EQ(pool->blockRefCount(t2[0]), 1);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST(ServingPoolTest, ForkSharesBlocksAndCopiesTheSharedLastBlockOnWrite) {
  auto pool = makePool(8);
  WeightsId base = pool->baseWeights();
  Admission a;
  ASSERT_TRUE(pool->admit(1, base, range(0, 6), a).isOk());
  computeAll(*pool, 1); // blocks 0 (full), 1 (2 of 4)
  ASSERT_TRUE(pool->fork(1, 2).isOk());
  EXPECT_EQ(pool->blockRefCount(0), 2);
  EXPECT_EQ(pool->blockRefCount(1), 2);
  ASSERT_TRUE(pool->checkInvariants().isOk());
  ASSERT_TRUE(pool->append(1, {70}).isOk());
  ASSERT_TRUE(pool->append(2, {80}).isOk());
  // Both write their next token into the shared block 1 in one step: the
  // first row takes a copy of its two filled slots, the second then holds
  // block 1 alone and writes in place.
  StepPlan plan;
  ASSERT_TRUE(
      pool->prepareStep(wideShape(*pool), {{1, 1}, {2, 1}}, plan).isOk());
  ASSERT_EQ(plan.grant, Grant::Granted);
  ASSERT_EQ(plan.copies.size(), 1u);
  EXPECT_EQ(plan.copies[0].src, 1);
  EXPECT_EQ(plan.copies[0].tokens, 2);
  BlockId own = plan.copies[0].dst;
  std::vector<BlockId> t1, t2;
  ASSERT_TRUE(pool->blockTable(1, t1).isOk());
  ASSERT_TRUE(pool->blockTable(2, t2).isOk());
  EXPECT_EQ(t1, (std::vector<BlockId>{0, own}));
  EXPECT_EQ(t2, (std::vector<BlockId>{0, 1}));
  EXPECT_EQ(plan.writeMap[0], own * 4 + 2);
  EXPECT_EQ(plan.writeMap[64], 1 * 4 + 2);
  // The copy's slots are what row 0 reads for positions 4 and 5.
  EXPECT_EQ(plan.readMap[4], own * 4);
  EXPECT_EQ(plan.readMap[5], own * 4 + 1);
  ASSERT_TRUE(pool->checkStep(plan).isOk());
  ASSERT_TRUE(pool->commitStep(plan).isOk());
  EXPECT_EQ(pool->stats().copiesOnWrite, 1);
  EXPECT_EQ(pool->blockRefCount(0), 2); // the full block stays shared
  ASSERT_TRUE(pool->checkInvariants().isOk());
  ASSERT_TRUE(pool->finish(1).isOk());
  ASSERT_TRUE(pool->finish(2).isOk());
  pool->evictUnpinned();
  EXPECT_EQ(pool->stats().freeBlocks, 8);
}

TEST(ServingPoolTest, CopyOnWriteThatDoesNotFitChangesNothing) {
  auto pool = makePool(2);
  WeightsId base = pool->baseWeights();
  Admission a;
  ASSERT_TRUE(pool->admit(1, base, range(0, 6), a).isOk());
  computeAll(*pool, 1);
  ASSERT_TRUE(pool->fork(1, 2).isOk());
  ASSERT_TRUE(pool->append(1, {7}).isOk());
  Snapshot before = snapshot(*pool, {1, 2});
  StepPlan plan;
  ASSERT_TRUE(pool->prepareStep(wideShape(*pool), {{1, 1}}, plan).isOk());
  EXPECT_EQ(plan.grant, Grant::PoolExhausted);
  EXPECT_TRUE(snapshot(*pool, {1, 2}) == before);
  EXPECT_EQ(pool->commitStep(plan).code(), ErrorCode::InvalidArgument);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST(ServingPoolTest, BaseModelAndAdaptersKeepSeparateEntries) {
  auto pool = makePool(32);
  WeightsId base = pool->baseWeights(), x, y, again;
  ASSERT_TRUE(pool->adapterWeights("x", x).isOk());
  ASSERT_TRUE(pool->adapterWeights("y", y).isOk());
  ASSERT_TRUE(pool->adapterWeights("x", again).isOk());
  EXPECT_EQ(x, again);
  EXPECT_NE(x, base);
  EXPECT_NE(x, y);
  EXPECT_NE(y, base);
  EXPECT_EQ(pool->adapterWeights("", x).code(), ErrorCode::InvalidArgument);
  std::vector<TokenId> prompt = range(0, 9);
  Admission a;
  ASSERT_TRUE(pool->admit(1, base, prompt, a).isOk());
  computeAll(*pool, 1);
  // The same tokens under adapter x: none of the base model's K/V.
  ASSERT_TRUE(pool->admit(2, x, prompt, a).isOk());
  EXPECT_EQ(a.cachedTokens, 0);
  computeAll(*pool, 2);
  ASSERT_TRUE(pool->admit(3, y, prompt, a).isOk());
  EXPECT_EQ(a.cachedTokens, 0);
  ASSERT_TRUE(pool->admit(4, x, prompt, a).isOk());
  EXPECT_EQ(a.cachedTokens, 8);
  ASSERT_TRUE(pool->admit(5, base, prompt, a).isOk());
  EXPECT_EQ(a.cachedTokens, 8);
  std::vector<BlockId> t1, t2, t4, t5;
  ASSERT_TRUE(pool->blockTable(1, t1).isOk());
  ASSERT_TRUE(pool->blockTable(2, t2).isOk());
  ASSERT_TRUE(pool->blockTable(4, t4).isOk());
  ASSERT_TRUE(pool->blockTable(5, t5).isOk());
  EXPECT_EQ(t4[0], t2[0]);
  EXPECT_EQ(t5[0], t1[0]);
  EXPECT_NE(t1[0], t2[0]);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST(ServingPoolTest, HotReloadRenewsTheIdentityAndNeverReusesStaleKV) {
  auto pool = makePool(32);
  WeightsId oldBase = pool->baseWeights(), x, newBase, newX;
  ASSERT_TRUE(pool->adapterWeights("x", x).isOk());
  std::vector<TokenId> prompt = range(0, 9);
  Admission a;
  ASSERT_TRUE(pool->admit(1, oldBase, prompt, a).isOk());
  computeAll(*pool, 1);
  ASSERT_TRUE(pool->admit(2, x, prompt, a).isOk());
  computeAll(*pool, 2);
  ASSERT_TRUE(pool->finish(2).isOk()); // x's blocks: cached, unheld
  EXPECT_EQ(pool->stats().cachedBlocks, 2);

  ASSERT_TRUE(pool->reloadWeights("", newBase).isOk());
  EXPECT_NE(newBase, oldBase);
  EXPECT_EQ(pool->baseWeights(), newBase);
  EXPECT_FALSE(pool->isLive(oldBase));
  EXPECT_TRUE(pool->isLive(x));
  // The old identity admits nothing; the new one finds nothing cached.
  EXPECT_EQ(pool->admit(3, oldBase, prompt, a).code(),
            ErrorCode::InvalidArgument);
  ASSERT_TRUE(pool->admit(3, newBase, prompt, a).isOk());
  EXPECT_EQ(a.cachedTokens, 0);
  // Sequence 1 still runs on the old weights: its K/V is stale, and a step
  // refuses it; finishing it frees its blocks (none stay cached).
  ASSERT_TRUE(pool->append(1, {77}).isOk());
  StepPlan plan;
  Status refused = pool->prepareStep(wideShape(*pool), {{1, 1}}, plan);
  EXPECT_EQ(refused.code(), ErrorCode::InvalidArgument);
  EXPECT_NE(refused.message().find("retired weights"), std::string::npos);
  int32_t freeBefore = pool->stats().freeBlocks;
  ASSERT_TRUE(pool->finish(1).isOk());
  EXPECT_EQ(pool->stats().freeBlocks, freeBefore + 3);
  // Adapter x was untouched by the base reload...
  ASSERT_TRUE(pool->admit(4, x, prompt, a).isOk());
  EXPECT_EQ(a.cachedTokens, 8);
  ASSERT_TRUE(pool->finish(4).isOk());
  // ...and its own reload drops its cached blocks at once.
  ASSERT_TRUE(pool->reloadWeights("x", newX).isOk());
  EXPECT_NE(newX, x);
  EXPECT_EQ(pool->stats().cachedBlocks, 0);
  ASSERT_TRUE(pool->admit(5, newX, prompt, a).isOk());
  EXPECT_EQ(a.cachedTokens, 0);
  EXPECT_EQ(pool->reloadWeights("nope", newX).code(), ErrorCode::UnknownName);
  ASSERT_TRUE(pool->unloadAdapter("x").isOk());
  EXPECT_FALSE(pool->isLive(newX));
  EXPECT_EQ(pool->unloadAdapter("x").code(), ErrorCode::UnknownName);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST(ServingPoolTest, BlocksComputedAcrossAReloadAreNotCached) {
  auto pool = makePool(16);
  WeightsId base = pool->baseWeights(), renewed;
  Admission a;
  ASSERT_TRUE(pool->admit(1, base, range(0, 9), a).isOk());
  StepPlan plan;
  ASSERT_TRUE(pool->prepareStep(wideShape(*pool), {{1, 9}}, plan).isOk());
  // Reloaded while the step ran: its blocks are computed, never cached.
  ASSERT_TRUE(pool->reloadWeights("", renewed).isOk());
  ASSERT_TRUE(pool->commitStep(plan).isOk());
  ASSERT_TRUE(pool->finish(1).isOk());
  EXPECT_EQ(pool->stats().cachedBlocks, 0);
  EXPECT_EQ(pool->stats().freeBlocks, 16);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

TEST(ServingPoolTest, DecodeGrowthTakesABlockAtEachBoundary) {
  auto pool = makePool(4);
  Admission a;
  ASSERT_TRUE(pool->admit(1, pool->baseWeights(), range(0, 4), a).isOk());
  computeAll(*pool, 1);
  EXPECT_EQ(pool->stats().usedBlocks, 1);
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(pool->append(1, {100 + i}).isOk());
    computeAll(*pool, 1);
    EXPECT_EQ(pool->stats().usedBlocks, 1 + (i + 4) / 4) << i;
  }
  // Full: the next token has no block to go to.
  ASSERT_TRUE(pool->append(1, {1}).code() == ErrorCode::InvalidArgument);
  ASSERT_TRUE(pool->checkInvariants().isOk());
}

} // namespace
