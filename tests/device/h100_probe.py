"""Measures, on a real GPU, two facts the memory and performance models need.

Run by hand on a machine with a GPU and PyTorch (never in CI):
    python3 tests/device/h100_probe.py OUT.json

1. Memory that is not model state: the CUDA context plus the cuBLAS
   workspace after the first BF16 matmul, as nvidia-smi sees the process.
2. Dense BF16 GEMM throughput against matrix size, for the GEMM efficiency
   curve of the performance model (Subramanian et al. 2024:
   t = t_latency + flops / peak).
"""
import json
import subprocess
import sys
import time

import torch


def used_mib():
    out = subprocess.check_output(
        ["nvidia-smi", "--query-gpu=memory.used,memory.total,name", "--format=csv,noheader,nounits"])
    used, total, name = [x.strip() for x in out.decode().split(",")]
    return int(used), int(total), name


def gemm_tflops(m, n, k, repeats):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    torch.cuda.synchronize()
    seconds = (time.perf_counter() - start) / repeats
    return 2.0 * m * n * k / seconds / 1e12, seconds


def main():
    before, total, name = used_mib()
    torch.cuda.init()
    torch.zeros(1, device="cuda")
    after_context, _, _ = used_mib()
    x = torch.randn(1024, 1024, device="cuda", dtype=torch.bfloat16)
    (x @ x).sum().item()
    after_matmul, _, _ = used_mib()
    allocated = torch.cuda.memory_allocated() / 2**20
    reserved = torch.cuda.memory_reserved() / 2**20
    del x
    sizes = [(256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048),
             (4096, 4096, 4096), (8192, 8192, 8192), (16384, 16384, 16384),
             (8192, 4096, 4096), (8192, 14336, 4096), (8192, 4096, 14336),
             (8192, 6144, 4096), (16384, 28672, 8192), (4096, 1024, 4096), (32768, 128256, 4096)]
    gemms = []
    for m, n, k in sizes:
        flops = 2.0 * m * n * k
        repeats = max(3, min(200, int(2e14 / flops)))
        tflops, seconds = gemm_tflops(m, n, k, repeats)
        gemms.append({"m": m, "n": n, "k": k, "tflops": round(tflops, 1), "seconds": seconds})
        torch.cuda.empty_cache()
    result = {
        "gpu": name, "memory_total_mib": total, "torch": torch.__version__,
        "cuda": torch.version.cuda, "used_before_mib": before,
        "used_after_context_mib": after_context, "used_after_first_matmul_mib": after_matmul,
        "torch_allocated_mib": allocated, "torch_reserved_mib": reserved,
        "bf16_gemm": gemms,
    }
    json.dump(result, open(sys.argv[1], "w"), indent=1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
