"""Times one training step of a small Llama on one GPU and measures its peak
memory, for comparison with `trainplan estimate` (test_device_measured).

Run by hand on a machine with a GPU and PyTorch (never in CI):
    python3 tests/device/llama_step.py OUT.json [CASE ...]

Each case runs in its own process, so one case's allocator state, peak
counters and compiled graphs never reach the next. The training step is
the one trainplan models with its default precision (Megatron-LM's):

- bf16 working weights; an fp32 gradient buffer (`main_grad`) that every
  backward adds its bf16 gradient into, one parameter at a time, as
  Megatron's DDP does; fp32 master weights and fp32 AdamW moments
  (18 bytes per parameter);
- FlashAttention (PyTorch's scaled_dot_product_attention, causal, grouped
  key/value heads), RMSNorm, rotary positions, SwiGLU;
- loss: cross-entropy over the fp32 logits;
- `micro_batches` forward/backward passes, then one optimizer step.

`recompute: full` checkpoints each transformer layer (only its input is
kept), as trainplan's `training.recompute: "full"`. `compile: true` runs
each layer through torch.compile, as torchtitan does; false is eager.
`fp8: true` runs the layers' linear maps as fp8 GEMMs (torch._scaled_mm)
with per-tensor current scaling, as torchao's Float8Linear does by default:
each input, weight and output gradient cast from bf16 with its own amax
(e4m3 forward, e5m2 gradients), the weight gradient's operands transposed,
the forward with fast accumulation; the bf16 input is kept and cast again
in the backward (trainplan's fp8_recipe "tensorwise", fp8_activations
false). `fp8: "rowwise"` runs torchao's rowwise recipe instead: e4m3
throughout, power-of-two scales per row of each operand along the axis its
product contracts over, so the backward casts the output gradient twice
and the input and weight again along their other axis (trainplan's
fp8_recipe "rowwise"). The embedding, attention and LM head stay bf16.
"""
import json
import math
import subprocess
import sys
import time

# Llama-3.2-1B's shape (Hugging Face meta-llama/Llama-3.2-1B config.json)
LLAMA_1B = dict(layers=16, hidden=2048, heads=32, kv_heads=8, ffn=8192, vocab=128256, tied=True)
# Llama-3.1-8B's layer (hidden 4096, SwiGLU 14336, 32 heads, 8 key/value
# heads, untied 128,256 vocabulary), 8 layers instead of 32 to fit one GPU
LLAMA_8B_L8 = dict(layers=8, hidden=4096, heads=32, kv_heads=8, ffn=14336, vocab=128256, tied=False)
# What one GPU of eight computes of that layer under tensor parallelism
# (torchtitan's tp 8): a column-parallel eighth of the Q, K, V, W1 and W3
# products and a row-parallel eighth of W_O and W2, so 4 heads and 1
# key/value head of 128 and a 1,792-wide SwiGLU; the collectives are left out
LLAMA_8B_L8_TP8 = dict(LLAMA_8B_L8, heads=4, kv_heads=1, head_dim=128, ffn=1792)


def case(shape, micro_batch, seq=4096, recompute="none", compile=True, fp8=False):
    """A step: the shape, four micro-batches of micro_batch samples of seq tokens."""
    return dict(shape, micro_batch=micro_batch, seq=seq, micro_batches=4, recompute=recompute,
                compile=compile, fp8=fp8)


CASES = {
    "1b-b1": case(LLAMA_1B, 1),
    "1b-b2": case(LLAMA_1B, 2),
    "1b-b4": case(LLAMA_1B, 4),
    "1b-b4-full": case(LLAMA_1B, 4, recompute="full"),
    "1b-b4-eager": case(LLAMA_1B, 4, compile=False),
    "8b-l8-b1": case(LLAMA_8B_L8, 1),
    "8b-l8-b2-full": case(LLAMA_8B_L8, 2, recompute="full"),
    "8b-l8-b1-s8k": case(LLAMA_8B_L8, 1, seq=8192),
    "1b-b4-fp8": case(LLAMA_1B, 4, fp8=True),
    "8b-l8-b1-fp8": case(LLAMA_8B_L8, 1, fp8=True),
    "8b-l8-b2-full-fp8": case(LLAMA_8B_L8, 2, recompute="full", fp8=True),
    "8b-l8-b1-s8k-fp8": case(LLAMA_8B_L8, 1, seq=8192, fp8=True),
    "1b-b4-row": case(LLAMA_1B, 4, fp8="rowwise"),
    "8b-l8-b1-row": case(LLAMA_8B_L8, 1, fp8="rowwise"),
    "8b-l8-b1-s8k-row": case(LLAMA_8B_L8, 1, seq=8192, fp8="rowwise"),
    "8b-l8-tp8-b2-s8k": case(LLAMA_8B_L8_TP8, 2, seq=8192),
    "8b-l8-tp8-b2-s8k-fp8": case(LLAMA_8B_L8_TP8, 2, seq=8192, fp8=True),
    "8b-l8-tp8-b2-s8k-row": case(LLAMA_8B_L8_TP8, 2, seq=8192, fp8="rowwise"),
}


