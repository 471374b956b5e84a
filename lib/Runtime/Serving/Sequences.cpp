//===- Sequences.cpp - Sequences, prefixes and weights identities ---------===//
//
// The sequence-level half of KvCache: admitting a prompt (sharing the
// blocks of its longest cached prefix), appending sampled tokens, forking,
// finishing, and the identities of the weights K/V was computed with.
//
// A cached block is found by the chained hash of its prefix, and a hit is
// only taken when the weights identity, the chained hash before it and all
// of its tokens match too: a block of the base model never serves an
// adapter, a block computed before a hot reload never serves after it, and
// the same tokens after another prefix are another block.
//
// Each call checks everything, then makes the allocations it needs (the
// sequence record), and only then changes blocks, which cannot fail: a
// refused call, or a host allocation failure, leaves the pool as it was.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Serving.h"

#include <algorithm>
#include <new>

using namespace poot::rt;
using namespace poot::rt::serve;

namespace {

uint64_t mix(uint64_t x) {
  // splitmix64's finalizer: every input bit reaches every output bit.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The chain starts from the weights: the same tokens under other weights
/// hash apart from the first block on.
uint64_t rootHash(WeightsId weights) {
  return mix(weights ^ 0x9e3779b97f4a7c15ULL);
}

uint64_t blockHash(uint64_t parent, const TokenId *tokens, int32_t count) {
  uint64_t h = parent;
  for (int32_t i = 0; i < count; ++i)
    h = mix(h ^ (uint64_t(uint32_t(tokens[i])) * 0x9e3779b97f4a7c15ULL +
                 uint64_t(i)));
  return h;
}

Status noSequence(SeqId seq) {
  return Status(ErrorCode::InvalidArgument,
                "no sequence " + std::to_string(seq) + " in the kv pool");
}

Status outOfMemory(const std::string &what) {
  return Status(ErrorCode::Unsupported,
                "out of memory " + what + " (the kv pool is unchanged)");
}

int32_t ceilDiv(int64_t a, int32_t b) {
  return static_cast<int32_t>((a + b - 1) / b);
}

} // namespace

const KvCache::Sequence *KvCache::find(SeqId seq) const {
  auto it = sequences_.find(seq);
  return it == sequences_.end() ? nullptr : &it->second;
}

KvCache::Sequence *KvCache::find(SeqId seq) {
  auto it = sequences_.find(seq);
  return it == sequences_.end() ? nullptr : &it->second;
}

bool KvCache::contains(SeqId seq) const { return find(seq) != nullptr; }

//--- Weights identities -----------------------------------------------------

bool KvCache::isLive(WeightsId weights) const {
  if (weights == baseId_)
    return true;
  for (const auto &[name, id] : adapters_)
    if (id == weights)
      return true;
  return false;
}

Status KvCache::adapterWeights(const std::string &name, WeightsId &out) {
  if (name.empty())
    return Status(ErrorCode::InvalidArgument,
                  "an adapter needs a name (the base model is baseWeights())");
  auto it = adapters_.find(name);
  if (it != adapters_.end()) {
    out = it->second;
    return Status::ok();
  }
  try {
    out = adapters_.emplace(name, newWeightsId()).first->second;
  } catch (const std::bad_alloc &) {
    return outOfMemory("registering adapter '" + name + "'");
  }
  return Status::ok();
}

void KvCache::retireWeights(WeightsId weights) {
  // Cached blocks of the old identity leave the index: unheld ones are
  // free at once, held ones stay with their sequences until released.
  for (BlockId b = 0; b < config_.numBlocks; ++b) {
    Block &block = blocks_[b];
    if (!block.cached || block.weights != weights)
      continue;
    bool unheld = block.inLru;
    if (unheld)
      lruUnlink(b);
    unregisterBlock(b);
    if (unheld)
      free_.push_back(b);
  }
}

Status KvCache::reloadWeights(const std::string &name, WeightsId &out) {
  if (name.empty()) {
    retireWeights(baseId_);
    out = baseId_ = newWeightsId();
    return Status::ok();
  }
  auto it = adapters_.find(name);
  if (it == adapters_.end())
    return Status(ErrorCode::UnknownName,
                  "no adapter '" + name + "' to reload");
  retireWeights(it->second);
  out = it->second = newWeightsId();
  return Status::ok();
}

Status KvCache::unloadAdapter(const std::string &name) {
  auto it = adapters_.find(name);
  if (it == adapters_.end())
    return Status(ErrorCode::UnknownName,
                  "no adapter '" + name + "' to unload");
  retireWeights(it->second);
  adapters_.erase(it);
  return Status::ok();
}

//--- Prefixes ---------------------------------------------------------------

int32_t KvCache::matchPrefix(WeightsId weights,
                             const std::vector<TokenId> &prompt,
                             std::vector<BlockId> &blocks,
                             std::vector<uint64_t> &hashes) const {
  // At least the last prompt token is computed: its logits sample the
  // first new token.
  int32_t bs = config_.blockSize;
  int32_t most = static_cast<int32_t>((prompt.size() - 1) / bs);
  uint64_t parent = rootHash(weights);
  for (int32_t i = 0; i < most; ++i) {
    const TokenId *tokens = &prompt[size_t(i) * bs];
    uint64_t h = blockHash(parent, tokens, bs);
    BlockId b = findCached(h, weights, parent, tokens);
    if (b < 0)
      break;
    blocks.push_back(b);
    hashes.push_back(h);
    parent = h;
  }
  return static_cast<int32_t>(blocks.size());
}

void KvCache::registerFullBlocks(Sequence &s, int32_t from, int32_t to) {
  // Hashes were reserved by the caller; nothing here allocates.
  int32_t bs = config_.blockSize;
  bool live = isLive(s.weights);
  for (int32_t i = from; i < to; ++i) {
    uint64_t parent = i ? s.hashes[i - 1] : rootHash(s.weights);
    const TokenId *tokens = &s.tokens[size_t(i) * bs];
    uint64_t h = blockHash(parent, tokens, bs);
    s.hashes.push_back(h);
    BlockId b = s.blocks[i];
    // A block another sequence already cached with the same key stays
    // private: one entry per key.
    if (live && !blocks_[b].cached &&
        findCached(h, s.weights, parent, tokens) < 0)
      registerBlock(b, h, s.weights, parent, tokens);
  }
}

//--- Sequences --------------------------------------------------------------

Status KvCache::admit(SeqId seq, WeightsId weights,
                      const std::vector<TokenId> &prompt, Admission &out) {
  out = Admission();
  if (contains(seq))
    return Status(ErrorCode::InvalidArgument,
                  "sequence " + std::to_string(seq) + " is already admitted");
  if (prompt.empty())
    return Status(ErrorCode::InvalidArgument, "an empty prompt");
  if (prompt.size() > size_t(config_.maxSequenceTokens))
    return Status(
        ErrorCode::InvalidArgument,
        "a prompt of " + std::to_string(prompt.size()) + " tokens, past the " +
            std::to_string(config_.maxSequenceTokens) + " a sequence may hold");
  if (!isLive(weights))
    return Status(ErrorCode::InvalidArgument,
                  "weights " + std::to_string(weights) +
                      " are not live (reloaded, unloaded or never issued)");
  int32_t total = ceilDiv(int64_t(prompt.size()), config_.blockSize);
  Sequence s;
  try {
    s.weights = weights;
    s.tokens = prompt;
    s.blocks.reserve(total);
    s.hashes.reserve(total);
  } catch (const std::bad_alloc &) {
    return outOfMemory("admitting sequence " + std::to_string(seq));
  }
  int32_t matched = matchPrefix(weights, prompt, s.blocks, s.hashes);
  // Matched blocks nobody holds are pinned, so they are not there to take.
  int32_t pinned = 0;
  for (BlockId b : s.blocks)
    pinned += blocks_[b].refs == 0;
  out.blocksNeeded = total - matched;
  out.blocksAvailable = available() - pinned;
  if (out.blocksNeeded > out.blocksAvailable) {
    ++counters_.refusedForSpace;
    return Status::ok();
  }
  Sequence *placed;
  try {
    placed = &sequences_.emplace(seq, std::move(s)).first->second;
  } catch (const std::bad_alloc &) {
    return outOfMemory("admitting sequence " + std::to_string(seq));
  }
  // Nothing below can fail. Pin the prefix before taking fresh blocks, so
  // an eviction never takes a block the prompt just matched.
  for (BlockId b : placed->blocks)
    holdBlock(b);
  while (int32_t(placed->blocks.size()) < total)
    placed->blocks.push_back(takeBlock());
  placed->computed = matched * config_.blockSize;
  counters_.prefixBlocksReused += matched;
  counters_.prefillTokensSkipped += placed->computed;
  out.cachedTokens = placed->computed;
  out.grant = Grant::Granted;
  return Status::ok();
}

Status KvCache::append(SeqId seq, const std::vector<TokenId> &tokens) {
  Sequence *s = find(seq);
  if (!s)
    return noSequence(seq);
  if (s->tokens.size() + tokens.size() > size_t(config_.maxSequenceTokens))
    return Status(ErrorCode::InvalidArgument,
                  "sequence " + std::to_string(seq) + " would hold " +
                      std::to_string(s->tokens.size() + tokens.size()) +
                      " tokens, past the " +
                      std::to_string(config_.maxSequenceTokens) + " allowed");
  try {
    s->tokens.insert(s->tokens.end(), tokens.begin(), tokens.end());
  } catch (const std::bad_alloc &) {
    return outOfMemory("appending to sequence " + std::to_string(seq));
  }
  return Status::ok();
}

Status KvCache::fork(SeqId src, SeqId dst) {
  const Sequence *from = find(src);
  if (!from)
    return noSequence(src);
  if (contains(dst))
    return Status(ErrorCode::InvalidArgument,
                  "sequence " + std::to_string(dst) + " is already admitted");
  Sequence *copy;
  try {
    Sequence s = *from;
    copy = &sequences_.emplace(dst, std::move(s)).first->second;
  } catch (const std::bad_alloc &) {
    return outOfMemory("forking sequence " + std::to_string(src));
  }
  for (BlockId b : copy->blocks)
    holdBlock(b);
  return Status::ok();
}

Status KvCache::finish(SeqId seq) {
  auto it = sequences_.find(seq);
  if (it == sequences_.end())
    return noSequence(seq);
  // Deepest block first onto the LRU list: it is evicted before the blocks
  // of its prefix, which other prompts are likelier to share.
  const std::vector<BlockId> &table = it->second.blocks;
  for (auto b = table.rbegin(); b != table.rend(); ++b)
    releaseBlock(*b);
  sequences_.erase(it);
  return Status::ok();
}

//--- Queries ----------------------------------------------------------------

Status KvCache::tokens(SeqId seq, std::vector<TokenId> &out) const {
  const Sequence *s = find(seq);
  if (!s)
    return noSequence(seq);
  out = s->tokens;
  return Status::ok();
}

Status KvCache::computed(SeqId seq, int32_t &out) const {
  const Sequence *s = find(seq);
  if (!s)
    return noSequence(seq);
  out = s->computed;
  return Status::ok();
}

Status KvCache::weightsOf(SeqId seq, WeightsId &out) const {
  const Sequence *s = find(seq);
  if (!s)
    return noSequence(seq);
  out = s->weights;
  return Status::ok();
}

Status KvCache::blockTable(SeqId seq, std::vector<BlockId> &out) const {
  const Sequence *s = find(seq);
  if (!s)
    return noSequence(seq);
  out = s->blocks;
  return Status::ok();
}

PoolStats KvCache::stats() const {
  PoolStats st = counters_;
  st.freeBlocks = static_cast<int32_t>(free_.size());
  st.cachedBlocks = lruCount_;
  st.sharedBlocks = 0;
  for (const Block &b : blocks_)
    st.sharedBlocks += b.refs > 1;
  st.sequences = static_cast<int32_t>(sequences_.size());
  return st;
}

Status KvCache::checkSequences() const {
  std::vector<int32_t> refs(blocks_.size(), 0);
  int32_t bs = config_.blockSize;
  for (const auto &[id, s] : sequences_) {
    std::string name = "sequence " + std::to_string(id);
    if (s.computed < 0 || size_t(s.computed) > s.tokens.size() ||
        int64_t(s.blocks.size()) * bs < s.computed ||
        s.tokens.size() > size_t(config_.maxSequenceTokens))
      return Status(ErrorCode::InvalidArgument,
                    "kv cache invariant: " + name + " computed " +
                        std::to_string(s.computed) + " of " +
                        std::to_string(s.tokens.size()) + " tokens in " +
                        std::to_string(s.blocks.size()) + " blocks");
    if (s.hashes.size() != size_t(s.computed / bs))
      return Status(ErrorCode::InvalidArgument,
                    "kv cache invariant: " + name + " has " +
                        std::to_string(s.hashes.size()) + " block hashes");
    std::vector<BlockId> sorted = s.blocks;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      return Status(ErrorCode::InvalidArgument,
                    "kv cache invariant: " + name + " names a block twice");
    for (size_t i = 0; i < s.blocks.size(); ++i) {
      BlockId b = s.blocks[i];
      if (b < 0 || b >= config_.numBlocks)
        return Status(ErrorCode::InvalidArgument,
                      "kv cache invariant: " + name + " names no block");
      ++refs[b];
      // Only full blocks are cached, and a cached block is the one the
      // sequence's own chain names.
      bool full = i < s.hashes.size();
      if (blocks_[b].cached && (!full || blocks_[b].hash != s.hashes[i]))
        return Status(ErrorCode::InvalidArgument,
                      "kv cache invariant: " + name + " block " +
                          std::to_string(i) + " is cached under another key");
    }
  }
  for (BlockId b = 0; b < config_.numBlocks; ++b)
    if (refs[b] != blocks_[b].refs)
      return Status(ErrorCode::InvalidArgument,
                    "kv cache invariant: block " + std::to_string(b) +
                        " counts " + std::to_string(blocks_[b].refs) +
                        " holders, tables name it " + std::to_string(refs[b]) +
                        " times");
  return Status::ok();
}
