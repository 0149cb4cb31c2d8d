"""bench_python.py: the benchmark's estimate case (cases.json) through the
memory model of the Python reference (tests/reference/trainplan_ref.py),
beside the native core's whole estimate on the same machine. Prints
figures, never fails on timing. Needs ci/build.sh first.

    python3 tests/bench/bench_python.py

The reference keeps only the memory half of the core (parameter counts,
shard factors, activations, the per-stage memory; test_reference.py holds
it to the core's figures to 1e-12): its step-time model and search were
replaced by golden outputs (tests/golden/), so there is no Python search to
time and no Python step time. The native figure is a whole estimate
(memory, step time and throughput) and bench.c has no memory-only timing,
so the two are printed side by side without a ratio. CPU time
(time.process_time), one core, like bench.c.
"""
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
import trainplan_ref as ref  # noqa: E402

CASES = os.path.join(ROOT, "tests", "bench", "cases.json")


def cli(command, doc):
    out = subprocess.run([os.path.join(ROOT, "build", "trainplan"), command, "-"],
                         input=json.dumps(doc), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def native_estimate_us():
    """The native benchmark's time for one whole estimate (us)."""
    out = subprocess.run([os.path.join(ROOT, "build", "trainplan_bench"), CASES],
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"([\d.]+) us each", out).group(1))


def main():
    with open(CASES) as f:
        cases = json.load(f)
    native_us = native_estimate_us()
    print(f"Python reference benchmark (Python {sys.version.split()[0]}, one core, CPU time)")

    # the memory model from a resolved config, as bench.c times tp_estimate on a struct
    config = ref.Config(cli("estimate", cases["estimate"])["config"])
    n = 5000
    start = time.process_time()
    for _ in range(n):
        ref.memory(config, ref.describe_layers(config))
    us = (time.process_time() - start) / n * 1e6
    print(f"memory model (llama-3.1-70b, tp 8, pp 4, 1024 GPUs): {us:.1f} us each; "
          f"native whole estimate (memory, step time, throughput): {native_us} us")
    print("searches: none (the reference has no search; tests/golden/ holds the search's outputs)")


if __name__ == "__main__":
    main()
