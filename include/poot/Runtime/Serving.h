//===- Serving.h - The paged KV driver: blocks, prefixes, steps -*- C++ -*-===//
//
// What an engine needs to serve many requests through one paged plan: a pool
// of fixed-size KV blocks with per-sequence block tables, reference counts
// for shared blocks and copy-on-write, a prefix cache keyed by the tokens of
// full blocks and the identity of the weights that computed them, LRU
// eviction of cached blocks nobody holds, and, every step, the read map
// (`slot_map`), the write map and the positions of a batch of sequences at
// different lengths, some in prefill and some in decode.
//
// The driver only does bookkeeping: it never touches K/V values. The
// engine binds the maps it builds, performs the block copies it asks for,
// runs the plan, and commits the step. No exceptions, no LLVM: every failure
// is a Status, and a refused call changes nothing. Running out of blocks is
// not an error but an outcome (Grant::PoolExhausted) the scheduler branches
// on: wait, or preempt a sequence. docs/runtime.md ("Serving: the paged KV
// driver") has the decode loop.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_SERVING_H
#define POOT_RUNTIME_SERVING_H

#include "poot/Runtime/Graph.h"
#include "poot/Runtime/Status.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace poot::rt {
class GpuBuffer;
class GpuDevice;
} // namespace poot::rt

namespace poot::rt::serve {

using BlockId = int32_t;
using SeqId = int64_t;
using TokenId = int32_t;
/// Which weights computed a K/V block: the base model or one LoRA adapter,
/// renewed on every hot reload. Never 0, never reused by a pool.
using WeightsId = uint64_t;

inline constexpr int32_t kDefaultBlockSize = 16;

/// Whether a call that needs blocks got them. PoolExhausted is a normal
/// outcome under load, and the call changed nothing.
enum class Grant : uint8_t { Granted, PoolExhausted };

struct PoolConfig {
  int32_t numBlocks = 0;
  int32_t blockSize = kDefaultBlockSize;
  /// The most tokens one sequence may hold; 0 means the whole pool. Set it
  /// from the plan with StepShape::maxSequenceTokens().
  int32_t maxSequenceTokens = 0;
};

/// A copy the engine performs on every K and V pool before the step runs:
/// the first `tokens` slots of block `src` into block `dst` (slot = block *
/// blockSize + offset).
struct BlockCopy {
  BlockId src = -1;
  BlockId dst = -1;
  int32_t tokens = 0;
};

struct Admission {
  Grant grant = Grant::PoolExhausted;
  /// Leading prompt tokens whose K/V came from the prefix cache: prefill
  /// starts after them.
  int32_t cachedTokens = 0;
  /// Fresh blocks the prompt takes (or would have taken).
  int32_t blocksNeeded = 0;
  /// Free plus evictable blocks at the call.
  int32_t blocksAvailable = 0;
};

struct PoolStats {
  int32_t totalBlocks = 0;
  int32_t freeBlocks = 0;   ///< never written, or released and not cached
  int32_t cachedBlocks = 0; ///< in the prefix cache, held by nobody: evictable
  int32_t usedBlocks = 0;   ///< held by at least one sequence
  int32_t sharedBlocks = 0; ///< held by more than one
  int32_t peakUsedBlocks = 0;
  int32_t sequences = 0;
  int64_t prefixBlocksReused = 0;   ///< blocks admits found in the cache
  int64_t prefillTokensSkipped = 0; ///< the tokens of those blocks
  int64_t evictions = 0;
  int64_t copiesOnWrite = 0;
  int64_t refusedForSpace = 0; ///< calls answered PoolExhausted
};

/// The static shape of a compiled paged step: `rows` sequences of `tokens`
/// new tokens each, every row reading up to `capacity` key positions out of
/// a pool of `slots` slots.
struct StepShape {
  int32_t rows = 0;
  int32_t tokens = 0;
  int32_t capacity = 0;
  int64_t slots = 0;
  /// The longest sequence this shape serves: a row's `tokens` query
  /// positions (padding included) must stay below `capacity`, so a decode
  /// row (one real token) reaches capacity - tokens + 1 tokens at most.
  int32_t maxSequenceTokens() const { return capacity - tokens + 1; }
};

/// The step shape of a paged plan from its slot inputs: `write_map`
/// [rows * tokens], `slot_map` [rows, capacity], `pos` [rows] (i32), the
/// pool's slot count from the maps' declared ranges. InvalidArgument for a
/// graph without them: a plain paged prefill has no read map (it attends to
/// its own tokens only, so it cannot continue a cached prefix); a chunked
/// one has.
Status stepShapeOf(const Graph &graph, StepShape &out);

/// The bucket for a step of `rows` rows whose longest chunk is `tokens`:
/// the index in `buckets` of the smallest shape (rows * tokens, then tokens)
/// with at least that many rows and tokens per row, or -1 when none has.
int selectBucket(const std::vector<StepShape> &buckets, int32_t rows,
                 int32_t tokens);

/// One row of a step: sequence `seq` computes its next `tokens` tokens.
struct StepRow {
  SeqId seq = 0;
  int32_t tokens = 0;
};

/// What a step binds, built by KvCache::prepareStep. Rows past `rows` are
/// padding rows.
struct StepPlan {
  Grant grant = Grant::PoolExhausted;
  StepShape shape;
  std::vector<StepRow> rows;
  std::vector<int32_t> firstPosition; ///< per row: where its tokens start
  /// Per row: the weights its sequence runs on. Rows of different adapters
  /// share a step when the plan selects weights per row (an `adapter`
  /// slot); the engine maps each identity to the adapter it binds.
  std::vector<WeightsId> weights;
  /// [rows, capacity] row-major: the pool slot of each key position.
  /// Positions at or past a row's length repeat the slot of its position
  /// 0 (padding rows: slot 0): always inside the pool, never visible to a
  /// real query (the causal mask from `pos`, or `len`, stops before them).
  std::vector<int32_t> readMap;
  /// [rows * tokens]: the slot each new token's K/V goes to; -1 for a
  /// padding token (the plan drops the write).
  std::vector<int32_t> writeMap;
  std::vector<int32_t> pos;      ///< per row: its first new token's position
  std::vector<int32_t> len;      ///< per row: its length after the step (>= 1)
  std::vector<BlockCopy> copies; ///< to perform before the run
};

/// Refuses, before anything runs, a write map naming a slot outside
/// [0, slots) (IndexOutOfRange) or one slot twice (InvalidArgument); -1
/// (a dropped write) is allowed any number of times.
Status checkWriteMap(const std::vector<int32_t> &writeMap, int64_t slots);

/// Performs `copies` on a pool held as raw storage: `data` holds `slots`
/// slots of `bytes / slots` bytes each (a [slots, heads, dim] K or V pool).
Status applyBlockCopies(const std::vector<BlockCopy> &copies, int32_t blockSize,
                        int64_t slots, void *data, size_t bytes);
/// The same on a pool that stays on a device (a K or V pool a PlanRunner
/// holds, see PlanRunner::holdState): `pool` holds `slots` equal slots, and
/// the blocks move device to device (GpuDevice::copy). Checked whole
/// before anything moves.
Status applyBlockCopies(const std::vector<BlockCopy> &copies, int32_t blockSize,
                        int64_t slots, GpuDevice &device, GpuBuffer &pool);

/// The block pool, its sequences and its prefix cache. One thread at a
/// time. Every call either does all it says or returns with nothing changed.
class KvCache {
public:
  /// InvalidArgument for a non-positive block count or size; Unsupported
  /// when its tables cannot be allocated.
  static Status create(const PoolConfig &config, std::unique_ptr<KvCache> &out);
  ~KvCache();

