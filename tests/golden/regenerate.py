#!/usr/bin/env python3
"""Rewrites the golden outputs of the step time and the search from the
current build/trainplan:

    ci/build.sh && tests/golden/regenerate.py && git diff tests/golden/

estimates.json and searches.json are lists of cases, each {"name", "why",
"config", "expected"}. This script keeps every case's name, why and config
as they are and recomputes its "expected" (a case without one, just added,
gets one), so an intended change to the model regenerates them in the same
commit and the diff shows every figure it moved, for review.
tests/reference/test_golden.py compares the CLI with them at 1e-9 relative.

What is recorded (expected_estimate, expected_search; the test compares the
same extracts):
  * estimates: every number under `time` and `throughput`, and
    `memory.peak_bytes` (the rest of `memory` is held to an independent
    derivation by test_reference.py);
  * searches: the counts, the top plans (the plan's fields, its step_s and
    peak memory), and with `search.gpus` the scaling list and min_gpus.

Configs stay minimal: presets plus the fields each case varies, so a
changed default or preset shows in the diff too.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLI = os.path.join(ROOT, "build", "trainplan")
ESTIMATES = os.path.join(HERE, "estimates.json")
SEARCHES = os.path.join(HERE, "searches.json")
# written on one line each, so a case reads as its config and a plan as a row
INLINE = ("config", "plan")


def run_cli(command, doc):
    """The CLI's parsed output for doc; raises with its message if it refuses."""
    p = subprocess.run([CLI, command, "-"], input=json.dumps(doc), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"trainplan {command} exited {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def expected_estimate(out):
    """What a golden estimate holds of `trainplan estimate`'s output."""
    return {"memory": {"peak_bytes": out["memory"]["peak_bytes"]},
            "time": out["time"], "throughput": out["throughput"]}


def expected_search(out):
    """What a golden search holds of `trainplan search`'s output."""
    got = {"counts": out["counts"],
           "plans": [{"plan": p["plan"], "step_s": p["estimate"]["time"]["step_s"],
                      "peak_bytes": p["estimate"]["memory"]["peak_bytes"]} for p in out["plans"]]}
    if "scaling" in out:
        got["scaling"] = out["scaling"]
        got["min_gpus"] = out["min_gpus"]
    return got


def load(path):
    with open(path) as f:
        return json.load(f)


def _format(value, indent, key=None):
    if key in INLINE or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value)
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(value, list):
        items = [inner + _format(v, indent + 2) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    items = [f"{inner}{json.dumps(k)}: {_format(v, indent + 2, k)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}"


def save(path, cases):
    with open(path, "w") as f:
        f.write(_format(cases, 0) + "\n")


def regenerate(path, command, extract):
    cases = load(path)
    changed = []
    for case in cases:
        try:
            got = extract(run_cli(command, case["config"]))
        except RuntimeError as e:
            sys.exit(f"{os.path.relpath(path, ROOT)}: case {case['name']!r}: {e}")
        if case.get("expected") != got:
            changed.append(case["name"])
        case["expected"] = got
    save(path, cases)
    print(f"{os.path.relpath(path, ROOT)}: {len(cases)} cases, {len(changed)} changed"
          + (": " + ", ".join(changed) if changed else ""))


def main():
    if not os.path.exists(CLI):
        sys.exit(f"{CLI} not found: run ci/build.sh first")
    regenerate(ESTIMATES, "estimate", expected_estimate)
    regenerate(SEARCHES, "search", expected_search)
    print("review the diff: git diff tests/golden/")


if __name__ == "__main__":
    main()
