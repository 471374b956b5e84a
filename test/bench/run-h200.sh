#!/usr/bin/env bash
# Runs on the GPU machine, in one go: correctness of every example and of
# the sweep on the cuda device against the oracle (the f64 reference
# evaluator on the unfused plan), compute-sanitizer memcheck on part of the
# sweep, then the decode benchmark of our kernels and the PyTorch peers on
# the same shapes. Writes results under $OUT (or ./h200-out).
#   run-h200.sh BUNDLE_DIR [check|memcheck|bench|all|everything]
set -uo pipefail
B="${1:?usage: run-h200.sh BUNDLE_DIR [check|bench|all]}"
PHASE="${2:-all}"
R="${OUT:-$PWD/h200-out}"
mkdir -p "$R"
RUN="$B/poot-run-plan"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())"
} > "$R/device.txt" 2>&1
cat "$R/device.txt"

if [ "$PHASE" != bench ] && [ "$PHASE" != memcheck ]; then
echo "== correctness: examples on cuda vs the oracle"
pass=0; fail=0
for p in "$B"/plans/*.cuda.plan; do
  n=$(basename "$p" .cuda.plan)
  case "$n" in sweep-*) continue ;; esac
  steps=1; case "$n" in *decode*) steps=2 ;; esac
  if out=$("$RUN" "$p" --device=cuda --ref="$B/plans/$n.ref.plan" --steps=$steps --seed=3 --quiet 2>&1); then
    pass=$((pass+1)); echo "ok   $n"
  else
    fail=$((fail+1)); echo "FAIL $n: $(echo "$out" | grep -E 'FAIL|error' | head -2 | tr '\n' ' ')"
  fi
done 2>&1 | tee "$R/examples.txt"

echo "== correctness: sweep on cuda vs the oracle"
while IFS='|' read -r n args; do
  if out=$("$RUN" "$B/plans/$n.cuda.plan" --device=cuda --ref="$B/plans/$n.ref.plan" $args --quiet 2>&1); then
    echo "ok   $n"
  else
    echo "FAIL $n: $(echo "$out" | grep -E 'FAIL|error' | head -2 | tr '\n' ' ')"
  fi
done < "$B/sweep.txt" 2>&1 | tee "$R/sweep.txt"

fi
if [ "$PHASE" = memcheck ] || [ "$PHASE" = everything ]; then
echo "== compute-sanitizer memcheck"
for n in sweep-gqa-d40 sweep-mqa-d96 sweep-gqa-d128-split sweep-live sweep-paged-split sweep-mla-192-128 sweep-bf16-split; do
  args=$(grep "^$n|" "$B/sweep.txt" | cut -d'|' -f2)
  compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$RUN" "$B/plans/$n.cuda.plan" --device=cuda $args --quiet > "$R/memcheck-$n.txt" 2>&1
  echo "$n: exit $? $(grep -c 'Invalid' "$R/memcheck-$n.txt") invalid accesses"
done | tee "$R/memcheck.txt"

fi
[ "$PHASE" = check ] || [ "$PHASE" = memcheck ] && exit 0

echo "== benchmark: peers"
python3 - "$B/bench/shapes.txt" "$R/shapes.json" <<'PY'
import json, sys
shapes = []
for line in open(sys.argv[1]):
    name, b, hq, hkv, lk, d, dtype = line.split()
    shapes.append(dict(name=name, b=int(b), hq=int(hq), hkv=int(hkv), lk=int(lk), d=int(d), dtype=dtype))
json.dump(shapes, open(sys.argv[2], "w"))
PY
PYTHONUNBUFFERED=1 python3 "$(dirname "$0")/peers.py" "$R/shapes.json" "$R/bench-peers.json" 2>&1 | tail -40

echo "== benchmark: ours"
while read -r name b hq hkv lk d dtype; do
  # pos = Lk - 1: every key of the cache is visible, as for the peers.
  timeout 60 "$RUN" "$B/bench/$name.plan" --device=cuda --bench=30 --quiet \
    --set=pos=$((lk - 1)) 2>&1 | sed "s/^/$name /"
done < "$B/bench/shapes.txt" 2>&1 | tee "$R/bench-ours.txt"

