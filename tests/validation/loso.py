#!/usr/bin/env python3
"""Leave one source out: the error on each source when the constants are
fitted without it.

The runs are the papers' measured tables (test_perf_measured --runs) and
the published runs of tests/validation/runs/ (validate.py --runs), each a
config and the step time it measured. The fitted constants are those
docs/calibration.md fits on the papers, each over the runs that share it
(they belong to a generation, a network or a framework, never to a
table): a GPU generation's efficiencies, kernel latency and overlap
slowdowns (GPU_FITTED; the GPUs of a generation that ship different
efficiencies apart, fit_group), a network's efficiencies
(NETWORK_FITTED, network_group) and the host's time per step
(HOST_FITTED). `trainplan calibrate` (the same fitter a user calibrates
a cluster with) fits each over the runs of all clusters that share it
(one_cluster false), the shipped constants weighed as a prior
(PRIOR_WEIGHT). For each source, the constants are fitted
to the other sources' runs and that source's runs are predicted with
them: its leave-one-source-out error, the figure that says how the model
does on a trainer it has never seen.

  python3 tests/validation/loso.py build           # print the report
  python3 tests/validation/loso.py build --write   # rewrite docs/validation-loso.md
  python3 tests/validation/loso.py build --check   # fail if that page is stale
"""
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REPORT = os.path.join(ROOT, "docs", "validation-loso.md")
sys.path.insert(0, HERE)
import validate  # noqa: E402
from validate import mape  # noqa: E402

# The constants fitted, each over the runs that share it (docs/calibration.md:
# a GPU generation's, a network's, and the host's time per step, one value
# for every framework)
GPU_FITTED = ["matmul_efficiency", "attention_efficiency", "kernel_latency_us", "overlap_slowdown",
              "nvlink_overlap_slowdown"]
NETWORK_FITTED = ["fast_efficiency", "slow_efficiency"]
HOST_FITTED = ["step_overhead_s"]
MAX_RUNS = 256  # TP_CALIBRATE_MAX_RUNS: larger sets are fitted in parts (fit) or thinned evenly
# Each fit counts a run's log error beyond 10% (about the model's typical
# error) by its size, not its square (soft L1), and keeps only the
# parameters whose fit predicts runs left out of it (calibrate's
# leave_one_out), so that a few runs far off the rest (software the model
# does not describe) or a source too narrow to tell the parameters apart
# cannot drag the constants every other source is predicted with.
ROBUST_SCALE = 0.1
# Every fit here weighs the shipped constants as a prior (calibrate's
# prior_weight: a parameter's move, in units of its range, counts as a run's
# log error of this weight times it). They come from the papers' tables and
# each GPU's own GEMM benchmark (core/presets.c), so a generation that one
# narrow source is left to cover moves only as far as that source insists.
# Without the prior, the GB200's fit without Megatron-Bridge is DGX Cloud's
# 30 runs of NeMo 25.04 alone: attention efficiency 0.25 to 0.16, kernel
# latency 30 to 54 us, and Megatron-Bridge's GB200 runs 10.6% to 12.4%
# (with it, 0.17, 43 us and matmul 0.55: 11.4%). Against hundreds of Hopper
# runs one run's weight moves none of the papers' figures, whose fit the
# Hopper constants are, by a tenth of a point. A user's calibration on three
# runs takes it for the same reason (docs/calibrate.md says when): three
# runs that agree with each other need not agree with the rest of their
# cluster. Without it, DGX Cloud's first three H100 runs, two of them one 8B
# plan that newer NeMo ran 10-14% faster than the same plan in NeMo's own
# docs, move the matmul efficiency from 0.63 to 0.76 and the cluster's
# other runs from 6.7% to 9.9%.
PRIOR_WEIGHT = 1.0
# What a source's throughput error left out of the fit may be (issue 34), and
# all runs' together
LOSO_SOURCE_TARGET = 0.12
LOSO_ALL_TARGET = 0.10
# the papers' tables as their sources (one paper, one set of machines)
PAPERS = {"Fujii": "Fujii et al. 2024", "Narayanan": "Narayanan et al. 2021", "Wang": "Wang et al. 2025",
          "Chen": "Chen et al. 2023"}


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd[:2]), p.stderr.strip()))
    return p.stdout


