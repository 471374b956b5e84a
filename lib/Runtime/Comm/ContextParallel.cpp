//===- ContextParallel.cpp - One plan over several devices ----------------===//
//
// Each device is a thread with its own communicator, its own copy of the
// state, and an EqnRunner that claims the split attentions; the evaluator
// runs every other eqn on it (the cpu device). An attention's share is
// computed with the oracle's arithmetic (evalAttentionPartial), partials
// and key blocks travel as bytes (f32 in native mode, f64 otherwise), and
// the folds are the log-sum-exp merge of FusedOps.h.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/ContextParallel.h"
#include "poot/Runtime/Comm.h"
#include "Reference/FusedOps.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <sstream>
#include <system_error>
#include <thread>

namespace poot::rt {

using comm::Communicator;
using detail::AttentionDims;
using detail::AttentionPartial;
using detail::AttentionShard;

const char *contextSplitName(ContextSplit split) {
  switch (split) {
  case ContextSplit::Replicated:
    return "replicated";
  case ContextSplit::SplitKv:
    return "split-kv";
  case ContextSplit::Ring:
    return "ring";
  }
  return "unknown";
}

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Part `i` of [0, n) cut into `parts` nearly equal contiguous ranges.
std::pair<int64_t, int64_t> part(int64_t n, int parts, int i) {
  return {n * i / parts, n * (i + 1) / parts};
}

std::string ranges(const std::vector<std::pair<int64_t, int64_t>> &r) {
  std::string text;
  for (const auto &[lo, hi] : r)
    text += (text.empty() ? "" : " ") + std::string("[") +
            std::to_string(lo) + "," + std::to_string(hi) + ")";
  return text;
}

int defaultGroupSize(int devices) {
  int g = 1;
  while (g * g < devices)
    ++g;
  return g;
}

} // namespace

ContextSplit chooseContextSplit(int64_t lq, int64_t lk, bool denseKey,
                                int devices, int64_t ringMinRows,
                                std::string *reason) {
  auto say = [&](const std::string &why) {
    if (reason)
      *reason = why;
  };
  if (devices <= 1) {
    say("one device");
    return ContextSplit::Replicated;
  }
  if (lq >= ringMinRows && denseKey && lq >= devices) {
    say(std::to_string(lq) + " query rows >= " + std::to_string(ringMinRows) +
        " over a dense key: prefill");
    return ContextSplit::Ring;
  }
  if (lq >= ringMinRows)
    say(std::to_string(lq) + " query rows, but " +
        (denseKey ? "fewer than the devices"
                  : "the key is paged or has a shared part") +
        ": every device takes all rows against its key shard");
  else
    say(std::to_string(lq) + " query row(s) < " + std::to_string(ringMinRows) +
        ": decode, or too few rows for the ring");
  (void)lk;
  return ContextSplit::SplitKv;
}

std::string AttentionSplit::describe() const {
  std::ostringstream os;
  os << "attention";
  if (!location.empty())
    os << " at " << location;
  os << " [B=" << b << ", H=" << hq << "/" << hkv << ", Lq=" << lq
     << ", Lk=" << lk << ", Dv=" << dv << "]: " << contextSplitName(form)
     << " over " << devices << " device" << (devices == 1 ? "" : "s") << " ("
     << reason << ")";
  if (form == ContextSplit::SplitKv) {
    int groups = (devices + groupSize - 1) / groupSize;
    os << "; key shards " << ranges(keys) << "; reduce to device 0 by "
       << "log-sum-exp: ";
    if (groups == 1)
      os << "one group of " << devices;
    else if (groupSize == 1)
      os << "every device straight into device 0 (groups of 1)";
    else
      os << groups << " groups of up to " << groupSize
         << " (within each group, then across groups)";
  } else if (form == ContextSplit::Ring) {
    os << "; query rows " << ranges(rows) << "; key blocks " << ranges(keys)
       << " rotated over " << devices << " steps, causal skip";
  }
  return os.str();
}

