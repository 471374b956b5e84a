#!/usr/bin/env python3
"""Exports the ONNX corpus (test/onnx/corpus) from Hugging Face model code.

Each family is instantiated from a small config (hidden 64, 2 layers,
vocab 128) with seeded random weights (nothing is downloaded; the weights
are redrawn at a scale where attention is far from uniform) and exported
with PyTorch's exporters in two phases:

  prefill  inputs input_ids [batch, seq], attention_mask [batch, seq];
           output logits.
  decode   inputs input_ids [batch, seq], attention_mask [batch, total],
           position_ids [batch, seq] (where the model takes them),
           cache_position [seq] (where the model takes it) and
           past_key_values.<i>.key/value [batch, kv_heads, past, head_dim];
           outputs logits and present.<i>.key/value (the concatenated
           cache, [batch, kv_heads, total, head_dim]).

The positions are graph inputs in the decode phase, so a runtime that keeps
the cache in a fixed buffer can feed them (poot's --kv-capacity rewrite).

Every export is checked before it is written: ONNX Runtime runs it at
shapes other than the ones it was traced with (another batch, prompt
length, past length, one new row and several) and must agree with the
PyTorch model, so a shape the exporter baked in fails here, not later.

What is stored: doc strings and the exporters' per-node metadata (source
locations) are dropped, and the weights of a family's models (both phases,
both exporters) are one external data file, `<family>.data`, each distinct
tensor once, so the corpus stays small. The graphs are the exporters' own.

    python export_hf.py [--out DIR] [--exporter torchscript|dynamo|both]
                        [FAMILY...]

Needs torch, transformers, onnx, onnxscript and onnxruntime; the checks
(corpus_check.py) need only onnx, onnxruntime and numpy. manifest.json in
the output directory lists what was written, with the attention count to
expect (one per layer).
"""

import argparse
import hashlib
import inspect
import json
import math
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import transformers
from onnx import numpy_helper
from transformers import DynamicCache

warnings.filterwarnings("ignore")

HIDDEN, HEADS, HEAD_DIM, VOCAB, LAYERS, FFN = 64, 4, 16, 128, 2, 64
# Tensors at least this large go to the family's data file.
EXTERNAL_MIN_BYTES = 1024


