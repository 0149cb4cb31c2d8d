"""The step time and the search against reviewed golden outputs.

tests/golden/estimates.json holds a fixed set of configs, each with a
one-line `why` (dense presets, GPT, ViT, MoE with ep and etp, MLA, every
sharding scheme, 1F1B, interleaved and GPipe, every recompute mode and
partial recompute, cp, SUMMA, explicit placement, fp8, the data loader's
mask, slow networks), and what `trainplan estimate` printed for it: every
number under `time` and `throughput`, and `memory.peak_bytes`.
tests/golden/searches.json does the same for `trainplan search` (with and
without AMSP, SUMMA, a MoE model, a `search.gpus` scaling list, bf16 and
fp8 searched together): the counts, the top plans (their fields, step_s and
peak memory), the scaling list and min_gpus. Both were reviewed when written; the memory figures are
held to an independent derivation by test_reference.py, and the search's
logic by tests/unit/test_search.c (brute force) and test_properties.c.

Numbers must agree to 1e-9 relative: the goldens are printed by the same
program, so only last-bit noise from another compiler may differ. Plans
whose step times agree to that tolerance may come in either order (noise
can reorder a tie), and in a group of such plans at the end of the list
only the step times are compared (a tied plan just past the end may take a
place). Keys must match both ways: a figure added or dropped fails too.

An intended change to the model: run tests/golden/regenerate.py (after
ci/build.sh) and review `git diff tests/golden/` in the same commit.

Run: python3 -m unittest discover -s tests/reference -v  (after ci/build.sh)
"""
import json
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))
import regenerate as golden  # noqa: E402  (what to extract, how to run the CLI)

REL = 1e-9
HINT = "if the change is intended, run tests/golden/regenerate.py and review the diff"
SHOWN = 20  # differences listed per case


def close(a, b):
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


def differences(expected, got, path):
    """Every difference between expected and got, as 'path: expected X, got Y'."""
    if isinstance(expected, dict) and isinstance(got, dict):
        out = []
        for k in expected:
            where = f"{path}.{k}" if path else k
            if k not in got:
                out.append(f"{where}: expected {json.dumps(expected[k])}, got nothing (no longer printed)")
            else:
                out += differences(expected[k], got[k], where)
        for k in got:
            if k not in expected:
                where = f"{path}.{k}" if path else k
                out.append(f"{where}: expected nothing, got {json.dumps(got[k])} (a new figure)")
        return out
    if isinstance(expected, list) and isinstance(got, list):
        if path.endswith("plans"):
            return plan_differences(expected, got, path)
        if len(expected) != len(got):
            return [f"{path}: expected {len(expected)} entries, got {len(got)}"]
        return [d for i, (a, b) in enumerate(zip(expected, got)) for d in differences(a, b, f"{path}[{i}]")]
    numbers = (int, float)
    if (isinstance(expected, numbers) and isinstance(got, numbers)
            and not isinstance(expected, bool) and not isinstance(got, bool)):
        if close(expected, got):
            return []
        return [f"{path}: expected {expected!r}, got {got!r} (relative difference "
                f"{abs(expected - got) / max(abs(expected), abs(got)):.3g})"]
    if expected == got and type(expected) is type(got):
        return []
    return [f"{path}: expected {json.dumps(expected)}, got {json.dumps(got)}"]


def plan_differences(expected, got, path):
    """Ranked plans, where plans with step times equal to REL may swap."""
    if len(expected) != len(got):
        return [f"{path}: expected {len(expected)} plans, got {len(got)}"]
    out, i = [], 0
    while i < len(expected):
        j = i + 1  # expected[i:j]: plans tied with expected[i] to REL
        while j < len(expected) and close(expected[j]["step_s"], expected[i]["step_s"]):
            j += 1
        if j - i == 1:
            out += differences(expected[i], got[i], f"{path}[{i}]")
        elif j == len(expected):  # a tie at the end: one just past it may take a place
            for k in range(i, j):
                if not close(got[k]["step_s"], expected[i]["step_s"]):
                    out.append(f"{path}[{k}].step_s: expected {expected[i]['step_s']!r} (tied plans), "
                               f"got {got[k]['step_s']!r}")
        else:  # the same plans, in either order
            key = lambda p: json.dumps(p["plan"], sort_keys=True)  # noqa: E731
            mine = sorted(got[i:j], key=key)
            for k, want in enumerate(sorted(expected[i:j], key=key)):
                out += differences(want, mine[k], f"{path}[{i}..{j - 1}] (tied)")
        i = j
    return out


