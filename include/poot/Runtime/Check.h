//===- Check.h - Comparing a result against the oracle ----------*- C++ -*-===//
//
// The numerics contract in code: the tolerance each dtype is held to when a
// device result is compared against the oracle (f64 reference mode), and the
// comparison itself. NaN must match NaN in place (a fully masked row is NaN
// on both sides); infinities must match exactly.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_RUNTIME_CHECK_H
#define POOT_RUNTIME_CHECK_H

#include "poot/Runtime/Tensor.h"

#include <string>

namespace poot::rt {

/// |got - want| <= atol + rtol * max|want| for every element: the relative
/// part is taken against the tensor's largest finite magnitude.
struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

/// The tolerance of results stored as `dtype` (docs/numerics.md).
Tolerance toleranceFor(DType dtype);

struct Comparison {
  double maxAbsError = 0.0;
  double maxRelError = 0.0;
  int64_t mismatches = 0;  ///< elements past the tolerance
  int64_t firstMismatch = -1;
  bool shapeMatches = true;
  bool ok() const { return shapeMatches && mismatches == 0; }
  /// "max abs 1.2e-07, max rel 3.4e-06 (of the largest |value|), 0 of 512
  /// past (atol 1e-05, rtol 1e-04)"
  std::string summary(const Tensor &want, Tolerance tol) const;
};

Comparison compareTensors(const Tensor &got, const Tensor &want,
                          Tolerance tol);

} // namespace poot::rt

#endif // POOT_RUNTIME_CHECK_H