Status planContextSplits(const Graph &graph,
                         const ContextParallelOptions &options,
                         std::vector<AttentionSplit> &out) {
  if (options.devices < 1 || options.devices > 1024)
    return Status(ErrorCode::InvalidArgument,
                  "context parallelism needs 1 to 1024 devices, got " +
                      std::to_string(options.devices));
  if (options.groupSize < 0)
    return Status(ErrorCode::InvalidArgument,
                  "a negative group size: " +
                      std::to_string(options.groupSize));
  int groupSize = options.groupSize ? std::min(options.groupSize,
                                               options.devices)
                                    : defaultGroupSize(options.devices);
  std::vector<AttentionSplit> splits;
  for (size_t i = 0; i < graph.eqns.size(); ++i) {
    const Eqn &eqn = graph.eqns[i];
    if (eqn.op != "attention")
      continue;
    // Which operands are present: [q, k, k_shared, v, read, mask, len, pos].
    std::vector<int64_t> counts;
    if (const Attr *a = eqn.attr("operandSegmentSizes");
        a && a->kind == Attr::Kind::Ints)
      counts = a->ints;
    else if (eqn.operands.size() == 3)
      counts = {1, 1, 0, 1, 0, 0, 0, 0};
    int64_t total = 0;
    for (int64_t c : counts)
      total += c;
    auto where = [&] {
      return (eqn.location.empty() ? std::string() : eqn.location + ": ");
    };
    if (counts.size() != 8 || total != int64_t(eqn.operands.size()) ||
        eqn.results.size() != 1)
      return Status(ErrorCode::InvalidArgument,
                    where() + "attention: cannot tell its operands apart");
    auto typeOf = [&](int group) -> const TensorType * {
      if (!counts[group])
        return nullptr;
      int64_t index = 0;
      for (int g = 0; g < group; ++g)
        index += counts[g];
      int v = eqn.operands[static_cast<size_t>(index)];
      if (v < 0 || size_t(v) >= graph.values.size())
        return nullptr;
      return &graph.values[size_t(v)];
    };
    const TensorType *q = typeOf(0), *k = typeOf(1), *v = typeOf(3),
                     *read = typeOf(4);
    bool shared = counts[2] != 0;
    if (!q || !k || !v || q->shape.size() != 4 || v->shape.empty() ||
        (read && read->shape.size() != 2) ||
        (!read && k->shape.size() != 4))
      return Status(ErrorCode::InvalidArgument,
                    where() + "attention: operands of unexpected ranks");
    AttentionSplit s;
    s.eqn = i;
    s.location = eqn.location;
    s.b = q->shape[0];
    s.hq = q->shape[1];
    s.lq = q->shape[2];
    s.lk = read ? read->shape[1] : k->shape[2];
    s.hkv = read ? k->shape[1] : k->shape[1];
    s.dv = v->shape.back();
    s.devices = options.devices;
    s.groupSize = groupSize;
    s.form = chooseContextSplit(s.lq, s.lk, !read && !shared, options.devices,
                                options.ringMinRows, &s.reason);
    for (int d = 0; d < options.devices; ++d) {
      if (s.form == ContextSplit::Replicated) {
        s.keys.push_back({0, s.lk});
        s.rows.push_back({0, s.lq});
      } else {
        s.keys.push_back(part(s.lk, options.devices, d));
        s.rows.push_back(s.form == ContextSplit::Ring
                             ? part(s.lq, options.devices, d)
                             : std::pair<int64_t, int64_t>{0, s.lq});
      }
    }
    splits.push_back(std::move(s));
  }
  out = std::move(splits);
  return Status::ok();
}

std::string ContextParallelReport::exchanges() const {
  std::ostringstream os;
  os << "exchanges: " << messages << " messages, " << bytesSent
     << " bytes; ring blocks folded " << ringFolds << ", skipped "
     << ringSkipped << "; split-kv shards past the live length "
     << emptyShards;
  return os.str();
}

std::string ContextParallelReport::toString() const {
  std::ostringstream os;
  for (const AttentionSplit &s : splits)
    os << s.describe() << "\n";
  os << exchanges() << "\n";
  return os.str();
}

