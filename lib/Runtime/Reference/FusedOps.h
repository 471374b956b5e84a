//===- FusedOps.h - Reference semantics of the fused ops --------*- C++ -*-===//
//
// Internal to the runtime: the evaluator's kernels for poot.rope and
// poot.attention (PootFusedOps.td, DESIGN 4.3/4.4). They take the same
// arguments as evaluateEqn and leave `results` untouched on failure; the
// evaluator checks what they produce against the record's result types.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_LIB_RUNTIME_FUSEDOPS_H
#define POOT_LIB_RUNTIME_FUSEDOPS_H

#include "poot/Runtime/Evaluator.h"

#include <vector>

namespace poot::rt::detail {

/// poot.rope(x, cos, sin) {style, rotary_dim}.
Status evalRope(const Eqn &eqn, const std::vector<const Tensor *> &operands,
                const std::vector<TensorType> &resultTypes, NumericMode mode,
                std::vector<Tensor> &results);

/// poot.attention(q, k, [k_shared], v, [read], [mask], [len], [pos])
/// {scale, softcap?, n_rep, causal?, window?, alibi_slopes?}; which optional
/// operands are present comes from "operandSegmentSizes".
Status evalAttention(const Eqn &eqn,
                     const std::vector<const Tensor *> &operands,
                     const std::vector<TensorType> &resultTypes,
                     NumericMode mode, std::vector<Tensor> &results);

} // namespace poot::rt::detail

#endif // POOT_LIB_RUNTIME_FUSEDOPS_H
