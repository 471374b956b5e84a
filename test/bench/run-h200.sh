#!/usr/bin/env bash
# Runs on the GPU machine, in one go: correctness of every example and of
# the sweep on the cuda device against the oracle (the f64 reference
# evaluator on the unfused plan), compute-sanitizer memcheck on part of the
# sweep, then the decode benchmark of our kernels and the PyTorch peers on
# the same shapes. Writes results under $OUT (or ./h200-out).
#   run-h200.sh BUNDLE_DIR [PHASES]
# PHASES is a comma list of check, memcheck, peers, ours, tuning, or one of
# all (check,peers,ours), bench (peers,ours), everything (all five).
set -uo pipefail
B="${1:?usage: run-h200.sh BUNDLE_DIR [check|bench|all]}"
PHASE="${2:-all}"
case "$PHASE" in
  all) PHASE=check,peers,ours ;;
  bench) PHASE=peers,ours ;;
  everything) PHASE=check,memcheck,peers,ours,tuning ;;
esac
has() { case ",$PHASE," in *",$1,"*) return 0 ;; esac; return 1; }
R="${OUT:-$PWD/h200-out}"
mkdir -p "$R"
RUN="$B/poot-run-plan"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())"
} > "$R/device.txt" 2>&1
cat "$R/device.txt"

if has check; then
# One case: NAME then the runner's extra arguments; prints ok or FAIL. The
# cases run 8 at a time (the oracle runs on the host's cores).
check_one() {
  n="$1"; shift
  if out=$("$RUN" "$B/plans/$n.cuda.plan" --device=cuda --ref="$B/plans/$n.ref.plan" "$@" --quiet 2>&1); then
    echo "ok   $n"
  else
    echo "FAIL $n: $(echo "$out" | grep -E 'FAIL|error' | head -2 | tr '\n' ' ')"
  fi
}
export -f check_one; export B RUN
echo "== correctness: examples on cuda vs the oracle"
for p in "$B"/plans/*.cuda.plan; do
  n=$(basename "$p" .cuda.plan)
  case "$n" in sweep-*) continue ;; esac
  steps=1; case "$n" in *decode*) steps=2 ;; esac
  echo "$n --steps=$steps --seed=3"
done | xargs -P 8 -L 1 bash -c 'check_one "$@"' _ | sort -k2 | tee "$R/examples.txt"

echo "== correctness: sweep on cuda vs the oracle"
tr '|' ' ' < "$B/sweep.txt" | xargs -P 8 -L 1 bash -c 'check_one "$@"' _ \
  | sort -k2 | tee "$R/sweep.txt"

fi
if has memcheck; then
echo "== compute-sanitizer memcheck"
for n in sweep-gqa-d40 sweep-mqa-d96 sweep-gqa-d128-split sweep-live sweep-paged-split sweep-mla-192-128 sweep-bf16-split; do
  args=$(grep "^$n|" "$B/sweep.txt" | cut -d'|' -f2)
  compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$RUN" "$B/plans/$n.cuda.plan" --device=cuda $args --quiet > "$R/memcheck-$n.txt" 2>&1
  echo "$n: exit $? $(grep -c 'Invalid' "$R/memcheck-$n.txt") invalid accesses"
done | tee "$R/memcheck.txt"

fi

if has peers; then
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
fi

if has ours; then
echo "== benchmark: ours"
while read -r name b hq hkv lk d dtype; do
  # pos = Lk - 1: every key of the cache is visible, as for the peers.
  # Synthetic operands (every key visible, pos = Lk - 1): the host never
  # evaluates the graph, so the largest shapes time as quickly as the rest.
  timeout 120 "$RUN" "$B/bench/$name.plan" --device=cuda --bench=30 \
    --bench-only --quiet 2>&1 | sed "s/^/$name /"
done < "$B/bench/shapes.txt" 2>&1 | tee "$R/bench-ours.txt"
fi

if has tuning && [ -s "$B/bench/tuning.txt" ]; then
echo "== benchmark: channel schedule variants"
while read -r name lk; do
  timeout 60 "$RUN" "$B/bench/$name.plan" --device=cuda --bench=20 \
    --bench-only --quiet 2>&1 | sed "s/^/$name /"
done < "$B/bench/tuning.txt" 2>&1 | tee "$R/bench-tuning.txt"
fi

