//===- Steps.cpp - The maps of one paged step -----------------------------===//
//
// A compiled paged step has a static shape: `rows` rows of `tokens` new
// tokens, each row reading up to `capacity` key positions through its read
// map. A serving step fills that shape with the sequences it runs this
// step, each at its own length: a row in prefill computes a chunk of its
// prompt, a row in decode one token, and the rest of the row's tokens, and
// the rows no sequence fills, are padding. Padding never writes (-1 in the
// write map), always reads a slot inside the pool, and its outputs are not
// read; a real query never sees padding, because the plan's causal mask from
// `pos` (or its `len`) stops each query at its own position.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Serving.h"
#include "poot/Runtime/GpuDevice.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <new>

using namespace poot::rt;
using namespace poot::rt::serve;

namespace {

Status invalid(const std::string &message) {
  return Status(ErrorCode::InvalidArgument, message);
}

/// The one input filling `slot`, or null; InvalidArgument when several do.
Status slotInput(const Graph &graph, const char *slot, const GraphInput *&out) {
  out = nullptr;
  for (const GraphInput &in : graph.inputs) {
    if (in.slot != slot)
      continue;
    if (out)
      return invalid(std::string("several inputs fill slot '") + slot + "'");
    out = &in;
  }
  return Status::ok();
}

const TensorType *typeOf(const Graph &graph, const GraphInput &in) {
  if (in.value < 0 || in.value >= static_cast<int>(graph.values.size()))
    return nullptr;
  return &graph.values[in.value];
}

/// The pool's slot count a map declares: its range's end.
Status declaredSlots(const GraphInput &in, int64_t &slots) {
  if (!in.range || in.range->second <= 0)
    return invalid("input '" + in.name + "' declares no pool range");
  slots = in.range->second;
  return Status::ok();
}

} // namespace

Status poot::rt::serve::stepShapeOf(const Graph &graph, StepShape &out) {
  const GraphInput *write, *read, *pos;
  POOT_RETURN_IF_ERROR(slotInput(graph, "write_map", write));
  POOT_RETURN_IF_ERROR(slotInput(graph, "slot_map", read));
  POOT_RETURN_IF_ERROR(slotInput(graph, "pos", pos));
  if (!write || !read)
    return invalid("graph '" + graph.name + "' has no " +
                   (write ? "slot_map" : "write_map") +
                   " slot: serving needs a paged graph that reads through "
                   "the read map (a paged decode, or a chunked paged prefill; "
                   "a plain paged prefill attends to its own tokens only)");
  const TensorType *w = typeOf(graph, *write), *r = typeOf(graph, *read),
                   *p = pos ? typeOf(graph, *pos) : nullptr;
  if (!w || !r || (pos && !p))
    return invalid("a slot input refers to no value");
  if (w->dtype != DType::I32 || r->dtype != DType::I32 ||
      w->shape.size() != 1 || r->shape.size() != 2 || r->shape[0] <= 0 ||
      r->shape[1] <= 0 || w->shape[0] <= 0 || w->shape[0] % r->shape[0] != 0)
    return invalid("expected an i32 write_map [rows * tokens] and slot_map "
                   "[rows, capacity], got " +
                   w->toString() + " and " + r->toString());
  if (p && (p->dtype != DType::I32 || p->shape != Shape{r->shape[0]}))
    return invalid("expected pos i32 [" + std::to_string(r->shape[0]) +
                   "], got " + p->toString());
  int64_t writeSlots, readSlots;
  POOT_RETURN_IF_ERROR(declaredSlots(*write, writeSlots));
  POOT_RETURN_IF_ERROR(declaredSlots(*read, readSlots));
  if (writeSlots != readSlots)
    return invalid("write_map and slot_map declare pools of " +
                   std::to_string(writeSlots) + " and " +
                   std::to_string(readSlots) + " slots");
  int64_t tokens = w->shape[0] / r->shape[0];
  if (r->shape[0] > INT32_MAX || r->shape[1] > INT32_MAX ||
      tokens > r->shape[1])
    return invalid("a step of " + std::to_string(tokens) +
                   " tokens a row does not fit a capacity of " +
                   std::to_string(r->shape[1]));
  out.rows = static_cast<int32_t>(r->shape[0]);
  out.tokens = static_cast<int32_t>(tokens);
  out.capacity = static_cast<int32_t>(r->shape[1]);
  out.slots = writeSlots;
  return Status::ok();
}

int poot::rt::serve::selectBucket(const std::vector<StepShape> &buckets,
                                  int32_t rows, int32_t tokens) {
  int best = -1;
  for (size_t i = 0; i < buckets.size(); ++i) {
    const StepShape &b = buckets[i];
    if (b.rows < rows || b.tokens < tokens)
      continue;
    if (best >= 0) {
      const StepShape &o = buckets[best];
      int64_t size = int64_t(b.rows) * b.tokens,
              bestSize = int64_t(o.rows) * o.tokens;
      if (size > bestSize || (size == bestSize && b.tokens >= o.tokens))
        continue;
    }
    best = static_cast<int>(i);
  }
  return best;
}

