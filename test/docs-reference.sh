#!/usr/bin/env bash
# Fails when the committed reference (docs/reference) is not what the ODS
# and pass definitions generate: run scripts/gen-docs.sh and commit.
#   test/docs-reference.sh BUILD_DIR
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$1"
cmake --build "$BUILD" --target mlir-doc >/dev/null
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
cat "$BUILD/docs/Dialect/PootOps.md" "$BUILD/docs/Dialect/PootAttrs.md" > "$T/dialect.md"
status=0
diff -u "$ROOT/docs/reference/dialect.md" "$T/dialect.md" || status=1
cat "$BUILD/docs/Passes/PootPasses.md" "$BUILD/docs/Passes/PootPlanPasses.md" \
  "$BUILD/docs/Passes/PootCodegenPasses.md" > "$T/passes.md"
diff -u "$ROOT/docs/reference/passes.md" "$T/passes.md" || status=1
if [ "$status" != 0 ]; then
  echo "docs/reference is stale: run scripts/gen-docs.sh and commit" >&2
fi
exit "$status"