def generation(tensor_tflops):
    """The GPU generation of a paper's run (their runs carry none: A100s and
    H100s); the published runs name theirs."""
    return "Ampere" if tensor_tflops < 400 else ("Hopper" if tensor_tflops < 1100 else "Blackwell")


def fit_group(generation, gpu):
    """The runs fitted together: a generation's GPUs that ship the same
    constants. GPUs of one generation whose matmul or attention benchmarks
    differ ship different efficiencies (core/presets.c), so each is fitted
    apart."""
    return "%s %.3f/%.3f" % (generation, gpu["matmul_efficiency"], gpu["attention_efficiency"])


def network_group(network):
    """The runs whose network constants are fitted together: the networks
    that ship the same efficiencies (core/presets.c sets the scale-out's by
    the NIC's rate, and one cluster's from its own runs)."""
    return "fast %.2f, slow %.2f" % (network["fast_efficiency"], network["slow_efficiency"])


def load_runs(build):
    """Every run: source, name, fit groups (fit_group, network_group), full config (as the estimate
    echoes it, so its GPU is an object) and measured step time."""
    trainplan = os.path.join(build, "trainplan")
    with tempfile.TemporaryDirectory() as tmp:
        papers = os.path.join(tmp, "papers.jsonl")
        run([os.path.join(build, "tests", "test_perf_measured"), os.path.join(ROOT, "tests"), "--runs", papers])
        results = validate.evaluate(trainplan)
        corpus = os.path.join(tmp, "corpus.jsonl")
        validate.write_runs(results, corpus)
        lines = [json.loads(x) for x in open(papers)] + [json.loads(x) for x in open(corpus)]

    def full(line):
        out = json.loads(run([trainplan, "estimate", "-"], json.dumps(line["config"])))
        config = out["config"]
        source = line["source"]
        for key, name in PAPERS.items():
            if source.startswith(key):
                source = name
        return {"source": source, "name": line["name"], "config": config,
                "group": fit_group(line.get("generation") or generation(config["system"]["gpu"]["tensor_tflops"]),
                                    config["system"]["gpu"]),
                "network": network_group(config["system"]["network"]),
                "step_s": line["measured"]["step_s"], "predicted_s": out["time"]["step_s"],
                "not_modelled": line.get("not_modelled", False)}

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(full, lines))


def thinned(runs):
    if len(runs) <= MAX_RUNS:
        return runs
    step = len(runs) / MAX_RUNS
    return [runs[int(i * step)] for i in range(MAX_RUNS)]


def runs_document(runs):
    """A calibrate document of runs' configs and measured step times."""
    return {"runs": [{"name": r["name"][:47], "config": r["config"], "measured": {"step_s": r["step_s"]}}
                     for r in thinned(runs)]}