Status poot::rt::serve::checkWriteMap(const std::vector<int32_t> &writeMap,
                                      int64_t slots) {
  std::map<int32_t, size_t> firstAt;
  try {
    for (size_t i = 0; i < writeMap.size(); ++i) {
      int32_t slot = writeMap[i];
      if (slot == -1)
        continue;
      if (slot < -1 || slot >= slots)
        return Status(ErrorCode::IndexOutOfRange,
                      "write map index " + std::to_string(i) + ": slot " +
                          std::to_string(slot) + " outside the pool [0, " +
                          std::to_string(slots) + ") (-1 drops a write)");
      auto [it, fresh] = firstAt.emplace(slot, i);
      if (!fresh)
        return invalid("write map names pool slot " + std::to_string(slot) +
                       " twice (indices " + std::to_string(it->second) +
                       " and " + std::to_string(i) + ")");
    }
  } catch (const std::bad_alloc &) {
    return Status(ErrorCode::Unsupported, "out of memory checking a write map");
  }
  return Status::ok();
}

namespace {

/// The bytes of one slot of a pool of `bytes` bytes, once every copy is
/// checked to stay inside its `slots / blockSize` blocks.
Status checkBlockCopies(const std::vector<BlockCopy> &copies,
                        int32_t blockSize, int64_t slots, size_t bytes,
                        size_t &slotBytes) {
  if (blockSize <= 0 || slots <= 0 || bytes % size_t(slots) != 0)
    return invalid("a pool of " + std::to_string(bytes) + " bytes is not " +
                   std::to_string(slots) + " equal slots");
  slotBytes = bytes / size_t(slots);
  int64_t blocks = slots / blockSize;
  for (const BlockCopy &c : copies)
    if (c.src < 0 || c.dst < 0 || c.src >= blocks || c.dst >= blocks ||
        c.src == c.dst || c.tokens < 0 || c.tokens > blockSize)
      return invalid("block copy " + std::to_string(c.src) + " -> " +
                     std::to_string(c.dst) + " of " + std::to_string(c.tokens) +
                     " tokens outside a pool of " + std::to_string(blocks) +
                     " blocks");
  return Status::ok();
}

} // namespace

Status poot::rt::serve::applyBlockCopies(const std::vector<BlockCopy> &copies,
                                         int32_t blockSize, int64_t slots,
                                         void *data, size_t bytes) {
  if (!data)
    return invalid("block copies into no pool");
  size_t slotBytes = 0;
  // All checked before any byte moves.
  POOT_RETURN_IF_ERROR(
      checkBlockCopies(copies, blockSize, slots, bytes, slotBytes));
  auto *base = static_cast<unsigned char *>(data);
  for (const BlockCopy &c : copies)
    std::memcpy(base + size_t(c.dst) * blockSize * slotBytes,
                base + size_t(c.src) * blockSize * slotBytes,
                size_t(c.tokens) * slotBytes);
  return Status::ok();
}

Status poot::rt::serve::applyBlockCopies(const std::vector<BlockCopy> &copies,
                                         int32_t blockSize, int64_t slots,
                                         GpuDevice &device, GpuBuffer &pool) {
  size_t slotBytes = 0;
  POOT_RETURN_IF_ERROR(checkBlockCopies(copies, blockSize, slots,
                                        size_t(pool.size()), slotBytes));
  std::vector<GpuCopy> moves;
  for (const BlockCopy &c : copies)
    moves.push_back({&pool, int64_t(c.src) * blockSize * int64_t(slotBytes),
                     &pool, int64_t(c.dst) * blockSize * int64_t(slotBytes),
                     int64_t(c.tokens) * int64_t(slotBytes)});
  return device.copy(moves);
}

//--- KvCache: steps ---------------------------------------------------------

