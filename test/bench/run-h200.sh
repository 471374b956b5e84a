#!/usr/bin/env bash
# Runs on the GPU machine, in one go: correctness of every example and of
# the sweep on the cuda device against the oracle (the f64 reference
# evaluator on the unfused plan) with every eqn on the device,
# compute-sanitizer memcheck on part of the sweep, the decode benchmark of
# our kernels and the PyTorch peers on the same shapes, and the SPIR-V
# plans on the machine's Vulkan driver, checked and timed. Writes results
# under $OUT (or ./h200-out).
#   run-h200.sh BUNDLE_DIR [PHASES]
# PHASES is a comma list of serve (the serving example on cuda and on the
# Vulkan driver, pools kept on the device), check, resident (the same cases run whole on
# the device, and the whole-plan graph replay), torch (our outputs against
# PyTorch on the device), memcheck (compute-sanitizer: SANITIZERS, over
# MEMCHECK_CASES), tiles (the tile cases with their key tiles counted, each
# workgroup checked against the tiles its rows see), peers, ours,
# compare (the bf16 decode shapes with a combine kernel, and on the channel
# schedule where the bundle has those plans), tuning, profile (ncu of
# PROFILE plans), vulkan (the SPIR-V plans against the oracle on the
# machine's Vulkan driver), vulkan-extra (the runs vulkan-extra.txt
# lists), vulkan-bench (the SPIR-V plans of the decode
# benchmark shapes timed there, as ours times the PTX plans),
# or one of all (check,peers,ours), bench (peers,ours), everything (all).
# ONLY="name ..." (ours and the peers) and COMPARE_ONLY="name ..." time
# just those shapes and plans.
# Each phase has a time budget in seconds (BUDGET_<PHASE>, "-" as "_", e.g.
# BUDGET_CHECK=150): cases not started within it are reported as skipped,
# so one slow phase cannot starve the rest of a bounded session.
set -uo pipefail
B="${1:?usage: run-h200.sh BUNDLE_DIR [PHASES]}"
PHASE="${2:-all}"
case "$PHASE" in
  all) PHASE=check,torch,peers,ours ;;
  bench) PHASE=peers,ours ;;
  everything) PHASE=check,tiles,resident,torch,memcheck,peers,ours,tuning,vulkan,vulkan-bench ;;
esac
has() { case ",$PHASE," in *",$1,"*) return 0 ;; esac; return 1; }
R="${OUT:-$PWD/h200-out}"
mkdir -p "$R"
RUN="$(cd "$B" && pwd)/poot-run-plan"
B="$(cd "$B" && pwd)"
T0=$(date +%s)
stamp() { echo "-- $1 at +$(( $(date +%s) - T0 )) s"; }
# Starts a phase's clock: DEADLINE is now + its budget (default $2).
budget() {
  local var="BUDGET_$(echo "$1" | tr a-z- A-Z_)"
  DEADLINE=$(( $(date +%s) + ${!var:-$2} ))
  export DEADLINE
  stamp "$1"
}
intime() { [ "$(date +%s)" -lt "$DEADLINE" ]; }
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version())"
} > "$R/device.txt" 2>&1
cat "$R/device.txt"

