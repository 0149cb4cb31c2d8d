"""Measures on one Hopper GPU what trainplan's fp8 and overlap mechanisms
assume, so that their constants are measured facts rather than fits:

1. GEMM rates of the linear layers of Llama-3.1-8B (tp 1), 70B and 405B
   (tp 8) at 8,192 tokens, for each of a linear layer's three products
   (forward, input gradient, weight gradient), in bf16 and in fp8 under
   each scaling recipe cuBLAS runs on Hopper through torch._scaled_mm:
   per tensor and per row (each with and without fast accumulation), and 1x128 by
   128x128 blocks (DeepSeek-V3's recipe) where this PyTorch takes it.
2. The casts each recipe adds per GEMM input: amax, scale and cast, with
   the transposed copy the backward needs, eager and fused by
   torch.compile, as bytes-equivalents per element at the measured HBM
   rate (trainplan charges read 2 B, write 1 B).
3. How much a GEMM slows down while a copy runs beside it on another
   stream, the copy on a few SMs as NCCL's channels are (8 to 32 thread
   blocks) or as cudaMemcpyAsync, and how much the copy slows down.

Run by hand on a machine with a GPU and PyTorch (never in CI):
    python3 tests/device/fp8_probe.py OUT.json [gemms] [overlap] [casts]
(all three sections unless some are named).
Times are CUDA-event means over a batch of back-to-back calls, the median
of five batches, after warm-up. Each section writes OUT.json when it ends,
so a run cut short keeps what it measured.
"""
import json
import sys
import time

import torch

E4M3 = torch.float8_e4m3fn
TOKENS = 8192
# (model, tp, layer, k, n): the linear layers' forward products, tokens x k
# times k x n, on one GPU
LINEARS = [
    ("llama3-8b", 1, "qkv", 4096, 6144), ("llama3-8b", 1, "proj", 4096, 4096),
    ("llama3-8b", 1, "fc1", 4096, 28672), ("llama3-8b", 1, "fc2", 14336, 4096),
    ("llama3-70b", 8, "qkv", 8192, 1280), ("llama3-70b", 8, "proj", 1024, 8192),
    ("llama3-70b", 8, "fc1", 8192, 7168), ("llama3-70b", 8, "fc2", 3584, 8192),
    ("llama3-405b", 8, "qkv", 16384, 2304), ("llama3-405b", 8, "proj", 2048, 16384),
    ("llama3-405b", 8, "fc1", 16384, 13312), ("llama3-405b", 8, "fc2", 6656, 16384),
]


