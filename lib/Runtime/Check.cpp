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
    return {1e-5, 1e-4};
  case DType::F16:
    return {2e-3, 1e-2};
  case DType::BF16:
    return {1.6e-2, 5e-2};
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
  for (int64_t i = 0; i < got.size(); ++i) {
    double g = got.at(i), w = want.at(i);
    bool bad;
    if (std::isnan(w) || std::isnan(g)) {
      bad = std::isnan(w) != std::isnan(g);
    } else if (std::isinf(w) || std::isinf(g)) {
      bad = g != w;
    } else {
      double abs = std::fabs(g - w);
      double rel = abs / std::max(std::fabs(w), 1e-30);
      c.maxAbsError = std::max(c.maxAbsError, abs);
      if (std::fabs(w) > tol.atol)
        c.maxRelError = std::max(c.maxRelError, rel);
      bad = abs > tol.atol + tol.rtol * std::fabs(w);
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
                "max abs %.3g, max rel %.3g, %lld of %lld past (atol %.3g, "
                "rtol %.3g)",
                maxAbsError, maxRelError, static_cast<long long>(mismatches),
                static_cast<long long>(want.size()), tol.atol, tol.rtol);
  return buf;
}
