#!/usr/bin/env bash
# Every example graph compiles into a plan for each ROCm chip: its kernels
# generated, lowered through the AMDGPU backend and linked into a code
# object that llvm-readobj reads as an AMDGPU ELF for that chip. There is no
# AMD GPU to run them on; this is what can be checked without one. Exits 77
# (skipped) where ld.lld or llvm-readobj is not installed.
set -uo pipefail
BIN="${1:?usage: compile-rocm.sh BUILD_DIR [EXAMPLES_DIR]}"
EXAMPLES="${2:-$(cd "$(dirname "$0")/../../examples" && pwd)}"
COMPILE="$BIN/tools/poot-compile/poot-compile"
READOBJ="$(command -v llvm-readobj-19 || command -v llvm-readobj || echo /usr/lib/llvm-19/bin/llvm-readobj)"
if ! command -v ld.lld-19 >/dev/null && ! command -v ld.lld >/dev/null &&
   [ ! -x /usr/lib/llvm-19/bin/ld.lld ]; then
  echo "no ld.lld: skipped"; exit 77
fi
[ -x "$READOBJ" ] || { echo "no llvm-readobj: skipped"; exit 77; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

failed=0
count=0
for graph in "$EXAMPLES"/*.mlir; do
  name="$(basename "$graph" .mlir)"
  ok=1
  for chip in gfx90a gfx942 gfx1100; do
    count=$((count + 1))
    if ! "$COMPILE" "$graph" --target=rocm:$chip --quiet -o "$WORK/p.plan" 2>"$WORK/err"; then
      echo "FAIL $name $chip: compile"; head -5 "$WORK/err"; ok=0; continue
    fi
    # A graph whose fused ops all run on the host (the sparse attention has
    # no kernels yet) has no code object.
    if ! grep -q "poot.launches" "$WORK/p.plan"; then
      if grep -q "^hsaco " "$WORK/p.plan"; then
        echo "FAIL $name $chip: a code object without launches"; ok=0
      fi
      continue
    fi
    if ! grep -q "^hsaco $chip " "$WORK/p.plan"; then
      echo "FAIL $name $chip: the plan has no code object"; ok=0; continue
    fi
    "$COMPILE" "$graph" --target=rocm:$chip --emit=hsaco --quiet -o "$WORK/k.hsaco" 2>"$WORK/err"
    mach=$(echo "$chip" | tr a-z A-Z)
    if ! "$READOBJ" --file-headers "$WORK/k.hsaco" | grep -q "EF_AMDGPU_MACH_AMDGCN_$mach"; then
      echo "FAIL $name $chip: not an AMDGPU code object for $chip"; ok=0; continue
    fi
  done
  if [ $ok = 1 ]; then
    echo "ok   $name (gfx90a, gfx942, gfx1100)"
  else
    failed=1
  fi
done
echo "$count plans compiled for ROCm"
exit $failed
