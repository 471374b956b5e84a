//===- SparseOpsTest.cpp - Tests of the sparse ops in the evaluator -------===//
//
// poot.block_topk and poot.selected_attention must mean exactly what the
// tracer's block-selection mask chain means (ops::sparseBlockMask followed by
// masked attention). Each case draws seeded random inputs, evaluates a graph
// with the two sparse eqns and the hand-built primitive chain, and compares
// the chosen blocks exactly and the outputs within 1e-12 in reference mode
// and 1e-5 in native f32. Ties, NaN scores, rows that see fewer blocks than
// K, out-of-range and repeated block ids are worked through, and malformed
// records must fail with typed errors.
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

Attrs axisAttrs(int64_t axis, bool keepdim) {
  return {{"axis", Attr::ofInt(axis)}, {"keepdim", Attr::ofInt(keepdim)}};
}
Attrs predicate(const char *p) { return {{"predicate", Attr::ofString(p)}}; }

//===----------------------------------------------------------------------===//
// The case, its inputs, and the two graphs
//===----------------------------------------------------------------------===//

/// How the indexer scores are drawn.
enum class Scores {
  Random,     ///< relu of random dot products (some zeros, few ties)
  AllZero,    ///< every dot product negative: every score is relu's 0
  EqualPairs, ///< blocks 2j and 2j+1 hold the same keys: their maxima tie
};

struct SparseCase {
  DType dtype = DType::F32;
  int64_t B = 2, Hq = 4, Hkv = 2, Lq = 1, Lk = 32, Dk = 16, Dv = 8;
  int64_t Hi = 2, Di = 8; ///< indexer heads and width
  int64_t ratio = 4, K = 2;
  std::vector<int64_t> pos; ///< none, one (scalar) or B (per row)
  int64_t pool = 0;         ///< paged: pool slots (0: dense)
  double scale = 0.0;       ///< 0: 1/sqrt(Dk)
  double softcap = 0.0;
  Scores scores = Scores::Random;
  int64_t nanKey = -1; ///< an indexer key whose score is NaN
  uint64_t seed = 1;

  double scaleValue() const {
    return scale != 0.0 ? scale : 1.0 / std::sqrt(static_cast<double>(Dk));
  }
  int64_t numBlocks() const { return Lk / ratio; }
};

struct SparseInputs {
  Tensor q, k, v, iq, ik, read, pos;
};

SparseInputs makeInputs(const SparseCase &c) {
  std::mt19937_64 rng(c.seed);
  SparseInputs in;
  DType dt = c.dtype;
  in.q = randomTensor(rng, dt, {c.B, c.Hq, c.Lq, c.Dk});
  if (c.pool) {
    in.k = randomTensor(rng, dt, {c.pool, c.Hkv, c.Dk});
    in.v = randomTensor(rng, dt, {c.pool, c.Hkv, c.Dv});
    std::vector<double> slots(c.pool);
    std::iota(slots.begin(), slots.end(), 0.0);
    std::shuffle(slots.begin(), slots.end(), rng);
    slots.resize(c.B * c.Lk);
    in.read = Tensor(TT(DType::I32, {c.B, c.Lk}), slots);
  } else {
    in.k = randomTensor(rng, dt, {c.B, c.Hkv, c.Lk, c.Dk});
    in.v = randomTensor(rng, dt, {c.B, c.Hkv, c.Lk, c.Dv});
  }
  in.iq = randomTensor(rng, dt, {c.B, c.Hi, c.Lq, c.Di});
  in.ik = randomTensor(rng, dt, {c.B, 1, c.Lk, c.Di});
  if (c.scores == Scores::AllZero) {
    // q all positive, k all negative: every dot product is below zero.
    for (double &x : in.iq.values())
      x = std::fabs(x);
    for (double &x : in.ik.values())
      x = -std::fabs(x);
  } else if (c.scores == Scores::EqualPairs) {
    // Key t of block 2j + 1 copies key t of block 2j, for every row.
    for (int64_t b = 0; b < c.B; ++b)
      for (int64_t t = 0; t < c.Lk; ++t)
        if ((t / c.ratio) % 2 == 1)
          for (int64_t d = 0; d < c.Di; ++d)
            in.ik.at((b * c.Lk + t) * c.Di + d) =
                in.ik.at((b * c.Lk + t - c.ratio) * c.Di + d);
  }
  if (c.nanKey >= 0)
    for (int64_t b = 0; b < c.B; ++b)
      in.ik.at((b * c.Lk + c.nanKey) * c.Di) = kNaN;
  if (c.pos.size() == 1)
    in.pos = Tensor(TT(DType::I32, {}), {static_cast<double>(c.pos[0])});
  else if (!c.pos.empty())
    in.pos = Tensor(TT(DType::I32, {c.B}),
                    std::vector<double>(c.pos.begin(), c.pos.end()));
  return in;
}

