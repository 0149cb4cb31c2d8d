"""Times causal attention alone on one GPU, forward and forward+backward, for
the sequence lengths and per-GPU head counts of the Llama-3.1-8B runs of
Fujii et al. 2024 (8K to 32K tokens; 32 query and 8 key/value heads over tp 1,
2 or 4), to see whether attention's efficiency depends on the sequence length
(the paper's Table 11, at 32K tokens, runs slower per FLOP than its Table 10
at 16K).

Run by hand on a machine with a GPU and PyTorch (never in CI):
    python3 tests/device/attention_probe.py OUT.json

Each shape runs under each of PyTorch's fused attention back ends that
accepts it (cuDNN, FlashAttention, memory-efficient), bf16, head size 128,
grouped key/value heads (enable_gqa), one sample. Times are CUDA-event
medians of 10 calls after 3 warm-up calls. FLOPs count the causal half:
forward 2 matmuls of 2 s^2 d per head, halved; backward 2.5 times the
forward (FlashAttention's five matmuls against two).
"""
import json
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from cuda_timing import median_ms, run_or_refuse

HEAD_DIM = 128
SEQS = [4096, 8192, 16384, 32768, 65536]
HEADS = [(32, 8), (16, 4), (8, 2)]  # Llama-3.1-8B over tp 1, 2, 4
BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def measure(seq, heads, kv_heads, backend):
    q = torch.randn(1, heads, seq, HEAD_DIM, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(1, kv_heads, seq, HEAD_DIM, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(1, kv_heads, seq, HEAD_DIM, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    grad = torch.randn(1, heads, seq, HEAD_DIM, device="cuda", dtype=torch.bfloat16)

    def forward():
        with torch.no_grad(), sdpa_kernel(BACKENDS[backend]):
            F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)

    def forward_backward():
        with sdpa_kernel(BACKENDS[backend]):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        out.backward(grad)
        q.grad = k.grad = v.grad = None

    forward_flop = 4 * heads * seq * seq * HEAD_DIM / 2
    fwd_ms = median_ms(forward)
    fwd_bwd_ms = median_ms(forward_backward)
    return dict(seq=seq, heads=heads, kv_heads=kv_heads, backend=backend,
                forward_ms=fwd_ms, forward_backward_ms=fwd_bwd_ms,
                forward_tflops=forward_flop / fwd_ms / 1e9,
                forward_backward_tflops=3.5 * forward_flop / fwd_bwd_ms / 1e9)


def main():
    props = torch.cuda.get_device_properties(0)
    report = dict(device=props.name, torch=torch.__version__, cuda=torch.version.cuda,
                  cudnn=torch.backends.cudnn.version(), head_dim=HEAD_DIM, runs=[], refused=[])
    for seq in SEQS:
        for heads, kv_heads in HEADS:
            for backend in BACKENDS:
                row = run_or_refuse(report, dict(seq=seq, heads=heads, backend=backend),
                                    lambda: measure(seq, heads, kv_heads, backend))
                if row:
                    print(f"s {seq:6d} heads {heads:2d}/{kv_heads} {backend:9s} fwd {row['forward_tflops']:6.1f} "
                          f"fwd+bwd {row['forward_backward_tflops']:6.1f} TFLOP/s", flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
