//===- AttentionOps.cpp - The attention ops of both domains ---------------===//
//
// The opset-23 Attention op and ONNX Runtime's contrib MultiHeadAttention,
// GroupQueryAttention and Attention (the fused QKV projection form). Each
// brings Q, K and V to [B, H, L, D] (its own input layout: the domain and
// the input ranks decide it), concatenates the past keys and values in
// front, builds one additive mask (causal from two iotas, so the matcher
// reads it as causal; padding masks and attention biases as tensors) and
// emits the tracer's attention chain, which poot-attention fuses.
//
// Masks keep each runtime's fill: ONNX Runtime adds mask_filter_value
// (-10000 by default) for hidden padding keys, and so does the importer, so
// a row whose keys are all padding averages them as ONNX Runtime does. The
// causal part is -inf, which differs from ONNX Runtime's fill only for a
// row with no visible key (docs/onnx.md).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "poot/Dialect/PootDialect.h"

#include <limits>

using namespace mlir;
using llvm::SmallVector;
using poot::trace::Tracer;

namespace poot::onnx::detail {

namespace {

/// x[..., lo:hi] along `axis`.
Value sliceAxis(Tracer &t, Value x, int64_t axis, int64_t lo, int64_t hi) {
  ArrayRef<int64_t> s = Tracer::shapeOf(x);
  SmallVector<int64_t> start(s.size(), 0), limit(s);
  start[axis] = lo;
  limit[axis] = hi;
  return t.slice(x, start, limit);
}

/// Part `part` of a packed [B, L, H, n, D] tensor as [B, H, L, D].
Value unpack(Tracer &t, Value x, int64_t part) {
  ArrayRef<int64_t> s = Tracer::shapeOf(x);
  Value p = sliceAxis(t, x, 3, part, part + 1);
  p = t.reshape(p, {s[0], s[1], s[2], s[4]});
  return t.transpose(p, {0, 2, 1, 3});
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

bool Importer::splitHeads(Value x, int64_t heads, StringRef what,
                          Value &out) {
  ArrayRef<int64_t> s = Tracer::shapeOf(x);
  if (s.size() != 3)
    return fail("expected " + what + " of rank 3, got " + shapeStr(s));
  if (heads < 1 || s[2] % heads != 0)
    return fail(what + " hidden size " + std::to_string(s[2]) +
                " is not a multiple of " + std::to_string(heads) + " heads");
  out = t.transpose(t.reshape(x, {s[0], s[1], heads, s[2] / heads}),
                    {0, 2, 1, 3});
  return true;
}

Value Importer::mergeHeads(Value x) {
  ArrayRef<int64_t> s = Tracer::shapeOf(x);
  return t.reshape(t.transpose(x, {0, 2, 1, 3}), {s[0], s[2], s[1] * s[3]});
}

bool Importer::checkHeadShapes(Value q, Value k, Value v) {
  ArrayRef<int64_t> qs = Tracer::shapeOf(q), ks = Tracer::shapeOf(k),
                    vs = Tracer::shapeOf(v);
  if (ks[0] != qs[0] || vs[0] != qs[0] || ks[1] != vs[1] ||
      ks[2] != vs[2] || qs[3] != ks[3])
    return fail("expected K [B, Hkv, L, D] and V [B, Hkv, L, Dv] matching "
                "Q, got " + shapeStr(qs) + ", " + shapeStr(ks) + " and " +
                shapeStr(vs));
  if (qs[1] % ks[1] != 0)
    return fail("expected the key heads (" + std::to_string(ks[1]) +
                ") to divide the query heads (" + std::to_string(qs[1]) +
                ")");
  return true;
}

Value Importer::emitAttention(const AttentionParts &parts) {
  return trace::ops::attentionCore(t, parts.q, parts.k, parts.v, parts.mask,
                                   parts.options);
}

bool Importer::concatPast(int pk, int pv, Value &k, Value &v,
                          int64_t &past) {
  past = 0;
  if (!has(pk) && !has(pv))
    return true;
  if (has(pk) != has(pv))
    return fail("expected past_key and past_value together, got one");
  Val &pkv = in(pk), &pvv = in(pv);
  ArrayRef<int64_t> ks = Tracer::shapeOf(k), vs = Tracer::shapeOf(v);
  Type et = Tracer::elementTypeOf(k);
  if (pkv.shape.size() != 4 || pvv.shape.size() != 4 ||
      pkv.shape[0] != ks[0] || pkv.shape[1] != ks[1] ||
      pkv.shape[3] != ks[3] || pvv.shape[0] != vs[0] ||
      pvv.shape[1] != vs[1] || pvv.shape[3] != vs[3] ||
      pkv.shape[2] != pvv.shape[2] || mlirType(pkv.kind) != et ||
      mlirType(pvv.kind) != et)
    return fail("expected past_key and past_value [B, Hkv, P, D] matching "
                "K and V, got " + shapeStr(pkv.shape) + " and " +
                shapeStr(pvv.shape));
  past = pkv.shape[2];
  k = t.concat({valueOf(pkv), k}, 2);
  v = t.concat({valueOf(pvv), v}, 2);
  return true;
}

bool Importer::addAttentionBias(int k, ArrayRef<int64_t> scores,
                                Type storage, Value &mask) {
  if (!has(k))
    return true;
  Val &b = in(k);
  if (mlirType(b.kind) != storage)
    return fail("expected attention_bias of the query's type, got " +
                std::string(kindName(b.kind)));
  auto shape = broadcastShapes(b.shape, scores);
  if (b.shape.size() != 4 || !shape ||
      ArrayRef<int64_t>(*shape) != scores || b.shape[2] != scores[2] ||
      b.shape[3] != scores[3])
    return fail("expected attention_bias [B or 1, H or 1, " +
                std::to_string(scores[2]) + ", " + std::to_string(scores[3]) +
                "], got " + shapeStr(b.shape));
  mask = mask ? t.add(mask, valueOf(b)) : valueOf(b);
  return true;
}

bool Importer::keyPaddingMask(int k, ArrayRef<int64_t> scores, double fill,
                              Type storage, Value &mask) {
  if (!has(k))
    return true;
  Val &m = in(k);
  int64_t batch = scores[0], queryLen = scores[2], keyLen = scores[3];
  if (m.kind != ElemKind::I32 && m.kind != ElemKind::I64)
    return fail("expected an integer key padding mask, got " +
                std::string(kindName(m.kind)));
  Value mv = t.convertIfNeeded(valueOf(m), t.i32Type());
  Value visible;
  SmallVector<int64_t> shape{batch, 1, 1, keyLen};
  ArrayRef<int64_t> ms = m.shape;
  if (ms.size() == 1 && (ms[0] == batch || ms[0] == 2 * batch)) {
    // Valid lengths (right padding), then start positions (left padding).
    Value kpos = t.iota({1, keyLen}, 1, t.i32Type());
    Value end = ms[0] == batch ? mv : sliceAxis(t, mv, 0, 0, batch);
    visible = t.compare(ComparePredicate::lt, kpos,
                        t.reshape(end, {batch, 1}));
    if (ms[0] == 2 * batch) {
      Value start =
          t.reshape(sliceAxis(t, mv, 0, batch, 2 * batch), {batch, 1});
      visible = t.logicalAnd(
          visible, t.compare(ComparePredicate::ge, kpos, start));
    }
  } else if ((ms.size() == 2 && ms[0] == batch && ms[1] == keyLen) ||
             (ms.size() == 3 && ms[0] == batch && ms[1] == queryLen &&
              ms[2] == keyLen)) {
    // Raw masks: a key is visible where the mask is positive.
    visible = t.compare(ComparePredicate::gt, mv, t.scalar(0.0, t.i32Type()));
    shape[2] = ms.size() == 3 ? queryLen : 1;
  } else {
    return fail("expected a key padding mask [" + std::to_string(batch) +
                "], [" + std::to_string(2 * batch) + "], [" +
                std::to_string(batch) + ", " + std::to_string(keyLen) +
                "] or [" + std::to_string(batch) + ", " +
                std::to_string(queryLen) + ", " + std::to_string(keyLen) +
                "], got " + shapeStr(ms));
  }
  visible = t.reshape(visible, shape);
  Value shown = t.splat(0.0, shape, storage);
  Value hidden = t.splat(fill, shape, storage);
  Value add = t.select(visible, shown, hidden);
  mask = mask ? t.add(mask, add) : add;
  return true;
}

//===----------------------------------------------------------------------===//
// Attention (opset 23)
//===----------------------------------------------------------------------===//

bool Importer::attention23Inputs(Value &q, Value &k, Value &v) {
  Val &qv = in(0), &kv = in(1), &vv = in(2);
  if (!requireFloat(qv, "Q"))
    return false;
  if (kv.kind != qv.kind || vv.kind != qv.kind)
    return fail("expected Q, K and V of one element type");
  size_t rank = qv.shape.size();
  if ((rank != 3 && rank != 4) || kv.shape.size() != rank ||
      vv.shape.size() != rank)
    return fail("expected Q, K and V all of rank 3 or all of rank 4, got " +
                shapeStr(qv.shape) + ", " + shapeStr(kv.shape) + " and " +
                shapeStr(vv.shape));
  q = valueOf(qv), k = valueOf(kv), v = valueOf(vv);
  if (rank == 3) {
    int64_t hq = attrInt("q_num_heads", 0), hkv = attrInt("kv_num_heads", 0);
    if (hq < 1 || hkv < 1)
      return fail("expected q_num_heads and kv_num_heads >= 1 for rank-3 "
                  "inputs");
    return splitHeads(q, hq, "Q", q) && splitHeads(k, hkv, "K", k) &&
           splitHeads(v, hkv, "V", v);
  }
  if (attr("q_num_heads") || attr("kv_num_heads")) {
    int64_t hq = attrInt("q_num_heads", qv.shape[1]);
    int64_t hkv = attrInt("kv_num_heads", kv.shape[1]);
    if (hq != qv.shape[1] || hkv != kv.shape[1])
      return fail("expected q_num_heads and kv_num_heads to match the "
                  "rank-4 inputs");
  }
  return true;
}

bool Importer::attention23Mask(ArrayRef<int64_t> scores, Type storage,
                               Value &mask) {
  if (!has(3))
    return true;
  Val &m = in(3);
  int64_t keyLen = scores[3];
  if (m.shape.empty() || m.shape.back() != keyLen)
    return fail("expected attn_mask with a last dim of " +
                std::to_string(keyLen) + " keys, got " + shapeStr(m.shape));
  if (!broadcastShapes(m.shape, scores) || m.shape.size() > 4)
    return fail("expected attn_mask to broadcast to " + shapeStr(scores) +
                ", got " + shapeStr(m.shape));
  Value mv = valueOf(m);
  if (m.kind == ElemKind::Bool) {
    // True attends: select(mask, 0, -inf).
    mv = t.select(mv, t.scalar(0.0, storage),
                  t.scalar(-std::numeric_limits<double>::infinity(),
                           storage));
  } else if (mlirType(m.kind) != storage) {
    return fail("expected a bool attn_mask or one of Q's type, got " +
                std::string(kindName(m.kind)));
  }
  mask = mv;
  return true;
}

bool Importer::importAttention() {
  if (opset < 23)
    return fail("expected opset >= 23 for Attention, got " +
                std::to_string(opset));
  if (has(6))
    return fail("input 6 (nonpad_kv_seqlen) is not supported");
  if (outputUsed(3))
    return fail("output 3 (qk_matmul_output) is not supported");
  if (!requireAttr("qk_matmul_output_mode", 0, 0))
    return false;
  AttentionParts p;
  int64_t past = 0;
  if (!attention23Inputs(p.q, p.k, p.v) || !checkHeadShapes(p.q, p.k, p.v) ||
      !concatPast(4, 5, p.k, p.v, past))
    return false;
  ArrayRef<int64_t> qs = Tracer::shapeOf(p.q);
  int64_t keyLen = Tracer::shapeOf(p.k)[2];
  SmallVector<int64_t> scores{qs[0], qs[1], qs[2], keyLen};
  Type storage = Tracer::elementTypeOf(p.q);
  if (!attention23Mask(scores, storage, p.mask))
    return false;
  if (attrInt("is_causal", 0)) {
    Value causal = causalMask(qs[2], keyLen, past, storage);
    p.mask = p.mask ? t.add(p.mask, causal) : causal;
  }
  if (const auto *a = attr("scale"))
    p.options.scale = a->f();
  if (const auto *a = attr("softcap"); a && a->f() != 0.0)
    p.options.softcap = a->f();
  if (const auto *a = attr("softmax_precision")) {
    auto kind = kindFromOnnx(static_cast<int32_t>(a->i()));
    if (!kind || !isFloatKind(*kind))
      return fail("unsupported attribute value softmax_precision=" +
                  onnxTypeName(static_cast<int32_t>(a->i())));
    p.options.softmaxInF32 = *kind == ElemKind::F32 || *kind == ElemKind::F64;
  }
  Value out = emitAttention(p);
  if (in(0).shape.size() == 3)
    out = mergeHeads(out);
  setOut(0, out);
  setOut(1, p.k);
  setOut(2, p.v);
  return true;
}

//===----------------------------------------------------------------------===//
// com.microsoft MultiHeadAttention
//===----------------------------------------------------------------------===//

bool Importer::mhaProjectionBias(Value &q, Value &k, Value &v) {
  if (!has(3))
    return true;
  Val &b = in(3);
  int64_t hq = Tracer::shapeOf(q)[2], hk = Tracer::shapeOf(k)[2],
          hv = Tracer::shapeOf(v)[2];
  if (b.shape.size() != 1 || b.shape[0] != hq + hk + hv ||
      mlirType(b.kind) != Tracer::elementTypeOf(q))
    return fail("expected bias [" + std::to_string(hq + hk + hv) +
                "] of the query's type, got " + shapeStr(b.shape));
  Value bv = valueOf(b);
  q = t.add(q, sliceAxis(t, bv, 0, 0, hq));
  k = t.add(k, sliceAxis(t, bv, 0, hq, hq + hk));
  v = t.add(v, sliceAxis(t, bv, 0, hq + hk, hq + hk + hv));
  return true;
}

bool Importer::mhaProjections(int64_t heads, Value &q, Value &k, Value &v,
                              bool &kvInHeads) {
  Val &qv = in(0);
  kvInHeads = false;
  if (!requireFloat(qv, "query"))
    return false;
  if (qv.shape.size() == 5) {
    // Packed QKV [B, S, H, 3, D].
    if (has(1) || has(2) || has(3))
      return fail("expected no key, value or bias with packed QKV");
    if (qv.shape[2] != heads || qv.shape[3] != 3)
      return fail("expected packed QKV [B, S, " + std::to_string(heads) +
                  ", 3, D], got " + shapeStr(qv.shape));
    Value x = valueOf(qv);
    q = unpack(t, x, 0), k = unpack(t, x, 1), v = unpack(t, x, 2);
    return true;
  }
  if (!requireRank(qv, 3, "query"))
    return false;
  if (!has(1))
    return fail("expected key and value, or packed QKV in the query");
  Val &kv = in(1);
  if (kv.kind != qv.kind)
    return fail("expected key of the query's type, got " +
                std::string(kindName(kv.kind)));
  q = valueOf(qv);
  if (kv.shape.size() == 5) {
    // Packed KV [B, L, H, 2, D].
    if (has(2) || has(3))
      return fail("expected no value or bias with packed KV");
    if (kv.shape[2] != heads || kv.shape[3] != 2)
      return fail("expected packed KV [B, L, " + std::to_string(heads) +
                  ", 2, D], got " + shapeStr(kv.shape));
    k = unpack(t, valueOf(kv), 0), v = unpack(t, valueOf(kv), 1);
    return splitHeads(q, heads, "query", q);
  }
  if (!has(2))
    return fail("expected value with key, got none");
  Val &vv = in(2);
  if (vv.kind != qv.kind || vv.shape.size() != kv.shape.size())
    return fail("expected key and value of one rank and the query's type, "
                "got " + shapeStr(kv.shape) + " and " + shapeStr(vv.shape));
  k = valueOf(kv), v = valueOf(vv);
  if (kv.shape.size() == 4) {
    // Keys and values already in [B, H, L, D] (cross attention).
    if (has(3))
      return fail("bias with key and value in [B, H, L, D] is not supported");
    if (kv.shape[1] != heads || vv.shape[1] != heads)
      return fail("expected key and value [B, " + std::to_string(heads) +
                  ", L, D], got " + shapeStr(kv.shape));
    kvInHeads = true;
    return splitHeads(q, heads, "query", q);
  }
  return mhaProjectionBias(q, k, v) && splitHeads(q, heads, "query", q) &&
         splitHeads(k, heads, "key", k) && splitHeads(v, heads, "value", v);
}

bool Importer::importMultiHeadAttention() {
  if (has(8) || has(9))
    return fail("past_sequence_length and cache_indirection (buffer "
                "sharing, beam search) are not supported");
  if (outputUsed(3))
    return fail("output 3 (qk) is not supported");
  int64_t heads = attrInt("num_heads", 0);
  if (heads < 1)
    return fail("expected num_heads >= 1, got " + std::to_string(heads));
  AttentionParts p;
  bool kvInHeads = false;
  int64_t past = 0;
  if (!mhaProjections(heads, p.q, p.k, p.v, kvInHeads) ||
      !checkHeadShapes(p.q, p.k, p.v))
    return false;
  if (kvInHeads && (has(6) || has(7)))
    return fail("past_key and past_value with key and value in [B, H, L, D] "
                "are not supported");
  if (!concatPast(6, 7, p.k, p.v, past))
    return false;
  ArrayRef<int64_t> qs = Tracer::shapeOf(p.q);
  SmallVector<int64_t> scores{qs[0], qs[1], qs[2], Tracer::shapeOf(p.k)[2]};
  Type storage = Tracer::elementTypeOf(p.q);
  double fill = attrFloat("mask_filter_value", -10000.0);
  if (attrInt("unidirectional", 0) && qs[2] > 1)
    p.mask = causalMask(qs[2], scores[3], past, storage);
  if (!keyPaddingMask(4, scores, fill, storage, p.mask) ||
      !addAttentionBias(5, scores, storage, p.mask))
    return false;
  p.options.scale = attrFloat("scale", 0.0);
  setOut(0, mergeHeads(emitAttention(p)));
  setOut(1, p.k);
  setOut(2, p.v);
  return true;
}

//===----------------------------------------------------------------------===//
// com.microsoft GroupQueryAttention
//===----------------------------------------------------------------------===//

bool Importer::gqaProjections(int64_t heads, int64_t kvHeads, Value &q,
                              Value &k, Value &v) {
  Val &qv = in(0);
  if (!requireFloat(qv, "query") || !requireRank(qv, 3, "query"))
    return false;
  q = valueOf(qv);
  if (has(1) || has(2)) {
    if (!has(1) || !has(2))
      return fail("expected key and value together, got one");
    if (in(1).kind != qv.kind || in(2).kind != qv.kind)
      return fail("expected query, key and value of one element type");
    return splitHeads(q, heads, "query", q) &&
           splitHeads(get(1), kvHeads, "key", k) &&
           splitHeads(get(2), kvHeads, "value", v);
  }
  // Packed QKV [B, S, (H + 2 Hkv) * D]: the query heads, then the key and
  // the value heads.
  int64_t width = qv.shape[2], parts = heads + 2 * kvHeads;
  if (width % parts != 0)
    return fail("expected a packed QKV width that is a multiple of " +
                std::to_string(parts) + " heads, got " +
                std::to_string(width));
  int64_t d = width / parts;
  Value qp = sliceAxis(t, q, 2, 0, heads * d);
  Value kp = sliceAxis(t, q, 2, heads * d, (heads + kvHeads) * d);
  Value vp = sliceAxis(t, q, 2, (heads + kvHeads) * d, width);
  return splitHeads(qp, heads, "query", q) &&
         splitHeads(kp, kvHeads, "key", k) &&
         splitHeads(vp, kvHeads, "value", v);
}

bool Importer::gqaRotary(Value &q, Value &k, int64_t past) {
  if (!has(7) || !has(8))
    return fail("expected cos_cache and sin_cache with do_rotary=1");
  Val &cv = in(7), &sv = in(8);
  int64_t queryLen = Tracer::shapeOf(q)[2], width = Tracer::shapeOf(q)[3];
  if (cv.shape.size() != 2 || cv.shape != sv.shape ||
      2 * cv.shape[1] > width || cv.shape[0] < past + queryLen)
    return fail("expected cos_cache and sin_cache [M >= " +
                std::to_string(past + queryLen) + ", rotary_dim / 2 <= " +
                std::to_string(width / 2) + "] of one shape, got " +
                shapeStr(cv.shape) + " and " + shapeStr(sv.shape));
  // The new rows sit at past, past + 1, ...: a static slice of the caches.
  auto rows = [&](Val &cache) {
    Value r = sliceAxis(t, valueOf(cache), 0, past, past + queryLen);
    return t.reshape(r, {1, 1, queryLen, cache.shape[1]});
  };
  Value c = rows(cv), s = rows(sv);
  // The widened tables are shared by q and k.
  bool interleaved = attrInt("rotary_interleaved", 0) != 0;
  Value cos = fullRotaryTable(c, interleaved);
  Value sin = fullRotaryTable(s, interleaved);
  auto style =
      interleaved ? trace::RopeStyle::Interleaved : trace::RopeStyle::Half;
  int64_t rotaryDim = 2 * cv.shape[1];
  q = trace::ops::rope(t, q, cos, sin, style, rotaryDim);
  k = trace::ops::rope(t, k, cos, sin, style, rotaryDim);
  return true;
}

bool Importer::gqaLengthInput(int k, StringRef what, int64_t want) {
  Val &x = in(k);
  if (x.kind != ElemKind::I32 && x.kind != ElemKind::I64)
    return fail("expected an integer " + what + ", got " +
                std::string(kindName(x.kind)));
  if (x.host) {
    for (int64_t v : x.host->i)
      if (v != want)
        return fail("expected " + what + " " + std::to_string(want) +
                    " for every batch row (no padding), got " +
                    std::to_string(v));
    return true;
  }
  // Computed by the graph: the run fails unless every row is dense.
  Value v = valueOf(x);
  Value ok = t.compare(ComparePredicate::eq, v,
                       scalarLike(static_cast<double>(want), v));
  std::string label = node->name().empty() ? node->output(0) : node->name();
  t.validationOutput(label + "." + what.str() + "_dense", ok);
  return true;
}

bool Importer::gqaRefusals() {
  if (!requireAttr("smooth_softmax", 0, 0) ||
      !requireAttr("qk_output", 0, 0) ||
      !requireAttr("sliding_window_cache", 0, 0))
    return false;
  for (StringRef quant : {"k_quant_type", "v_quant_type"})
    if (attrString(quant, "NONE") != "NONE")
      return fail("unsupported attribute value " + quant + "='" +
                  attrString(quant, "NONE") + "', expected 'NONE'");
  if (outputUsed(3))
    return fail("output 3 (output_qk) is not supported");
  static const char *unsupported[] = {
      nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
      nullptr, nullptr, "position_ids", nullptr, "head_sink", "k_scale",
      "v_scale", "q_norm_weight", "k_norm_weight"};
  for (int k = 9; k < node->input_size() && k < 16; ++k)
    if (has(k) && unsupported[k])
      return fail("input " + std::to_string(k) + " (" + unsupported[k] +
                  ") is not supported");
  if (!has(5) || !has(6))
    return fail("expected seqlens_k (input 5) and total_sequence_length "
                "(input 6), got none");
  return true;
}

bool Importer::gqaMask(int64_t past, Type storage, AttentionParts &p) {
  ArrayRef<int64_t> qs = Tracer::shapeOf(p.q);
  int64_t keyLen = Tracer::shapeOf(p.k)[2];
  int64_t window = attrInt("local_window_size", -1);
  bool causal = attrInt("causal", 1) != 0;
  if (!causal && window > 0)
    return fail("expected local_window_size -1 when causal is 0, got " +
                std::to_string(window));
  // A window of W: a query sees its own key and the W - 1 before it, as
  // current ONNX Runtime CPU kernels read it (older ones saw one key more);
  // the tracer's window counts the visible keys the same way.
  std::optional<int64_t> visible;
  if (window > 0)
    visible = window;
  if (causal)
    p.mask = causalMask(qs[2], keyLen, past, storage, visible);
  if (has(10) && p.options.softcap)
    return fail("attention_bias with softcap is not supported");
  SmallVector<int64_t> scores{qs[0], qs[1], qs[2], keyLen};
  return addAttentionBias(10, scores, storage, p.mask);
}

bool Importer::importGroupQueryAttention() {
  if (!gqaRefusals())
    return false;
  int64_t heads = attrInt("num_heads", 0), kvHeads = attrInt("kv_num_heads", 0);
  if (heads < 1 || kvHeads < 1 || heads % kvHeads != 0)
    return fail("expected num_heads and kv_num_heads >= 1, kv_num_heads "
                "dividing num_heads, got " + std::to_string(heads) + " and " +
                std::to_string(kvHeads));
  AttentionParts p;
  if (!gqaProjections(heads, kvHeads, p.q, p.k, p.v) ||
      !checkHeadShapes(p.q, p.k, p.v))
    return false;
  // Rotary on the new rows, at positions past, past + 1, ...
  int64_t past = has(3) && in(3).shape.size() == 4 ? in(3).shape[2] : 0;
  if (attrInt("do_rotary", 0) && !gqaRotary(p.q, p.k, past))
    return false;
  if (!concatPast(3, 4, p.k, p.v, past))
    return false;
  int64_t total = Tracer::shapeOf(p.k)[2];
  // Keys are read as past then new rows: dense batches only, where every
  // row's total length is P + S.
  if (!gqaLengthInput(5, "seqlens_k", total - 1) ||
      !gqaLengthInput(6, "total_sequence_length", total))
    return false;
  p.options.scale = attrFloat("scale", 0.0);
  // ONNX Runtime applies a positive softcap only.
  if (double cap = attrFloat("softcap", 0.0); cap > 0.0)
    p.options.softcap = cap;
  if (!gqaMask(past, Tracer::elementTypeOf(p.q), p))
    return false;
  setOut(0, mergeHeads(emitAttention(p)));
  setOut(1, p.k);
  setOut(2, p.v);
  return true;
}

//===----------------------------------------------------------------------===//
// com.microsoft Attention (fused QKV projection)
//===----------------------------------------------------------------------===//

bool Importer::contribQkv(int64_t heads, Value &q, Value &k, Value &v) {
  Val &x = in(0), &w = in(1);
  if (!requireFloat(x, "input") || !requireRank(x, 3, "input") ||
      !requireRank(w, 2, "weights"))
    return false;
  if (w.kind != x.kind || w.shape[0] != x.shape[2])
    return fail("expected weights [" + std::to_string(x.shape[2]) +
                ", 3 * hidden] of the input's type, got " +
                shapeStr(w.shape));
  std::vector<int64_t> sizes;
  if (!attrInts("qkv_hidden_sizes", sizes))
    sizes.assign(3, w.shape[1] / 3);
  if (sizes.size() != 3 || sizes[0] + sizes[1] + sizes[2] != w.shape[1] ||
      sizes[0] != sizes[1])
    return fail("expected qkv_hidden_sizes [h, h, hv] summing to " +
                std::to_string(w.shape[1]) + ", got " + shapeStr(sizes));
  Value qkv = t.matmul(valueOf(x), valueOf(w));
  if (has(2)) {
    Val &b = in(2);
    if (b.shape.size() != 1 || b.shape[0] != w.shape[1] || b.kind != x.kind)
      return fail("expected bias [" + std::to_string(w.shape[1]) +
                  "], got " + shapeStr(b.shape));
    qkv = t.add(qkv, valueOf(b));
  }
  return splitHeads(sliceAxis(t, qkv, 2, 0, sizes[0]), heads, "Q", q) &&
         splitHeads(sliceAxis(t, qkv, 2, sizes[0], sizes[0] + sizes[1]),
                    heads, "K", k) &&
         splitHeads(sliceAxis(t, qkv, 2, sizes[0] + sizes[1], w.shape[1]),
                    heads, "V", v);
}

bool Importer::contribPast(Value &k, Value &v, int64_t &past) {
  past = 0;
  if (!has(4))
    return true;
  // past [2, B, H, P, D]: keys then values.
  Val &pv = in(4);
  ArrayRef<int64_t> ks = Tracer::shapeOf(k), vs = Tracer::shapeOf(v);
  if (pv.shape.size() != 5 || pv.shape[0] != 2 || pv.shape[1] != ks[0] ||
      pv.shape[2] != ks[1] || pv.shape[4] != ks[3] || ks[3] != vs[3] ||
      mlirType(pv.kind) != Tracer::elementTypeOf(k))
    return fail("expected past [2, B, H, P, D] matching K and V, got " +
                shapeStr(pv.shape));
  past = pv.shape[3];
  Value all = valueOf(pv);
  SmallVector<int64_t> one{ks[0], ks[1], past, ks[3]};
  k = t.concat({t.reshape(sliceAxis(t, all, 0, 0, 1), one), k}, 2);
  v = t.concat({t.reshape(sliceAxis(t, all, 0, 1, 2), one), v}, 2);
  return true;
}

bool Importer::importContribAttention() {
  if (!requireAttr("do_rotary", 0, 0) ||
      !requireAttr("past_present_share_buffer", 0, 0))
    return false;
  if (has(6))
    return fail("input 6 (past_sequence_length) is not supported");
  int64_t heads = attrInt("num_heads", 0);
  if (heads < 1)
    return fail("expected num_heads >= 1, got " + std::to_string(heads));
  AttentionParts p;
  int64_t past = 0;
  if (!contribQkv(heads, p.q, p.k, p.v) || !contribPast(p.k, p.v, past))
    return false;
  ArrayRef<int64_t> qs = Tracer::shapeOf(p.q);
  SmallVector<int64_t> scores{qs[0], qs[1], qs[2], Tracer::shapeOf(p.k)[2]};
  Type storage = Tracer::elementTypeOf(p.q);
  if (attrInt("unidirectional", 0) && qs[2] > 1)
    p.mask = causalMask(qs[2], scores[3], past, storage);
  double fill = attrFloat("mask_filter_value", -10000.0);
  if (!keyPaddingMask(3, scores, fill, storage, p.mask) ||
      !addAttentionBias(5, scores, storage, p.mask))
    return false;
  p.options.scale = attrFloat("scale", 0.0);
  setOut(0, mergeHeads(emitAttention(p)));
  if (outputUsed(1)) {
    ArrayRef<int64_t> ks = Tracer::shapeOf(p.k);
    SmallVector<int64_t> one{1, ks[0], ks[1], ks[2], ks[3]};
    setOut(1, t.concat({t.reshape(p.k, one), t.reshape(p.v, one)}, 0));
  }
  return true;
}

} // namespace poot::onnx::detail
