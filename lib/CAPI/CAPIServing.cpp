//===- CAPIServing.cpp - The C API of the paged KV driver -----------------===//
//
// poot_kv_* over serve::KvCache, in the runtime-only library. Like the rest
// of the C API, every call that returns a poot_status clears the thread's
// message first and sets it on failure. Running out of blocks is not a
// failure: it is `granted` 0 with POOT_OK, and nothing changed. Host
// allocation failures are caught here, at the boundary, as
// POOT_ERR_UNSUPPORTED.
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

#include "poot/Runtime/Serving.h"

#include <algorithm>
#include <new>

using namespace poot::rt;
using namespace poot::rt::serve;

struct poot_kv_cache {
  std::unique_ptr<KvCache> cache;
  /// The step poot_kv_commit_step commits.
  StepPlan lastStep;
  bool hasStep = false;
};

namespace {

poot_status nullArgument() {
  return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT, "null argument");
}

poot_status outOfMemory() {
  return poot::capi::fail(POOT_ERR_UNSUPPORTED,
                          "out of memory (the kv pool is unchanged)");
}

poot_status result(const Status &s) {
  return s.isOk() ? POOT_OK : poot::capi::fail(s);
}

std::string adapterName(const char *adapter) {
  return adapter ? std::string(adapter) : std::string();
}

StepShape toShape(const poot_kv_step_shape &s) {
  StepShape shape;
  shape.rows = s.rows;
  shape.tokens = s.tokens;
  shape.capacity = s.capacity;
  shape.slots = s.slots;
  return shape;
}

/// prepare_step's buffers, once the step is granted.
void writeStep(const StepPlan &plan, int32_t *readMap, int32_t *writeMap,
               int32_t *pos, int32_t *len, poot_kv_copy *copies,
               int *numCopies) {
  std::copy(plan.readMap.begin(), plan.readMap.end(), readMap);
  std::copy(plan.writeMap.begin(), plan.writeMap.end(), writeMap);
  std::copy(plan.pos.begin(), plan.pos.end(), pos);
  if (len)
    std::copy(plan.len.begin(), plan.len.end(), len);
  for (size_t i = 0; i < plan.copies.size(); ++i)
    copies[i] = {plan.copies[i].src, plan.copies[i].dst, plan.copies[i].tokens};
  *numCopies = static_cast<int>(plan.copies.size());
}

poot_status prepareStep(poot_kv_cache *c, const poot_kv_step_shape &shape,
                        const poot_kv_row *rows, int numRows, int maxCopies,
                        StepPlan &plan) {
  // Every copy a step can ask for takes one of the blocks a row's tokens
  // touch: the caller's room is checked before anything changes.
  int32_t bs = c->cache->config().blockSize;
  int64_t most = int64_t(numRows) * ((shape.tokens - 1) / bs + 2);
  if (shape.tokens < 1 || maxCopies < most)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT,
                            "room for " + std::to_string(maxCopies) +
                                " block copies, a step of these rows may "
                                "ask for " +
                                std::to_string(most));
  std::vector<StepRow> list;
  for (int i = 0; i < numRows; ++i)
    list.push_back({rows[i].seq, rows[i].tokens});
  Status s = c->cache->prepareStep(toShape(shape), list, plan);
  if (s.isOk() && plan.grant == Grant::Granted)
    s = c->cache->checkStep(plan);
  return result(s);
}

} // namespace