def fp8_linear_class(recipe):
    """nn.Linear whose product runs as fp8 GEMMs (the module's header);
    recipe True is per tensor, "rowwise" per row."""
    import torch
    import torch.nn as nn

    e4m3, e5m2 = torch.float8_e4m3fn, torch.float8_e5m2

    def cast(x, dtype):
        """x in fp8 with one scale from its own amax, and the scale that
        turns the fp8 values back (what _scaled_mm multiplies by)."""
        top = torch.finfo(dtype).max
        amax = x.abs().amax().float().clamp(min=1e-12)
        return (x.float() * (top / amax)).clamp(-top, top).to(dtype), amax / top

    def col(t):  # the same matrix laid out column-major, as cuBLAS wants mat_b
        return t.t().contiguous().t()

    def cast_along(x, dim):
        """x in e4m3 with a power-of-two scale per row (dim -1: the amax
        over each row) or per column (dim 0: over each column), as
        torchao's rowwise recipe casts; the scales _scaled_mm multiplies by."""
        top = torch.finfo(e4m3).max
        amax = x.abs().amax(dim=dim, keepdim=True).float().clamp(min=1e-12)
        scale = torch.exp2(torch.floor(torch.log2(top / amax)))
        return (x.float() * scale).clamp(-top, top).to(e4m3), 1.0 / scale

    class RowwiseProduct(torch.autograd.Function):
        """torchao's rowwise recipe: every operand scaled along the axis its
        product contracts over, so the weight gradient's operands are cast
        again along the tokens; forward with fast accumulation."""
        @staticmethod
        def forward(ctx, x, w):  # x: M x K, w: N x K
            xq, xs = cast_along(x, -1)  # M x 1
            wq, ws = cast_along(w, -1)  # N x 1
            ctx.save_for_backward(x, w)
            return torch._scaled_mm(xq, wq.t(), xs, ws.t(), out_dtype=torch.bfloat16, use_fast_accum=True)

        @staticmethod
        def backward(ctx, grad):  # grad: M x N
            x, w = ctx.saved_tensors
            grad = grad.contiguous()
            gq, gs = cast_along(grad, -1)  # M x 1
            wq, ws = cast_along(w, 0)  # 1 x K
            dx = torch._scaled_mm(gq, col(wq), gs, ws, out_dtype=torch.bfloat16)
            gtq, gts = cast_along(grad, 0)  # 1 x N
            xq, xs = cast_along(x, 0)  # 1 x K
            dw = torch._scaled_mm(gtq.t().contiguous(), col(xq), gts.t().contiguous(), xs,
                                  out_dtype=torch.bfloat16)
            return dx, dw

    class Fp8Product(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):  # x: M x K, w: N x K
            xq, xs = cast(x, e4m3)
            wq, ws = cast(w, e4m3)
            ctx.save_for_backward(x, w)
            return torch._scaled_mm(xq, wq.t(), xs, ws, out_dtype=torch.bfloat16, use_fast_accum=True)

        @staticmethod
        def backward(ctx, grad):  # grad: M x N
            x, w = ctx.saved_tensors
            gq, gs = cast(grad.contiguous(), e5m2)
            wq, ws = cast(w, e4m3)
            xq, xs = cast(x, e4m3)
            dx = torch._scaled_mm(gq, col(wq), gs, ws, out_dtype=torch.bfloat16)
            dw = torch._scaled_mm(gq.t().contiguous(), col(xq), gs, xs, out_dtype=torch.bfloat16)
            return dx, dw

    class Fp8Linear(nn.Linear):
        def forward(self, x):
            product = RowwiseProduct if recipe == "rowwise" else Fp8Product
            y = product.apply(x.reshape(-1, x.shape[-1]), self.weight)
            return y.view(*x.shape[:-1], self.out_features)

    return Fp8Linear

