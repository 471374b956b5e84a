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
#include "poot/Runtime/PlanFile.h"
#include "poot/Runtime/RandomInputs.h"
#include "poot/Runtime/Serving.h"
#include "poot/Runtime/Steps.h"

#include <chrono>
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

struct Request {
  int id = 0;
  std::vector<TokenId> prompt;
  int maxNew = 0;
  int arrival = 0; ///< the step it arrives at
};

/// What a request produced: its output row at each position it computed,
/// and the tokens it sampled.
struct Trace {
  std::map<int32_t, std::vector<float>> outputs;
  std::vector<TokenId> generated;
};

/// The plan on its device, its weights and K/V pools, and one step.
class Model {
public:
  Status open(const std::string &path, const std::string &kind);
  const StepShape &shape() const { return shape_; }
  int64_t hidden() const { return hidden_; }
  /// K/V bytes of one pool slot, over every layer's K and V pools.
  int64_t bytesPerSlot() const;
  /// Zeroes every pool: a fresh start.
  void clearState();
  Status copyBlocks(const std::vector<BlockCopy> &copies, int32_t blockSize);
  /// Runs `plan`; `rowTokens[r]` are row r's new tokens. `y` gets the
  /// output, [rows * tokens * hidden].
  Status run(const StepPlan &plan,
             const std::vector<std::vector<TokenId>> &rowTokens,
             std::vector<float> &y);
  /// Greedy: the token whose embedding is closest to `y` (tied head).
  TokenId sample(const float *y) const;

private:
  Status bindWeights();
  Plan plan_;
  std::unique_ptr<PlanDevice> device_;
  StepShape shape_;
  int64_t hidden_ = 0;
  TensorMap inputs_, state_;
  std::vector<float> embedding_; ///< [kVocab, hidden]
};

Status Model::open(const std::string &path, const std::string &kind) {
  POOT_RETURN_IF_ERROR(readPlanFile(path, plan_));
  POOT_RETURN_IF_ERROR(stepShapeOf(plan_.graph, shape_));
  POOT_RETURN_IF_ERROR(openDevice(kind, plan_, DeviceOptions(), device_));
  int x = plan_.graph.findInput("x");
  int y = plan_.graph.findOutput("y");
  if (x < 0 || y < 0)
    return Status(ErrorCode::UnknownName,
                  "the plan has no input x or output y");
  const TensorType &xt = plan_.graph.values[plan_.graph.inputs[x].value];
  if (xt.dtype != DType::F32 || xt.shape.size() != 3 ||
      xt.shape[0] != shape_.rows || xt.shape[1] != shape_.tokens)
    return Status(ErrorCode::ShapeMismatch,
                  "x must be f32 [rows, tokens, hidden], got " + xt.toString());
  hidden_ = xt.shape[2];
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  embedding_.resize(size_t(kVocab) * hidden_);
  for (float &e : embedding_)
    e = u(rng);
  return bindWeights();
}

Status Model::bindWeights() {
  const Graph &g = plan_.graph;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const GraphInput &in = g.inputs[i];
    if (!in.state.empty()) {
      POOT_RETURN_IF_ERROR(Tensor::create(g.values[in.value], state_[in.name]));
      continue;
    }
    if (in.slot.empty() && in.name != "x")
      POOT_RETURN_IF_ERROR(randomInput(g, in, 1000 + i, 0, inputs_[in.name]));
  }
  return Status::ok();
}

int64_t Model::bytesPerSlot() const {
  int64_t bytes = 0;
  for (const auto &[name, t] : state_)
    bytes += storageBytes(t.type()) / shape_.slots;
  return bytes;
}

void Model::clearState() {
  for (auto &[name, t] : state_)
    std::fill(t.values().begin(), t.values().end(), 0.0);
}

Status Model::copyBlocks(const std::vector<BlockCopy> &copies,
                         int32_t blockSize) {
  // The host pools hold doubles; a slot is the same share of each.
  for (auto &[name, t] : state_)
    POOT_RETURN_IF_ERROR(applyBlockCopies(copies, blockSize, shape_.slots,
                                          t.values().data(),
                                          t.values().size() * sizeof(double)));
  return Status::ok();
}

Tensor intTensor(const std::vector<int32_t> &values, Shape shape) {
  return Tensor({DType::I32, std::move(shape)},
                std::vector<double>(values.begin(), values.end()));
}

