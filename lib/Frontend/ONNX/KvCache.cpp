//===- KvCache.cpp - Concat-form KV caches as fixed-capacity state --------===//
//
// With ImportOptions::kvCapacity = N, an export's cache inputs
// (`past_key_values.*`, `past.*`, `past_key_*`/`past_value_*` of rank 4,
// [B, H, P, D]) and their `present` outputs (the Concat of past and new rows
// along axis 2) become poot state [B, H, N, D] updated in place:
//
//   * each cache input is a state input of capacity N; for the graph's
//     shape arithmetic it keeps the length N - S (S the new rows, from
//     input_ids), so the Concat is N long as the buffer is;
//   * the Concat becomes a dynamic_update_slice of the new rows at the
//     position slot `pos` (i32, 0 <= pos <= N - S), and the graph output
//     that returns it becomes the state's outgoing half;
//   * the position inputs an export takes are computed from `pos` instead of
//     bound: `attention_mask` [B, N] is 1 for key slots before pos + S and 0
//     after (the slots not written yet are hidden, as the tracer's fixed
//     cache masks them), `position_ids` [B, S] and `cache_position` [S] are
//     pos + 0, 1, ..., S - 1;
//   * what an export computes from the past length (read with `Shape`:
//     the query positions its masks compare, the total length) is imported
//     twice: as a known value of the capacity view, for shapes, and as a
//     graph value with the length read as `pos` (Val::twin), for data. A
//     causal or sliding-window mask built from the past length so sees the
//     keys up to the new rows' positions, as in the concat form.
//
// A Concat of the cache alone (the lazily created empty cache of
// transformers' DynamicCache, traced as a one-input Concat) or an Identity
// is another name for it. A cache input read by anything but its Concat or
// a Shape is refused, as is a cache without a present output.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "poot/Dialect/PootDialect.h"

using namespace mlir;
using llvm::SmallVector;
using poot::trace::Tracer;