namespace {

struct RankStats {
  int64_t bytesSent = 0, messages = 0, ringFolds = 0, ringSkipped = 0,
          emptyShards = 0;
};

/// Values on the wire: f32 words, or f64 where the values need them.
struct Wire {
  bool f32;
  size_t bytes(size_t count) const { return count * (f32 ? 4 : 8); }
  void put(const double *v, size_t count, std::vector<uint8_t> &out) const {
    size_t at = out.size();
    out.resize(at + bytes(count));
    uint8_t *p = out.data() + at;
    for (size_t i = 0; i < count; ++i) {
      if (f32) {
        float f = static_cast<float>(v[i]);
        std::memcpy(p + 4 * i, &f, 4);
      } else {
        std::memcpy(p + 8 * i, &v[i], 8);
      }
    }
  }
  const uint8_t *get(const uint8_t *p, double *v, size_t count) const {
    for (size_t i = 0; i < count; ++i) {
      if (f32) {
        float f;
        std::memcpy(&f, p + 4 * i, 4);
        v[i] = f;
      } else {
        std::memcpy(&v[i], p + 8 * i, 8);
      }
    }
    return p + bytes(count);
  }
};

std::vector<uint8_t> encodePartial(const Wire &w, const AttentionPartial &p) {
  std::vector<uint8_t> out;
  out.reserve(w.bytes(p.m.size() * 2 + p.acc.size()));
  w.put(p.m.data(), p.m.size(), out);
  w.put(p.l.data(), p.l.size(), out);
  w.put(p.acc.data(), p.acc.size(), out);
  return out;
}

void decodePartial(const Wire &w, const std::vector<uint8_t> &in,
                   AttentionPartial &p) {
  const uint8_t *at = in.data();
  at = w.get(at, p.m.data(), p.m.size());
  at = w.get(at, p.l.data(), p.l.size());
  w.get(at, p.acc.data(), p.acc.size());
}

/// The eqn runner of one device.
class RankRunner final : public EqnRunner {
public:
  RankRunner(const Graph &graph, const std::vector<AttentionSplit> &splits,
             const ContextParallelOptions &options, Communicator &comm)
      : graph_(graph), options_(options), comm_(comm),
        needEverywhere_(graph.eqns.size(), false),
        splitOf_(graph.eqns.size(), nullptr) {
    for (const AttentionSplit &s : splits)
      splitOf_[s.eqn] = &s;
    // An attention's result is needed on every device when a later eqn, a
    // state or a validation output reads it.
    std::vector<bool> readEverywhere(graph.values.size(), false);
    for (const Eqn &e : graph.eqns)
      for (int v : e.operands)
        if (v >= 0 && size_t(v) < readEverywhere.size())
          readEverywhere[size_t(v)] = true;
    for (const GraphOutput &o : graph.outputs)
      if ((!o.state.empty() || o.validation) && o.value >= 0 &&
          size_t(o.value) < readEverywhere.size())
        readEverywhere[size_t(o.value)] = true;
    for (const AttentionSplit &s : splits) {
      int r = graph.eqns[s.eqn].results.front();
      needEverywhere_[s.eqn] =
          r >= 0 && size_t(r) < readEverywhere.size() && readEverywhere[r];
    }
  }