Status Model::run(const StepPlan &plan,
                  const std::vector<std::vector<TokenId>> &rowTokens,
                  std::vector<float> &y) {
  const StepShape &s = shape_;
  Tensor x({DType::F32, {s.rows, s.tokens, hidden_}});
  for (size_t r = 0; r < rowTokens.size(); ++r)
    for (size_t i = 0; i < rowTokens[r].size(); ++i)
      for (int64_t h = 0; h < hidden_; ++h)
        x.at((int64_t(r) * s.tokens + int64_t(i)) * hidden_ + h) =
            embedding_[size_t(rowTokens[r][i]) * hidden_ + h];
  inputs_["x"] = std::move(x);
  for (const GraphInput &in : plan_.graph.inputs) {
    if (in.slot == "pos")
      inputs_[in.name] = intTensor(plan.pos, {s.rows});
    else if (in.slot == "len")
      inputs_[in.name] = intTensor(plan.len, {s.rows});
    else if (in.slot == "write_map")
      inputs_[in.name] = intTensor(plan.writeMap, {int64_t(s.rows) * s.tokens});
    else if (in.slot == "slot_map")
      inputs_[in.name] = intTensor(plan.readMap, {s.rows, s.capacity});
  }
  Bindings b = bindStep(plan_.graph, inputs_, state_);
  TensorMap outputs;
  POOT_RETURN_IF_ERROR(
      evaluate(plan_.graph, b, NumericMode::Native, outputs, device_.get()));
  const Tensor &out = outputs["y"];
  y.assign(out.values().begin(), out.values().end());
  return Status::ok();
}

TokenId Model::sample(const float *y) const {
  TokenId best = 0;
  float bestScore = 0;
  for (TokenId v = 0; v < kVocab; ++v) {
    float score = 0;
    for (int64_t h = 0; h < hidden_; ++h)
      score += y[h] * embedding_[size_t(v) * hidden_ + h];
    if (v == 0 || score > bestScore) {
      best = v;
      bestScore = score;
    }
  }
  return best;
}

/// Continuous batching over one KvCache: admit arrivals while there are
/// rows and blocks, give every running request a row each step (a prefill
/// chunk or one decode token), preempt the newest request when the pool
/// cannot grow, and compare every output with `reference` when given.
class Engine {
public:
  Engine(Model &model, KvCache &pool, const std::map<int, Trace> *reference)
      : model_(model), pool_(pool), reference_(reference) {}
  Status serve(const std::vector<Request> &requests,
               std::map<int, Trace> &traces);
  int steps = 0, preemptions = 0, mismatches = 0, waitedForBlocks = 0;

private:
  struct Running {
    Request request;
    SeqId seq;
  };
  Status admitArrivals(std::map<int, Trace> &traces);
  Status step(std::map<int, Trace> &traces);
  Status finishRow(const Running &row, const float *last, Trace &trace,
                   bool &done);
  Status preemptNewest();
  void compare(int id, int32_t position, const float *y, Trace &trace);

  Model &model_;
  KvCache &pool_;
  const std::map<int, Trace> *reference_;
  std::deque<Request> waiting_;
  std::vector<Running> running_;
  int clock_ = 0;
  SeqId nextSeq_ = 1;
};

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

Status Engine::admitArrivals(std::map<int, Trace> &traces) {
  // First come, first served: a request that does not fit holds back the
  // ones behind it.
  while (!waiting_.empty() && waiting_.front().arrival <= clock_ &&
         int32_t(running_.size()) < model_.shape().rows) {
    Request r = waiting_.front();
    // A preempted request comes back with what it had sampled.
    std::vector<TokenId> prompt = r.prompt;
    const std::vector<TokenId> &sampled = traces[r.id].generated;
    prompt.insert(prompt.end(), sampled.begin(), sampled.end());
    Admission a;
    POOT_RETURN_IF_ERROR(pool_.admit(nextSeq_, pool_.baseWeights(), prompt, a));
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
    const std::map<int32_t, std::vector<float>> &alone =
        reference_->at(id).outputs;
    auto it = alone.find(position);
    if (it == alone.end() ||
        std::memcmp(it->second.data(), row.data(), size_t(h) * 4) != 0) {
      if (++mismatches <= 5)
        std::fprintf(stderr, "MISMATCH request %d position %d\n", id, position);
    }
  }
  trace.outputs[position] = std::move(row);
}

