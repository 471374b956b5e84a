#!/usr/bin/env bash
# Every model of the exported corpus (test/onnx/corpus) compiles for the
# GPU targets that CI cannot run, CUDA (sm_90) and ROCm (gfx942), with each
# of its attentions fused: prefill at batch 2 x 5 tokens, decode at one
# token after 5. Running them is the GPU machine's part (they run on cpu
# and vulkan against ONNX Runtime in onnx-corpus.sh).
#
#   test/e2e/onnx-corpus-compile.sh BUILD_DIR
set -uo pipefail
BUILD="${1:?usage: onnx-corpus-compile.sh BUILD_DIR}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
COMPILE="$BUILD/tools/poot-compile/poot-compile"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
ok=0
bad=0
for model in "$ROOT"/test/onnx/corpus/*.onnx; do
  case "$(basename "$model")" in
    *decode*) dims=(--dim batch=2 --dim seq=1 --dim past=5 --dim total=6) ;;
    *) dims=(--dim batch=2 --dim seq=5) ;;
  esac
  for target in cuda:sm_90 rocm:gfx942; do
    if ! out=$("$COMPILE" "$model" "${dims[@]}" --target="$target" -o "$WORK/m.plan" 2>&1); then
      echo "FAIL $target $(basename "$model"): $(echo "$out" | tail -1)"
      bad=$((bad + 1))
      continue
    fi
    fused=$(echo "$out" | grep -c "attention fused")
    if echo "$out" | grep -q "attention declined" || [ "$fused" -eq 0 ]; then
      echo "FAIL $target $(basename "$model"): $fused fused, $(echo "$out" | grep -c "attention declined") declined"
      bad=$((bad + 1))
      continue
    fi
    ok=$((ok + 1))
  done
done
echo "onnx-corpus-compile: $ok compiled with every attention fused, $bad failed"
[ "$bad" -eq 0 ]
