#!/usr/bin/env bash
# End to end: every example graph is fused with the whole pass pipeline, run
# on the cpu device, and compared against the oracle on the unfused graph,
# over two decode steps (state carried, positions advanced). Fails if any
# example fails or if a fused graph has no fused op where one was expected.
#
# On vulkan every eqn must run on the device (--device-only: attention,
# RoPE, the sparse ops and every primitive op have kernels), and each
# example runs twice: fused, and unfused (--no-fusion), so the primitive
# kernels carry whole models.
set -uo pipefail
BIN="${1:?usage: check-examples.sh BUILD_DIR [EXAMPLES_DIR] [DEVICE]}"
EXAMPLES="${2:-$(cd "$(dirname "$0")/../../examples" && pwd)}"
DEVICE="${3:-cpu}"
OPT="$BIN/tools/poot-opt/poot-opt"
RUN="$BIN/tools/poot-run/poot-run"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

failed=0
count=0
for graph in "$EXAMPLES"/*.mlir; do
  name="$(basename "$graph" .mlir)"
  fused="$WORK/$name.fused.mlir"
  count=$((count + 1))
  if ! "$OPT" "$graph" --poot-canonicalize --poot-rope --poot-attention --poot-block-select -o "$fused" 2>"$WORK/err"; then
    echo "FAIL $name: the pipeline failed"; cat "$WORK/err"; failed=1; continue
  fi
  if ! grep -qE "poot.(selected_)?attention" "$fused"; then
    echo "FAIL $name: no attention fused"; failed=1; continue
  fi
  steps=1
  case "$name" in *decode*) steps=2 ;; esac
  if [ "$DEVICE" = vulkan ]; then
    # The device compiles the graph itself (fused, planned for Vulkan,
    # kernels generated); bf16 runs too, its buffers 16-bit words that the
    # kernels convert (docs/codegen.md, "bf16 on SPIR-V").
    for form in fused unfused; do
      flags=""
      [ "$form" = unfused ] && flags="--no-fusion"
      out=$("$RUN" "$graph" --device=vulkan --device-only $flags --check --steps="$steps" --seed=3 2>&1)
      rc=$?
      if echo "$out" | grep -q "error: vulkan: unsupported"; then
        echo "no Vulkan device: skipped"; exit 0
      fi
      if [ $rc -eq 0 ]; then
        echo "ok   $name $form, every eqn on vulkan $(echo "$out" | grep -o '([0-9]* eqns on the device)' | tail -1)"
      else
        echo "FAIL $name $form"; echo "$out" | grep -E "FAIL|error" | head -5; failed=1
      fi
    done
    continue
  fi
  if out=$("$RUN" "$fused" --check --ref="$graph" --steps="$steps" --seed=3 2>&1); then
    echo "ok   $name ($(grep -cE "poot.(selected_)?attention" "$fused") attention, $(grep -c 'poot.rope' "$fused") rope, $steps step(s))"
  else
    echo "FAIL $name"; echo "$out" | grep -E "FAIL|error" | head -5; failed=1
  fi
done
if [ "$DEVICE" = vulkan ]; then
  # The primitive ops the examples leave out, on the device, several seeds.
  prims="$(dirname "$0")/../lit/Codegen/Inputs/primitives.mlir"
  for seed in 1 2 3; do
    if out=$("$RUN" "$prims" --device=vulkan --device-only --no-fusion --check --seed=$seed 2>&1); then
      echo "ok   primitives (seed $seed), every eqn on vulkan"
    else
      echo "FAIL primitives (seed $seed)"; echo "$out" | grep -E "FAIL|error" | head -5; failed=1
    fi
  done
  # Through a plan file and the runtime-only runner, fused and unfused.
  PLANRUN="$BIN/tools/poot-run-plan/poot-run-plan"
  COMPILE="$BIN/tools/poot-compile/poot-compile"
  g="$EXAMPLES/deepseek-sparse.decode.paged.mlir"
  if [ -e "$g" ]; then
    "$COMPILE" "$g" --target=cpu --no-fusion --quiet -o "$WORK/ref.plan"
    for form in fused unfused; do
      flags=""
      [ "$form" = unfused ] && flags="--no-fusion"
      "$COMPILE" "$g" --target=vulkan $flags --quiet -o "$WORK/$form.plan"
      if out=$("$PLANRUN" "$WORK/$form.plan" --device=vulkan --device-only --ref="$WORK/ref.plan" --steps=2 --seed=3 2>&1); then
        echo "ok   plan file ($form) on poot-run-plan, every eqn on vulkan"
      else
        echo "FAIL plan file ($form)"; echo "$out" | grep -E "FAIL|error" | head -5; failed=1
      fi
    done
  fi
fi
echo "$count example graphs checked"
exit $failed