  Status run(const Eqn &eqn, const std::vector<const Tensor *> &operands,
             const std::vector<TensorType> &resultTypes,
             std::vector<Tensor> &results, bool &claimed) override {
    claimed = false;
    size_t index = static_cast<size_t>(&eqn - graph_.eqns.data());
    if (index >= graph_.eqns.size() || !splitOf_[index] ||
        splitOf_[index]->form == ContextSplit::Replicated)
      return Status::ok(); // the evaluator runs it, on this device
    claimed = true;
    const AttentionSplit &split = *splitOf_[index];
    AttentionDims dims;
    POOT_RETURN_IF_ERROR(
        detail::describeAttention(eqn, operands, resultTypes, dims));
    if (dims.lq != split.lq || dims.lk != split.lk || dims.b != split.b)
      return Status(ErrorCode::InvalidArgument,
                    where(eqn) + "attention: its operands do not have the "
                                 "shape the split was planned for");
    Wire wire{options_.mode == NumericMode::Native &&
              dims.dtype != DType::F64};
    Tensor out(resultTypes[0]);
    POOT_RETURN_IF_ERROR(stage("shard"));
    if (split.form == ContextSplit::SplitKv)
      POOT_RETURN_IF_ERROR(splitKv(eqn, operands, resultTypes, split, dims,
                                   wire, out.values().data()));
    else
      POOT_RETURN_IF_ERROR(ring(eqn, operands, resultTypes, split, dims, wire,
                                out.values().data()));
    // Device 0 holds the result; the others get it back only if they read
    // it (otherwise theirs is never published: NaN).
    size_t bytes = wire.bytes(out.values().size());
    if (needEverywhere_[index]) {
      if (comm_.rank() == 0) {
        std::vector<uint8_t> message;
        wire.put(out.values().data(), out.values().size(), message);
        for (int d = 1; d < comm_.size(); ++d)
          POOT_RETURN_IF_ERROR(send(d, message));
      } else {
        std::vector<uint8_t> message(bytes);
        POOT_RETURN_IF_ERROR(comm_.recv(0, message.data(), bytes));
        wire.get(message.data(), out.values().data(), out.values().size());
      }
    } else if (comm_.rank() != 0) {
      std::fill(out.values().begin(), out.values().end(), kNaN);
    }
    results.clear();
    results.push_back(std::move(out));
    return Status::ok();
  }

  RankStats stats;

private:
  static std::string where(const Eqn &eqn) {
    return eqn.location.empty() ? "" : eqn.location + ": ";
  }
  Status stage(const char *name) {
    if (!options_.inject)
      return Status::ok();
    return options_.inject(comm_.rank(), name);
  }
  Status send(int peer, const std::vector<uint8_t> &message) {
    stats.bytesSent += int64_t(message.size());
    ++stats.messages;
    return comm_.send(peer, message.data(), message.size());
  }

  /// Decode: this device's key shard, then the two-level reduce to 0.
  Status splitKv(const Eqn &eqn, const std::vector<const Tensor *> &operands,
                 const std::vector<TensorType> &resultTypes,
                 const AttentionSplit &split, const AttentionDims &dims,
                 const Wire &wire, double *out) {
    int me = comm_.rank(), n = comm_.size(), g = split.groupSize;
    auto [k0, k1] = split.keys[size_t(me)];
    bool empty = true;
    for (int64_t live : dims.live)
      empty = empty && live <= k0;
    if (empty || k0 == k1)
      ++stats.emptyShards;
    AttentionPartial mine;
    AttentionShard shard{0, dims.lq, k0, k1, nullptr, nullptr};
    POOT_RETURN_IF_ERROR(detail::evalAttentionPartial(
        eqn, operands, resultTypes, options_.mode, shard, mine));
    POOT_RETURN_IF_ERROR(stage("exchange"));
    std::vector<uint8_t> buffer(
        wire.bytes(mine.m.size() * 2 + mine.acc.size()));
    AttentionPartial theirs = mine;
    auto receiveInto = [&](int from) -> Status {
      POOT_RETURN_IF_ERROR(comm_.recv(from, buffer.data(), buffer.size()));
      decodePartial(wire, buffer, theirs);
      detail::mergeAttentionPartials(mine, theirs);
      return Status::ok();
    };
    // Level 1: within the group, into its first device, in device order.
    int leader = me / g * g;
    if (me != leader)
      return finishNonRoot(send(leader, encodePartial(wire, mine)));
    for (int d = leader + 1; d < std::min(leader + g, n); ++d)
      POOT_RETURN_IF_ERROR(receiveInto(d));
    // Level 2: the groups' first devices into device 0.
    if (me != 0)
      return finishNonRoot(send(0, encodePartial(wire, mine)));
    for (int d = g; d < n; d += g)
      POOT_RETURN_IF_ERROR(receiveInto(d));
    POOT_RETURN_IF_ERROR(stage("combine"));
    detail::finishAttentionPartial(mine, dims.dtype, options_.mode,
                                   dims.zeroEmptyRows, out);
    return Status::ok();
  }

