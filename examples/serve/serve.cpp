//===- serve.cpp - Requests served through the paged KV driver ------------===//
//
// Serves a stream of requests that share a system prompt through one
// compiled paged decode plan, with the driver of poot/Runtime/Serving.h:
// continuous batching (requests join and leave between steps), prefill in
// chunks of the plan's tokens per row beside rows in decode, the prefix
// cache (later requests skip the system prompt's prefill), and preemption
// when the pool runs out of blocks.
//
// Every request is first run alone on a fresh pool and state; then all are
// served together, and at every step each row's outputs must equal, bit for
// bit, those of its request run alone at the same positions (so must the
// tokens it samples). It prints what the pool did and the K/V memory next to
// a fixed-capacity layout of the same plan shape.
//
// The model's weights and token embeddings are seeded random values: the
// tokens mean nothing, but every output depends on every earlier token's
// K/V, so a wrong block, a stale prefix or a missed copy changes them.
//
// Usage: poot-serve-example PLAN [DEVICE]   (DEVICE: cpu, vulkan, cuda, hip)
// Exits 0 when every check passed, 1 otherwise, 77 without the device.
//
//===----------------------------------------------------------------------===//

#include "poot/Runtime/Device.h"
#include "poot/Runtime/Evaluator.h"
#include "poot/Runtime/GpuDevice.h"
#include "poot/Runtime/PlanRunner.h"
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/RandomInputs.h"
#include "poot/Runtime/Serving.h"
#include "poot/Runtime/Steps.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <random>

using namespace poot::rt;
using namespace poot::rt::serve;

namespace {

constexpr int kVocab = 64;
constexpr int32_t kSystemTokens = 32; // two blocks of 16

/// The adapters the example serves beside the base model: index 0 is the
/// base, 1 and 2 the adapters "a" and "b" (bank entries 0 and 1).
const char *const kAdapterNames[] = {"", "a", "b"};

struct Request {
  int id = 0;
  std::vector<TokenId> prompt;
  int maxNew = 0;
  int arrival = 0; ///< the step it arrives at
  int adapter = 0; ///< 0: the base model; 1, 2: adapters "a", "b"
  int version = 1; ///< the adapter's weights version it is served with
  /// 2: parallel sampling. After the prompt the sequence forks; the second
  /// branch (request `childId`) takes the runner-up token and then goes on
  /// greedily, sharing every block of the prompt until it writes.
  int branches = 1;
  int childId = -1;
  int firstPick = 0; ///< rank of its first sampled token (1: runner-up)
};

/// What a request produced: its output row at each position it computed,
/// and the tokens it sampled.
struct Trace {
  std::map<int32_t, std::vector<float>> outputs;
  std::vector<TokenId> generated;
};

uint64_t nameSeed(const std::string &name) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (unsigned char c : name)
    h = (h ^ c) * 1099511628211ull;
  return h;
}

/// The compiled step shapes (buckets) on their device, sharing one set of
/// weights, adapter banks and K/V pools; one step runs one bucket.
class Model {
public:
  /// Opens every plan of `paths`; they must agree on the pools, weights and
  /// hidden width (plans traced from one model at several step shapes).
  Status open(const std::vector<std::string> &paths, const std::string &kind);
  const std::vector<StepShape> &buckets() const { return shapes_; }
  int32_t maxRows() const;
  int32_t maxSequenceTokens() const;
  int64_t slots() const { return shapes_[0].slots; }
  int64_t hidden() const { return hidden_; }
  bool hasAdapters() const { return adapterSlot_; }
  /// K/V bytes of one pool slot, over every layer's K and V pools.
  int64_t bytesPerSlot() const;
  /// Zeroes every pool: a fresh start.
  Status clearState();
  /// Fills adapter `adapter`'s bank entries with its weights of `version`.
  void loadAdapter(int adapter, int version);
  Status copyBlocks(const std::vector<BlockCopy> &copies, int32_t blockSize);
  /// Runs `plan` on bucket `bucket`; `rowTokens[r]` are row r's new tokens
  /// and `rowAdapters[r]` the adapter it runs. `y` gets the output, [rows *
  /// tokens * hidden].
  Status run(int bucket, const StepPlan &plan,
             const std::vector<std::vector<TokenId>> &rowTokens,
             const std::vector<int> &rowAdapters, std::vector<float> &y);
  /// The token of rank `rank` (0: the best) by closeness of its embedding
  /// to `y` (a tied head).
  TokenId sample(const float *y, int rank) const;

private:
  Status bindWeights(const Graph &g);
  std::vector<Plan> plans_;
  std::vector<StepShape> shapes_;
  /// On a GPU: one device, a runner per bucket over it, and the K/V pools
  /// in device buffers every runner holds (they never travel to the host).
  /// On the cpu: the pools are host tensors in state_.
  std::unique_ptr<GpuDevice> gpu_;
  std::vector<std::unique_ptr<PlanRunner>> runners_;
  std::map<std::string, std::unique_ptr<GpuBuffer>> pools_;
  std::map<std::string, TensorType> stateTypes_;
  int64_t hidden_ = 0;
  bool adapterSlot_ = false;
  TensorMap inputs_, state_;
  std::vector<float> embedding_; ///< [kVocab, hidden]
};

