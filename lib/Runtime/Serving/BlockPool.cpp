//===- BlockPool.cpp - KV blocks: free list, LRU, prefix index ------------===//
//
// The block-level half of KvCache. A block is in exactly one of three
// states: free (on the free stack), cached and held by nobody (on the LRU
// list, evictable, still findable in the prefix cache), or held (a reference
// count above zero, possibly cached too). Every structure here is sized when
// the pool is made, so taking, releasing, caching and evicting blocks never
// allocate: the calls above can check everything first and then change the
// pool without any step left that could fail half way.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Serving.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

using namespace poot::rt;
using namespace poot::rt::serve;

namespace {

Status broken(const std::string &what) {
  return Status(ErrorCode::InvalidArgument, "kv cache invariant: " + what);
}

} // namespace

Status KvCache::create(const PoolConfig &config,
                       std::unique_ptr<KvCache> &out) {
  if (config.numBlocks <= 0 || config.blockSize <= 0)
    return Status(ErrorCode::InvalidArgument,
                  "a kv pool needs a positive block count and block size, "
                  "got " +
                      std::to_string(config.numBlocks) + " blocks of " +
                      std::to_string(config.blockSize));
  // Slots travel as i32 in the maps a plan binds.
  int64_t slots = int64_t(config.numBlocks) * config.blockSize;
  if (slots > std::numeric_limits<int32_t>::max())
    return Status(ErrorCode::InvalidArgument,
                  "a kv pool of " + std::to_string(slots) +
                      " slots does not fit the plans' i32 maps");
  if (config.maxSequenceTokens < 0)
    return Status(ErrorCode::InvalidArgument,
                  "maxSequenceTokens must not be negative");
  try {
    out.reset(new KvCache(config));
  } catch (const std::bad_alloc &) {
    return Status(ErrorCode::Unsupported, "out of memory making a kv pool of " +
                                              std::to_string(config.numBlocks) +
                                              " blocks");
  }
  return Status::ok();
}

KvCache::KvCache(const PoolConfig &config) : config_(config) {
  if (config_.maxSequenceTokens == 0 ||
      int64_t(config_.maxSequenceTokens) >
          int64_t(config_.numBlocks) * config_.blockSize)
    config_.maxSequenceTokens = config_.numBlocks * config_.blockSize;
  blocks_.resize(config_.numBlocks);
  blockTokens_.resize(size_t(config_.numBlocks) * config_.blockSize);
  // Block 0 is handed out first: small pools read naturally in tests.
  free_.reserve(config_.numBlocks);
  for (BlockId b = config_.numBlocks - 1; b >= 0; --b)
    free_.push_back(b);
  size_t buckets = 16;
  while (buckets < size_t(config_.numBlocks))
    buckets *= 2;
  buckets_.assign(buckets, -1);
  baseId_ = newWeightsId();
  counters_.totalBlocks = config_.numBlocks;
}

KvCache::~KvCache() = default;

int32_t KvCache::available() const {
  return static_cast<int32_t>(free_.size()) + lruCount_;
}

BlockId KvCache::takeBlock() {
  // Callers checked available() first.
  BlockId b;
  if (!free_.empty()) {
    b = free_.back();
    free_.pop_back();
  } else {
    b = lruHead_;
    lruUnlink(b);
    unregisterBlock(b);
    ++counters_.evictions;
  }
  blocks_[b].refs = 1;
  ++counters_.usedBlocks;
  counters_.peakUsedBlocks =
      std::max(counters_.peakUsedBlocks, counters_.usedBlocks);
  return b;
}

void KvCache::holdBlock(BlockId b) {
  Block &block = blocks_[b];
  if (block.refs == 0) {
    // A cached block nobody held: pinned again, no longer evictable.
    lruUnlink(b);
    ++counters_.usedBlocks;
    counters_.peakUsedBlocks =
        std::max(counters_.peakUsedBlocks, counters_.usedBlocks);
  }
  ++block.refs;
}

void KvCache::releaseBlock(BlockId b) {
  Block &block = blocks_[b];
  if (--block.refs > 0)
    return;
  --counters_.usedBlocks;
  if (block.cached)
    lruPushBack(b); // most recently used: evicted last
  else
    free_.push_back(b); // capacity for every block was reserved
}

void KvCache::lruUnlink(BlockId b) {
  Block &block = blocks_[b];
  if (block.lruPrev >= 0)
    blocks_[block.lruPrev].lruNext = block.lruNext;
  else
    lruHead_ = block.lruNext;
  if (block.lruNext >= 0)
    blocks_[block.lruNext].lruPrev = block.lruPrev;
  else
    lruTail_ = block.lruPrev;
  block.lruPrev = block.lruNext = -1;
  block.inLru = false;
  --lruCount_;
}

void KvCache::lruPushBack(BlockId b) {
  Block &block = blocks_[b];
  block.lruPrev = lruTail_;
  block.lruNext = -1;
  if (lruTail_ >= 0)
    blocks_[lruTail_].lruNext = b;
  else
    lruHead_ = b;
  lruTail_ = b;
  block.inLru = true;
  ++lruCount_;
}

