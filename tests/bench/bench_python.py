"""bench_python.py: the benchmark's cases (cases.json) done by the Python
reference implementation (tests/reference/trainplan_ref.py), beside the
native core on the same machine, to show how much faster the C core is. Prints
figures, never fails on timing. Needs ci/build.sh first.

    python3 tests/bench/bench_python.py

The reference computes the same figures (tests/reference/test_reference.py
holds it to the core's to 1e-12) by the same algorithm: the search runs the
memory model once per plan without its placement and the step-time model
only for plans that fit, as core/search.c does. So the ratio is the cost of
the language and of the core's engineering (no allocation, flat structs),
not of different work. CPU time (time.process_time), one core, like bench.c.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
import trainplan_ref as ref  # noqa: E402

CASES = os.path.join(ROOT, "tests", "bench", "cases.json")
RUNS = 3


def cli(command, doc):
    out = subprocess.run([os.path.join(ROOT, "build", "trainplan"), command, "-"],
                         input=json.dumps(doc), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def native_figures():
    """The native benchmark's estimate time (us) and search medians (ms)."""
    out = subprocess.run([os.path.join(ROOT, "build", "trainplan_bench"), CASES],
                         capture_output=True, text=True, check=True).stdout
    estimate_us = float(re.search(r"([\d.]+) us each", out).group(1))
    searches = {m.group(1): float(m.group(2))
                for m in re.finditer(r"^search (\S+)\s+([\d.]+) ms", out, re.M)}
    return estimate_us, searches


def main():
    with open(CASES) as f:
        cases = json.load(f)
    native_us, native_ms = native_figures()
    print(f"Python reference benchmark (Python {sys.version.split()[0]}, one core, CPU time)")

    # one estimate from a resolved config, as bench.c times tp_estimate on a struct
    config = ref.Config(cli("estimate", cases["estimate"])["config"])
    n = 2000
    start = time.process_time()
    for _ in range(n):
        layers = ref.describe_layers(config)
        mem = ref.memory(config, layers)
        t = ref.step_time(config, layers, mem)
        ref.throughput(config, layers, t["step_s"])
    us = (time.process_time() - start) / n * 1e6
    print(f"estimate (llama-3.1-70b, tp 8, pp 4, 1024 GPUs): {us:.1f} us each, "
          f"{us / native_us:.0f}x native ({native_us} us)")

    for name, doc in cases["searches"].items():
        out = cli("search", dict(doc, search=dict(doc.get("search", {}), top=1)))
        resolved = out["plans"][0]["estimate"]["config"]
        times = []
        for _ in range(RUNS):
            start = time.process_time()
            counts, top = ref.search(resolved, out["search"])
            times.append(time.process_time() - start)
        models = counts["memory_evaluations"] + counts["time_evaluations"]
        s = statistics.median(times)
        same = abs(top[0][0] - out["plans"][0]["estimate"]["time"]["step_s"]) <= 1e-12 * top[0][0]
        native = native_ms.get(name)
        ratio = f"{s * 1000 / native:.0f}x native ({native} ms)" if native else "no native figure"
        print(f"search {name:24} {s:7.2f} s (median of {RUNS})  {counts['candidates']} plans  "
              f"{models} models ({models / s / 1000:.0f} k/s)  {ratio}; "
              f"best plan {'the same' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