class Golden(unittest.TestCase):
    def check(self, path, command, extract):
        cases = golden.load(path)
        names = [c["name"] for c in cases]
        self.assertEqual(len(names), len(set(names)), f"{path}: case names repeat")
        failed = 0
        for case in cases:
            failed += 1  # until the case passes
            with self.subTest(case["name"]):
                self.assertTrue(case.get("why"), f"case {case['name']!r} has no 'why'")
                self.assertIn("expected", case, f"case {case['name']!r} has no expected output: run "
                              "tests/golden/regenerate.py and review the diff")
                try:
                    got = extract(golden.run_cli(command, case["config"]))
                except RuntimeError as e:
                    self.fail(f"{command} case {case['name']!r} ({case['why']}): {e}\n{HINT}")
                diffs = differences(case["expected"], got, "")
                if diffs:
                    shown = "\n  ".join(diffs[:SHOWN])
                    more = f"\n  ... and {len(diffs) - SHOWN} more" if len(diffs) > SHOWN else ""
                    self.fail(f"{command} case {case['name']!r} ({case['why']}): {len(diffs)} "
                              f"field(s) differ from {os.path.relpath(path, ROOT)}:\n  {shown}{more}\n"
                              f"{HINT}")
                failed -= 1
        return len(cases), failed

    def test_estimates(self):
        n, failed = self.check(golden.ESTIMATES, "estimate", golden.expected_estimate)
        self.assertGreaterEqual(n, 40)
        print(f"\n{n - failed} of {n} estimates equal their golden step times, throughput and peak memory")

    def test_searches(self):
        n, failed = self.check(golden.SEARCHES, "search", golden.expected_search)
        self.assertGreaterEqual(n, 5)
        print(f"\n{n - failed} of {n} searches equal their golden counts and top plans")


class Comparison(unittest.TestCase):
    """The comparison itself: it sees a changed figure, a new one, a lost
    one, a changed plan, and lets tied plans swap."""

    def test_numbers(self):
        self.assertEqual(differences({"a": 1.0}, {"a": 1.0 + 1e-12}, ""), [])
        self.assertEqual(len(differences({"a": 1.0}, {"a": 1.0 + 1e-8}, "")), 1)
        self.assertEqual(differences({"a": 0}, {"a": 0.0}, ""), [])
        self.assertEqual(len(differences({"a": True}, {"a": 1}, "")), 1)

    def test_keys(self):
        (lost,) = differences({"time": {"a": 1, "b": 2}}, {"time": {"a": 1}}, "")
        self.assertIn("time.b: expected 2, got nothing", lost)
        (new,) = differences({"time": {"a": 1}}, {"time": {"a": 1, "c": 3}}, "")
        self.assertIn("time.c: expected nothing, got 3", new)

    def test_plans(self):
        def p(tp, step):
            return {"plan": {"tp": tp}, "step_s": step, "peak_bytes": 1.0}
        want = [p(1, 1.0), p(2, 2.0), p(3, 2.0), p(4, 3.0), p(5, 4.0), p(6, 4.0)]
        swapped = [p(1, 1.0), p(3, 2.0 + 1e-13), p(2, 2.0), p(4, 3.0), p(7, 4.0), p(5, 4.0)]
        self.assertEqual(differences({"plans": want}, {"plans": swapped}, ""), [])
        changed = [p(1, 1.0), p(2, 2.0), p(3, 2.0), p(8, 3.0), p(5, 4.0), p(6, 4.0)]
        self.assertEqual(differences({"plans": want}, {"plans": changed}, ""),
                         ["plans[3].plan.tp: expected 4, got 8 (relative difference 0.5)"])


if __name__ == "__main__":
    unittest.main()
