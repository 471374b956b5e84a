#!/usr/bin/env python3
"""Writes the small ONNX models of the ONNX front end's tests.

Each model is built with onnx.helper, checked with onnx.checker, and saved
under test/lit/Frontend/Inputs (the lit tests and test/e2e/onnx-check.sh
read them there). Weights are tiny and seeded, so running the script again
writes the same files.

    .venv/bin/python test/onnx/make_models.py [OUT_DIR]

The models of the end-to-end check (decoder_ts, attention23, causal_trilu)
spell attention the way the exporters do: PyTorch's TorchScript exporter
(MatMul, Transpose, Div by sqrt(d), Add mask, Softmax, MatMul; repeat_kv as
Unsqueeze/Expand/Reshape with shapes computed by Shape/Gather/Concat), the
opset-23 Attention op, and a causal mask built from Trilu/Equal/Where.
The models of ONNX Runtime's contrib ops (domain com.microsoft:
MultiHeadAttention, GroupQueryAttention, Attention, RotaryEmbedding, the
skip normalisations) spell them as ONNX Runtime's exporters and GenAI
models do (packed QKV, BNSH caches, sequence lengths from the attention
mask); the opset-23 RotaryEmbedding, Erf/Gelu, GatherND and ScatterND (a
static KV-cache write) have theirs. Models named for a refusal check an
error message.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = (sys.argv[1] if len(sys.argv) > 1 else
       os.path.join(HERE, "..", "lit", "Frontend", "Inputs"))
RNG = np.random.default_rng(14)
F = TensorProto.FLOAT
I64 = TensorProto.INT64
B1 = TensorProto.BOOL
I32 = TensorProto.INT32
INT64_MAX = np.iinfo(np.int64).max
MS = "com.microsoft"


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def ints(name, values):
    return const(name, np.asarray(values, dtype=np.int64))


def weight(name, shape, scale=0.2):
    return const(name, (RNG.standard_normal(shape) * scale).astype(np.float32))


def save(name, nodes, inputs, outputs, inits=(), opset=17, check=True,
         contrib=False):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)]
    if contrib:
        opsets.append(helper.make_opsetid(MS, 1))
    model = helper.make_model(graph, opset_imports=opsets,
                              producer_name="poot-test")
    model.ir_version = 10 if opset >= 21 else 8
    if check:
        onnx.checker.check_model(model)
    path = os.path.join(OUT, name + ".onnx")
    onnx.save(model, path)
    return path


def node(op, inputs, outputs, name=None, **attrs):
    return helper.make_node(op, inputs, outputs, name=name or outputs[0],
                            **attrs)


def ms(op, inputs, outputs, name=None, **attrs):
    """A node of ONNX Runtime's contrib domain."""
    return helper.make_node(op, inputs, outputs, name=name or outputs[0],
                            domain=MS, **attrs)


# --------------------------------------------------------------------------
# One model per op family (lit tests)
# --------------------------------------------------------------------------

def elementwise():
    nodes = [
        node("Add", ["x", "y"], ["add"]),
        node("Sub", ["add", "y"], ["sub"]),
        node("Mul", ["sub", "x"], ["mul"]),
        node("Div", ["mul", "two"], ["div"]),
        node("Pow", ["div", "two"], ["pow"]),
        node("Sqrt", ["pow"], ["sqrt"]),
        node("Reciprocal", ["sqrt"], ["rcp"]),
        node("Neg", ["rcp"], ["neg"]),
        node("Exp", ["neg"], ["exp"]),
        node("Tanh", ["exp"], ["tanh"]),
        node("Sigmoid", ["tanh"], ["sig"]),
        node("Sin", ["sig"], ["sin"]),
        node("Cos", ["sin"], ["cos"]),
        node("Max", ["cos", "x", "y"], ["max"]),
    ]
    save("elementwise", nodes,
         [vi("x", F, ["batch", 3]), vi("y", F, [3])],
         [vi("max", F, ["batch", 3])],
         [const("two", np.float32(2.0))])


def softmax():
    # axis 1 of a rank-3 input (opset 13: over that axis alone) and a
    # negative axis.
    nodes = [node("Softmax", ["x"], ["s1"], axis=1),
             node("Softmax", ["x"], ["s2"], axis=-1)]
    save("softmax_axis", nodes, [vi("x", F, [2, 3, 4])],
         [vi("s1", F, [2, 3, 4]), vi("s2", F, [2, 3, 4])], opset=13)
    # Before opset 13 the input is flattened to 2-D at the axis.
    save("softmax_opset11", [node("Softmax", ["x"], ["s"], axis=1)],
         [vi("x", F, [2, 3, 4])], [vi("s", F, [2, 3, 4])], opset=11)


def reduce():
    nodes = [
        node("ReduceMax", ["x"], ["mx"], axes=[-1], keepdims=1),
        node("ReduceMean", ["x"], ["mean"], axes=[0, -1], keepdims=0),
        node("ReduceSum", ["x", "axes"], ["sum"], keepdims=1),
    ]
    save("reduce_opset13", nodes, [vi("x", F, [2, 3, 4])],
         [vi("mx", F, [2, 3, 1]), vi("mean", F, [3]),
          vi("sum", F, [2, 1, 4])], [ints("axes", [-2])], opset=13)
    nodes = [
        node("ReduceMax", ["x", "axes"], ["mx"], keepdims=0),
        node("ReduceSum", ["x"], ["all"], keepdims=0),
    ]
    save("reduce_opset18", nodes, [vi("x", F, [2, 3, 4])],
         [vi("mx", F, [2, 4]), vi("all", F, [])], [ints("axes", [1])],
         opset=18)


def logic():
    nodes = [
        node("Equal", ["a", "b"], ["eq"]),
        node("Less", ["a", "b"], ["lt"]),
        node("Greater", ["a", "b"], ["gt"]),
        node("Or", ["lt", "gt"], ["ne"]),
        node("And", ["ne", "eq"], ["never"]),
        node("Not", ["never"], ["always"]),
        node("IsNaN", ["a"], ["nan"]),
        node("Where", ["nan", "zero", "a"], ["clean"]),
        node("Where", ["always", "clean", "b"], ["w"]),
        node("Cast", ["w"], ["wi"], to=I64),
        node("Cast", ["wi"], ["y"], to=F),
    ]
    save("logic", nodes, [vi("a", F, [2, 3]), vi("b", F, [3])],
         [vi("y", F, [2, 3])], [const("zero", np.float32(0.0))])


