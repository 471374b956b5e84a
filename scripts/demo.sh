#!/usr/bin/env bash
# The main job on the embedded default device (the CPU): build poot, fuse an
# example model graph (printing the fusion report), then run a few decode
# steps of the fused graph and check each against the oracle on the unfused
# graph.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

./scripts/install-deps.sh >/dev/null
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py >/dev/null
ninja -C build -j "${POOT_JOBS:-$(nproc)}" poot-opt poot-run poot-trace >/dev/null

GRAPH="${1:-examples/llama3-8b.decode.fixed.mlir}"
STEPS="${POOT_STEPS:-4}"
FUSED="$(mktemp --suffix=.mlir)"
trap 'rm -f "$FUSED"' EXIT

echo "== fusion report for ${GRAPH}"
build/tools/poot-opt/poot-opt "$GRAPH" --poot-canonicalize --poot-rope \
  --poot-attention --poot-block-select --poot-explain -o "$FUSED" 2>&1 |
  sed -n 's/^[^:]*:\([0-9]*\):[0-9]*: remark: /  line \1: /p'
echo "  eqns: $(grep -c ' = poot\.' "$GRAPH") unfused -> $(grep -c ' = poot\.' "$FUSED") fused"
echo
echo "== ${STEPS} decode steps on the cpu device, each checked against the oracle on the unfused graph"
build/tools/poot-run/poot-run "$FUSED" --device=cpu --steps="$STEPS" --seed=7 \
  --check --ref="$GRAPH"
