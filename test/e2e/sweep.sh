#!/usr/bin/env bash
# A seeded sweep of attention shapes and forms, each traced, fused, run on a
# device and compared against the oracle on the unfused graph:
#   sweep.sh BUILD_DIR DEVICE  (DEVICE: cpu, vulkan, vulkan-live, vulkan-fused)
# vulkan-live plans against this machine's Vulkan device
# (poot-compile --device-from-host): on a device with one subgroup width
# (lavapipe) that is the channel schedule, the one CUDA and ROCm run.
# vulkan-fused plans for the generic Vulkan device with the split-KV combine
# in the last workgroup of each row (--fused-combine), the form CUDA's
# matrix-tile decode takes.
# Head widths 40..512, Dk != Dv (MLA 192/128 and a 96-wide value), MHA, GQA,
# MQA, causal / window / ALiBi / softcap, live lengths (including 1 and Lk),
# split-KV on and off, paged maps with shuffled slots, prefill with every row
# masked but its own, and rows a tensor mask hides wholly or mostly; f32,
# f16 and bf16 (odd widths 40 and 96, GQA/MQA, ALiBi, window, softcap,
# split, live, paged, prefill, MLA and the tensor mask), and safe-softmax
# graphs whose empty rows are 0 (decode and prefill). On the vulkan
# device a machine without Vulkan skips.
set -uo pipefail
BIN="${1:?usage: sweep.sh BUILD_DIR DEVICE}"
DEVICE="${2:-cpu}"
TRACE="$BIN/tools/poot-trace/poot-trace"
RUN="$BIN/tools/poot-run/poot-run"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

COMPILE="$BIN/tools/poot-compile/poot-compile"
# Modes that compile a plan first, with these poot-compile flags.
PLANFLAGS=""
case "$DEVICE" in
  vulkan-live) PLANFLAGS="--device-from-host"; DEVICE=vulkan ;;
  vulkan-fused) PLANFLAGS="--fused-combine"; DEVICE=vulkan ;;
esac
fusedcases=0
if [ "$DEVICE" = vulkan ]; then
  "$TRACE" --op=attention_masked --batch=1 --heads=1 --kv-heads=1 --head-dim=8 \
    --capacity=8 -o "$WORK/probe.mlir" >/dev/null
  if "$RUN" "$WORK/probe.mlir" --device=vulkan --quiet 2>&1 | grep -q "unsupported"; then
    echo "no Vulkan device: sweep skipped"
    exit 0
  fi
fi

# On vulkan every eqn must run on the device (the masks' primitives too).
devflags=""
[ "$DEVICE" = vulkan ] && devflags="--device-only"

failed=0
count=0
# One case: NAME GRAPH [poot-run arguments]: planned as the mode asks, run on
# the device, checked against the oracle on the unfused graph.
run_case() {
  local name="$1" graph="$2"; shift 2
  local runargs="$*" target="$graph"
  count=$((count + 1))
  if [ -n "$PLANFLAGS" ]; then
    target="$WORK/$name.plan"
    if ! "$COMPILE" "$graph" --target=vulkan $PLANFLAGS \
        -o "$target" >"$WORK/report" 2>&1; then
      echo "FAIL $name: compile: $(grep -m1 error "$WORK/report")"; failed=1; return
    fi
    grep -q "folded by the last workgroup" "$WORK/report" && fusedcases=$((fusedcases + 1))
    runargs="$runargs --ref=$graph"
  fi
  if out=$("$RUN" "$target" --device="$DEVICE" $devflags --check $runargs 2>&1); then
    echo "ok   $name"
  else
    echo "FAIL $name"; echo "$out" | grep -E "FAIL|error" | head -3; failed=1
  fi
}
# name | poot-trace arguments | poot-run arguments
while IFS='|' read -r name args runargs; do
  [ -z "$name" ] && continue
  case "$name" in \#*) continue ;; esac
  graph="$WORK/$name.mlir"
  if ! "$TRACE" $args -o "$graph" 2>"$WORK/err"; then
    count=$((count + 1))
    echo "FAIL $name: trace: $(head -1 "$WORK/err")"; failed=1; continue
  fi
  run_case "$name" "$graph" $runargs
