//===- Check.cpp - Comparing a result against the oracle ------------------===//

#include "poot/Runtime/Check.h"

#include <cmath>
#include <cstdio>

using namespace poot::rt;

Tolerance poot::rt::toleranceFor(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return {1e-9, 1e-9};
  case DType::F32:
    return {1e-6, 2e-5};
  case DType::F16:
    return {5e-4, 4e-3};
  case DType::BF16:
    return {4e-3, 2e-2};
  case DType::I32:
  case DType::I64:
  case DType::I1:
    return {0.0, 0.0};
  }
  return {0.0, 0.0};
}

Comparison poot::rt::compareTensors(const Tensor &got, const Tensor &want,
                                    Tolerance tol) {
  Comparison c;
  if (got.shape() != want.shape() || got.size() != want.size()) {
    c.shapeMatches = false;
    return c;
  }
  // The bound is relative to the tensor's scale (its largest finite
  // magnitude), so elements that cancel to near zero are held to the
  // precision of the values they were computed from.
  double scale = 0.0;
  for (double w : want.values())
    if (std::isfinite(w))
      scale = std::max(scale, std::fabs(w));
  for (int64_t i = 0; i < got.size(); ++i) {
    double g = got.at(i), w = want.at(i);
    bool bad;
    if (std::isnan(w) || std::isnan(g)) {
      bad = std::isnan(w) != std::isnan(g);
    } else if (std::isinf(w) || std::isinf(g)) {
      bad = g != w;
    } else {
      double abs = std::fabs(g - w);
      c.maxAbsError = std::max(c.maxAbsError, abs);
      if (scale > 0)
        c.maxRelError = std::max(c.maxRelError, abs / scale);
      bad = abs > tol.atol + tol.rtol * scale;
    }
    if (bad) {
      if (c.mismatches == 0)
        c.firstMismatch = i;
      ++c.mismatches;
    }
  }
  return c;
}

std::string Comparison::summary(const Tensor &want, Tolerance tol) const {
  if (!shapeMatches)
    return "shape mismatch";
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "max abs %.3g, max rel %.3g (of the largest |value|), %lld of "
                "%lld past (atol %.3g, rtol %.3g)",
                maxAbsError, maxRelError, static_cast<long long>(mismatches),
                static_cast<long long>(want.size()), tol.atol, tol.rtol);
  return buf;
}
