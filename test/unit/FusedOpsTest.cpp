//===- FusedOpsTest.cpp - Tests of the fused ops in the evaluator ---------===//
//
// The fused ops (poot.rope, poot.attention) must mean exactly what the chain
// of primitives they replace means. Each case draws seeded random inputs
// (never all zero), evaluates one fused eqn and the equivalent hand-built
// primitive chain as whole graphs, and compares: within 1e-12 in reference
// mode and 1e-5 in native f32. Every optional feature is also checked to
// change the result, so a kernel that ignored it could not pass. A few small
// cases are worked by hand, and malformed records must fail with typed
// errors.
//
//===----------------------------------------------------------------------===//

#include "HandGraph.h"
#include "poot/Runtime/Check.h"
#include "poot/Runtime/Evaluator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>

using namespace poot::rt;
using namespace poot::rt::handgraph;

namespace {

Attrs axisKeep(int64_t axis) {
  return {{"axis", Attr::ofInt(axis)}, {"keepdim", Attr::ofInt(1)}};
}

/// The largest |a - b| over elements where neither is NaN.
double maxDiff(const Tensor &a, const Tensor &b) {
  double d = 0.0;
  for (int64_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (!std::isnan(a.at(i)) && !std::isnan(b.at(i)))
      d = std::max(d, std::fabs(a.at(i) - b.at(i)));
  return d;
}

/// True when every value is one `dtype` can hold.
bool representable(const Tensor &t, DType dtype) {
  for (double v : t.values())
    if (!std::isnan(v) && roundTo(dtype, v) != v)
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// attention: the case, its inputs, and the two graphs
//===----------------------------------------------------------------------===//

struct AttnCase {
  DType dtype = DType::F32;
  int64_t B = 2, Hq = 4, Hkv = 4, Lq = 3, Lk = 7, Dk = 16, Dv = 16;
  int64_t shared = 0; ///< split key: channels in k_shared
  int64_t pool = 0;   ///< paged: pool slots (0: dense)
  double scale = 0.0; ///< 0: 1/sqrt(Dk)
  double softcap = 0.0;
  int64_t maskB = 0, maskH = 0; ///< additive mask dims (0: no mask)
  bool causal = false;
  int64_t window = 0;
  bool alibi = false;
  std::vector<int64_t> len; ///< live length per row (empty: none)
  std::optional<int64_t> pos;
  bool plantNaN = false; ///< NaN in every key/value row past len
  uint64_t seed = 1;

  double scaleValue() const {
    return scale != 0.0 ? scale : 1.0 / std::sqrt(static_cast<double>(Dk));
  }
  std::vector<double> slopes() const {
    std::vector<double> s;
    for (int64_t h = 0; h < Hq; ++h)
      s.push_back(std::pow(2.0, -8.0 * (h + 1) / Hq) * (h % 2 ? -1.0 : 3.0));
    return s;
  }
};

struct AttnInputs {
  Tensor q, k, ks, v, read, mask, len, pos;
};

AttnInputs makeInputs(const AttnCase &c) {
  std::mt19937_64 rng(c.seed);
  AttnInputs in;
  DType dt = c.dtype;
  in.q = randomTensor(rng, dt, {c.B, c.Hq, c.Lq, c.Dk});
  if (c.pool) {
    in.k = randomTensor(rng, dt, {c.pool, c.Hkv, c.Dk});
    in.v = randomTensor(rng, dt, {c.pool, c.Hkv, c.Dv});
    // Distinct slots in shuffled order: logical key t of row b is nowhere
    // near slot b * Lk + t.
    std::vector<double> slots(c.pool);
    std::iota(slots.begin(), slots.end(), 0.0);
    std::shuffle(slots.begin(), slots.end(), rng);
    slots.resize(c.B * c.Lk);
    in.read = Tensor(TT(DType::I32, {c.B, c.Lk}), slots);
  } else {
    in.k = randomTensor(rng, dt, {c.B, c.Hkv, c.Lk, c.Dk - c.shared});
    in.v = randomTensor(rng, dt, {c.B, c.Hkv, c.Lk, c.Dv});
    if (c.shared)
      in.ks = randomTensor(rng, dt, {c.B, 1, c.Lk, c.shared});
  }
  if (c.maskB)
    in.mask = randomTensor(rng, dt, {c.maskB, c.maskH, c.Lq, c.Lk});
  if (!c.len.empty()) {
    std::vector<double> lens(c.len.begin(), c.len.end());
    in.len = Tensor(TT(DType::I32, {c.B}), lens);
  }
  if (c.pos)
    in.pos = Tensor(TT(DType::I32, {}), {static_cast<double>(*c.pos)});
  if (c.plantNaN) {
    // Garbage in the keys no row visits: it must not reach any result.
    for (int64_t b = 0; b < c.B; ++b)
      for (int64_t t = c.len.at(b); t < c.Lk; ++t)
        for (int64_t g = 0; g < c.Hkv; ++g) {
          if (c.pool) {
            int64_t slot = static_cast<int64_t>(in.read.at(b * c.Lk + t));
            for (int64_t d = 0; d < c.Dk; ++d)
              in.k.at((slot * c.Hkv + g) * c.Dk + d) = kNaN;
            for (int64_t d = 0; d < c.Dv; ++d)
              in.v.at((slot * c.Hkv + g) * c.Dv + d) = kNaN;
          } else {
            int64_t kd = c.Dk - c.shared;
            for (int64_t d = 0; d < kd; ++d)
              in.k.at(((b * c.Hkv + g) * c.Lk + t) * kd + d) = kNaN;
            for (int64_t d = 0; d < c.Dv; ++d)
              in.v.at(((b * c.Hkv + g) * c.Lk + t) * c.Dv + d) = kNaN;
          }
        }
  }
  return in;
}

struct AttnIds {
  int q = -1, k = -1, ks = -1, v = -1, read = -1, mask = -1, len = -1, pos = -1;
};

/// Declares the present inputs in one fixed order so both graphs bind the
/// same tensors by name.
AttnIds declareInputs(GraphBuilder &b, const AttnCase &c,
                      const AttnInputs &in) {
  AttnIds id;
  id.q = b.input("q", in.q.type());
  id.k = b.input("k", in.k.type());
  if (c.shared)
    id.ks = b.input("k_shared", in.ks.type());
  id.v = b.input("v", in.v.type());
  if (c.pool)
    id.read = b.input("read", in.read.type());
  if (c.maskB)
    id.mask = b.input("mask", in.mask.type());
  if (!c.len.empty())
    id.len = b.input("len", in.len.type());
  if (c.pos)
    id.pos = b.input("pos", in.pos.type());
  return id;
}

Bindings bindInputs(const AttnInputs &in) {
  Bindings bindings;
  auto bind = [&](const char *name, const Tensor &t) {
    if (t.rank() > 0 || t.size() > 0)
      bindings.inputs[name] = &t;
  };
  bind("q", in.q);
  bind("k", in.k);
  bind("k_shared", in.ks);
  bind("v", in.v);
  bind("read", in.read);
  bind("mask", in.mask);
  bind("len", in.len);
  bind("pos", in.pos);
  return bindings;
}

/// The attribute dictionary of the fused eqn, as GraphRecords writes it.
Attrs attentionAttrs(const AttnCase &c) {
  Attrs a;
  a["operandSegmentSizes"] =
      Attr::ofInts({1, 1, c.shared ? 1 : 0, 1, c.pool ? 1 : 0, c.maskB ? 1 : 0,
                    c.len.empty() ? 0 : 1, c.pos ? 1 : 0});
  a["scale"] = Attr::ofFloat(c.scaleValue());
  a["n_rep"] = Attr::ofInt(c.Hq / c.Hkv);
  if (c.softcap != 0.0)
    a["softcap"] = Attr::ofFloat(c.softcap);
  if (c.causal)
    a["causal"] = Attr::ofInt(1);
  if (c.window)
    a["window"] = Attr::ofInt(c.window);
  if (c.alibi)
    a["alibi_slopes"] = Attr::ofFloats(c.slopes());
  return a;
}

Graph fusedGraph(const AttnCase &c, const AttnInputs &in) {
  GraphBuilder b;
  AttnIds id = declareInputs(b, c, in);
  std::vector<int> operands = {id.q, id.k};
  for (int extra : {id.ks, id.v, id.read, id.mask, id.len, id.pos})
    if (extra >= 0)
      operands.push_back(extra);
  int out = b.eqn("attention", operands, TT(c.dtype, {c.B, c.Hq, c.Lq, c.Dv}),
                  attentionAttrs(c));
  b.output("out", out);
  return b.g;
}

/// The primitive chain the fused op stands for, spelled op by op.
Graph chainGraph(const AttnCase &c, const AttnInputs &in) {
  GraphBuilder b;
  AttnIds id = declareInputs(b, c, in);
  DType dt = c.dtype;
  int64_t B = c.B, Hq = c.Hq, Hkv = c.Hkv, Lq = c.Lq, Lk = c.Lk, Dk = c.Dk,
          Dv = c.Dv, nRep = c.Hq / c.Hkv;

  int k = id.k, v = id.v;
  if (c.pool) {
    // Paged: gather the rows the read map names, then heads before keys.
    Attrs axis0 = {{"axis", Attr::ofInt(0)}};
    Attrs swap = {{"perm", Attr::ofInts({0, 2, 1, 3})}};
    k = b.eqn("gather", {id.k, id.read}, TT(dt, {B, Lk, Hkv, Dk}), axis0);
    k = b.eqn("transpose", {k}, TT(dt, {B, Hkv, Lk, Dk}), swap);
    v = b.eqn("gather", {id.v, id.read}, TT(dt, {B, Lk, Hkv, Dv}), axis0);
    v = b.eqn("transpose", {v}, TT(dt, {B, Hkv, Lk, Dv}), swap);
  } else if (c.shared) {
    // Split: the shared part is read by every key head.
    int ks = b.eqn("broadcast", {id.ks}, TT(dt, {B, Hkv, Lk, c.shared}),
                   {{"shape", Attr::ofInts({B, Hkv, Lk, c.shared})}});
    k = b.eqn("concat", {k, ks}, TT(dt, {B, Hkv, Lk, Dk}),
              {{"axis", Attr::ofInt(3)}});
  }

  int lenRow = -1;
  if (id.len >= 0) {
    // Keys past len are zeroed in v (0 * garbage would still be garbage).
    lenRow = b.eqn("reshape", {id.len}, TT(DType::I32, {B, 1, 1, 1}));
    int keyIdx = b.eqn("iota", {}, TT(DType::I32, {1, 1, Lk, 1}),
                       {{"dim", Attr::ofInt(2)}});
    int live = b.eqn("compare", {keyIdx, lenRow}, TT(DType::I1, {B, 1, Lk, 1}),
                     {{"predicate", Attr::ofString("lt")}});
    int zero = b.constant(dt, {}, {0.0});
    v = b.eqn("select", {live, v, zero}, TT(dt, {B, Hkv, Lk, Dv}));
  }

  auto repeatKv = [&](int x, int64_t d) {
    if (nRep == 1)
      return x;
    Shape wide = {B, Hkv, nRep, Lk, d};
    x = b.eqn("reshape", {x}, TT(dt, {B, Hkv, 1, Lk, d}));
    x = b.eqn("broadcast", {x}, TT(dt, wide), {{"shape", Attr::ofInts(wide)}});
    return b.eqn("reshape", {x}, TT(dt, {B, Hq, Lk, d}));
  };
  k = repeatKv(k, Dk);
  v = repeatKv(v, Dv);

  TensorType scoreType = TT(dt, {B, Hq, Lq, Lk});
  int kT = b.eqn("transpose", {k}, TT(dt, {B, Hq, Dk, Lk}),
                 {{"perm", Attr::ofInts({0, 1, 3, 2})}});
  int s = b.eqn("matmul", {id.q, kT}, scoreType);
  s = b.eqn("mul", {s, b.constant(dt, {}, {c.scaleValue()})}, scoreType);
  if (c.softcap != 0.0) {
    int cap = b.constant(dt, {}, {c.softcap});
    int t = b.eqn("div", {s, cap}, scoreType);
    t = b.eqn("tanh", {t}, scoreType);
    s = b.eqn("mul", {cap, t}, scoreType);
  }
  if (id.mask >= 0)
    s = b.eqn("add", {s, id.mask}, scoreType);

  int negInf = b.constant(dt, {}, {-kInf});
  if (c.causal || c.window || c.alibi) {
    TensorType grid = TT(DType::I32, {Lq, Lk});
    int keyPos = b.eqn("iota", {}, grid, {{"dim", Attr::ofInt(1)}});
    int qpos = b.eqn("iota", {}, grid, {{"dim", Attr::ofInt(0)}});
    if (id.pos >= 0)
      qpos = b.eqn("add", {qpos, id.pos}, grid);
    if (c.causal) {
      int future = b.eqn("compare", {keyPos, qpos}, TT(DType::I1, {Lq, Lk}),
                         {{"predicate", Attr::ofString("gt")}});
      s = b.eqn("select", {future, negInf, s}, scoreType);
    }
    if (c.window) {
      int age = b.eqn("sub", {qpos, keyPos}, grid);
      int old =
          b.eqn("compare", {age, b.constant(DType::I32, {}, {1.0 * c.window})},
                TT(DType::I1, {Lq, Lk}), {{"predicate", Attr::ofString("ge")}});
      s = b.eqn("select", {old, negInf, s}, scoreType);
    }
    if (c.alibi) {
      int dist = b.eqn("sub", {keyPos, qpos}, grid);
      dist = b.eqn("convert", {dist}, TT(dt, {Lq, Lk}));
      int slopes = b.constant(dt, {1, Hq, 1, 1}, c.slopes());
      int bias = b.eqn("mul", {slopes, dist}, TT(dt, {1, Hq, Lq, Lk}));
      s = b.eqn("add", {s, bias}, scoreType);
    }
  }
  if (lenRow >= 0) {
    int keyIdx = b.eqn("iota", {}, TT(DType::I32, {1, 1, 1, Lk}),
                       {{"dim", Attr::ofInt(3)}});
    int live = b.eqn("compare", {keyIdx, lenRow}, TT(DType::I1, {B, 1, 1, Lk}),
                     {{"predicate", Attr::ofString("lt")}});
    s = b.eqn("select", {live, s, negInf}, scoreType);
  }

  TensorType rowType = TT(dt, {B, Hq, Lq, 1});
  int m = b.eqn("reduce_max", {s}, rowType, axisKeep(-1));
  int e = b.eqn("sub", {s, m}, scoreType);
  e = b.eqn("exp", {e}, scoreType);
  int z = b.eqn("reduce_sum", {e}, rowType, axisKeep(-1));
  int p = b.eqn("div", {e, z}, scoreType);
  int out = b.eqn("matmul", {p, v}, TT(dt, {B, Hq, Lq, Dv}));
  b.output("out", out);
  return b.g;
}

Tensor runGraph(const Graph &g, const AttnInputs &in, NumericMode mode) {
  std::map<std::string, Tensor> outputs;
  Status st = evaluate(g, bindInputs(in), mode, outputs);
  EXPECT_TRUE(st.isOk()) << st.toString();
  return st.isOk() ? outputs.at("out") : Tensor();
}

Tensor fusedOut(const AttnCase &c, NumericMode mode = NumericMode::Reference) {
  AttnInputs in = makeInputs(c);
  return runGraph(fusedGraph(c, in), in, mode);
}

/// The key property: fused == chain in both modes (f32 native within
/// 1e-5), with exactly `nanCount` NaN outputs. Returns the fused reference
/// result for further checks.
Tensor expectMatchesChain(const AttnCase &c, int64_t nanCount = 0) {
  AttnInputs in = makeInputs(c);
  Graph fused = fusedGraph(c, in), chain = chainGraph(c, in);
  Tensor fusedRef = runGraph(fused, in, NumericMode::Reference);
  Tensor chainRef = runGraph(chain, in, NumericMode::Reference);
  expectClose(fusedRef, chainRef, {1e-12, 0.0}, "reference");
  EXPECT_EQ(countNaN(fusedRef), nanCount);
  // Inputs in [-1, 1) give a weighted mean of values: no garbage-sized
  // output can hide behind a loose absolute tolerance.
  for (double v : fusedRef.values())
    EXPECT_TRUE(std::isnan(v) || std::fabs(v) <= 1.0) << v;
  if (c.dtype == DType::F32) {
    Tensor fusedNat = runGraph(fused, in, NumericMode::Native);
    Tensor chainNat = runGraph(chain, in, NumericMode::Native);
    expectClose(fusedNat, chainNat, {1e-5, 0.0}, "native f32");
    expectClose(fusedNat, fusedRef, {1e-5, 0.0}, "native vs reference");
    EXPECT_TRUE(representable(fusedNat, DType::F32));
  }
  return fusedRef;
}

/// `a` and `b` differ somewhere by more than noise.
void expectDifferent(const Tensor &a, const Tensor &b, const char *feature) {
  ASSERT_EQ(a.type(), b.type());
  EXPECT_GT(maxDiff(a, b), 1e-3) << feature << " changes nothing";
}

//===----------------------------------------------------------------------===//
// attention against the primitive chain
//===----------------------------------------------------------------------===//

TEST(FusedAttention, DenseMha) {
  AttnCase c;
  Tensor out = expectMatchesChain(c);
  // A different seed gives a different answer: the comparison is not
  // vacuous.
  AttnCase other = c;
  other.seed = 2;
  expectDifferent(out, fusedOut(other), "the inputs");
}

TEST(FusedAttention, LargeScoresNeedTheMaxSubtracted) {
  // Scores in the hundreds: exp of them overflows f32 (and their spread
  // overflows it too) unless the row max is subtracted first.
  AttnCase c;
  c.scale = 60.0;
  Tensor out = expectMatchesChain(c);
  for (double v : out.values())
    EXPECT_TRUE(std::isfinite(v));
}

TEST(FusedAttention, GqaNRep4) {
  AttnCase c;
  c.Hq = 8;
  c.Hkv = 2;
  expectMatchesChain(c);
}

TEST(FusedAttention, Mqa) {
  AttnCase c;
  c.Hq = 4;
  c.Hkv = 1;
  c.Lq = 2;
  expectMatchesChain(c);
}

TEST(FusedAttention, HeadWidths) {
  for (int64_t w : {40, 96, 512}) {
    SCOPED_TRACE("head width " + std::to_string(w));
    AttnCase c;
    c.Dk = c.Dv = w;
    if (w == 512) {
      c.B = 1;
      c.Hq = 2;
      c.Hkv = 1;
      c.Lq = 2;
      c.Lk = 5;
    }
    c.seed = static_cast<uint64_t>(w);
    expectMatchesChain(c);
  }
}

TEST(FusedAttention, SplitKeyDk192Dv128) {
  AttnCase c;
  c.B = 1;
  c.Hq = 4;
  c.Hkv = 2;
  c.Lq = 2;
  c.Lk = 6;
  c.Dk = 192;
  c.Dv = 128;
  c.shared = 64;
  Tensor out = expectMatchesChain(c);
  EXPECT_EQ(out.shape(), (Shape{1, 4, 2, 128}));
  // The shared channels count: zeroing them changes the scores.
  AttnInputs in = makeInputs(c);
  for (double &x : in.ks.values())
    x *= 0.0;
  expectDifferent(out, runGraph(fusedGraph(c, in), in, NumericMode::Reference),
                  "k_shared");
}

TEST(FusedAttention, Softcap) {
  AttnCase c;
  c.scale = 1.0; // scores of order 1, so a cap of 0.5 bites
  c.softcap = 0.5;
  Tensor out = expectMatchesChain(c);
  AttnCase plain = c;
  plain.softcap = 0.0;
  expectDifferent(out, fusedOut(plain), "softcap");
}

TEST(FusedAttention, MaskBroadcastOverHeadsAndBatch) {
  AttnCase c;
  c.maskB = 1;
  c.maskH = 1;
  Tensor out = expectMatchesChain(c);
  AttnCase plain = c;
  plain.maskB = plain.maskH = 0;
  expectDifferent(out, fusedOut(plain), "mask");
}

TEST(FusedAttention, MaskPerHead) {
  AttnCase c;
  c.maskB = c.B;
  c.maskH = c.Hq;
  c.Hkv = 2;
  expectMatchesChain(c);
  AttnCase single = c;
  single.maskB = 2;
  single.maskH = 1;
  expectMatchesChain(single);
}

TEST(FusedAttention, CausalDecodeWithPos) {
  AttnCase c;
  c.Lq = 1;
  c.Lk = 9;
  c.pos = 5; // keys 6..8 are in the future
  c.causal = true;
  Tensor out = expectMatchesChain(c);
  AttnCase open = c;
  open.causal = false;
  expectDifferent(out, fusedOut(open), "causal");
  AttnCase later = c;
  later.pos = 8; // every key visible: the same as no mask at all
  expectClose(fusedOut(later), fusedOut(open), {1e-15, 0.0}, "pos = Lk - 1");
}

TEST(FusedAttention, CausalPrefill) {
  AttnCase c;
  c.Lq = c.Lk = 6;
  c.causal = true;
  Tensor out = expectMatchesChain(c);
  AttnCase open = c;
  open.causal = false;
  expectDifferent(out, fusedOut(open), "causal");
  // Row 0 sees key 0 only: its output is v's key 0.
  AttnInputs in = makeInputs(c);
  for (int64_t d = 0; d < c.Dv; ++d)
    EXPECT_NEAR(out.at(d), in.v.at(d), 1e-15) << d;
}

TEST(FusedAttention, SlidingWindow) {
  AttnCase c;
  c.Lq = 4;
  c.Lk = 10;
  c.pos = 6;
  c.causal = true;
  c.window = 3;
  Tensor out = expectMatchesChain(c);
  AttnCase unwindowed = c;
  unwindowed.window = 0;
  expectDifferent(out, fusedOut(unwindowed), "window");
  // A window alone (no causal) cuts only the past.
  AttnCase alone = c;
  alone.causal = false;
  alone.pos.reset();
  alone.Lq = alone.Lk = 7;
  expectMatchesChain(alone);
}

TEST(FusedAttention, Alibi) {
  AttnCase c;
  c.Lq = c.Lk = 8;
  c.causal = true;
  c.alibi = true;
  c.Hkv = 2;
  Tensor out = expectMatchesChain(c);
  AttnCase plain = c;
  plain.alibi = false;
  expectDifferent(out, fusedOut(plain), "alibi");
  AttnCase decode = c;
  decode.Lq = 1;
  decode.pos = 7;
  expectMatchesChain(decode);
}

TEST(FusedAttention, LiveLengthWithGarbagePastIt) {
  AttnCase c;
  c.len = {1, 7}; // len = 1 and len = Lk
  c.plantNaN = true;
  Tensor out = expectMatchesChain(c);
  // Row 0 visits key 0 only.
  AttnInputs in = makeInputs(c);
  for (int64_t h = 0; h < c.Hq; ++h)
    for (int64_t i = 0; i < c.Lq; ++i)
      for (int64_t d = 0; d < c.Dv; ++d)
        EXPECT_NEAR(out.at(((0 * c.Hq + h) * c.Lq + i) * c.Dv + d),
                    in.v.at(((0 * c.Hkv + h) * c.Lk + 0) * c.Dv + d), 1e-15);
  // Lengths past Lk clamp to Lk.
  AttnCase clamped = c;
  clamped.len = {1, 50};
  expectClose(fusedOut(clamped), out, {0.0, 0.0}, "len clamps to Lk");
  AttnCase decode = c;
  decode.Lq = 1;
  decode.len = {4, 6};
  decode.pos = 3;
  decode.causal = true;
  decode.Hkv = 1;
  expectMatchesChain(decode);
}

TEST(FusedAttention, LiveLengthZeroIsNaN) {
  AttnCase c;
  c.len = {0, 3};
  c.plantNaN = true;
  Tensor out = expectMatchesChain(c, /*nanCount=*/c.Hq * c.Lq * c.Dv);
  for (int64_t i = 0; i < c.Hq * c.Lq * c.Dv; ++i)
    EXPECT_TRUE(std::isnan(out.at(i))) << i;
}

TEST(FusedAttention, PagedShuffledReadMap) {
  AttnCase c;
  c.pool = 23;
  c.Hq = 4;
  c.Hkv = 2;
  c.Lk = 9;
  c.Dv = 12;
  expectMatchesChain(c);
  AttnCase live = c;
  live.len = {3, 9};
  live.plantNaN = true;
  live.Lq = 1;
  live.pos = 8;
  live.causal = true;
  expectMatchesChain(live);
}

TEST(FusedAttention, PagedReadOutsideThePoolIsRefused) {
  AttnCase c;
  c.pool = 20;
  AttnInputs in = makeInputs(c);
  in.read.at(5) = 20;
  std::map<std::string, Tensor> outputs;
  Status st = evaluate(fusedGraph(c, in), bindInputs(in),
                       NumericMode::Reference, outputs);
  EXPECT_EQ(st.code(), ErrorCode::IndexOutOfRange) << st.toString();
  EXPECT_NE(st.message().find("read word 20"), std::string::npos)
      << st.message();
  in.read.at(5) = -1;
  st = evaluate(fusedGraph(c, in), bindInputs(in), NumericMode::Reference,
                outputs);
  EXPECT_EQ(st.code(), ErrorCode::IndexOutOfRange) << st.toString();
}

TEST(FusedAttention, FullyMaskedRowIsNaNInBoth) {
  AttnCase c;
  c.maskB = c.B;
  c.maskH = c.Hq;
  AttnInputs in = makeInputs(c);
  // Row (b = 1, h = 2, i = 0) sees no key.
  for (int64_t t = 0; t < c.Lk; ++t)
    in.mask.at(((1 * c.Hq + 2) * c.Lq + 0) * c.Lk + t) = -kInf;
  for (NumericMode mode : {NumericMode::Reference, NumericMode::Native}) {
    Tensor fused = runGraph(fusedGraph(c, in), in, mode);
    Tensor chain = runGraph(chainGraph(c, in), in, mode);
    expectClose(fused, chain, {1e-5, 0.0}, "fully masked");
    EXPECT_EQ(countNaN(fused), c.Dv);
    for (int64_t d = 0; d < c.Dv; ++d)
      EXPECT_TRUE(std::isnan(fused.at(((1 * c.Hq + 2) * c.Lq + 0) * c.Dv + d)));
  }
  // Causal with a position before every key: the same, without a mask.
  AttnCase early;
  early.Lq = 1;
  early.pos = -1;
  early.causal = true;
  expectMatchesChain(early, /*nanCount=*/early.B * early.Hq * early.Dv);
}

TEST(FusedAttention, Bf16NativeNearReference) {
  AttnCase c;
  c.dtype = DType::BF16;
  c.Hq = 4;
  c.Hkv = 2;
  c.Lq = 3;
  c.Lk = 12;
  c.Dk = c.Dv = 64;
  c.maskB = 1;
  c.maskH = c.Hq;
  c.softcap = 2.0;
  Tensor ref = expectMatchesChain(c); // reference of bf16 values, exact
  Tensor nat = fusedOut(c, NumericMode::Native);
  ASSERT_EQ(nat.type(), ref.type());
  EXPECT_TRUE(representable(nat, DType::BF16));
  EXPECT_FALSE(representable(ref, DType::BF16)); // reference never rounds
  expectClose(nat, ref, toleranceFor(DType::BF16), "bf16 native");
  EXPECT_GT(maxDiff(nat, ref), 0.0);
}

//===----------------------------------------------------------------------===//
// attention by hand
//===----------------------------------------------------------------------===//

/// Runs one attention eqn on the given operands.
Status runAttention(const std::vector<Tensor> &operands, Attrs attrs,
                    TensorType result, NumericMode mode, Tensor &out) {
  Eqn eqn;
  eqn.op = "attention";
  eqn.attrs = std::move(attrs);
  eqn.location = "fused.mlir:4:9";
  std::vector<const Tensor *> ptrs;
  for (const Tensor &t : operands)
    ptrs.push_back(&t);
  std::vector<Tensor> results;
  Status st = evaluateEqn(eqn, ptrs, {result}, mode, results);
  if (st.isOk())
    out = results.at(0);
  return st;
}

Tensor F32(Shape shape, std::vector<double> values) {
  return Tensor(TT(DType::F32, std::move(shape)), std::move(values));
}

TEST(FusedAttentionByHand, TwoKeys) {
  // Scores 0 and log 3: weights 1/4 and 3/4 of values 1 and 5.
  Tensor q = F32({1, 1, 1, 1}, {1});
  Tensor k = F32({1, 1, 2, 1}, {0, std::log(3.0)});
  Tensor v = F32({1, 1, 2, 1}, {1, 5});
  Attrs a = {{"scale", Attr::ofFloat(1.0)}, {"n_rep", Attr::ofInt(1)}};
  Tensor out;
  // No operandSegmentSizes: three operands can only be q, k, v.
  Status st = runAttention({q, k, v}, a, TT(DType::F32, {1, 1, 1, 1}),
                           NumericMode::Reference, out);
  ASSERT_TRUE(st.isOk()) << st.toString();
  EXPECT_NEAR(out.at(0), 0.25 * 1 + 0.75 * 5, 1e-15);

  // Scale 2 squares the odds: 1 : 9.
  a["scale"] = Attr::ofFloat(2.0);
  ASSERT_TRUE(runAttention({q, k, v}, a, TT(DType::F32, {1, 1, 1, 1}),
                           NumericMode::Reference, out)
                  .isOk());
  EXPECT_NEAR(out.at(0), 0.1 * 1 + 0.9 * 5, 1e-15);

  // Causal from pos 0: key 1 is in the future.
  a["scale"] = Attr::ofFloat(1.0);
  a["causal"] = Attr::ofInt(1);
  a["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 0, 0, 0, 1});
  Tensor pos(TT(DType::I32, {}), {0});
  ASSERT_TRUE(runAttention({q, k, v, pos}, a, TT(DType::F32, {1, 1, 1, 1}),
                           NumericMode::Reference, out)
                  .isOk());
  EXPECT_EQ(out.at(0), 1.0);

  // ALiBi at pos 1 adds slope * (t - 1): -log 3 to key 0, so the scores
  // become -log 3 and log 3 and the odds 1 : 9.
  a.erase("causal");
  a["alibi_slopes"] = Attr::ofFloats({std::log(3.0)});
  pos.at(0) = 1;
  ASSERT_TRUE(runAttention({q, k, v, pos}, a, TT(DType::F32, {1, 1, 1, 1}),
                           NumericMode::Reference, out)
                  .isOk());
  EXPECT_NEAR(out.at(0), 0.1 * 1 + 0.9 * 5, 1e-15);
}

TEST(FusedAttentionByHand, SoftcapAndWindow) {
  Tensor q = F32({1, 1, 1, 1}, {1});
  Tensor k = F32({1, 1, 3, 1}, {10, 0, 0});
  Tensor v = F32({1, 1, 3, 1}, {1, 2, 4});
  Attrs a = {{"scale", Attr::ofFloat(1.0)},
             {"n_rep", Attr::ofInt(1)},
             {"softcap", Attr::ofFloat(1.0)},
             {"operandSegmentSizes", Attr::ofInts({1, 1, 0, 1, 0, 0, 0, 0})}};
  Tensor out;
  ASSERT_TRUE(runAttention({q, k, v}, a, TT(DType::F32, {1, 1, 1, 1}),
                           NumericMode::Reference, out)
                  .isOk());
  double w0 = std::exp(std::tanh(10.0));
  EXPECT_NEAR(out.at(0), (w0 * 1 + 2 + 4) / (w0 + 2), 1e-15);
  // Window 1 at pos 2: only key 2 (2 - 2 = 0 < 1) is visible.
  a["window"] = Attr::ofInt(1);
  a["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 0, 0, 0, 1});
  Tensor pos(TT(DType::I32, {}), {2});
  ASSERT_TRUE(runAttention({q, k, v, pos}, a, TT(DType::F32, {1, 1, 1, 1}),
                           NumericMode::Reference, out)
                  .isOk());
  EXPECT_EQ(out.at(0), 4.0);
}

//===----------------------------------------------------------------------===//
// attention: malformed records
//===----------------------------------------------------------------------===//

TEST(FusedAttentionRecords, MalformedRecordsFailCleanly) {
  Tensor q = F32({1, 2, 1, 4}, std::vector<double>(8, 0.5));
  Tensor k = F32({1, 2, 3, 4}, std::vector<double>(24, 0.5));
  Tensor v = F32({1, 2, 3, 2}, std::vector<double>(12, 0.5));
  TensorType result = TT(DType::F32, {1, 2, 1, 2});
  Attrs good = {{"scale", Attr::ofFloat(0.5)}, {"n_rep", Attr::ofInt(1)}};
  Tensor out;
  ASSERT_TRUE(
      runAttention({q, k, v}, good, result, NumericMode::Native, out).isOk());

  auto expectInvalid = [&](const std::vector<Tensor> &ops, Attrs attrs,
                           TensorType type, const char *needle) {
    Status st =
        runAttention(ops, std::move(attrs), type, NumericMode::Reference, out);
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << st.toString();
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("fused.mlir:4:9: attention: "),
              std::string::npos)
        << st.message();
  };
  Attrs noScale = good;
  noScale.erase("scale");
  expectInvalid({q, k, v}, noScale, result, "missing attribute 'scale'");
  Attrs intScale = good;
  intScale["scale"] = Attr::ofInt(1);
  expectInvalid({q, k, v}, intScale, result, "'scale' must be a float");
  Attrs badRep = good;
  badRep["n_rep"] = Attr::ofInt(3);
  expectInvalid({q, k, v}, badRep, result, "n_rep must divide");
  Attrs zeroCap = good;
  zeroCap["softcap"] = Attr::ofFloat(0.0);
  expectInvalid({q, k, v}, zeroCap, result, "softcap must be > 0");
  Attrs badWindow = good;
  badWindow["window"] = Attr::ofInt(0);
  expectInvalid({q, k, v}, badWindow, result, "window must be >= 1");
  Attrs slopes = good;
  slopes["alibi_slopes"] = Attr::ofFloats({1.0});
  expectInvalid({q, k, v}, slopes, result, "alibi_slopes must have 2");

  Tensor len(TT(DType::I32, {1}), {2});
  expectInvalid({q, k, v, len}, good, result,
                "missing attribute 'operandSegmentSizes'");
  Attrs segs = good;
  segs["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 0, 0, 1});
  expectInvalid({q, k, v, len}, segs, result, "must have 8 entries");
  segs["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 0, 0, 1, 1});
  expectInvalid({q, k, v, len}, segs, result, "accounts for 5 operands");
  segs["operandSegmentSizes"] = Attr::ofInts({1, 0, 0, 1, 0, 0, 1, 0});
  expectInvalid({q, k, v, len}, segs, result, "gives k 0 operand(s)");
  segs["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 0, 0, 2, 0});
  expectInvalid({q, k, v, len}, segs, result, "gives len 2 operand(s)");
  segs["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 0, 0, 1, 0});
  ASSERT_TRUE(
      runAttention({q, k, v, len}, segs, result, NumericMode::Native, out)
          .isOk());
  Tensor wideLen(TT(DType::I32, {2}), {2, 2});
  expectInvalid({q, k, v, wideLen}, segs, result, "len must be");
  Tensor floatLen = F32({1}, {2});
  expectInvalid({q, k, v, floatLen}, segs, result, "len must be");

  Tensor q3 = F32({2, 1, 4}, std::vector<double>(8, 0.5));
  expectInvalid({q3, k, v}, good, result, "q must be [B, Hq, Lq, Dk]");
  Tensor kWide = F32({1, 2, 3, 5}, std::vector<double>(30, 0.5));
  expectInvalid({q, kWide, v}, good, result, "k must be [1, 2, Lk, 4]");
  Tensor vShort = F32({1, 2, 2, 2}, std::vector<double>(8, 0.5));
  expectInvalid({q, k, vShort}, good, result, "v must be [1, 2, 3, Dv]");
  Tensor kF16(TT(DType::F16, {1, 2, 3, 4}), std::vector<double>(24, 0.5));
  expectInvalid({q, kF16, v}, good, result, "k must be f32 like q");
  expectInvalid({q, k, v}, good, TT(DType::F32, {1, 2, 1, 4}),
                "result must be tensor<1x2x1x2xf32>");

  Attrs masked = good;
  masked["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 0, 1, 0, 0});
  Tensor maskOk = F32({1, 1, 1, 3}, {0, 0, 0});
  ASSERT_TRUE(
      runAttention({q, k, v, maskOk}, masked, result, NumericMode::Native, out)
          .isOk());
  Tensor maskBad = F32({1, 1, 1, 2}, {0, 0});
  expectInvalid({q, k, v, maskBad}, masked, result, "mask must be [1|1, 2|1");

  Attrs withPos = good;
  withPos["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 0, 0, 0, 1});
  Tensor pos1(TT(DType::I32, {2}), {0, 0}); // neither a scalar nor [B]
  expectInvalid({q, k, v, pos1}, withPos, result, "pos must be");

  // Paged with k_shared is not a form.
  Attrs both = good;
  both["operandSegmentSizes"] = Attr::ofInts({1, 1, 1, 1, 1, 0, 0, 0});
  Tensor pk = F32({4, 2, 2}, std::vector<double>(16, 0.5));
  Tensor ks = F32({1, 1, 3, 2}, std::vector<double>(6, 0.5));
  Tensor pv = F32({4, 2, 2}, std::vector<double>(16, 0.5));
  Tensor read(TT(DType::I32, {1, 3}), {0, 1, 2});
  expectInvalid({q, pk, ks, pv, read}, both, result, "cannot have k_shared");
  Attrs paged = good;
  paged["operandSegmentSizes"] = Attr::ofInts({1, 1, 0, 1, 1, 0, 0, 0});
  expectInvalid({q, pk, pv, read}, paged, result,
                "paged k must be a pool [S, 2, 4]");
}

//===----------------------------------------------------------------------===//
// rope
//===----------------------------------------------------------------------===//

struct RopeCase {
  DType dtype = DType::F32;
  Shape x = {2, 3, 5, 16};
  Shape table = {5, 16}; ///< cos/sin shape (last dim = rotary_dim)
  std::string style = "half";
  uint64_t seed = 7;
};

struct RopeInputs {
  Tensor x, cos, sin;
};

RopeInputs makeRopeInputs(const RopeCase &c) {
  std::mt19937_64 rng(c.seed);
  return {randomTensor(rng, c.dtype, c.x), randomTensor(rng, c.dtype, c.table),
          randomTensor(rng, c.dtype, c.table)};
}

Graph ropeGraph(const RopeCase &c, bool fused) {
  GraphBuilder b;
  int x = b.input("x", TT(c.dtype, c.x));
  int cs = b.input("cos", TT(c.dtype, c.table));
  int sn = b.input("sin", TT(c.dtype, c.table));
  int64_t rank = static_cast<int64_t>(c.x.size());
  int64_t d = c.x.back(), r = c.table.back();
  if (fused) {
    b.output("out", b.eqn("rope", {x, cs, sn}, TT(c.dtype, c.x),
                          {{"style", Attr::ofString(c.style)},
                           {"rotary_dim", Attr::ofInt(r)}}));
    return b.g;
  }
  // Slices of the last dim [lo, hi) of a tensor shaped `shape`.
  auto lastSlice = [&](int v, const Shape &shape, int64_t lo, int64_t hi) {
    Shape start(shape.size(), 0), limit = shape;
    start.back() = lo;
    limit.back() = hi;
    Shape out = shape;
    out.back() = hi - lo;
    return b.eqn(
        "slice", {v}, TT(c.dtype, out),
        {{"start", Attr::ofInts(start)}, {"limit", Attr::ofInts(limit)}});
  };
  Shape rotShape = c.x;
  rotShape.back() = r;
  TensorType rotType = TT(c.dtype, rotShape);
  int xr = lastSlice(x, c.x, 0, r);
  int rot;
  if (c.style == "half") {
    int x1 = lastSlice(x, c.x, 0, r / 2);
    int x2 = lastSlice(x, c.x, r / 2, r);
    Shape halfShape = rotShape;
    halfShape.back() = r / 2;
    int neg = b.eqn("neg", {x2}, TT(c.dtype, halfShape));
    rot =
        b.eqn("concat", {neg, x1}, rotType, {{"axis", Attr::ofInt(rank - 1)}});
  } else {
    Shape pairs = rotShape;
    pairs.back() = r / 2;
    pairs.push_back(2);
    int xp = b.eqn("reshape", {xr}, TT(c.dtype, pairs));
    int even = lastSlice(xp, pairs, 0, 1);
    int odd = lastSlice(xp, pairs, 1, 2);
    Shape one = pairs;
    one.back() = 1;
    int neg = b.eqn("neg", {odd}, TT(c.dtype, one));
    int rp = b.eqn("concat", {neg, even}, TT(c.dtype, pairs),
                   {{"axis", Attr::ofInt(rank)}});
    rot = b.eqn("reshape", {rp}, rotType);
  }
  int a = b.eqn("mul", {xr, cs}, rotType);
  int s = b.eqn("mul", {rot, sn}, rotType);
  int y = b.eqn("add", {a, s}, rotType);
  if (r < d) {
    int pass = lastSlice(x, c.x, r, d);
    y = b.eqn("concat", {y, pass}, TT(c.dtype, c.x),
              {{"axis", Attr::ofInt(rank - 1)}});
  }
  b.output("out", y);
  return b.g;
}

Tensor runRope(const RopeCase &c, const RopeInputs &in, bool fused,
               NumericMode mode) {
  Bindings bindings;
  bindings.inputs = {{"x", &in.x}, {"cos", &in.cos}, {"sin", &in.sin}};
  std::map<std::string, Tensor> outputs;
  Status st = evaluate(ropeGraph(c, fused), bindings, mode, outputs);
  EXPECT_TRUE(st.isOk()) << st.toString();
  return st.isOk() ? outputs.at("out") : Tensor();
}

/// Rope is elementwise arithmetic with the same roundings fused or not, so
/// f32 results match the chain bit for bit in both modes.
Tensor expectRopeMatchesChain(const RopeCase &c) {
  RopeInputs in = makeRopeInputs(c);
  for (NumericMode mode : {NumericMode::Reference, NumericMode::Native}) {
    Tensor fused = runRope(c, in, true, mode);
    Tensor chain = runRope(c, in, false, mode);
    expectClose(fused, chain, {0.0, 0.0},
                mode == NumericMode::Native ? "native" : "reference");
  }
  return runRope(c, in, true, NumericMode::Reference);
}

TEST(FusedRope, HalfFullWidth) {
  RopeCase c;
  Tensor out = expectRopeMatchesChain(c);
  RopeCase other = c;
  other.style = "interleaved";
  expectDifferent(out, expectRopeMatchesChain(other), "style");
}

TEST(FusedRope, InterleavedFullWidth) {
  RopeCase c;
  c.style = "interleaved";
  c.table = {1, 1, 5, 16};
  expectRopeMatchesChain(c);
}

TEST(FusedRope, PartialRotaryWidth) {
  for (const char *style : {"half", "interleaved"}) {
    SCOPED_TRACE(style);
    RopeCase c;
    c.style = style;
    c.x = {2, 4, 3, 24};
    c.table = {2, 1, 3, 8}; // per batch row, shared by heads
    Tensor out = expectRopeMatchesChain(c);
    // The pass-through channels are x exactly.
    RopeInputs in = makeRopeInputs(c);
    for (int64_t row = 0; row < out.size() / 24; ++row)
      for (int64_t ch = 8; ch < 24; ++ch)
        EXPECT_EQ(out.at(row * 24 + ch), in.x.at(row * 24 + ch));
  }
}

TEST(FusedRope, ByHand) {
  // x = [1, 2, 3, 4, 5], rotary_dim 4, cos = 0.5, sin = 0.25.
  Tensor x = F32({5}, {1, 2, 3, 4, 5});
  Tensor cs = F32({4}, {0.5, 0.5, 0.5, 0.5});
  Tensor sn = F32({1}, {0.25});
  std::vector<Tensor> results;
  Eqn eqn;
  eqn.op = "rope";
  eqn.attrs = {{"style", Attr::ofString("half")},
               {"rotary_dim", Attr::ofInt(4)}};
  ASSERT_TRUE(
      evaluateEqn(eqn, {&x, &cs, &sn}, {x.type()}, NumericMode::Native, results)
          .isOk());
  // rot = [-3, -4, 1, 2]
  EXPECT_EQ(results[0].values(),
            (std::vector<double>{0.5 - 0.75, 1 - 1, 1.5 + 0.25, 2 + 0.5, 5}));
  eqn.attrs["style"] = Attr::ofString("interleaved");
  ASSERT_TRUE(
      evaluateEqn(eqn, {&x, &cs, &sn}, {x.type()}, NumericMode::Native, results)
          .isOk());
  // rot = [-2, 1, -4, 3]
  EXPECT_EQ(results[0].values(),
            (std::vector<double>{0.5 - 0.5, 1 + 0.25, 1.5 - 1, 2 + 0.75, 5}));
}

TEST(FusedRope, Bf16NativeRoundsOnceAtTheEnd) {
  RopeCase c;
  c.dtype = DType::BF16;
  RopeInputs in = makeRopeInputs(c);
  Tensor ref = runRope(c, in, true, NumericMode::Reference);
  Tensor chainRef = runRope(c, in, false, NumericMode::Reference);
  expectClose(ref, chainRef, {0.0, 0.0}, "bf16 reference");
  Tensor nat = runRope(c, in, true, NumericMode::Native);
  EXPECT_TRUE(representable(nat, DType::BF16));
  // A product of two bf16 values is exact in f32, so native is the exact
  // (reference) sum rounded to f32 once and then to bf16 once.
  for (int64_t i = 0; i < nat.size(); ++i)
    EXPECT_EQ(nat.at(i), roundTo(DType::BF16, roundTo(DType::F32, ref.at(i))))
        << i;
}

TEST(FusedRope, MalformedRecordsFailCleanly) {
  Tensor x = F32({2, 6}, std::vector<double>(12, 0.5));
  Tensor t4 = F32({4}, {1, 1, 1, 1});
  auto run = [&](const std::vector<const Tensor *> &ops, Attrs attrs,
                 TensorType type = TensorType{DType::F32, {2, 6}}) {
    Eqn eqn;
    eqn.op = "rope";
    eqn.attrs = std::move(attrs);
    std::vector<Tensor> results;
    return evaluateEqn(eqn, ops, {type}, NumericMode::Reference, results);
  };
  Attrs good = {{"style", Attr::ofString("half")},
                {"rotary_dim", Attr::ofInt(4)}};
  ASSERT_TRUE(run({&x, &t4, &t4}, good).isOk());
  auto expectInvalid = [](Status st, const char *needle) {
    EXPECT_EQ(st.code(), ErrorCode::InvalidArgument) << st.toString();
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
  };
  Attrs odd = good;
  odd["rotary_dim"] = Attr::ofInt(3);
  expectInvalid(run({&x, &t4, &t4}, odd), "rotary_dim must be even");
  Attrs wide = good;
  wide["rotary_dim"] = Attr::ofInt(8);
  expectInvalid(run({&x, &t4, &t4}, wide), "in [2, 6]");
  Attrs style = good;
  style["style"] = Attr::ofString("neox");
  expectInvalid(run({&x, &t4, &t4}, style), "style must be");
  Attrs noDim = good;
  noDim.erase("rotary_dim");
  expectInvalid(run({&x, &t4, &t4}, noDim), "missing attribute 'rotary_dim'");
  Tensor t6 = F32({6}, std::vector<double>(6, 1));
  expectInvalid(run({&x, &t6, &t4}, good), "does not broadcast");
  Tensor t3x4 = F32({3, 4}, std::vector<double>(12, 1));
  expectInvalid(run({&x, &t4, &t3x4}, good), "sin tensor<3x4xf32>");
  Tensor h4(TT(DType::F16, {4}), {1, 1, 1, 1});
  expectInvalid(run({&x, &h4, &t4}, good), "cos must be f32");
  expectInvalid(run({&x, &t4}, good), "expects 3 operands");
  expectInvalid(run({&x, &t4, &t4}, good, TensorType{DType::F32, {6, 2}}),
                "result 0 is tensor<2x6xf32>");
}

} // namespace
