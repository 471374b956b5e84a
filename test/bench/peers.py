"""Decode attention peers on one GPU: PyTorch SDPA with each backend forced
(flash, cuDNN, efficient; enable_gqa) and FlexAttention, timed with CUDA
events over L2-flushed runs (median of >= 20), on the shapes given.

    python3 peers.py SHAPES.json OUT.json

SHAPES.json: a list of {"name", "b", "hq", "hkv", "lk", "d", "dtype"} and,
for prefill, "lq" (query rows, default 1) and "causal" (default false).
Writes one record per (shape, peer): median microseconds, GB/s counting K
and V read once plus q and o, and TFLOP/s counting 4 B Hq Lq Lk D (halved
when causal). Prints a line per record.
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
        lq, causal = s.get("lq", 1), bool(s.get("causal", False))
        torch.manual_seed(0)
        q = torch.randn(b, hq, lq, d, device="cuda", dtype=dtype)
        k = torch.randn(b, hkv, lk, d, device="cuda", dtype=dtype)
        v = torch.randn(b, hkv, lk, d, device="cuda", dtype=dtype)
        elem = q.element_size()
        nbytes = (2 * b * hkv * lk * d + 2 * b * hq * lq * d) * elem
        flops = 4 * b * hq * lq * lk * d / (2 if causal else 1)
        # The f32 reference where its scores fit comfortably (<= 2 GiB).
        ref = None
        if b * hq * lq * lk * 4 <= (2 << 30):
            ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                 is_causal=causal, enable_gqa=True)

        def record(name, fn):
            try:
                out = fn()
                err = ((out.float() - ref).norm() / ref.norm()).item() if ref is not None else None
                us = timed(fn)
                return {"shape": s["name"], "peer": name, "us": us,
                        "gbps": nbytes / us / 1e3, "tflops": flops / us / 1e6, "rel_err": err}
            except Exception as e:
                return {"shape": s["name"], "peer": name, "error": str(e).splitlines()[0][:120]}

        peers = {
            "sdpa-flash": SDPBackend.FLASH_ATTENTION,
            "sdpa-cudnn": SDPBackend.CUDNN_ATTENTION,
            "sdpa-efficient": SDPBackend.EFFICIENT_ATTENTION,
        }
        for name, backend in peers.items():
            # The backend is forced around the timing, not inside it.
            with sdpa_kernel([backend]):
                rec = record(name, lambda: F.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, enable_gqa=True))
            records.append(rec)
            print(json.dumps(rec), flush=True)
        if flex is not None:
            def causal_mod(score, bi, h, qi, ki):
                return torch.where(qi >= ki, score, -float("inf"))
            mod = causal_mod if causal else None
            rec = record("flex", lambda: flex(q, k, v, score_mod=mod, enable_gqa=True))
            records.append(rec)
            print(json.dumps(rec), flush=True)
        del q, k, v, ref
        torch.cuda.empty_cache()
    json.dump(records, open(sys.argv[2], "w"), indent=1)


if __name__ == "__main__":
    main()
