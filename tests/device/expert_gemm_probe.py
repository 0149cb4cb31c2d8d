"""Measures on one Hopper GPU how fast a MoE layer's routed experts
multiply, against one dense GEMM of the same shape and total work, so that
trainplan's rate for them is a measured fact rather than the dense rate.

For the expert shapes of the MoE models in tests/validation/runs/ (Qwen3
30B-A3B, Qwen3 235B-A22B, DeepSeek-V3: hidden size h, expert width f, a
gated W1 of h x 2f and a W2 of f x h), LOCAL_EXPERTS experts on the GPU and
t tokens routed to each, every product of the two matrices (forward, input
gradient, weight gradient) is timed:

- loop:    one cuBLAS GEMM per expert (Transformer Engine's GroupedLinear,
           Megatron-Core's default), captured in a CUDA graph so that the
           time is the GPU's, not the host's launches;
- eager:   the same loop launched from Python, as an eager trainer runs it;
- grouped: torch._grouped_mm, one kernel for all experts (torchtitan's
           grouped experts), where this PyTorch takes the shape;
- fp8:     the loop as per-tensor scaled fp8 GEMMs (torch._scaled_mm),
           forward with fast accumulation, gradients without, as
           Transformer Engine runs them;
- dense:   one GEMM of t x LOCAL_EXPERTS tokens through one expert's
           matrix: the same FLOPs, as a dense layer would run them;
           in bf16 and in fp8 (the same accumulation per product).

Run by hand on a machine with a GPU and PyTorch (never in CI):
    python3 tests/device/expert_gemm_probe.py OUT.json
Times are CUDA-event medians over batches of back-to-back calls
(fp8_probe.batch_ms). OUT.json is written after each model.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fp8_probe import batch_ms, fp8_operands, write  # noqa: E402

LOCAL_EXPERTS = 8
# (model, hidden, expert ffn width): Hugging Face config.json of each
MODELS = [("qwen3-30b-a3b", 2048, 768), ("qwen3-235b-a22b", 4096, 1536), ("deepseek-v3", 7168, 2048)]
TOKENS_PER_EXPERT = [256, 512, 1024, 2048, 4096, 8192, 16384]


def products(t, h, f):
    """(name, m, k, n, fast accumulation in fp8) of one expert's six
    products: W1 (h -> 2f) and W2 (f -> h), each forward, input gradient
    and weight gradient."""
    return [("w1_forward", t, h, 2 * f, True), ("w1_input_grad", t, 2 * f, h, False),
            ("w1_weight_grad", 2 * f, t, h, False), ("w2_forward", t, f, h, True),
            ("w2_input_grad", t, h, f, False), ("w2_weight_grad", h, t, f, False)]


def graphed(fn):
    """fn captured once in a CUDA graph; the replay, which launches all of
    its kernels without the host."""
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


def grouped_product(name, m, k, n, experts):
    """A callable running the product for all experts as one grouped
    kernel, or (None, why)."""
    if not hasattr(torch, "_grouped_mm"):
        return None, "this PyTorch has no torch._grouped_mm"
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    try:
        if name.endswith("weight_grad"):
            # dW_e = dY_e^T X_e: the tokens (k here) split among the experts
            a = torch.randn(m, k * experts, **bf16)
            b = torch.randn(n, k * experts, **bf16).t()
            offs = torch.arange(k, k * experts + 1, k, device="cuda", dtype=torch.int32)
        else:
            a = torch.randn(m * experts, k, **bf16)
            b = torch.randn(experts, n, k, **bf16).transpose(-2, -1)
            offs = torch.arange(m, m * experts + 1, m, device="cuda", dtype=torch.int32)

        def call():
            return torch._grouped_mm(a, b, offs=offs, out_dtype=torch.bfloat16)
        call()
        torch.cuda.synchronize()
        return call, None
    except (RuntimeError, TypeError, ValueError) as e:
        return None, str(e).splitlines()[0][:200]


def measure(report, path):
    one = torch.ones((), device="cuda", dtype=torch.float32)
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    for model, h, f in MODELS:
        for t in TOKENS_PER_EXPERT:
            for name, m, k, n, fast in products(t, h, f):
                flop = 2.0 * m * k * n * LOCAL_EXPERTS
                row = dict(model=model, tokens_per_expert=t, product=name, m=m, k=k, n=n,
                           experts=LOCAL_EXPERTS, flop=flop)
                xs = [torch.randn(m, k, **bf16) for _ in range(LOCAL_EXPERTS)]
                ws = [torch.randn(n, k, **bf16).t() for _ in range(LOCAL_EXPERTS)]

                def loop():
                    for x, w in zip(xs, ws):
                        torch.mm(x, w)
                row["eager_ms"] = batch_ms(loop, calls=5, batches=3)
                row["loop_ms"] = batch_ms(graphed(loop), calls=5, batches=3)
                # the dense product of the same FLOPs: all tokens through one matrix
                dm, dk = (m * LOCAL_EXPERTS, k) if not name.endswith("weight_grad") else (m, k * LOCAL_EXPERTS)
                xd = torch.randn(dm, dk, **bf16)
                wd = torch.randn(n, dk, **bf16).t()
                row["dense_ms"] = batch_ms(lambda: torch.mm(xd, wd), calls=5, batches=3)
                del xd, wd
                call, why = grouped_product(name, m, k, n, LOCAL_EXPERTS)
                if call is not None:
                    row["grouped_ms"] = batch_ms(call, calls=5, batches=3)
                else:
                    row["grouped_refused"] = why
                del xs, ws
                fps = [fp8_operands(m, k, n) for _ in range(LOCAL_EXPERTS)]

                def loop8():
                    for a, b in fps:
                        torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=fast)
                row["fp8_loop_ms"] = batch_ms(graphed(loop8), calls=5, batches=3)
                del fps
                a, b = fp8_operands(dm, dk, n)
                row["fp8_dense_ms"] = batch_ms(
                    lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=fast),
                    calls=5, batches=3)
                del a, b
                torch.cuda.empty_cache()
                report["runs"].append(row)
            summary = summarise([r for r in report["runs"] if r["model"] == model and r["tokens_per_expert"] == t])
            report["summary"].append(dict(model=model, tokens_per_expert=t, **summary))
            print(model, t, " ".join(f"{key} {value:.0f}" for key, value in summary.items()), flush=True)
        write(report, path)


def summarise(rows):
    """TFLOP/s of the six products together under each method."""
    flop = sum(r["flop"] for r in rows)
    out = {}
    for method in ("loop", "eager", "grouped", "dense", "fp8_loop", "fp8_dense"):
        key = method + "_ms"
        if all(key in r for r in rows):
            out[method + "_tflops"] = flop / sum(r[key] for r in rows) / 1e9
    return out


def main():
    path = sys.argv[1]
    props = torch.cuda.get_device_properties(0)
    report = dict(device=torch.cuda.get_device_name(0), sms=props.multi_processor_count,
                  torch=torch.__version__, cuda=torch.version.cuda, local_experts=LOCAL_EXPERTS,
                  runs=[], summary=[])
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    report["reference_8192_bf16_tflops"] = 2 * 8192 ** 3 / batch_ms(lambda: x @ x) / 1e9
    print(f"8192^3 bf16 {report['reference_8192_bf16_tflops']:.0f} TFLOP/s", flush=True)
    del x
    measure(report, path)
    write(report, path)


if __name__ == "__main__":
    main()