def batch_ms(fn, calls=20, batches=5, warmup=3):
    """Median over batches of the mean milliseconds of one call."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    per_call = []
    for _ in range(batches):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        torch.cuda.synchronize()
        per_call.append(start.elapsed_time(end) / calls)
    per_call.sort()
    return per_call[len(per_call) // 2]


def write(report, path):
    with open(path, "w") as f:
        json.dump(report, f, indent=1)


def hbm_rate(report):
    x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    ms = batch_ms(lambda: y.copy_(x), calls=10)
    report["hbm_copy_bytes_per_s"] = 2 * x.numel() / ms * 1e3  # read and write
    print(f"HBM copy {report['hbm_copy_bytes_per_s'] / 1e12:.2f} TB/s", flush=True)
    del x, y


def fp8_operands(m, k, n):
    a = torch.randn(m, k, device="cuda").to(E4M3)
    b = torch.randn(n, k, device="cuda").to(E4M3).t()  # column-major k x n, as cuBLAS wants
    return a, b


def blockwise_call(a, b, m, k, n):
    """A 1x128 (activations) by 128x128 (weights) scaled product, or the
    reason this PyTorch refuses each scale layout tried."""
    one = dict(device="cuda", dtype=torch.float32)
    tries = [
        ("a (m,k/128) outer-major, b (k/128,n/128) outer-major",
         torch.ones(k // 128, m, **one).t(), torch.ones(n // 128, k // 128, **one).t()),
        ("a (m,k/128) outer-major, b (k/128,n/128) row-major",
         torch.ones(k // 128, m, **one).t(), torch.ones(k // 128, n // 128, **one)),
        ("a (m,k/128) row-major, b (k/128,n/128) row-major",
         torch.ones(m, k // 128, **one), torch.ones(k // 128, n // 128, **one)),
    ]
    refusals = []
    for name, sa, sb in tries:
        def call(sa=sa, sb=sb):
            return torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
        try:
            call()
            torch.cuda.synchronize()
            return name, call, refusals
        except (RuntimeError, TypeError, ValueError) as e:
            refusals.append(f"{name}: {str(e).splitlines()[0][:160]}")
    return None, None, refusals


def gemms(report):
    one = torch.ones((), device="cuda", dtype=torch.float32)
    rows = []
    for model, tp, layer, k, n in LINEARS:
        # forward x W^T, input gradient dY W, weight gradient dY^T X: the
        # same FLOPs with the contraction over k, n and the tokens
        for product, (mm, kk, nn) in (("forward", (TOKENS, k, n)), ("input_grad", (TOKENS, n, k)),
                                      ("weight_grad", (n, TOKENS, k))):
            flop = 2.0 * mm * kk * nn
            row = dict(model=model, tp=tp, layer=layer, product=product, m=mm, k=kk, n=nn)
            x = torch.randn(mm, kk, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(nn, kk, device="cuda", dtype=torch.bfloat16).t()
            row["bf16_tflops"] = flop / batch_ms(lambda: x @ w) / 1e9
            a, b = fp8_operands(mm, kk, nn)
            row["fp8_tensorwise_fast_tflops"] = flop / batch_ms(
                lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=True)) / 1e9
            row["fp8_tensorwise_tflops"] = flop / batch_ms(
                lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=False)) / 1e9
            sa = torch.ones(mm, 1, device="cuda", dtype=torch.float32)
            sb = torch.ones(1, nn, device="cuda", dtype=torch.float32)
            try:
                row["fp8_rowwise_tflops"] = flop / batch_ms(
                    lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True)) / 1e9
                row["fp8_rowwise_split_tflops"] = flop / batch_ms(
                    lambda: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=False)) / 1e9
            except RuntimeError as e:
                row["fp8_rowwise_refused"] = str(e).splitlines()[0][:160]
            layout, call, refusals = blockwise_call(a, b, mm, kk, nn)
            if call:
                row["fp8_blockwise_tflops"] = flop / batch_ms(call) / 1e9
                row["fp8_blockwise_layout"] = layout
            else:
                row["fp8_blockwise_refused"] = refusals
            rows.append(row)
            print(f"{model:11s} tp{tp} {layer:4s} {product:11s} bf16 {row['bf16_tflops']:6.1f} "
                  f"fp8 fast {row['fp8_tensorwise_fast_tflops']:6.1f} fp8 {row['fp8_tensorwise_tflops']:6.1f} "
                  f"row {row.get('fp8_rowwise_tflops', 0):6.1f} row split {row.get('fp8_rowwise_split_tflops', 0):6.1f} block {row.get('fp8_blockwise_tflops', 0):6.1f}",
                  flush=True)
            del x, w, a, b
    report["gemms"] = rows


E4M3_MAX = 448.0


def scale_for(amax):
    """The scale that maps amax to e4m3's largest value."""
    return E4M3_MAX / amax.float().clamp(min=1e-12)


def scaled_e4m3(x, scale):
    return (x.float() * scale).clamp(-E4M3_MAX, E4M3_MAX).to(E4M3)


def tensorwise_cast(x):
    scale = scale_for(x.abs().amax())
    return scaled_e4m3(x, scale), scale


def tensorwise_cast_transpose(x):
    q, scale = tensorwise_cast(x)
    return q, q.t().contiguous(), scale


def delayed_cast(x, scale):
    """The scale is last step's: one pass, which also records this step's amax."""
    return scaled_e4m3(x, scale), x.abs().amax()


def axis_cast(x, dim):
    """Scaled per row (dim 1) or per column (dim 0, the amax over the tokens)."""
    scale = scale_for(x.abs().amax(dim=dim, keepdim=True))
    return scaled_e4m3(x, scale), scale


def rowwise_cast(x):
    return axis_cast(x, 1)


def columnwise_cast_transpose(x):
    """Per column, written transposed: the weight gradient's operands under
    torchao's rowwise recipe."""
    q, scale = axis_cast(x, 0)
    return q.t().contiguous(), scale