def families():
    """name -> (config, model class, kv heads, what it exercises)."""
    t = transformers
    common = dict(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                  num_attention_heads=HEADS, max_position_embeddings=64,
                  tie_word_embeddings=True, bos_token_id=1, eos_token_id=2,
                  pad_token_id=0)
    out = {}
    out["llama"] = (t.LlamaConfig(**common, intermediate_size=FFN,
                                  num_key_value_heads=2, head_dim=HEAD_DIM),
                    t.LlamaForCausalLM, 2, "GQA 4/2, rotate-half RoPE")
    out["qwen2"] = (t.Qwen2Config(**common, intermediate_size=FFN,
                                  num_key_value_heads=2),
                    t.Qwen2ForCausalLM, 2, "GQA 4/2, q/k/v biases")
    out["mistral"] = (t.MistralConfig(**common, intermediate_size=FFN,
                                      num_key_value_heads=2, head_dim=HEAD_DIM,
                                      sliding_window=4),
                      t.MistralForCausalLM, 2, "GQA 4/2, sliding window 4")
    out["gemma"] = (t.GemmaConfig(**common, intermediate_size=FFN,
                                  num_key_value_heads=1, head_dim=HEAD_DIM),
                    t.GemmaForCausalLM, 1,
                    "MQA, embeddings scaled by sqrt(hidden), (1 + w) RMSNorm, "
                    "tanh GELU")
    out["gemma2"] = (t.Gemma2Config(**common, intermediate_size=FFN,
                                    num_key_value_heads=2, head_dim=HEAD_DIM,
                                    sliding_window=4,
                                    attn_logit_softcapping=5.0,
                                    final_logit_softcapping=30.0,
                                    query_pre_attn_scalar=16),
                     t.Gemma2ForCausalLM, 2,
                     "GQA 4/2, softcap 5, window 4 on every other layer")
    out["phi3"] = (t.Phi3Config(**common, intermediate_size=FFN,
                                num_key_value_heads=2),
                   t.Phi3ForCausalLM, 2, "GQA 4/2, fused qkv projection")
    out["gpt2"] = (t.GPT2Config(vocab_size=VOCAB, n_embd=HIDDEN, n_layer=LAYERS,
                                n_head=HEADS, n_positions=64, n_inner=FFN,
                                bos_token_id=1, eos_token_id=2),
                   t.GPT2LMHeadModel, HEADS, "MHA, learned positions, Conv1D")
    out["gptneox"] = (t.GPTNeoXConfig(vocab_size=VOCAB, hidden_size=HIDDEN,
                                      num_hidden_layers=LAYERS,
                                      num_attention_heads=HEADS,
                                      intermediate_size=FFN,
                                      rotary_pct=0.25,
                                      max_position_embeddings=64,
                                      bos_token_id=1, eos_token_id=2),
                      t.GPTNeoXForCausalLM, HEADS,
                      "MHA, partial rotary (4 of 16 channels)")
    out["falcon"] = (t.FalconConfig(vocab_size=VOCAB, hidden_size=HIDDEN,
                                    num_hidden_layers=LAYERS,
                                    num_attention_heads=HEADS, multi_query=True,
                                    new_decoder_architecture=False,
                                    parallel_attn=True, bias=False,
                                    alibi=False, bos_token_id=1,
                                    eos_token_id=2),
                     t.FalconForCausalLM, 1, "MQA (one KV head), RoPE")
    out["bloom"] = (t.BloomConfig(vocab_size=VOCAB, hidden_size=HIDDEN,
                                  n_layer=LAYERS, n_head=HEADS,
                                  bos_token_id=1, eos_token_id=2),
                    t.BloomForCausalLM, HEADS, "MHA, ALiBi")
    out["opt"] = (t.OPTConfig(vocab_size=VOCAB, hidden_size=HIDDEN,
                              num_hidden_layers=LAYERS, ffn_dim=FFN,
                              num_attention_heads=HEADS,
                              max_position_embeddings=64,
                              word_embed_proj_dim=HIDDEN, bos_token_id=1,
                              eos_token_id=2, pad_token_id=0),
                  t.OPTForCausalLM, HEADS,
                  "MHA, learned positions at offset 2, ReLU")
    out["qwen3"] = (t.Qwen3Config(**common, intermediate_size=FFN,
                                  num_key_value_heads=2, head_dim=HEAD_DIM),
                    t.Qwen3ForCausalLM, 2, "GQA 4/2, RMSNorm on q and k per head")
    out["gemma3"] = (t.Gemma3TextConfig(**common, intermediate_size=FFN,
                                        num_key_value_heads=2,
                                        head_dim=HEAD_DIM, sliding_window=4,
                                        query_pre_attn_scalar=16,
                                        layer_types=["sliding_attention",
                                                     "full_attention"]),
                     t.Gemma3ForCausalLM, 2,
                     "GQA 4/2, q/k norm, window 4 on the first layer, "
                     "local and global RoPE bases")
    out["olmo2"] = (t.Olmo2Config(**common, intermediate_size=FFN,
                                  num_key_value_heads=2),
                    t.Olmo2ForCausalLM, 2,
                    "GQA 4/2, RMSNorm on the whole q and k projections")
    out["stablelm"] = (t.StableLmConfig(**common, intermediate_size=FFN,
                                        num_key_value_heads=2,
                                        partial_rotary_factor=0.5,
                                        qk_layernorm=True, use_qkv_bias=True),
                       t.StableLmForCausalLM, 2,
                       "GQA 4/2, LayerNorm per head on q and k, rotary on "
                       "half the channels")
    out["phi"] = (t.PhiConfig(**common, intermediate_size=FFN,
                              partial_rotary_factor=0.5),
                  t.PhiForCausalLM, HEADS,
                  "MHA, rotary on half the channels, parallel MLP")
    out["gptj"] = (t.GPTJConfig(vocab_size=VOCAB, n_embd=HIDDEN, n_layer=LAYERS,
                                n_head=HEADS, n_positions=64, rotary_dim=8,
                                n_inner=FFN, bos_token_id=1, eos_token_id=2),
                   t.GPTJForCausalLM, HEADS,
                   "MHA, interleaved rotary on 8 of 16 channels")
    out["codegen"] = (t.CodeGenConfig(vocab_size=VOCAB, n_embd=HIDDEN,
                                      n_layer=LAYERS, n_head=HEADS,
                                      n_positions=64, n_ctx=64, rotary_dim=8,
                                      n_inner=FFN, bos_token_id=1,
                                      eos_token_id=2),
                      t.CodeGenForCausalLM, HEADS,
                      "MHA, qkv in mp_num interleaved blocks, interleaved "
                      "rotary")
    out["bigcode"] = (t.GPTBigCodeConfig(vocab_size=VOCAB, n_embd=HIDDEN,
                                         n_layer=LAYERS, n_head=HEADS,
                                         n_positions=64, n_inner=FFN,
                                         multi_query=True, bos_token_id=1,
                                         eos_token_id=2),
                      t.GPTBigCodeForCausalLM, 1, "MQA, learned positions")
    out["starcoder2"] = (t.Starcoder2Config(**common, intermediate_size=FFN,
                                            num_key_value_heads=2,
                                            sliding_window=4),
                         t.Starcoder2ForCausalLM, 2,
                         "GQA 4/2, biases, sliding window 4, LayerNorm")
    out["cohere"] = (t.CohereConfig(**common, intermediate_size=FFN,
                                    num_key_value_heads=2, logit_scale=0.5),
                     t.CohereForCausalLM, 2,
                     "GQA 4/2, interleaved rotary, parallel block")
    out["granite"] = (t.GraniteConfig(**common, intermediate_size=FFN,
                                      num_key_value_heads=2,
                                      attention_multiplier=0.2,
                                      embedding_multiplier=2.0,
                                      residual_multiplier=0.5,
                                      logits_scaling=4.0),
                      t.GraniteForCausalLM, 2,
                      "GQA 4/2, attention multiplier 0.2 for the scale")
    out["nemotron"] = (t.NemotronConfig(**common, intermediate_size=FFN,
                                        num_key_value_heads=2,
                                        partial_rotary_factor=0.5),
                       t.NemotronForCausalLM, 2,
                       "GQA 4/2, rotary on half the channels, (1 + w) "
                       "LayerNorm")
    out["glm"] = (t.GlmConfig(**common, intermediate_size=FFN,
                              num_key_value_heads=2, head_dim=HEAD_DIM,
                              partial_rotary_factor=0.5),
                  t.GlmForCausalLM, 2,
                  "GQA 4/2, interleaved rotary on half the channels")
    out["persimmon"] = (t.PersimmonConfig(**common, intermediate_size=FFN,
                                          partial_rotary_factor=0.5,
                                          qk_layernorm=True),
                        t.PersimmonForCausalLM, HEADS,
                        "MHA, fused qkv per head, LayerNorm on q and k")
    out["gptneo"] = (t.GPTNeoConfig(vocab_size=VOCAB, hidden_size=HIDDEN,
                                    num_layers=LAYERS, num_heads=HEADS,
                                    attention_types=[[["global", "local"], 1]],
                                    window_size=4, intermediate_size=FFN,
                                    max_position_embeddings=64,
                                    bos_token_id=1, eos_token_id=2),
                     t.GPTNeoForCausalLM, HEADS,
                     "MHA, unscaled scores, local window 4 on layer 2")
    out["xglm"] = (t.XGLMConfig(vocab_size=VOCAB, d_model=HIDDEN,
                                num_layers=LAYERS, attention_heads=HEADS,
                                ffn_dim=FFN, max_position_embeddings=64,
                                bos_token_id=1, eos_token_id=2,
                                pad_token_id=0),
                   t.XGLMForCausalLM, HEADS,
                   "MHA, sinusoidal positions, q scaled before the product")
    out["mpt"] = (t.MptConfig(vocab_size=VOCAB, d_model=HIDDEN, n_heads=HEADS,
                              n_layers=LAYERS, max_seq_len=64,
                              expansion_ratio=1),
                  t.MptForCausalLM, HEADS, "MHA, ALiBi, fused Wqkv")
    out["smollm3"] = (t.SmolLM3Config(**common, intermediate_size=FFN,
                                      num_key_value_heads=2,
                                      no_rope_layers=[1, 0]),
                      t.SmolLM3ForCausalLM, 2,
                      "GQA 4/2, no RoPE on the second layer")
    out["deepseekv3"] = (t.DeepseekV3Config(**common, intermediate_size=FFN,
                                            moe_intermediate_size=32,
                                            num_key_value_heads=HEADS,
                                            n_routed_experts=4,
                                            num_experts_per_tok=2,
                                            n_group=1, topk_group=1,
                                            first_k_dense_replace=2,
                                            q_lora_rank=32, kv_lora_rank=16,
                                            qk_rope_head_dim=8,
                                            qk_nope_head_dim=16,
                                            v_head_dim=16),
                         t.DeepseekV3ForCausalLM, HEADS,
                         "MLA: keys of 16 + 8 rotary channels, values of 16")
    # Encoders (ENCODERS: prefill only), their masked-LM heads as logits.
    enc = dict(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
               num_attention_heads=HEADS, intermediate_size=FFN,
               max_position_embeddings=64)
    out["bert"] = (t.BertConfig(**enc), t.BertForMaskedLM, HEADS,
                   "encoder, padding mask of (1 - m) * finfo.min")
    out["roberta"] = (t.RobertaConfig(**enc, pad_token_id=1),
                      t.RobertaForMaskedLM, HEADS,
                      "encoder, positions from a cumsum of the tokens")
    out["distilbert"] = (t.DistilBertConfig(vocab_size=VOCAB, dim=HIDDEN,
                                            n_layers=LAYERS, n_heads=HEADS,
                                            hidden_dim=FFN,
                                            max_position_embeddings=64),
                         t.DistilBertForMaskedLM, HEADS,
                         "encoder, q scaled first, masked_fill")
    out["albert"] = (t.AlbertConfig(**enc, embedding_size=32),
                     t.AlbertForMaskedLM, HEADS,
                     "encoder, one layer's weights shared")
    out["electra"] = (t.ElectraConfig(**enc, embedding_size=32),
                      t.ElectraForMaskedLM, HEADS, "encoder")
    out["debertav2"] = (t.DebertaV2Config(**enc, relative_attention=True,
                                          pos_att_type=["p2c", "c2p"],
                                          max_relative_positions=16,
                                          position_buckets=8),
                        t.DebertaV2ForMaskedLM, HEADS,
                        "encoder, disentangled relative positions")
    out["mpnet"] = (t.MPNetConfig(**enc), t.MPNetForMaskedLM, HEADS,
                    "encoder, relative position buckets")
    out["modernbert"] = (t.ModernBertConfig(**enc, global_attn_every_n_layers=2,
                                            local_attention=4,
                                            pad_token_id=0),
                         t.ModernBertForMaskedLM, HEADS,
                         "encoder, RoPE, a local layer of window 4 "
                         "(two-sided)")
    out["roformer"] = (t.RoFormerConfig(**enc, embedding_size=HIDDEN),
                       t.RoFormerForMaskedLM, HEADS,
                       "encoder, interleaved rotary")
    out["esm"] = (t.EsmConfig(**enc, pad_token_id=1, mask_token_id=2,
                              position_embedding_type="rotary"),
                  t.EsmForMaskedLM, HEADS, "encoder, rotary, q scaled first")
    # Encoder-decoders (prefill only, ENCODERS): each layer count is an
    # encoder's and a decoder's, so 3 attentions a layer (manifest layers).
    s2s = dict(vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=LAYERS,
               decoder_layers=LAYERS, encoder_attention_heads=HEADS,
               decoder_attention_heads=HEADS, encoder_ffn_dim=FFN,
               decoder_ffn_dim=FFN, max_position_embeddings=64,
               pad_token_id=0, bos_token_id=1, eos_token_id=2,
               decoder_start_token_id=1)
    out["t5"] = (t.T5Config(vocab_size=VOCAB, d_model=HIDDEN, d_kv=HEAD_DIM,
                            d_ff=FFN, num_layers=LAYERS, num_heads=HEADS,
                            relative_attention_num_buckets=8,
                            relative_attention_max_distance=16,
                            pad_token_id=0, eos_token_id=2,
                            decoder_start_token_id=0),
                 t.T5ForConditionalGeneration, HEADS,
                 "encoder-decoder, relative position buckets, no scale")
    out["bart"] = (t.BartConfig(**s2s), t.BartForConditionalGeneration, HEADS,
                   "encoder-decoder, q scaled first")
    out["marian"] = (t.MarianConfig(**s2s), t.MarianMTModel, HEADS,
                     "encoder-decoder, sinusoidal positions")
    out["pegasus"] = (t.PegasusConfig(**s2s), t.PegasusForConditionalGeneration,
                      HEADS, "encoder-decoder, pre-norm")
    out["m2m100"] = (t.M2M100Config(**s2s), t.M2M100ForConditionalGeneration,
                     HEADS, "encoder-decoder, sinusoidal positions")
    return out