done <<'CASES'
mha-d64|--op=attention_masked --batch=2 --heads=4 --kv-heads=4 --head-dim=64 --capacity=64|--steps=2 --seed=1
gqa-d16|--op=attention_masked --batch=2 --heads=6 --kv-heads=2 --head-dim=16 --capacity=80|--steps=2 --seed=23
gqa-rep16-d16-split|--op=attention_masked --batch=1 --heads=32 --kv-heads=2 --head-dim=16 --capacity=1024|--seed=24
gqa-d40|--op=attention_masked --batch=2 --heads=8 --kv-heads=2 --head-dim=40 --capacity=48|--steps=2 --seed=2
mqa-d96|--op=attention_masked --batch=1 --heads=6 --kv-heads=1 --head-dim=96 --capacity=40|--seed=3
gqa-d128-split|--op=attention_masked --batch=1 --heads=4 --kv-heads=2 --head-dim=128 --capacity=1024|--seed=4
mha-d256-softcap|--op=attention_masked --batch=1 --heads=2 --kv-heads=2 --head-dim=256 --capacity=32 --softcap=30|--seed=5
mha-d512|--op=attention_masked --batch=1 --heads=2 --kv-heads=2 --head-dim=512 --capacity=24|--seed=6
dv96-dk64|--op=attention_masked --batch=1 --heads=4 --kv-heads=2 --head-dim=64 --value-dim=96 --capacity=32|--seed=7
window|--op=attention_masked --batch=2 --heads=4 --kv-heads=2 --head-dim=32 --capacity=64 --window=8|--steps=2 --seed=8
window-split|--op=attention_masked --batch=1 --heads=2 --kv-heads=1 --head-dim=32 --capacity=2048 --window=300|--seed=9
alibi|--op=attention_masked --batch=2 --heads=4 --kv-heads=4 --head-dim=32 --capacity=32 --alibi|--steps=2 --seed=10
live|--op=attention_live --batch=3 --heads=4 --kv-heads=2 --head-dim=48 --capacity=40|--seed=11 --set=len=1,40,17
live-split|--op=attention_live --batch=1 --heads=2 --kv-heads=2 --head-dim=64 --capacity=1536|--seed=12 --set=len=1000
live-split-short|--op=attention_live --batch=2 --heads=2 --kv-heads=2 --head-dim=64 --capacity=1536|--seed=22 --set=len=1,1536
live-d512-mqa|--op=attention_live --batch=2 --heads=4 --kv-heads=1 --head-dim=512 --capacity=20|--seed=13 --set=len=20,3
paged|--op=paged --batch=2 --heads=4 --kv-heads=2 --head-dim=32 --capacity=32 --pool-slots=96|--steps=2 --seed=14
paged-split|--op=paged --batch=1 --heads=2 --kv-heads=1 --head-dim=64 --capacity=512 --pool-slots=700|--seed=15
mla-192-128|--op=mla --batch=1 --heads=4 --head-dim=128 --rope-dim=64 --value-dim=128 --capacity=32|--seed=16
mtd-gqa-t4|--op=attention_masked --batch=2 --heads=8 --kv-heads=2 --head-dim=64 --capacity=128 --tokens=4|--steps=2 --seed=70
mtd-split-t8|--op=attention_masked --batch=1 --heads=8 --kv-heads=2 --head-dim=64 --capacity=2048 --tokens=8|--seed=71
mtd-live-t3|--op=attention_live --batch=2 --heads=4 --kv-heads=1 --head-dim=32 --capacity=300 --tokens=3|--seed=72 --set=len=3,300
mtd-paged-t2|--op=paged --batch=2 --heads=8 --kv-heads=2 --head-dim=32 --capacity=64 --pool-slots=200 --tokens=2|--steps=2 --seed=73
mtd-window-t16|--op=attention_masked --batch=1 --heads=4 --kv-heads=2 --head-dim=32 --capacity=512 --window=40 --tokens=16|--seed=74
prefill-causal|--op=attention_prefill --batch=2 --heads=4 --kv-heads=2 --head-dim=40 --seq=24|--seed=17
prefill-window-softcap|--op=attention_prefill --batch=1 --heads=2 --kv-heads=1 --head-dim=96 --seq=32 --window=5 --softcap=20|--seed=18
prefill-alibi|--op=attention_prefill --batch=1 --heads=4 --kv-heads=4 --head-dim=32 --seq=16 --alibi|--seed=19
f16-gqa|--op=attention_masked --batch=1 --heads=4 --kv-heads=2 --head-dim=64 --capacity=32 --dtype=f16|--seed=20
f16-live-split|--op=attention_live --batch=1 --heads=2 --kv-heads=1 --head-dim=32 --capacity=1024 --dtype=f16|--seed=21 --set=len=700
bf16-gqa-d40|--op=attention_masked --batch=2 --heads=8 --kv-heads=2 --head-dim=40 --capacity=48 --dtype=bf16|--steps=2 --seed=30
bf16-mqa-d96|--op=attention_masked --batch=1 --heads=6 --kv-heads=1 --head-dim=96 --capacity=40 --dtype=bf16|--seed=31
bf16-alibi|--op=attention_masked --batch=2 --heads=4 --kv-heads=4 --head-dim=32 --capacity=32 --alibi --dtype=bf16|--steps=2 --seed=32
bf16-window-split-d40|--op=attention_masked --batch=1 --heads=4 --kv-heads=2 --head-dim=40 --capacity=1024 --window=300 --dtype=bf16|--seed=33
bf16-live-split-d96|--op=attention_live --batch=2 --heads=4 --kv-heads=1 --head-dim=96 --capacity=1024 --dtype=bf16|--seed=34 --set=len=1,700
bf16-paged-d40|--op=paged --batch=2 --heads=4 --kv-heads=2 --head-dim=40 --capacity=32 --pool-slots=96 --dtype=bf16|--steps=2 --seed=35
bf16-prefill-causal-d40|--op=attention_prefill --batch=2 --heads=4 --kv-heads=2 --head-dim=40 --seq=24 --dtype=bf16|--seed=36
bf16-prefill-window-softcap-d96|--op=attention_prefill --batch=1 --heads=4 --kv-heads=2 --head-dim=96 --seq=32 --window=5 --softcap=20 --dtype=bf16|--seed=37
bf16-mla|--op=mla --batch=1 --heads=4 --head-dim=128 --rope-dim=64 --value-dim=128 --capacity=32 --dtype=bf16|--seed=38
CASES
# Rows a tensor mask hides wholly or mostly (the mask and its rows are
# described in cases/masked-rows-mask.sh).
mask=$("$(dirname "$0")/cases/masked-rows-mask.sh")
run_case masked-rows "$(dirname "$0")/cases/masked-rows-f16.mlir" --seed=25 --set=mask="$mask"
# The same graph in bf16 (buffers of 16-bit words on Vulkan).
sed 's/f16/bf16/g' "$(dirname "$0")/cases/masked-rows-f16.mlir" > "$WORK/masked-rows-bf16.mlir"
run_case masked-rows-bf16 "$WORK/masked-rows-bf16.mlir" --seed=26 --set=mask="$mask"
# The same mask under PyTorch's safe softmax: rows with no visible key are 0
# (zero_empty_rows), on the split chunks and the combine too.
run_case masked-rows-safe "$(dirname "$0")/cases/masked-rows-safe-f16.mlir" --seed=27 --set=mask="$mask"
# A prefill under the safe softmax with rows hidden whole, causal rows and
# rows that keep only their last key (cases/masked-prefill-mask.sh).
pmask=$("$(dirname "$0")/cases/masked-prefill-mask.sh")
run_case masked-prefill-safe "$(dirname "$0")/cases/masked-prefill-safe-bf16.mlir" --seed=28 --set=mask="$pmask"
# A length outside [1, Lk] fails through the validation channel and
# publishes nothing.
"$TRACE" --op=attention_live --batch=2 --heads=2 --kv-heads=1 --head-dim=32 \
  --capacity=64 -o "$WORK/bad-len.mlir"
if out=$("$RUN" "$WORK/bad-len.mlir" --device="$DEVICE" $devflags --set=len=5,65 \
    --out-dir="$WORK/bad-out" 2>&1); then
  echo "FAIL bad-len: a length past Lk ran"; failed=1
elif ! echo "$out" | grep -q "validation-failed" || [ -e "$WORK/bad-out" ]; then
  echo "FAIL bad-len: $out"; failed=1
else
  echo "ok   bad-len refused through the validation channel, nothing written"
fi

echo "$count cases on $DEVICE"
if [ "$PLANFLAGS" = "--fused-combine" ]; then
  # The mode is only worth its time if the split cases took the fused form.
  echo "$fusedcases cases with the combine in the last workgroup"
  if [ "$fusedcases" -lt 5 ]; then
    echo "FAIL: expected at least 5 split cases with the fused combine"; failed=1
  fi
fi
exit $failed
