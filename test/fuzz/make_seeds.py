#!/usr/bin/env python3
"""Writes the seed corpora of the compiler's fuzz targets (mlir, onnx).

corpus/mlir: every test/lit graph of the dialect, pass and planner tests
split at its `// -----` markers, with comment lines (RUN, CHECK,
expected-error) dropped, plus the smallest traced example of each model
family from examples/; pieces over 16 KB are left out and duplicates are
written once. corpus/onnx: the test models of test/lit/Frontend/Inputs
(written by test/onnx/make_models.py) up to 32 KB, and the fuzzer's finds
as small clean models (regress-*.onnx). Names are stable, so running the
script again rewrites the same files.

    .venv/bin/python test/fuzz/make_seeds.py   (onnx and numpy installed)
"""

import hashlib
import os
import re
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MLIR_DIRS = ["test/lit/Dialect", "test/lit/Passes", "test/lit/Passes/spellings",
             "test/lit/Plan", "test/lit/Tools/Inputs", "test/lit/Trace"]
EXAMPLES = ["bloom.decode.fixed", "llama3-8b.decode.fixed",
            "llama3-8b.prefill.paged", "mistral.decode.paged.live",
            "gemma2.decode.fixed", "deepseek-v2.decode.fixed",
            "deepseek-sparse.decode.paged", "llama3-8b.decode.fixed.bf16"]
MLIR_MAX = 16 * 1024
ONNX_MAX = 32 * 1024


def reset(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)


def mlir_seeds():
    out = os.path.join(HERE, "corpus", "mlir")
    reset(out)
    seen = set()

    def write(name, text):
        if not text.strip() or len(text) > MLIR_MAX:
            return
        digest = hashlib.sha1(text.encode()).hexdigest()
        if digest in seen:
            return
        seen.add(digest)
        with open(os.path.join(out, name), "w") as f:
            f.write(text)

    for d in MLIR_DIRS:
        folder = os.path.join(ROOT, d)
        for file in sorted(os.listdir(folder)):
            if not file.endswith(".mlir"):
                continue
            with open(os.path.join(folder, file)) as f:
                text = f.read()
            prefix = d.replace("test/lit/", "").replace("/", "-").lower()
            pieces = re.split(r"^// -----.*$", text, flags=re.M)
            for i, piece in enumerate(pieces):
                kept = [l for l in piece.splitlines()
                        if not l.lstrip().startswith("//")]
                body = "\n".join(kept).strip() + "\n"
                stem = file[:-len(".mlir")]
                name = (f"{prefix}-{stem}.mlir" if len(pieces) == 1 else
                        f"{prefix}-{stem}-{i}.mlir")
                write(name, body)
    for ex in EXAMPLES:
        with open(os.path.join(ROOT, "examples", ex + ".mlir")) as f:
            text = f.read()
        kept = [l for l in text.splitlines() if not l.startswith("//")]
        write(f"example-{ex}.mlir", "\n".join(kept) + "\n")
    return len(os.listdir(out))


def onnx_regressions(out):
    """The fuzzer's finds, as small clean models (test/lit/Frontend/
    fuzz-regressions.test checks their errors). Needs the onnx package."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper, save

    def model(name, nodes, inputs, outputs, inits):
        graph = helper.make_graph(nodes, name, inputs, outputs, inits)
        m = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        save(m, os.path.join(out, f"regress-{name}.onnx"))

    f32 = TensorProto.FLOAT
    # Reshape to a shape whose element count passes 2^63.
    model("reshape-overflow",
          [helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")],
          [helper.make_tensor_value_info("x", f32, [2, 3])],
          [helper.make_tensor_value_info("y", f32, [2, 3])],
          [numpy_helper.from_array(
              np.array([1 << 57, 1 << 62, 6], dtype=np.int64), "shape")])
    # Expand to a shape whose element count passes 2^63.
    model("expand-overflow",
          [helper.make_node("Expand", ["x", "shape"], ["y"], name="e")],
          [helper.make_tensor_value_info("x", f32, [1])],
          [helper.make_tensor_value_info("y", f32, [1])],
          [numpy_helper.from_array(
              np.array([1 << 62, 3], dtype=np.int64), "shape")])
    # Expand of a graph input to a shape with a 0 dim (poot.broadcast's
    # builder refused it with a fatal error).
    model("expand-zero",
          [helper.make_node("Expand", ["x", "shape"], ["y"], name="e")],
          [helper.make_tensor_value_info("x", f32, [])],
          [helper.make_tensor_value_info("y", f32, [4, 0])],
          [numpy_helper.from_array(np.array([4, 0], dtype=np.int64),
                                   "shape")])
    # Split sizes whose sum passes 2^63.
    model("split-overflow",
          [helper.make_node("Split", ["x", "split"], ["a", "b"], name="s")],
          [helper.make_tensor_value_info("x", f32, [6])],
          [helper.make_tensor_value_info("a", f32, [3]),
           helper.make_tensor_value_info("b", f32, [3])],
          [numpy_helper.from_array(
              np.array([(1 << 62) + 3, (1 << 62) + 3], dtype=np.int64),
              "split")])
    # A weight whose dims multiply past 2^63 (its data left out).
    huge = TensorProto(name="w", data_type=f32, dims=[1 << 40, 1 << 40])
    model("initializer-overflow",
          [helper.make_node("Add", ["x", "w"], ["y"], name="a")],
          [helper.make_tensor_value_info("x", f32, [2])],
          [helper.make_tensor_value_info("y", f32, [2])], [huge])


def onnx_seeds():
    out = os.path.join(HERE, "corpus", "onnx")
    reset(out)
    folder = os.path.join(ROOT, "test", "lit", "Frontend", "Inputs")
    for file in sorted(os.listdir(folder)):
        path = os.path.join(folder, file)
        if file.endswith(".onnx") and os.path.getsize(path) <= ONNX_MAX:
            shutil.copyfile(path, os.path.join(out, file))
    onnx_regressions(out)
    return len(os.listdir(out))


if __name__ == "__main__":
    print(f"mlir: {mlir_seeds()} seeds, onnx: {onnx_seeds()} seeds")