extern "C" {

poot_status poot_kv_create(int32_t numBlocks, int32_t blockSize,
                           int32_t maxSequenceTokens, poot_kv_cache **out) {
  poot::capi::clearError();
  if (!out)
    return nullArgument();
  PoolConfig config;
  config.numBlocks = numBlocks;
  config.blockSize = blockSize ? blockSize : kDefaultBlockSize;
  config.maxSequenceTokens = maxSequenceTokens;
  try {
    auto handle = std::make_unique<poot_kv_cache>();
    if (Status s = KvCache::create(config, handle->cache); !s.isOk())
      return poot::capi::fail(s);
    *out = handle.release();
  } catch (const std::bad_alloc &) {
    return outOfMemory();
  }
  return POOT_OK;
}

void poot_kv_free(poot_kv_cache *cache) { delete cache; }

poot_status poot_kv_weights(poot_kv_cache *c, const char *adapter,
                            poot_weights_id *out) {
  poot::capi::clearError();
  if (!c || !out)
    return nullArgument();
  std::string name = adapterName(adapter);
  if (name.empty()) {
    *out = c->cache->baseWeights();
    return POOT_OK;
  }
  return result(c->cache->adapterWeights(name, *out));
}

poot_status poot_kv_reload(poot_kv_cache *c, const char *adapter,
                           poot_weights_id *out) {
  poot::capi::clearError();
  if (!c || !out)
    return nullArgument();
  return result(c->cache->reloadWeights(adapterName(adapter), *out));
}

poot_status poot_kv_admit(poot_kv_cache *c, int64_t seq,
                          poot_weights_id weights, const int32_t *tokens,
                          size_t count, poot_kv_admission *out) {
  poot::capi::clearError();
  if (!c || !out || (!tokens && count))
    return nullArgument();
  try {
    std::vector<TokenId> prompt(tokens, tokens + count);
    Admission a;
    if (Status s = c->cache->admit(seq, weights, prompt, a); !s.isOk())
      return poot::capi::fail(s);
    *out = {a.grant == Grant::Granted, a.cachedTokens, a.blocksNeeded,
            a.blocksAvailable};
  } catch (const std::bad_alloc &) {
    return outOfMemory();
  }
  return POOT_OK;
}

poot_status poot_kv_append(poot_kv_cache *c, int64_t seq, const int32_t *tokens,
                           size_t count) {
  poot::capi::clearError();
  if (!c || (!tokens && count))
    return nullArgument();
  try {
    return result(
        c->cache->append(seq, std::vector<TokenId>(tokens, tokens + count)));
  } catch (const std::bad_alloc &) {
    return outOfMemory();
  }
}

poot_status poot_kv_fork(poot_kv_cache *c, int64_t src, int64_t dst) {
  poot::capi::clearError();
  if (!c)
    return nullArgument();
  return result(c->cache->fork(src, dst));
}

poot_status poot_kv_finish(poot_kv_cache *c, int64_t seq) {
  poot::capi::clearError();
  if (!c)
    return nullArgument();
  return result(c->cache->finish(seq));
}

poot_status poot_kv_computed(const poot_kv_cache *c, int64_t seq,
                             int32_t *out) {
  poot::capi::clearError();
  if (!c || !out)
    return nullArgument();
  return result(c->cache->computed(seq, *out));
}

poot_status poot_kv_sequence_weights(const poot_kv_cache *c, int64_t seq,
                                     poot_weights_id *out) {
  poot::capi::clearError();
  if (!c || !out)
    return nullArgument();
  return result(c->cache->weightsOf(seq, *out));
}

poot_status poot_kv_step_shape_of(const poot_plan *plan,
                                  poot_kv_step_shape *out) {
  poot::capi::clearError();
  if (!plan || !out)
    return nullArgument();
  StepShape shape;
  if (Status s = stepShapeOf(plan->plan->graph, shape); !s.isOk())
    return poot::capi::fail(s);
  *out = {shape.rows, shape.tokens, shape.capacity, shape.slots};
  return POOT_OK;
}

poot_status poot_kv_prepare_step(poot_kv_cache *c,
                                 const poot_kv_step_shape *shape,
                                 const poot_kv_row *rows, int numRows,
                                 int32_t *readMap, int32_t *writeMap,
                                 int32_t *pos, int32_t *len,
                                 poot_kv_copy *copies, int maxCopies,
                                 int *numCopies, int *granted) {
  poot::capi::clearError();
  if (!c || !shape || (!rows && numRows) || numRows < 0 || !readMap ||
      !writeMap || !pos || (!copies && maxCopies) || !numCopies || !granted)
    return nullArgument();
  try {
    StepPlan plan;
    if (poot_status s = prepareStep(c, *shape, rows, numRows, maxCopies, plan))
      return s;
    *granted = plan.grant == Grant::Granted;
    *numCopies = 0;
    if (!*granted)
      return POOT_OK;
    writeStep(plan, readMap, writeMap, pos, len, copies, numCopies);
    c->lastStep = std::move(plan);
    c->hasStep = true;
  } catch (const std::bad_alloc &) {
    return outOfMemory();
  }
  return POOT_OK;
}

poot_status poot_kv_commit_step(poot_kv_cache *c) {
  poot::capi::clearError();
  if (!c)
    return nullArgument();
  if (!c->hasStep)
    return poot::capi::fail(POOT_ERR_INVALID_ARGUMENT,
                            "no prepared step to commit");
  if (Status s = c->cache->commitStep(c->lastStep); !s.isOk())
    return poot::capi::fail(s);
  c->hasStep = false;
  return POOT_OK;
}

poot_status poot_kv_check_write_map(const int32_t *writeMap, size_t count,
                                    int64_t slots) {
  poot::capi::clearError();
  if (!writeMap && count)
    return nullArgument();
  try {
    return result(
        checkWriteMap(std::vector<int32_t>(writeMap, writeMap + count), slots));
  } catch (const std::bad_alloc &) {
    return outOfMemory();
  }
}

poot_status poot_kv_copy_blocks(const poot_kv_copy *copies, int numCopies,
                                int32_t blockSize, int64_t slots, void *data,
                                size_t bytes) {
  poot::capi::clearError();
  if ((!copies && numCopies) || numCopies < 0 || !data)
    return nullArgument();
  try {
    std::vector<BlockCopy> list;
    for (int i = 0; i < numCopies; ++i)
      list.push_back(
          {copies[i].src_block, copies[i].dst_block, copies[i].tokens});
    return result(applyBlockCopies(list, blockSize, slots, data, bytes));
  } catch (const std::bad_alloc &) {
    return outOfMemory();
  }
}

poot_status poot_kv_get_stats(const poot_kv_cache *c, poot_kv_stats *out) {
  poot::capi::clearError();
  if (!c || !out)
    return nullArgument();
  PoolStats s = c->cache->stats();
  *out = {s.totalBlocks, s.freeBlocks,         s.cachedBlocks,
          s.usedBlocks,  s.sharedBlocks,       s.peakUsedBlocks,
          s.sequences,   s.prefixBlocksReused, s.prefillTokensSkipped,
          s.evictions,   s.copiesOnWrite,      s.refusedForSpace};
  return POOT_OK;
}

} // extern "C"