WARMUP_STEPS = 2
TIMED_STEPS = 4
PROFILE = "--profile" in sys.argv


def kernel_kind(name):
    """Which part of trainplan's compute model a CUDA kernel belongs to."""
    low = name.lower()
    if "flash" in low or "fmha" in low or "sdpa" in low or "attention" in low or "cudnn" in low:
        return "attention"
    if "adam" in low:
        return "optimizer"
    if "gemm" in low or "nvjet" in low or "xmma" in low or "cutlass" in low:
        return "gemm"
    return "other"


def profile_step(step):
    """GPU time of one step by kind of kernel, from the PyTorch profiler:
    what the GEMMs, FlashAttention and element-wise kernels each take, and
    how long the GPU idles between kernels (step time minus kernel time)."""
    import torch
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    kinds, top = {}, []
    for e in prof.key_averages():
        us = getattr(e, "self_device_time_total", None)
        if us is None:
            us = e.self_cuda_time_total
        if us <= 0:
            continue
        kind = kernel_kind(e.key)
        agg = kinds.setdefault(kind, {"s": 0.0, "kernels": 0})
        agg["s"] += us / 1e6
        agg["kernels"] += e.count
        top.append((us / 1e6, e.count, kind, e.key[:120]))
    top.sort(reverse=True)
    return {"kinds": kinds, "top": [{"s": t, "count": n, "kind": k, "name": name}
                                    for t, n, k, name in top[:25]]}


