//===- FusedOps.h - Reference semantics of the fused ops --------*- C++ -*-===//
//
// Internal to the runtime: the evaluator's kernels for poot.rope and
// poot.attention (PootFusedOps.td; the score order of docs/numerics.md). They take the same
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
/// {scale, softcap?, n_rep, causal?, window?, alibi_slopes?,
/// zero_empty_rows?}; which optional
/// operands are present comes from "operandSegmentSizes".
Status evalAttention(const Eqn &eqn,
                     const std::vector<const Tensor *> &operands,
                     const std::vector<TensorType> &resultTypes,
                     NumericMode mode, std::vector<Tensor> &results);


/// The shape of a poot.attention eqn, checked as evalAttention checks it:
/// what the multi-device runner needs to split its keys.
struct AttentionDims {
  int64_t b = 0, hq = 0, hkv = 0, lq = 0, lk = 0, dk = 0, dv = 0;
  bool paged = false;   ///< keys through a read map
  bool kShared = false; ///< a k_shared part
  bool causal = false;
  bool zeroEmptyRows = false; ///< a row with no visible key is 0
  DType dtype = DType::F32;
  std::vector<int64_t> pos; ///< position of query row 0, per batch row
  std::vector<int64_t> live; ///< keys visited, per batch row (Lk or len)
};
Status describeAttention(const Eqn &eqn,
                         const std::vector<const Tensor *> &operands,
                         const std::vector<TensorType> &resultTypes,
                         AttentionDims &out);

/// One part of an attention: query rows [rowBegin, rowEnd) against keys
/// [keyBegin, keyEnd) (key positions of the whole op; keys at or past a
/// row's live length are not visited). With kBlock and vBlock the keys are
/// read from them, [B, Hkv, keyEnd - keyBegin, Dk] and [.., Dv] (a block
/// that came from another device), instead of from the operands; a dense
/// key without k_shared only.
struct AttentionShard {
  int64_t rowBegin = 0, rowEnd = 0;
  int64_t keyBegin = 0, keyEnd = 0;
  const Tensor *kBlock = nullptr;
  const Tensor *vBlock = nullptr;
};

/// The unnormalised running state of a part: per (b, head, row) the largest
/// score m (-inf when the part sees no key), l = sum of exp(s - m) and
/// acc = sum of exp(s - m) v. Rows are the shard's, counted from rowBegin.
struct AttentionPartial {
  int64_t b = 0, hq = 0, rows = 0, dv = 0;
  bool f32 = false; ///< computed in f32 (native mode, not an f64 op)
  std::vector<double> m, l; ///< [b, hq, rows]
  std::vector<double> acc;  ///< [b, hq, rows, dv]
  void reset(int64_t b, int64_t hq, int64_t rows, int64_t dv);
};

/// Scores and folds one shard with the oracle's arithmetic (NaN wins, a key
/// scored -inf weighs exactly zero).
Status evalAttentionPartial(const Eqn &eqn,
                            const std::vector<const Tensor *> &operands,
                            const std::vector<TensorType> &resultTypes,
                            NumericMode mode, const AttentionShard &shard,
                            AttentionPartial &out);

/// Folds `from` into `into` by log-sum-exp: M = max(m1, m2), l = l1 e^(m1-M)
/// + l2 e^(m2-M), acc likewise. A side that saw no key weighs zero; two
/// such sides stay (-inf, 0, 0), and NaN wins. Rounded to f32 at every
/// step when `into.f32`. The shapes must match.
void mergeAttentionPartials(AttentionPartial &into,
                            const AttentionPartial &from);

/// The finished rows: acc / l rounded to `dtype` (0/0, NaN, for a row that
/// saw no key; 0 with `zeroEmptyRows`), written into `out` ([b, hq, rows,
/// dv]).
void finishAttentionPartial(const AttentionPartial &partial, DType dtype,
                            NumericMode mode, bool zeroEmptyRows,
                            double *out);

} // namespace poot::rt::detail

#endif // POOT_LIB_RUNTIME_FUSEDOPS_H
