#!/usr/bin/env bash
# Builds poot from scratch if needed and runs every test: the unit tests, the
# lit tests, the end-to-end checks, the runtime-only build (no LLVM), the
# runtime under ASan and UBSan, and a bounded run of the fuzz targets (the
# runtime's, then the MLIR parser's and the ONNX importer's).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

./scripts/install-deps.sh
JOBS="${POOT_JOBS:-$(nproc)}"

cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-19/build/utils/lit/lit.py
ninja -C build -j "$JOBS"
(cd build && ctest --output-on-failure -j "$JOBS")

# The runtime must build and pass its tests with only a C++17 compiler.
cmake -G Ninja -S . -B build-runtime -DCMAKE_BUILD_TYPE=Release -DPOOT_RUNTIME_ONLY=ON \
  -DCMAKE_INSTALL_PREFIX="$ROOT/build-runtime/install"
ninja -C build-runtime -j "$JOBS"
(cd build-runtime && ctest --output-on-failure -j "$JOBS")

# An engine links the installed runtime package with find_package(poot).
rm -rf build-runtime/install build-runtime/package
ninja -C build-runtime install >/dev/null
cmake -G Ninja -S examples/embed/package -B build-runtime/package \
  -DCMAKE_PREFIX_PATH="$ROOT/build-runtime/install" >/dev/null
ninja -C build-runtime/package >/dev/null
build/tools/poot-compile/poot-compile examples/llama3-8b.decode.fixed.mlir \
  --target=cpu --quiet -o build-runtime/package/model.plan
build-runtime/package/consumer build-runtime/package/model.plan
# An engine links the installed compiler package (poot::poot) and compiles
# a graph itself, checked against the oracle.
rm -rf build/install build/compiler-package
cmake --install build --prefix "$ROOT/build/install" >/dev/null
cmake -G Ninja -S examples/embed/compiler-package -B build/compiler-package \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$ROOT/build/install" >/dev/null
ninja -C build/compiler-package -j "$JOBS" >/dev/null
build/compiler-package/compiler-consumer examples/llama3-8b.decode.fixed.mlir

# The runtime-only tree with ASan and UBSan: its unit tests, then a few
# example plans (compiled by build/ above) run against their unfused plans.
POOT_JOBS="$JOBS" test/sanitize.sh "$ROOT"
# Each fuzz target for a fixed seed and execution count from its committed
# corpus: the runtime's (plan, npy, capi) for 30 s each, then the compiler's
# (the MLIR parser with the poot dialect and the fusion passes; the ONNX
# importer) for 45 s each in their own tree. A crash or sanitizer report
# fails. 77: no clang-14 or libFuzzer on this machine, skipped.
fuzz=0
POOT_JOBS="$JOBS" test/fuzz/run.sh build-fuzz 30 || fuzz=$?
if [ "$fuzz" -eq 77 ]; then
  echo "fuzzing skipped (no clang-14 with libFuzzer)"
elif [ "$fuzz" -ne 0 ]; then
  exit "$fuzz"
fi
fuzz=0
POOT_JOBS="$JOBS" test/fuzz/run.sh build-fuzz-mlir 45 mlir onnx || fuzz=$?
if [ "$fuzz" -eq 77 ]; then
  echo "compiler fuzzing skipped (no clang-14 with libFuzzer, MLIR 19 or ONNX)"
elif [ "$fuzz" -ne 0 ]; then
  exit "$fuzz"
fi
echo "all tests passed"