Status KvCache::checkRows(const StepShape &shape,
                          const std::vector<StepRow> &rows,
                          int32_t &blocksNeeded) const {
  int32_t bs = config_.blockSize;
  if (shape.rows <= 0 || shape.tokens <= 0 || shape.capacity < shape.tokens)
    return invalid("a step shape needs rows, tokens and a capacity of at "
                   "least the tokens");
  if (shape.slots < int64_t(config_.numBlocks) * bs)
    return invalid("the plan's pool has " + std::to_string(shape.slots) +
                   " slots, fewer than this pool's " +
                   std::to_string(int64_t(config_.numBlocks) * bs));
  if (rows.size() > size_t(shape.rows))
    return invalid(std::to_string(rows.size()) + " rows for a step of " +
                   std::to_string(shape.rows));
  std::map<BlockId, int32_t> refs; // holders left as rows copy shared blocks
  std::map<SeqId, bool> seen;
  blocksNeeded = 0;
  for (const StepRow &row : rows) {
    const Sequence *s = find(row.seq);
    std::string name = "sequence " + std::to_string(row.seq);
    if (!s)
      return invalid("no " + name + " in the kv pool");
    if (!seen.emplace(row.seq, true).second)
      return invalid(name + " fills two rows of one step");
    if (!isLive(s->weights))
      return invalid(name + " runs on retired weights " +
                     std::to_string(s->weights) +
                     ": its K/V is stale; finish and readmit it");
    if (row.tokens < 1 || row.tokens > shape.tokens ||
        size_t(s->computed) + row.tokens > s->tokens.size())
      return invalid(name + " cannot compute " + std::to_string(row.tokens) +
                     " tokens (" +
                     std::to_string(s->tokens.size() - s->computed) +
                     " known and not computed, at most " +
                     std::to_string(shape.tokens) + " a row)");
    if (int64_t(s->computed) + shape.tokens > shape.capacity)
      return invalid(name + " at position " + std::to_string(s->computed) +
                     " is past the step's capacity: rows of " +
                     std::to_string(shape.tokens) + " tokens start at " +
                     std::to_string(shape.capacity - shape.tokens) +
                     " at most");
    int32_t first = s->computed / bs,
            last = (s->computed + row.tokens - 1) / bs;
    for (int32_t i = first; i <= last; ++i) {
      if (i >= int32_t(s->blocks.size())) {
        ++blocksNeeded; // a new block for decode growth
        continue;
      }
      auto [it, fresh] = refs.emplace(s->blocks[i], blocks_[s->blocks[i]].refs);
      if (it->second > 1) {
        ++blocksNeeded; // written while shared: this row takes a copy
        --it->second;
      }
    }
  }
  return Status::ok();
}

void KvCache::takeStepBlocks(const std::vector<StepRow> &rows,
                             std::vector<BlockCopy> &copies) {
  int32_t bs = config_.blockSize;
  for (const StepRow &row : rows) {
    Sequence &s = *find(row.seq);
    int32_t first = s.computed / bs, last = (s.computed + row.tokens - 1) / bs;
    for (int32_t i = first; i <= last; ++i) {
      if (i >= int32_t(s.blocks.size())) {
        s.blocks.push_back(takeBlock()); // capacity reserved by prepareStep
        continue;
      }
      BlockId shared = s.blocks[i];
      if (blocks_[shared].refs <= 1)
        continue;
      // Copy-on-write: the filled part of the block moves to a block of
      // this sequence's own before the step writes after it.
      BlockId own = takeBlock();
      int32_t filled = std::clamp(s.computed - i * bs, 0, bs);
      if (filled > 0) {
        copies.push_back({shared, own, filled});
        ++counters_.copiesOnWrite;
      }
      releaseBlock(shared);
      s.blocks[i] = own;
    }
  }
}

void KvCache::fillMaps(StepPlan &plan) const {
  const StepShape &shape = plan.shape;
  int32_t bs = config_.blockSize;
  std::fill(plan.readMap.begin(), plan.readMap.end(), 0);
  std::fill(plan.writeMap.begin(), plan.writeMap.end(), -1);
  std::fill(plan.pos.begin(), plan.pos.end(), 0);
  std::fill(plan.len.begin(), plan.len.end(), 1);
  for (size_t r = 0; r < plan.rows.size(); ++r) {
    const Sequence &s = *find(plan.rows[r].seq);
    auto slotOf = [&](int32_t p) { return s.blocks[p / bs] * bs + p % bs; };
    int32_t length = s.computed + plan.rows[r].tokens;
    int32_t *read = &plan.readMap[r * size_t(shape.capacity)];
    for (int32_t p = 0; p < shape.capacity; ++p)
      read[p] = slotOf(p < length ? p : 0);
    for (int32_t i = 0; i < plan.rows[r].tokens; ++i)
      plan.writeMap[r * size_t(shape.tokens) + i] = slotOf(s.computed + i);
    plan.firstPosition[r] = plan.pos[r] = s.computed;
    plan.len[r] = length;
    plan.weights[r] = s.weights;
  }
}