def fit(trainplan, runs, names):
    """The fitted values of the constants names over runs (those that share
    them), the runs not modelled left out: their slowness is software
    trainplan does not describe, not the hardware's. More runs than one
    calibration takes are fitted in interleaved parts (every k-th run), each
    run in one, and the parts' values averaged: every run counts, and the
    constants do not hang on which runs a thinning happens to keep."""
    runs = [r for r in runs if not r["not_modelled"]]
    if not runs:
        return {}
    parts = -(-len(runs) // MAX_RUNS)
    fits = [fit_part(trainplan, runs[j::parts], names) for j in range(parts)]
    return {name: sum(f[name] for f in fits) / parts for name in fits[0]}


def fit_part(trainplan, runs, names):
    doc = dict(runs_document(runs), fit=names, leave_one_out=True, one_cluster=False, robust_scale=ROBUST_SCALE,
               prior_weight=PRIOR_WEIGHT)
    out = json.loads(run([trainplan, "calibrate", "-"], json.dumps(doc)))
    return {p["name"].split(".")[-1]: p["fitted"] for p in out["parameters"] if p["name"].split(".")[-1] in names}


def fit_constants(trainplan, runs, everything=None, left_out=None):
    """The constants fitted to every run but those of the source left_out
    (to all, without it): each GPU group's, then each network's under
    those, then the host's under both; one pass of each, the GPUs' first,
    as they move a step time most. A GPU group with no run of left_out
    keeps its fit over all runs (everything), which it would come out as."""
    theirs = [r for r in runs if r["source"] != left_out]
    held = {r["group"] for r in runs if r["source"] == left_out}
    constants = {"gpu": {}, "network": {}, "host": {}}
    for g in sorted({r["group"] for r in runs}):
        if everything and g not in held:
            constants["gpu"][g] = everything["gpu"][g]
        else:
            constants["gpu"][g] = fit(trainplan, [r for r in theirs if r["group"] == g], GPU_FITTED)
    for n in sorted({r["network"] for r in runs}):
        constants["network"][n] = fit(trainplan, [with_constants(r, constants) for r in theirs if r["network"] == n],
                                      NETWORK_FITTED)
    constants["host"] = fit(trainplan, [with_constants(r, constants) for r in theirs], HOST_FITTED)
    return constants


def with_constants(r, constants):
    """The run r with the constants of its GPU group and network, and the
    host's, set in its config."""
    config = json.loads(json.dumps(r["config"]))
    config["system"]["gpu"].update(constants["gpu"].get(r["group"], {}))
    config["system"]["network"].update(constants["network"].get(r["network"], {}))
    config["system"].update(constants["host"])
    return dict(r, config=config)


def fitted_errors(trainplan, runs, constants):
    """The throughput errors of runs predicted under constants: predicted
    rate over measured rate, less 1."""
    def step(r):
        out = json.loads(run([trainplan, "estimate", "-"], json.dumps(with_constants(r, constants)["config"])))
        return out["time"]["step_s"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        steps = list(pool.map(step, runs))
    return [r["step_s"] / s - 1.0 for r, s in zip(runs, steps)]


def calibrated_errors(trainplan, calibrating, predicted, prior_weight=0.0):
    """trainplan calibrate on the runs calibrating, its defaults but for
    prior_weight, and the throughput errors of the runs predicted under the
    fitted system."""
    doc = dict(runs_document(calibrating), prior_weight=prior_weight)
    system = json.loads(run([trainplan, "calibrate", "-"], json.dumps(doc)))["system"]
    values = {k: v for k, v in system["gpu"].items() if k in GPU_FITTED}
    network = {k: v for k, v in system["network"].items() if k.endswith("efficiency")}
    constants = {"gpu": {r["group"]: values for r in predicted}, "network": {r["network"]: network for r in predicted},
                 "host": {"step_overhead_s": system["step_overhead_s"]}}
    return fitted_errors(trainplan, predicted, constants)


def calibrated_on_three(trainplan, runs, sources):
    """A user's calibration: per source and cluster, trainplan calibrate
    (every parameter, the default) on three of its runs (the first, a
    third and two thirds of the way down the source's list of the runs
    trainplan models: no user calibrates on a run its source calls a
    bug), the rest predicted with the fit; and, for scale, the same runs
    predicted by a calibration on every modelled run of the cluster, those
    included: the least error that fitting the model's parameters to that
    cluster can leave. Beside them, one factor on every predicted step of
    the cluster, the median of its modelled runs' measured over predicted
    steps: what a correction of the cluster's bias alone leaves, chosen
    knowing every run.
    Returns rows (source, runs predicted, MAPE uncalibrated, MAPE
    calibrated on three, MAPE calibrated on all, MAPE with one factor)
    over the clusters with more than three runs."""
    rows = []
    for source in sources:
        before, after, floor, scaled = [], [], [], []
        def cluster(r):
            system = r["config"]["system"]
            return (system["gpu"]["name"], system["network"]["name"], system["gpus_per_node"])
        for key in sorted({cluster(r) for r in runs if r["source"] == source}):
            group = [r for r in runs if r["source"] == source and cluster(r) == key]
            modelled = [r for r in group if not r["not_modelled"]]
            if len(modelled) <= 3:
                continue
            picked = [modelled[0], modelled[len(modelled) // 3], modelled[2 * len(modelled) // 3]]
            rest = [r for r in group if r not in picked]
            before += [r["step_s"] / r["predicted_s"] - 1.0 for r in rest]
            after += calibrated_errors(trainplan, picked, rest, PRIOR_WEIGHT)
            floor += calibrated_errors(trainplan, modelled, rest)
            factor = statistics.median(r["step_s"] / r["predicted_s"] for r in modelled)
            scaled += [r["step_s"] / (factor * r["predicted_s"]) - 1.0 for r in rest]
        if before:
            rows.append((source, len(before), mape(before), mape(after), mape(floor), mape(scaled)))
    return rows


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    build = argv[1]
    trainplan = os.path.join(build, "trainplan")
    runs = load_runs(build)
    sources = sorted({r["source"] for r in runs}, key=lambda s: (s not in PAPERS.values(), s))
    everything = fit_constants(trainplan, runs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        left_out = dict(zip(sources, pool.map(lambda s: fit_constants(trainplan, runs, everything, s), sources)))
    rows, all_shipped, all_loso, all_in = [], [], [], []
    for source in sources:
        mine = [r for r in runs if r["source"] == source]
        shipped = [r["step_s"] / r["predicted_s"] - 1.0 for r in mine]
        loso = fitted_errors(trainplan, mine, left_out[source])
        inside = fitted_errors(trainplan, mine, everything)
        rows.append((source, len(mine), mape(shipped), mape(inside), mape(loso)))
        all_shipped += shipped
        all_loso += loso
        all_in += inside
    text = report(rows, everything, len(runs), mape(all_shipped), mape(all_in), mape(all_loso))
    three = calibrated_on_three(trainplan, runs, sources)
    text += three_run_report(three)
    if "--write" in argv:
        with open(REPORT, "w") as f:
            f.write(text)
    print(text)
    if "--check" in argv and (not os.path.exists(REPORT) or open(REPORT).read() != text):
        print("FAIL: docs/validation-loso.md is stale: run python3 tests/validation/loso.py build --write")
        return 1
    # issue 37: a user's calibration on three runs never makes a source worse
    worse = [(source, before, after) for source, _, before, after, _, _ in three if after > before]
    if "--check" in argv and worse:
        for source, before, after in worse:
            print("FAIL: calibrating on three runs makes %s worse: %.2f%% -> %.2f%%"
                  % (source, 100 * before, 100 * after))
        return 1
    # issue 34: left out of the fit, no source above 12% and all runs at most 10%
    over = [(source, c) for source, _, _, _, c in rows if c > LOSO_SOURCE_TARGET]
    if mape(all_loso) > LOSO_ALL_TARGET:
        over.append(("all runs", mape(all_loso)))
    if "--check" in argv and over:
        for source, value in over:
            print("FAIL: %s left out of the fit: %.2f%%, above its target (%.0f%% a source, %.0f%% all runs)"
                  % (source, 100 * value, 100 * LOSO_SOURCE_TARGET, 100 * LOSO_ALL_TARGET))
        return 1
    return 0


def report(rows, everything, count, shipped, inside, loso):
    about = ("Generated by `python3 tests/validation/loso.py build --write`. Each source's throughput error "
             "(MAPE) three ways: with the constants trainplan ships (core/presets.c, fitted on the papers' "
             "tables), with the constants fitted by `trainplan calibrate` to every source's runs (in sample), "
             "and fitted to every *other* source's runs (left out): the last is the error to expect on a "
             "trainer the model has never seen. %d runs: the papers' measured tables and the published runs "
             "of docs/validation.md. The constants fitted are each GPU generation's (%s), then under those "
             "each network's (%s), then under both the host's time per step (%s), one value for every "
             "framework. Each fit counts a run's log error beyond %d%% by its size rather than its square "
             "(robust_scale %g), keeps a parameter only where its fit predicts runs left out of it "
             "(leave_one_out), and weighs the shipped constants as a prior (prior_weight %g), so a few runs "
             "far off the rest cannot drag the constants; the runs an assumption calls not modelled "
             "(docs/validation.md) are predicted but not fitted on."
             % (count, ", ".join(GPU_FITTED), ", ".join(NETWORK_FITTED), ", ".join(HOST_FITTED),
                100 * ROBUST_SCALE, ROBUST_SCALE, PRIOR_WEIGHT))
    lines = ["# Leave one source out", ""] + textwrap.wrap(about, 78) + ["",
             "| source | runs | shipped | in sample | left out |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for source, n, a, b, c in rows:
        lines.append("| %s | %d | %.1f%% | %.1f%% | %.1f%% |" % (source, n, 100 * a, 100 * b, 100 * c))
    lines.append("| all | %d | %.1f%% | %.1f%% | %.1f%% |" % (count, 100 * shipped, 100 * inside, 100 * loso))
    lines += ["", "The constants fitted to all sources (not yet shipped); a value the runs do",
              "not determine stays the shipped one. Each generation's, per shipped matmul",
              "and attention efficiency (a generation's GPUs differ in them by their",
              "benchmarks, core/presets.c):", ""]
    lines += constants_table("generation and shipped matmul/attention efficiency", everything["gpu"], GPU_FITTED)
    lines += ["", "Each network's, per shipped efficiencies (the scale-out's is set by the",
              "NIC's rate, and for one cluster by its own runs):", ""]
    lines += constants_table("network's shipped efficiencies", everything["network"], NETWORK_FITTED)
    lines += ["", "The host's time per step: %s." % ", ".join("%s %.3g" % (k, everything["host"][k])
                                                         for k in HOST_FITTED if k in everything["host"])]
    return "\n".join(lines) + "\n"


def constants_table(title, groups, names):
    lines = ["| %s | " % title + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    for g, values in groups.items():
        lines.append("| %s | " % g + " | ".join("%.3g" % values[k] if k in values else "–" for k in names) + " |")
    return lines


def three_run_report(rows):
    lines = ["", "## A user's calibration: three runs of a cluster", "",
             "What `trainplan calibrate` with its defaults (every parameter; at most two",
             "fewer than the runs and at least one, so one; set back where the runs left",
             "out come out no better, by two standard errors) and the shipped constants",
             "as a prior (prior_weight %g, as docs/calibrate.md advises for a few runs)" % PRIOR_WEIGHT,
             "does for a user who measured three runs: per source and cluster, the",
             "first run and those a third and two thirds down the source's list",
             "calibrate, and the cluster's other runs are predicted. A run an",
             "assumption calls not modelled (a bug its source reports,",
             "docs/validation.md) is predicted but never calibrated on, here or in the",
             "fits above.",
             "The target is at least half the uncalibrated error on average over the",
             "published runs and no source worse; `*` marks a source made worse. The",
             "papers' own tables are in the shipped constants' fit already, so three of",
             "their runs have less to add. The last column calibrates on every run of",
             "the cluster, the predicted ones included: what is left there is scatter",
             "that the fitted parameters do not remove even in sample, the scale against",
             "which a calibration on three of the runs is to be read. The column before",
             "it scales every predicted step of a cluster by one factor, the median of",
             "its runs' measured over predicted steps: the most that correcting a",
             "cluster's bias can do, even knowing every run, which is all that three",
             "runs can fit one parameter to.", "",
             "| source | runs predicted | uncalibrated | calibrated on 3 | one factor, on all "
             "| calibrated on all |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for source, n, before, after, floor, scaled in rows:
        lines.append("| %s | %d | %.1f%% | %.1f%%%s | %.1f%% | %.1f%% |"
                     % (source, n, 100 * before, 100 * after, " *" if after > before else "", 100 * scaled,
                        100 * floor))
    corpus = [r for r in rows if r[0] not in PAPERS.values()]
    if corpus:
        b = statistics.fmean(r[2] for r in corpus)
        a = statistics.fmean(r[3] for r in corpus)
        f = statistics.fmean(r[4] for r in corpus)
        k = statistics.fmean(r[5] for r in corpus)
        lines += ["", "Mean over the published runs' sources: %.1f%% uncalibrated, %.1f%% calibrated "
                      "(%.0f%% of it%s); one factor per cluster chosen on all its runs, %.1f%% (%.0f%%); "
                      "calibrated on all of a cluster's runs, %.1f%% (%.0f%%)."
                      % (100 * b, 100 * a, 100 * a / b, "" if a <= 0.5 * b else "; the target is 50%",
                         100 * k, 100 * k / b, 100 * f, 100 * f / b)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