def layout():
    nodes = [
        # 0 copies the input dim, -1 is inferred.
        node("Reshape", ["x", "shape"], ["r"]),
        node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3]),
        node("Unsqueeze", ["t", "uaxes"], ["u"]),
        node("Expand", ["u", "eshape"], ["e"]),
        node("Squeeze", ["e", "saxes"], ["s"]),
        node("Concat", ["s", "s"], ["c"], axis=-1),
        node("Flatten", ["c"], ["f"], axis=2),
    ]
    save("layout", nodes, [vi("x", F, [2, 3, 8])], [vi("f", F, [8, 12])],
         [ints("shape", [0, 0, 4, -1]), ints("uaxes", [-5]),
          ints("eshape", [1, 1, 1, 1, 1]), ints("saxes", [0])], opset=13)


def slicing():
    nodes = [
        # Steps, a negative start and an open end.
        node("Slice", ["x", "st1", "en1", "ax1", "sp1"], ["a"]),
        # A negative step walks backwards.
        node("Slice", ["x", "st2", "en2", "ax2", "sp2"], ["b"]),
    ]
    save("slice_steps", nodes, [vi("x", F, [4, 10])],
         [vi("a", F, [4, 5]), vi("b", F, [2, 10])],
         [ints("st1", [-9]), ints("en1", [INT64_MAX]), ints("ax1", [-1]),
          ints("sp1", [2]),
          ints("st2", [-1]), ints("en2", [-INT64_MAX]), ints("ax2", [0]),
          ints("sp2", [-2])])
    nodes = [node("Split", ["x", "sizes"], ["p", "q"], axis=-1),
             node("Split", ["x"], ["r", "s"], axis=0, num_outputs=2)]
    save("split", nodes, [vi("x", F, [4, 10])],
         [vi("p", F, [4, 3]), vi("q", F, [4, 7]), vi("r", F, [2, 10]),
          vi("s", F, [2, 10])], [ints("sizes", [3, 7])], opset=18)


def gather():
    nodes = [
        # Constant indices, negative ones counted from the back.
        node("Gather", ["x", "idx"], ["g"], axis=1),
        # Indices computed at run time (an embedding lookup).
        node("Gather", ["table", "ids"], ["emb"], axis=0),
    ]
    save("gather", nodes,
         [vi("x", F, [2, 5]), vi("table", F, [6, 4]), vi("ids", I64, [3])],
         [vi("g", F, [2, 3]), vi("emb", F, [3, 4])],
         [ints("idx", [-1, 0, -5])])


def shape_fold():
    # Shape -> Gather -> Unsqueeze -> Concat -> Reshape: folds to constants
    # once 'seq' is bound, as do Range, ConstantOfShape and Trilu on them.
    nodes = [
        node("Shape", ["x"], ["shp"]),
        node("Gather", ["shp", "one"], ["seq"], axis=0),
        node("Unsqueeze", ["seq", "zero_axis"], ["seq1"]),
        node("Concat", ["seq1", "minus1"], ["target"], axis=0),
        node("Reshape", ["x", "target"], ["r"]),
        node("Range", ["zero_s", "seq", "one_s"], ["pos"]),
        node("Cast", ["pos"], ["posf"], to=F),
        node("Concat", ["seq1", "seq1"], ["sq"], axis=0),
        node("ConstantOfShape", ["sq"], ["ones"],
             value=numpy_helper.from_array(np.array([1.0], np.float32))),
        node("Trilu", ["ones"], ["tril"], upper=0),
        node("ReduceSum", ["tril", "ax1"], ["rowsum"], keepdims=0),
        node("Add", ["rowsum", "posf"], ["y"]),
        node("Size", ["x"], ["n"]),
    ]
    save("shape_fold", nodes, [vi("x", F, [1, "seq", 4])],
         [vi("r", F, ["seq", 4]), vi("y", F, ["seq"]), vi("n", I64, [])],
         [ints("one", 1), ints("zero_axis", [0]), ints("minus1", [-1]),
          ints("zero_s", 0), ints("one_s", 1), ints("ax1", [1])], opset=14)


def matmul():
    nodes = [
        node("MatMul", ["x", "w"], ["xw"]),       # [B,S,8] x [8,6]
        node("MatMul", ["xw", "v"], ["xwv"]),     # [B,S,6] x [6] -> [B,S]
        node("Gemm", ["a", "b", "c"], ["g"], alpha=0.5, beta=2.0, transB=1),
    ]
    save("matmul", nodes,
         [vi("x", F, [2, 3, 8]), vi("v", F, [6]), vi("a", F, [3, 4]),
          vi("b", F, [5, 4]), vi("c", F, [5])],
         [vi("xwv", F, [2, 3]), vi("g", F, [3, 5])],
         [weight("w", [8, 6])])


def norms():
    nodes = [
        node("LayerNormalization", ["x", "g", "beta"], ["ln"], axis=-1,
             epsilon=1e-5),
        node("RMSNormalization", ["ln", "g"], ["rms"], epsilon=1e-6),
    ]
    save("norms", nodes, [vi("x", F, [2, 3, 32])], [vi("rms", F, [2, 3, 32])],
         [weight("g", [32]), weight("beta", [32])], opset=23)


def attention():
    # 4-D GQA with a causal mask: the tracer's spelling, fused.
    nodes = [node("Attention", ["q", "k", "v"], ["y"], is_causal=1)]
    save("attention_4d", nodes,
         [vi("q", F, ["batch", 4, "seq", 16]),
          vi("k", F, ["batch", 2, "seq", 16]),
          vi("v", F, ["batch", 2, "seq", 16])],
         [vi("y", F, ["batch", 4, "seq", 16])], opset=23)


