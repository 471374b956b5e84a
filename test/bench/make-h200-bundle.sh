#!/usr/bin/env bash
# Prepares everything the GPU machine needs, which has no LLVM: the
# runtime-only runner, and plans compiled here (fused for cuda:sm_90, plus
# the unfused reference of each, planned for the cpu) for every example, the
# shape sweep and the benchmark shapes (decode, multi-token decode, prefill).
#   make-h200-bundle.sh BUILD_DIR OUT_DIR
# VULKAN_FACTS=FILE plans the SPIR-V benchmark plans against the GPU
# machine's Vulkan device (poot-run-plan --print-device-facts=vulkan there)
# instead of the generic Vulkan preset.
set -euo pipefail
BIN="${1:?usage: make-h200-bundle.sh BUILD_DIR OUT_DIR}"
OUT="${2:?}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
COMPILE="$BIN/tools/poot-compile/poot-compile"
TRACE="$BIN/tools/poot-trace/poot-trace"
mkdir -p "$OUT/plans" "$OUT/bench"

# The runner, built without LLVM.
cmake -G Ninja -S "$ROOT" -B "$OUT/build-rt" -DCMAKE_BUILD_TYPE=Release \
  -DPOOT_RUNTIME_ONLY=ON -DPOOT_BUILD_TESTS=OFF >/dev/null