Status KvCache::prepareStep(const StepShape &shape,
                            const std::vector<StepRow> &rows, StepPlan &out) {
  int32_t needed = 0;
  POOT_RETURN_IF_ERROR(checkRows(shape, rows, needed));
  StepPlan plan;
  try {
    plan.shape = shape;
    plan.rows = rows;
    plan.firstPosition.assign(rows.size(), 0);
    plan.weights.assign(rows.size(), 0);
    plan.readMap.assign(size_t(shape.rows) * shape.capacity, 0);
    plan.writeMap.assign(size_t(shape.rows) * shape.tokens, -1);
    plan.pos.assign(shape.rows, 0);
    plan.len.assign(shape.rows, 1);
    plan.copies.reserve(needed);
    // Room in each table for the blocks the step appends, so taking them
    // below cannot fail half way.
    for (const StepRow &row : rows) {
      Sequence &s = *find(row.seq);
      s.blocks.reserve((s.computed + row.tokens + config_.blockSize - 1) /
                       config_.blockSize);
    }
  } catch (const std::bad_alloc &) {
    return Status(ErrorCode::Unsupported,
                  "out of memory building a step's maps (the kv pool is "
                  "unchanged)");
  }
  if (needed > available()) {
    ++counters_.refusedForSpace;
    plan.grant = Grant::PoolExhausted;
    out = std::move(plan);
    return Status::ok();
  }
  takeStepBlocks(rows, plan.copies);
  fillMaps(plan);
  plan.grant = Grant::Granted;
  out = std::move(plan);
  return Status::ok();
}

Status KvCache::checkStep(const StepPlan &plan) const {
  const StepShape &shape = plan.shape;
  int32_t bs = config_.blockSize;
  if (plan.grant != Grant::Granted ||
      plan.writeMap.size() != size_t(shape.rows) * shape.tokens ||
      plan.readMap.size() != size_t(shape.rows) * shape.capacity ||
      plan.rows.size() > size_t(shape.rows) ||
      plan.firstPosition.size() != plan.rows.size())
    return invalid("not a granted step of its shape");
  POOT_RETURN_IF_ERROR(checkWriteMap(plan.writeMap, shape.slots));
  for (int32_t slot : plan.readMap)
    if (slot < 0 || slot >= shape.slots)
      return Status(ErrorCode::IndexOutOfRange,
                    "read map slot " + std::to_string(slot) +
                        " outside the pool [0, " + std::to_string(shape.slots) +
                        ")");
  for (size_t r = 0; r < size_t(shape.rows); ++r)
    for (int32_t i = 0; i < shape.tokens; ++i) {
      int32_t slot = plan.writeMap[r * shape.tokens + i];
      bool real = r < plan.rows.size() && i < plan.rows[r].tokens;
      if (!real) {
        if (slot != -1)
          return invalid("padding token " + std::to_string(i) + " of row " +
                         std::to_string(r) + " writes slot " +
                         std::to_string(slot));
        continue;
      }
      // The slot must be the token's own, in a block only its sequence
      // holds and the prefix cache does not serve.
      const Sequence *s = find(plan.rows[r].seq);
      int32_t p = plan.firstPosition[r] + i;
      if (!s || p / bs >= int32_t(s->blocks.size()) ||
          s->blocks[p / bs] * bs + p % bs != slot)
        return invalid("row " + std::to_string(r) + " token " +
                       std::to_string(i) + " writes slot " +
                       std::to_string(slot) + ", not its sequence's");
      const Block &block = blocks_[slot / bs];
      if (block.refs != 1 || block.cached)
        return invalid("row " + std::to_string(r) + " writes slot " +
                       std::to_string(slot) + " of a shared or cached block");
    }
  return Status::ok();
}

Status KvCache::commitStep(const StepPlan &plan) {
  if (plan.grant != Grant::Granted ||
      plan.firstPosition.size() != plan.rows.size())
    return invalid("commit of a step that was not granted");
  int32_t bs = config_.blockSize;
  std::map<SeqId, bool> seen;
  for (size_t r = 0; r < plan.rows.size(); ++r) {
    const Sequence *s = find(plan.rows[r].seq);
    if (!seen.emplace(plan.rows[r].seq, true).second)
      return invalid("sequence " + std::to_string(plan.rows[r].seq) +
                     " fills two rows of the step");
    if (!s || s->computed != plan.firstPosition[r] ||
        size_t(s->computed) + plan.rows[r].tokens > s->tokens.size() ||
        int64_t(s->blocks.size()) * bs < s->computed + plan.rows[r].tokens)
      return invalid("row " + std::to_string(r) + " (sequence " +
                     std::to_string(plan.rows[r].seq) +
                     ") moved on or finished since its step was prepared");
  }
  try {
    for (const StepRow &row : plan.rows) {
      Sequence &s = *find(row.seq);
      s.hashes.reserve((s.computed + row.tokens) / bs);
    }
  } catch (const std::bad_alloc &) {
    return Status(ErrorCode::Unsupported, "out of memory committing a step");
  }
  for (const StepRow &row : plan.rows) {
    Sequence &s = *find(row.seq);
    int32_t before = s.computed / bs;
    s.computed += row.tokens;
    registerFullBlocks(s, before, s.computed / bs);
  }
  return Status::ok();
}
