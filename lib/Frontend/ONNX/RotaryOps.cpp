//===- RotaryOps.cpp - RotaryEmbedding of both domains --------------------===//
//
// The opset-23 RotaryEmbedding (X, cos_cache, sin_cache, position_ids) and
// ONNX Runtime's contrib RotaryEmbedding (input, position_ids, cos_cache,
// sin_cache): the same rotation with the inputs in another order, the
// contrib op also taking a start position instead of position ids. Both
// take 4-D inputs as [B, H, S, D] and 3-D ones as [B, S, H*D].
//
// The caches hold half tables [M, rot/2]; the rows of the positions are
// gathered, widened to rot channels (both halves side by side, or each
// entry twice when interleaved) and applied with the tracer's rope
// spelling (x * cos + rotate(x) * sin, the channels past rot passed
// through), which poot-rope fuses.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "poot/Dialect/PootDialect.h"

#include <cstdio>

using namespace mlir;
using llvm::SmallVector;
using poot::trace::Tracer;

namespace poot::onnx::detail {

Value Importer::fullRotaryTable(Value half, bool interleaved) {
  if (!interleaved)
    return t.concat({half, half}, -1);
  SmallVector<int64_t> pairs(Tracer::shapeOf(half));
  pairs.push_back(1);
  SmallVector<int64_t> doubled(pairs);
  doubled.back() = 2;
  SmallVector<int64_t> full(Tracer::shapeOf(half));
  full.back() *= 2;
  Value x = t.broadcast(t.reshape(half, pairs), doubled);
  return t.reshape(x, full);
}

Value Importer::rotate(Value x, Value cosHalf, Value sinHalf,
                       bool interleaved, int64_t rotaryDim) {
  auto style =
      interleaved ? trace::RopeStyle::Interleaved : trace::RopeStyle::Half;
  // One statement per table, so the ops come out in the same order
  // whatever order a compiler evaluates arguments in.
  Value cos = fullRotaryTable(cosHalf, interleaved);
  Value sin = fullRotaryTable(sinHalf, interleaved);
  return trace::ops::rope(t, x, cos, sin, style, rotaryDim);
}

Value Importer::cacheRows(Val &cache, Value pos) {
  return t.gather(valueOf(cache), pos, /*axis=*/0);
}

bool Importer::rotaryCaches(int cosInput, int sinInput, Val *&cos,
                            Val *&sin) {
  cos = &in(cosInput), sin = &in(sinInput);
  if (cos->shape != sin->shape || cos->kind != sin->kind ||
      cos->kind != in(0).kind)
    return fail("expected cos_cache and sin_cache of one shape and the "
                "input's type, got " + shapeStr(cos->shape) + " and " +
                shapeStr(sin->shape));
  if (cos->shape.empty() || cos->shape.back() < 1)
    return fail("expected cos_cache [..., rotary_dim / 2], got " +
                shapeStr(cos->shape));
  return true;
}

bool Importer::applyRotary(Val &x, int64_t heads, Value cosHalf,
                           Value sinHalf, int64_t rotaryDim) {
  // cosHalf, sinHalf: [1 or B, S, rot/2].
  ArrayRef<int64_t> cs = Tracer::shapeOf(cosHalf);
  int64_t batch = x.shape[0], half = cs[2];
  bool fourD = x.shape.size() == 4;
  int64_t seq = fourD ? x.shape[2] : x.shape[1];
  if ((cs[0] != 1 && cs[0] != batch) || cs[1] != seq)
    return fail("expected the cos and sin rows [1 or " +
                std::to_string(batch) + ", " + std::to_string(seq) +
                ", rotary_dim / 2], got " + shapeStr(cs));
  Value xv = valueOf(x);
  int64_t width = fourD ? x.shape[3] : 0;
  SmallVector<int64_t> tableShape{cs[0], 1, seq, half};
  if (!fourD) {
    if (heads < 1 || x.shape[2] % heads != 0)
      return fail("expected num_heads dividing the hidden size " +
                  std::to_string(x.shape[2]) + ", got " +
                  std::to_string(heads));
    width = x.shape[2] / heads;
    xv = t.reshape(xv, {batch, seq, heads, width});
    tableShape = {cs[0], seq, 1, half};
  }
  if (rotaryDim == 0)
    rotaryDim = width;
  if (rotaryDim != 2 * half || rotaryDim > width)
    return fail("expected rotary_embedding_dim " + std::to_string(2 * half) +
                " (twice the cache width) within the head size " +
                std::to_string(width) + ", got " + std::to_string(rotaryDim));
  bool interleaved = attrInt("interleaved", 0) != 0;
  Value cos = t.reshape(cosHalf, tableShape);
  Value sin = t.reshape(sinHalf, tableShape);
  Value out = rotate(xv, cos, sin, interleaved, rotaryDim);
  if (!fourD)
    out = t.reshape(out, x.shape);
  setOut(0, out);
  return true;
}

bool Importer::importRotaryEmbedding() {
  if (opset < 23)
    return fail("expected opset >= 23 for RotaryEmbedding, got " +
                std::to_string(opset));
  Val &x = in(0);
  Val *cos, *sin;
  if (!requireFloat(x, "X") || !rotaryCaches(1, 2, cos, sin))
    return false;
  if (x.shape.size() != 3 && x.shape.size() != 4)
    return fail("expected X [B, H, S, D] or [B, S, H*D], got " +
                shapeStr(x.shape));
  if (x.shape.size() == 3 && attrInt("num_heads", 0) < 1)
    return fail("expected num_heads >= 1 for a rank-3 X");
  Value c, s;
  if (has(3)) {
    // Caches [M, rot/2] read at position_ids [B, S].
    Val &pos = in(3);
    if (!requireRank(*cos, 2, "cos_cache") ||
        !requireRank(pos, 2, "position_ids"))
      return false;
    if (pos.kind != ElemKind::I64 && pos.kind != ElemKind::I32)
      return fail("expected integer position_ids, got " +
                  std::string(kindName(pos.kind)));
    c = cacheRows(*cos, valueOf(pos)), s = cacheRows(*sin, valueOf(pos));
  } else {
    // Without positions the caches are the rows: [B, S, rot/2].
    if (!requireRank(*cos, 3, "cos_cache without position_ids"))
      return false;
    c = valueOf(*cos), s = valueOf(*sin);
  }
  return applyRotary(x, attrInt("num_heads", 0), c, s,
                     attrInt("rotary_embedding_dim", 0));
}

bool Importer::contribPositions(int64_t seq, Value &pos) {
  Val &p = in(1);
  if (p.kind != ElemKind::I64 && p.kind != ElemKind::I32)
    return fail("expected integer position_ids, got " +
                std::string(kindName(p.kind)));
  int64_t n = 1;
  for (int64_t d : p.shape)
    n *= d;
  if (p.shape.size() == 2) {
    pos = valueOf(p);
    return true;
  }
  if (n != 1)
    return fail("expected position_ids [1] (a start) or [B, S], got " +
                shapeStr(p.shape));
  // One start position: row i of every batch sits at start + i.
  if (p.host) {
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < seq; ++i)
      rows.push_back(p.host->getI(0) + i);
    pos = materialize(HostTensor::fromInts({1, seq}, rows));
    return true;
  }
  Value start = t.reshape(valueOf(p), {1, 1});
  pos = t.add(start, t.iota({1, seq}, 1, Tracer::elementTypeOf(start)));
  return true;
}

