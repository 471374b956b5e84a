//===- Models.cpp - Model presets and whole-block builders ----------------===//
//
// Each layer is a pre-norm attention block: RMSNorm, q/k/v projections,
// heads, RoPE, cache write, attention, output projection and the residual
// add. The families differ only in the options they hand the building blocks
// of Tracer.h (softcap, window, ALiBi, split key, sparse indexer), so a
// graph of any family exercises the same decomposition the passes recognise.
//
//===----------------------------------------------------------------------===//

#include "poot/Trace/Models.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;

namespace poot::trace {

using ops::AttentionOptions;

//===----------------------------------------------------------------------===//
// Presets
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> getModelNames() {
  static const StringRef names[] = {
      "llama3-8b",   "llama3-70b",      "gemma2", "mistral",
      "deepseek-v2", "deepseek-sparse", "bloom"};
  return names;
}

/// The run shape every small preset shares.
static void makeSmall(ModelConfig &c) {
  c.layers = 2;
  c.batch = 2;
  c.capacity = 64;
  c.seqLen = 16;
  c.poolSlots = 0;
}

std::optional<ModelConfig> getModelPreset(StringRef name, bool small) {
  ModelConfig c;
  c.name = name.str();
  if (name == "llama3-8b") {
    c.family = Family::Llama;
    c.hidden = 4096, c.numHeads = 32, c.numKvHeads = 8, c.headDim = 128;
    c.layers = 32, c.ropeTheta = 500000.0;
    if (small) {
      makeSmall(c);
      c.hidden = 128, c.numHeads = 4, c.numKvHeads = 2, c.headDim = 32;
    }
    return c;
  }
  if (name == "llama3-70b") {
    c.family = Family::Llama;
    c.hidden = 8192, c.numHeads = 64, c.numKvHeads = 8, c.headDim = 128;
    c.layers = 80, c.ropeTheta = 500000.0;
    if (small) {
      makeSmall(c);
      c.hidden = 256, c.numHeads = 8, c.numKvHeads = 2, c.headDim = 32;
    }
    return c;
  }
  if (name == "gemma2") {
    // gemma2-9b: local (4096-window) and global layers alternate, logits
    // soft-capped at 50, scale 1/sqrt(256) from query_pre_attn_scalar.
    c.family = Family::Llama;
    c.hidden = 3584, c.numHeads = 16, c.numKvHeads = 8, c.headDim = 256;
    c.layers = 42, c.ropeTheta = 10000.0, c.rmsEps = 1e-6;
    c.softcap = 50.0, c.window = 4096, c.windowEveryOther = true;
    c.scale = 1.0 / 16.0;
    if (small) {
      makeSmall(c);
      c.hidden = 128, c.numHeads = 4, c.numKvHeads = 2, c.headDim = 64;
      c.window = 8, c.scale = 0.125;
    }
    return c;
  }
  if (name == "mistral") {
    c.family = Family::Llama;
    c.hidden = 4096, c.numHeads = 32, c.numKvHeads = 8, c.headDim = 128;
    c.layers = 32, c.ropeTheta = 10000.0, c.window = 4096;
    if (small) {
      makeSmall(c);
      c.hidden = 128, c.numHeads = 4, c.numKvHeads = 2, c.headDim = 32;
      c.window = 8;
    }
    return c;
  }
  if (name == "deepseek-v2") {
    c.family = Family::Mla;
    c.hidden = 5120, c.numHeads = 128, c.numKvHeads = 128;
    c.nopeDim = 128, c.ropeDim = 64, c.headDim = 192, c.valueDim = 128;
    c.kvLoraRank = 512, c.layers = 60, c.ropeTheta = 10000.0, c.rmsEps = 1e-6;
    c.ropeStyle = RopeStyle::Interleaved;
    if (small) {
      makeSmall(c);
      c.hidden = 128, c.numHeads = 4, c.numKvHeads = 4;
      c.nopeDim = 32, c.ropeDim = 16, c.headDim = 48, c.valueDim = 32;
      c.kvLoraRank = 64;
    }
    return c;
  }
  if (name == "deepseek-sparse") {
    c.family = Family::Sparse;
    c.hidden = 4096, c.numHeads = 32, c.numKvHeads = 8, c.headDim = 128;
    c.layers = 32, c.ropeTheta = 10000.0;
    c.indexHeads = 4, c.indexDim = 64, c.blockRatio = 64, c.topBlocks = 16;
    if (small) {
      makeSmall(c);
      c.hidden = 128, c.numHeads = 4, c.numKvHeads = 2, c.headDim = 32;
      c.indexHeads = 2, c.indexDim = 16, c.blockRatio = 4, c.topBlocks = 2;
    }
    return c;
  }
  if (name == "bloom") {
    // bloom-7b1: MHA with ALiBi, trained at 2048 positions.
    c.family = Family::Alibi;
    c.hidden = 4096, c.numHeads = 32, c.numKvHeads = 32, c.headDim = 128;
    c.layers = 30, c.capacity = 2048, c.seqLen = 1024;
    if (small) {
      makeSmall(c);
      c.hidden = 128, c.numHeads = 4, c.numKvHeads = 4, c.headDim = 32;
    }
    return c;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

static llvm::Error configError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error validateModelConfig(const ModelConfig &c) {
  auto positive = [](int64_t v) { return v > 0; };
  struct Named {
    const char *name;
    int64_t value;
  };
  for (Named n : {Named{"hidden", c.hidden}, Named{"heads", c.numHeads},
                  Named{"kv-heads", c.numKvHeads}, Named{"layers", c.layers},
                  Named{"batch", c.batch}, Named{"capacity", c.capacity},
                  Named{"seq", c.seqLen}, Named{"tokens", c.decodeTokens}})
    if (!positive(n.value))
      return configError(
          llvm::formatv("expected {0} > 0, got {1}", n.name, n.value));
  if (c.family != Family::Mla && c.headDim <= 0)
    return configError(
        llvm::formatv("expected head-dim > 0, got {0}", c.headDim));
  if (c.valueDim < 0 || c.poolSlots < 0)
    return configError("expected value-dim and pool-slots >= 0");
  if (c.loraAdapters < 0 || (c.loraAdapters > 0 && c.loraRank <= 0))
    return configError(llvm::formatv(
        "expected lora >= 0 and lora-rank > 0, got {0} and {1}",
        c.loraAdapters, c.loraRank));
  if (c.loraAdapters > 0 && c.family == Family::Mla)
    return configError("expected --lora on a family with plain query and "
                       "value projections (not deepseek-v2's latent ones)");
  if (c.numHeads % c.numKvHeads != 0)
    return configError(
        llvm::formatv("expected heads divisible by kv-heads, got {0} and {1}",
                      c.numHeads, c.numKvHeads));
  if (c.window && *c.window <= 0)
    return configError(
        llvm::formatv("expected window > 0, got {0}", *c.window));
  if (c.softcap && *c.softcap <= 0.0)
    return configError(
        llvm::formatv("expected softcap > 0, got {0}", *c.softcap));
  if (c.family != Family::Alibi) {
    int64_t width = c.family == Family::Mla ? c.ropeDim : c.headDim;
    int64_t rotary = c.family == Family::Mla ? c.ropeDim
                     : c.rotaryDim           ? c.rotaryDim
                                             : c.headDim;
    if (rotary <= 0 || rotary % 2 != 0 || rotary > width)
      return configError(llvm::formatv(
          "expected an even rotary width in [2, {0}], got {1}", width, rotary));
  }
  if (c.family == Family::Mla) {
    if (c.nopeDim <= 0 || c.ropeDim <= 0 || c.kvLoraRank <= 0)
      return configError("expected MLA nope-dim, rope-dim and kv-lora-rank "
                         "> 0");
    if (c.numKvHeads != c.numHeads)
      return configError("expected kv-heads == heads for MLA");
  }
  if (c.phase == Phase::Decode && c.decodeTokens > c.capacity)
    return configError(
        llvm::formatv("expected tokens <= capacity, got {0} and {1}",
                      c.decodeTokens, c.capacity));
  if (c.phase == Phase::Prefill && c.seqLen > c.capacity)
    return configError(llvm::formatv(
        "expected the prompt to fit the cache, got seq {0} and capacity {1}",
        c.seqLen, c.capacity));
  if (c.chunked && (c.phase != Phase::Prefill || c.cache != CacheKind::Paged))
    return configError("expected --chunked only with a paged prefill (a "
                       "decode already continues the cache)");
  if (c.live && c.phase != Phase::Decode)
    return configError("expected --live only with decode: every prompt key "
                       "is live in a prefill");
  if (c.family == Family::Sparse) {
    int64_t keyLen =
        c.phase == Phase::Decode || c.chunked ? c.capacity : c.seqLen;
    if (c.indexHeads <= 0 || c.indexDim <= 0 || c.blockRatio <= 0)
      return configError("expected index-heads, index-dim and ratio > 0");
    if (keyLen % c.blockRatio != 0)
      return configError(llvm::formatv(
          "expected the key length {0} to be a multiple of ratio {1}", keyLen,
          c.blockRatio));
    int64_t blocks = keyLen / c.blockRatio;
    if (c.topBlocks <= 0 || c.topBlocks > blocks)
      return configError(llvm::formatv(
          "expected top-blocks in [1, {0}], got {1}", blocks, c.topBlocks));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Model tracing
//===----------------------------------------------------------------------===//

namespace {

/// The state of one model trace: the step's shared inputs and the outputs
/// that are declared after the hidden-state output.
class ModelTrace {
public:
  ModelTrace(Tracer &t, const ModelConfig &c)
      : t(t), c(c), storage(getFloatType(t.getContext(), c.dtype)) {}

  void run();

private:
  int64_t queryLen() const {
    return c.phase == Phase::Decode ? c.decodeTokens : c.seqLen;
  }
  /// Whether the step continues what the cache holds (from `pos`): a
  /// decode, or a chunked prefill.
  bool decode() const { return c.phase == Phase::Decode || c.chunked; }
  bool paged() const { return c.cache == CacheKind::Paged; }

  void declareStepInputs();
  Value queryPositions();
  Value rmsNorm(Value x, StringRef weightName);
  Value project(Value x, StringRef name, int64_t out);
  Value projectAdapted(Value x, StringRef name, int64_t out);
  Value splitHeads(Value x, int64_t heads, int64_t width);
  Value mergeHeads(Value x);
  Value cacheView(StringRef name, Value fresh);
  AttentionOptions optionsFor(int64_t layer) const;
  Value mask(const AttentionOptions &options, int64_t keyLen);
  bool needsMask(const AttentionOptions &options) const;
  Value attend(StringRef prefix, Value q, Value k, Value v, Value mask,
               const AttentionOptions &options);
  Value layerLlama(StringRef prefix, int64_t layer, Value h);
  Value layerMla(StringRef prefix, int64_t layer, Value h);

  Tracer &t;
  const ModelConfig &c;
  Type storage;
  Value pos, writeMap, readMap, len, qpos, cos, sin;
  /// Per row: the adapter bank entry, and 1 where an adapter applies.
  Value adapterEntry, adapterGate;
  std::vector<std::pair<std::string, Value>> stateOutputs;
  std::vector<std::pair<std::string, Value>> witnesses;
  std::map<std::pair<int64_t, int64_t>, Value> masks;
};

} // namespace

void ModelTrace::declareStepInputs() {
  Type i32 = t.i32Type();
  int64_t lq = queryLen();
  if (decode()) {
    // The new tokens occupy pos .. pos + Lq - 1, all inside the capacity.
    DeclaredRange range{0, c.capacity - lq + 1};
    if (paged())
      pos = t.slotInput("pos", "pos", {c.batch}, i32, range);
    else
      pos = t.slotInput("pos", "pos", {}, i32, range);
  }
  if (paged()) {
    writeMap = t.slotInput("write_map", "write_map", {c.batch * lq}, i32,
                           DeclaredRange{-1, c.slots()});
    if (decode())
      readMap = t.slotInput("slot_map", "slot_map", {c.batch, c.capacity}, i32,
                            DeclaredRange{0, c.slots()});
  }
  if (c.loraAdapters > 0) {
    // adapter 0 is the base model: it reads bank entry 0 like adapter 1,
    // and its gate of 0 drops the update.
    Value adapter = t.slotInput("adapter", "adapter", {c.batch}, i32,
                                DeclaredRange{0, c.loraAdapters + 1});
    adapterEntry = t.max(t.sub(adapter, t.splatLike(1.0, adapter)),
                         t.splatLike(0.0, adapter));
    Value gate = t.convert(t.min(adapter, t.splatLike(1.0, adapter)), storage);
    adapterGate = t.reshape(gate, {c.batch, 1, 1});
  }
  if (c.live) {
    // len = pos + Lq, one per batch row.
    Value end = t.add(pos, t.splatLike(static_cast<double>(lq), pos));
    len = t.broadcastTo(end, {c.batch});
  }
  if (c.family != Family::Alibi) {
    int64_t rotary = c.family == Family::Mla ? c.ropeDim
                     : c.rotaryDim           ? c.rotaryDim
                                             : c.headDim;
    std::tie(cos, sin) = ops::ropeTables(t, queryPositions(), rotary,
                                         c.ropeTheta, c.ropeStyle, storage);
  }
}

/// Traced on first use: a model without RoPE whose only mask is inside
/// ops::attentionMasked never needs it.
Value ModelTrace::queryPositions() {
  if (!qpos)
    qpos = decode() ? ops::queryPositionsFrom(t, pos, queryLen())
                    : ops::queryPositionsFromZero(t, queryLen());
  return qpos;
}

Value ModelTrace::rmsNorm(Value x, StringRef weightName) {
  Value w = t.input(weightName, {c.hidden}, storage);
  // Mean of squares in f32: f16 squares overflow past 256.
  Value xf = t.convertIfNeeded(x, t.f32Type());
  Value ms = t.mulScalar(t.reduceSum(t.mul(xf, xf), -1, /*keepdim=*/true),
                         1.0 / static_cast<double>(c.hidden));
  Value inv = t.rsqrt(t.addScalar(ms, c.rmsEps));
  Value y = t.convertIfNeeded(t.mul(xf, inv), storage);
  return t.mul(y, w);
}

Value ModelTrace::project(Value x, StringRef name, int64_t out) {
  int64_t in = Tracer::shapeOf(x).back();
  return t.matmul(x, t.input(name, {in, out}, storage));
}

Value ModelTrace::projectAdapted(Value x, StringRef name, int64_t out) {
  Value y = project(x, name, out);
  if (c.loraAdapters == 0)
    return y;
  // y + gate * (x A) B with each row's own A [in, r] and B [r, out],
  // gathered from the banks: one batched product per row, whatever mix of
  // adapters the step's rows run.
  ArrayRef<int64_t> s = Tracer::shapeOf(x);
  int64_t in = s.back(), r = c.loraRank;
  Value a = t.gather(
      t.input((name + ".lora_a").str(), {c.loraAdapters, in, r}, storage),
      adapterEntry, /*axis=*/0);
  Value b = t.gather(
      t.input((name + ".lora_b").str(), {c.loraAdapters, r, out}, storage),
      adapterEntry, /*axis=*/0);
  Value update = t.matmul(t.matmul(x, a), b);
  return t.add(y, t.mul(update, t.broadcastTo(adapterGate, {s[0], s[1], out})));
}

Value ModelTrace::splitHeads(Value x, int64_t heads, int64_t width) {
  ArrayRef<int64_t> s = Tracer::shapeOf(x);
  Value y = t.reshape(x, {s[0], s[1], heads, width});
  return t.transpose(y, {0, 2, 1, 3});
}

Value ModelTrace::mergeHeads(Value x) {
  ArrayRef<int64_t> s = Tracer::shapeOf(x);
  Value y = t.transpose(x, {0, 2, 1, 3});
  return t.reshape(y, {s[0], s[2], s[1] * s[3]});
}

Value ModelTrace::cacheView(StringRef name, Value fresh) {
  ArrayRef<int64_t> s = Tracer::shapeOf(fresh);
  int64_t heads = s[1], width = s[3];
  Value updated, view;
  if (paged()) {
    Value pool = t.stateInput(name, {c.slots(), heads, width}, storage);
    updated = ops::pagedWrite(t, pool, ops::tokenRows(t, fresh), writeMap);
    view = decode() ? ops::pagedRead(t, updated, readMap) : fresh;
  } else {
    Value cache =
        t.stateInput(name, {c.batch, heads, c.capacity, width}, storage);
    // A prefill fills the cache from position 0.
    Value zero = t.scalar(0.0, t.i32Type());
    Value at = decode() ? pos : zero;
    updated = t.dynamicUpdateSlice(cache, fresh, {zero, zero, at, zero});
    view = decode() ? updated : fresh;
  }
  stateOutputs.emplace_back(name.str(), updated);
  return view;
}

AttentionOptions ModelTrace::optionsFor(int64_t layer) const {
  AttentionOptions o;
  o.scale = c.scale;
  o.softcap = c.softcap;
  if (c.window && (!c.windowEveryOther || layer % 2 == 0))
    o.window = c.window;
  o.alibi = c.family == Family::Alibi;
  return o;
}

Value ModelTrace::mask(const AttentionOptions &options, int64_t keyLen) {
  // Layers with the same window share one mask, as a tracer that caches it
  // per step would emit.
  auto key = std::make_pair(options.window.value_or(0), keyLen);
  auto it = masks.find(key);
  if (it != masks.end())
    return it->second;
  Value m = ops::attentionMask(t, queryPositions(), c.batch, c.numHeads, keyLen,
                               options, storage);
  masks[key] = m;
  return m;
}

bool ModelTrace::needsMask(const AttentionOptions &options) const {
  // With one new token and no window or bias the live bound is the whole
  // causal mask; otherwise the mask still hides what the length does not.
  return !c.live || queryLen() > 1 || options.window || options.alibi;
}

Value ModelTrace::attend(StringRef prefix, Value q, Value k, Value v,
                         Value maskValue, const AttentionOptions &options) {
  if (!c.live)
    return ops::attentionCore(t, q, k, v, maskValue, options);
  auto live = ops::attentionLive(t, q, k, v, len, maskValue, options);
  witnesses.emplace_back((prefix + ".len_ok").str(), live.witness);
  return live.out;
}

Value ModelTrace::layerLlama(StringRef prefix, int64_t layer, Value h) {
  int64_t d = c.headDim, rotary = c.rotaryDim ? c.rotaryDim : c.headDim;
  auto name = [&](StringRef leaf) { return (prefix + "." + leaf).str(); };
  Value q = splitHeads(projectAdapted(h, name("wq"), c.numHeads * d),
                       c.numHeads, d);
  Value k =
      splitHeads(project(h, name("wk"), c.numKvHeads * d), c.numKvHeads, d);
  Value v = splitHeads(
      projectAdapted(h, name("wv"), c.numKvHeads * c.valueWidth()),
      c.numKvHeads, c.valueWidth());
  if (c.family != Family::Alibi) {
    q = ops::rope(t, q, cos, sin, c.ropeStyle, rotary);
    k = ops::rope(t, k, cos, sin, c.ropeStyle, rotary);
  }
  AttentionOptions options = optionsFor(layer);

  // Indexer keys are cached next to K and V, so they are traced first.
  Value sparseMask;
  if (c.family == Family::Sparse) {
    Value iq = splitHeads(project(h, name("wiq"), c.indexHeads * c.indexDim),
                          c.indexHeads, c.indexDim);
    Value ik = splitHeads(project(h, name("wik"), c.indexDim), 1, c.indexDim);
    Value ikView = cacheView(name("index_cache"), ik);
    sparseMask = ops::sparseBlockMask(t, iq, ikView, queryPositions(),
                                      c.blockRatio, c.topBlocks, storage);
  }

  Value out;
  if (decode() && !paged() && !c.live && !sparseMask) {
    // The seed's ops::attention_masked: both writes, then attention over
    // the capacity with the causal mask from pos.
    Value kc = t.stateInput(name("k_cache"),
                            {c.batch, c.numKvHeads, c.capacity, d}, storage);
    Value vc = t.stateInput(name("v_cache"),
                            {c.batch, c.numKvHeads, c.capacity, c.valueWidth()},
                            storage);
    auto r = ops::attentionMasked(t, q, k, v, kc, vc, pos, options,
                                  queryPositions());
    stateOutputs.emplace_back(name("k_cache"), r.kCache);
    stateOutputs.emplace_back(name("v_cache"), r.vCache);
    out = r.out;
  } else {
    StringRef kName = paged() ? "k_pool" : "k_cache";
    StringRef vName = paged() ? "v_pool" : "v_cache";
    Value kView = cacheView(name(kName), k);
    Value vView = cacheView(name(vName), v);
    int64_t keyLen = Tracer::shapeOf(kView)[2];
    Value m = sparseMask;
    if (!m && needsMask(options))
      m = mask(options, keyLen);
    out = attend(prefix, q, kView, vView, m, options);
  }
  return project(mergeHeads(out), name("wo"), c.hidden);
}

Value ModelTrace::layerMla(StringRef prefix, int64_t layer, Value h) {
  int64_t heads = c.numHeads, dn = c.nopeDim, dr = c.ropeDim;
  int64_t dv = c.valueWidth(), rank = c.kvLoraRank, lq = queryLen();
  auto name = [&](StringRef leaf) { return (prefix + "." + leaf).str(); };

  // q = [q_nope | rope(q_pe)] per head.
  Value q =
      splitHeads(project(h, name("wq"), heads * (dn + dr)), heads, dn + dr);
  ArrayRef<int64_t> qs = Tracer::shapeOf(q);
  Value qNope = t.slice(q, {0, 0, 0, 0}, {qs[0], qs[1], qs[2], dn});
  Value qPe = t.slice(q, {0, 0, 0, dn}, {qs[0], qs[1], qs[2], dn + dr});
  qPe = ops::rope(t, qPe, cos, sin, c.ropeStyle, dr);
  q = t.concat({qNope, qPe}, 3);

  // The cache holds the latent and the one shared rotary key per token;
  // per-head keys and values are re-expanded from the latent every step.
  Value latent =
      t.reshape(project(h, name("wdkv"), rank), {c.batch, 1, lq, rank});
  Value kPe = splitHeads(project(h, name("wkr"), dr), 1, dr);
  kPe = ops::rope(t, kPe, cos, sin, c.ropeStyle, dr);
  Value latentView = cacheView(name("latent_cache"), latent);
  Value peView = cacheView(name("rope_cache"), kPe);
  int64_t keyLen = Tracer::shapeOf(latentView)[2];
  latentView = t.reshape(latentView, {c.batch, keyLen, rank});

  Value kNope =
      splitHeads(project(latentView, name("wuk"), heads * dn), heads, dn);
  Value v = splitHeads(project(latentView, name("wuv"), heads * dv), heads, dv);
  Value k = ops::splitKey(t, kNope, peView);
  AttentionOptions options = optionsFor(layer);
  Value m = needsMask(options) ? mask(options, keyLen) : Value();
  Value out = attend(prefix, q, k, v, m, options);
  return project(mergeHeads(out), name("wo"), c.hidden);
}

void ModelTrace::run() {
  Value x = t.input("x", {c.batch, queryLen(), c.hidden}, storage);
  declareStepInputs();
  for (int64_t l = 0; l < c.layers; ++l) {
    std::string prefix = llvm::formatv("l{0}", l).str();
    t.setScope(prefix);
    Value h = rmsNorm(x, prefix + ".attn_norm");
    Value a = c.family == Family::Mla ? layerMla(prefix, l, h)
                                      : layerLlama(prefix, l, h);
    x = t.add(x, a);
  }
  t.output("y", x);
  for (auto &[name, value] : stateOutputs)
    t.stateOutput(name, value);
  for (auto &[name, value] : witnesses)
    t.validationOutput(name, value);
}

/// A symbol name for the graph of `config`: llama3_8b_decode_paged.
static std::string graphName(const ModelConfig &c) {
  std::string base = c.name;
  for (char &ch : base)
    if (!llvm::isAlnum(ch))
      ch = '_';
  base += c.phase == Phase::Decode ? "_decode" : "_prefill";
  base += c.cache == CacheKind::Paged ? "_paged" : "_fixed";
  if (c.chunked)
    base += "_chunk";
  if (c.live)
    base += "_live";
  return base;
}

llvm::Expected<OwningOpRef<ModuleOp>> buildModel(MLIRContext &ctx,
                                                 const ModelConfig &config) {
  if (llvm::Error err = validateModelConfig(config))
    return std::move(err);
  Tracer t(ctx, graphName(config));
  ModelTrace(t, config).run();
  OwningOpRef<ModuleOp> module = t.finish();
  if (!module)
    return configError("the traced graph failed to verify");
  return std::move(module);
}

//===----------------------------------------------------------------------===//
// One-block graphs
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> getBlockNames() {
  static const StringRef names[] = {"attention_masked",
                                    "attention_prefill",
                                    "attention_live",
                                    "rope",
                                    "paged",
                                    "mla",
                                    "sparse"};
  return names;
}

ModelConfig getBlockDefaults() {
  ModelConfig c;
  c.name = "block";
  c.hidden = 64;
  c.numHeads = 4, c.numKvHeads = 2, c.headDim = 16;
  c.layers = 1, c.batch = 1, c.capacity = 32, c.seqLen = 8;
  c.ropeTheta = 10000.0;
  c.nopeDim = 16, c.ropeDim = 8, c.kvLoraRank = 32;
  c.indexHeads = 2, c.indexDim = 8, c.blockRatio = 4, c.topBlocks = 2;
  c.poolSlots = 64;
  return c;
}

namespace {

/// Traces one building block with its operands as graph inputs.
class BlockTrace {
public:
  BlockTrace(Tracer &t, const ModelConfig &c)
      : t(t), c(c), storage(getFloatType(t.getContext(), c.dtype)) {}

  void attentionMasked();
  void attentionPrefill();
  void attentionLive();
  void rope();
  void paged();
  void mla();
  void sparse();

private:
  AttentionOptions options() const {
    AttentionOptions o;
    o.scale = c.scale;
    o.softcap = c.softcap;
    o.window = c.window;
    return o;
  }
  Value heads(StringRef name, int64_t h, int64_t len, int64_t width) {
    return t.input(name, {c.batch, h, len, width}, storage);
  }
  Value posInput() {
    return t.slotInput("pos", "pos", {}, t.i32Type(),
                       DeclaredRange{0, c.capacity - c.decodeTokens + 1});
  }

  Tracer &t;
  const ModelConfig &c;
  Type storage;
};

} // namespace

void BlockTrace::attentionMasked() {
  int64_t lq = c.decodeTokens, d = c.headDim, dv = c.valueWidth();
  Value q = heads("q", c.numHeads, lq, d);
  Value k = heads("k", c.numKvHeads, lq, d);
  Value v = heads("v", c.numKvHeads, lq, dv);
  Value kc =
      t.stateInput("k_cache", {c.batch, c.numKvHeads, c.capacity, d}, storage);
  Value vc =
      t.stateInput("v_cache", {c.batch, c.numKvHeads, c.capacity, dv}, storage);
  Value pos = posInput();
  AttentionOptions o = options();
  o.alibi = c.family == Family::Alibi;
  auto r = ops::attentionMasked(t, q, k, v, kc, vc, pos, o);
  t.output("out", r.out);
  t.stateOutput("k_cache", r.kCache);
  t.stateOutput("v_cache", r.vCache);
}

void BlockTrace::attentionPrefill() {
  int64_t l = c.seqLen;
  Value q = heads("q", c.numHeads, l, c.headDim);
  Value k = heads("k", c.numKvHeads, l, c.headDim);
  Value v = heads("v", c.numKvHeads, l, c.valueWidth());
  AttentionOptions o = options();
  o.alibi = c.family == Family::Alibi;
  t.output("out", ops::attentionPrefill(t, q, k, v, o));
}

void BlockTrace::attentionLive() {
  Value q = heads("q", c.numHeads, c.decodeTokens, c.headDim);
  Value k = heads("k", c.numKvHeads, c.capacity, c.headDim);
  Value v = heads("v", c.numKvHeads, c.capacity, c.valueWidth());
  // No declared range: the guard's witness is what bounds the length.
  Value len = t.slotInput("len", "len", {c.batch}, t.i32Type());
  auto r = ops::attentionLive(t, q, k, v, len, Value(), options());
  t.output("out", r.out);
  t.validationOutput("len_ok", r.witness);
}

void BlockTrace::rope() {
  int64_t lq = c.seqLen, rotary = c.rotaryDim ? c.rotaryDim : c.headDim;
  Value x = heads("x", c.numHeads, lq, c.headDim);
  Value pos = t.slotInput("pos", "pos", {}, t.i32Type(),
                          DeclaredRange{0, c.capacity - lq + 1});
  Value qpos = ops::queryPositionsFrom(t, pos, lq);
  auto [cos, sin] =
      ops::ropeTables(t, qpos, rotary, c.ropeTheta, c.ropeStyle, storage);
  t.output("out", ops::rope(t, x, cos, sin, c.ropeStyle, rotary));
}

void BlockTrace::paged() {
  int64_t lq = c.decodeTokens, d = c.headDim, dv = c.valueWidth();
  Value q = heads("q", c.numHeads, lq, d);
  Value k = heads("k", c.numKvHeads, lq, d);
  Value v = heads("v", c.numKvHeads, lq, dv);
  Value kPool = t.stateInput("k_pool", {c.slots(), c.numKvHeads, d}, storage);
  Value vPool = t.stateInput("v_pool", {c.slots(), c.numKvHeads, dv}, storage);
  Value pos = t.slotInput("pos", "pos", {c.batch}, t.i32Type(),
                          DeclaredRange{0, c.capacity - lq + 1});
  Value write = t.slotInput("write_map", "write_map", {c.batch * lq},
                            t.i32Type(), DeclaredRange{-1, c.slots()});
  Value read = t.slotInput("slot_map", "slot_map", {c.batch, c.capacity},
                           t.i32Type(), DeclaredRange{0, c.slots()});
  Value kNew = ops::pagedWrite(t, kPool, ops::tokenRows(t, k), write);
  Value vNew = ops::pagedWrite(t, vPool, ops::tokenRows(t, v), write);
  Value kView = ops::pagedRead(t, kNew, read);
  Value vView = ops::pagedRead(t, vNew, read);
  AttentionOptions o = options();
  Value qpos = ops::queryPositionsFrom(t, pos, lq);
  Value mask =
      ops::attentionMask(t, qpos, c.batch, c.numHeads, c.capacity, o, storage);
  t.output("out", ops::attentionCore(t, q, kView, vView, mask, o));
  t.stateOutput("k_pool", kNew);
  t.stateOutput("v_pool", vNew);
}

void BlockTrace::mla() {
  int64_t l = c.seqLen, dv = c.valueDim ? c.valueDim : c.nopeDim;
  Value q = heads("q", c.numHeads, l, c.nopeDim + c.ropeDim);
  Value kNope = heads("k_nope", c.numHeads, l, c.nopeDim);
  Value kPe = heads("k_pe", 1, l, c.ropeDim);
  Value v = heads("v", c.numHeads, l, dv);
  Value k = ops::splitKey(t, kNope, kPe);
  t.output("out", ops::attentionPrefill(t, q, k, v, options()));
}

void BlockTrace::sparse() {
  int64_t lq = c.decodeTokens;
  Value q = heads("q", c.numHeads, lq, c.headDim);
  Value k = heads("k", c.numKvHeads, c.capacity, c.headDim);
  Value v = heads("v", c.numKvHeads, c.capacity, c.valueWidth());
  Value iq = heads("index_q", c.indexHeads, lq, c.indexDim);
  Value ik = heads("index_k", 1, c.capacity, c.indexDim);
  Value pos = posInput();
  Value qpos = ops::queryPositionsFrom(t, pos, lq);
  Value mask =
      ops::sparseBlockMask(t, iq, ik, qpos, c.blockRatio, c.topBlocks, storage);
  t.output("out", ops::attentionCore(t, q, k, v, mask, options()));
}

/// Checks the sizes one block needs.
static llvm::Error validateBlock(StringRef block, const ModelConfig &c) {
  for (int64_t v : {c.batch, c.numHeads, c.numKvHeads, c.headDim, c.capacity,
                    c.seqLen, c.decodeTokens})
    if (v <= 0)
      return configError("expected every size > 0");
  if (c.numHeads % c.numKvHeads != 0)
    return configError(
        llvm::formatv("expected heads divisible by kv-heads, got {0} and {1}",
                      c.numHeads, c.numKvHeads));
  if (c.decodeTokens > c.capacity)
    return configError("expected tokens <= capacity");
  if (block == "rope") {
    int64_t rotary = c.rotaryDim ? c.rotaryDim : c.headDim;
    if (rotary % 2 != 0 || rotary > c.headDim)
      return configError(llvm::formatv(
          "expected an even rotary width <= {0}, got {1}", c.headDim, rotary));
    if (c.seqLen > c.capacity)
      return configError("expected seq <= capacity");
  }
  if (block == "mla" && (c.nopeDim <= 0 || c.ropeDim <= 0))
    return configError("expected nope-dim and rope-dim > 0");
  if (block == "sparse") {
    if (c.blockRatio <= 0 || c.capacity % c.blockRatio != 0)
      return configError(
          llvm::formatv("expected capacity {0} to be a multiple of ratio {1}",
                        c.capacity, c.blockRatio));
    if (c.topBlocks <= 0 || c.topBlocks > c.capacity / c.blockRatio)
      return configError(llvm::formatv("expected top-blocks in [1, {0}]",
                                       c.capacity / c.blockRatio));
    if (c.indexHeads <= 0 || c.indexDim <= 0)
      return configError("expected index-heads and index-dim > 0");
  }
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>>
buildBlock(MLIRContext &ctx, StringRef block, const ModelConfig &config) {
  if (!llvm::is_contained(getBlockNames(), block))
    return configError(llvm::formatv("unknown block '{0}'", block));
  if (llvm::Error err = validateBlock(block, config))
    return std::move(err);
  Tracer t(ctx, block);
  BlockTrace b(t, config);
  if (block == "attention_masked")
    b.attentionMasked();
  else if (block == "attention_prefill")
    b.attentionPrefill();
  else if (block == "attention_live")
    b.attentionLive();
  else if (block == "rope")
    b.rope();
  else if (block == "paged")
    b.paged();
  else if (block == "mla")
    b.mla();
  else
    b.sparse();
  OwningOpRef<ModuleOp> module = t.finish();
  if (!module)
    return configError("the traced graph failed to verify");
  return std::move(module);
}

} // namespace poot::trace