  const PoolConfig &config() const { return config_; }

  //--- Weights identities --------------------------------------------------
  /// The base model's current identity.
  WeightsId baseWeights() const { return baseId_; }
  /// Adapter `name`'s current identity (made on first use). Never the base
  /// model's or another adapter's, so their K/V never mix.
  Status adapterWeights(const std::string &name, WeightsId &out);
  /// Hot reload of adapter `name` ("" for the base model): a new identity;
  /// every cached block of the old one leaves the prefix cache, and its
  /// running sequences are refused by prepareStep (finish and readmit them).
  Status reloadWeights(const std::string &name, WeightsId &out);
  /// Forgets adapter `name`, as a reload that leaves no identity behind.
  Status unloadAdapter(const std::string &name);
  bool isLive(WeightsId weights) const;

  //--- Sequences ------------------------------------------------------------
  /// Admits `seq` with `prompt` under `weights`: the longest run of its full
  /// blocks found in the prefix cache is shared (at least one prompt token
  /// is left to compute, for its logits), and blocks for the rest of the
  /// prompt are taken now, so an admitted prompt never stalls in prefill.
  /// InvalidArgument for an id in use, an empty prompt, one longer than
  /// maxSequenceTokens or the pool, or weights that are not live.
  Status admit(SeqId seq, WeightsId weights, const std::vector<TokenId> &prompt,
               Admission &out);
  /// Appends tokens the engine sampled: they are computed by later steps.
  Status append(SeqId seq, const std::vector<TokenId> &tokens);
  /// `dst` shares all of `src`'s blocks (parallel sampling); whichever
  /// writes a shared block first gets a copy of it (copy-on-write).
  Status fork(SeqId src, SeqId dst);
  /// Releases `seq`'s blocks: cached full blocks stay for reuse (the
  /// deepest of the sequence evicted first), the rest are free.
  Status finish(SeqId seq);
  /// Evicts every cached block nobody holds; returns how many.
  int32_t evictUnpinned();

  bool contains(SeqId seq) const;
  /// Tokens known for `seq` (prompt and appended), and how many of them
  /// have K/V in the pool.
  Status tokens(SeqId seq, std::vector<TokenId> &out) const;
  Status computed(SeqId seq, int32_t &out) const;
  /// The weights `seq` was admitted on.
  Status weightsOf(SeqId seq, WeightsId &out) const;
  Status blockTable(SeqId seq, std::vector<BlockId> &out) const;
  int32_t blockRefCount(BlockId block) const;