def errors():
    # A standard op the importer does not know.
    save("unsupported_op", [node("Det", ["x"], ["y"])],
         [vi("x", F, [3, 3])], [vi("y", F, [])])
    # An op the importer does not know, in another domain.
    graph = helper.make_graph(
        [helper.make_node("FusedMatMul", ["x", "x"], ["y"], name="fmm",
                          domain="com.microsoft")],
        "unknown", [vi("x", F, [4, 4])], [vi("y", F, [4, 4])])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    onnx.save(model, os.path.join(OUT, "unknown_op.onnx"))
    # A symbolic dimension the user must bind.
    save("unbound_dim", [node("Neg", ["x"], ["y"])],
         [vi("x", F, ["batch", "seq"])], [vi("y", F, ["batch", "seq"])])
    # An attribute value the importer cannot honour.
    save("bad_attribute", [node("Cast", ["x"], ["y"], to=TensorProto.UINT8)],
         [vi("x", F, [4])], [vi("y", TensorProto.UINT8, [4])])
    # An attribute the op does not have (unchecked: the checker refuses it).
    save("unknown_attribute", [node("Neg", ["x"], ["y"], alpha=1.0)],
         [vi("x", F, [4])], [vi("y", F, [4])], check=False)
    # A truncated file.
    path = save("weights", [node("MatMul", ["x", "w"], ["y"]),
                            node("Add", ["y", "bias"], ["z"])],
                [vi("x", F, ["batch", 16])], [vi("z", F, ["batch", 8])],
                [weight("w", [16, 8]), weight("bias", [8])])
    data = open(path, "rb").read()
    open(os.path.join(OUT, "truncated.onnx"), "wb").write(data[:len(data) // 2])
    # External data whose file is missing.
    graph = helper.make_graph([node("MatMul", ["x", "w"], ["y"])], "external",
                              [vi("x", F, [2, 16])], [vi("y", F, [2, 8])],
                              [weight("w", [16, 8])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.external_data_helper.convert_model_to_external_data(
        model, all_tensors_to_one_file=True, location="missing.onnx_data",
        size_threshold=0)
    onnx.save(model, os.path.join(OUT, "external_missing.onnx"),
              save_as_external_data=False)
    data_file = os.path.join(OUT, "missing.onnx_data")
    if os.path.exists(data_file):
        os.remove(data_file)


# --------------------------------------------------------------------------
# End-to-end models (test/e2e/onnx-check.sh)
# --------------------------------------------------------------------------

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN = 64, 4, 2, 16, 128


def rms_norm_ts(prefix, x, w, nodes, inits):
    """HF Llama RMSNorm as the TorchScript exporter writes it."""
    inits += [const(prefix + ".eps", np.float32(1e-6)),
              const(prefix + ".two", np.float32(2.0))]
    nodes += [
        node("Pow", [x, prefix + ".two"], [prefix + ".sq"]),
        node("ReduceMean", [prefix + ".sq"], [prefix + ".var"], axes=[-1],
             keepdims=1),
        node("Add", [prefix + ".var", prefix + ".eps"], [prefix + ".ve"]),
        node("Sqrt", [prefix + ".ve"], [prefix + ".std"]),
        node("Reciprocal", [prefix + ".std"], [prefix + ".rstd"]),
        node("Mul", [x, prefix + ".rstd"], [prefix + ".n"]),
        node("Mul", [prefix + ".n", w], [prefix + ".out"]),
    ]
    return prefix + ".out"


def heads_ts(prefix, x, heads, nodes, inits):
    """[B, S, H*D] -> [B, H, S, D] with the target shape computed from
    Shape/Gather/Unsqueeze/Concat, as TorchScript exports view()."""
    inits += [ints(prefix + ".hd", [heads, HEAD_DIM])]
    nodes += [
        node("Shape", [x], [prefix + ".shape"]),
        node("Gather", [prefix + ".shape", "c.i0"], [prefix + ".b"], axis=0),
        node("Gather", [prefix + ".shape", "c.i1"], [prefix + ".s"], axis=0),
        node("Unsqueeze", [prefix + ".b", "c.ax0"], [prefix + ".b1"]),
        node("Unsqueeze", [prefix + ".s", "c.ax0"], [prefix + ".s1"]),
        node("Concat", [prefix + ".b1", prefix + ".s1", prefix + ".hd"],
             [prefix + ".target"], axis=0),
        node("Reshape", [x, prefix + ".target"], [prefix + ".bshd"]),
        node("Transpose", [prefix + ".bshd"], [prefix + ".bhsd"],
             perm=[0, 2, 1, 3]),
    ]
    return prefix + ".bhsd"


def rope_ts(prefix, x, nodes):
    """x * cos + rotate_half(x) * sin, rotate_half by Slice/Neg/Concat."""
    half = HEAD_DIM // 2
    nodes += [
        node("Slice", [x, "c.half", "c.max", "c.axm1"], [prefix + ".x2"]),
        node("Slice", [x, "c.zero1", "c.half", "c.axm1"], [prefix + ".x1"]),
        node("Neg", [prefix + ".x2"], [prefix + ".nx2"]),
        node("Concat", [prefix + ".nx2", prefix + ".x1"], [prefix + ".rot"],
             axis=-1),
        node("Mul", [x, "cos4"], [prefix + ".xc"]),
        node("Mul", [prefix + ".rot", "sin4"], [prefix + ".rs"]),
        node("Add", [prefix + ".xc", prefix + ".rs"], [prefix + ".out"]),
    ]
    del half
    return prefix + ".out"


def repeat_kv_ts(prefix, x, nodes, inits):
    """[B, Hkv, S, D] -> [B, H, S, D]: Unsqueeze, Expand, Reshape."""
    n_rep = HEADS // KV_HEADS
    inits += [ints(prefix + ".rep", [1, 1, n_rep, 1, 1]),
              ints(prefix + ".shape", [0, HEADS, -1, HEAD_DIM])]
    nodes += [
        node("Unsqueeze", [x, "c.ax2"], [prefix + ".u"]),
        node("Expand", [prefix + ".u", prefix + ".rep"], [prefix + ".e"]),
        node("Reshape", [prefix + ".e", prefix + ".shape"], [prefix + ".out"]),
    ]
    return prefix + ".out"


def common_consts():
    return [ints("c.i0", 0), ints("c.i1", 1), ints("c.ax0", [0]),
            ints("c.ax2", [2]), ints("c.axm1", [-1]),
            ints("c.half", [HEAD_DIM // 2]), ints("c.zero1", [0]),
            ints("c.max", [INT64_MAX])]


def rope_tables(nodes, inits):
    """cos/sin [1, 1, S, D] from Range over the bound sequence length."""
    inv = 1.0 / (10000.0 ** (np.arange(0, HEAD_DIM, 2) / HEAD_DIM))
    inits += [const("inv_freq", inv.astype(np.float32).reshape(1, -1)),
              ints("c.zero_s", 0), ints("c.one_s", 1),
              ints("c.ax01", [0, 1])]
    nodes += [
        node("Shape", ["x"], ["x.shape"]),
        node("Gather", ["x.shape", "c.i1"], ["x.seq"], axis=0),
        node("Range", ["c.zero_s", "x.seq", "c.one_s"], ["pos"]),
        node("Cast", ["pos"], ["posf"], to=F),
        node("Unsqueeze", ["posf", "c.axm1"], ["posc"]),
        node("MatMul", ["posc", "inv_freq"], ["freqs"]),
        node("Concat", ["freqs", "freqs"], ["emb"], axis=-1),
        node("Cos", ["emb"], ["cos"]),
        node("Sin", ["emb"], ["sin"]),
        node("Unsqueeze", ["cos", "c.ax01"], ["cos4"]),
        node("Unsqueeze", ["sin", "c.ax01"], ["sin4"]),
    ]


def decoder_ts():
    """One Llama decoder layer in the TorchScript exporter's spelling, GQA
    4/2 heads, with an additive float mask input [B, 1, S, S]."""
    nodes, inits = [], common_consts()
    inits += [weight("ln1.w", [HIDDEN], 1.0), weight("ln2.w", [HIDDEN], 1.0),
              weight("wq", [HIDDEN, HEADS * HEAD_DIM]),
              weight("wk", [HIDDEN, KV_HEADS * HEAD_DIM]),
              weight("wv", [HIDDEN, KV_HEADS * HEAD_DIM]),
              weight("wo", [HEADS * HEAD_DIM, HIDDEN]),
              weight("w_gate", [HIDDEN, FFN]), weight("w_up", [HIDDEN, FFN]),
              weight("w_down", [FFN, HIDDEN]),
              const("sqrt_d", np.float32(np.sqrt(HEAD_DIM))),
              ints("out_shape", [0, 0, HEADS * HEAD_DIM])]
    rope_tables(nodes, inits)
    h = rms_norm_ts("ln1", "x", "ln1.w", nodes, inits)
    nodes += [node("MatMul", [h, "wq"], ["q_proj"]),
              node("MatMul", [h, "wk"], ["k_proj"]),
              node("MatMul", [h, "wv"], ["v_proj"])]
    q = rope_ts("q.rope", heads_ts("q", "q_proj", HEADS, nodes, inits), nodes)
    k = rope_ts("k.rope", heads_ts("k", "k_proj", KV_HEADS, nodes, inits),
                nodes)
    v = heads_ts("v", "v_proj", KV_HEADS, nodes, inits)
    k = repeat_kv_ts("k.rep", k, nodes, inits)
    v = repeat_kv_ts("v.rep", v, nodes, inits)
    nodes += [
        node("Transpose", [k], ["kT"], perm=[0, 1, 3, 2]),
        node("MatMul", [q, "kT"], ["scores"]),
        node("Div", ["scores", "sqrt_d"], ["scaled"]),
        node("Add", ["scaled", "mask"], ["masked"]),
        node("Softmax", ["masked"], ["probs"], axis=-1),
        node("MatMul", ["probs", v], ["ctx"]),
        node("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
        node("Reshape", ["ctx_t", "out_shape"], ["ctx_flat"]),
        node("MatMul", ["ctx_flat", "wo"], ["attn_out"]),
        node("Add", ["x", "attn_out"], ["h1"]),
    ]
    h2 = rms_norm_ts("ln2", "h1", "ln2.w", nodes, inits)
    nodes += [
        node("MatMul", [h2, "w_gate"], ["gate"]),
        node("Sigmoid", ["gate"], ["gate_sig"]),
        node("Mul", ["gate", "gate_sig"], ["silu"]),
        node("MatMul", [h2, "w_up"], ["up"]),
        node("Mul", ["silu", "up"], ["act"]),
        node("MatMul", ["act", "w_down"], ["down"]),
        node("Add", ["h1", "down"], ["y"]),
    ]
    save("decoder_ts", nodes,
         [vi("x", F, ["batch", "seq", HIDDEN]),
          vi("mask", F, ["batch", 1, "seq", "seq"])],
         [vi("y", F, ["batch", "seq", HIDDEN])], inits, opset=17)


def attention23():
    """Projections around an opset-23 Attention on 3-D inputs (GQA 4/2,
    causal), with LayerNormalization in front."""
    nodes = [
        node("LayerNormalization", ["x", "ln.g", "ln.b"], ["h"], axis=-1,
             epsilon=1e-5),
        node("MatMul", ["h", "wq"], ["q"]),
        node("MatMul", ["h", "wk"], ["k"]),
        node("MatMul", ["h", "wv"], ["v"]),
        node("Attention", ["q", "k", "v"], ["ctx"], q_num_heads=HEADS,
             kv_num_heads=KV_HEADS, is_causal=1),
        node("MatMul", ["ctx", "wo"], ["o"]),
        node("Add", ["x", "o"], ["y"]),
    ]
    inits = [weight("ln.g", [HIDDEN], 1.0), weight("ln.b", [HIDDEN]),
             weight("wq", [HIDDEN, HEADS * HEAD_DIM]),
             weight("wk", [HIDDEN, KV_HEADS * HEAD_DIM]),
             weight("wv", [HIDDEN, KV_HEADS * HEAD_DIM]),
             weight("wo", [HEADS * HEAD_DIM, HIDDEN])]
    save("attention23", nodes, [vi("x", F, ["batch", "seq", HIDDEN])],
         [vi("y", F, ["batch", "seq", HIDDEN])], inits, opset=23)


def causal_trilu():
    """MHA whose causal mask is Trilu(ConstantOfShape([S, S], 1)), turned
    into a masked_fill: Where(Equal(tril, 0), -inf, scores)."""
    heads = 2
    nodes, inits = [], common_consts()
    inits += [weight("wq", [HIDDEN, heads * HEAD_DIM]),
              weight("wk", [HIDDEN, heads * HEAD_DIM]),
              weight("wv", [HIDDEN, heads * HEAD_DIM]),
              const("scale", np.float32(1.0 / np.sqrt(HEAD_DIM))),
              const("zero_f", np.float32(0.0)),
              const("neg_inf", np.float32(-np.inf)),
              ints("out_shape", [0, 0, heads * HEAD_DIM])]
    nodes += [node("MatMul", ["x", "wq"], ["q_proj"]),
              node("MatMul", ["x", "wk"], ["k_proj"]),
              node("MatMul", ["x", "wv"], ["v_proj"])]
    q = heads_ts("q", "q_proj", heads, nodes, inits)
    k = heads_ts("k", "k_proj", heads, nodes, inits)
    v = heads_ts("v", "v_proj", heads, nodes, inits)
    nodes += [
        node("Shape", ["x"], ["xs"]),
        node("Gather", ["xs", "c.i1"], ["seq"], axis=0),
        node("Unsqueeze", ["seq", "c.ax0"], ["seq1"]),
        node("Concat", ["seq1", "seq1"], ["ss"], axis=0),
        node("ConstantOfShape", ["ss"], ["ones"],
             value=numpy_helper.from_array(np.array([1.0], np.float32))),
        node("Trilu", ["ones"], ["tril"], upper=0),
        node("Equal", ["tril", "zero_f"], ["hidden"]),
        node("Transpose", [k], ["kT"], perm=[0, 1, 3, 2]),
        node("MatMul", [q, "kT"], ["scores"]),
        node("Mul", ["scores", "scale"], ["scaled"]),
        node("Where", ["hidden", "neg_inf", "scaled"], ["masked"]),
        node("Softmax", ["masked"], ["probs"], axis=-1),
        node("MatMul", ["probs", v], ["ctx"]),
        node("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
        node("Reshape", ["ctx_t", "out_shape"], ["y"]),
    ]
    save("causal_trilu", nodes, [vi("x", F, ["batch", "seq", HIDDEN])],
         [vi("y", F, ["batch", "seq", heads * HEAD_DIM])], inits, opset=17)


# --------------------------------------------------------------------------
# ONNX Runtime's contrib ops and the newer standard ops (lit and e2e)
# --------------------------------------------------------------------------

MAX_POS = 32


def rope_caches(prefix, half, inits):
    """cos/sin caches [MAX_POS, half] as ONNX Runtime's exporters write."""
    inv = 1.0 / (10000.0 ** (np.arange(half) / half))
    angles = np.outer(np.arange(MAX_POS), inv)
    inits += [const(prefix + "cos", np.cos(angles).astype(np.float32)),
              const(prefix + "sin", np.sin(angles).astype(np.float32))]
    return prefix + "cos", prefix + "sin"


def seqlens_from_mask(nodes, inits, mask="attention_mask"):
    """seqlens_k and total_sequence_length from a [B, T] attention mask, as
    ONNX Runtime GenAI's models compute them."""
    inits += [ints("gqa.ax1", [1]), ints("gqa.one", 1), ints("gqa.i1", 1)]
    nodes += [
        node("ReduceSum", [mask, "gqa.ax1"], ["gqa.len"], keepdims=0),
        node("Sub", ["gqa.len", "gqa.one"], ["gqa.len1"]),
        node("Cast", ["gqa.len1"], ["seqlens_k"], to=I32),
        node("Shape", [mask], ["gqa.shape"]),
        node("Gather", ["gqa.shape", "gqa.i1"], ["gqa.total"], axis=0),
        node("Cast", ["gqa.total"], ["total_seq"], to=I32),
    ]


def erf_gelu():
    # Erf on its own, GELU as exporters spell it with Erf, and opset-20 Gelu.
    save("erf", [node("Erf", ["x"], ["y"])], [vi("x", F, [4])],
         [vi("y", F, [4])])
    nodes = [
        node("Erf", ["x"], ["e"]),
        node("Div", ["x", "sqrt2"], ["xs"]),
        node("Erf", ["xs"], ["xe"]),
        node("Add", ["xe", "one"], ["xe1"]),
        node("Mul", ["x", "xe1"], ["xg"]),
        node("Mul", ["xg", "half"], ["gelu_erf"]),
        node("Gelu", ["x"], ["gelu"]),
        node("Gelu", ["x"], ["gelu_tanh"], approximate="tanh"),
    ]
    save("erf_gelu", nodes, [vi("x", F, [2, 3, 16])],
         [vi("e", F, [2, 3, 16]), vi("gelu_erf", F, [2, 3, 16]),
          vi("gelu", F, [2, 3, 16]), vi("gelu_tanh", F, [2, 3, 16])],
         [const("sqrt2", np.float32(np.sqrt(2.0))),
          const("one", np.float32(1.0)), const("half", np.float32(0.5))],
         opset=20)
    # Gelu came to the default domain in opset 20 (unchecked: the checker
    # refuses it too).
    save("gelu_opset17", [node("Gelu", ["x"], ["y"])], [vi("x", F, [4])],
         [vi("y", F, [4])], check=False)


def gather_scatter_nd():
    nodes = [
        # Constant index pairs into the first two dims, one negative.
        node("GatherND", ["x", "pairs"], ["g"]),
        # One index per batch row (batch_dims 1), computed at run time.
        node("GatherND", ["x", "rows"], ["gb"], batch_dims=1),
    ]
    save("gathernd", nodes, [vi("x", F, [2, 3, 4]), vi("rows", I64, [2, 1])],
         [vi("g", F, [2, 4]), vi("gb", F, [2, 4])],
         [ints("pairs", [[0, 1], [1, -1]])], opset=13)
    # A constant index outside its dim: refused at import.
    save("gathernd_range", [node("GatherND", ["x", "pairs"], ["g"])],
         [vi("x", F, [2, 3, 4])], [vi("g", F, [1, 4])],
         [ints("pairs", [[1, 3]])], opset=13, check=False)
    # An index update: rows 1 and -1 of x replaced (constant indices).
    save("scatternd_rows",
         [node("ScatterND", ["x", "idx", "u"], ["y"])],
         [vi("x", F, [4, 5]), vi("u", F, [2, 5])], [vi("y", F, [4, 5])],
         [ints("idx", [[1], [-1]])], opset=16)
    # The KV-cache write of a static cache (torch index_copy_ on the
    # sequence axis): the cache transposed so the sequence leads, the new
    # rows scattered at cache_position, transposed back.
    nodes = [
        node("Transpose", ["cache"], ["cache_t"], perm=[2, 0, 1, 3]),
        node("Transpose", ["k"], ["k_t"], perm=[2, 0, 1, 3]),
        node("Unsqueeze", ["cache_position", "ax1"], ["idx"]),
        node("ScatterND", ["cache_t", "idx", "k_t"], ["new_t"]),
        node("Transpose", ["new_t"], ["new_cache"], perm=[1, 2, 0, 3]),
    ]
    save("scatternd_kv", nodes,
         [vi("cache", F, ["batch", KV_HEADS, 8, HEAD_DIM]),
          vi("k", F, ["batch", KV_HEADS, "seq", HEAD_DIM]),
          vi("cache_position", I64, ["seq"])],
         [vi("new_cache", F, ["batch", KV_HEADS, 8, HEAD_DIM])],
         [ints("ax1", [1])], opset=16)
    # A reduction other than 'none': refused, naming the node.
    save("scatternd_add",
         [node("ScatterND", ["x", "idx", "u"], ["y"], reduction="add")],
         [vi("x", F, [4, 5]), vi("u", F, [2, 5])], [vi("y", F, [4, 5])],
         [ints("idx", [[1], [3]])], opset=16)


def rotary():
    half = HEAD_DIM // 2
    inits = []
    cos, sin = rope_caches("", half, inits)
    cos4, sin4 = rope_caches("part.", 4, inits)
    # opset 23: 4-D [B, H, S, D] with position ids, and 3-D with num_heads,
    # partial and interleaved.
    nodes = [
        node("RotaryEmbedding", ["q", cos, sin, "position_ids"], ["q_rot"]),
        node("RotaryEmbedding", ["x", cos4, sin4, "position_ids"], ["x_rot"],
             interleaved=1, num_heads=HEADS, rotary_embedding_dim=8),
    ]
    save("rotary23", nodes,
         [vi("q", F, ["batch", HEADS, "seq", HEAD_DIM]),
          vi("x", F, ["batch", "seq", HEADS * HEAD_DIM]),
          vi("position_ids", I64, ["batch", "seq"])],
         [vi("q_rot", F, ["batch", HEADS, "seq", HEAD_DIM]),
          vi("x_rot", F, ["batch", "seq", HEADS * HEAD_DIM])], inits,
         opset=23)
    # com.microsoft: (input, position_ids, cos, sin); 3-D with position ids,
    # 4-D with one start position, partial with num_heads.
    inits = [ints("start", [3])]
    cos, sin = rope_caches("", half, inits)
    cos4, sin4 = rope_caches("part.", 4, inits)
    nodes = [
        ms("RotaryEmbedding", ["x", "position_ids", cos, sin], ["x_rot"]),
        ms("RotaryEmbedding", ["q", "start", cos, sin], ["q_rot"],
           interleaved=1),
        ms("RotaryEmbedding", ["x", "position_ids", cos4, sin4], ["x_part"],
           num_heads=HEADS, rotary_embedding_dim=8),
    ]
    save("rotary_ms", nodes,
         [vi("x", F, ["batch", "seq", HEADS * HEAD_DIM]),
          vi("q", F, ["batch", HEADS, "seq", HEAD_DIM]),
          vi("position_ids", I64, ["batch", "seq"])],
         [vi("x_rot", F, ["batch", "seq", HEADS * HEAD_DIM]),
          vi("q_rot", F, ["batch", HEADS, "seq", HEAD_DIM]),
          vi("x_part", F, ["batch", "seq", HEADS * HEAD_DIM])], inits,
         opset=17, contrib=True)
    # Refusals: a 3-D X without num_heads (opset 23); a scale (contrib).
    inits = []
    cos, sin = rope_caches("", half, inits)
    save("rotary23_no_heads",
         [node("RotaryEmbedding", ["x", cos, sin, "pos"], ["y"], name="rope")],
         [vi("x", F, [1, 3, 32]), vi("pos", I64, [1, 3])],
         [vi("y", F, [1, 3, 32])], inits, opset=23, check=False)
    inits = []
    cos, sin = rope_caches("", half, inits)
    save("rotary_ms_scale",
         [ms("RotaryEmbedding", ["x", "pos", cos, sin], ["y"], name="rope",
             scale=0.5)],
         [vi("x", F, [1, 3, 32]), vi("pos", I64, [1, 3])],
         [vi("y", F, [1, 3, 32])], inits, contrib=True)


def skip_norms():
    nodes = [
        ms("SkipLayerNormalization", ["x", "skip", "g", "b", "bias"],
           ["ln", "", "", "sum"], epsilon=1e-5),
        ms("SkipSimplifiedLayerNormalization", ["ln", "skip2", "g2"],
           ["rms"], epsilon=1e-6),
        # ONNX Runtime registers this one in the default domain.
        node("SimplifiedLayerNormalization", ["rms", "g"], ["y"], axis=-1,
             epsilon=1e-6),
    ]
    save("skip_norms", nodes,
         [vi("x", F, ["batch", "seq", HIDDEN]),
          vi("skip", F, ["batch", "seq", HIDDEN]),
          vi("skip2", F, ["seq", HIDDEN])],
         [vi("sum", F, ["batch", "seq", HIDDEN]),
          vi("y", F, ["batch", "seq", HIDDEN])],
         [weight("g", [HIDDEN], 1.0), weight("b", [HIDDEN]),
          weight("bias", [HIDDEN]), weight("g2", [HIDDEN], 1.0)],
         opset=17, contrib=True, check=False)
    # Token rows [N, H], no epsilon (ONNX Runtime's default 1e-12), and the
    # mean output, which is refused.
    save("skip_norm_tokens",
         [ms("SkipSimplifiedLayerNormalization", ["x", "skip", "g"], ["y"])],
         [vi("x", F, [5, 32]), vi("skip", F, [5, 32])], [vi("y", F, [5, 32])],
         [weight("g", [32], 1.0)], contrib=True)
    save("skip_norm_mean",
         [ms("SkipLayerNormalization", ["x", "skip", "g"], ["y", "mean"],
             name="sln")],
         [vi("x", F, [5, 32]), vi("skip", F, [5, 32])],
         [vi("y", F, [5, 32]), vi("mean", F, [5, 1])],
         [weight("g", [32], 1.0)], contrib=True)


def projections(prefix, x, heads_q, heads_kv, nodes, inits):
    for name, heads in (("q", heads_q), ("k", heads_kv), ("v", heads_kv)):
        inits.append(weight(prefix + "w" + name, [HIDDEN, heads * HEAD_DIM]))
        nodes.append(node("MatMul", [x, prefix + "w" + name],
                          [prefix + name]))
    return prefix + "q", prefix + "k", prefix + "v"


def multi_head_attention():
    # Self attention with a projection bias, a causal mask and a KV cache.
    nodes, inits = [], [weight("mha.bias", [3 * HEADS * HEAD_DIM]),
                        weight("wo", [HEADS * HEAD_DIM, HIDDEN])]
    q, k, v = projections("", "x", HEADS, HEADS, nodes, inits)
    nodes += [
        ms("MultiHeadAttention",
           [q, k, v, "mha.bias", "", "", "past_key", "past_value"],
           ["ctx", "present_key", "present_value"], num_heads=HEADS,
           unidirectional=1),
        node("MatMul", ["ctx", "wo"], ["y"]),
    ]
    kv = ["batch", HEADS, "past", HEAD_DIM]
    present = ["batch", HEADS, "total", HEAD_DIM]
    save("mha_past", nodes,
         [vi("x", F, ["batch", "seq", HIDDEN]), vi("past_key", F, kv),
          vi("past_value", F, kv)],
         [vi("y", F, ["batch", "seq", HIDDEN]),
          vi("present_key", F, present), vi("present_value", F, present)],
         inits, contrib=True)
    # Cross attention over an encoder output with a key padding mask, an
    # attention bias and a custom scale.
    nodes, inits = [], []
    inits += [weight("wq", [HIDDEN, HEADS * HEAD_DIM]),
              weight("wk", [HIDDEN, HEADS * HEAD_DIM]),
              weight("wv", [HIDDEN, HEADS * HEAD_DIM])]
    nodes += [node("MatMul", ["x", "wq"], ["q"]),
              node("MatMul", ["enc", "wk"], ["k"]),
              node("MatMul", ["enc", "wv"], ["v"]),
              ms("MultiHeadAttention",
                 ["q", "k", "v", "", "key_padding_mask", "attn_bias"],
                 ["y"], num_heads=HEADS, scale=0.2)]
    save("mha_cross", nodes,
         [vi("x", F, ["batch", "seq", HIDDEN]),
          vi("enc", F, ["batch", "enc_seq", HIDDEN]),
          vi("key_padding_mask", I32, ["batch", "enc_seq"]),
          vi("attn_bias", F, [1, HEADS, "seq", "enc_seq"])],
         [vi("y", F, ["batch", "seq", HEADS * HEAD_DIM])], inits,
         contrib=True)
    # The qk output: refused.
    save("mha_qk",
         [ms("MultiHeadAttention", ["q", "k", "v"], ["y", "", "", "qk"],
             name="mha", num_heads=2)],
         [vi("q", F, [1, 3, 32]), vi("k", F, [1, 3, 32]),
          vi("v", F, [1, 3, 32])],
         [vi("y", F, [1, 3, 32]), vi("qk", F, [1, 2, 3, 3])], contrib=True)
    # Packed QKV [B, S, H, 3, D] (lit only).
    save("mha_packed",
         [ms("MultiHeadAttention", ["qkv"], ["y"], num_heads=HEADS)],
         [vi("qkv", F, [2, 5, HEADS, 3, HEAD_DIM])],
         [vi("y", F, [2, 5, HEADS * HEAD_DIM])], contrib=True)


def group_query_attention():
    # Packed QKV from one projection, rotary inside the op, a KV cache in
    # BNSH and the sequence lengths from the attention mask: the ONNX
    # Runtime GenAI spelling of a Llama layer's attention.
    width = (HEADS + 2 * KV_HEADS) * HEAD_DIM
    nodes, inits = [], [weight("wqkv", [HIDDEN, width]),
                        weight("wo", [HEADS * HEAD_DIM, HIDDEN])]
    cos, sin = rope_caches("", HEAD_DIM // 2, inits)
    seqlens_from_mask(nodes, inits)
    nodes += [
        node("MatMul", ["x", "wqkv"], ["qkv"]),
        ms("GroupQueryAttention",
           ["qkv", "", "", "past_key", "past_value", "seqlens_k",
            "total_seq", cos, sin],
           ["ctx", "present_key", "present_value"], num_heads=HEADS,
           kv_num_heads=KV_HEADS, do_rotary=1),
        node("MatMul", ["ctx", "wo"], ["y"]),
    ]
    kv = ["batch", KV_HEADS, "past", HEAD_DIM]
    present = ["batch", KV_HEADS, "total", HEAD_DIM]
    save("gqa_decode", nodes,
         [vi("x", F, ["batch", "seq", HIDDEN]), vi("past_key", F, kv),
          vi("past_value", F, kv),
          vi("attention_mask", I64, ["batch", "total"])],
         [vi("y", F, ["batch", "seq", HIDDEN]),
          vi("present_key", F, present), vi("present_value", F, present)],
         inits, contrib=True)
    # Separate Q, K and V in a prompt: a local window, a softcap and
    # interleaved rotary.
    nodes, inits = [], []
    cos, sin = rope_caches("", HEAD_DIM // 2, inits)
    seqlens_from_mask(nodes, inits)
    q, k, v = projections("", "x", HEADS, KV_HEADS, nodes, inits)
    nodes += [ms("GroupQueryAttention",
                 [q, k, v, "", "", "seqlens_k", "total_seq", cos, sin],
                 ["y"], num_heads=HEADS, kv_num_heads=KV_HEADS,
                 local_window_size=3, softcap=2.0, do_rotary=1,
                 rotary_interleaved=1)]
    save("gqa_window", nodes,
         [vi("x", F, ["batch", "seq", HIDDEN]),
          vi("attention_mask", I64, ["batch", "seq"])],
         [vi("y", F, ["batch", "seq", HEADS * HEAD_DIM])], inits,
         contrib=True)
    # smooth_softmax adds a sink to the softmax: refused, naming the node.
    save("gqa_smooth",
         [ms("GroupQueryAttention", ["qkv", "", "", "", "", "sl", "tot"],
             ["y"], name="gqa", num_heads=2, kv_num_heads=2,
             smooth_softmax=1)],
         [vi("qkv", F, [1, 3, 6 * 8])], [vi("y", F, [1, 3, 16])],
         [const("sl", np.array([2], np.int32)),
          const("tot", np.array(3, np.int32))], contrib=True)
    # A padded row known at import (seqlens_k 1 of 3): refused.
    save("gqa_padded",
         [ms("GroupQueryAttention", ["qkv", "", "", "", "", "sl", "tot"],
             ["y"], name="gqa", num_heads=2, kv_num_heads=2)],
         [vi("qkv", F, [2, 3, 6 * 8])], [vi("y", F, [2, 3, 16])],
         [const("sl", np.array([2, 1], np.int32)),
          const("tot", np.array(3, np.int32))], contrib=True)


def contrib_attention():
    # BERT-style: one QKV projection inside the op and a raw key mask.
    inits = [weight("w", [HIDDEN, 3 * HIDDEN]), weight("bias", [3 * HIDDEN])]
    nodes = [ms("Attention", ["x", "w", "bias", "mask_index"], ["y"],
                num_heads=HEADS)]
    save("ms_attention_mask", nodes,
         [vi("x", F, ["batch", "seq", HIDDEN]),
          vi("mask_index", I32, ["batch", "seq"])],
         [vi("y", F, ["batch", "seq", HIDDEN])], inits, contrib=True)
    # GPT-2 style: unidirectional with the stacked past [2, B, H, P, D] and
    # present; right-padding lengths as the mask.
    inits = [weight("w", [HIDDEN, 3 * HIDDEN]), weight("bias", [3 * HIDDEN])]
    nodes = [ms("Attention", ["x", "w", "bias", "", "past"],
                ["y", "present"], num_heads=HEADS, unidirectional=1)]
    save("ms_attention_past", nodes,
         [vi("x", F, ["batch", "seq", HIDDEN]),
          vi("past", F, [2, "batch", HEADS, "past", HIDDEN // HEADS])],
         [vi("y", F, ["batch", "seq", HIDDEN]),
          vi("present", F, [2, "batch", HEADS, "total", HIDDEN // HEADS])],
         inits, contrib=True)
    # Valid lengths [B] (lit only: the lengths are constants).
    inits = [weight("w", [32, 96]), const("lens", np.array([2, 4], np.int32))]
    save("ms_attention_lengths",
         [ms("Attention", ["x", "w", "", "lens"], ["y"], num_heads=2,
             qkv_hidden_sizes=[32, 32, 32])],
         [vi("x", F, [2, 4, 32])], [vi("y", F, [2, 4, 32])], inits,
         contrib=True)
    # A refusal: rotary inside the op.
    save("ms_attention_rotary",
         [ms("Attention", ["x", "w"], ["y"], name="attn", num_heads=2,
             do_rotary=1)],
         [vi("x", F, [2, 4, 32])], [vi("y", F, [2, 4, 32])],
         [weight("w", [32, 96])], contrib=True)


def contrib_activations():
    # ONNX Runtime's fused activations, as its transformer optimizer writes
    # them (own generator, so the other models' weights do not move).
    rng = np.random.default_rng(11)
    bias = const("bias", (0.5 * rng.standard_normal([16])).astype(np.float32))
    nodes = [
        ms("Gelu", ["x"], ["gelu"]),
        ms("FastGelu", ["x", "bias"], ["fast_gelu"]),
        ms("FastGelu", ["x"], ["fast_gelu_nobias"]),
        ms("BiasGelu", ["x", "bias"], ["bias_gelu"]),
        ms("QuickGelu", ["x"], ["quick_gelu"], alpha=1.5),
    ]
    out = [vi(n, F, [2, 3, 16]) for n in
           ("gelu", "fast_gelu", "fast_gelu_nobias", "bias_gelu", "quick_gelu")]
    save("contrib_activations", nodes, [vi("x", F, [2, 3, 16])], out, [bias],
         contrib=True)
    # BiasAdd (input + bias + skip) has no CPU kernel in ONNX Runtime: checked
    # against poot's oracle only.
    save("bias_add", [ms("BiasAdd", ["x", "bias", "skip"], ["y"])],
         [vi("x", F, [2, 3, 16]), vi("skip", F, [2, 3, 16])],
         [vi("y", F, [2, 3, 16])], [bias], contrib=True)
    # A bias that does not broadcast to the input.
    save("bias_gelu_bad", [ms("BiasGelu", ["x", "b8"], ["y"], name="bg")],
         [vi("x", F, [2, 3, 16])], [vi("y", F, [2, 3, 16])],
         [const("b8", np.zeros([8], np.float32))], contrib=True, check=False)


def tile_and_names():
    # Tile of a graph value (dims repeated 2 x 3, and 1 x 3) and of a
    # constant (folded at import).
    nodes = [node("Tile", ["x", "r23"], ["y"]),
             node("Tile", ["x", "r13"], ["z"]),
             node("Tile", ["c", "r23"], ["ct"]),
             node("Add", ["y", "ct"], ["w"])]
    save("tile", nodes, [vi("x", F, [2, 3])],
         [vi("y", F, [4, 9]), vi("z", F, [2, 9]), vi("w", F, [4, 9])],
         [ints("r23", [2, 3]), ints("r13", [1, 3]),
          const("c", np.arange(6, dtype=np.float32).reshape(2, 3))])
    # Weights whose names are no file names: a TensorFlow scope, a large
    # Constant node's output, and a name that the first one's file name
    # takes already.
    table = np.linspace(-1, 1, 64 * 8, dtype=np.float32).reshape(64, 8)
    nodes = [node("MatMul", ["x", "model/dense/kernel:0"], ["a"]),
             node("Constant", [], ["/model/Constant_output_0"],
                  value=numpy_helper.from_array(table)),
             node("MatMul", ["x", "/model/Constant_output_0"], ["b"]),
             node("MatMul", ["x", "model_dense_kernel:0"], ["c"]),
             node("Sum", ["a", "b", "c"], ["y"])]
    save("weight_names", nodes, [vi("x", F, [2, 64])], [vi("y", F, [2, 8])],
         [weight("model/dense/kernel:0", [64, 8]),
          weight("model_dense_kernel:0", [64, 8])])


def more_ops():
    # GatherElements of a graph value along each axis (constant indices,
    # negative ones counted from the back) and of a constant; Sign; Clip
    # with either bound or both; Floor and Ceil of a constant.
    idx1 = np.array([[0, 2, 1, -1], [3, 0, 0, 1]], np.int64)
    idx0 = np.array([[2, 0, 1, 0]], np.int64)
    nodes = [node("GatherElements", ["x", "i1"], ["g1"], axis=1),
             node("GatherElements", ["x", "i0"], ["g0"], axis=0),
             node("GatherElements", ["c", "i0"], ["gc"], axis=0),
             node("Add", ["g0", "gc"], ["g0c"]),
             node("Sign", ["x"], ["sg"]),
             node("Clip", ["x", "lo"], ["c1"]),
             node("Clip", ["x", "", "hi"], ["c2"]),
             node("Clip", ["x", "lo", "hi"], ["c3"]),
             node("Floor", ["f"], ["ff"]),
             node("Ceil", ["f"], ["fc"]),
             node("Add", ["ff", "fc"], ["fs"]),
             node("Add", ["x", "fs"], ["xf"]),
             # indices computed at run time: guarded, the run fails on one
             # outside [-4, 4)
             node("GatherElements", ["x", "gi"], ["gg"], axis=1)]
    save("more_ops", nodes, [vi("x", F, [3, 4]), vi("gi", I64, [3, 2])],
         [vi("gg", F, [3, 2]),
          vi("g1", F, [2, 4]), vi("g0c", F, [1, 4]), vi("sg", F, [3, 4]),
          vi("c1", F, [3, 4]), vi("c2", F, [3, 4]), vi("c3", F, [3, 4]),
          vi("xf", F, [3, 4])],
         [const("i1", idx1), const("i0", idx0),
          const("c", np.arange(12, dtype=np.float32).reshape(3, 4)),
          const("lo", np.float32(-0.5)), const("hi", np.float32(0.25)),
          const("f", np.array([-1.5, -0.5, 0.5, 2.0], np.float32))],
         opset=13)


def main():
    os.makedirs(OUT, exist_ok=True)
    for build in (elementwise, softmax, reduce, logic, layout, slicing,
                  gather, shape_fold, matmul, norms, attention, errors,
                  decoder_ts, attention23, causal_trilu, erf_gelu,
                  gather_scatter_nd, rotary, skip_norms, multi_head_attention,
                  group_query_attention, contrib_attention,
                  contrib_activations, tile_and_names, more_ops):
        build()


if __name__ == "__main__":
    main()
