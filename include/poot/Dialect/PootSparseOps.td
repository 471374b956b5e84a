//===- PootSparseOps.td - Block-selected sparse attention --*- tablegen -*-===//
//
// The block-selected sparse form of attention: a top-K choice
// of key blocks from an indexer's per-key scores, and the attention that
// visits only the chosen blocks and the row's own block. poot-block-select
// forms the pair from the mask the tracer spells out in primitives; each
// has reference semantics in the evaluator (lib/Runtime/SparseOps.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef POOT_SPARSE_OPS_TD
#define POOT_SPARSE_OPS_TD

def Poot_BlockIdTensor : StaticShapeTensorOf<[I32]>;

def Poot_BlockTopKOp : Poot_Op<"block_topk", [Pure, RangeInfer]> {
  let summary = "the K best key blocks of each query row by an indexer score";
  let description = [{
    `scores [B, Lq, Lk]` holds an indexer's score of every key for every
    query row; `ratio` keys make a block, so there are `NB = Lk / ratio`
    blocks (`ratio` divides `Lk`). Query row `i` of batch row `b` sits at
    `qpos = pos + i`, with `pos` a scalar, one position per batch row `[B]`,
    or 0 when absent. The result `blocks [B, Lq, k]` (i32) is computed as

    ```
    s'[b, i, t]  = t > qpos ? -inf : scores[b, i, t]
    bs[b, i, j]  = max over r in [0, ratio) of s'[b, i, j * ratio + r]
    blocks[b, i] = the indices of topk(bs[b, i], k)
    ```

    exactly as the primitives `select`, `reduce_max` and `topk` compute
    them: the block max propagates NaN; the top-k is sorted descending,
    ties go to the lower block id and NaN ranks above every number. A block
    wholly in the future scores -inf and is chosen only when fewer than `k`
    blocks score higher; `poot.selected_attention` hides its keys anyway.
    Every step is exact, so the result does not depend on the float type.
  }];
  let arguments = (ins Poot_FloatTensor:$scores,
                       Optional<Poot_IntTensor>:$pos,
                       I64Attr:$ratio, I64Attr:$k);
  let results = (outs Poot_BlockIdTensor:$blocks);
  let assemblyFormat = [{
    $scores (`pos` `(` $pos^ `:` type($pos) `)`)? attr-dict `:`
    type($scores) `->` type($blocks)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Blocks per row: Lk / ratio.
    int64_t getNumBlocks();
  }];
}

def Poot_SelectedAttentionOp : Poot_Op<"selected_attention",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "attention over each row's selected key blocks and its own "
                "block";
  let description = [{
    `q [B, Hq, Lq, Dk]`; keys dense `k [B, Hkv, Lk, Dk]`, `v [B, Hkv, Lk,
    Dv]`, or paged: pools `k [S, Hkv, Dk]`, `v [S, Hkv, Dv]` and
    `read [B, Lk]` naming the pool slot of each logical key. Query head `h`
    reads key head `h / n_rep`. `blocks [B, Lq, K]` (i32) names key blocks
    of `ratio` keys (`ratio` divides `Lk`); query row `i` of batch row `b`
    sits at `qpos = pos + i` (`pos` a scalar, `[B]`, or 0 when absent).
    The row attends over exactly the keys

    ```
    visible(b, i) = { t in [0, Lk) : t <= qpos and
                      (t / ratio in blocks[b, i, :] or
                       t / ratio == qpos / ratio) }
    ```

    its selected blocks and its own (unfinished) block, never past itself:

    ```
    s_t = transform(q[b, h, i] . k[b, h / n_rep, t] * scale)
    out[b, h, i] = sum over t in visible of softmax(s)_t * v[b, h / n_rep, t]
    ```

    with `transform` the identity, or `softcap * tanh(s / softcap)` when
    `softcap` is set, every sum in f32 and the softmax max-subtracted
    (the score order of docs/numerics.md). This is the additive mask `(selected or own) and t <= qpos
    ? 0 : -inf` of the primitive chain: a block id outside `[0, Lk / ratio)`
    names no key, a repeated id counts once, and a row with no visible key
    is NaN (0/0). A row visits at most `(K + 1) * ratio` keys, not `Lk`, and
    reads nothing else: a non-finite key or value outside its visible set
    cannot reach its result (the dense chain multiplies those by a zero
    weight, which only finite values survive).
  }];
  let arguments = (ins
    Poot_FloatTensor:$q, Poot_FloatTensor:$k, Poot_FloatTensor:$v,
    Poot_BlockIdTensor:$blocks, Optional<Poot_IntTensor>:$read,
    Optional<Poot_IntTensor>:$pos,
    F64Attr:$scale, OptionalAttr<F64Attr>:$softcap, I64Attr:$n_rep,
    I64Attr:$ratio);
  let results = (outs Poot_FloatTensor:$output);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $blocks
    (`read` `(` $read^ `:` type($read) `)`)?
    (`pos` `(` $pos^ `:` type($pos) `)`)?
    attr-dict `:` type($q) `,` type($k) `,` type($v) `,` type($blocks)
    `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Keys per batch row (the logical key length).
    int64_t getKeyLength();
    /// True for the paged key form (pools plus a read map).
    bool isPaged() { return getRead() != nullptr; }
    /// Keys one query row visits at most: (K + 1) * ratio, capped at Lk.
    int64_t getVisitedKeys();
  }];
}

#endif // POOT_SPARSE_OPS_TD