ENCODERS = {"bert", "roberta", "distilbert", "albert", "electra", "debertav2",
            "mpnet", "modernbert", "roformer", "esm", "t5", "bart", "marian",
            "pegasus", "m2m100"}


def redraw(model):
    """Seeded weights at a scale where the scores are O(1): matrices
    N(0, 1/fan_in), norm gains 1 + N(0, 0.1) (Gemma's stored offsets
    N(0, 0.1)), biases N(0, 0.1)."""
    gen = torch.Generator().manual_seed(1234)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                fan_in = p.shape[0] if "c_attn" in name or "c_proj" in name \
                    or "c_fc" in name else p.shape[-1]
                p.copy_(torch.randn(p.shape, generator=gen) / math.sqrt(fan_in))
            elif "norm" in name.lower() or "ln" in name:
                base = 0.0 if isinstance(model, (transformers.GemmaForCausalLM,
                                                 transformers.Gemma2ForCausalLM)) else 1.0
                if name.endswith("bias"):
                    base = 0.0
                p.copy_(base + 0.1 * torch.randn(p.shape, generator=gen))
            else:
                p.copy_(0.1 * torch.randn(p.shape, generator=gen))


# Each wrapper is put in eval mode: the exporter restores the mode of the
# module it is given, recursively, and a wrapper left in training mode would
# switch dropout on in the model for every run after its export.