  //--- Steps -----------------------------------------------------------------
  /// Builds the maps of one step of `shape` for `rows` (at most shape.rows,
  /// distinct sequences, each on live weights, each computing 1 to
  /// shape.tokens of its known tokens), taking blocks for decode growth and
  /// copies of shared blocks about to be written. PoolExhausted when the
  /// pool cannot give them: nothing changed. A granted step's copies must
  /// be performed before it runs, and even if it is then abandoned: the
  /// tables already name the copies. A failed run needs no undo: prepare
  /// the same rows again.
  Status prepareStep(const StepShape &shape, const std::vector<StepRow> &rows,
                     StepPlan &out);
  /// Checks a prepared step before it runs: its write map (checkWriteMap),
  /// and that every slot it writes is in a block held by that row's
  /// sequence alone and not in the prefix cache.
  Status checkStep(const StepPlan &plan) const;
  /// After the run succeeded: the rows' tokens are computed, and blocks
  /// they filled enter the prefix cache. Refused, changing nothing, when a
  /// row's sequence has moved on or finished since prepareStep.
  Status commitStep(const StepPlan &plan);

  PoolStats stats() const;
  /// Every allocator invariant: each block free, cached-unpinned or held,
  /// exactly once; reference counts equal to the table entries naming the
  /// block; no table naming a block twice; the prefix cache holding exactly
  /// the cached blocks, full ones only. InvalidArgument naming the first
  /// violation. O(blocks + table entries): for tests and debugging.
  Status checkInvariants() const;

private:
  struct Block {
    int32_t refs = 0;    ///< sequences holding it
    bool cached = false; ///< in the prefix cache: full, its key below
    bool inLru = false;  ///< cached and held by nobody: evictable
    WeightsId weights = 0;
    uint64_t hash = 0;   ///< chained hash of its prefix, itself included
    uint64_t parent = 0; ///< the chained hash before it
    BlockId lruPrev = -1, lruNext = -1;
    BlockId bucketNext = -1; ///< the next cached block of its hash bucket
  };
  struct Sequence {
    WeightsId weights = 0;
    std::vector<TokenId> tokens;  ///< known: prompt, then appended
    int32_t computed = 0;         ///< leading tokens with K/V in the pool
    std::vector<BlockId> blocks;  ///< the block table
    std::vector<uint64_t> hashes; ///< chained hash of each full block
  };
  explicit KvCache(const PoolConfig &config);

  // Blocks (lib/Runtime/Serving/BlockPool.cpp).
  int32_t available() const;
  BlockId takeBlock();
  void holdBlock(BlockId block);
  void releaseBlock(BlockId block);
  void lruUnlink(BlockId block);
  void lruPushBack(BlockId block);
  BlockId findCached(uint64_t hash, WeightsId weights, uint64_t parent,
                     const TokenId *tokens) const;
  void registerBlock(BlockId block, uint64_t hash, WeightsId weights,
                     uint64_t parent, const TokenId *tokens);
  void unregisterBlock(BlockId block);
  size_t bucketOf(uint64_t hash) const;
  Status checkBlockStates() const;
  Status checkCacheIndex() const;
  Status checkSequences() const;

  // Sequences and prefixes (Sequences.cpp).
  const Sequence *find(SeqId seq) const;
  Sequence *find(SeqId seq);
  int32_t matchPrefix(WeightsId weights, const std::vector<TokenId> &prompt,
                      std::vector<BlockId> &blocks,
                      std::vector<uint64_t> &hashes) const;
  void registerFullBlocks(Sequence &s, int32_t from, int32_t to);
  WeightsId newWeightsId() { return nextWeights_++; }
  void retireWeights(WeightsId weights);

  // Steps (Steps.cpp).
  Status checkRows(const StepShape &shape, const std::vector<StepRow> &rows,
                   int32_t &blocksNeeded) const;
  void takeStepBlocks(const std::vector<StepRow> &rows,
                      std::vector<BlockCopy> &copies);
  void fillMaps(StepPlan &plan) const;

  PoolConfig config_;
  std::vector<Block> blocks_;
  /// The tokens of each cached block (blockSize per block), so a lookup
  /// compares tokens, not only hashes.
  std::vector<TokenId> blockTokens_;
  std::vector<BlockId> free_;    ///< a stack: capacity for every block
  std::vector<BlockId> buckets_; ///< prefix cache: hash chains' heads
  BlockId lruHead_ = -1, lruTail_ = -1;
  int32_t lruCount_ = 0;
  std::unordered_map<SeqId, Sequence> sequences_;
  WeightsId nextWeights_ = 1;
  WeightsId baseId_ = 0;
  std::map<std::string, WeightsId> adapters_;
  PoolStats counters_;
};

} // namespace poot::rt::serve

#endif // POOT_RUNTIME_SERVING_H
