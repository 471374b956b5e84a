#!/usr/bin/env bash
# Regenerates docs/reference/ (the dialect and pass reference) from the ODS
# and pass definitions. CI checks that the committed files match
# (test/docs-reference.sh).
#   scripts/gen-docs.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}"
cmake --build "$BUILD" --target mlir-doc >/dev/null
cat "$BUILD/docs/Dialect/PootOps.md" "$BUILD/docs/Dialect/PootAttrs.md" \
  > docs/reference/dialect.md
cat "$BUILD/docs/Passes/PootPasses.md" "$BUILD/docs/Passes/PootPlanPasses.md" \
  "$BUILD/docs/Passes/PootCodegenPasses.md" > docs/reference/passes.md
echo "docs/reference updated"
