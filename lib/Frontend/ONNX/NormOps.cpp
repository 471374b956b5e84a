//===- NormOps.cpp - The normalisations of both domains -------------------===//
//
// LayerNormalization and RMSNormalization (SimplifiedLayerNormalization in
// either domain), and ONNX Runtime's SkipLayerNormalization and
// SkipSimplifiedLayerNormalization: the residual sum input + skip (+ bias)
// normalised over the last axis, with the sum as an optional output. All
// are computed in f32 whatever the storage type, as the runtimes do, and
// written with the primitive ops the tracer writes.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "poot/Dialect/PootDialect.h"

using namespace mlir;
using llvm::SmallVector;
using poot::trace::Tracer;

namespace poot::onnx::detail {

bool Importer::requireStash() {
  int64_t stash = attrInt("stash_type", 1);
  if (stash == ::onnx::TensorProto::FLOAT)
    return true;
  return fail("unsupported attribute value stash_type=" +
              std::to_string(stash) + ", expected 1 (FLOAT)");
}

bool Importer::normAxes(const Val &x, int64_t axis,
                        llvm::SmallVectorImpl<int64_t> &axes,
                        int64_t &count) {
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t first;
  if (!normAxis(axis, rank, first, "axis"))
    return false;
  count = 1;
  for (int64_t d = first; d < rank; ++d) {
    axes.push_back(d);
    count *= x.shape[d];
  }
  return true;
}

Value Importer::layerNormCore(Value x, ArrayRef<int64_t> axes, int64_t count,
                              double eps) {
  // (x - mean) / sqrt(var + eps) in f32, back in x's type.
  Type storage = Tracer::elementTypeOf(x);
  Value xf = t.convertIfNeeded(x, t.f32Type());
  Value mean = reduceAxes("Sum", xf, axes, /*keepdim=*/true);
  mean = t.div(mean, t.scalar(static_cast<double>(count), t.f32Type()));
  Value centred = t.sub(xf, mean);
  Value var = reduceAxes("Sum", t.mul(centred, centred), axes, true);
  var = t.div(var, t.scalar(static_cast<double>(count), t.f32Type()));
  Value denom = t.sqrt(t.add(var, t.scalar(eps, t.f32Type())));
  return t.convertIfNeeded(t.div(centred, denom), storage);
}

Value Importer::rmsNormCore(Value x, ArrayRef<int64_t> axes, int64_t count,
                            double eps) {
  // x / sqrt(mean(x^2) + eps) in f32, back in x's type.
  Type storage = Tracer::elementTypeOf(x);
  Value xf = t.convertIfNeeded(x, t.f32Type());
  Value ms = reduceAxes("Sum", t.mul(xf, xf), axes, /*keepdim=*/true);
  ms = t.div(ms, t.scalar(static_cast<double>(count), t.f32Type()));
  Value denom = t.sqrt(t.add(ms, t.scalar(eps, t.f32Type())));
  return t.convertIfNeeded(t.div(xf, denom), storage);
}

bool Importer::affine(int k, const Val &x, bool add, Value &y) {
  if (!has(k))
    return true;
  Val &p = in(k);
  if (p.kind != x.kind)
    return fail("expected input " + std::to_string(k) + " of type " +
                kindName(x.kind) + ", got " + kindName(p.kind));
  if (!broadcastable(x.shape, p.shape))
    return false;
  y = add ? t.add(y, valueOf(p)) : t.mul(y, valueOf(p));
  return true;
}

bool Importer::importLayerNorm() {
  Val &x = in(0);
  if (!requireFloat(x, "input") || !requireStash())
    return false;
  for (int k = 1; k < 3; ++k)
    if (outputUsed(k))
      return fail("output " + std::to_string(k) + " (mean or inverse "
                  "standard deviation) is not supported");
  SmallVector<int64_t> axes;
  int64_t count;
  if (!normAxes(x, attrInt("axis", -1), axes, count))
    return false;
  Value y = layerNormCore(valueOf(x), axes, count, attrFloat("epsilon", 1e-5));
  if (!affine(1, x, /*add=*/false, y) || !affine(2, x, /*add=*/true, y))
    return false;
  setOut(0, y);
  return true;
}

bool Importer::importRmsNorm() {
  Val &x = in(0);
  if (!requireFloat(x, "input") || !requireStash())
    return false;
  if (outputUsed(1))
    return fail("output 1 (inverse standard deviation) is not supported");
  SmallVector<int64_t> axes;
  int64_t count;
  if (!normAxes(x, attrInt("axis", -1), axes, count))
    return false;
  Value y = rmsNormCore(valueOf(x), axes, count, attrFloat("epsilon", 1e-5));
  if (!affine(1, x, /*add=*/false, y))
    return false;
  setOut(0, y);
  return true;
}

bool Importer::importSkipNorm(bool simplified) {
  // Inputs: input, skip, gamma, then beta and bias (SkipLayerNormalization)
  // or bias (the simplified form). Outputs: y, mean, inv_std_var, sum.
  Val &x = in(0), &skip = in(1);
  if (!requireFloat(x, "input"))
    return false;
  if (skip.kind != x.kind)
    return fail("expected skip of type " + std::string(kindName(x.kind)) +
                ", got " + kindName(skip.kind));
  for (int k = 1; k < 3; ++k)
    if (outputUsed(k))
      return fail("output " + std::to_string(k) + " (mean or inverse "
                  "standard deviation) is not supported");
  auto shape = broadcastShapes(x.shape, skip.shape);
  if (!shape || ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(x.shape))
    return fail("expected skip to broadcast to the input " +
                shapeStr(x.shape) + ", got " + shapeStr(skip.shape));
  Value sum = t.add(valueOf(x), valueOf(skip));
  int biasInput = simplified ? 3 : 4;
  if (!affine(biasInput, x, /*add=*/true, sum))
    return false;
  SmallVector<int64_t> axes;
  int64_t count;
  if (!normAxes(x, -1, axes, count))
    return false;
  // ONNX Runtime's default epsilon for both.
  double eps = attrFloat("epsilon", 1e-12);
  Value y = simplified ? rmsNormCore(sum, axes, count, eps)
                       : layerNormCore(sum, axes, count, eps);
  if (!affine(2, x, /*add=*/false, y) ||
      (!simplified && !affine(3, x, /*add=*/true, y)))
    return false;
  setOut(0, y);
  setOut(3, sum);
  return true;
}

} // namespace poot::onnx::detail