  Status finishNonRoot(Status sent) {
    POOT_RETURN_IF_ERROR(sent);
    return stage("combine");
  }

  /// Prefill: rotate the key blocks around the ring, fold what is visible.
  Status ring(const Eqn &eqn, const std::vector<const Tensor *> &operands,
              const std::vector<TensorType> &resultTypes,
              const AttentionSplit &split, const AttentionDims &dims,
              const Wire &wire, double *out) {
    int me = comm_.rank(), n = comm_.size();
    auto [r0, r1] = split.rows[size_t(me)];
    // This device's own key block, cut from its K and V: from here on it
    // reads keys only from the block it holds.
    const Tensor *k = operands[1];
    const Tensor *v = operands[2];
    // operands are [q, k, v, mask?, len?, pos?] for a dense key without
    // k_shared: v is the third.
    auto [k0, k1] = split.keys[size_t(me)];
    Tensor kb, vb;
    cutBlock(*k, dims.dk, k0, k1, dims, kb);
    cutBlock(*v, dims.dv, k0, k1, dims, vb);
    int64_t heldBegin = k0, heldEnd = k1;

    AttentionPartial running;
    running.reset(dims.b, dims.hq, r1 - r0, dims.dv);
    running.f32 = wire.f32;
    bool firstSend = true;
    for (int step = 0; step < n; ++step) {
      int holder = ((me - step) % n + n) % n; // whose block this is
      (void)holder;
      if (hidden(dims, r0, r1, heldBegin, heldEnd)) {
        ++stats.ringSkipped;
      } else {
        AttentionPartial block;
        AttentionShard shard{r0, r1, heldBegin, heldEnd, &kb, &vb};
        POOT_RETURN_IF_ERROR(detail::evalAttentionPartial(
            eqn, operands, resultTypes, options_.mode, shard, block));
        detail::mergeAttentionPartials(running, block);
        ++stats.ringFolds;
      }
      if (step == n - 1)
        break;
      if (firstSend) {
        POOT_RETURN_IF_ERROR(stage("exchange"));
        firstSend = false;
      }
      // Pass the held block on to the next device, take the previous one's.
      int next = (me + 1) % n, prev = (me + n - 1) % n;
      int incoming = ((me - step - 1) % n + n) % n;
      auto [i0, i1] = split.keys[size_t(incoming)];
      std::vector<uint8_t> message;
      wire.put(kb.values().data(), kb.values().size(), message);
      wire.put(vb.values().data(), vb.values().size(), message);
      Tensor nk({kb.dtype(), {dims.b, dims.hkv, i1 - i0, dims.dk}});
      Tensor nv({vb.dtype(), {dims.b, dims.hkv, i1 - i0, dims.dv}});
      std::vector<uint8_t> received(
          wire.bytes(nk.values().size() + nv.values().size()));
      stats.bytesSent += int64_t(message.size());
      ++stats.messages;
      POOT_RETURN_IF_ERROR(comm_.sendRecv(next, message.data(),
                                          message.size(), prev,
                                          received.data(), received.size()));
      const uint8_t *at =
          wire.get(received.data(), nk.values().data(), nk.values().size());
      wire.get(at, nv.values().data(), nv.values().size());
      kb = std::move(nk);
      vb = std::move(nv);
      heldBegin = i0;
      heldEnd = i1;
    }
    if (n == 1)
      POOT_RETURN_IF_ERROR(stage("exchange"));
    POOT_RETURN_IF_ERROR(stage("combine"));
    // The rows finish here and gather at device 0.
    std::vector<double> rowsOut(running.acc.size());
    detail::finishAttentionPartial(running, dims.dtype, options_.mode,
                                   dims.zeroEmptyRows,
                                   rowsOut.data());
    if (me != 0) {
      std::vector<uint8_t> message;
      wire.put(rowsOut.data(), rowsOut.size(), message);
      return send(0, message);
    }
    placeRows(rowsOut.data(), r0, r1, dims, out);
    for (int d = 1; d < n; ++d) {
      auto [d0, d1] = split.rows[size_t(d)];
      std::vector<double> theirs(
          size_t(dims.b * dims.hq * (d1 - d0) * dims.dv));
      std::vector<uint8_t> message(wire.bytes(theirs.size()));
      POOT_RETURN_IF_ERROR(comm_.recv(d, message.data(), message.size()));
      wire.get(message.data(), theirs.data(), theirs.size());
      placeRows(theirs.data(), d0, d1, dims, out);
    }
    return Status::ok();
  }