class Prefill(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        if self.model.config.is_encoder_decoder:
            # The tokens decoded against themselves: the encoder's
            # self-attention under the padding mask, the decoder's causal
            # self-attention and its cross-attention to the encoder.
            return self.model(input_ids=input_ids,
                              attention_mask=attention_mask,
                              decoder_input_ids=input_ids,
                              decoder_attention_mask=attention_mask,
                              use_cache=False).logits
        return self.model(input_ids=input_ids, attention_mask=attention_mask,
                          use_cache=False).logits


class Decode(torch.nn.Module):
    """Flat past tensors in, logits and flat present tensors out."""

    def __init__(self, model, layers, positions, cache_position):
        super().__init__()
        self.model = model
        self.layers = layers
        self.positions = positions
        self.cache_position = cache_position
        params = inspect.signature(model.forward).parameters
        self.cache_arg = "cache" if "cache" in params else "past_key_values"

    def forward(self, input_ids, attention_mask, *rest):
        rest = list(rest)
        kwargs = {}
        if self.positions:
            kwargs["position_ids"] = rest.pop(0)
        if self.cache_position:
            kwargs["cache_position"] = rest.pop(0)
        # A cache without the config keeps every layer whole (no sliding
        # window layer that crops), so present is past + new rows.
        cache = DynamicCache()
        for i in range(self.layers):
            cache.update(rest[2 * i], rest[2 * i + 1], i)
        kwargs[self.cache_arg] = cache
        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         use_cache=True, **kwargs)
        cache = getattr(out, "cache", None) or out.past_key_values
        presents = []
        for layer in cache.layers:
            presents += [layer.keys, layer.values]
        return (out.logits, *presents)


