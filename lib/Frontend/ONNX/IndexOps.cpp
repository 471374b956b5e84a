//===- IndexOps.cpp - GatherND and ScatterND ------------------------------===//
//
// Both index the leading dims of `data` with the last axis of `indices`
// (plus, for GatherND, batch_dims shared leading dims). The dialect gathers
// and scatters along axis 0 only, so the indexed dims are flattened into
// one axis and each index tuple becomes one row number, computed row-major
// (Horner's scheme over the dims; negative components wrapped first):
// GatherND is then a gather of those rows, ScatterND a scatter_update of
// them (the forms exporters write for KV-cache writes and index updates).
// Indices known at import time are checked and turned into constant rows;
// computed ones are guarded by a validation output.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "poot/Dialect/PootDialect.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using llvm::SmallVector;
using poot::trace::Tracer;

namespace poot::onnx::detail {

namespace {

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// `x` itself when it already has `shape` (flattening often changes
/// nothing), else a reshape.
Value reshapeTo(Tracer &t, Value x, ArrayRef<int64_t> shape) {
  if (Tracer::shapeOf(x) == shape)
    return x;
  return t.reshape(x, shape);
}

} // namespace

bool Importer::hostRows(const HostTensor &idx, ArrayRef<int64_t> dims,
                        int64_t batchDims, Value &rows) {
  // One row per index tuple; batch positions come from the tuple's place.
  int64_t depth = idx.shape.back(), tuples = idx.numel() / depth;
  ArrayRef<int64_t> lead(idx.shape.begin(), idx.shape.end() - 1);
  int64_t perBatch = product(lead.drop_front(batchDims));
  std::vector<int64_t> out;
  for (int64_t n = 0; n < tuples; ++n) {
    int64_t row = n / perBatch;
    for (int64_t j = 0; j < depth; ++j) {
      int64_t dim = dims[batchDims + j], v = idx.getI(n * depth + j);
      if (v < -dim || v >= dim)
        return fail("expected index component " + std::to_string(j) +
                    " in [" + std::to_string(-dim) + ", " +
                    std::to_string(dim) + "), got " + std::to_string(v));
      row = row * dim + (v < 0 ? v + dim : v);
    }
    out.push_back(row);
  }
  rows = materialize(HostTensor::fromInts({tuples}, out));
  return true;
}

bool Importer::flatIndices(Val &data, Val &indices, int64_t batchDims,
                           Value &rows) {
  if (indices.kind != ElemKind::I64 && indices.kind != ElemKind::I32)
    return fail("expected integer indices, got " +
                std::string(kindName(indices.kind)));
  int64_t rank = static_cast<int64_t>(data.shape.size());
  if (indices.shape.empty() || indices.shape.back() < 1 ||
      indices.shape.back() > rank - batchDims)
    return fail("expected indices [..., k] with 1 <= k <= " +
                std::to_string(rank - batchDims) + ", got " +
                shapeStr(indices.shape));
  if (indices.host)
    return hostRows(*indices.host, data.shape, batchDims, rows);
  ArrayRef<int64_t> is = indices.shape;
  SmallVector<int64_t> lead(is.begin(), is.end() - 1);
  Value idx = valueOf(indices);
  Type it = Tracer::elementTypeOf(idx);
  Value row;
  auto push = [&](Value digit, int64_t dim) {
    row = row ? t.add(t.mul(row, scalarLike(static_cast<double>(dim), row)),
                      digit)
              : digit;
  };
  for (int64_t d = 0; d < batchDims; ++d)
    push(t.iota(lead, d, it), data.shape[d]);
  // A component outside [-dim, dim) would land in another row (or, as -1
  // after wrapping, make scatter_update write nothing), so each is guarded
  // and the run fails on one rather than reading or writing the wrong row.
  int64_t depth = is.back();
  Value inRange;
  for (int64_t j = 0; j < depth; ++j) {
    SmallVector<int64_t> start(is.size(), 0), limit(is);
    start.back() = j;
    limit.back() = j + 1;
    Value c = depth == 1 ? idx : t.slice(idx, start, limit);
    c = reshapeTo(t, c, lead);
    int64_t dim = data.shape[batchDims + j];
    // Guarded once wrapped: [-dim, dim) wraps to exactly [0, dim).
    auto [clamped, ok] = t.indexGuard(wrapIndices(c, dim), 0, dim - 1);
    inRange = inRange ? t.logicalAnd(inRange, ok) : ok;
    push(clamped, dim);
  }
  t.validationOutput(validationLabel() + ".indices_in_range", inRange);
  rows = reshapeTo(t, row, {product(lead)});
  return true;
}

bool Importer::importGatherND() {
  Val &data = in(0), &indices = in(1);
  int64_t rank = static_cast<int64_t>(data.shape.size());
  int64_t batchDims = attrInt("batch_dims", 0);
  if (batchDims < 0 || batchDims >= rank ||
      batchDims >= static_cast<int64_t>(indices.shape.size()))
    return fail("expected batch_dims in [0, " +
                std::to_string(std::min<int64_t>(rank, indices.shape.size())) +
                "), got " + std::to_string(batchDims));
  for (int64_t d = 0; d < batchDims; ++d)
    if (data.shape[d] != indices.shape[d])
      return fail("expected data and indices to share their first " +
                  std::to_string(batchDims) + " dims, got " +
                  shapeStr(data.shape) + " and " + shapeStr(indices.shape));
  Value rows;
  if (!flatIndices(data, indices, batchDims, rows))
    return false;
  int64_t depth = indices.shape.back();
  ArrayRef<int64_t> rest = ArrayRef<int64_t>(data.shape).drop_front(
      batchDims + depth);
  SmallVector<int64_t> flat{product(
      ArrayRef<int64_t>(data.shape).take_front(batchDims + depth))};
  flat.append(rest.begin(), rest.end());
  SmallVector<int64_t> outShape(indices.shape.begin(),
                                indices.shape.end() - 1);
  outShape.append(rest.begin(), rest.end());
  Value x = reshapeTo(t, valueOf(data), flat);
  // Constant rows that are one run k, k + 1, ... (a split of a fused
  // projection, as the dynamo exporter writes it) are a slice: no index
  // tensor reaches the graph.
  DenseIntElementsAttr constRows;
  if (matchPattern(rows, m_Constant(&constRows))) {
    SmallVector<int64_t> r;
    for (const APInt &v : constRows.getValues<APInt>())
      r.push_back(v.getSExtValue());
    bool run = !r.empty();
    for (size_t k = 1; run && k < r.size(); ++k)
      run = r[k] == r[0] + static_cast<int64_t>(k);
    if (run) {
      SmallVector<int64_t> start(flat.size(), 0), limit(flat);
      start[0] = r[0];
      limit[0] = r[0] + static_cast<int64_t>(r.size());
      setOut(0, reshapeTo(t, t.slice(x, start, limit), outShape));
      return true;
    }
  }
  Value g = t.gather(x, rows, /*axis=*/0);
  setOut(0, reshapeTo(t, g, outShape));
  return true;
}

bool Importer::importScatterND() {
  std::string reduction = attrString("reduction", "none");
  if (reduction != "none")
    return fail("unsupported attribute value reduction='" + reduction +
                "', expected 'none'");
  Val &data = in(0), &indices = in(1), &updates = in(2);
  if (updates.kind != data.kind)
    return fail("expected updates of the data's type, got " +
                std::string(kindName(updates.kind)));
  Value rows;
  if (!flatIndices(data, indices, /*batchDims=*/0, rows))
    return false;
  int64_t depth = indices.shape.back();
  ArrayRef<int64_t> rest = ArrayRef<int64_t>(data.shape).drop_front(depth);
  SmallVector<int64_t> want(indices.shape.begin(), indices.shape.end() - 1);
  want.append(rest.begin(), rest.end());
  if (ArrayRef<int64_t>(updates.shape) != ArrayRef<int64_t>(want))
    return fail("expected updates " + shapeStr(want) + ", got " +
                shapeStr(updates.shape));
  SmallVector<int64_t> flat{product(
      ArrayRef<int64_t>(data.shape).take_front(depth))};
  flat.append(rest.begin(), rest.end());
  SmallVector<int64_t> flatUpdates{Tracer::shapeOf(rows)[0]};
  flatUpdates.append(rest.begin(), rest.end());
  Value x = reshapeTo(t, valueOf(data), flat);
  Value u = reshapeTo(t, valueOf(updates), flatUpdates);
  setOut(0, reshapeTo(t, t.scatterUpdate(x, rows, u), data.shape));
  return true;
}

} // namespace poot::onnx::detail
