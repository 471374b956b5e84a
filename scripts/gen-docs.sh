#!/usr/bin/env bash
# Regenerates docs/reference/ (the dialect and pass reference) from the ODS
# and pass definitions.
set -euo pipefail
cd "$(dirname "$0")/.."
ninja -C build mlir-doc >/dev/null
cp build/docs/Dialect/PootOps.md docs/reference/dialect.md
cp build/docs/Passes/PootPasses.md docs/reference/passes.md
echo "docs/reference updated"