def rotary(d, s):
    """Rotary positions for heads of d over s tokens: a function of
    x (b, heads, s, d), rotate-half as Hugging Face Llama."""
    import torch
    inv_freq = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device="cuda").float() / d))
    angles = torch.outer(torch.arange(s, device="cuda").float(), inv_freq)
    cos = torch.cat([angles.cos(), angles.cos()], -1).to(torch.bfloat16)
    sin = torch.cat([angles.sin(), angles.sin()], -1).to(torch.bfloat16)

    def rotate(x):
        x1, x2 = x[..., : d // 2], x[..., d // 2:]
        return x * cos + torch.cat([-x2, x1], -1) * sin
    return rotate


def run_case(name, case):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    h, a, k, f, V = case["hidden"], case["heads"], case["kv_heads"], case["ffn"], case["vocab"]
    d = case.get("head_dim", h // a)
    s, b = case["seq"], case["micro_batch"]
    rotate = rotary(d, s)

    Linear = fp8_linear_class(case["fp8"]) if case["fp8"] else nn.Linear

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1 = nn.RMSNorm(h, eps=1e-5)
            self.norm2 = nn.RMSNorm(h, eps=1e-5)
            self.wq = Linear(h, a * d, bias=False)
            self.wk = Linear(h, k * d, bias=False)
            self.wv = Linear(h, k * d, bias=False)
            self.wo = Linear(a * d, h, bias=False)
            self.w1 = Linear(h, f, bias=False)
            self.w3 = Linear(h, f, bias=False)
            self.w2 = Linear(f, h, bias=False)

        def forward(self, x):
            y = self.norm1(x)
            q = self.wq(y).view(b, s, a, d).transpose(1, 2)
            kk = self.wk(y).view(b, s, k, d).transpose(1, 2)
            v = self.wv(y).view(b, s, k, d).transpose(1, 2)
            o = F.scaled_dot_product_attention(rotate(q), rotate(kk), v, is_causal=True,
                                               enable_gqa=True)
            x = x + self.wo(o.transpose(1, 2).reshape(b, s, a * d))
            y = self.norm2(x)
            return x + self.w2(F.silu(self.w1(y)) * self.w3(y))

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(V, h)
            self.layers = nn.ModuleList(Layer() for _ in range(case["layers"]))
            self.norm = nn.RMSNorm(h, eps=1e-5)
            self.head = nn.Linear(h, V, bias=False)
            if case["tied"]:
                self.head.weight = self.embed.weight

        def forward(self, tokens, targets):
            x = self.embed(tokens)
            for layer in self.layers:
                x = checkpoint(layer, x, use_reentrant=False) if case["recompute"] == "full" else layer(x)
            logits = self.head(self.norm(x))
            return F.cross_entropy(logits.float().view(-1, V), targets.view(-1))

    model = on_gpu(Model(), case)
    return {"case": name, **case, **measure_step(model, case)}


def on_gpu(model, case):
    """model in bf16 on the GPU, its matrices drawn from N(0, 0.02), its
    layers compiled where the case says so."""
    import torch
    model = model.to("cuda", torch.bfloat16)
    for p in model.parameters():
        torch.nn.init.normal_(p, std=0.02) if p.dim() > 1 else None
    if case["compile"]:
        for i, layer in enumerate(model.layers):
            model.layers[i] = torch.compile(layer)
    return model


def measure_step(model, case):
    """Trains model (forward(tokens, targets) -> loss) at Megatron-LM's
    default precision and returns what a step takes: its time (median of
    TIMED_STEPS after WARMUP_STEPS), memory, and with --profile its
    kernels by kind."""
    import torch

    from cuda_timing import event_times_ms

    dev = "cuda"
    b, s, vocab = case["micro_batch"], case["seq"], case["vocab"]
    params = list(model.parameters())
    n_params = sum(p.numel() for p in params)

    # Megatron-style mixed precision: fp32 main_grad filled by a hook as each
    # bf16 gradient is ready, fp32 master weights stepped by fused AdamW.
    main_grads = [torch.zeros_like(p, dtype=torch.float32) for p in params]
    masters = [p.detach().float() for p in params]
    for p, g in zip(params, main_grads):
        def add_into(param, g=g):
            g.add_(param.grad)
            param.grad = None
        p.register_post_accumulate_grad_hook(add_into)
    for m, g in zip(masters, main_grads):
        m.grad = g
    optimizer = torch.optim.AdamW(masters, lr=1e-4, fused=True)

    tokens = torch.randint(0, vocab, (case["micro_batches"], b, s), device=dev)
    targets = torch.randint(0, vocab, (case["micro_batches"], b, s), device=dev)

    def step():
        for i in range(case["micro_batches"]):
            (model(tokens[i], targets[i]) / case["micro_batches"]).backward()
        optimizer.step()
        with torch.no_grad():
            for p, m, g in zip(params, masters, main_grads):
                p.copy_(m)
                g.zero_()

    t0 = time.perf_counter()
    for _ in range(WARMUP_STEPS):
        step()
    torch.cuda.synchronize()
    warmup_s = time.perf_counter() - t0
    torch.cuda.reset_peak_memory_stats()
    times = [ms / 1e3 for ms in event_times_ms(step, TIMED_STEPS)]
    profile = profile_step(step) if PROFILE else None
    used_mib = int(subprocess.check_output(
        ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"]).decode().split()[0])
    flops_per_token = 6 * n_params  # reported for reading only; the test uses trainplan's count
    step_s = sorted(times)[len(times) // 2]
    return {
        "params": n_params,
        "step_s_median": step_s, "step_s_all": times, "warmup_s": warmup_s,
        "tokens_per_s": case["micro_batches"] * b * s / step_s,
        "approx_6n_tflops": flops_per_token * case["micro_batches"] * b * s / step_s / 1e12,
        "max_allocated_mib": torch.cuda.max_memory_allocated() / 2**20,
        "max_reserved_mib": torch.cuda.max_memory_reserved() / 2**20,
        "nvidia_smi_used_mib": used_mib,
        **({"profile": profile} if profile else {}),
    }


def main(script, cases, run):
    """`script OUT.json [--profile] [CASE ...]`: each case in its own process
    (`script --one CASE`), its result appended to OUT.json as it comes."""
    if len(sys.argv) >= 3 and sys.argv[1] == "--one":
        print("RESULT " + json.dumps(run(sys.argv[2], cases[sys.argv[2]])), flush=True)
        return
    out = sys.argv[1]
    names = [a for a in sys.argv[2:] if not a.startswith("--")] or list(cases)
    import torch
    info = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
            "cuda": torch.version.cuda, "cases": []}
    for name in names:
        proc = subprocess.run([sys.executable, script, "--one", name] + (["--profile"] if PROFILE else []),
                              capture_output=True, text=True)
        lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
        if lines:
            info["cases"].append(json.loads(lines[-1][7:]))
        else:
            info["cases"].append({"case": name, "error": proc.stderr[-3000:]})
        print(json.dumps(info["cases"][-1])[:2000], flush=True)
        json.dump(info, open(out, "w"), indent=1)


if __name__ == "__main__":
    main(__file__, CASES, run_case)