int32_t Model::maxRows() const {
  int32_t rows = 0;
  for (const StepShape &s : shapes_)
    rows = std::max(rows, s.rows);
  return rows;
}

int32_t Model::maxSequenceTokens() const {
  int32_t most = 0;
  for (const StepShape &s : shapes_)
    most = std::max(most, s.maxSequenceTokens());
  return most;
}

Status Model::open(const std::vector<std::string> &paths,
                   const std::string &kind) {
  plans_.resize(paths.size()); // devices keep pointers: no reallocation
  for (size_t i = 0; i < paths.size(); ++i) {
    Plan &plan = plans_[i];
    POOT_RETURN_IF_ERROR(readPlanFile(paths[i], plan));
    StepShape shape;
    POOT_RETURN_IF_ERROR(stepShapeOf(plan.graph, shape));
    if (!shapes_.empty() && shape.slots != shapes_[0].slots)
      return Status(ErrorCode::ShapeMismatch,
                    paths[i] + ": a pool of " + std::to_string(shape.slots) +
                        " slots, not " + std::to_string(shapes_[0].slots));
    shapes_.push_back(shape);
    int x = plan.graph.findInput("x");
    if (x < 0 || plan.graph.findOutput("y") < 0)
      return Status(ErrorCode::UnknownName,
                    paths[i] + ": the plan has no input x or output y");
    const TensorType &xt = plan.graph.values[plan.graph.inputs[x].value];
    if (xt.dtype != DType::F32 || xt.shape.size() != 3 ||
        xt.shape[0] != shape.rows || xt.shape[1] != shape.tokens ||
        (hidden_ && xt.shape[2] != hidden_))
      return Status(ErrorCode::ShapeMismatch,
                    paths[i] + ": x must be f32 [rows, tokens, hidden], got " +
                        xt.toString());
    hidden_ = xt.shape[2];
    bool adapters = false;
    for (const GraphInput &in : plan.graph.inputs)
      adapters |= in.slot == "adapter";
    if (i > 0 && adapters != adapterSlot_)
      return Status(ErrorCode::InvalidArgument,
                    paths[i] + ": every bucket must select adapters per row, "
                               "or none");
    adapterSlot_ = adapters;
    POOT_RETURN_IF_ERROR(bindWeights(plan.graph));
  }
  if (kind != "cpu") {
    for (const Plan &plan : plans_)
      if (deviceKindForTarget(plan.target) != kind)
        return Status(ErrorCode::InvalidArgument,
                      "a plan for " + plan.target + " on the " + kind +
                          " device");
    POOT_RETURN_IF_ERROR(openGpuDevice(kind, 0, gpu_));
    for (const auto &[name, type] : stateTypes_) {
      std::unique_ptr<GpuBuffer> &pool = pools_[name];
      POOT_RETURN_IF_ERROR(gpu_->allocate(storageBytes(type), pool));
    }
    for (const Plan &plan : plans_) {
      auto runner = std::make_unique<PlanRunner>(*gpu_, plan);
      runner->setResident(true);
      runner->setDeviceOnly(true);
      for (const auto &[name, pool] : pools_)
        POOT_RETURN_IF_ERROR(runner->holdState(name, pool.get()));
      runners_.push_back(std::move(runner));
    }
    state_.clear(); // on the device only
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  embedding_.resize(size_t(kVocab) * hidden_);
  for (float &e : embedding_)
    e = u(rng);
  for (int a = 1; a <= 2 && adapterSlot_; ++a)
    loadAdapter(a, 1);
  return Status::ok();
}

Status Model::bindWeights(const Graph &g) {
  // Weights are seeded by name, so every bucket reads the same ones.
  for (const GraphInput &in : g.inputs) {
    const TensorType &type = g.values[in.value];
    TensorMap &map = in.state.empty() ? inputs_ : state_;
    if (!in.slot.empty() || in.name == "x")
      continue;
    if (auto it = map.find(in.name); it != map.end()) {
      if (it->second.type() != type)
        return Status(ErrorCode::ShapeMismatch,
                      "'" + in.name + "' is " + type.toString() +
                          " in one bucket and " +
                          it->second.type().toString() + " in another");
      continue;
    }
    if (!in.state.empty()) {
      POOT_RETURN_IF_ERROR(Tensor::create(type, state_[in.name]));
      stateTypes_[in.name] = type;
    } else
      POOT_RETURN_IF_ERROR(
          randomInput(g, in, nameSeed(in.name), 0, inputs_[in.name]));
  }
  return Status::ok();
}

void Model::loadAdapter(int adapter, int version) {
  // Bank entry adapter - 1 of every `.lora_a` / `.lora_b` input: weights of
  // their own per version, large enough to move every output.
  auto endsWith = [](const std::string &s, const char *tail) {
    size_t n = std::strlen(tail);
    return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
  };
  for (auto &[name, t] : inputs_) {
    if (!endsWith(name, ".lora_a") && !endsWith(name, ".lora_b"))
      continue;
    int64_t entry = t.size() / t.type().shape[0];
    std::mt19937_64 rng(nameSeed(name) + 977 * adapter + 31 * version);
    std::uniform_real_distribution<double> u(-0.25, 0.25);
    for (int64_t i = 0; i < entry; ++i)
      t.at((adapter - 1) * entry + i) = u(rng);
  }
}

int64_t Model::bytesPerSlot() const {
  int64_t bytes = 0;
  for (const auto &[name, type] : stateTypes_)
    bytes += storageBytes(type) / slots();
  return bytes;
}

Status Model::clearState() {
  for (auto &[name, t] : state_)
    std::fill(t.values().begin(), t.values().end(), 0.0);
  for (auto &[name, pool] : pools_) {
    std::vector<unsigned char> zero(size_t(pool->size()), 0);
    POOT_RETURN_IF_ERROR(pool->upload(zero.data(), pool->size()));
  }
  return Status::ok();
}

Status Model::copyBlocks(const std::vector<BlockCopy> &copies,
                         int32_t blockSize) {
  // On a GPU the blocks move device to device; the host pools hold
  // doubles, and a slot is the same share of each.
  for (auto &[name, pool] : pools_)
    POOT_RETURN_IF_ERROR(
        applyBlockCopies(copies, blockSize, slots(), *gpu_, *pool));
  for (auto &[name, t] : state_)
    POOT_RETURN_IF_ERROR(applyBlockCopies(copies, blockSize, slots(),
                                          t.values().data(),
                                          t.values().size() * sizeof(double)));
  return Status::ok();
}

Tensor intTensor(const std::vector<int32_t> &values, Shape shape) {
  return Tensor({DType::I32, std::move(shape)},
                std::vector<double>(values.begin(), values.end()));
}

Status Model::run(int bucket, const StepPlan &plan,
                  const std::vector<std::vector<TokenId>> &rowTokens,
                  const std::vector<int> &rowAdapters, std::vector<float> &y) {
  const StepShape &s = shapes_[bucket];
  const Graph &graph = plans_[bucket].graph;
  Tensor x({DType::F32, {s.rows, s.tokens, hidden_}});
  for (size_t r = 0; r < rowTokens.size(); ++r)
    for (size_t i = 0; i < rowTokens[r].size(); ++i)
      for (int64_t h = 0; h < hidden_; ++h)
        x.at((int64_t(r) * s.tokens + int64_t(i)) * hidden_ + h) =
            embedding_[size_t(rowTokens[r][i]) * hidden_ + h];
  inputs_["x"] = std::move(x);
  std::vector<int32_t> adapters(s.rows, 0); // padding rows: the base
  for (size_t r = 0; r < rowAdapters.size(); ++r)
    adapters[r] = rowAdapters[r];
  for (const GraphInput &in : graph.inputs) {
    if (in.slot == "pos")
      inputs_[in.name] = intTensor(plan.pos, {s.rows});
    else if (in.slot == "len")
      inputs_[in.name] = intTensor(plan.len, {s.rows});
    else if (in.slot == "write_map")
      inputs_[in.name] = intTensor(plan.writeMap, {int64_t(s.rows) * s.tokens});
    else if (in.slot == "slot_map")
      inputs_[in.name] = intTensor(plan.readMap, {s.rows, s.capacity});
    else if (in.slot == "adapter")
      inputs_[in.name] = intTensor(adapters, {s.rows});
  }
  TensorMap outputs;
  if (gpu_) {
    // The pools are held by the runner: only the other inputs are bound.
    Bindings b;
    for (const GraphInput &in : graph.inputs)
      if (in.state.empty())
        b.inputs[in.name] = &inputs_.at(in.name);
    POOT_RETURN_IF_ERROR(evaluate(graph, b, NumericMode::Native, outputs,
                                  runners_[bucket].get()));
  } else {
    Bindings b = bindStep(graph, inputs_, state_);
    POOT_RETURN_IF_ERROR(
        evaluate(graph, b, NumericMode::Native, outputs, nullptr));
  }
  const Tensor &out = outputs["y"];
  y.assign(out.values().begin(), out.values().end());
  return Status::ok();
}

TokenId Model::sample(const float *y, int rank) const {
  std::vector<std::pair<float, TokenId>> scores;
  for (TokenId v = 0; v < kVocab; ++v) {
    float score = 0;
    for (int64_t h = 0; h < hidden_; ++h)
      score += y[h] * embedding_[size_t(v) * hidden_ + h];
    scores.push_back({-score, v}); // ties to the lower token
  }
  std::sort(scores.begin(), scores.end());
  return scores[size_t(rank)].second;
}

/// Continuous batching over one KvCache: admit arrivals while there are
/// rows and blocks, give every running request a row each step (a prefill
/// chunk or one decode token) in the bucket that wastes the fewest tokens,
/// preempt the newest request when the pool cannot grow, hot-reload adapter
/// "a" once no request runs its old weights, and compare every output with
/// `reference` when given.
class Engine {
public:
  /// `version`: the weights version adapter "a" starts at.
  Engine(Model &model, KvCache &pool, const std::map<int, Trace> *reference,
         int version);
  Status serve(const std::vector<Request> &requests,
               std::map<int, Trace> &traces);
  int steps = 0, preemptions = 0, waitedForBlocks = 0, waitedForReload = 0;
  int reloads = 0, forks = 0;
  int mismatches = 0;  ///< outputs past the tolerance
  int64_t compared = 0, bitIdentical = 0;
  double maxDifference = 0;
  std::map<int, int> stepsByBucket;
  std::map<int, int> rowsByAdapter; ///< rows of real tokens, per adapter

private:
  struct Running {
    Request request;
    SeqId seq;
  };
  Status admitArrivals(std::map<int, Trace> &traces);
  Status reloadIfDue(const Request &head, bool &hold);
  int chooseBucket(const std::vector<int32_t> &remaining,
                   const std::vector<int32_t> &done) const;
  Status step(std::map<int, Trace> &traces);
  Status finishRow(const Running &row, const float *last,
                   std::map<int, Trace> &traces, std::vector<Running> &still,
                   bool &done);
  Status preemptNewest();
  void compare(int id, int32_t position, const float *y, Trace &trace);

  Model &model_;
  KvCache &pool_;
  const std::map<int, Trace> *reference_;
  WeightsId weights_[3] = {0, 0, 0}; ///< per adapter, its current identity
  int version_ = 1;                  ///< adapter "a"'s loaded version
  std::deque<Request> waiting_;
  std::vector<Running> running_;
  int clock_ = 0;
  SeqId nextSeq_ = 1;
};

Engine::Engine(Model &model, KvCache &pool,
               const std::map<int, Trace> *reference, int version)
    : model_(model), pool_(pool), reference_(reference), version_(version) {
  weights_[0] = pool.baseWeights();
  for (int a = 1; a <= 2; ++a)
    (void)pool.adapterWeights(kAdapterNames[a], weights_[a]);
  if (model.hasAdapters()) {
    model.loadAdapter(1, version_);
    model.loadAdapter(2, 1);
  }
}

Status Engine::serve(const std::vector<Request> &requests,
                     std::map<int, Trace> &traces) {
  waiting_.assign(requests.begin(), requests.end());
  while (!waiting_.empty() || !running_.empty()) {
    if (running_.empty() && waiting_.front().arrival > clock_)
      clock_ = waiting_.front().arrival; // idle until the next arrival
    POOT_RETURN_IF_ERROR(admitArrivals(traces));
    if (running_.empty())
      return Status(ErrorCode::Unsupported,
                    "request " + std::to_string(waiting_.front().id) +
                        " does not fit the pool even alone");
    POOT_RETURN_IF_ERROR(step(traces));
    ++clock_;
  }
  return Status::ok();
}

Status Engine::reloadIfDue(const Request &head, bool &hold) {
  // A request for a newer version of adapter "a" waits until no request
  // runs the loaded one; then the bank is refilled and the driver gives
  // the adapter a new identity, so no cached block of the old weights can
  // serve the new ones.
  hold = false;
  if (head.adapter != 1 || head.version == version_)
    return Status::ok();
  for (const Running &r : running_)
    if (r.request.adapter == 1) {
      hold = true;
      ++waitedForReload;
      return Status::ok();
    }
  model_.loadAdapter(1, head.version);
  POOT_RETURN_IF_ERROR(pool_.reloadWeights(kAdapterNames[1], weights_[1]));
  version_ = head.version;
  ++reloads;
  return Status::ok();
}

Status Engine::admitArrivals(std::map<int, Trace> &traces) {
  // First come, first served: a request that does not fit holds back the
  // ones behind it. A request that will fork takes its second row now.
  while (!waiting_.empty() && waiting_.front().arrival <= clock_) {
    Request r = waiting_.front();
    const std::vector<TokenId> &sampled = traces[r.id].generated;
    auto rowsOf = [&](const Request &q) {
      return q.branches > 1 && traces[q.id].generated.empty() ? q.branches : 1;
    };
    int held = 0;
    for (const Running &run : running_)
      held += rowsOf(run.request);
    if (held + rowsOf(r) > model_.maxRows())
      return Status::ok();
    bool hold = false;
    POOT_RETURN_IF_ERROR(reloadIfDue(r, hold));
    if (hold)
      return Status::ok();
    // A preempted request comes back with what it had sampled.
    std::vector<TokenId> prompt = r.prompt;
    prompt.insert(prompt.end(), sampled.begin(), sampled.end());
    Admission a;
    POOT_RETURN_IF_ERROR(
        pool_.admit(nextSeq_, weights_[r.adapter], prompt, a));
    if (a.grant == Grant::PoolExhausted) {
      ++waitedForBlocks;
      return Status::ok();
    }
    running_.push_back({r, nextSeq_++});
    waiting_.pop_front();
  }
  return Status::ok();
}

Status Engine::preemptNewest() {
  // Its blocks go back (cached full blocks stay findable); it comes back
  // first in line and recomputes what it had.
  Running victim = running_.back();
  running_.pop_back();
  POOT_RETURN_IF_ERROR(pool_.finish(victim.seq));
  waiting_.push_front(victim.request);
  ++preemptions;
  return Status::ok();
}

void Engine::compare(int id, int32_t position, const float *y, Trace &trace) {
  int64_t h = model_.hidden();
  std::vector<float> row(y, y + h);
  if (reference_) {
    // Bit for bit where both runs took the same bucket; every bucket's
    // plan computes a row the same way on the cpu, a GPU's schedules may
    // not, so the check allows float rounding and counts exact rows.
    auto it = reference_->at(id).outputs.find(position);
    bool bad = it == reference_->at(id).outputs.end();
    if (!bad) {
      ++compared;
      bitIdentical += std::memcmp(it->second.data(), row.data(),
                                  size_t(h) * sizeof(float)) == 0;
      for (int64_t i = 0; i < h; ++i) {
        double d = std::fabs(double(it->second[i]) - double(row[i]));
        maxDifference = std::max(maxDifference, d);
        bad |= !(d <= 1e-5 * (1.0 + std::fabs(double(it->second[i]))));
      }
    }
    if (bad && ++mismatches <= 5)
      std::fprintf(stderr, "MISMATCH request %d position %d\n", id, position);
  }
  trace.outputs[position] = std::move(row);
}

Status Engine::finishRow(const Running &row, const float *last,
                         std::map<int, Trace> &traces,
                         std::vector<Running> &still, bool &done) {
  // Every known token is computed: its last output samples the next one.
  Trace &trace = traces[row.request.id];
  bool first = trace.generated.empty();
  TokenId next = model_.sample(last, first ? row.request.firstPick : 0);
  if (first && row.request.branches > 1) {
    // Parallel sampling: the second branch shares the prompt's blocks and
    // takes the runner-up; the first write into the shared last block
    // gives it a copy of its own.
    Request child = row.request;
    child.id = row.request.childId;
    child.branches = 1;
    child.firstPick = 1;
    SeqId seq = nextSeq_++;
    POOT_RETURN_IF_ERROR(pool_.fork(row.seq, seq));
    TokenId other = model_.sample(last, 1);
    traces[child.id].generated.push_back(other);
    POOT_RETURN_IF_ERROR(pool_.append(seq, {other}));
    still.push_back({child, seq});
    ++forks;
  }
  trace.generated.push_back(next);
  std::vector<TokenId> tokens;
  POOT_RETURN_IF_ERROR(pool_.tokens(row.seq, tokens));
  done = int(trace.generated.size()) >= row.request.maxNew ||
         int32_t(tokens.size()) >= pool_.config().maxSequenceTokens;
  if (done)
    return pool_.finish(row.seq);
  return pool_.append(row.seq, {next});
}

int Engine::chooseBucket(const std::vector<int32_t> &remaining,
                         const std::vector<int32_t> &done) const {
  // The bucket with the most real tokens per token it computes, among
  // those with rows for everyone and room past each row's position.
  const std::vector<StepShape> &buckets = model_.buckets();
  int best = -1;
  double bestScore = 0;
  for (size_t b = 0; b < buckets.size(); ++b) {
    const StepShape &s = buckets[b];
    if (size_t(s.rows) < remaining.size())
      continue;
    int64_t useful = 0;
    bool fits = true;
    for (size_t r = 0; r < remaining.size(); ++r) {
      useful += std::min(remaining[r], s.tokens);
      fits &= done[r] + s.tokens <= s.capacity;
    }
    double score = double(useful) / (double(s.rows) * s.tokens);
    if (fits && (best < 0 || score > bestScore)) {
      best = int(b);
      bestScore = score;
    }
  }
  return best;
}

Status Engine::step(std::map<int, Trace> &traces) {
  StepPlan plan;
  std::vector<std::vector<TokenId>> rowTokens;
  std::vector<int> rowAdapters;
  int bucket = -1;
  for (;;) {
    std::vector<int32_t> remaining, done;
    std::vector<std::vector<TokenId>> known;
    for (const Running &r : running_) {
      known.emplace_back();
      done.push_back(0);
      POOT_RETURN_IF_ERROR(pool_.tokens(r.seq, known.back()));
      POOT_RETURN_IF_ERROR(pool_.computed(r.seq, done.back()));
      remaining.push_back(int32_t(known.back().size()) - done.back());
    }
    bucket = chooseBucket(remaining, done);
    if (bucket < 0)
      return Status(ErrorCode::Unsupported, "no bucket fits the step");
    const StepShape &shape = model_.buckets()[bucket];
    std::vector<StepRow> rows;
    rowTokens.clear();
    rowAdapters.clear();
    for (size_t r = 0; r < running_.size(); ++r) {
      int32_t count = std::min(shape.tokens, remaining[r]);
      rows.push_back({running_[r].seq, count});
      rowTokens.emplace_back(known[r].begin() + done[r],
                             known[r].begin() + done[r] + count);
      rowAdapters.push_back(running_[r].request.adapter);
    }
    POOT_RETURN_IF_ERROR(pool_.prepareStep(shape, rows, plan));
    if (plan.grant == Grant::Granted)
      break;
    if (running_.size() == 1)
      return Status(ErrorCode::Unsupported,
                    "one request alone exhausts the pool");
    POOT_RETURN_IF_ERROR(preemptNewest());
  }
  // The engine binds each row's adapter by the identity it runs on.
  for (size_t r = 0; r < plan.rows.size(); ++r)
    if (plan.weights[r] != weights_[rowAdapters[r]])
      return Status(ErrorCode::InvalidArgument,
                    "row " + std::to_string(r) + " runs weights " +
                        std::to_string(plan.weights[r]) +
                        " the engine has not loaded");
  POOT_RETURN_IF_ERROR(pool_.checkStep(plan));
  POOT_RETURN_IF_ERROR(
      model_.copyBlocks(plan.copies, pool_.config().blockSize));
  std::vector<float> y;
  POOT_RETURN_IF_ERROR(model_.run(bucket, plan, rowTokens, rowAdapters, y));
  POOT_RETURN_IF_ERROR(pool_.commitStep(plan));
  ++steps;
  ++stepsByBucket[bucket];
  const StepShape &shape = model_.buckets()[bucket];
  std::vector<Running> still;
  for (size_t r = 0; r < running_.size(); ++r) {
    const Running &row = running_[r];
    Trace &trace = traces[row.request.id];
    rowsByAdapter[row.request.adapter] += plan.rows[r].tokens;
    const float *out = &y[r * shape.tokens * size_t(model_.hidden())];
    for (int32_t i = 0; i < plan.rows[r].tokens; ++i)
      compare(row.request.id, plan.pos[r] + i, out + i * model_.hidden(),
              trace);
    std::vector<TokenId> tokens;
    int32_t done = 0;
    POOT_RETURN_IF_ERROR(pool_.tokens(row.seq, tokens));
    POOT_RETURN_IF_ERROR(pool_.computed(row.seq, done));
    bool finished = false;
    std::vector<Running> forked;
    if (done == int32_t(tokens.size()))
      POOT_RETURN_IF_ERROR(finishRow(
          row, out + (plan.rows[r].tokens - 1) * model_.hidden(), traces,
          forked, finished));
    if (!finished)
      still.push_back(row);
    still.insert(still.end(), forked.begin(), forked.end());
  }
  running_ = std::move(still);
  return Status::ok();
}

/// Requests sharing a system prompt of kSystemTokens tokens, but for two;
/// most arrive once the first has computed the prompt. With adapters, some
/// run adapter "a" (at version 1, then, after its reload, version 2) or
/// "b"; one base request samples two branches.
std::vector<Request> makeRequests(int32_t maxTokens, bool adapters) {
  std::mt19937 rng(11);
  std::vector<TokenId> system(kSystemTokens);
  for (TokenId &t : system)
    t = TokenId(rng() % kVocab);
  const int arrivals[] = {0, 3, 9, 10, 11, 12, 14, 16, 18, 20, 22, 24};
  const int adapterOf[] = {0, 0, 1, 2, 1, 0, 0, 2, 0, 1, 0, 1};
  std::vector<Request> requests;
  for (int i = 0; i < 12; ++i) {
    Request r;
    r.id = i;
    r.arrival = arrivals[i];
    if (i != 5 && i != 10) // two requests have prompts of their own
      r.prompt = system;
    int user = 3 + int(rng() % 10);
    for (int k = 0; k < user; ++k)
      r.prompt.push_back(TokenId(rng() % kVocab));
    r.maxNew = 4 + int(rng() % 7);
    r.maxNew = std::min<int>(r.maxNew, maxTokens - int(r.prompt.size()));
    if (adapters) {
      r.adapter = adapterOf[i];
      r.version = r.adapter == 1 && i >= 9 ? 2 : 1;
    }
    if (i == 6) {
      r.branches = 2;
      r.childId = 100 + i;
    }
    requests.push_back(std::move(r));
  }
  return requests;
}

Status makePool(const Model &model, std::unique_ptr<KvCache> &pool) {
  PoolConfig config;
  config.blockSize = kDefaultBlockSize;
  config.numBlocks = int32_t(model.slots() / config.blockSize);
  config.maxSequenceTokens = model.maxSequenceTokens();
  return KvCache::create(config, pool);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Each request alone, on a fresh pool and fresh K/V, with its adapter's
/// version loaded; a forking request's second branch alone too, as a
/// request whose first token is the runner-up.
Status runAlone(Model &model, const std::vector<Request> &requests,
                std::map<int, Trace> &alone, int &steps) {
  std::vector<Request> all;
  for (Request r : requests) {
    r.arrival = 0;
    if (r.branches > 1) {
      Request child = r;
      child.id = r.childId;
      child.branches = 1;
      child.firstPick = 1;
      r.branches = 1;
      all.push_back(child);
    }
    all.push_back(r);
  }
  for (const Request &r : all) {
    std::unique_ptr<KvCache> pool;
    POOT_RETURN_IF_ERROR(makePool(model, pool));
    POOT_RETURN_IF_ERROR(model.clearState());
    Engine engine(model, *pool, nullptr, r.adapter == 1 ? r.version : 1);
    POOT_RETURN_IF_ERROR(engine.serve({r}, alone));
    steps += engine.steps;
  }
  return Status::ok();
}

std::string shapeName(const StepShape &s) {
  return std::to_string(s.rows) + "x" + std::to_string(s.tokens);
}

void report(const Model &model, const KvCache &pool, const Engine &engine,
            const std::vector<Request> &requests,
            const std::map<int, Trace> &traces) {
  for (const Request &r : requests) {
    std::printf("request %d: arrives at step %d, prompt %zu tokens, %zu "
                "sampled",
                r.id, r.arrival, r.prompt.size(),
                traces.at(r.id).generated.size());
    if (r.adapter)
      std::printf(", adapter %s v%d", kAdapterNames[r.adapter], r.version);
    if (r.branches > 1)
      std::printf(", forks request %d (%zu sampled)", r.childId,
                  traces.at(r.childId).generated.size());
    std::printf("\n");
  }
  PoolStats st = pool.stats();
  int32_t bs = pool.config().blockSize;
  std::printf("served %zu requests in %d steps (", requests.size(),
              engine.steps);
  const char *sep = "";
  for (auto [bucket, count] : engine.stepsByBucket) {
    const StepShape &s = model.buckets()[bucket];
    std::printf("%s%d of %s rows x tokens", sep, count, shapeName(s).c_str());
    sep = ", ";
  }
  std::printf("), %d preemptions, %d waits for blocks\n", engine.preemptions,
              engine.waitedForBlocks);
  if (model.hasAdapters())
    std::printf("adapters: tokens computed base %d, a %d, b %d; %d reload of "
                "a (%d steps waited for it), %d forks\n",
                engine.rowsByAdapter.count(0) ? engine.rowsByAdapter.at(0) : 0,
                engine.rowsByAdapter.count(1) ? engine.rowsByAdapter.at(1) : 0,
                engine.rowsByAdapter.count(2) ? engine.rowsByAdapter.at(2) : 0,
                engine.reloads, engine.waitedForReload, engine.forks);
  std::printf("blocks: %d of %d in use at the peak (block size %d), %lld "
              "prefix blocks reused, %lld prefill tokens skipped, %lld "
              "evictions, %lld copies on write\n",
              st.peakUsedBlocks, st.totalBlocks, bs,
              (long long)st.prefixBlocksReused,
              (long long)st.prefillTokensSkipped, (long long)st.evictions,
              (long long)st.copiesOnWrite);
  int64_t slot = model.bytesPerSlot();
  int32_t rows = model.maxRows(), capacity = 0;
  for (const StepShape &s : model.buckets())
    capacity = std::max(capacity, s.capacity);
  std::printf("K/V memory: pool %lld bytes (%lld slots), held at the peak "
              "%lld; a fixed-capacity layout of %d rows x %d positions "
              "needs %lld\n",
              (long long)(model.slots() * slot), (long long)model.slots(),
              (long long)(int64_t(st.peakUsedBlocks) * bs * slot), rows,
              capacity, (long long)(int64_t(rows) * capacity * slot));
}

} // namespace

int main(int argc, char **argv) {
  std::string kind = "cpu";
  std::vector<std::string> plans;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--device=", 0) == 0)
      kind = arg.substr(9);
    else
      plans.push_back(arg);
  }
  if (plans.empty()) {
    std::fprintf(stderr, "usage: %s [--device=KIND] PLAN [PLAN ...]\n",
                 argv[0]);
    return 1;
  }
  Model model;
  if (Status s = model.open(plans, kind); !s.isOk()) {
    std::fprintf(stderr, "error: %s\n", s.toString().c_str());
    return s.code() == ErrorCode::Unsupported ? 77 : 1;
  }
  std::vector<Request> requests =
      makeRequests(model.maxSequenceTokens(), model.hasAdapters());
  auto start = std::chrono::steady_clock::now();
  std::map<int, Trace> alone, served;
  int aloneSteps = 0;
  if (Status s = runAlone(model, requests, alone, aloneSteps); !s.isOk()) {
    std::fprintf(stderr, "error: alone: %s\n", s.toString().c_str());
    return 1;
  }
  double aloneSeconds = secondsSince(start);

  // All together, on one pool, each output checked against its alone run.
  std::unique_ptr<KvCache> pool;
  if (Status s = makePool(model, pool); !s.isOk()) {
    std::fprintf(stderr, "error: %s\n", s.toString().c_str());
    return 1;
  }
  if (Status s = model.clearState(); !s.isOk()) {
    std::fprintf(stderr, "error: %s\n", s.toString().c_str());
    return 1;
  }
  Engine engine(model, *pool, &alone, 1);
  start = std::chrono::steady_clock::now();
  if (Status s = engine.serve(requests, served); !s.isOk()) {
    std::fprintf(stderr, "error: served: %s\n", s.toString().c_str());
    return 1;
  }
  double servedSeconds = secondsSince(start);
  report(model, *pool, engine, requests, served);
  int tokenMismatches = 0;
  for (const auto &[id, trace] : alone)
    tokenMismatches += served[id].generated != trace.generated;
  std::printf("alone: %d steps in %.2f s; together: %d steps in %.2f s\n",
              aloneSteps, aloneSeconds, engine.steps, servedSeconds);
  std::printf("outputs: %lld rows compared, %lld bit-identical to the alone "
              "run, largest difference %.3g\n",
              (long long)engine.compared, (long long)engine.bitIdentical,
              engine.maxDifference);
  Status invariants = pool->checkInvariants();
  bool ok = engine.mismatches == 0 && tokenMismatches == 0 &&
            invariants.isOk() && engine.compared > 0;
  std::printf("%s: %d output mismatches, %d requests sampled other tokens than "
              "alone%s%s\n",
              ok ? "ok" : "FAIL", engine.mismatches, tokenMismatches,
              invariants.isOk() ? "" : ", ",
              invariants.isOk() ? "" : invariants.toString().c_str());
  return ok ? 0 : 1;
}