def export(module, args, names, outputs, dynamic, path, exporter, opset):
    if exporter == "torchscript":
        torch.onnx.export(module, args, path, input_names=names,
                          output_names=outputs, dynamic_axes=dynamic,
                          opset_version=opset, dynamo=False)
        return
    # torch.export takes the dims per argument (the decode module's past
    # tensors are one varargs tuple); `total` is past + seq, which it
    # derives itself.
    dims = {}

    def spec(name):
        out = {}
        for axis, dim in dynamic[name].items():
            if dim == "total":
                out[axis] = torch.export.Dim.AUTO
            else:
                out[axis] = dims.setdefault(dim, torch.export.Dim(dim))
        return out

    specs = [spec(n) for n in names]
    shapes = (specs[0], specs[1], tuple(specs[2:])) if len(specs) > 2 \
        else tuple(specs)
    torch.onnx.export(module, args, path, input_names=names,
                      output_names=outputs, dynamic_shapes=shapes,
                      opset_version=opset, dynamo=True,
                      external_data=False, optimize=True, verbose=False)


def tidy(model, dynamic):
    """Names the graph's symbolic dims as `dynamic` does (the dynamo
    exporter names derived ones `s53` or `past + seq`) and drops doc
    strings and per-node metadata."""
    rename = {}
    for v in list(model.graph.input) + list(model.graph.output):
        for axis, dim in enumerate(v.type.tensor_type.shape.dim):
            want = dynamic.get(v.name, {}).get(axis)
            if want and dim.dim_param and dim.dim_param != want:
                rename.setdefault(dim.dim_param, want)
    values = list(model.graph.input) + list(model.graph.output) + \
        list(model.graph.value_info)
    for v in values:
        v.ClearField("doc_string")
        del v.metadata_props[:]
        for dim in v.type.tensor_type.shape.dim:
            if dim.dim_param in rename:
                dim.dim_param = rename[dim.dim_param]
    for n in model.graph.node:
        n.ClearField("doc_string")
        del n.metadata_props[:]
    model.ClearField("doc_string")
    model.graph.ClearField("doc_string")
    del model.metadata_props[:]
    del model.graph.metadata_props[:]