namespace poot::onnx::detail {

bool Importer::isKvCacheName(StringRef name) {
  return name.starts_with("past_key_values.") || name.starts_with("past.") ||
         name.starts_with("past_key") || name.starts_with("past_value");
}

bool Importer::kvResolveShape(const ::onnx::ValueInfoProto &input,
                              int64_t overrideAxis, int64_t overrideSize,
                              SmallVector<int64_t, 4> &shape) {
  const auto &tt = input.type().tensor_type();
  for (auto [d, dim] : llvm::enumerate(tt.shape().dim())) {
    int64_t size = -1;
    if (static_cast<int64_t>(d) == overrideAxis) {
      size = overrideSize;
    } else if (dim.has_dim_value()) {
      size = dim.dim_value();
    } else if (dim.has_dim_param() && options.dims.count(dim.dim_param())) {
      size = options.dims.at(dim.dim_param());
    } else {
      return fail("input '" + input.name() + "' dim " + std::to_string(d) +
                  ": unbound symbolic dimension '" + dim.dim_param() +
                  "' (bind it with --dim NAME=N)");
    }
    shape.push_back(size);
  }
  return true;
}

bool Importer::kvSetup() {
  int64_t capacity = *options.kvCapacity;
  const ::onnx::ValueInfoProto *ids = nullptr;
  bool anyCache = false;
  for (const auto &input : graph.input()) {
    if (input.name() == "input_ids")
      ids = &input;
    if (!initializers.count(input.name()) && isKvCacheName(input.name()))
      anyCache = true;
  }
  if (!anyCache)
    return fail("--kv-capacity: the model has no cache inputs "
                "(past_key_values.*, past.*)");
  if (!ids)
    return fail("--kv-capacity: expected an 'input_ids' input to count the "
                "new rows, got none");
  SmallVector<int64_t, 4> idShape;
  if (!kvResolveShape(*ids, -1, 0, idShape))
    return false;
  if (idShape.size() != 2)
    return fail("--kv-capacity: expected input_ids [batch, seq], got " +
                shapeStr(idShape));
  kvNewRows = idShape[1];
  if (capacity <= kvNewRows)
    return fail("--kv-capacity " + std::to_string(capacity) +
                ": expected more than the " + std::to_string(kvNewRows) +
                " new rows of a step");
  // pos in [0, N - S]: the declared range is half-open.
  kvPos = t.slotInput("pos", "pos", {}, t.i32Type(),
                      trace::DeclaredRange{0, capacity - kvNewRows + 1});
  return true;
}

bool Importer::kvInput(const ::onnx::ValueInfoProto &input, ElemKind kind,
                       bool &handled) {
  handled = false;
  StringRef name = input.name();
  int64_t capacity = *options.kvCapacity;
  int rank = input.type().tensor_type().shape().dim_size();
  if (isKvCacheName(name)) {
    if (rank != 4)
      return fail("input '" + name.str() + "': expected a cache [batch, " +
                  "heads, past, head_dim], got rank " + std::to_string(rank));
    if (!isFloatKind(kind))
      return fail("input '" + name.str() + "': expected a float cache, got " +
                  kindName(kind));
    SmallVector<int64_t, 4> real;
    if (!kvResolveShape(input, 2, capacity, real))
      return false;
    Val v;
    v.kind = kind;
    v.shape = real;
    v.shape[2] = capacity - kvNewRows;
    v.value = t.stateInput(name, real, mlirType(kind));
    values[name.str()] = std::move(v);
    kvStates[name.str()] = "";
    kvAliases[name.str()] = name.str();
    handled = true;
    return true;
  }
  bool mask = name == "attention_mask", ids = name == "position_ids",
       cachePos = name == "cache_position";
  if (!mask && !ids && !cachePos)
    return true;
  SmallVector<int64_t, 4> shape;
  if (!kvResolveShape(input, mask ? 1 : -1, capacity, shape))
    return false;
  size_t wantRank = cachePos ? 1 : 2;
  int64_t rows = shape.empty() ? 0 : shape.back();
  if (shape.size() != wantRank || (!mask && rows != kvNewRows) ||
      isFloatKind(kind) || kind == ElemKind::Bool)
    return fail("input '" + name.str() + "': expected integer positions of " +
                "rank " + std::to_string(wantRank) + " over the " +
                std::to_string(kvNewRows) + " new rows, got " +
                shapeStr(shape));
  Type et = mlirType(kind);
  Value pos = t.broadcast(t.convert(kvPos, et), shape);
  Value iota = t.iota(shape, shape.size() - 1, et);
  Value out;
  if (mask) {
    Value end = t.add(pos, t.splatLike(static_cast<double>(kvNewRows), pos));
    Value written = t.compare(ComparePredicate::lt, iota, end);
    out = t.select(written, t.splatLike(1.0, pos), t.splatLike(0.0, pos));
  } else {
    out = t.add(pos, iota);
  }
  Val v;
  v.kind = kind;
  v.shape = shape;
  v.value = out;
  values[name.str()] = std::move(v);
  handled = true;
  return true;
}

const std::string *Importer::kvCacheOf(const std::string &name) const {
  auto it = kvAliases.find(name);
  if (it != kvAliases.end())
    return &it->second;
  it = kvPresents.find(name);
  return it != kvPresents.end() ? &it->second : nullptr;
}

bool Importer::kvCheckReads(StringRef op) {
  for (int k = 0; k < node->input_size(); ++k) {
    if (!has(k) || !kvAliases.count(node->input(k)))
      continue;
    if (op == "Shape" || op == "Size")
      continue;
    if (op == "Concat" || op == "Identity")
      continue; // checked by kvConcat
    return fail("--kv-capacity: cache input '" + node->input(k) +
                "' is read by a " + op.str() +
                "; the rewrite handles a Concat of the past and the new rows");
  }
  return true;
}

bool Importer::kvConcat(bool &handled) {
  handled = false;
  int cacheInput = -1, real = 0;
  for (int k = 0; k < node->input_size(); ++k) {
    if (!has(k))
      continue;
    if (kvAliases.count(node->input(k)))
      cacheInput = k;
    const Val &v = in(k);
    int64_t n = 1;
    for (int64_t d : v.shape)
      n *= d;
    if (!(v.host && n == 0)) // an empty known input adds nothing
      ++real;
  }
  if (cacheInput < 0)
    return true;
  handled = true;
  const std::string state = kvAliases.at(node->input(cacheInput));
  if (real == 1) {
    // The cache alone: another name for it.
    values[node->output(0)] = in(cacheInput);
    kvAliases[node->output(0)] = state;
    return true;
  }
  int64_t axis = attrInt("axis", 0);
  if (axis < 0)
    axis += 4;
  if (node->op_type() != "Concat" || node->input_size() != 2 ||
      cacheInput != 0 || axis != 2)
    return fail("--kv-capacity: expected the cache '" + state +
                "' concatenated in front of the new rows along axis 2");
  if (!kvStates[state].empty())
    return fail("--kv-capacity: cache input '" + state +
                "' is concatenated twice");
  Val &past = in(0);
  Val &rows = in(1);
  if (rows.shape.size() != 4 || rows.shape[2] != kvNewRows ||
      rows.kind != past.kind)
    return fail("--kv-capacity: expected " + std::to_string(kvNewRows) +
                " new rows [batch, heads, " + std::to_string(kvNewRows) +
                ", head_dim] of the cache's type, got " + shapeStr(rows.shape));
  for (int d : {0, 1, 3})
    if (rows.shape[d] != past.shape[d])
      return fail("--kv-capacity: expected new rows that match the cache '" +
                  state + "' off axis 2, got " + shapeStr(rows.shape) +
                  " and " + shapeStr(past.shape));
  Value zero = t.scalar(0.0, t.i32Type());
  SmallVector<Value> starts{zero, zero, kvPos, zero};
  Value updated = t.dynamicUpdateSlice(past.value, valueOf(rows), starts);
  kvStates[state] = node->output(0);
  kvPresents[node->output(0)] = state;
  setOut(0, updated);
  return true;
}

void Importer::kvShapeTwin(int64_t start, int64_t end) {
  const std::string &name = node->input(0);
  if (!kvCacheOf(name) || start > 2 || end <= 2 || !outputUsed(0) ||
      !values.count(node->output(0)))
    return;
  Val &out = values[node->output(0)];
  if (!out.host)
    return;
  // The dims before and after the length, known; the length, pos (the
  // past) or pos + the new rows (the present).
  Type i64 = mlirType(ElemKind::I64);
  Value length = t.convert(kvPos, i64);
  if (kvPresents.count(name))
    length = t.add(length, t.scalar(static_cast<double>(kvNewRows), i64));
  SmallVector<Value> parts;
  auto known = [&](int64_t from, int64_t to) {
    if (from >= to)
      return;
    std::vector<int64_t> dims(out.host->i.begin() + from,
                              out.host->i.begin() + to);
    parts.push_back(materialize(
        HostTensor::fromInts({static_cast<int64_t>(dims.size())}, dims)));
  };
  known(0, 2 - start);
  parts.push_back(t.reshape(length, {1}));
  known(3 - start, end - start);
  out.twin = parts.size() == 1 ? parts[0] : t.concat(parts, 0);
}

bool Importer::kvPropagateTwins(bool standard, StringRef op) {
  std::vector<std::pair<std::string, Val>> saved;
  for (int k = 0; k < node->input_size(); ++k) {
    if (!has(k))
      continue;
    const std::string &name = node->input(k);
    const Val &v = values[name];
    if (!v.twin ||
        llvm::any_of(saved, [&](auto &s) { return s.first == name; }))
      continue;
    saved.emplace_back(name, v);
  }
  if (saved.empty())
    return true;
  std::vector<std::optional<Val>> first(node->output_size());
  for (int k = 0; k < node->output_size(); ++k)
    if (outputUsed(k) && values.count(node->output(k)))
      first[k] = values[node->output(k)];
  for (auto &[name, v] : saved) {
    Val data;
    data.kind = v.kind;
    data.shape = v.shape;
    data.value = v.twin;
    values[name] = std::move(data);
  }
  std::string kept = error;
  // A Slice whose bounds follow the cache's length is taken again at the
  // run-time starts with the sizes it has now (importTwinSlice).
  if (standard && op == "Slice" && first[0])
    twinSliceShape = first[0]->shape;
  bool ok = standard ? dispatchStandard(op) : dispatchContrib(op);
  twinSliceShape.reset();
  std::vector<std::optional<Val>> second(node->output_size());
  for (int k = 0; k < node->output_size(); ++k)
    if (outputUsed(k) && values.count(node->output(k)))
      second[k] = values[node->output(k)];
  for (auto &[name, v] : saved)
    values[name] = std::move(v);
  std::string twinError = error;
  error = kept;
  // A known table sliced at bounds computed from the cache's length that
  // cannot be sliced again at its run-time length (pos) would keep the
  // capacity's rows: [capacity - seq, capacity) of a causal table where
  // [pos, pos + seq) are meant (GPT-Neo's bias buffer). Refused. (Other
  // ops keep their known value: a shape or a range of the capacity, which
  // the rewrite's own mask and positions stand in for.)
  if (!ok && standard && op == "Slice" && node->input_size() > 0 && has(0) &&
      values.count(node->input(0)) && values[node->input(0)].host &&
      !values[node->input(0)].twin)
    for (int k = 0; k < node->output_size(); ++k)
      if (first[k] && first[k]->host)
        return fail("--kv-capacity: a table sliced at the cache's length, "
                    "which the rewrite cannot slice at its run-time length (" +
                    twinError + ")");
  for (int k = 0; k < node->output_size(); ++k) {
    if (!first[k])
      continue;
    Val out = std::move(*first[k]);
    if (ok && second[k]) {
      const Val &data = *second[k];
      if (out.host)
        out.twin = data.host ? data.twin : data.value;
      else if (!data.host)
        out = data; // the graph value, computed from the twins
    }
    values[node->output(k)] = std::move(out);
  }
  return true;
}

bool Importer::kvOutputs(std::set<std::string> &asState) {
  for (auto &[state, present] : kvStates) {
    if (present.empty())
      return fail("--kv-capacity: cache input '" + state +
                  "' is never concatenated with new rows");
    bool returned = false;
    for (const auto &out : graph.output())
      returned |= out.name() == present;
    if (!returned)
      return fail("--kv-capacity: the cache '" + state +
                  "' updated by the graph is not a graph output (present)");
    if (!asState.insert(present).second)
      return fail("--kv-capacity: output '" + present +
                  "' is the update of two caches");
  }
  return true;
}

} // namespace poot::onnx::detail
