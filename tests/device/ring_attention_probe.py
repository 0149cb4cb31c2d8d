"""What splitting attention into ring steps costs on one GPU: the attention
of one context-parallel rank (its s/cp queries against all s keys) run as
one call, against the same work as cp calls of s/cp keys each, as ring
attention runs it (Transformer Engine's and PyTorch's context parallel
pass one block of keys a step). trainplan charges each ring step one
kernel launch (system.gpu.kernel_latency_us); this measures what a step
adds on top of its FLOPs.

Run by hand on a machine with a GPU and PyTorch (never in CI):
    python3 tests/device/ring_attention_probe.py OUT.json
bf16, head size 128, grouped key/value heads as Llama-3.1-8B's (32/8, and
8/2 as over tp 4), non-causal blocks (the off-diagonal steps), forward and
forward+backward; CUDA-event medians of 10 calls after 3 warm-up calls.
"""
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cuda_timing import median_ms, run_or_refuse

D = 128


def measure(seq, cp, heads, kv_heads, backend):
    local = seq // cp
    q = torch.randn(1, heads, local, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(1, kv_heads, seq, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(1, kv_heads, seq, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    grad = torch.randn(1, heads, local, D, device="cuda", dtype=torch.bfloat16)
    blocks_k = [k[:, :, i * local:(i + 1) * local].detach().clone().requires_grad_() for i in range(cp)]
    blocks_v = [v[:, :, i * local:(i + 1) * local].detach().clone().requires_grad_() for i in range(cp)]

    def attend(kk, vv):
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, kk, vv, enable_gqa=True)

    def calls(blocks, backward):
        """The attention over each (keys, values) block in turn."""
        def run():
            for kk, vv in blocks:
                if backward:
                    attend(kk, vv).backward(grad)
                else:
                    with torch.no_grad():
                        attend(kk, vv)
        return run

    flop = 4.0 * heads * local * seq * D
    row = dict(seq=seq, cp=cp, heads=heads, kv_heads=kv_heads, backend=str(backend))
    for name, backward in (("forward", False), ("forward_backward", True)):
        whole = median_ms(calls([(k, v)], backward))
        split = median_ms(calls(list(zip(blocks_k, blocks_v)), backward))
        work = flop * (3.5 if backward else 1.0)
        row[name] = dict(one_call_ms=whole, ring_calls_ms=split,
                         added_per_step_us=(split - whole) / (cp - 1) * 1e3,
                         one_call_tflops=work / whole / 1e9, ring_tflops=work / split / 1e9)
    return row


def main():
    report = dict(device=torch.cuda.get_device_name(), torch=torch.__version__, runs=[], refused=[])
    for backend in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION):
        for seq, cp in ((8192, 2), (8192, 4), (8192, 8), (32768, 4), (32768, 8), (131072, 16)):
            for heads, kv_heads in ((32, 8), (8, 2)):
                row = run_or_refuse(report, dict(seq=seq, cp=cp, backend=str(backend)),
                                    lambda: measure(seq, cp, heads, kv_heads, backend))
                if row:
                    fb = row["forward_backward"]
                    print(f"{backend} s {seq:6d} cp {cp:2d} heads {heads:2d}: one call {fb['one_call_ms']:7.3f} ms, "
                          f"{cp} calls {fb['ring_calls_ms']:7.3f} ms, +{fb['added_per_step_us']:6.1f} us a step "
                          f"({fb['one_call_tflops']:.0f} -> {fb['ring_tflops']:.0f} TFLOP/s)", flush=True)
        with open(sys.argv[1], "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
