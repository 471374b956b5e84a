"""Decode attention peers on one GPU: PyTorch SDPA with each backend forced
(flash, cuDNN, efficient; enable_gqa) and FlexAttention, timed with CUDA
events over L2-flushed runs (median of >= 20), on the shapes given.

    python3 peers.py SHAPES.json OUT.json

SHAPES.json: a list of {"name", "b", "hq", "hkv", "lk", "d", "dtype"}.
Writes one record per (shape, peer): median microseconds and GB/s counting
K and V read once plus q and o. Prints a line per record.
"""
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

FLUSH = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")


def timed(fn, iters=30, warmup=5):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        FLUSH.zero_()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    times.sort()
    return times[len(times) // 2]


def main():
    shapes = json.load(open(sys.argv[1]))
    records = []
    flex = None
    try:
        from torch.nn.attention.flex_attention import flex_attention
        flex = torch.compile(flex_attention)
    except Exception as e:  # FlexAttention is optional
        print("flex_attention unavailable:", e)
    for s in shapes:
        dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[s["dtype"]]
        b, hq, hkv, lk, d = s["b"], s["hq"], s["hkv"], s["lk"], s["d"]
        torch.manual_seed(0)
        q = torch.randn(b, hq, 1, d, device="cuda", dtype=dtype)
        k = torch.randn(b, hkv, lk, d, device="cuda", dtype=dtype)
        v = torch.randn(b, hkv, lk, d, device="cuda", dtype=dtype)
        elem = q.element_size()
        nbytes = (2 * b * hkv * lk * d + 2 * b * hq * d) * elem
        ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), enable_gqa=True)
        peers = {
            "sdpa-flash": SDPBackend.FLASH_ATTENTION,
            "sdpa-cudnn": SDPBackend.CUDNN_ATTENTION,
            "sdpa-efficient": SDPBackend.EFFICIENT_ATTENTION,
        }
        for name, backend in peers.items():
            try:
                with sdpa_kernel([backend]):
                    out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
                    err = ((out.float() - ref).norm() / ref.norm()).item()
                    us = timed(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True))
                rec = {"shape": s["name"], "peer": name, "us": us, "gbps": nbytes / us / 1e3, "rel_err": err}
            except Exception as e:
                rec = {"shape": s["name"], "peer": name, "error": str(e).splitlines()[0][:120]}
            records.append(rec)
            print(json.dumps(rec), flush=True)
        if flex is not None:
            try:
                out = flex(q, k, v, enable_gqa=True)
                err = ((out.float() - ref).norm() / ref.norm()).item()
                us = timed(lambda: flex(q, k, v, enable_gqa=True))
                rec = {"shape": s["name"], "peer": "flex", "us": us, "gbps": nbytes / us / 1e3, "rel_err": err}
            except Exception as e:
                rec = {"shape": s["name"], "peer": "flex", "error": str(e).splitlines()[0][:120]}
            records.append(rec)
            print(json.dumps(rec), flush=True)
        del q, k, v, ref
        torch.cuda.empty_cache()
    json.dump(records, open(sys.argv[2], "w"), indent=1)


if __name__ == "__main__":
    main()
