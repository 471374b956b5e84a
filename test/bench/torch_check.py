#!/usr/bin/env python3
"""Our attention on a device against PyTorch on the same device.

Each case of CASES_FILE (written by make-h200-bundle.sh) is a traced decode
block compiled to PLANS/NAME.DEVICE.plan. This script draws its inputs
(seeded, never all zero) and writes them as .npy files. It then runs the
plan with poot-run-plan, every eqn on the device, and reads the output
back. The same inputs, rounded to the storage dtype as the runtime rounds
them, go through attention written out in PyTorch in f32 on the device:

    scores = q k^T / sqrt(D) with the mask, softmax, times v.

The script reports the largest difference against a tolerance per dtype.
Without PyTorch (a machine with numpy only), the same arithmetic runs in
numpy, and the report says so.

    torch_check.py CASES_FILE PLANS_DIR RUNNER DEVICE OUT_DIR

A case line is: NAME OP B HQ HKV D DV L DTYPE SLOT. OP is masked (a cache
write at a scalar pos = SLOT, then keys 0..pos are visible) or live (keys
j < len[b] are visible, with SLOT as comma-separated lengths).

    torch_check.py --trace-args CASES_FILE

prints "NAME POOT-TRACE-ARGUMENTS" for each case: how the bundle and CI
trace the graphs (no numpy needed).
"""
import os
import subprocess
import sys


def cases_of(path):
    """The case lines of `path`, as lists of fields."""
    for line in open(path):
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            yield fields


def trace_args(fields):
    """poot-trace's arguments for a case."""
    name, op, b, hq, hkv, d, dv, length, dtype = fields[:9]
    trace = "attention_live" if op == "live" else "attention_masked"
    return (f"--op={trace} --batch={b} --heads={hq} --kv-heads={hkv} "
            f"--head-dim={d} --value-dim={dv} --capacity={length} "
            f"--dtype={dtype}")


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--trace-args":
    for fields in cases_of(sys.argv[2]):
        print(fields[0], trace_args(fields))
    sys.exit(0)

import numpy as np  # noqa: E402 (not needed for --trace-args)

try:
    import torch
except ImportError:  # the numpy fallback
    torch = None

# Largest |poot - reference| allowed, as atol + rtol * |reference|.
# bf16 rounds the weights before they multiply v and the output after, at
# 2^-9 each, so it is the loosest. f32 allows for a different summation
# order only.
TOLERANCE = {"bf16": (4e-3, 1e-2), "f16": (1e-3, 4e-3), "f32": (2e-5, 2e-5)}


def round_to(x, dtype):
    """x (f32) rounded to the storage dtype, as the runtime binds it."""
    x = np.asarray(x, dtype=np.float32)
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float32)
    if dtype == "bf16":
        u = x.view(np.uint32).astype(np.uint64)
        u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
        return u.astype(np.uint32).view(np.float32)
    return x


def reference(q, k, v, visible):
    """softmax(q k^T / sqrt(D) + mask) v per head, heads of a KV head
    sharing it; q [B,HQ,1,D], k [B,HKV,L,D], v [B,HKV,L,DV], visible [B,L].
    """
    hq, hkv, d = q.shape[1], k.shape[1], q.shape[3]
    rep = hq // hkv
    if torch is not None:
        dev = "cuda" if torch.cuda.is_available() else "cpu"
        torch.backends.cuda.matmul.allow_tf32 = False
        tq = torch.from_numpy(q).to(dev)
        tk = torch.from_numpy(k).to(dev).repeat_interleave(rep, dim=1)
        tv = torch.from_numpy(v).to(dev).repeat_interleave(rep, dim=1)
        s = torch.matmul(tq, tk.transpose(-1, -2)) / float(np.sqrt(d))
        mask = torch.from_numpy(visible).to(dev)[:, None, None, :]
        s = s.masked_fill(~mask, float("-inf"))
        out = torch.matmul(torch.softmax(s, dim=-1), tv)
        return out.cpu().numpy(), "PyTorch " + torch.__version__ + " on " + dev
    kk = np.repeat(k, rep, axis=1)
    vv = np.repeat(v, rep, axis=1)
    s = np.matmul(q, np.swapaxes(kk, -1, -2)) / np.sqrt(d)
    s = np.where(visible[:, None, None, :], s, -np.inf)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    return np.matmul(w, vv).astype(np.float32), "numpy (no PyTorch here)"


def run_case(fields, plans, runner, device, out_dir, rng):
    name, op = fields[0], fields[1]
    b, hq, hkv, d, dv, length = map(int, fields[2:8])
    dtype, slot = fields[8], fields[9]
    case_dir = os.path.join(out_dir, name)
    os.makedirs(case_dir, exist_ok=True)
    draw = lambda *shape: round_to(rng.uniform(-1, 1, shape), dtype)
    q = draw(b, hq, 1, d)
    inputs = {"q": q}
    if op == "masked":
        pos = int(slot)
        k_new, v_new = draw(b, hkv, 1, d), draw(b, hkv, 1, dv)
        k_cache, v_cache = draw(b, hkv, length, d), draw(b, hkv, length, dv)
        inputs.update(k=k_new, v=v_new, k_cache=k_cache, v_cache=v_cache,
                      pos=np.array(pos, dtype=np.int32))
        k_all, v_all = k_cache.copy(), v_cache.copy()
        k_all[:, :, pos], v_all[:, :, pos] = k_new[:, :, 0], v_new[:, :, 0]
        visible = np.tile(np.arange(length) <= pos, (b, 1))
    else:
        lens = [int(x) for x in slot.split(",")]
        k_all, v_all = draw(b, hkv, length, d), draw(b, hkv, length, dv)
        inputs.update(k=k_all, v=v_all, len=np.array(lens, dtype=np.int32))
        visible = np.arange(length)[None, :] < np.array(lens)[:, None]
    args = []
    for key, value in inputs.items():
        path = os.path.join(case_dir, key + ".npy")
        np.save(path, value)
        args.append(f"--input={key}={path}")
    plan = os.path.join(plans, f"{name}.{device}.plan")
    only = [] if device == "cpu" else ["--device-only"]
    run = subprocess.run(
        [runner, plan, f"--device={device}", "--quiet",
         f"--out-dir={case_dir}/out"] + only + args,
        capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        return False, f"FAIL {name}: {run.stderr.strip().splitlines()[-1:]}"
    got = np.load(os.path.join(case_dir, "out", "out.npy")).astype(np.float32)
    want, engine = reference(q, k_all, v_all, visible)
    atol, rtol = TOLERANCE[dtype]
    err = np.abs(got - want)
    # The smallest room left under the tolerance (negative: past it).
    margin = float((atol + rtol * np.abs(want) - err).min())
    ok = margin >= 0 and got.shape == want.shape
    return ok, (f"{'ok  ' if ok else 'FAIL'} {name}: max |poot - ref| "
                f"{float(err.max()):.2e} (atol {atol:g}, rtol {rtol:g}, "
                f"room {margin:.2e}) against {engine}")


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    cases, plans, runner, device, out_dir = sys.argv[1:]
    rng = np.random.default_rng(20261130)
    failed = 0
    for fields in cases_of(cases):
        if not os.path.exists(os.path.join(plans, f"{fields[0]}.{device}.plan")):
            continue
        ok, report = run_case(fields, plans, runner, device, out_dir, rng)
        print(report, flush=True)
        failed += not ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
