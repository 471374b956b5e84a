#!/usr/bin/env python3
"""Checks the exported corpus (test/onnx/corpus) against ONNX Runtime.

    corpus_check.py BUILD_DIR [--corpus DIR] [--device cpu|vulkan] [--table]
                    [FILE...]

For every model of the corpus manifest (or the FILEs named): imports it
with poot-import-onnx (dimensions bound, weights written as .npy),
compiles it for the device's target and counts the attentions the fusion
report shows fused (every layer's must be), runs it on the device (cpu by
default) with poot-run and compares every output with ONNX Runtime's on
the same inputs (ort_check.py's tolerance). On vulkan the graph is
imported with --narrow-i64 and its integer inputs are bound as i32.
Prefill and decode also run with the batch's last row left-padded
(attention_mask 0 in its first PAD slots), compared where the mask keeps
the rows. Decode models are also imported with
--kv-capacity (for a 3-row chunk and for one row) and run as a loop over
poot state, a chunk and then 4 one-row steps, compared step by step with
ONNX Runtime fed its own growing present outputs.

A case may be listed in the corpus's known_limits.json ("FILE:RUN" for
every device or "FILE:RUN@DEVICE": why);
it is reported but does not fail the check, and a listed case that passes
does (the list is kept to what still fails).

Needs onnx, onnxruntime and numpy; no torch. Exits 1 on any failure.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ort_check import TOLERANCE  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH, PROMPT, PAST, CHUNK, STEPS, CAPACITY = 2, 5, 5, 3, 4, 12
# Slots of padding at the front of the last row in the padded runs.
PAD = 2


def ort_session(path):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def error_of(got, want):
    """(max abs error, scale, within tolerance)."""
    atol, rtol = TOLERANCE[want.dtype.type]
    got = got.astype(np.float64)
    want = want.astype(np.float64)
    scale = float(np.max(np.abs(want)))
    err = float(np.max(np.abs(got - want)))
    return err, scale, err <= atol + rtol * scale


class Tools:
    def __init__(self, build, device="cpu"):
        self.device = device
        # The generic vulkan preset does not promise 64-bit integers
        # (shaderInt64): on vulkan the graph's int64 values (token ids,
        # masks, positions) are imported as i32.
        self.narrow = device == "vulkan"
        self.importer = os.path.join(build, "tools/poot-import-onnx/poot-import-onnx")
        self.compile = os.path.join(build, "tools/poot-compile/poot-compile")
        self.run = os.path.join(build, "tools/poot-run/poot-run")
        self.reports = []

    def call(self, args, what):
        try:
            p = subprocess.run(args, capture_output=True, text=True)
        except OSError as e:
            raise RuntimeError(f"{what}: {e}") from e
        if p.returncode != 0:
            raise RuntimeError(f"{what}: {(p.stdout + p.stderr).strip()[-600:]}")
        return p.stdout + p.stderr

    def prepare(self, model, work, dims, extra=()):
        """Imports and compiles; returns (graph path, weight bindings, fused, report)."""
        os.makedirs(os.path.join(work, "weights"), exist_ok=True)
        graph = os.path.join(work, "g.mlir")
        args = [self.importer, model, "--weights-dir=" + os.path.join(work, "weights"),
                "-o", graph, *extra]
        if self.narrow:
            args.append("--narrow-i64")
        for k, v in dims.items():
            args += ["--dim", f"{k}={v}"]
        self.call(args, "import")
        report = self.call([self.compile, graph, "--target=" + self.device, "-o",
                            os.path.join(work, "g.plan")], "compile")
        fused = report.count("attention fused")
        self.reports.append(report)
        binds = []
        for f in sorted(os.listdir(os.path.join(work, "weights"))):
            binds.append(f"--input={f[:-4]}={os.path.join(work, 'weights', f)}")
        return os.path.join(work, "g.plan"), binds, fused, report

    def run_plan(self, plan, binds, feeds, work, sets=()):
        ind = os.path.join(work, "in")
        out = os.path.join(work, "out")
        os.makedirs(ind, exist_ok=True)
        args = [self.run, plan, "--device=" + self.device, "--quiet", "--out-dir=" + out, *binds]
        for name, value in feeds.items():
            path = os.path.join(ind, name + ".npy")
            if self.narrow and value.dtype == np.int64:
                value = value.astype(np.int32)
            np.save(path, value)
            args.append(f"--input={name}={path}")
        args += [f"--set={s}" for s in sets]
        self.call(args, "poot-run")
        return {f[:-4]: np.load(os.path.join(out, f)) for f in os.listdir(out)}


def fusion_summary(reports):
    """The fused attentions' forms (as the report words them) and the RoPEs
    fused, over the reports of one case."""
    forms, ropes = set(), 0
    for report in reports:
        ropes = max(ropes, report.count("rope fused"))
        for line in report.splitlines():
            if "attention fused:" in line:
                forms.add(line.split("attention fused:", 1)[1].strip())
    return "; ".join(sorted(forms)), ropes


def prefill_feeds(rng, batch, seq, pad=0):
    """With `pad`, the last row of the batch is left-padded by that many
    slots (attention_mask 0 there), as a batch of prompts of two lengths
    is."""
    mask = np.ones((batch, seq), np.int64)
    mask[-1, :pad] = 0
    return {"input_ids": rng.integers(0, 128, (batch, seq)).astype(np.int64),
            "attention_mask": mask}


def decode_feeds(session, rng, batch, past, seq, pad=0):
    """With `pad`, the last row's first `pad` cache slots are padding
    (attention_mask 0), a left-padded row of a batch; its positions count
    as given (the past length on), as the model is fed."""
    feeds = {}
    for meta in session.get_inputs():
        n = meta.name
        if n == "input_ids":
            feeds[n] = rng.integers(0, 128, (batch, seq)).astype(np.int64)
        elif n == "attention_mask":
            feeds[n] = np.ones((batch, past + seq), np.int64)
            feeds[n][-1, :pad] = 0
        elif n == "position_ids":
            feeds[n] = np.broadcast_to(past + np.arange(seq), (batch, seq)).astype(np.int64).copy()
        elif n == "cache_position":
            feeds[n] = (past + np.arange(seq)).astype(np.int64)
        elif n.startswith("past_key_values."):
            shape = [batch if d == "batch" else past if d == "past" else d
                     for d in meta.shape]
            feeds[n] = (0.5 * rng.standard_normal(shape)).astype(np.float32)
        else:
            raise RuntimeError(f"unexpected input {n}")
    return feeds


def check_once(tools, entry, path, work, dims, feeds, session):
    plan, binds, fused, report = tools.prepare(path, work, dims)
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    got = tools.run_plan(plan, binds, feeds, work)
    worst, ok, notes = (0.0, 0.0), True, []
    # A padded row is compared where it is not padding: its logits at the
    # query rows the mask keeps and its cache at the slots the mask keeps
    # (a padding query sees no key, and what a model makes of that is not
    # the answer of either runtime).
    mask = feeds["attention_mask"].astype(bool)
    for name, w in want.items():
        if name not in got or got[name].shape != w.shape:
            ok = False
            notes.append(f"{name}: missing or shape {got.get(name, np.zeros(0)).shape}")
            continue
        g = got[name]
        if not mask.all():
            if name == "logits":
                keep = mask[:, -w.shape[1]:]
                g, w = g[keep], w[keep]
            else:
                keep = np.broadcast_to(mask[:, None, :, None], w.shape)
                g, w = g[keep], w[keep]
        err, scale, passed = error_of(g, w)
        if name == "logits":
            worst = (err, scale)
        ok &= passed
        if not passed:
            notes.append(f"{name}: error {err:.3g} of scale {scale:.3g} past the tolerance")
    return fused, worst, ok, notes


def check_decode_loop(tools, entry, path, work, session, rng):
    """--kv-capacity: ONNX Runtime's past of PAST rows at the front of a
    CAPACITY buffer of poot state, then a CHUNK-row step (its own import,
    seq=CHUNK) and STEPS one-row steps over that state, each compared with
    ONNX Runtime fed its own growing present outputs."""
    batch = BATCH
    feeds = decode_feeds(session, rng, batch, PAST, 1)
    past = {k: v for k, v in feeds.items() if k.startswith("past_key_values.")}
    plans = {}
    for seq in sorted({CHUNK, 1}):
        sub = os.path.join(work, f"seq{seq}")
        os.makedirs(sub)
        plans[seq] = tools.prepare(path, sub, {"batch": batch, "seq": seq},
                                   extra=[f"--kv-capacity={CAPACITY}"])
    fused = min(p[2] for p in plans.values())
    # poot's state: the past rows at the front of a CAPACITY buffer.
    state = {}
    for k, v in past.items():
        buf = np.zeros(v.shape[:2] + (CAPACITY,) + v.shape[3:], np.float32)
        buf[:, :, :PAST] = v
        state[k] = buf
    names = [o.name for o in session.get_outputs()]
    worst, ok, notes = (0.0, 0.0), True, []
    pos = PAST
    for step, seq in enumerate([CHUNK] + [1] * STEPS):
        plan, binds, _, _ = plans[seq]
        ids = rng.integers(0, 128, (batch, seq)).astype(np.int64)
        feeds = decode_feeds(session, rng, batch, pos, seq)
        feeds["input_ids"] = ids
        feeds.update(past)
        want = dict(zip(names, session.run(None, feeds)))
        got = tools.run_plan(plan, binds, {"input_ids": ids, **state},
                             os.path.join(work, f"step{step}"), sets=[f"pos={pos}"])
        err, scale, passed = error_of(got["logits"], want["logits"])
        worst = max(worst, (err, scale))
        if not passed:
            ok = False
            notes.append(f"step {step} ({seq} rows at {pos}): logits error "
                         f"{err:.3g} of scale {scale:.3g}")
        for k in past:
            present = want[k.replace("past_key_values.", "present.")]
            e2, s2, p2 = error_of(got[k][:, :, :pos + seq], present)
            if not p2:
                ok = False
                notes.append(f"step {step}: state {k} error {e2:.3g}")
            past[k] = present
            state[k] = got[k]
        pos += seq
    return fused, worst, ok, notes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    parser.add_argument("--device", default="cpu", choices=["cpu", "vulkan"],
                        help="the target compiled for and the device run on")
    parser.add_argument("--one-per-family", action="store_true",
                        help="only each family's TorchScript decode model "
                             "(its decode, chunk, padded and kv-loop runs)")
    parser.add_argument("--table", action="store_true",
                        help="print the results as a markdown table")
    parser.add_argument("files", nargs="*")
    args = parser.parse_intermixed_args()
    tools = Tools(args.build, args.device)
    with open(os.path.join(args.corpus, "manifest.json")) as f:
        manifest = json.load(f)
    known = {}
    kp = os.path.join(args.corpus, "known_limits.json")
    if os.path.exists(kp):
        with open(kp) as f:
            known = json.load(f)
    failures, rows = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for entry in manifest:
            if args.files and entry["file"] not in args.files:
                continue
            if args.one_per_family and not (entry["exporter"] == "torchscript"
                                            and entry["phase"] == "decode"):
                continue
            path = os.path.join(args.corpus, entry["file"])
            session = ort_session(path)
            rng = np.random.default_rng(7)
            runs = []
            if entry["phase"] == "prefill":
                runs.append(("prefill", {"batch": BATCH, "seq": PROMPT},
                             prefill_feeds(rng, BATCH, PROMPT)))
                runs.append(("prefill-padded", {"batch": BATCH, "seq": PROMPT},
                             prefill_feeds(rng, BATCH, PROMPT, pad=PAD)))
            else:
                runs.append(("decode", {"batch": BATCH, "seq": 1, "past": PAST,
                                        "total": PAST + 1},
                             decode_feeds(session, rng, BATCH, PAST, 1)))
                runs.append(("chunk", {"batch": BATCH, "seq": 3, "past": PAST,
                                       "total": PAST + 3},
                             decode_feeds(session, rng, BATCH, PAST, 3)))
                runs.append(("decode-padded", {"batch": BATCH, "seq": 1, "past": PAST,
                                               "total": PAST + 1},
                             decode_feeds(session, rng, BATCH, PAST, 1, pad=PAD)))
            modes = [(m, d, f) for m, d, f in runs]
            if entry["phase"] == "decode":
                modes.append(("kv-loop", None, None))
            for mode, dims, feeds in modes:
                label = f"{entry['file']} [{mode}]"
                work = os.path.join(tmp, entry["file"] + "." + mode)
                os.makedirs(work)
                limit = (known.get(f"{entry['file']}:{mode}@{args.device}")
                         or known.get(f"{entry['file']}:{mode}"))
                tools.reports = []
                try:
                    if mode == "kv-loop":
                        fused, worst, ok, notes = check_decode_loop(
                            tools, entry, path, work, session, rng)
                    else:
                        fused, worst, ok, notes = check_once(
                            tools, entry, path, work, dims, feeds, session)
                    if fused != entry["layers"]:
                        ok = False
                        notes.append(f"{fused} attention(s) fused, expected {entry['layers']}")
                except RuntimeError as e:
                    fused, worst, ok, notes = 0, (float("nan"), 0.0), False, [str(e)]
                forms, ropes = fusion_summary(tools.reports)
                if ok and limit:
                    # A limit that no longer holds is taken off the list.
                    ok = False
                    notes.append(f"passes, but is listed as a known limit: {limit}")
                    limit = None
                status = "ok  " if ok else ("known" if limit else "FAIL")
                if not ok and not limit:
                    failures += 1
                print(f"{status} {label}: {fused}/{entry['layers']} attention fused, "
                      f"{ropes} rope fused, max logit error {worst[0]:.3g} "
                      f"(logits of scale {worst[1]:.3g})" +
                      (f"\n       {forms}" if forms else "") +
                      ("".join(f"\n       {n}" for n in notes)) +
                      (f"\n       known limit: {limit}" if limit and not ok else ""))
                rows.append((entry, mode, fused, ropes, forms, worst, ok, limit))
    if args.table:
        print("\n| model | exporter | run | attention fused | rope fused | "
              "attention form | max logit error |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for entry, mode, fused, ropes, forms, worst, ok, limit in rows:
            res = (f"{worst[0]:.2g} (of {worst[1]:.2g})" if ok
                   else ("known limit" if limit else "FAIL"))
            print(f"| {entry['family']} | {entry['exporter']} | {mode} | "
                  f"{fused}/{entry['layers']} | {ropes} | {forms} | {res} |")
    if failures:
        print(f"corpus-check: {failures} case(s) failed")
        return 1
    print(f"corpus-check: {len(rows)} cases pass or are known limits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
