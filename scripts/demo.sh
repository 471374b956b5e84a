#!/usr/bin/env bash
# The main job on the embedded default device (the CPU): build poot, then run
# a few decode steps of an example model graph and check every step against
# the oracle.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

./scripts/install-deps.sh
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py >/dev/null
ninja -C build -j "${POOT_JOBS:-$(nproc)}" poot-opt poot-run poot-trace >/dev/null

GRAPH="${1:-examples/llama3-8b.decode.fixed.f32.mlir}"
STEPS="${POOT_STEPS:-4}"
echo "== ${GRAPH}: ${STEPS} decode steps on the cpu device, checked against the oracle"
build/tools/poot-run/poot-run "$GRAPH" --device=cpu --steps="$STEPS" --seed=7 --check