Status Engine::finishRow(const Running &row, const float *last, Trace &trace,
                         bool &done) {
  // Every known token is computed: its last output samples the next one.
  TokenId next = model_.sample(last);
  trace.generated.push_back(next);
  std::vector<TokenId> tokens;
  POOT_RETURN_IF_ERROR(pool_.tokens(row.seq, tokens));
  done = int(trace.generated.size()) >= row.request.maxNew ||
         int32_t(tokens.size()) >= pool_.config().maxSequenceTokens;
  if (done)
    return pool_.finish(row.seq);
  return pool_.append(row.seq, {next});
}

Status Engine::step(std::map<int, Trace> &traces) {
  const StepShape &shape = model_.shape();
  StepPlan plan;
  std::vector<std::vector<TokenId>> rowTokens;
  for (;;) {
    std::vector<StepRow> rows;
    rowTokens.clear();
    for (const Running &r : running_) {
      std::vector<TokenId> tokens;
      int32_t done = 0;
      POOT_RETURN_IF_ERROR(pool_.tokens(r.seq, tokens));
      POOT_RETURN_IF_ERROR(pool_.computed(r.seq, done));
      int32_t count =
          std::min<int32_t>(shape.tokens, int32_t(tokens.size()) - done);
      rows.push_back({r.seq, count});
      rowTokens.emplace_back(tokens.begin() + done,
                             tokens.begin() + done + count);
    }
    POOT_RETURN_IF_ERROR(pool_.prepareStep(shape, rows, plan));
    if (plan.grant == Grant::Granted)
      break;
    if (running_.size() == 1)
      return Status(ErrorCode::Unsupported,
                    "one request alone exhausts the pool");
    POOT_RETURN_IF_ERROR(preemptNewest());
  }
  POOT_RETURN_IF_ERROR(pool_.checkStep(plan));
  POOT_RETURN_IF_ERROR(
      model_.copyBlocks(plan.copies, pool_.config().blockSize));
  std::vector<float> y;
  POOT_RETURN_IF_ERROR(model_.run(plan, rowTokens, y));
  POOT_RETURN_IF_ERROR(pool_.commitStep(plan));
  ++steps;
  std::vector<Running> still;
  for (size_t r = 0; r < running_.size(); ++r) {
    const Running &row = running_[r];
    Trace &trace = traces[row.request.id];
    const float *out = &y[r * shape.tokens * size_t(model_.hidden())];
    for (int32_t i = 0; i < plan.rows[r].tokens; ++i)
      compare(row.request.id, plan.pos[r] + i, out + i * model_.hidden(),
              trace);
    std::vector<TokenId> tokens;
    int32_t done = 0;
    POOT_RETURN_IF_ERROR(pool_.tokens(row.seq, tokens));
    POOT_RETURN_IF_ERROR(pool_.computed(row.seq, done));
    bool finished = false;
    if (done == int32_t(tokens.size()))
      POOT_RETURN_IF_ERROR(
          finishRow(row, out + (plan.rows[r].tokens - 1) * model_.hidden(),
                    trace, finished));
    if (!finished)
      still.push_back(row);
  }
  running_ = std::move(still);
  return Status::ok();
}

/// Requests sharing a system prompt of kSystemTokens tokens, but for one;
/// most arrive once the first has computed the prompt.
std::vector<Request> makeRequests(int32_t maxTokens) {
  std::mt19937 rng(11);
  std::vector<TokenId> system(kSystemTokens);
  for (TokenId &t : system)
    t = TokenId(rng() % kVocab);
  const int arrivals[] = {0, 3, 9, 10, 11, 12, 14, 16, 18, 20, 22, 24};
  std::vector<Request> requests;
  for (int i = 0; i < 12; ++i) {
    Request r;
    r.id = i;
    r.arrival = arrivals[i];
    if (i != 5 && i != 9) // two requests have prompts of their own
      r.prompt = system;
    int user = 3 + int(rng() % 10);
    for (int k = 0; k < user; ++k)
      r.prompt.push_back(TokenId(rng() % kVocab));
    r.maxNew = 4 + int(rng() % 7);
    r.maxNew = std::min<int>(r.maxNew, maxTokens - int(r.prompt.size()));
    requests.push_back(std::move(r));
  }
  return requests;
}

