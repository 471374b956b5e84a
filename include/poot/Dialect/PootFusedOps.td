//===- PootFusedOps.td - Fused ops formed by the poot passes -*- tablegen -*-===//
//
// The ops the fusion passes form from primitive chains. Each
// has reference semantics in the evaluator, so the oracle runs a fused graph
// as readily as an unfused one.
//
//===----------------------------------------------------------------------===//
#ifndef POOT_FUSED_OPS_TD
#define POOT_FUSED_OPS_TD

def Poot_RopeOp : Poot_Op<"rope", [Pure, TypeInfer]> {
  let summary = "rotary position embedding over the first rotary_dim channels";
  let description = [{
    `x [..., D]`, `cos` and `sin` broadcastable to `x[..., :rotary_dim]`.
    With `style = "half"` channel `i < r/2` pairs with `i + r/2` (rotate
    half: `rot = concat(-x2, x1)`); with `style = "interleaved"` channel
    `2i` pairs with `2i + 1` (`rot = (-x[2i+1], x[2i])`). The rotary part
    becomes `x * cos + rot * sin`; channels past `rotary_dim` pass through.
  }];
  let arguments = (ins Poot_FloatTensor:$x, Poot_FloatTensor:$cos,
                       Poot_FloatTensor:$sin, StrAttr:$style,
                       I64Attr:$rotary_dim);
  let results = (outs Poot_FloatTensor:$output);
  let assemblyFormat = "$x `,` $cos `,` $sin attr-dict `:` type($x) `,` "
                       "type($cos) `,` type($sin)";
}

def Poot_AttentionOp : Poot_Op<"attention", [Pure, AttrSizedOperandSegments]> {
  let summary = "fused scaled-dot-product attention in every form";
  let description = [{
    `out = softmax(transform(q . k * scale) + mask) . v` in the order docs/numerics.md fixes, with
    every sum in f32 and the softmax max-subtracted. `q [B, Hq, Lq, Dk]`.
    Keys come in one of three forms:
    - dense: `k [B, Hkv, Lk, Dk]`, `v [B, Hkv, Lk, Dv]`;
    - split (MLA): `k [B, Hkv, Lk, Dk - s]` plus `k_shared [B, 1, Lk, s]`
      read once for every head;
    - paged: pools `k [S, Hkv, Dk]`, `v [S, Hkv, Dv]` and `read [B, Lk]`
      naming the pool slot of each logical key.
    Query head `h` reads key head `h / n_rep`. The mask is either an
    additive tensor `mask [B|1, 1|Hq, Lq, Lk]` or its proven meaning:
    `causal` (key `t` visible iff `t <= pos + i` for query row `i`, with
    `pos` a scalar or one position per batch row `[B]`),
    `window = W` (visible iff `pos + i - t < W`), and `alibi_slopes`
    (adds `slope[h] * (t - (pos + i))`); `pos` defaults to 0. With `len [B]`
    only the first `len[b]` keys of row `b` are visited. A row with no
    visible key (every score -inf, or no key visited) is NaN (0/0), as the
    unfused softmax gives; with `zero_empty_rows` it is 0 in every channel,
    as PyTorch's safe softmax and a trailing `where(visible, p, 0)` give.
  }];
  let arguments = (ins
    Poot_FloatTensor:$q, Poot_FloatTensor:$k,
    Optional<Poot_FloatTensor>:$k_shared, Poot_FloatTensor:$v,
    Optional<Poot_IntTensor>:$read, Optional<Poot_FloatTensor>:$mask,
    Optional<Poot_IntTensor>:$len, Optional<Poot_IntTensor>:$pos,
    F64Attr:$scale, OptionalAttr<F64Attr>:$softcap, I64Attr:$n_rep,
    UnitAttr:$causal, OptionalAttr<I64Attr>:$window,
    OptionalAttr<DenseF64ArrayAttr>:$alibi_slopes,
    UnitAttr:$zero_empty_rows);
  let results = (outs Poot_FloatTensor:$output);
  let assemblyFormat = [{
    $q `,` $k `,` $v
    (`k_shared` `(` $k_shared^ `:` type($k_shared) `)`)?
    (`read` `(` $read^ `:` type($read) `)`)?
    (`mask` `(` $mask^ `:` type($mask) `)`)?
    (`len` `(` $len^ `:` type($len) `)`)?
    (`pos` `(` $pos^ `:` type($pos) `)`)?
    attr-dict `:` type($q) `,` type($k) `,` type($v) `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Keys per batch row (the logical key length).
    int64_t getKeyLength();
    /// True for the paged key form (pools plus a read map).
    bool isPaged() { return getRead() != nullptr; }
  }];
}

#endif // POOT_FUSED_OPS_TD
