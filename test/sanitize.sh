#!/usr/bin/env bash
# The sanitizer job: the runtime-only tree (no LLVM) built with
# AddressSanitizer and UndefinedBehaviorSanitizer runs its unit tests
# (ctest), then the cpu end-to-end check of plans: every example compiled
# for cpu, fused and unfused, by the compiler already built in ROOT/build,
# run by the sanitized poot-run-plan with --ref against the unfused plan
# over two decode steps, outputs and state written with --out-dir. Any
# sanitizer report fails the job (halt_on_error; leaks are reported).
#
#   test/sanitize.sh ROOT     (POOT_JOBS: build parallelism; POOT_SAN_BUILD:
#                             build directory, default ROOT/build-san)
set -euo pipefail
ROOT="$(cd "${1:?usage: sanitize.sh ROOT}" && pwd)"
BUILD="${POOT_SAN_BUILD:-$ROOT/build-san}"
JOBS="${POOT_JOBS:-$(nproc)}"
COMPILE="$ROOT/build/tools/poot-compile/poot-compile"
# clang-14 where it is installed (it builds this tree with the sanitizers
# in half g++'s time), g++ otherwise.
CXX="${POOT_SAN_CXX:-}"
if [ -z "$CXX" ]; then
  if command -v clang++-14 >/dev/null 2>&1; then CXX=clang++-14; else CXX=g++; fi
fi
DEBUG="-g1"
case "$CXX" in *clang*) DEBUG="-gline-tables-only" ;; esac

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

start=$(date +%s)
cmake -G Ninja -S "$ROOT" -B "$BUILD" -DPOOT_RUNTIME_ONLY=ON \
  -DCMAKE_BUILD_TYPE= -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="-O1 $DEBUG $SAN" \
  -DCMAKE_EXE_LINKER_FLAGS="$SAN" >/dev/null
ninja -C "$BUILD" -j "$JOBS" poot-runtime-tests poot-run-plan poot-serve-example
echo "sanitize: built in $(( $(date +%s) - start )) s"
# The tests that load the system's Vulkan loader and driver (lavapipe) run
# without leak checking: the driver leaks in its one-time set-up, from
# frames the fast unwinder cannot follow (and the slow one deadlocks in
# lavapipe's threads). ASan and UBSan still watch them.
(cd "$BUILD" && ctest --output-on-failure -j "$JOBS" -E Vulkan)
(cd "$BUILD" && ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
  ctest --output-on-failure -j "$JOBS" -R Vulkan)
echo "sanitize: unit tests passed at $(( $(date +%s) - start )) s"

if [ ! -x "$COMPILE" ]; then
  echo "sanitize: no compiler at $COMPILE: the plan checks need build/ first" >&2
  exit 1
fi
RUNPLAN="$BUILD/tools/poot-run-plan/poot-run-plan"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failed=0
count=0
for graph in "$ROOT"/examples/*.mlir; do
  name="$(basename "$graph" .mlir)"
  count=$((count + 1))
  "$COMPILE" "$graph" --target=cpu --quiet -o "$WORK/$name.plan"
  "$COMPILE" "$graph" --target=cpu --no-fusion --quiet -o "$WORK/$name.ref.plan"
  steps=1
  case "$name" in *decode*) steps=2 ;; esac
  mkdir -p "$WORK/$name.out"
  if out=$("$RUNPLAN" "$WORK/$name.plan" --ref="$WORK/$name.ref.plan" \
             --steps="$steps" --seed=3 --out-dir="$WORK/$name.out" 2>&1); then
    echo "ok   $name ($steps step(s), $(ls "$WORK/$name.out" | wc -l) files written)"
  else
    echo "FAIL $name"; echo "$out" | tail -40; failed=1
  fi
done
echo "sanitize: $count example plans checked"
echo "sanitize: done in $(( $(date +%s) - start )) s"
exit $failed