Status makePool(const Model &model, std::unique_ptr<KvCache> &pool) {
  PoolConfig config;
  config.blockSize = kDefaultBlockSize;
  config.numBlocks = int32_t(model.shape().slots / config.blockSize);
  config.maxSequenceTokens = model.shape().maxSequenceTokens();
  return KvCache::create(config, pool);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Each request alone, on a fresh pool and fresh K/V.
Status runAlone(Model &model, const std::vector<Request> &requests,
                std::map<int, Trace> &alone, int &steps) {
  for (Request r : requests) {
    r.arrival = 0;
    std::unique_ptr<KvCache> pool;
    POOT_RETURN_IF_ERROR(makePool(model, pool));
    model.clearState();
    Engine engine(model, *pool, nullptr);
    POOT_RETURN_IF_ERROR(engine.serve({r}, alone));
    steps += engine.steps;
  }
  return Status::ok();
}

void report(const Model &model, const KvCache &pool, const Engine &engine,
            const std::vector<Request> &requests,
            const std::map<int, Trace> &traces) {
  const StepShape &s = model.shape();
  for (const Request &r : requests)
    std::printf("request %d: arrives at step %d, prompt %zu tokens, %zu "
                "sampled\n",
                r.id, r.arrival, r.prompt.size(),
                traces.at(r.id).generated.size());
  PoolStats st = pool.stats();
  int32_t bs = pool.config().blockSize;
  std::printf("served %zu requests in %d steps of %d rows x %d tokens "
              "(capacity %d), %d preemptions, %d waits for blocks\n",
              requests.size(), engine.steps, s.rows, s.tokens, s.capacity,
              engine.preemptions, engine.waitedForBlocks);
  std::printf("blocks: %d of %d in use at the peak (block size %d), %lld "
              "prefix blocks reused, %lld prefill tokens skipped, %lld "
              "evictions, %lld copies\n",
              st.peakUsedBlocks, st.totalBlocks, bs,
              (long long)st.prefixBlocksReused,
              (long long)st.prefillTokensSkipped, (long long)st.evictions,
              (long long)st.copiesOnWrite);
  int64_t slot = model.bytesPerSlot();
  std::printf("K/V memory: pool %lld bytes (%lld slots), held at the peak "
              "%lld; a fixed-capacity layout of %d rows x %d positions "
              "needs %lld\n",
              (long long)(s.slots * slot), (long long)s.slots,
              (long long)(int64_t(st.peakUsedBlocks) * bs * slot), s.rows,
              s.capacity, (long long)(int64_t(s.rows) * s.capacity * slot));
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PLAN [DEVICE]\n", argv[0]);
    return 1;
  }
  std::string kind = argc > 2 ? argv[2] : "cpu";
  Model model;
  if (Status s = model.open(argv[1], kind); !s.isOk()) {
    std::fprintf(stderr, "error: %s\n", s.toString().c_str());
    return s.code() == ErrorCode::Unsupported ? 77 : 1;
  }
  std::vector<Request> requests =
      makeRequests(model.shape().maxSequenceTokens());
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
  model.clearState();
  Engine engine(model, *pool, &alone);
  start = std::chrono::steady_clock::now();
  if (Status s = engine.serve(requests, served); !s.isOk()) {
    std::fprintf(stderr, "error: served: %s\n", s.toString().c_str());
    return 1;
  }
  double servedSeconds = secondsSince(start);
  report(model, *pool, engine, requests, served);
  int tokenMismatches = 0;
  for (const Request &r : requests)
    tokenMismatches += served[r.id].generated != alone[r.id].generated;
  std::printf("alone: %d steps in %.2f s; together: %d steps in %.2f s\n",
              aloneSteps, aloneSeconds, engine.steps, servedSeconds);
  Status invariants = pool->checkInvariants();
  bool ok = engine.mismatches == 0 && tokenMismatches == 0 && invariants.isOk();
  std::printf("%s: %d output mismatches, %d requests sampled other tokens than "
              "alone%s%s\n",
              ok ? "ok" : "FAIL", engine.mismatches, tokenMismatches,
              invariants.isOk() ? "" : ", ",
              invariants.isOk() ? "" : invariants.toString().c_str());
  return ok ? 0 : 1;
}