struct Ids {
  int q = -1, k = -1, v = -1, iq = -1, ik = -1, read = -1, pos = -1;
};

/// Declares the inputs in one fixed order so both graphs bind the same
/// tensors by name.
Ids declareInputs(GraphBuilder &b, const SparseCase &c,
                  const SparseInputs &in) {
  Ids id;
  id.q = b.input("q", in.q.type());
  id.k = b.input("k", in.k.type());
  id.v = b.input("v", in.v.type());
  id.iq = b.input("index_q", in.iq.type());
  id.ik = b.input("index_k", in.ik.type());
  if (c.pool)
    id.read = b.input("read", in.read.type());
  if (!c.pos.empty())
    id.pos = b.input("pos", in.pos.type());
  return id;
}

Bindings bindInputs(const SparseInputs &in) {
  Bindings bindings;
  auto bind = [&](const char *name, const Tensor &t) {
    if (t.rank() > 0 || t.size() > 0)
      bindings.inputs[name] = &t;
  };
  bind("q", in.q);
  bind("k", in.k);
  bind("v", in.v);
  bind("index_q", in.iq);
  bind("index_k", in.ik);
  bind("read", in.read);
  bind("pos", in.pos);
  return bindings;
}

/// Key scores [B, 1, Lq, Lk]: relu(iq . ik^T) summed over the indexer heads.
/// Both graphs compute them with the same primitives.
int indexerScores(GraphBuilder &b, const SparseCase &c, const Ids &id) {
  DType dt = c.dtype;
  int ikT = b.eqn("transpose", {id.ik}, TT(dt, {c.B, 1, c.Di, c.Lk}),
                  {{"perm", Attr::ofInts({0, 1, 3, 2})}});
  TensorType perHead = TT(dt, {c.B, c.Hi, c.Lq, c.Lk});
  int s = b.eqn("matmul", {id.iq, ikT}, perHead);
  s = b.eqn("max", {s, b.constant(dt, {}, {0.0})}, perHead);
  return b.eqn("reduce_sum", {s}, TT(dt, {c.B, 1, c.Lq, c.Lk}),
               axisAttrs(1, true));
}

/// The fused graph: block_topk on the indexer scores, selected_attention.
Graph fusedGraph(const SparseCase &c, const SparseInputs &in) {
  GraphBuilder b;
  Ids id = declareInputs(b, c, in);
  int s = indexerScores(b, c, id);
  s = b.eqn("reshape", {s}, TT(c.dtype, {c.B, c.Lq, c.Lk}));
  std::vector<int> topOperands = {s};
  if (id.pos >= 0)
    topOperands.push_back(id.pos);
  int blocks =
      b.eqn("block_topk", topOperands, TT(DType::I32, {c.B, c.Lq, c.K}),
            {{"ratio", Attr::ofInt(c.ratio)}, {"k", Attr::ofInt(c.K)}});
  std::vector<int> operands = {id.q, id.k, id.v, blocks};
  if (id.read >= 0)
    operands.push_back(id.read);
  if (id.pos >= 0)
    operands.push_back(id.pos);
  Attrs a;
  a["operandSegmentSizes"] =
      Attr::ofInts({1, 1, 1, 1, c.pool ? 1 : 0, c.pos.empty() ? 0 : 1});
  a["scale"] = Attr::ofFloat(c.scaleValue());
  a["n_rep"] = Attr::ofInt(c.Hq / c.Hkv);
  a["ratio"] = Attr::ofInt(c.ratio);
  if (c.softcap != 0.0)
    a["softcap"] = Attr::ofFloat(c.softcap);
  int out = b.eqn("selected_attention", operands,
                  TT(c.dtype, {c.B, c.Hq, c.Lq, c.Dv}), a);
  b.output("out", out);
  b.output("blocks", blocks);
  return b.g;
}