def blockwise_cast(x):
    m, k = x.shape
    blocks = x.float().view(m, k // 128, 128)
    scale = scale_for(blocks.abs().amax(dim=2, keepdim=True))
    return scaled_e4m3(blocks, scale).view(m, k), scale


def casts(report):
    rate = report["hbm_copy_bytes_per_s"]
    kinds = [("tensorwise", tensorwise_cast, False), ("tensorwise_transpose", tensorwise_cast_transpose, False),
             ("delayed", delayed_cast, True), ("rowwise", rowwise_cast, False),
             ("columnwise_transpose", columnwise_cast_transpose, False),
             ("blockwise_1x128", blockwise_cast, False)]
    rows = []
    for shape in ((TOKENS, 4096), (TOKENS, 16384)):
        x = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
        scale = torch.ones((), device="cuda", dtype=torch.float32)
        for name, fn, takes_scale in kinds:
            args = (x, scale) if takes_scale else (x,)
            row = dict(recipe=name, shape=list(shape))
            for mode in ("eager", "compiled"):
                f = fn if mode == "eager" else torch.compile(fn, dynamic=False)
                started = time.time()
                try:
                    ms = batch_ms(lambda: f(*args), calls=10)
                except Exception as e:  # a compile failure costs one row, not the run
                    row[f"{mode}_refused"] = str(e).splitlines()[0][:160]
                    continue
                row[f"{mode}_ms"] = ms
                row[f"{mode}_bytes_per_element"] = ms * 1e-3 * rate / x.numel()
                if mode == "compiled":
                    row["compile_s"] = time.time() - started
            rows.append(row)
            print(f"cast {name:21s} {shape} eager {row.get('eager_bytes_per_element', 0):5.2f} "
                  f"compiled {row.get('compiled_bytes_per_element', 0):5.2f} B/element", flush=True)
        del x
    report["casts"] = rows


def overlap(report):
    import triton
    import triton.language as tl

    @triton.jit
    def copy_kernel(src, dst, n, rounds, BLOCK: tl.constexpr):
        # each thread block walks the buffer in strides, `rounds` times, as
        # one NCCL channel moves its share of a collective
        pid = tl.program_id(0)
        step = tl.num_programs(0) * BLOCK
        for _ in range(rounds):
            for start in range(pid * BLOCK, n, step):
                offs = start + tl.arange(0, BLOCK)
                mask = offs < n
                tl.store(dst + offs, tl.load(src + offs, mask=mask), mask=mask)

    src = torch.randn(1 << 28, device="cuda")  # 1 GiB of fp32
    dst = torch.empty_like(src)
    side = torch.cuda.Stream()

    def copy_on(blocks, rounds):
        if blocks == 0:  # cudaMemcpyAsync, as the driver runs it
            for _ in range(rounds):
                dst.copy_(src)
        else:
            copy_kernel[(blocks,)](src, dst, src.numel(), rounds, BLOCK=4096, num_warps=8)

    m = 8192
    x = torch.randn(m, m, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(m, m, device="cuda", dtype=torch.bfloat16)
    a, b = fp8_operands(m, m, m)
    one = torch.ones((), device="cuda", dtype=torch.float32)
    products = {"bf16": lambda: x @ w,
                "fp8": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=True)}
    rows = []
    calls = 40
    for dtype, gemm in products.items():
        gemm_ms = batch_ms(gemm, calls=calls)
        for blocks in (8, 16, 32, 66, 0):
            one_round_ms = batch_ms(lambda: copy_on(blocks, 1), calls=1, batches=3, warmup=1)
            rounds = max(1, round(calls * gemm_ms / one_round_ms))
            ev = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
            torch.cuda.synchronize()
            with torch.cuda.stream(side):
                ev[0].record()
                copy_on(blocks, rounds)
                ev[1].record()
            torch.cuda.current_stream().wait_event(ev[0])
            ev[2].record()
            for _ in range(calls):
                gemm()
            ev[3].record()
            torch.cuda.synchronize()
            together_gemm = ev[2].elapsed_time(ev[3]) / calls
            together_copy = ev[0].elapsed_time(ev[1])
            bytes_moved = 2.0 * src.numel() * 4 * rounds
            row = dict(gemm=dtype, copy_blocks=blocks or "memcpy", gemm_alone_ms=gemm_ms,
                       gemm_beside_copy_ms=together_gemm, gemm_slowdown=together_gemm / gemm_ms - 1.0,
                       copy_alone_bytes_per_s=bytes_moved / (one_round_ms * rounds) * 1e3,
                       copy_beside_gemm_bytes_per_s=bytes_moved / together_copy * 1e3,
                       copy_rounds=rounds)
            rows.append(row)
            print(f"overlap {dtype} copy {str(row['copy_blocks']):11s} gemm +{100 * row['gemm_slowdown']:5.1f}% "
                  f"copy {row['copy_alone_bytes_per_s'] / 1e9:6.0f} -> {row['copy_beside_gemm_bytes_per_s'] / 1e9:6.0f} GB/s",
                  flush=True)
    report["overlap"] = rows
    del src, dst, x, w, a, b


def main():
    path = sys.argv[1]
    props = torch.cuda.get_device_properties(0)
    report = dict(device=props.name, multiprocessors=props.multi_processor_count, torch=torch.__version__,
                  cuda=torch.version.cuda, tokens=TOKENS)
    print(report, flush=True)
    hbm_rate(report)
    write(report, path)
    chosen = sys.argv[2:] or ["gemms", "overlap", "casts"]
    for section in [s for s in (gemms, overlap, casts) if s.__name__ in chosen]:
        started = time.time()
        try:
            section(report)
        except Exception as e:  # keep the other sections' figures
            report[f"{section.__name__}_failed"] = repr(e)[:300]
            print(f"{section.__name__} failed: {e!r}", flush=True)
        report[f"{section.__name__}_s"] = time.time() - started
        torch.cuda.empty_cache()
        write(report, path)


if __name__ == "__main__":
    main()