# One case: DEVICE NAME then the runner's extra arguments, checked against
# the oracle and run twice (bitwise the same outputs both times); prints ok, FAIL
# or SKIP (past the phase's budget).
check_one() {
  dev="$1"; n="$2"; shift 2
  if [ "$(date +%s)" -ge "$DEADLINE" ]; then echo "SKIP $n (time budget)"; return; fi
  # DEVICE-VARIANT picks the plan NAME.DEVICE-VARIANT.plan.
  plan="$B/plans/$n.$dev.plan"
  if out=$(timeout 60 "$RUN" "$plan" --device=${dev%%-*} --device-only --ref="$B/plans/$n.ref.plan" --repeat-check "$@" --quiet 2>&1); then
    echo "ok   $n"
  else
    echo "FAIL $n: $(echo "$out" | grep -E 'FAIL|error' | head -2 | tr '\n' ' ')"
  fi
}
export -f check_one; export B RUN
# Every example (decodes over two steps) and the sweep, 8 at a time.
cases() {
  for p in "$B"/plans/*."$1".plan; do
    n=$(basename "$p" ."$1".plan)
    # Sweep cases take their arguments below; the PyTorch cases are the
    # torch phase's.
    case "$n" in sweep-*|torch-*) continue ;; esac
    steps=1; case "$n" in *decode*) steps=2 ;; esac
    echo "$1 $n --steps=$steps --seed=3"
  done
  tr '|' ' ' < "$B/sweep.txt" | while read -r n args; do
    [ -f "$B/plans/$n.$1.plan" ] && echo "$1 $n $args"
  done
}

if has check; then
  budget check 200
  echo "== correctness on cuda vs the oracle, every eqn on the device"
  cases cuda | xargs -P 8 -L 1 bash -c 'check_one "$@"' _ | sort -k2 | tee "$R/check-cuda.txt"
  echo "$(grep -c '^ok' "$R/check-cuda.txt") ok, $(grep -c '^FAIL' "$R/check-cuda.txt") failed, $(grep -c '^SKIP' "$R/check-cuda.txt") skipped"
fi

if has tiles && [ -s "$B/tiles.txt" ]; then
  budget tiles 120
  echo "== tile counts on cuda: every workgroup visits exactly the key tiles some row of it sees"
  tr '|' ' ' < "$B/tiles.txt" | while read -r n args; do
    intime || { echo "SKIP $n (time budget)"; continue; }
    out=$(timeout 60 "$RUN" "$B/plans/$n.cuda-count.plan" --device=cuda --device-only \
      --ref="$B/plans/$n.ref.plan" --check-tiles $args 2>&1)
    rc=$?
    echo "$out" | grep -E "^tiles eqn|error|failed" | sed "s/^/$n rc=$rc /"
  done | tee "$R/check-tiles.txt"
  echo "$(grep -c 'rc=0 tiles eqn' "$R/check-tiles.txt") counted eqns as expected, $(grep -vc 'rc=0 tiles eqn' "$R/check-tiles.txt") other lines"
fi

if has resident; then
  budget resident 90
  echo "== resident runs on cuda: every example and sweep case whole on the device, one captured graph a plan"
  cases cuda | sed 's/$/ --resident/' | xargs -P 8 -L 1 bash -c 'check_one "$@"' _ | sort -k2 | tee "$R/check-cuda-resident.txt"
  echo "$(grep -c '^ok' "$R/check-cuda-resident.txt") ok, $(grep -c '^FAIL' "$R/check-cuda-resident.txt") failed"
  echo "== whole-plan graph replay (cache updates and attention), B=1 Lk=4096"
  for n in llama3-70b-b1-lk4096-bf16 llama3-8b-b1-lk4096-bf16; do
    intime || { echo "$n skipped (time budget)"; continue; }
    timeout 120 "$RUN" "$B/bench/$n.plan" --device=cuda --resident --bench=30 --quiet 2>&1 | grep -E "whole plan|error" | sed "s/^/$n /"
  done | tee "$R/bench-resident.txt"
fi

if has torch; then
  budget torch 60
  echo "== our outputs on cuda against PyTorch on the device"
  timeout $(( DEADLINE - $(date +%s) )) python3 "$(dirname "$0")/torch_check.py" \
    "$B/torch.txt" "$B/plans" "$RUN" cuda "$R/torch" 2>&1 | tee "$R/check-torch.txt"
fi

if has memcheck; then
  budget memcheck 60
  echo "== compute-sanitizer: ${SANITIZERS:-memcheck}"
  # MEMCHECK_CASES=all: every sweep case; MEMCHECK_CASES=tile: every
  # warpgroup-tile case. SANITIZERS="memcheck racecheck synccheck" runs
  # each tool over each case.
  [ "${MEMCHECK_CASES:-}" = all ] && MEMCHECK_CASES=$(cut -d'|' -f1 "$B/sweep.txt" | tr '\n' ' ')
  [ "${MEMCHECK_CASES:-}" = tile ] && MEMCHECK_CASES=$(cut -d'|' -f1 "$B/sweep.txt" | grep '^sweep-tile-' | tr '\n' ' ')
  # Four sanitised processes at a time share the GPU.
  sanitize_one() {
    tool="$1"; n="$2"
    intime || { echo "$tool $n: skipped (time budget)"; return; }
    args=$(grep "^$n|" "$B/sweep.txt" | cut -d'|' -f2)
    compute-sanitizer --tool "$tool" --report-api-errors no --error-exitcode 9 "$RUN" "$B/plans/$n.cuda.plan" --device=cuda --device-only $args --quiet > "$R/$tool-$n.txt" 2>&1
    rc=$?
    echo "$tool $n: exit $rc; $(grep -c 'Invalid' "$R/$tool-$n.txt") invalid accesses; $(grep -E 'SUMMARY' "$R/$tool-$n.txt" | tail -1)"
  }
  export -f sanitize_one intime; export R
  for tool in ${SANITIZERS:-memcheck}; do
    for n in ${MEMCHECK_CASES:-sweep-gqa-d128-split sweep-mqa-d96 sweep-mla-192-128 sweep-paged-split sweep-live sweep-gqa-d40 sweep-bf16-split sweep-mma-mqa6-d128-tail sweep-mma-rep3-d96-live sweep-mma-paged-split sweep-fused-mma-live-split sweep-split-channel-live}; do
      echo "$tool $n"
    done
  done | xargs -P 4 -L 1 bash -c 'sanitize_one "$@"' _ | sort | tee "$R/memcheck.txt"
fi

if has peers; then
  budget peers 170
  echo "== benchmark: peers"
  python3 - "$B/bench/shapes.txt" "$R/shapes.json" "${ONLY:-}" <<'PY'
import json, sys
shapes = []
only = set(sys.argv[3].split())
for line in open(sys.argv[1]):
    # name b hq hkv lk d dtype [lq causal]
    f = line.split()
    name, b, hq, hkv, lk, d, dtype = f[:7]
    if only and name not in only:
        continue
    lq = int(f[7]) if len(f) > 7 else 1
    causal = len(f) > 8 and f[8] == "causal"
    shapes.append(dict(name=name, b=int(b), hq=int(hq), hkv=int(hkv), lk=int(lk), d=int(d),
                       dtype=dtype, lq=lq, causal=causal))
json.dump(shapes, open(sys.argv[2], "w"))
PY
  # PyTorch's warnings go to a file of their own, so they do not push the
  # results out of a bounded output.
  PYTHONUNBUFFERED=1 timeout $(( DEADLINE - $(date +%s) )) python3 "$(dirname "$0")/peers.py" "$R/shapes.json" "$R/bench-peers.json" 2>"$R/peers-stderr.txt" | tail -60
fi

# Times each plan of a list (lines "NAME ..."): time_list LIST OUT RUNS
# [FILTER [DEVICE]]; a plan not started within the phase's budget is
# skipped. DEVICE cuda (the default) times NAME.plan, vulkan
# NAME.vulkan.plan; both print the same line (median us, GB/s).
time_list() {
  local dev="${5:-cuda}" suffix=""
  [ "$dev" = vulkan ] && suffix=.vulkan
  while read -r name rest; do
    if [ -n "${4:-}" ]; then case " $4 " in *" $name "*) ;; *) continue ;; esac; fi
    intime || { echo "$name skipped (time budget)"; continue; }
    timeout 150 "$RUN" "$B/bench/$name$suffix.plan" --device=$dev --bench=$3 \
      --bench-only --bench-op=attention --quiet 2>&1 | grep -E "attention|error" | sed "s/^/$name /"
  done < "$1" 2>&1 | tee "$2"
}

if has ours; then
  budget ours 120
  echo "== benchmark: ours"
  # Synthetic operands (every key visible, pos = Lk - 1), the floats filled
  # on the device: the host never evaluates the graph nor draws gigabytes,
  # so the largest shapes (B=128, 4.3 GB of K/V) time as quickly as the rest.
  # ONLY="name ..." times just those shapes.
  time_list "$B/bench/shapes.txt" "$R/bench-ours.txt" 30 "${ONLY:-}"
fi

if has compare && [ -s "$B/bench/compare.txt" ]; then
  budget compare 90
  echo "== benchmark: comparison plans (combine kernel; channel schedule)"
  time_list "$B/bench/compare.txt" "$R/bench-compare.txt" 30 "${COMPARE_ONLY:-}"
fi

if has tuning && [ -s "$B/bench/tuning.txt" ]; then
  budget tuning 120
  echo "== benchmark: schedule variants"
  time_list "$B/bench/tuning.txt" "$R/bench-tuning.txt" 20
fi

if has profile; then
  budget profile 90
  echo "== profile (ncu) of the attention kernel"
  # PROFILE="name ..." picks the benchmark plans; by default the two short
  # rows, which are latency-bound. One launch after two warm ones.
  for n in ${PROFILE:-llama3-8b-b1-lk4096-bf16 llama3-70b-b1-lk4096-bf16}; do
    intime || { echo "$n skipped (time budget)"; continue; }
    timeout 150 ncu --clock-control none --launch-skip 2 --launch-count 1 --set full \
      --import-source no -o "$R/profile-$n" -f \
      "$RUN" "$B/bench/$n.plan" --device=cuda --bench=4 --bench-only \
      --bench-op=attention --quiet > "$R/profile-$n.log" 2>&1
    echo "$n: exit $?"
    # The details page, and every SASS instruction with its stall samples.
    ncu --import "$R/profile-$n.ncu-rep" --page details > "$R/profile-$n.txt" 2>&1
    ncu --import "$R/profile-$n.ncu-rep" --page source --print-source sass \
      --csv > "$R/profile-$n-sass.csv" 2>&1
    # The raw metrics: tensor and shared-memory pipes, stall reasons.
    ncu --import "$R/profile-$n.ncu-rep" --page raw > "$R/profile-$n-raw.txt" 2>&1
    grep -E "pipe_tensor|gmma|data_pipe_lsu_wavefronts_mem_shared|smsp__pcsamp_warps_issue_stalled_(long|short|barrier|wait|math|mio|lg|dispatch|selected|not_selected|no_instruction|sleeping)" \
      "$R/profile-$n-raw.txt" | grep -E "pct|sum |ratio" | head -40
    grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Theoretical Occupancy|Grid Size|Block Size|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|L2 Hit" "$R/profile-$n.txt" | head -30
  done
fi

# The machine's Vulkan driver, set up once for the vulkan phases.
VK_READY=0
vulkan_setup() {
  [ "$VK_READY" = 1 ] && return
  VK_READY=1
  # NVIDIA's ICD is libGLX_nvidia.so.0, described by a JSON the driver
  # install may lack (then one is written below).
  # With the GL dispatch packages in the bundle, unpack them (the ICD
  # needs libGLdispatch) and use the system loader they bring.
  if ls "$B"/gl/*.deb >/dev/null 2>&1; then
    for f in "$B"/gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
  elif [ -f "$B/lib/libvulkan.so.1" ]; then
    export LD_LIBRARY_PATH="$B/lib:${LD_LIBRARY_PATH:-}"
  fi
  # The container toolkit's ICD description first: it names the driver
  # library the container really mounts.
  icd=$(ls /usr/local/nvidia/share/vulkan/icd.d/nvidia*.json /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json 2>/dev/null | head -1)
  [ -n "$icd" ] && export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"
  glx=$(ldconfig -p 2>/dev/null | grep -o '/[^ ]*libGLX_nvidia.so.0' | head -1)
  echo "vulkan: icd json ${icd:-none}, libGLX_nvidia ${glx:-none}"
  if [ -z "$icd" ] && [ -n "$glx" ]; then
    printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' "$glx" > "$R/nvidia_icd.json"
    export VK_ICD_FILENAMES="$R/nvidia_icd.json"
  fi
  # What the loader sees, once: the ICD description, the driver's Vulkan
  # libraries, the container's driver capabilities, the loader's account
  # of one instance.
  [ -n "$icd" ] && cat "$icd"
  echo "NVIDIA_DRIVER_CAPABILITIES=${NVIDIA_DRIVER_CAPABILITIES:-unset}"
  ldconfig -p 2>/dev/null | grep -E 'GLX_nvidia|nvidia-glvkspirv|nvidia-gpucomp|nvidia-glcore|EGL_nvidia' | awk '{print $1}' | tr '\n' ' '; echo
}

if has serve; then
  budget serve 60
  echo "== the serving example, pools kept on the device"
  for d in cuda vulkan; do
    [ "$d" = vulkan ] && vulkan_setup
    timeout 60 "$B/poot-serve-example" --device=$d "$B/serve/mixed.$d.plan" \
      "$B/serve/chunk.$d.plan" > "$R/serve-$d.txt" 2>&1
    echo "serve $d: exit $?"; grep -v '^request' "$R/serve-$d.txt" | tail -9
  done
fi

if has vulkan; then
  budget vulkan 60
  echo "== correctness on the machine's Vulkan driver (SPIR-V plans)"
  vulkan_setup
  first=$(ls "$B"/plans/*.vulkan.plan 2>/dev/null | head -1)
  [ -n "$first" ] && VK_LOADER_DEBUG=error,warn,driver timeout 30 "$RUN" "$first" --device=vulkan --quiet 2>&1 | grep -v '^$' | tail -25
  if ls "$B"/plans/*.vulkan.plan >/dev/null 2>&1 && \
     timeout 30 "$RUN" "$first" --device=vulkan --quiet >/dev/null 2>&1; then
    cases vulkan | xargs -P 4 -L 1 bash -c 'check_one "$@"' _ | sort -k2 | tee "$R/check-vulkan.txt"
    echo "$(grep -c '^ok' "$R/check-vulkan.txt") ok, $(grep -c '^FAIL' "$R/check-vulkan.txt") failed, $(grep -c '^SKIP' "$R/check-vulkan.txt") skipped"
    echo "== the same sweep on Vulkan with the combine in the last workgroup"
    cases vulkan-fused | xargs -P 4 -L 1 bash -c 'check_one "$@"' _ | sort -k2 | tee "$R/check-vulkan-fused.txt"
  else
    echo "vulkan: no device: the check did not run"
  fi
fi

# Extra runs on the Vulkan driver: each line of the bundle's
# vulkan-extra.txt is a name, a plan (relative to the bundle) and the
# runner's arguments (e.g. --repeat-check --set=len=1,17,2999; @B@ names
# the bundle).
if has vulkan-extra && [ -s "$B/vulkan-extra.txt" ]; then
  budget vulkan-extra 60
  echo "== extra runs on the machine's Vulkan driver"
  vulkan_setup
  while read -r n plan args; do
    [ -z "$n" ] && continue
    intime || { echo "SKIP $n (time budget)"; continue; }
    # @B@ in the arguments names the bundle.
    out=$(timeout 60 "$RUN" "$B/$plan" --device=vulkan --quiet ${args//@B@/$B} 2>&1)
    echo "$n rc=$? $(echo "$out" | tail -2 | tr '\n' ' ')"
  done < "$B/vulkan-extra.txt" | tee "$R/vulkan-extra.txt"
fi

if has vulkan-bench; then
  budget vulkan-bench 120
  echo "== benchmark: ours on the machine's Vulkan driver (SPIR-V plans)"
  # The same shapes, operands and counting as ours, timed with timestamp
  # queries (a 256 MiB fill before each run flushes the cache). Shapes the
  # Vulkan target refused have no plan and are not listed.
  vulkan_setup
  if [ -s "$B/bench/vulkan.txt" ]; then
    time_list "$B/bench/vulkan.txt" "$R/bench-vulkan.txt" 30 "${ONLY:-}" vulkan
  else
    echo "vulkan-bench: the bundle has no .vulkan.plan for the benchmark shapes"
  fi
fi
stamp done

# The results again, compactly, last: a reader that keeps only the end of
# the output still has every verdict and timing.
echo "== summary"
for f in check-cuda check-cuda-resident check-vulkan check-vulkan-fused; do
  [ -s "$R/$f.txt" ] && echo "$f: $(grep -c '^ok' "$R/$f.txt") ok, $(grep -c '^FAIL' "$R/$f.txt") failed, $(grep -c '^SKIP' "$R/$f.txt") skipped" && grep '^FAIL' "$R/$f.txt" | cut -c1-160
done
[ -s "$R/check-torch.txt" ] && sed 's/^/torch /' "$R/check-torch.txt"
[ -s "$R/memcheck.txt" ] && sed 's/^/memcheck /' "$R/memcheck.txt"
for f in bench-resident bench-ours bench-compare bench-tuning bench-vulkan; do
  [ -s "$R/$f.txt" ] && sed -E 's/ bench eqn [0-9]+ [a-z_0-9,]+:/:/; s/^/'"$f"' /' "$R/$f.txt"
done
[ -s "$R/bench-peers.json" ] && python3 - "$R/bench-peers.json" <<'PY'
import json, sys
best = {}
for r in json.load(open(sys.argv[1])):
    if r.get("us"):
        s = r["shape"]
        if s not in best or r["us"] < best[s][1]:
            best[s] = (r["peer"], r["us"])
for s, (p, us) in best.items():
    print(f"peer-best {s} {p} {us:.1f} us")
PY