def ort_run(model, feeds):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def verify(model, module, cases):
    """ONNX Runtime against PyTorch at shapes other than the traced ones;
    returns the worst error relative to each output's scale."""
    worst = 0.0
    for feeds in cases:
        with torch.no_grad():
            want = module(*[torch.from_numpy(v) for v in feeds.values()])
        if isinstance(want, torch.Tensor):
            want = (want,)
        got = ort_run(model, feeds)
        if len(got) != len(want):
            raise RuntimeError(f"{len(got)} outputs, PyTorch has {len(want)}")
        for g, w in zip(got, want):
            w = w.numpy()
            if g.shape != w.shape:
                raise RuntimeError(f"output shape {g.shape}, PyTorch {w.shape}")
            err = float(np.max(np.abs(g - w))) / max(float(np.max(np.abs(w))), 1e-30)
            worst = max(worst, err)
    if worst > 1e-4:
        raise RuntimeError(f"ONNX Runtime differs from PyTorch by {worst:.3g} "
                           "of the output's scale")
    return worst


def decode_inputs(rng, batch, seq, past, positions, cache_position, kv_heads,
                  head_dim):
    feeds = {"input_ids": rng.integers(0, VOCAB, (batch, seq)).astype(np.int64),
             "attention_mask": np.ones((batch, past + seq), np.int64)}
    if positions:
        feeds["position_ids"] = np.broadcast_to(
            past + np.arange(seq), (batch, seq)).astype(np.int64).copy()
    if cache_position:
        feeds["cache_position"] = (past + np.arange(seq)).astype(np.int64)
    for i in range(LAYERS):
        for kv in ("key", "value"):
            feeds[f"past_key_values.{i}.{kv}"] = rng.standard_normal(
                (batch, kv_heads, past, head_dim)).astype(np.float32)
    return feeds