/// The chain the tracer writes (ops::sparseBlockMask, then masked
/// attention), spelled op by op.
Graph chainGraph(const SparseCase &c, const SparseInputs &in) {
  GraphBuilder b;
  Ids id = declareInputs(b, c, in);
  DType dt = c.dtype, it = DType::I32;
  int64_t B = c.B, Hq = c.Hq, Hkv = c.Hkv, Lq = c.Lq, Lk = c.Lk, Dk = c.Dk,
          Dv = c.Dv, K = c.K, NB = c.numBlocks(), nRep = c.Hq / c.Hkv;
  int64_t P = c.pos.size() > 1 ? B : 1;

  // qpos = pos + i, [P, 1, Lq, 1].
  int qpos =
      b.eqn("iota", {}, TT(it, {1, 1, Lq, 1}), {{"dim", Attr::ofInt(2)}});
  if (id.pos >= 0) {
    int p = b.eqn("reshape", {id.pos}, TT(it, {P, 1, 1, 1}));
    qpos = b.eqn("add", {p, qpos}, TT(it, {P, 1, Lq, 1}));
  }

  int s = indexerScores(b, c, id);
  TensorType gridI1 = TT(DType::I1, {P, 1, Lq, Lk});
  int keyPos =
      b.eqn("iota", {}, TT(it, {1, 1, 1, Lk}), {{"dim", Attr::ofInt(3)}});
  int hidden = b.eqn("compare", {keyPos, qpos}, gridI1, predicate("gt"));
  TensorType keyScores = TT(dt, {B, 1, Lq, Lk});
  s = b.eqn("select", {hidden, b.constant(dt, {}, {-kInf}), s}, keyScores);
  int blocks5 = b.eqn("reshape", {s}, TT(dt, {B, 1, Lq, NB, c.ratio}));
  int blockScore = b.eqn("reduce_max", {blocks5}, TT(dt, {B, 1, Lq, NB}),
                         axisAttrs(4, false));
  int chosen = b.eqnN("topk", {blockScore},
                      {TT(dt, {B, 1, Lq, K}), TT(it, {B, 1, Lq, K})},
                      {{"k", Attr::ofInt(K)}})[1];

  // selected[t] = any_k(chosen[k] == t / ratio)
  int ratio = b.constant(it, {}, {static_cast<double>(c.ratio)});
  int keyBlock = b.eqn("div", {keyPos, ratio}, TT(it, {1, 1, 1, Lk}));
  int chosenCol = b.eqn("reshape", {chosen}, TT(it, {B, 1, Lq, K, 1}));
  int keyBlockRow = b.eqn("reshape", {keyBlock}, TT(it, {1, 1, 1, 1, Lk}));
  int hit = b.eqn("compare", {chosenCol, keyBlockRow},
                  TT(DType::I1, {B, 1, Lq, K, Lk}), predicate("eq"));
  hit = b.eqn("convert", {hit}, TT(it, {B, 1, Lq, K, Lk}));
  int hits =
      b.eqn("reduce_max", {hit}, TT(it, {B, 1, Lq, Lk}), axisAttrs(3, false));
  int selected = b.eqn("compare", {hits, b.constant(it, {}, {0.0})},
                       TT(DType::I1, {B, 1, Lq, Lk}), predicate("ne"));
  // own[t] = t / ratio == qpos / ratio; visible = (selected or own), t <= qpos
  int ownBlock = b.eqn("div", {qpos, ratio}, TT(it, {P, 1, Lq, 1}));
  int own = b.eqn("compare", {keyBlock, ownBlock}, gridI1, predicate("eq"));
  TensorType gridB = TT(DType::I1, {B, 1, Lq, Lk});
  int candidate = b.eqn("or", {selected, own}, gridB);
  int past = b.eqn("not", {hidden}, gridI1);
  int visible = b.eqn("and", {candidate, past}, gridB);
  int mask =
      b.eqn("select",
            {visible, b.constant(dt, {}, {0.0}), b.constant(dt, {}, {-kInf})},
            TT(dt, {B, 1, Lq, Lk}));

  int k = id.k, v = id.v;
  if (c.pool) {
    Attrs axis0 = {{"axis", Attr::ofInt(0)}};
    Attrs swap = {{"perm", Attr::ofInts({0, 2, 1, 3})}};
    k = b.eqn("gather", {id.k, id.read}, TT(dt, {B, Lk, Hkv, Dk}), axis0);
    k = b.eqn("transpose", {k}, TT(dt, {B, Hkv, Lk, Dk}), swap);
    v = b.eqn("gather", {id.v, id.read}, TT(dt, {B, Lk, Hkv, Dv}), axis0);
    v = b.eqn("transpose", {v}, TT(dt, {B, Hkv, Lk, Dv}), swap);
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
  int sc = b.eqn("matmul", {id.q, kT}, scoreType);
  sc = b.eqn("mul", {sc, b.constant(dt, {}, {c.scaleValue()})}, scoreType);
  if (c.softcap != 0.0) {
    int cap = b.constant(dt, {}, {c.softcap});
    int t = b.eqn("div", {sc, cap}, scoreType);
    t = b.eqn("tanh", {t}, scoreType);
    sc = b.eqn("mul", {cap, t}, scoreType);
  }
  sc = b.eqn("add", {sc, mask}, scoreType);
  TensorType rowType = TT(dt, {B, Hq, Lq, 1});
  int m = b.eqn("reduce_max", {sc}, rowType, axisAttrs(-1, true));
  int e = b.eqn("sub", {sc, m}, scoreType);
  e = b.eqn("exp", {e}, scoreType);
  int z = b.eqn("reduce_sum", {e}, rowType, axisAttrs(-1, true));
  int p = b.eqn("div", {e, z}, scoreType);
  int out = b.eqn("matmul", {p, v}, TT(dt, {B, Hq, Lq, Dv}));
  b.output("out", out);
  b.output("blocks", b.eqn("reshape", {chosen}, TT(it, {B, Lq, K})));
  return b.g;
}

std::map<std::string, Tensor> runGraph(const Graph &g, const SparseInputs &in,
                                       NumericMode mode) {
  std::map<std::string, Tensor> outputs;
  Status st = evaluate(g, bindInputs(in), mode, outputs);
  EXPECT_TRUE(st.isOk()) << st.toString();
  return outputs;
}

/// The key property: the same blocks, and fused == chain in both modes
/// (native f32 within 1e-5), with exactly `nanCount` NaN outputs. Returns
/// the fused reference outputs for further checks.
std::map<std::string, Tensor> expectMatchesChain(const SparseCase &c,
                                                 int64_t nanCount = 0) {
  SparseInputs in = makeInputs(c);
  Graph fused = fusedGraph(c, in), chain = chainGraph(c, in);
  auto fusedRef = runGraph(fused, in, NumericMode::Reference);
  auto chainRef = runGraph(chain, in, NumericMode::Reference);
  if (fusedRef.empty() || chainRef.empty())
    return fusedRef;
  // The selection is exact: one different block changes the answer by far
  // more than any tolerance.
  EXPECT_EQ(fusedRef.at("blocks").values(), chainRef.at("blocks").values());
  expectClose(fusedRef.at("out"), chainRef.at("out"), {1e-12, 0.0},
              "reference");
  EXPECT_EQ(countNaN(fusedRef.at("out")), nanCount);
  for (double v : fusedRef.at("out").values())
    EXPECT_TRUE(std::isnan(v) || std::fabs(v) <= 1.0) << v;
  if (c.dtype == DType::F32) {
    auto fusedNat = runGraph(fused, in, NumericMode::Native);
    auto chainNat = runGraph(chain, in, NumericMode::Native);
    EXPECT_EQ(fusedNat.at("blocks").values(), chainNat.at("blocks").values());
    expectClose(fusedNat.at("out"), chainNat.at("out"), {1e-5, 0.0},
                "native f32");
    expectClose(fusedNat.at("out"), fusedRef.at("out"), {1e-5, 0.0},
                "native vs reference");
  }
  return fusedRef;
}

std::vector<double> blocksOf(const std::map<std::string, Tensor> &outputs) {
  return outputs.at("blocks").values();
}

//===----------------------------------------------------------------------===//
// The fused pair against the chain
//===----------------------------------------------------------------------===//

TEST(SparseOps, DecodeScalarPos) {
  SparseCase c;
  c.pos = {21};
  auto out = expectMatchesChain(c);
  // A different seed gives a different answer: the comparison is not
  // vacuous.
  SparseCase other = c;
  other.seed = 2;
  SparseInputs in = makeInputs(other);
  auto otherOut = runGraph(fusedGraph(other, in), in, NumericMode::Reference);
  Comparison diff =
      compareTensors(out.at("out"), otherOut.at("out"), {1e-3, 0.0});
  EXPECT_FALSE(diff.ok());
}

TEST(SparseOps, DecodeManyPositions) {
  // Every position of the cache, so the own block is block 0, a middle
  // block and the last block, and rows see from 1 to all 8 blocks.
  for (int64_t pos = 0; pos < 32; ++pos) {
    SCOPED_TRACE("pos " + std::to_string(pos));
    SparseCase c;
    c.pos = {pos};
    c.K = 3;
    c.seed = static_cast<uint64_t>(pos + 10);
    expectMatchesChain(c);
  }
}

TEST(SparseOps, PrefillFromZero) {
  SparseCase c;
  c.Lq = c.Lk = 16;
  c.ratio = 4;
  c.K = 2;
  expectMatchesChain(c);
}

TEST(SparseOps, ChunkWithPerRowPositions) {
  SparseCase c;
  c.Lq = 3;
  c.pos = {5, 26};
  c.Hkv = 1; // MQA
  expectMatchesChain(c);
}

TEST(SparseOps, PagedShuffledReadMap) {
  SparseCase c;
  c.pool = 80;
  c.pos = {13, 30};
  c.Lq = 2;
  expectMatchesChain(c);
}

TEST(SparseOps, Softcap) {
  SparseCase c;
  c.pos = {17};
  c.scale = 1.0;
  c.softcap = 0.5;
  expectMatchesChain(c);
}

TEST(SparseOps, RatioOneAndOneBlockPerRow) {
  // ratio 1: every key is its own block; K = 1.
  SparseCase c;
  c.ratio = 1;
  c.K = 1;
  c.Lk = 12;
  c.pos = {9};
  expectMatchesChain(c);
  // One block holding every key.
  SparseCase whole = c;
  whole.ratio = 12;
  expectMatchesChain(whole);
}

TEST(SparseOps, Bf16Reference) {
  SparseCase c;
  c.dtype = DType::BF16;
  c.pos = {19};
  expectMatchesChain(c);
}

//===----------------------------------------------------------------------===//
// Ties, NaN, and rows with fewer blocks than K
//===----------------------------------------------------------------------===//

TEST(SparseOps, AllScoresTieAtZero) {
  // relu makes every past block score 0 and every future block -inf: the
  // top K are the K lowest ids, as topk's "ties to the lower index" says.
  SparseCase c;
  c.scores = Scores::AllZero;
  c.pos = {25};
  c.K = 3;
  auto out = expectMatchesChain(c);
  std::vector<double> want;
  for (int64_t b = 0; b < c.B; ++b)
    want.insert(want.end(), {0, 1, 2});
  EXPECT_EQ(blocksOf(out), want);
}

TEST(SparseOps, EqualBlockMaximaTieToTheLowerId) {
  SparseCase c;
  c.scores = Scores::EqualPairs;
  c.K = 3;
  c.Lq = 2;
  c.pos = {30};
  auto out = expectMatchesChain(c);
  // Row 1 sits at 31, where every block 2j + 1 is complete and copies block
  // 2j: the maxima tie in pairs, so the top 3 are the best pair, lower id
  // first, then the lower id of the second best pair.
  std::vector<double> blocks = blocksOf(out);
  for (int64_t b = 0; b < c.B; ++b) {
    const double *row = blocks.data() + (b * c.Lq + 1) * c.K;
    EXPECT_EQ(static_cast<int64_t>(row[0]) % 2, 0) << b;
    EXPECT_EQ(row[1], row[0] + 1) << b;
    EXPECT_EQ(static_cast<int64_t>(row[2]) % 2, 0) << b;
  }
}

TEST(SparseOps, FewerPastBlocksThanK) {
  // At pos 1 only block 0 has a past key; blocks 1 and 2 fill the top 3 at
  // -inf (lowest ids first) and the attention hides their keys.
  SparseCase c;
  c.pos = {1};
  c.K = 3;
  auto out = expectMatchesChain(c);
  std::vector<double> want;
  for (int64_t b = 0; b < c.B; ++b)
    want.insert(want.end(), {0, 1, 2});
  EXPECT_EQ(blocksOf(out), want);
}

TEST(SparseOps, NaNIndexerScoreRanksFirst) {
  // A NaN indexer key makes its block's max NaN, and NaN ranks above every
  // number; the attention keys themselves are finite.
  SparseCase c;
  c.pos = {29};
  c.nanKey = 9; // block 2
  auto out = expectMatchesChain(c);
  for (int64_t b = 0; b < c.B; ++b)
    EXPECT_EQ(blocksOf(out).at(b * c.K), 2.0);
  // A NaN key in the future is hidden before the block max.
  SparseCase future = c;
  future.pos = {7};
  future.nanKey = 9;
  auto later = expectMatchesChain(future);
  for (int64_t b = 0; b < c.B; ++b)
    EXPECT_NE(blocksOf(later).at(b * c.K), 2.0);
}

TEST(SparseOps, RowBeforeEveryKeyIsNaN) {
  // pos -1: every key is in the future, so no key is visible and the row is
  // 0/0 in both graphs.
  SparseCase c;
  c.pos = {-1};
  expectMatchesChain(c, c.B * c.Hq * c.Dv);
}

//===----------------------------------------------------------------------===//
// selected_attention by hand
//===----------------------------------------------------------------------===//

/// Runs one eqn on the given operands.
Status runEqn(const std::string &op, const std::vector<Tensor> &operands,
              Attrs attrs, TensorType result, NumericMode mode, Tensor &out) {
  Eqn eqn;
  eqn.op = op;
  eqn.attrs = std::move(attrs);
  eqn.location = "sparse.mlir:7:3";
  std::vector<const Tensor *> ptrs;
  for (const Tensor &t : operands)
    ptrs.push_back(&t);
  std::vector<Tensor> results;
  Status st = evaluateEqn(eqn, ptrs, {result}, mode, results);
  if (st.isOk())
    out = results.at(0);
  return st;
}

Tensor I32(Shape shape, std::vector<double> values) {
  return Tensor(TT(DType::I32, std::move(shape)), std::move(values));
}

/// q = 0 makes every visible key weigh the same, so channel 1 of the
/// output (v[t][1] = t) is the mean visible key index and channel 0
/// (v[t][0] = 1) is 1 exactly when some key is visible.
struct UniformKeys {
  int64_t lk;
  Tensor q, k, v;
  explicit UniformKeys(int64_t lk) : lk(lk) {
    q = Tensor(TT(DType::F64, {1, 1, 1, 2}), {0, 0});
    k = Tensor(TT(DType::F64, {1, 1, lk, 2}), std::vector<double>(2 * lk, 1));
    std::vector<double> vv;
    for (int64_t t = 0; t < lk; ++t)
      vv.insert(vv.end(), {1.0, static_cast<double>(t)});
    v = Tensor(TT(DType::F64, {1, 1, lk, 2}), vv);
  }
  /// Mean visible key for blocks `ids` at position `pos`.
  Tensor run(std::vector<double> ids, int64_t pos, int64_t ratio) {
    Tensor blocks = I32({1, 1, static_cast<int64_t>(ids.size())}, ids);
    Tensor p = I32({}, {static_cast<double>(pos)});
    Attrs a = {{"scale", Attr::ofFloat(1.0)},
               {"n_rep", Attr::ofInt(1)},
               {"ratio", Attr::ofInt(ratio)},
               {"operandSegmentSizes", Attr::ofInts({1, 1, 1, 1, 0, 1})}};
    Tensor out;
    Status st =
        runEqn("selected_attention", {q, k, v, blocks, p}, a,
               TT(DType::F64, {1, 1, 1, 2}), NumericMode::Reference, out);
    EXPECT_TRUE(st.isOk()) << st.toString();
    return out;
  }
};

double meanOf(std::vector<int64_t> keys) {
  return std::accumulate(keys.begin(), keys.end(), 0.0) /
         static_cast<double>(keys.size());
}

TEST(SelectedAttentionByHand, VisibleKeys) {
  UniformKeys u(16);
  // ratio 4, pos 9: blocks 0 and 3 are selected, block 2 is the row's own
  // (keys 8, 9 up to the row); block 3 is wholly in the future.
  Tensor out = u.run({0, 3}, 9, 4);
  EXPECT_EQ(out.at(0), 1.0);
  EXPECT_NEAR(out.at(1), meanOf({0, 1, 2, 3, 8, 9}), 1e-15);
  // The own block selected again counts once.
  out = u.run({2, 2}, 9, 4);
  EXPECT_NEAR(out.at(1), meanOf({8, 9}), 1e-15);
  // Ids outside [0, 4) name no key.
  out = u.run({-1, 4, 1}, 9, 4);
  EXPECT_NEAR(out.at(1), meanOf({4, 5, 6, 7, 8, 9}), 1e-15);
  // At the last key of a block the own block is complete.
  out = u.run({0}, 11, 4);
  EXPECT_NEAR(out.at(1), meanOf({0, 1, 2, 3, 8, 9, 10, 11}), 1e-15);
  // Past the cache the own block names no key: only the selected ones.
  out = u.run({1}, 40, 4);
  EXPECT_NEAR(out.at(1), meanOf({4, 5, 6, 7}), 1e-15);
  // Before every key: nothing is visible, 0/0.
  out = u.run({0, 1}, -1, 4);
  EXPECT_TRUE(std::isnan(out.at(0)) && std::isnan(out.at(1)));
}

TEST(SelectedAttentionByHand, GarbageOutsideTheVisibleKeysIsNeverRead) {
  UniformKeys u(8);
  // Keys 4..7 (block 1, never visible at pos 3 without being selected).
  for (int64_t t = 4; t < 8; ++t) {
    u.k.at(t * 2) = kNaN;
    u.v.at(t * 2 + 1) = kInf;
  }
  Tensor out = u.run({0}, 3, 4);
  EXPECT_NEAR(out.at(1), meanOf({0, 1, 2, 3}), 1e-15);
}

TEST(BlockTopKByHand, FutureKeysAndTies) {
  // Two rows at pos 5 and 6 (ratio 2, 4 blocks). Row 0 sees keys 0..5:
  // block maxima 3, 3, 7, -inf. Row 1 sees key 6 too: block 3 scores 9.
  Tensor scores(TT(DType::F32, {1, 2, 8}), {1, 3, 3, 2, 7, 0, 9, 5, //
                                            1, 3, 3, 2, 7, 0, 9, 5});
  Tensor pos = I32({}, {5});
  Attrs a = {{"ratio", Attr::ofInt(2)}, {"k", Attr::ofInt(3)}};
  Tensor out;
  ASSERT_TRUE(runEqn("block_topk", {scores, pos}, a, TT(DType::I32, {1, 2, 3}),
                     NumericMode::Native, out)
                  .isOk());
  EXPECT_EQ(out.values(), (std::vector<double>{2, 0, 1, 3, 2, 0}));
  // Without pos the rows sit at 0 and 1: only block 0 has a past key, the
  // rest tie at -inf and go in id order.
  ASSERT_TRUE(runEqn("block_topk", {scores}, a, TT(DType::I32, {1, 2, 3}),
                     NumericMode::Native, out)
                  .isOk());
  EXPECT_EQ(out.values(), (std::vector<double>{0, 1, 2, 0, 1, 2}));
}

//===----------------------------------------------------------------------===//
// Malformed records
//===----------------------------------------------------------------------===//

TEST(SparseOpsRecords, MalformedRecordsFailCleanly) {
  Tensor out;
  auto expectError = [&](Status st, ErrorCode code, const char *needle) {
    EXPECT_EQ(st.code(), code) << st.toString();
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("sparse.mlir:7:3: "), std::string::npos)
        << st.message();
  };
  auto invalid = [&](Status st, const char *needle) {
    expectError(st, ErrorCode::InvalidArgument, needle);
  };

  Tensor scores(TT(DType::F32, {1, 1, 8}), std::vector<double>(8, 0.5));
  TensorType blocksType = TT(DType::I32, {1, 1, 2});
  Attrs top = {{"ratio", Attr::ofInt(2)}, {"k", Attr::ofInt(2)}};
  ASSERT_TRUE(
      runEqn("block_topk", {scores}, top, blocksType, NumericMode::Native, out)
          .isOk());
  Attrs noK = top;
  noK.erase("k");
  invalid(
      runEqn("block_topk", {scores}, noK, blocksType, NumericMode::Native, out),
      "missing attribute 'k'");
  Attrs badRatio = top;
  badRatio["ratio"] = Attr::ofInt(3);
  invalid(runEqn("block_topk", {scores}, badRatio, blocksType,
                 NumericMode::Native, out),
          "ratio must divide the 8 keys, got 3");
  Attrs bigK = top;
  bigK["k"] = Attr::ofInt(5);
  invalid(runEqn("block_topk", {scores}, bigK, TT(DType::I32, {1, 1, 5}),
                 NumericMode::Native, out),
          "k must be in [1, 4], got 5");
  invalid(runEqn("block_topk", {scores, I32({2}, {0, 0})}, top, blocksType,
                 NumericMode::Native, out),
          "pos must be an i32/i64 scalar (0-d) or [1]");
  invalid(runEqn("block_topk", {scores}, top, TT(DType::I64, {1, 1, 2}),
                 NumericMode::Native, out),
          "result must be tensor<1x1x2xi32>");

  Tensor q(TT(DType::F32, {1, 2, 1, 4}), std::vector<double>(8, 0.5));
  Tensor k(TT(DType::F32, {1, 1, 8, 4}), std::vector<double>(32, 0.5));
  Tensor v(TT(DType::F32, {1, 1, 8, 2}), std::vector<double>(16, 0.5));
  Tensor blocks = I32({1, 1, 2}, {0, 3});
  TensorType result = TT(DType::F32, {1, 2, 1, 2});
  Attrs good = {{"scale", Attr::ofFloat(0.5)},
                {"n_rep", Attr::ofInt(2)},
                {"ratio", Attr::ofInt(2)}};
  ASSERT_TRUE(runEqn("selected_attention", {q, k, v, blocks}, good, result,
                     NumericMode::Native, out)
                  .isOk());
  Attrs noRatio = good;
  noRatio.erase("ratio");
  invalid(runEqn("selected_attention", {q, k, v, blocks}, noRatio, result,
                 NumericMode::Native, out),
          "missing attribute 'ratio'");
  Attrs floatRatio = good;
  floatRatio["ratio"] = Attr::ofFloat(2.0);
  invalid(runEqn("selected_attention", {q, k, v, blocks}, floatRatio, result,
                 NumericMode::Native, out),
          "attribute 'ratio' must be an integer");
  Attrs odd = good;
  odd["ratio"] = Attr::ofInt(3);
  invalid(runEqn("selected_attention", {q, k, v, blocks}, odd, result,
                 NumericMode::Native, out),
          "ratio must divide the 8 keys, got 3");
  Attrs badRep = good;
  badRep["n_rep"] = Attr::ofInt(3);
  invalid(runEqn("selected_attention", {q, k, v, blocks}, badRep, result,
                 NumericMode::Native, out),
          "n_rep must divide the 2 query heads, got 3");
  invalid(runEqn("selected_attention", {q, k, v, I32({1, 2, 2}, {0, 0, 0, 0})},
                 good, result, NumericMode::Native, out),
          "blocks must be an integer [1, 1, K]");
  invalid(runEqn("selected_attention", {q, k, v, blocks, I32({}, {0})}, good,
                 result, NumericMode::Native, out),
          "missing attribute 'operandSegmentSizes'");
  Attrs segments = good;
  segments["operandSegmentSizes"] = Attr::ofInts({1, 1, 1, 0, 0, 1});
  invalid(runEqn("selected_attention", {q, k, v, I32({}, {0})}, segments,
                 result, NumericMode::Native, out),
          "operandSegmentSizes gives blocks 0 operand(s), expected 1");
  invalid(runEqn("selected_attention", {q, k, v, blocks}, good,
                 TT(DType::F32, {1, 2, 1, 4}), NumericMode::Native, out),
          "result must be tensor<1x2x1x2xf32>");

  // Paged: a read word outside the pool fails the run, visited or not.
  Tensor kPool(TT(DType::F32, {8, 1, 4}), std::vector<double>(32, 0.5));
  Tensor vPool(TT(DType::F32, {8, 1, 2}), std::vector<double>(16, 0.5));
  Tensor read = I32({1, 8}, {0, 1, 2, 3, 4, 5, 6, 8});
  Attrs paged = good;
  paged["operandSegmentSizes"] = Attr::ofInts({1, 1, 1, 1, 1, 0});
  expectError(runEqn("selected_attention", {q, kPool, vPool, blocks, read},
                     paged, result, NumericMode::Native, out),
              ErrorCode::IndexOutOfRange,
              "read word 8 (row 0, key 7) outside the pool [0, 8)");
  read.at(7) = 7;
  EXPECT_TRUE(runEqn("selected_attention", {q, kPool, vPool, blocks, read},
                     paged, result, NumericMode::Native, out)
                  .isOk());
}

} // namespace
