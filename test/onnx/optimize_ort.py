#!/usr/bin/env python3
"""Adds ONNX Runtime's transformer-optimizer variants to the corpus.

    python optimize_ort.py [--corpus DIR] [FAMILY...]

For each family of the corpus manifest, the TorchScript export of both
phases is rewritten by `onnxruntime.transformers.optimizer.optimize_model`
(opt_level 0: the optimizer's own fusions, without ONNX Runtime's graph
optimizer behind them) and kept when the rewrite holds com.microsoft ops
(SkipLayerNormalization, SkipSimplifiedLayerNormalization, FastGelu, Gelu,
BiasGelu, Attention, ...): `<family>_ort_<phase>.onnx`, listed in the
manifest with exporter "ort-optimizer", the ops it holds and the file it
was optimized from. Each rewrite is checked before it is written: ONNX
Runtime runs it and the source model on the same inputs and they must
agree.

Weights: a tensor the rewrite kept as it was stays in the family's data
file (`<family>.data`, the same bytes at the same offset); a new one (a
fused bias, a packed projection) goes to `<family>_ort.data`, each distinct
tensor once. Needs onnx, onnxruntime (with its transformers tools'
dependencies) and numpy; no torch.
"""

import argparse
import collections
import hashlib
import json
import logging
import os
import sys
import warnings

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
EXTERNAL_MIN_BYTES = 1024
# The optimizer's model type for each family; the fusions they run are the
# same for these graphs, the type only picks the fusion options.
MODEL_TYPES = {"gpt2": "gpt2", "gptneox": "gpt_neox"}
PHASES = ("prefill", "decode")


def optimize(path, model_type, heads, hidden):
    from onnxruntime.transformers.optimizer import optimize_model
    logging.disable(logging.WARNING)
    warnings.filterwarnings("ignore")
    return optimize_model(path, model_type=model_type, num_heads=heads,
                          hidden_size=hidden, opt_level=0, use_gpu=False).model


def contrib_ops(model):
    return dict(sorted(collections.Counter(
        n.op_type for n in model.graph.node if n.domain == "com.microsoft").items()))


def family_tensors(corpus, source):
    """sha256 of the bytes -> (offset, length) of each tensor the source
    model keeps in its family's data file."""
    model = onnx.load(os.path.join(corpus, source), load_external_data=False)
    out = {}
    for init in model.graph.initializer:
        ext = {e.key: e.value for e in init.external_data}
        if "location" not in ext:
            continue
        with open(os.path.join(corpus, ext["location"]), "rb") as f:
            f.seek(int(ext.get("offset", 0)))
            data = f.read(int(ext["length"]))
        out[hashlib.sha256(data).hexdigest()] = (ext["location"],
                                                 int(ext.get("offset", 0)),
                                                 len(data))
    return out


def externalize(model, known, data_path, new_data):
    """Points each large initializer at the family's data file where its
    bytes are there, else at `data_path` (appended to `new_data`)."""
    name = os.path.basename(data_path)
    for tp in model.graph.initializer:
        if tp.data_location == onnx.TensorProto.EXTERNAL:
            continue
        raw = numpy_helper.to_array(tp).tobytes()
        if len(raw) < EXTERNAL_MIN_BYTES:
            continue
        digest = hashlib.sha256(raw).hexdigest()
        if digest in known:
            location, offset, length = known[digest]
        else:
            if digest not in new_data:
                offset = sum(len(b) for b in new_data.values())
                new_data[digest] = raw
            offset = 0
            for d, b in new_data.items():
                if d == digest:
                    break
                offset += len(b)
            location, length = name, len(raw)
        tp.ClearField("raw_data")
        for field in ("float_data", "int32_data", "int64_data", "double_data",
                      "uint64_data"):
            tp.ClearField(field)
        del tp.external_data[:]
        tp.data_location = onnx.TensorProto.EXTERNAL
        for k, v in (("location", location), ("offset", str(offset)),
                     ("length", str(length))):
            entry = tp.external_data.add()
            entry.key, entry.value = k, v


def check(corpus, source, model, phase, entry):
    """ONNX Runtime runs the rewrite and the source on the same inputs."""
    import onnxruntime as ort
    sys.path.insert(0, HERE)
    from corpus_check import decode_feeds, ort_session, prefill_feeds  # noqa
    ref = ort_session(os.path.join(corpus, source))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    got = ort.InferenceSession(model.SerializeToString(), options,
                               providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(3)
    feeds = (prefill_feeds(rng, 2, 5) if phase == "prefill"
             else decode_feeds(ref, rng, 2, 5, 1))
    want = ref.run(None, feeds)
    have = got.run(None, feeds)
    for w, h, o in zip(want, have, ref.get_outputs()):
        err = float(np.max(np.abs(w.astype(np.float64) - h)))
        if err > 1e-4 * max(1.0, float(np.max(np.abs(w)))):
            raise RuntimeError(f"{entry}: {o.name} differs from the source "
                               f"by {err:.3g}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=os.path.join(HERE, "corpus"))
    parser.add_argument("families", nargs="*")
    args = parser.parse_args()
    mpath = os.path.join(args.corpus, "manifest.json")
    with open(mpath) as f:
        manifest = json.load(f)
    sources = [e for e in manifest if e["exporter"] == "torchscript"]
    families = sorted({e["family"] for e in sources})
    if args.families:
        families = [f for f in families if f in args.families]
    for family in families:
        new_data = {}
        entries = []
        data_path = os.path.join(args.corpus, f"{family}_ort.data")
        for phase in PHASES:
            src = next(e for e in sources
                       if e["family"] == family and e["phase"] == phase)
            path = os.path.join(args.corpus, src["file"])
            model = optimize(path, MODEL_TYPES.get(family, "bert"),
                             src.get("heads", 4), src.get("hidden", 64))
            ops = contrib_ops(model)
            if not ops:
                print(f"{family} {phase}: no com.microsoft ops; skipped")
                continue
            out = f"{family}_ort_{phase}.onnx"
            check(args.corpus, src["file"], model, phase, out)
            externalize(model, family_tensors(args.corpus, src["file"]),
                        data_path, new_data)
            onnx.save(model, os.path.join(args.corpus, out))
            entry = dict(src)
            entry.update(file=out, exporter="ort-optimizer",
                         optimized_from=src["file"], contrib_ops=ops,
                         data=src["data"])
            if new_data:
                entry["data"] = [src["data"], os.path.basename(data_path)]
            import onnxruntime
            entry["exported_with"] = dict(src["exported_with"],
                                          onnxruntime=onnxruntime.__version__)
            entries.append(entry)
            print(f"{family} {phase}: {out} {ops}")
        if new_data:
            with open(data_path, "wb") as f:
                for b in new_data.values():
                    f.write(b)
        elif os.path.exists(data_path):
            os.remove(data_path)
        manifest = [e for e in manifest
                    if not (e["family"] == family and e["exporter"] == "ort-optimizer")]
        manifest += entries
    manifest.sort(key=lambda e: e["file"])
    with open(mpath, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