  /// Keys [k0, k1) of every (batch row, key head) of a dense [B, Hkv, Lk, D].
  static void cutBlock(const Tensor &t, int64_t d, int64_t k0, int64_t k1,
                       const AttentionDims &dims, Tensor &out) {
    Tensor block({t.dtype(), {dims.b, dims.hkv, k1 - k0, d}});
    for (int64_t b = 0; b < dims.b; ++b)
      for (int64_t h = 0; h < dims.hkv; ++h) {
        const double *from =
            t.values().data() + ((b * dims.hkv + h) * dims.lk + k0) * d;
        std::copy(from, from + (k1 - k0) * d,
                  block.values().data() +
                      (b * dims.hkv + h) * (k1 - k0) * d);
      }
    out = std::move(block);
  }

  /// True when no row of [r0, r1) in any batch row sees a key of [k0, k1):
  /// the block is empty, past every live length, or wholly above the
  /// causal diagonal.
  static bool hidden(const AttentionDims &dims, int64_t r0, int64_t r1,
                     int64_t k0, int64_t k1) {
    if (k0 >= k1 || r0 >= r1)
      return true;
    for (int64_t b = 0; b < dims.b; ++b) {
      bool pastLive = k0 >= dims.live[size_t(b)];
      bool aboveDiagonal = dims.causal && k0 > dims.pos[size_t(b)] + r1 - 1;
      if (!pastLive && !aboveDiagonal)
        return false;
    }
    return true;
  }

  static void placeRows(const double *rows, int64_t r0, int64_t r1,
                        const AttentionDims &dims, double *out) {
    int64_t n = r1 - r0;
    for (int64_t b = 0; b < dims.b; ++b)
      for (int64_t h = 0; h < dims.hq; ++h)
        std::copy(rows + ((b * dims.hq + h) * n) * dims.dv,
                  rows + ((b * dims.hq + h) * n + n) * dims.dv,
                  out + ((b * dims.hq + h) * dims.lq + r0) * dims.dv);
  }

  const Graph &graph_;
  const ContextParallelOptions &options_;
  Communicator &comm_;
  std::vector<bool> needEverywhere_;
  std::vector<const AttentionSplit *> splitOf_;
};

} // namespace