bool Importer::importContribRotary() {
  if (!requireAttr("is_packed_batching", 0, 0))
    return false;
  if (double scale = attrFloat("scale", 1.0); scale != 1.0) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", scale);
    return fail("unsupported attribute value scale=" + llvm::Twine(text) +
                " (it applies when the caches are rebuilt), expected 1");
  }
  Val &x = in(0);
  Val *cos, *sin;
  if (!requireFloat(x, "input") || !rotaryCaches(2, 3, cos, sin) ||
      !requireRank(*cos, 2, "cos_cache"))
    return false;
  if (x.shape.size() != 3 && x.shape.size() != 4)
    return fail("expected input [B, S, H*D] or [B, H, S, D], got " +
                shapeStr(x.shape));
  int64_t rotaryDim = attrInt("rotary_embedding_dim", 0);
  int64_t heads = attrInt("num_heads", 0);
  if (rotaryDim > 0 && heads < 1)
    return fail("expected num_heads with rotary_embedding_dim");
  // Without rotary_embedding_dim the head size is the caches' rot.
  if (x.shape.size() == 3 && heads < 1)
    heads = x.shape[2] / (2 * cos->shape[1]);
  int64_t seq = x.shape.size() == 4 ? x.shape[2] : x.shape[1];
  Value pos;
  if (!contribPositions(seq, pos))
    return false;
  Value c = cacheRows(*cos, pos);
  Value s = cacheRows(*sin, pos);
  return applyRotary(x, heads, c, s, rotaryDim);
}

} // namespace poot::onnx::detail
