#!/usr/bin/env bash
# ONNX front end, end to end: each test model is imported with its
# dimensions bound and its weights written as .npy, compiled for the cpu
# target (the fusion report must show every attention the model has fused),
# run on the cpu device with the weights and seeded random inputs bound by
# --input, and its outputs compared with ONNX Runtime's within the tolerance
# of docs/numerics.md (test/onnx/ort_check.py).
#
#   test/e2e/onnx-check.sh BUILD_DIR [MODEL...]
#
# With MODEL names only the cases of those models run.
#
# Exits 77 (skipped) when the test venv has no onnx or onnxruntime.
set -uo pipefail

BUILD="${1:?usage: onnx-check.sh BUILD_DIR [MODEL...]}"
shift
ONLY=" $* "
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="$ROOT/.venv/bin/python"
MODELS="$ROOT/test/lit/Frontend/Inputs"
IMPORT="$BUILD/tools/poot-import-onnx/poot-import-onnx"
COMPILE="$BUILD/tools/poot-compile/poot-compile"
RUN="$BUILD/tools/poot-run/poot-run"

if [ ! -x "$PY" ] || ! "$PY" -c "import onnx, onnxruntime" 2>/dev/null; then
  echo "onnx-check: onnx or onnxruntime is not installed in .venv; skipped"
  exit 77
fi
for tool in "$IMPORT" "$COMPILE" "$RUN"; do
  if [ ! -x "$tool" ]; then
    echo "onnx-check: missing $tool"
    exit 1
  fi
done

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# model | dims | attention ops the fusion report must show fused
CASES=(
  "elementwise|batch=2|0"
  "softmax_axis||0"
  "softmax_opset11||0"
  "reduce_opset13||0"
  "reduce_opset18||0"
  "logic||0"
  "layout||0"
  "slice_steps||0"
  "split||0"
  "tile||0"
  "weight_names||0"
  "more_ops||0"
  "gather||0"
  "shape_fold|seq=5|0"
  "matmul||0"
  "norms||0"
  "weights|batch=3|0"
  "attention_4d|batch=2 seq=6|1"
  "decoder_ts|batch=1 seq=6|1"
  "decoder_ts|batch=2 seq=3|1"
  "attention23|batch=2 seq=5|1"
  "causal_trilu|batch=1 seq=7|1"
  "erf_gelu||0"
  "contrib_activations||0"
  "gathernd||0"
  "scatternd_rows||0"
  "scatternd_kv|batch=2 seq=3|0"
  "rotary23|batch=2 seq=5|0"
  "rotary_ms|batch=2 seq=5|0"
  "skip_norms|batch=2 seq=3|0"
  "mha_past|batch=2 seq=1 past=5 total=6|1"
  "mha_past|batch=1 seq=3 past=4 total=7|1"
  "mha_cross|batch=2 seq=3 enc_seq=6|1"
  "gqa_decode|batch=2 seq=1 past=5 total=6|1"
  "gqa_decode|batch=1 seq=3 past=4 total=7|1"
  "gqa_window|batch=2 seq=7|1"
  "ms_attention_mask|batch=2 seq=5|1"
  "ms_attention_past|batch=2 seq=3 past=4 total=7|1"
)

failures=0
ran=0
for entry in "${CASES[@]}"; do
  IFS='|' read -r model dims attentions <<<"$entry"
  if [ "$ONLY" != "  " ] && [[ "$ONLY" != *" $model "* ]]; then
    continue
  fi
  ran=$((ran + 1))
  label="$model${dims:+ ($dims)}"
  dir="$WORK/$model.${dims// /_}"
  mkdir -p "$dir/weights" "$dir/got"
  dimArgs=()
  for d in $dims; do dimArgs+=(--dim "$d"); done

  if ! "$IMPORT" "$MODELS/$model.onnx" "${dimArgs[@]}" \
       --weights-dir="$dir/weights" -o "$dir/g.mlir" 2>"$dir/err"; then
    echo "FAIL $label: import: $(cat "$dir/err")"
    failures=$((failures + 1)); continue
  fi
  if ! "$COMPILE" "$dir/g.mlir" --target=cpu -o "$dir/g.plan" >"$dir/report" 2>&1; then
    echo "FAIL $label: compile: $(cat "$dir/report")"
    failures=$((failures + 1)); continue
  fi
  fused=$(grep -c "attention fused" "$dir/report")
  if [ "$fused" != "$attentions" ]; then
    echo "FAIL $label: $fused attention(s) fused, expected $attentions"
    cat "$dir/report"
    failures=$((failures + 1)); continue
  fi

  if ! "$PY" "$ROOT/test/onnx/ort_check.py" prepare "$MODELS/$model.onnx" "$dir" \
       "${dimArgs[@]}" >"$dir/inputs.txt" 2>"$dir/err"; then
    echo "FAIL $label: onnxruntime: $(tail -3 "$dir/err")"
    failures=$((failures + 1)); continue
  fi
  bind=()
  while read -r name; do
    bind+=("--input=$name=$dir/inputs/$name.npy")
  done <"$dir/inputs.txt"
  for file in "$dir"/weights/*.npy; do
    [ -e "$file" ] || continue
    name="$(basename "$file" .npy)"
    bind+=("--input=$name=$file")
  done
  if ! "$RUN" "$dir/g.mlir" --device=cpu "${bind[@]}" --out-dir="$dir/got" \
       --quiet >"$dir/run" 2>&1; then
    echo "FAIL $label: poot-run: $(cat "$dir/run")"
    failures=$((failures + 1)); continue
  fi
  if "$PY" "$ROOT/test/onnx/ort_check.py" compare "$dir/ref" "$dir/got" >"$dir/cmp"; then
    echo "ok   $label: $(grep -o "attention fused" "$dir/report" | wc -l) attention fused"
    cat "$dir/cmp"
  else
    echo "FAIL $label: outputs differ from onnxruntime"
    cat "$dir/cmp"
    failures=$((failures + 1))
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "onnx-check: $failures case(s) failed"
  exit 1
fi
echo "onnx-check: all $ran cases match onnxruntime"