ninja -C "$OUT/build-rt" poot-run-plan poot-serve-example >/dev/null
cp "$OUT/build-rt/tools/poot-run-plan/poot-run-plan" "$OUT/"
cp "$OUT/build-rt/examples/serve/poot-serve-example" "$OUT/"
rm -rf "$OUT/build-rt"
# The Vulkan loader, which the GPU machine lacks (the driver's ICD, if its
# install has one, is found by run-h200.sh).
mkdir -p "$OUT/lib"
cp -L /usr/lib/x86_64-linux-gnu/libvulkan.so.1 "$OUT/lib/" 2>/dev/null || true
# NVIDIA's Vulkan ICD lives in its GLX library, which needs the GL vendor
# dispatch libraries (libglvnd) a compute-only image lacks. GL_DEBS names a
# folder of Debian packages to unpack there (libvulkan1 libegl1 libglvnd0
# libopengl0 libgl1 libglx0 libgles2, fetched with `apt-get download`).
if [ -n "${GL_DEBS:-}" ]; then
  mkdir -p "$OUT/gl"
  cp "$GL_DEBS"/*.deb "$OUT/gl/"
fi

plan_pair() { # name graph.mlir [extra flags for the cuda plan]
  "$COMPILE" "$2" --target=cuda:sm_90 --quiet ${3:-} -o "$OUT/plans/$1.cuda.plan"
  "$COMPILE" "$2" --target=cpu --no-fusion --quiet -o "$OUT/plans/$1.ref.plan"
  # The SPIR-V plan for the machine's Vulkan driver (none for bf16, which
  # the Vulkan target refuses).
  "$COMPILE" "$2" --target=vulkan --quiet -o "$OUT/plans/$1.vulkan.plan" \
    2>/dev/null || rm -f "$OUT/plans/$1.vulkan.plan"
}

for g in "$ROOT"/examples/*.mlir; do
  plan_pair "$(basename "$g" .mlir)" "$g"
done

# The serving example's two step shapes, for both GPU targets (run-h200.sh's
# serve phase serves them with the pools kept on the device).
mkdir -p "$OUT/serve"
for b in mixed chunk; do
  for t in cuda:sm_90 vulkan; do
    "$COMPILE" "$ROOT/examples/serve/llama3-8b.serve.$b.mlir" --target=$t \
      --quiet -o "$OUT/serve/$b.${t%%:*}.plan"
  done
done

# Sweep cases from stdin, "NAME|TRACE ARGS|RUN ARGS[|COMPILE FLAGS]" a
# line: each traced, planned and listed in sweep.txt with its run arguments.
sweep_cases() {
  while IFS='|' read -r name args runargs flags; do
    [ -z "$name" ] && continue
    "$TRACE" $args -o "$OUT/$name.mlir"
    plan_pair "sweep-$name" "$OUT/$name.mlir" "${flags:-}"
    # The SPIR-V plan again with the combine in the last workgroup (device
    # fences and Coherent buffers; on request only on Vulkan), where the
    # case splits.
    if "$COMPILE" "$OUT/$name.mlir" --target=vulkan --fused-combine \
         -o "$OUT/plans/sweep-$name.vulkan-fused.plan" 2>&1 |
         grep -q "folded by the last workgroup"; then :; else
      rm -f "$OUT/plans/sweep-$name.vulkan-fused.plan"
    fi
    rm "$OUT/$name.mlir"
    echo "sweep-$name|$runargs" >> "$OUT/sweep.txt"
  done
}

# The sweep's cases (as in test/e2e/sweep.sh), with their run arguments.
: > "$OUT/sweep.txt"
sed -n '/<<.CASES.$/,/^CASES$/p' "$ROOT/test/e2e/sweep.sh" | sed '1d;$d' | sweep_cases

# bf16 and f16 cases the Vulkan sweep cannot run (no bf16 storage there).
"$TRACE" --op=attention_masked --batch=2 --heads=8 --kv-heads=2 --head-dim=128 \
  --capacity=2048 --dtype=bf16 -o "$OUT/bf16-split.mlir"
plan_pair sweep-bf16-split "$OUT/bf16-split.mlir"; rm "$OUT/bf16-split.mlir"
echo "sweep-bf16-split|--seed=31" >> "$OUT/sweep.txt"
"$TRACE" --op=attention_live --batch=2 --heads=4 --kv-heads=1 --head-dim=96 \
  --capacity=300 --dtype=bf16 -o "$OUT/bf16-live.mlir"
plan_pair sweep-bf16-live "$OUT/bf16-live.mlir"; rm "$OUT/bf16-live.mlir"
echo "sweep-bf16-live|--seed=32 --set=len=1,300" >> "$OUT/sweep.txt"

# The matrix-tile schedule (bf16/f16 decode of grouped heads): odd head
# counts and widths, Dk != Dv, every mask kind, softcap, live lengths with
# key counts off the 16-key tile, split and streaming, paged, f16.
sweep_cases <<'CASES'
mma-70b-split|--op=attention_masked --batch=2 --heads=64 --kv-heads=8 --head-dim=128 --capacity=1024 --dtype=bf16|--steps=2 --seed=41
mma-mqa6-d128-tail|--op=attention_masked --batch=2 --heads=6 --kv-heads=1 --head-dim=128 --capacity=333 --dtype=bf16|--seed=42
mma-rep16-d64|--op=attention_masked --batch=1 --heads=32 --kv-heads=2 --head-dim=64 --capacity=4096 --dtype=bf16|--seed=43
mma-rep3-d96-live|--op=attention_live --batch=3 --heads=6 --kv-heads=2 --head-dim=96 --capacity=700 --dtype=bf16|--seed=44 --set=len=1,700,333
mma-d256-softcap|--op=attention_masked --batch=1 --heads=4 --kv-heads=2 --head-dim=256 --capacity=200 --softcap=30 --dtype=bf16|--seed=45
mma-dk64-dv96|--op=attention_masked --batch=1 --heads=8 --kv-heads=2 --head-dim=64 --value-dim=96 --capacity=300 --dtype=bf16|--seed=46
mma-window-split|--op=attention_masked --batch=1 --heads=8 --kv-heads=2 --head-dim=64 --capacity=2048 --window=300 --dtype=bf16|--seed=47
mma-alibi|--op=attention_masked --batch=2 --heads=8 --kv-heads=2 --head-dim=32 --capacity=64 --alibi --dtype=bf16|--steps=2 --seed=48
mma-paged-split|--op=paged --batch=2 --heads=8 --kv-heads=2 --head-dim=128 --capacity=512 --pool-slots=1100 --dtype=bf16|--seed=49
mma-live-short|--op=attention_live --batch=2 --heads=8 --kv-heads=1 --head-dim=128 --capacity=64 --dtype=bf16|--seed=50 --set=len=1,5
mma-f16-d128|--op=attention_masked --batch=1 --heads=8 --kv-heads=2 --head-dim=128 --capacity=1000 --dtype=f16|--seed=51
mma-mtd-70b-t8|--op=attention_masked --batch=2 --heads=64 --kv-heads=8 --head-dim=128 --capacity=1024 --tokens=8 --dtype=bf16|--steps=2 --seed=75
mma-mtd-t4-split|--op=attention_masked --batch=1 --heads=32 --kv-heads=8 --head-dim=128 --capacity=4096 --tokens=4 --dtype=bf16|--seed=76
mma-mtd-live-t3|--op=attention_live --batch=2 --heads=8 --kv-heads=2 --head-dim=128 --capacity=700 --tokens=3 --dtype=bf16|--seed=77 --set=len=3,700
mma-mtd-paged-t2|--op=paged --batch=2 --heads=8 --kv-heads=2 --head-dim=128 --capacity=512 --pool-slots=1100 --tokens=2 --dtype=bf16|--seed=78
mma-mtd-window-t16|--op=attention_masked --batch=1 --heads=16 --kv-heads=2 --head-dim=64 --capacity=2048 --window=300 --tokens=16 --dtype=bf16|--seed=79
mma-mtd-f16-t5|--op=attention_masked --batch=3 --heads=12 --kv-heads=4 --head-dim=96 --capacity=333 --tokens=5 --dtype=f16|--steps=2 --seed=80
CASES

# The tile schedule (f16/bf16 prefill on the matrix tile): lengths off the
# 64-row and 64-key tiles (17, 77, 333, 1000), MHA, MQA and n_rep up to 16,
# head widths 64, 96, 128 and 256, Dk != Dv, softcap, window, ALiBi,
# chunked prefill against a fixed and a paged cache at a causal offset,
# live lengths, and multi-token decode split over the keys (live, paged,
# f16).
TILE_CASES=$(cat <<'CASES'
tile-gqa-d128|--op=attention_prefill --batch=2 --heads=8 --kv-heads=2 --head-dim=128 --seq=1000 --dtype=bf16|--seed=52
tile-mha-d64-f16|--op=attention_prefill --batch=1 --heads=4 --kv-heads=4 --head-dim=64 --seq=17 --dtype=f16|--seed=81
tile-mqa-d96|--op=attention_prefill --batch=1 --heads=6 --kv-heads=1 --head-dim=96 --seq=333 --dtype=bf16|--seed=82
tile-d256-softcap|--op=attention_prefill --batch=1 --heads=4 --kv-heads=2 --head-dim=256 --seq=200 --softcap=30 --dtype=bf16|--seed=83
tile-window|--op=attention_prefill --batch=1 --heads=8 --kv-heads=2 --head-dim=64 --seq=1000 --window=100 --dtype=bf16|--seed=84
tile-alibi|--op=attention_prefill --batch=2 --heads=8 --kv-heads=2 --head-dim=32 --seq=77 --alibi --dtype=bf16|--seed=85
tile-rep16-d64|--op=attention_prefill --batch=1 --heads=32 --kv-heads=2 --head-dim=64 --seq=129 --dtype=bf16|--seed=86
tile-dk64-dv96|--op=attention_prefill --batch=1 --heads=8 --kv-heads=2 --head-dim=64 --value-dim=96 --seq=300 --dtype=f16|--seed=87
tile-chunk-fixed|--op=attention_masked --batch=2 --heads=8 --kv-heads=2 --head-dim=128 --capacity=1024 --tokens=100 --dtype=bf16|--steps=2 --seed=88
tile-chunk-paged|--op=paged --batch=2 --heads=8 --kv-heads=2 --head-dim=128 --capacity=512 --pool-slots=1100 --tokens=64 --dtype=bf16|--seed=89
tile-live-t32|--op=attention_live --batch=2 --heads=8 --kv-heads=2 --head-dim=128 --capacity=700 --tokens=32 --dtype=bf16|--seed=90 --set=len=5,700
tile-mtd-live-t8|--op=attention_live --batch=3 --heads=8 --kv-heads=2 --head-dim=128 --capacity=2000 --tokens=8 --dtype=bf16|--seed=91 --set=len=8,2000,333
tile-mtd-paged-t8|--op=paged --batch=2 --heads=16 --kv-heads=2 --head-dim=128 --capacity=1024 --pool-slots=2100 --tokens=8 --dtype=bf16|--seed=92
tile-mtd-f16-d64-t6|--op=attention_masked --batch=1 --heads=12 --kv-heads=2 --head-dim=64 --capacity=3000 --tokens=6 --dtype=f16|--steps=2 --seed=93
tile-mla-chunk|--op=mla --batch=1 --heads=8 --head-dim=128 --rope-dim=64 --value-dim=128 --capacity=512 --tokens=64 --dtype=bf16|--seed=94
tile-dk192-dv128|--op=attention_prefill --batch=1 --heads=4 --kv-heads=1 --head-dim=192 --value-dim=128 --seq=257 --dtype=bf16|--seed=95
tile-l4095-rep2|--op=attention_prefill --batch=1 --heads=2 --kv-heads=1 --head-dim=128 --seq=4095 --dtype=bf16|--seed=96
tile-l1-rep4|--op=attention_prefill --batch=2 --heads=4 --kv-heads=1 --head-dim=64 --seq=1 --dtype=f16|--seed=97
tile-window-f16-d96|--op=attention_prefill --batch=1 --heads=4 --kv-heads=2 --head-dim=96 --seq=700 --window=64 --dtype=f16|--seed=98
tile-softcap-d64|--op=attention_prefill --batch=2 --heads=8 --kv-heads=8 --head-dim=64 --seq=200 --softcap=50 --dtype=bf16|--seed=99
CASES
)
echo "$TILE_CASES" | sweep_cases

# Two warpgroups a workgroup (the default where both fill) at the widths
# and dtypes the cases above leave out (f16, widths 32 and 256 of keys),
# and the plain cases above on one warpgroup (--no-wide-warpgroup).
sweep_cases <<'CASES'
tile-wide-f16-d64|--op=attention_prefill --batch=1 --heads=8 --kv-heads=2 --head-dim=64 --seq=555 --dtype=f16|--seed=105|
tile-wide-mha-d32|--op=attention_prefill --batch=2 --heads=4 --kv-heads=4 --head-dim=32 --seq=300 --dtype=bf16|--seed=106|
tile-wide-dk256-dv128|--op=attention_prefill --batch=1 --heads=4 --kv-heads=2 --head-dim=256 --value-dim=128 --seq=190 --dtype=bf16|--seed=107|
nw-tile-gqa-d128|--op=attention_prefill --batch=2 --heads=8 --kv-heads=2 --head-dim=128 --seq=1000 --dtype=bf16|--seed=52|--no-wide-warpgroup
nw-tile-chunk-fixed|--op=attention_masked --batch=2 --heads=8 --kv-heads=2 --head-dim=128 --capacity=1024 --tokens=100 --dtype=bf16|--steps=2 --seed=88|--no-wide-warpgroup
nw-tile-l4095-rep2|--op=attention_prefill --batch=1 --heads=2 --kv-heads=1 --head-dim=128 --seq=4095 --dtype=bf16|--seed=96|--no-wide-warpgroup
CASES

# The same cases on the subgroup matrix tile (sm_80/sm_89's form; sm_90
# prefill takes the warpgroup tile where it can).
echo "$TILE_CASES" | sed 's/^tile-/sg-tile-/; s/$/|--no-warpgroup/' | sweep_cases

# Multi-token decode on the warpgroup tile (where a KV head's rows fill
# its 64 rows): fixed, live and paged caches, split over the keys, f16 at
# width 64.
sweep_cases <<'CASES'
wgd-mtd-t8-rep8|--op=attention_masked --batch=2 --heads=16 --kv-heads=2 --head-dim=128 --capacity=3000 --tokens=8 --dtype=bf16|--steps=2 --seed=101|
wgd-mtd-live-t16|--op=attention_live --batch=3 --heads=8 --kv-heads=2 --head-dim=128 --capacity=2000 --tokens=16 --dtype=bf16|--seed=102 --set=len=16,2000,333|
wgd-mtd-paged-t8|--op=paged --batch=2 --heads=16 --kv-heads=2 --head-dim=128 --capacity=1024 --pool-slots=2100 --tokens=8 --dtype=bf16|--seed=103|
wgd-mtd-f16-d64-t8|--op=attention_masked --batch=1 --heads=16 --kv-heads=2 --head-dim=64 --capacity=1500 --tokens=8 --dtype=f16|--steps=2 --seed=104|
CASES

# Both tiles' cases again with their key tiles counted (--count-tiles), for
# run-h200.sh's tiles phase: every workgroup must visit exactly the tiles
# some row of it sees (tiles.txt: NAME|RUN ARGS, the plan NAME.cuda-count).
: > "$OUT/tiles.txt"
echo "$TILE_CASES" | while IFS='|' read -r name args runargs; do
  [ -z "$name" ] && continue
  "$TRACE" $args -o "$OUT/$name.mlir"
  for form in warpgroup subgroup; do
    n=sweep-$name flag=
    [ $form = subgroup ] && n=sweep-sg-$name flag=--no-warpgroup
    "$COMPILE" "$OUT/$name.mlir" --target=cuda:sm_90 --count-tiles $flag \
      --quiet -o "$OUT/plans/$n.cuda-count.plan"
    echo "$n|$runargs" >> "$OUT/tiles.txt"
  done
  rm "$OUT/$name.mlir"
done

# The split-KV combine: on CUDA the matrix-tile schedule folds it in the
# last workgroup of a row, so the combine kernel is kept covered here
# (asked for on the matrix-tile schedule, and the f32 channel schedule's
# default), and the fused one meets live lengths that leave most splits
# empty.
sweep_cases <<'CASES'
combine-mma-70b-split|--op=attention_masked --batch=2 --heads=64 --kv-heads=8 --head-dim=128 --capacity=1024 --dtype=bf16|--steps=2 --seed=53|--no-fused-combine
combine-live-split|--op=attention_live --batch=2 --heads=4 --kv-heads=2 --head-dim=64 --capacity=1536|--seed=54 --set=len=1,1000|--no-fused-combine
fused-mma-live-split|--op=attention_live --batch=3 --heads=8 --kv-heads=2 --head-dim=128 --capacity=4096 --dtype=bf16|--seed=55 --set=len=1,2,4096
split-channel-live|--op=attention_live --batch=3 --heads=4 --kv-heads=4 --head-dim=96 --capacity=3000|--steps=2 --seed=56 --set=len=1,17,2999
split-channel-d512|--op=attention_live --batch=1 --heads=2 --kv-heads=1 --head-dim=512 --capacity=2048|--seed=57 --set=len=1500
CASES

# Cases for the comparison with PyTorch on the device (torch_check.py;
# the list is test/bench/torch-cases.txt, which CI also runs on lavapipe
# and the cpu against numpy).
grep -v '^#' "$ROOT/test/bench/torch-cases.txt" > "$OUT/torch.txt"
python3 "$ROOT/test/bench/torch_check.py" --trace-args "$OUT/torch.txt" |
while read -r name args; do
  "$TRACE" $args -o "$OUT/$name.mlir"
  plan_pair "$name" "$OUT/$name.mlir"
  rm "$OUT/$name.mlir"
done

# The matrix-tile schedule with 16 subgroups for 8 heads, which needs the
# pairwise fold (a tuning request; not the default until measured).
"$TRACE" --op=attention_masked --batch=2 --heads=64 --kv-heads=8 --head-dim=128 \
  --capacity=1024 --dtype=bf16 -o "$OUT/pair.mlir"
plan_pair sweep-mma-70b-pairfold "$OUT/pair.mlir" --warps=16; rm "$OUT/pair.mlir"
echo "sweep-mma-70b-pairfold|--steps=2 --seed=62" >> "$OUT/sweep.txt"

# Hand-written graphs (test/bench/cases): a bf16 GQA decode with a tensor
# mask, shared by the heads and per head, on the matrix-tile schedule.
for g in "$ROOT"/test/bench/cases/*.mlir; do
  name="case-$(basename "$g" .mlir)"
  plan_pair "$name" "$g"
  echo "$name|--seed=61" >> "$OUT/sweep.txt"
done

# Rows a tensor mask hides wholly or mostly (the sweep's masked-rows case):
# on cuda, the matrix-tile schedule with split chunks that see no key.
plan_pair case-masked-rows-f16 "$ROOT/test/e2e/cases/masked-rows-f16.mlir"
echo "case-masked-rows-f16|--seed=25 --set=mask=$("$ROOT/test/e2e/cases/masked-rows-mask.sh")" >> "$OUT/sweep.txt"
# The same rows under the safe softmax (zero_empty_rows: such rows are 0),
# and a prefill with rows hidden whole on the tile schedule.
plan_pair case-masked-rows-safe-f16 "$ROOT/test/e2e/cases/masked-rows-safe-f16.mlir"
echo "case-masked-rows-safe-f16|--seed=27 --set=mask=$("$ROOT/test/e2e/cases/masked-rows-mask.sh")" >> "$OUT/sweep.txt"
plan_pair case-masked-prefill-safe-bf16 "$ROOT/test/e2e/cases/masked-prefill-safe-bf16.mlir"
echo "case-masked-prefill-safe-bf16|--seed=28 --set=mask=$("$ROOT/test/e2e/cases/masked-prefill-mask.sh")" >> "$OUT/sweep.txt"

# Benchmark shapes (decode, one new token against a Lk-long cache). Each
# bf16 and f32 shape also gets a SPIR-V plan, NAME.vulkan.plan, timed by
# run-h200.sh's vulkan-bench phase on the machine's Vulkan driver; the
# shapes the Vulkan target refuses (past its buffer limits, say) are left
# out of bench/vulkan.txt.
: > "$OUT/bench/shapes.txt"
: > "$OUT/bench/compare.txt"
: > "$OUT/bench/vulkan.txt"
for model in "70b 64 8" "8b 32 8"; do
  set -- $model
  for bl in "1 4096" "1 32768" "1 131072" "8 8192" "8 32768" "32 8192" "128 8192"; do
    b=${bl% *}; lk=${bl#* }
    dtypes=bf16
    case "$1-$b-$lk" in 70b-1-32768|70b-8-8192|70b-32-8192) dtypes="bf16 f32" ;; esac
    for dtype in $dtypes; do
      name="llama3-$1-b$b-lk$lk-$dtype"
      "$TRACE" --op=attention_masked --batch=$b --heads=$2 --kv-heads=$3 \
        --head-dim=128 --capacity=$lk --dtype=$dtype -o "$OUT/bench/$name.mlir"
      "$COMPILE" "$OUT/bench/$name.mlir" --target=cuda:sm_90 --quiet \
        -o "$OUT/bench/$name.plan"
      if "$COMPILE" "$OUT/bench/$name.mlir" --target=vulkan --quiet \
           ${VULKAN_FACTS:+--device-facts=$VULKAN_FACTS} \
           -o "$OUT/bench/$name.vulkan.plan" 2>"$OUT/bench/$name.vulkan.err"; then
        echo "$name $b $2 $3 $lk 128 $dtype" >> "$OUT/bench/vulkan.txt"
      else
        echo "vulkan: $name refused: $(head -1 "$OUT/bench/$name.vulkan.err")" >&2
        rm -f "$OUT/bench/$name.vulkan.plan"
      fi
      rm -f "$OUT/bench/$name.vulkan.err"
      # The same shape with a combine kernel (where it splits), and with
      # COMPARE_CHANNEL=1 on the channel schedule, for comparison.
      if [ "$b" -lt 32 ]; then
        "$COMPILE" "$OUT/bench/$name.mlir" --target=cuda:sm_90 --quiet \
          --no-fused-combine -o "$OUT/bench/$name-combine.plan"
        echo "$name-combine $lk" >> "$OUT/bench/compare.txt"
      fi
      if [ "$dtype" = bf16 ] && [ "${COMPARE_CHANNEL:-0}" = 1 ]; then
        "$COMPILE" "$OUT/bench/$name.mlir" --target=cuda:sm_90 --quiet \
          --no-matrix -o "$OUT/bench/$name-channel.plan"
        echo "$name-channel $lk" >> "$OUT/bench/compare.txt"
      fi
      rm "$OUT/bench/$name.mlir"
      echo "$name $b $2 $3 $lk 128 $dtype" >> "$OUT/bench/shapes.txt"
    done
  done
done

# Multi-token decode (speculative decoding, multi-token prediction): 4 and
# 8 new rows of each sequence against a 32768-key cache, Llama-3-70B
# layer. Every key is visible to every row (the runner's pos is Lk - 1), so
# the peers run without a mask.
for t in 4 8; do
  name="llama3-70b-b8-lk32768-bf16-t$t"
  "$TRACE" --op=attention_masked --batch=8 --heads=64 --kv-heads=8 \
    --head-dim=128 --capacity=32768 --tokens=$t --dtype=bf16 -o "$OUT/bench/$name.mlir"
  "$COMPILE" "$OUT/bench/$name.mlir" --target=cuda:sm_90 --quiet \
    -o "$OUT/bench/$name.plan"
  "$COMPILE" "$OUT/bench/$name.mlir" --target=cuda:sm_90 --quiet \
    --no-warpgroup -o "$OUT/bench/$name-subgroup.plan"
  echo "$name-subgroup" >> "$OUT/bench/compare.txt"
  # 8 rows x n_rep 8 fill the warpgroup tile, which the planner takes;
  # the subgroup tile's form above is the comparison.
  rm "$OUT/bench/$name.mlir"
  echo "$name 8 64 8 32768 128 bf16 $t" >> "$OUT/bench/shapes.txt"
done

# A comparison plan of bench/NAME.mlir: NAME-SUFFIX.plan compiled with
# FLAGS, listed in compare.txt (with LENGTH where one is given).
variant() { # name suffix length flags...
  local name="$1" suffix="$2" length="$3"
  shift 3
  "$COMPILE" "$OUT/bench/$name.mlir" --target=cuda:sm_90 --quiet "$@" \
    -o "$OUT/bench/$name-$suffix.plan"
  echo "$name-$suffix${length:+ $length}" >> "$OUT/bench/compare.txt"
}

# Prefill (causal), Llama-3-8B and 70B layers: B=1, L = 1024, 4096, 16384.
for model in "8b 32 8" "70b 64 8"; do
  set -- $model
  for l in 1024 4096 16384; do
    name="llama3-$1-prefill-b1-l$l-bf16"
    "$TRACE" --op=attention_prefill --batch=1 --heads=$2 --kv-heads=$3 \
      --head-dim=128 --seq=$l --dtype=bf16 -o "$OUT/bench/$name.mlir"
    "$COMPILE" "$OUT/bench/$name.mlir" --target=cuda:sm_90 --quiet \
      -o "$OUT/bench/$name.plan"
    # The same shape on the subgroup matrix tile; in the warpgroup tile's
    # pipelined form (two key buffers, the next tile's scores during this
    # tile's softmax); with q in registers instead of workgroup memory;
    # with two warpgroups of 64 rows a workgroup instead of one; and with
    # the row blocks heaviest first instead of dealt across the units.
    variant "$name" subgroup "$l" --no-warpgroup
    variant "$name" pipelined "$l" --warpgroup-pipeline
    variant "$name" registers "$l" --no-shared-query
    variant "$name" wide "$l" --wide-warpgroup
    variant "$name" heavy "$l" --no-dealt-order
    rm "$OUT/bench/$name.mlir"
    echo "$name 1 $2 $3 $l 128 bf16 $l causal" >> "$OUT/bench/shapes.txt"
  done
done

# Chunked prefill (2048 new rows against a 16384-key cache, causal at
# pos = Lk - Lq; fixed and paged) and non-causal prefill (B=4, L=4096, all
# keys live), Llama-3-8B layer. The peers run the chunk without a mask
# (PyTorch's is_causal aligns top-left): the last 2048 x 2048 / 2 of our
# 2048 x 16384 scores are hidden, 6%.
chunk() { # name trace-args shape-line
  "$TRACE" $2 -o "$OUT/bench/$1.mlir"
  "$COMPILE" "$OUT/bench/$1.mlir" --target=cuda:sm_90 --quiet -o "$OUT/bench/$1.plan"
  variant "$1" subgroup "" --no-warpgroup
  variant "$1" pipelined "" --warpgroup-pipeline
  variant "$1" narrow "" --no-wide-warpgroup
  rm "$OUT/bench/$1.mlir"
  echo "$1 $3" >> "$OUT/bench/shapes.txt"
}
chunk llama3-8b-chunk-b1-q2048-lk16384-bf16 "--op=attention_masked --batch=1 --heads=32 --kv-heads=8 --head-dim=128 --capacity=16384 --tokens=2048 --dtype=bf16" "1 32 8 16384 128 bf16 2048"
chunk llama3-8b-chunk-paged-b1-q2048-lk16384-bf16 "--op=paged --batch=1 --heads=32 --kv-heads=8 --head-dim=128 --capacity=16384 --pool-slots=16384 --tokens=2048 --dtype=bf16" "1 32 8 16384 128 bf16 2048"
chunk llama3-8b-prefill-b4-l4096-noncausal-bf16 "--op=attention_live --batch=4 --heads=32 --kv-heads=8 --head-dim=128 --capacity=4096 --tokens=4096 --dtype=bf16" "4 32 8 4096 128 bf16 4096"

# Tuning variants (TUNING=1) of the matrix-tile schedule on the decode
# shapes of TUNING_SHAPES ("model heads kv-heads batch Lk", comma
# separated): tiles in flight x subgroups per workgroup (TUNING_UW, pairs
# "U W"; an empty TUNING_UW skips them), and any other planner requests
# (TUNING_FLAGS, flag sets separated by ";", e.g. "--splits=1;--splits=4;
# --waves=4 --no-fused-combine").
: > "$OUT/bench/tuning.txt"
if [ "${TUNING:-0}" = 1 ]; then
IFS=, read -ra tshapes <<< "${TUNING_SHAPES:-70b 64 8 1 32768,8b 32 8 8 8192}"
IFS=, read -ra tuw <<< "${TUNING_UW-1 8,1 16,1 32,2 16,1 4}"
IFS=';' read -ra tflags <<< "${TUNING_FLAGS:-}"
for shape in "${tshapes[@]}"; do
  set -- $shape
  "$TRACE" --op=attention_masked --batch=$4 --heads=$2 --kv-heads=$3 \
    --head-dim=128 --capacity=$5 --dtype=bf16 -o "$OUT/bench/t.mlir"
  base="llama3-$1-b$4-lk$5-bf16"; lk=$5
  for uw in "${tuw[@]}"; do
    set -- $uw
    name="$base-u$1-w$2"
    "$COMPILE" "$OUT/bench/t.mlir" --target=cuda:sm_90 --quiet \
      --unroll=$1 --warps=$2 -o "$OUT/bench/$name.plan" || continue
    echo "$name $lk" >> "$OUT/bench/tuning.txt"
  done
  for flags in "${tflags[@]}"; do
    [ -z "$flags" ] && continue
    name="$base$(echo " $flags" | sed 's/ --/-/g; s/[^A-Za-z0-9-]//g')"
    "$COMPILE" "$OUT/bench/t.mlir" --target=cuda:sm_90 --quiet $flags \
      -o "$OUT/bench/$name.plan" || continue
    echo "$name $lk" >> "$OUT/bench/tuning.txt"
  done
  rm "$OUT/bench/t.mlir"
done
fi

# With VULKAN_FACTS: a live-length decode split 16 ways (bf16, 6/1 heads,
# width 96) planned against those facts, where most splits see no key
# (lengths 1, 17, 2999): run twice from the same inputs and against the
# oracle on the machine's Vulkan driver (run-h200.sh vulkan-extra). Before
# the SPIR-V target guarded loops that may run no iteration, such a split
# published undefined values there.
: > "$OUT/vulkan-extra.txt"
if [ -n "${VULKAN_FACTS:-}" ]; then
  "$TRACE" --op=attention_live --batch=3 --heads=6 --kv-heads=1 --head-dim=96 \
    --capacity=3000 --dtype=bf16 -o "$OUT/vk-live.mlir"
  "$COMPILE" "$OUT/vk-live.mlir" --target=vulkan --quiet \
    --device-facts="$VULKAN_FACTS" -o "$OUT/plans/vk-live-split.vulkan-facts.plan"
  "$COMPILE" "$OUT/vk-live.mlir" --target=cpu --no-fusion --quiet \
    -o "$OUT/plans/vk-live-split.ref.plan"
  rm "$OUT/vk-live.mlir"
  for lens in 1,17,2999 3000,3000,3000 1,1,1; do
    echo "vk-live-split-$lens plans/vk-live-split.vulkan-facts.plan --device-only --ref=@B@/plans/vk-live-split.ref.plan --repeat-check --seed=1 --set=len=$lens" >> "$OUT/vulkan-extra.txt"
  done
fi
