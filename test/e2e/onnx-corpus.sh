#!/usr/bin/env bash
# The exported corpus (test/onnx/corpus: Hugging Face model code for eleven
# families, exported by both PyTorch exporters, prefill and decode, and
# ONNX Runtime's transformer optimizer's rewrites of them) against ONNX
# Runtime: each model is imported, compiled for the cpu target (or, with
# --device vulkan, the vulkan target) with every layer's attention fused,
# run on that device and compared with ONNX Runtime, also with a
# left-padded row in the batch; each decode model also runs as a decode
# loop over a fixed-capacity cache (--kv-capacity).
# test/onnx/corpus_check.py does the work; test/onnx/export_hf.py and
# test/onnx/optimize_ort.py rewrite the corpus (they need torch and the
# optimizer's dependencies, which this test does not).
#
#   test/e2e/onnx-corpus.sh BUILD_DIR [--device cpu|vulkan] [--one-per-family] [FILE...]
#
# Exits 77 (skipped) when the test venv has no onnx or onnxruntime.
set -uo pipefail

BUILD="${1:?usage: onnx-corpus.sh BUILD_DIR [FILE...]}"
shift
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="$ROOT/.venv/bin/python"

if [ ! -x "$PY" ] || ! "$PY" -c "import numpy, onnx, onnxruntime" 2>/dev/null; then
  echo "onnx-corpus: numpy, onnx or onnxruntime is not installed in .venv; skipped"
  exit 77
fi
exec "$PY" "$ROOT/test/onnx/corpus_check.py" "$BUILD" "$@"
