#!/usr/bin/env python3
"""ONNX Runtime side of test/e2e/onnx-check.sh.

    ort_check.py prepare MODEL DIR --dim NAME=N ...
        writes seeded inputs as DIR/inputs/<name>.npy and ONNX Runtime's
        outputs as DIR/ref/<name>.npy; prints the input names, one a line.
    ort_check.py compare REF_DIR GOT_DIR
        compares every reference output with poot's, within the tolerance
        of docs/numerics.md: |got - want| <= atol + rtol * max|want| (f32:
        atol 1e-6, rtol 2e-5; integers and bools exact; NaN where NaN).

Inputs: floats are standard normal, except a float input named 'mask'
[B, 1, S, S], which is a causal additive mask filled with finfo.min as
Hugging Face builds it; integers are drawn from [-3, 3) (valid, negative
included, for the index inputs of the test models), except three that
carry positions: 'attention_mask' [B, T] is all ones (no padding, as the
GroupQueryAttention models derive their sequence lengths from it),
'position_ids' [B, S] is 2 b + arange(S) (a distinct start per batch row)
and 'cache_position' [S] is 1 + arange(S).
"""

import argparse
import os
import sys

import numpy as np

# Integer inputs whose values are positions, not random indices.
POSITIONS = {
    "attention_mask": lambda shape: np.ones(shape),
    "position_ids": lambda shape: (2 * np.arange(shape[0])[:, None] +
                                   np.arange(shape[1])[None, :]),
    "cache_position": lambda shape: 1 + np.arange(shape[0]),
}

TOLERANCE = {np.float64: (1e-9, 1e-9), np.float32: (1e-6, 2e-5),
             np.float16: (5e-4, 4e-3)}


def prepare(args):
    import onnx
    import onnxruntime as ort

    dims = dict(d.split("=") for d in args.dim)
    model = onnx.load(args.model)
    inits = {i.name for i in model.graph.initializer}
    rng = np.random.default_rng(2024)
    feeds = {}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        tt = inp.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else int(dims[d.dim_param])
                 for d in tt.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        if inp.name == "mask":
            s = shape[-1]
            causal = np.triu(np.ones((s, s), bool), k=1)
            m = np.where(causal, np.finfo(np.float32).min, 0).astype(dtype)
            value = np.broadcast_to(m, shape).copy()
        elif inp.name in POSITIONS:
            value = POSITIONS[inp.name](shape).astype(dtype)
        elif np.issubdtype(dtype, np.floating):
            value = rng.standard_normal(shape).astype(dtype)
        elif dtype == np.bool_:
            value = rng.integers(0, 2, shape).astype(bool)
        else:
            value = rng.integers(-3, 3, shape).astype(dtype)
        feeds[inp.name] = value
    os.makedirs(os.path.join(args.dir, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(args.dir, "ref"), exist_ok=True)
    for name, value in feeds.items():
        np.save(os.path.join(args.dir, "inputs", name + ".npy"), value)
        print(name)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(args.model, options,
                                   providers=["CPUExecutionProvider"])
    outputs = session.run(None, feeds)
    for meta, value in zip(session.get_outputs(), outputs):
        np.save(os.path.join(args.dir, "ref", meta.name + ".npy"),
                np.asarray(value))


def compare(args):
    worst = 0.0
    ok = True
    for name in sorted(os.listdir(args.ref)):
        want = np.load(os.path.join(args.ref, name))
        path = os.path.join(args.got, name)
        if not os.path.exists(path):
            print(f"  {name}: missing from poot's outputs")
            ok = False
            continue
        got = np.load(path)
        if got.shape != want.shape:
            print(f"  {name}: shape {got.shape}, expected {want.shape}")
            ok = False
            continue
        if not np.issubdtype(want.dtype, np.floating):
            bad = int(np.sum(got.astype(np.int64) != want.astype(np.int64)))
            print(f"  {name}: {'exact' if bad == 0 else f'{bad} elements differ'}")
            ok &= bad == 0
            continue
        atol, rtol = TOLERANCE[want.dtype.type]
        got = got.astype(np.float64)
        want = want.astype(np.float64)
        nan = np.isnan(want)
        if not np.array_equal(nan, np.isnan(got)):
            print(f"  {name}: NaN in other places")
            ok = False
            continue
        finite = want[np.isfinite(want)]
        scale = float(np.max(np.abs(finite))) if finite.size else 0.0
        err = float(np.max(np.abs(got - want)[~nan], initial=0.0))
        rel = err / scale if scale else err
        worst = max(worst, rel)
        passed = err <= atol + rtol * scale
        ok &= passed
        print(f"  {name}: max error {err:.3g} ({rel:.3g} of scale {scale:.3g})"
              f"{'' if passed else ' -- past the tolerance'}")
    return 0 if ok else 2


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("model")
    p.add_argument("dir")
    p.add_argument("--dim", action="append", default=[])
    c = sub.add_parser("compare")
    c.add_argument("ref")
    c.add_argument("got")
    args = parser.parse_args()
    if args.cmd == "prepare":
        prepare(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
