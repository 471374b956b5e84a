//===- EqnContext.h - Errors and attributes of one eqn ----------*- C++ -*-===//
//
// Internal to the runtime: what the kernels of the fused and sparse ops need
// of the eqn they evaluate: errors prefixed like the evaluator's own (the
// eqn's location, then the op name) and typed attribute lookups, plus the
// small numeric helpers both sets of kernels use.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_LIB_RUNTIME_EQNCONTEXT_H
#define POOT_LIB_RUNTIME_EQNCONTEXT_H

#include "poot/Runtime/Evaluator.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace poot::rt::detail {

struct EqnContext {
  const Eqn &eqn;
  const std::vector<const Tensor *> &operands;
  const std::vector<TensorType> &resultTypes;
  NumericMode mode;

  Status error(ErrorCode code, const std::string &message) const {
    std::string text = eqn.op + ": " + message;
    if (eqn.location.empty())
      return Status(code, text);
    return Status(code, eqn.location + ": " + text);
  }
  Status invalid(const std::string &message) const {
    return error(ErrorCode::InvalidArgument, message);
  }

  /// Looks up attribute `name`; null when absent. A present attribute of
  /// the wrong kind is an error.
  const Attr *attr(const char *name, Attr::Kind kind, const char *what,
                   Status &status) const {
    const Attr *a = eqn.attr(name);
    if (a && a->kind != kind) {
      status = invalid(std::string("attribute '") + name + "' must be " + what);
      return nullptr;
    }
    return a;
  }
  const Attr *required(const char *name, Attr::Kind kind, const char *what,
                       Status &status) const {
    const Attr *a = attr(name, kind, what, status);
    if (!a && status.isOk())
      status = invalid(std::string("missing attribute '") + name + "'");
    return a;
  }

  Status requiredInt(const char *name, int64_t &out) const {
    Status status;
    const Attr *a = attr(name, Attr::Kind::Int, "an integer", status);
    POOT_RETURN_IF_ERROR(status);
    if (!a)
      return invalid(std::string("missing attribute '") + name + "'");
    out = a->i;
    return Status::ok();
  }

  /// True when the mode computes in f32 for values of `dtype`.
  bool roundsToF32(DType dtype) const {
    return mode == NumericMode::Native && dtype != DType::F64;
  }
};

/// Rounds an intermediate to f32 when the kernel computes in f32.
struct Step {
  bool f32;
  double operator()(double v) const {
    return f32 ? static_cast<double>(static_cast<float>(v)) : v;
  }
};

inline bool isIndexType(DType dtype) {
  return dtype == DType::I32 || dtype == DType::I64;
}

/// `v` as an integer clamped into [lo, hi] (NaN gives lo).
inline int64_t clampToInt64(double v, int64_t lo, int64_t hi) {
  if (std::isnan(v))
    return lo;
  if (v <= static_cast<double>(lo))
    return lo;
  if (v >= static_cast<double>(hi))
    return hi;
  return static_cast<int64_t>(v);
}

} // namespace poot::rt::detail

#endif // POOT_LIB_RUNTIME_EQNCONTEXT_H
