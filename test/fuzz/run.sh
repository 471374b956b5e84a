#!/usr/bin/env bash
# Builds libFuzzer targets of test/fuzz with clang-14, ASan and UBSan in
# BUILD_DIR and runs each for SECONDS from its committed seed corpus
# (test/fuzz/corpus/<target>). Two kinds of tree, one per BUILD_DIR:
#   plan npy capi (the default): the runtime alone (-DPOOT_RUNTIME_ONLY=ON
#     -DPOOT_FUZZ=ON);
#   mlir onnx: the compiler's libraries the MLIR parser, the poot dialect,
#     the fusion passes and the ONNX importer need (-DPOOT_FUZZ_MLIR=ON),
#     poot's code instrumented and linked against the prebuilt MLIR/LLVM.
# Only the named targets are built. New inputs go to
# BUILD_DIR/fuzz/corpus/<target>, a crashing input to
# BUILD_DIR/fuzz/artifacts/<target>/. Exits 1 on any crash, sanitizer
# report, timeout or out-of-memory; 77 (skipped) where clang-14 or libFuzzer
# (or, for mlir and onnx, MLIR 19 and the ONNX headers) is absent.
#
#   test/fuzz/run.sh BUILD_DIR SECONDS [TARGET...]   (POOT_JOBS: build jobs)
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="${1:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}"
SECONDS_EACH="${2:?usage: run.sh BUILD_DIR SECONDS [TARGET...]}"
shift 2
TARGETS=("$@")
[ "${#TARGETS[@]}" -eq 0 ] && TARGETS=(plan npy capi)
tree=
for t in "${TARGETS[@]}"; do
  case "$t" in
    plan|npy|capi) kind=runtime ;;
    mlir|onnx) kind=compiler ;;
    *) echo "fuzz: unknown target '$t' (plan npy capi | mlir onnx)"; exit 1 ;;
  esac
  if [ -n "$tree" ] && [ "$tree" != "$kind" ]; then
    echo "fuzz: plan/npy/capi and mlir/onnx build in different trees: run them apart"
    exit 1
  fi
  tree=$kind
done
JOBS="${POOT_JOBS:-$(nproc)}"
CXX="${POOT_FUZZ_CXX:-clang++-14}"
CC="${POOT_FUZZ_CC:-clang-14}"

if ! command -v "$CXX" >/dev/null 2>&1 || ! command -v "$CC" >/dev/null 2>&1; then
  echo "fuzz: $CXX not found: skipped"; exit 77
fi
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }' \
  >"$probe/probe.cpp"
if ! "$CXX" -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" \
     >"$probe/log" 2>&1; then
  echo "fuzz: $CXX cannot link libFuzzer (libclang-rt-14-dev missing?): skipped"
  sed -n 1,5p "$probe/log"
  exit 77
fi

if [ "$tree" = compiler ]; then
  for need in /usr/lib/llvm-19/lib/cmake/mlir/MLIRConfig.cmake /usr/include/onnx/onnx_pb.h; do
    if [ ! -f "$need" ]; then echo "fuzz: $need not found: skipped"; exit 77; fi
  done
fi

mkdir -p "$BUILD"
BUILD="$(cd "$BUILD" && pwd)"
start=$(date +%s)
if [ "$tree" = runtime ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DPOOT_RUNTIME_ONLY=ON -DPOOT_FUZZ=ON \
    -DPOOT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE= \
    -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" >/dev/null || exit 1
else
  # The executables link the static MLIR/LLVM libraries: lld (lld-19 is
  # installed with LLVM) links them in seconds where ld.bfd takes minutes.
  ld=()
  for l in ld.lld /usr/lib/llvm-19/bin/ld.lld ld.lld-19 ld.lld-14; do
    if command -v "$l" >/dev/null 2>&1; then
      ld=(-DCMAKE_EXE_LINKER_FLAGS="--ld-path=$(command -v "$l")"); break
    fi
  done
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DPOOT_FUZZ_MLIR=ON \
    -DPOOT_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE= \
    -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only" "${ld[@]}" >/dev/null || exit 1
fi
bins=()
for t in "${TARGETS[@]}"; do bins+=("poot-fuzz-$t"); done
ninja -C "$BUILD" -j "$JOBS" "${bins[@]}" || exit 1
echo "fuzz: built in $(( $(date +%s) - start )) s"

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
failed=0
for t in "${TARGETS[@]}"; do
  corpus="$BUILD/fuzz/corpus/$t"
  artifacts="$BUILD/fuzz/artifacts/$t"
  log="$BUILD/fuzz/$t.log"
  mkdir -p "$corpus" "$artifacts"
  dict=()
  [ -f "$HERE/$t.dict" ] && dict=(-dict="$HERE/$t.dict")
  # -timeout: one input may take at most 25 s (the C API target runs whole
  # small models); -rss_limit_mb: the runner's memory is not unbounded;
  # libFuzzer's own error exit code would be 77, this script's "skipped".
  # A fixed seed and execution count (about SECONDS on a 2-core machine),
  # so a CI run fuzzes exactly what a run here did; SECONDS caps it at 4x.
  case "$t" in plan) runs=$((1700 * SECONDS_EACH)) ;; npy) runs=$((12000 * SECONDS_EACH)) ;;
    mlir) runs=$((800 * SECONDS_EACH)) ;; onnx) runs=$((2000 * SECONDS_EACH)) ;;
    *) runs=$((200 * SECONDS_EACH)) ;; esac
  "$BUILD/test/fuzz/poot-fuzz-$t" "${dict[@]}" -seed=1 -runs="$runs" \
    -max_total_time=$((4 * SECONDS_EACH)) \
    -timeout=25 -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
    -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" "$HERE/corpus/$t" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*')
  if [ $rc -eq 0 ]; then
    echo "ok   fuzz $t: ${execs:-?} executions (seed 1), cov ${cov:-?}, ft ${ft:-?}, 0 crashes"
  else
    echo "FAIL fuzz $t (exit $rc): ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}; log $log"
    grep -E 'ERROR: |SUMMARY: |runtime error|contract broken|does not|Test unit written' "$log" | head -20
    failed=1
  fi
done
echo "fuzz: done in $(( $(date +%s) - start )) s"
exit $failed