Status runContextParallel(const Graph &graph, const Bindings &bindings,
                          const ContextParallelOptions &options,
                          std::map<std::string, Tensor> &outputs,
                          ContextParallelReport *report) {
  std::vector<AttentionSplit> splits;
  POOT_RETURN_IF_ERROR(planContextSplits(graph, options, splits));
  POOT_RETURN_IF_ERROR(checkBindings(graph, bindings));
  int n = options.devices;
  comm::InProcessOptions commOptions;
  commOptions.timeoutMs = options.timeoutMs;
  std::vector<std::unique_ptr<Communicator>> comms;
  POOT_RETURN_IF_ERROR(comm::InProcessGroup::create(n, commOptions, comms));

  struct Device {
    std::map<std::string, Tensor> state; ///< its own copy of every state
    Bindings bindings;
    std::map<std::string, Tensor> outputs;
    std::unique_ptr<RankRunner> runner;
    Status status;
    bool own = false; ///< failed on its own account, not a peer's
  };
  std::vector<Device> devices;
  try {
    devices.resize(size_t(n));
    for (int d = 0; d < n; ++d) {
      Device &dev = devices[size_t(d)];
      dev.bindings.inputs = bindings.inputs;
      for (const auto &[name, tensor] : bindings.state)
        dev.state[name] = *tensor;
      for (auto &[name, tensor] : dev.state)
        dev.bindings.state[name] = &tensor;
      dev.runner =
          std::make_unique<RankRunner>(graph, splits, options, *comms[d]);
    }
  } catch (const std::bad_alloc &) {
    return Status(ErrorCode::Unsupported,
                  "out of memory copying the state for " + std::to_string(n) +
                      " devices");
  }

  auto run = [&](int d) {
    Device &dev = devices[size_t(d)];
    Communicator &c = *comms[size_t(d)];
    Status s = evaluate(graph, dev.bindings, options.mode, dev.outputs,
                        dev.runner.get());
    if (!s.isOk()) {
      dev.own = c.failure() != comm::CommFailure::PeerFailed;
      c.abort("device " + std::to_string(d) + ": " + s.toString());
    }
    // Agree before anything is published: one flag from every device.
    uint8_t ok = s.isOk() ? 1 : 0;
    std::vector<uint8_t> all(size_t(n), 0);
    Status agreed = c.allGather(&ok, 1, all.data());
    if (s.isOk() && !agreed.isOk())
      s = agreed;
    if (s.isOk())
      for (int p = 0; p < n; ++p)
        if (!all[size_t(p)])
          s = Status(ErrorCode::Io,
                     "device " + std::to_string(p) + " failed");
    dev.status = s;
  };
  // Nothing may leave a device thread: an exception there would end the
  // process. One that escapes the evaluator's own handling (the agreement
  // allocates too) fails the device and aborts the group.
  auto body = [&](int d) {
    try {
      run(d);
    } catch (const std::exception &e) {
      Device &dev = devices[size_t(d)];
      dev.status = Status(ErrorCode::Unsupported,
                          std::string("device thread: ") + e.what());
      dev.own = true;
      comms[size_t(d)]->abort("device " + std::to_string(d) + ": " +
                              dev.status.toString());
    }
  };
  std::vector<std::thread> threads;
  Status started;
  try {
    threads.reserve(size_t(n));
    for (int d = 1; d < n; ++d)
      threads.emplace_back(body, d);
  } catch (const std::exception &e) {
    // std::system_error (no thread to be had) or std::bad_alloc.
    started = Status(ErrorCode::Unsupported,
                     std::string("cannot start a device thread: ") + e.what());
    comms[0]->abort(started.toString());
  }
  if (started.isOk())
    body(0);
  for (std::thread &t : threads)
    t.join();
  POOT_RETURN_IF_ERROR(started);

  // Nothing is published unless every device succeeded and agreed.
  for (int d = 0; d < n; ++d)
    if (devices[size_t(d)].own)
      return Status(devices[size_t(d)].status.code(),
                    "device " + std::to_string(d) + ": " +
                        devices[size_t(d)].status.message());
  for (int d = 0; d < n; ++d)
    if (!devices[size_t(d)].status.isOk())
      return Status(devices[size_t(d)].status.code(),
                    "device " + std::to_string(d) + ": " +
                        devices[size_t(d)].status.message());

  Device &root = devices[0];
  for (const auto &[name, tensor] : bindings.state) {
    const Tensor &mine = root.state.at(name);
    std::copy(mine.values().begin(), mine.values().end(),
              tensor->values().begin());
  }
  outputs.swap(root.outputs);
  if (report) {
    ContextParallelReport r;
    r.splits = splits;
    for (const Device &dev : devices) {
      r.bytesSent += dev.runner->stats.bytesSent;
      r.messages += dev.runner->stats.messages;
      r.ringFolds += dev.runner->stats.ringFolds;
      r.ringSkipped += dev.runner->stats.ringSkipped;
      r.emptyShards += dev.runner->stats.emptyShards;
    }
    *report = std::move(r);
  }
  return Status::ok();
}

} // namespace poot::rt
