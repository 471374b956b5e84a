//===- SparseOps.h - Reference semantics of the sparse ops ------*- C++ -*-===//
//
// Internal to the runtime: the evaluator's kernels for poot.block_topk and
// poot.selected_attention (PootSparseOps.td). Like the fused
// kernels they take the same arguments as evaluateEqn and leave `results`
// untouched on failure; the evaluator checks what they produce against the
// record's result types.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_LIB_RUNTIME_SPARSEOPS_H
#define POOT_LIB_RUNTIME_SPARSEOPS_H

#include "poot/Runtime/Evaluator.h"

#include <vector>

namespace poot::rt::detail {

/// poot.block_topk(scores, [pos]) {ratio, k}.
Status evalBlockTopK(const Eqn &eqn,
                     const std::vector<const Tensor *> &operands,
                     const std::vector<TensorType> &resultTypes,
                     NumericMode mode, std::vector<Tensor> &results);

/// poot.selected_attention(q, k, v, blocks, [read], [pos])
/// {scale, softcap?, n_rep, ratio}; which optional operands are present
/// comes from "operandSegmentSizes".
Status evalSelectedAttention(const Eqn &eqn,
                             const std::vector<const Tensor *> &operands,
                             const std::vector<TensorType> &resultTypes,
                             NumericMode mode, std::vector<Tensor> &results);

} // namespace poot::rt::detail

#endif // POOT_LIB_RUNTIME_SPARSEOPS_H