size_t KvCache::bucketOf(uint64_t hash) const {
  return static_cast<size_t>(hash) & (buckets_.size() - 1);
}

BlockId KvCache::findCached(uint64_t hash, WeightsId weights, uint64_t parent,
                            const TokenId *tokens) const {
  // The hash only picks candidates: a hit must also match the weights, the
  // prefix before it (its chained hash) and every token of the block.
  size_t bytes = sizeof(TokenId) * size_t(config_.blockSize);
  for (BlockId b = buckets_[bucketOf(hash)]; b >= 0;
       b = blocks_[b].bucketNext) {
    const Block &block = blocks_[b];
    if (block.hash == hash && block.weights == weights &&
        block.parent == parent &&
        std::memcmp(&blockTokens_[size_t(b) * config_.blockSize], tokens,
                    bytes) == 0)
      return b;
  }
  return -1;
}

void KvCache::registerBlock(BlockId b, uint64_t hash, WeightsId weights,
                            uint64_t parent, const TokenId *tokens) {
  Block &block = blocks_[b];
  block.cached = true;
  block.hash = hash;
  block.weights = weights;
  block.parent = parent;
  std::copy(tokens, tokens + config_.blockSize,
            &blockTokens_[size_t(b) * config_.blockSize]);
  size_t bucket = bucketOf(hash);
  block.bucketNext = buckets_[bucket];
  buckets_[bucket] = b;
}

void KvCache::unregisterBlock(BlockId b) {
  Block &block = blocks_[b];
  BlockId *link = &buckets_[bucketOf(block.hash)];
  while (*link != b)
    link = &blocks_[*link].bucketNext;
  *link = block.bucketNext;
  block.bucketNext = -1;
  block.cached = false;
  block.hash = block.parent = 0;
  block.weights = 0;
}

int32_t KvCache::evictUnpinned() {
  int32_t evicted = 0;
  while (lruHead_ >= 0) {
    BlockId b = lruHead_;
    lruUnlink(b);
    unregisterBlock(b);
    free_.push_back(b);
    ++evicted;
  }
  counters_.evictions += evicted;
  return evicted;
}

int32_t KvCache::blockRefCount(BlockId b) const {
  return b >= 0 && b < config_.numBlocks ? blocks_[b].refs : -1;
}

Status KvCache::checkBlockStates() const {
  std::vector<uint8_t> onFree(blocks_.size(), 0);
  for (BlockId b : free_) {
    if (b < 0 || b >= config_.numBlocks || onFree[b]++)
      return broken("block " + std::to_string(b) +
                    " on the free stack twice "
                    "or out of the pool");
    if (blocks_[b].refs || blocks_[b].cached || blocks_[b].inLru)
      return broken("free block " + std::to_string(b) + " is held or cached");
  }
  int32_t walked = 0, used = 0;
  for (BlockId b = lruHead_, prev = -1; b >= 0;
       prev = b, b = blocks_[b].lruNext) {
    if (++walked > config_.numBlocks || blocks_[b].lruPrev != prev)
      return broken("the LRU list is not a list");
    if (!blocks_[b].inLru || !blocks_[b].cached || blocks_[b].refs)
      return broken("LRU block " + std::to_string(b) +
                    " is held or not cached");
  }
  if (walked != lruCount_)
    return broken("LRU count " + std::to_string(lruCount_) + ", list of " +
                  std::to_string(walked));
  for (BlockId b = 0; b < config_.numBlocks; ++b) {
    const Block &block = blocks_[b];
    int states =
        (onFree[b] ? 1 : 0) + (block.inLru ? 1 : 0) + (block.refs > 0 ? 1 : 0);
    if (states != 1 || block.refs < 0)
      return broken("block " + std::to_string(b) + " is in " +
                    std::to_string(states) + " states (refs " +
                    std::to_string(block.refs) + ")");
    used += block.refs > 0;
  }
  if (used != counters_.usedBlocks)
    return broken("used count " + std::to_string(counters_.usedBlocks) +
                  ", counted " + std::to_string(used));
  return Status::ok();
}

Status KvCache::checkCacheIndex() const {
  std::vector<uint8_t> indexed(blocks_.size(), 0);
  for (size_t i = 0; i < buckets_.size(); ++i)
    for (BlockId b = buckets_[i]; b >= 0; b = blocks_[b].bucketNext) {
      if (indexed[b]++)
        return broken("block " + std::to_string(b) + " indexed twice");
      if (!blocks_[b].cached || bucketOf(blocks_[b].hash) != i)
        return broken("block " + std::to_string(b) + " in the wrong bucket");
    }
  for (BlockId b = 0; b < config_.numBlocks; ++b)
    if (blocks_[b].cached && !indexed[b])
      return broken("cached block " + std::to_string(b) + " not indexed");
  return Status::ok();
}

Status KvCache::checkInvariants() const {
  POOT_RETURN_IF_ERROR(checkBlockStates());
  POOT_RETURN_IF_ERROR(checkCacheIndex());
  return checkSequences();
}