def externalize(models, family, out):
    """Writes the family's large initializers once into `<family>.data` and
    points every model at them (location, offset, length)."""
    data_name = f"{family}.data"
    blobs, offsets, size = [], {}, 0
    for model in models.values():
        for tp in model.graph.initializer:
            raw = numpy_helper.to_array(tp).tobytes()
            if len(raw) < EXTERNAL_MIN_BYTES:
                continue
            key = (tp.data_type, tuple(tp.dims), hashlib.sha256(raw).hexdigest())
            if key not in offsets:
                pad = (-size) % 64
                blobs.append(b"\0" * pad)
                size += pad
                offsets[key] = (size, len(raw))
                blobs.append(raw)
                size += len(raw)
            offset, length = offsets[key]
            tp.ClearField("raw_data")
            for field in ("float_data", "int32_data", "int64_data",
                          "double_data", "uint64_data"):
                tp.ClearField(field)
            del tp.external_data[:]
            for k, v in (("location", data_name), ("offset", str(offset)),
                         ("length", str(length))):
                entry = tp.external_data.add()
                entry.key, entry.value = k, v
            tp.data_location = onnx.TensorProto.EXTERNAL
    with open(os.path.join(out, data_name), "wb") as f:
        f.write(b"".join(blobs))
    for file, model in models.items():
        onnx.save(model, os.path.join(out, file))
    return data_name


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus"))
    parser.add_argument("--exporter", default="both",
                        choices=["torchscript", "dynamo", "both"])
    parser.add_argument("families", nargs="*")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    exporters = (["torchscript", "dynamo"] if args.exporter == "both"
                 else [args.exporter])
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = {e["file"]: e for e in json.load(f)}
    fams = families()
    failed = []
    for name in args.families or list(fams):
        config, cls, kv_heads, note = fams[name]
        config._attn_implementation = "eager"
        torch.manual_seed(1234)
        model = cls(config).eval()
        redraw(model)
        head_dim = getattr(config, "head_dim", None) or HIDDEN // HEADS
        params = inspect.signature(model.forward).parameters
        # BLOOM's positions are ALiBi's, from the mask; OPT's learned
        # positions take position_ids when given.
        positions = "position_ids" in params and name != "bloom"
        cache_position = "cache_position" in params
        rng = np.random.default_rng(1234)
        # Traced at batch 2 (a dim of 1 is specialised by torch.export).
        B, S, P, SD = 2, 3, 5, 2
        written = {}
        entries = {}
        for exporter in exporters:
            opset = 17 if exporter == "torchscript" else 18
            # prefill
            file = f"{name}_{exporter}_prefill.onnx"
            path = os.path.join(args.out, file)
            dyn = {"input_ids": {0: "batch", 1: "seq"},
                   "attention_mask": {0: "batch", 1: "seq"},
                   "logits": {0: "batch", 1: "seq"}}
            try:
                module = Prefill(model).eval()
                ids = torch.from_numpy(rng.integers(0, VOCAB, (B, S)))
                with torch.no_grad():
                    export(module, (ids, torch.ones(B, S, dtype=torch.int64)),
                           ["input_ids", "attention_mask"], ["logits"], dyn,
                           path, exporter, opset)
                proto = onnx.load(path)
                os.remove(path)
                tidy(proto, dyn)
                err = verify(proto, module, [
                    {"input_ids": rng.integers(0, VOCAB, (b, s)).astype(np.int64),
                     "attention_mask": np.ones((b, s), np.int64)}
                    for b, s in ((1, 6), (3, 2))])
                written[file] = proto
                # An encoder-decoder layer has three attentions (the
                # encoder's, the decoder's self and cross attention).
                attentions = 3 * LAYERS if config.is_encoder_decoder \
                    else LAYERS
                entries[file] = dict(file=file, family=name, exporter=exporter,
                                     phase="prefill", note=note,
                                     layers=attentions, kv_heads=kv_heads,
                                     head_dim=head_dim)
                print(f"exported {file} (ONNX Runtime vs PyTorch {err:.2g})")
            except Exception as e:  # noqa: BLE001 - reported, not fatal
                failed.append(file)
                print(f"FAILED {file}: {type(e).__name__}: {str(e)[:400]}")
            if name in ENCODERS:
                continue
            # decode
            file = f"{name}_{exporter}_decode.onnx"
            path = os.path.join(args.out, file)
            example = decode_inputs(rng, B, SD, P, positions, cache_position,
                                    kv_heads, head_dim)
            names = list(example)
            dyn = {"input_ids": {0: "batch", 1: "seq"},
                   "attention_mask": {0: "batch", 1: "total"},
                   "logits": {0: "batch", 1: "seq"}}
            if positions:
                dyn["position_ids"] = {0: "batch", 1: "seq"}
            if cache_position:
                dyn["cache_position"] = {0: "seq"}
            outputs = ["logits"]
            for i in range(LAYERS):
                for kv in ("key", "value"):
                    dyn[f"past_key_values.{i}.{kv}"] = {0: "batch", 2: "past"}
                    outputs.append(f"present.{i}.{kv}")
                    dyn[outputs[-1]] = {0: "batch", 2: "total"}
            try:
                module = Decode(model, LAYERS, positions, cache_position).eval()
                with torch.no_grad():
                    export(module, tuple(torch.from_numpy(v) for v in example.values()),
                           names, outputs, dyn, path, exporter, opset)
                proto = onnx.load(path)
                os.remove(path)
                tidy(proto, dyn)
                err = verify(proto, module, [
                    decode_inputs(rng, b, s, p, positions, cache_position,
                                  kv_heads, head_dim)
                    for b, s, p in ((1, 1, 4), (3, 1, 7), (2, 3, 6))])
                written[file] = proto
                entries[file] = dict(file=file, family=name, exporter=exporter,
                                     phase="decode", note=note,
                                     layers=LAYERS, kv_heads=kv_heads,
                                     head_dim=head_dim)
                print(f"exported {file} (ONNX Runtime vs PyTorch {err:.2g})")
            except Exception as e:  # noqa: BLE001
                failed.append(file)
                print(f"FAILED {file}: {type(e).__name__}: {str(e)[:400]}")
        # A family is written whole (its data file holds only what this
        # run exported): its files from an earlier run go.
        for file in [f for f, e in manifest.items() if e["family"] == name]:
            del manifest[file]
            if file not in written and os.path.exists(os.path.join(args.out, file)):
                os.remove(os.path.join(args.out, file))
        if written:
            data = externalize(written, name, args.out)
            versions = {"torch": torch.__version__.split("+")[0],
                        "transformers": transformers.__version__,
                        "onnx": onnx.__version__}
            for file, entry in entries.items():
                entry["data"] = data
                entry["exported_with"] = versions
                manifest[file] = entry
    with open(manifest_path, "w") as f:
        json.dump(sorted(manifest.values(), key=lambda e: e["file"]), f,
                  indent=1)
        f.write("\n")
    if failed:
        print(f"export_hf: not exported: {' '.join(failed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
