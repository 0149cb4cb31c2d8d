"""The C core's memory figures against an independent derivation
(trainplan_ref.py).

What is kept, and why. The reference once re-typed the whole core in
Python, step time and search included, and held every figure to 1e-12; a
change to the step-time model then had to be made twice, in the same
commit, and the second copy checked little but the transcription. Its two
halves are not alike:
  * the memory closed forms (parameter counts, bytes per parameter, shard
    factors, activations, the per-stage totals) are short and written from
    the papers' equations, so a second derivation catches real slips: a
    term on the wrong stage, a factor of tp or cp in the wrong place. That
    half is kept here;
  * the step-time model and the search were a transliteration of the C
    (down to the search's tie-break hash), so they are now held by reviewed
    golden outputs instead (test_golden.py, tests/golden/: regenerate with
    tests/golden/regenerate.py and review the diff), together with the C
    brute-force and property tests (tests/unit/test_search.c,
    tests/unit/test_properties.c).

The comparison, at 1e-12 relative (the two sum the same terms, at most in a
different order, which moves the last bits; any formula that differs moves
far more), of every figure under `memory` that `trainplan estimate` prints
(every stage's items and their parts, bytes per parameter, peak, capacity,
zone), `params`, and the plan's dp, micro-batches, shard factors and expert
sizes:
  * 400 random configs over every dense preset and custom GPT, ViT and Llama
    shapes, every cluster, sharding scheme, schedule, recompute mode,
    optimizer, precision, SUMMA and rank order (which must not change
    memory: the reference has no placement);
  * 300 more over the mixture-of-experts presets and custom MoE shapes with
    gqa or latent attention, ep, etp and capacity factor;
  * 200 with pipeline stages that need not divide the layers (balanced, or
    the first stage given), and Llama 3.1 405B at pp 16 and DeepSeek-V3 at
    pp 8 by hand;
  * 300 dense and MoE configs offloading activations to host memory, half
    of those with fp8 weights also with fp8 parameters, and Llama 3.1 8B
    by hand.

Run: python3 -m unittest discover -s tests/reference -v  (after ci/build.sh)
"""
import json
import os
import random
import subprocess
import time
import unittest

import trainplan_ref as ref

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "trainplan")
REL = 1e-12

MODELS = ["llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-2-7b", "llama-2-13b",
          "mistral-7b", "qwen2.5-7b", "qwen2.5-72b", "gpt3-175b", "gpt3-1t", "vit-era5"]
CLUSTERS = ["dgx-a100", "dgx-h100", "dgx-b200", "abci-a100", "tsubame4", "perlmutter",
            "a100-4x-200g", "a100-4x-100g", "a800-8x-4hdr", "lbnl-a100", "lbnl-h200",
            "lbnl-b200", "gb200-nvl72", "gb300-nvl72", "dgx-b300", "h800-8x-400g",
            "mi325x-platform", "mi355x-platform"]


def run_cli(command, doc):
    """(exit status, parsed JSON or None, stderr) of trainplan COMMAND on doc."""
    p = subprocess.run([CLI, command, "-"], input=json.dumps(doc), capture_output=True, text=True)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else None), p.stderr


def close(a, b):
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


def random_config(rng):
    """A config of random shape; some are invalid and the CLI says so. Only
    what memory depends on varies, and the rank order, which it must not."""
    if rng.random() < 0.25:  # a custom shape, GPT, ViT or Llama
        heads = rng.choice([8, 16, 32, 48, 64])
        hidden = heads * rng.choice([64, 128])
        gpt = rng.random() < 0.5
        vit = gpt and rng.random() < 0.4
        model = {"name": "custom", "arch": "vit" if vit else "gpt" if gpt else "llama",
                 "layers": rng.choice([12, 24, 32, 48, 96]), "hidden": hidden, "heads": heads,
                 "kv_heads": heads if gpt else rng.choice([1, 2, 4, 8, heads]),
                 "ffn_hidden": 4 * hidden if gpt else rng.choice([8, 11]) * hidden // 3 // 64 * 64,
                 "vocab": rng.choice([32000, 50257, 128256]),
                 "tied_embeddings": rng.random() < 0.3, "dropout": gpt and rng.random() < 0.5}
        if gpt:
            model["positions"] = 32768
        if vit:  # patches instead of tokens; learned positions or none
            del model["vocab"], model["tied_embeddings"]
            model["patch_dim"] = rng.choice([48, 320, 768])
            model["positions"] = rng.choice([0, 32768])
    else:
        model = {"preset": rng.choice(MODELS)}
    gpus = rng.choice([8, 16, 32, 64, 128, 256, 512, 1024, 4096])
    tp = rng.choice([1, 2, 4, 8, 16])
    pp = rng.choice([1, 2, 3, 4, 8, 16])
    cp = rng.choice([1, 1, 2, 4])
    parallel = {"tp": tp, "pp": pp, "cp": cp, "sp": rng.random() < 0.7,
                "order": "-".join(rng.sample(["tp", "cp", "dp", "pp"], 4))}
    scheme = rng.choice(["zero", "zero", "fsdp_full_shard", "fsdp_shard_grad_op",
                         "fsdp_hybrid_shard", "amsp"])
    parallel["sharding"] = scheme
    if scheme == "zero":
        parallel["zero"] = rng.choice([0, 1, 2, 3])
    elif scheme == "fsdp_hybrid_shard" and rng.random() < 0.5:
        parallel["shard_group"] = rng.choice([2, 4, 8])
    elif scheme == "amsp":
        w = rng.choice([1, 2])
        parallel["amsp"] = {"weights": [w, 1], "gradients": [w * rng.choice([1, 2]), 1],
                            "optimizer": [8 // tp if tp <= 8 else 1, rng.choice([1, 2])]}
    if rng.random() < 0.25:  # 2D TP with SUMMA: weights over tp x cp, sp on
        parallel["tp_algorithm"] = "summa"
        parallel["sp"] = True
    schedule = rng.choice(["1f1b", "1f1b", "interleaved", "gpipe"])
    parallel["schedule"] = schedule
    if schedule == "interleaved":
        parallel["virtual_stages"] = rng.choice([2, 3, 4])
    precision = {"weights": rng.choice(["bf16", "bf16", "fp16", "fp32"]),
                 "gradients": rng.choice(["fp32", "bf16"]),
                 "optimizer": rng.choice(["fp32", "bf16"]),
                 "master_weights": rng.random() < 0.8}
    precision["fp8"] = precision["weights"] != "fp32" and rng.random() < 0.2
    precision["fsdp_mixed_precision"] = rng.random() < 0.3
    training = {"seq_len": rng.choice([2048, 4096, 8192, 32768]),
                "global_batch": rng.choice([256, 512, 1024, 1536, 4096]),
                "micro_batch": rng.choice([1, 1, 2, 4]),
                "optimizer": rng.choice(["adam", "adamw", "sgd", "adafactor", "adam8bit"]),
                "recompute": rng.choice(["none", "selective", "full"]),
                "flash_attention": rng.random() < 0.8,
                "precision": precision}
    if training["recompute"] == "full" and rng.random() < 0.4:  # some of each stage's layers
        training["recompute_layers"] = rng.randint(1, max(1, model.get("layers", 32) // pp))
    if precision["fp8"] and rng.random() < 0.5:  # fp8 primary weights
        precision["fp8_params"] = True
    if rng.random() < 0.15:  # activation offloading: one stage, no recompute, some layers
        parallel["pp"], training["recompute"] = 1, "none"
        training.pop("recompute_layers", None)
        parallel.pop("virtual_stages", None)
        parallel["schedule"] = "1f1b"
        training["offload_layers"] = rng.randint(1, 11)
    system = {"cluster": rng.choice(CLUSTERS), "gpus": gpus}
    # each trainer's facts: fused SwiGLU or not, fp8 inputs kept or not
    training["framework"] = rng.choice(["megatron-core", "nemo", "torchtitan", "llm-foundry", "deepspeed"])
    return {"model": model, "system": system, "training": training, "parallel": parallel}


class MemoryAgrees(unittest.TestCase):
    checks = 0  # figures compared, over every test of the class

    def same(self, theirs, ours, path, where):
        """Every figure of theirs (the CLI's) equals ours, recursively;
        returns how many figures it compared."""
        if isinstance(theirs, dict):
            n = 0
            for k, v in theirs.items():
                self.assertIn(k, ours, f"{path}.{k}: the reference has no such figure {where}")
                n += self.same(v, ours[k], f"{path}.{k}", where)
            return n
        if isinstance(theirs, (list, tuple)):
            self.assertEqual(len(theirs), len(ours), f"{path}: length {where}")
            return sum(self.same(a, b, f"{path}[{i}]", where) for i, (a, b) in enumerate(zip(theirs, ours)))
        if isinstance(theirs, (str, bool)) or isinstance(ours, (str, bool)):
            self.assertEqual(theirs, ours, f"{path} {where}")
        else:
            self.assertTrue(close(theirs, ours), f"{path}: {theirs} vs {ours} {where}")
        return 1

    def compare(self, doc):
        """The CLI's estimate of doc, its memory side checked against the
        reference; None where the CLI refuses doc."""
        code, out, err = run_cli("estimate", doc)
        if code == 2:
            return None
        self.assertEqual(code, 0, err)
        mine = ref.estimate(out["config"])
        mem = mine["memory"]
        where = json.dumps(doc)
        plan = out["plan"]
        ours_plan = {"dp": mem["dp"], "micro_batches": mem["micro_batches"],
                     "shard_factors": dict(zip(("weights", "gradients", "optimizer"), mem["shards"][:3]))}
        theirs_plan = {k: plan[k] for k in ours_plan}
        if "expert_shard_factors" in plan:
            ours_plan["expert_shard_factors"] = dict(zip(("weights", "gradients", "optimizer"),
                                                         mem["expert_shards"]))
            ours_plan.update(zip(("ep", "etp", "edp"), mem["expert_sizes"]))
            theirs_plan.update({k: plan[k] for k in ("expert_shard_factors", "ep", "etp", "edp")})
        n = self.same(theirs_plan, ours_plan, "plan", where)
        n += self.same(out["params"], {"total": mine["params_total"], "active": mine["params_active"]},
                       "params", where)
        n += self.same(out["memory"], mem, "memory", where)
        MemoryAgrees.checks += n
        return out

    def test_benchmark_estimate(self):
        with open(os.path.join(ROOT, "tests", "bench", "cases.json")) as f:
            self.assertTrue(self.compare(json.load(f)["estimate"]))

    def test_either_spelling_of_the_rates(self):
        """The reference reads no bandwidth or rate, so the echoed config's
        keys may be spelt either way (hbm_gbps or hbm_gb_per_s, and so on)."""
        renames = {("gpu", "hbm_gbps"): "hbm_gb_per_s", ("gpu", "nvlink_gbps"): "nvlink_gb_per_s",
                   ("gpu", "network_gbps"): "network_gbit_per_s", ("network", "fast_gbps"): "fast_gb_per_s",
                   ("network", "slow_gbps"): "slow_gbit_per_s", (None, "loader_gbps"): "loader_gb_per_s"}
        code, out, err = run_cli("estimate", {"model": {"preset": "mixtral-8x7b"},
                                              "system": {"cluster": "dgx-h100", "gpus": 64},
                                              "parallel": {"tp": 2, "pp": 2, "ep": 4, "zero": 3}})
        self.assertEqual(code, 0, err)
        doc = json.loads(json.dumps(out["config"]))
        for (part, old), new in renames.items():
            where = doc["system"][part] if part else doc["system"]
            if old in where:
                where[new] = where.pop(old)
            else:  # already renamed: spell it the old way
                where[old] = where.pop(new)
        self.assertEqual(ref.estimate(doc), ref.estimate(out["config"]))

    def test_selective_op(self):
        """torchtitan's per-op checkpointing: random configs made to use it
        (those the CLI refuses, MoE, MLA, no flash attention, SUMMA, left
        out), and Llama 3.1 8B at b 2, s 8192 by hand."""
        rng = random.Random(11)
        valid = 0
        for _ in range(200):
            doc = random_config(rng)
            doc["training"]["recompute"] = "selective_op"
            doc["training"].pop("recompute_layers", None)
            valid += self.compare(doc) is not None
        print(f"\n{valid} of 200 random selective_op configs valid and equal")
        self.assertGreaterEqual(valid, 25)
        out = self.compare({"model": {"preset": "llama-3.1-8b"}, "system": {"gpus": 8},
                            "training": {"framework": "torchtitan", "seq_len": 8192, "micro_batch": 2,
                                         "global_batch": 16, "recompute": "selective_op"}})
        tokens = 2 * 8192
        op = 2 * tokens * (4096 + 1024 + 4096 + 14336 + 4096 + 4096)  # Q V O W1 W2 input
        whole = tokens * 167936  # Q, O 2h each, K, V 2w each, eager SwiGLU 8f, 8h: bytes a token
        stage = out["memory"]["stages"][0]
        parts = stage["activation_parts"]
        self.assertEqual(stage["activations_bytes"],
                         32 * op + whole - op + parts["embedding_bytes"] + parts["lm_head_bytes"])

    def test_uneven_stages(self):
        """Pipeline stages that do not divide the layers: Llama 3.1 405B
        (126 layers) at pp 16, DeepSeek-V3 (61) at pp 8, the ends given
        outright (also interleaved), and random uneven splits."""
        out = self.compare({"model": {"preset": "llama-3.1-405b"}, "system": {"gpus": 8192},
                            "training": {"seq_len": 8192, "micro_batch": 1, "global_batch": 2048},
                            "parallel": {"tp": 8, "pp": 16}})
        self.assertEqual([s["layers"] for s in out["memory"]["stages"]], [7, 8, 7])
        out = self.compare({"model": {"preset": "deepseek-v3"}, "system": {"gpus": 1024},
                            "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 1024,
                                         "recompute": "full"},
                            "parallel": {"tp": 2, "pp": 8, "ep": 64, "zero": 1}})
        self.assertEqual([s["layers"] for s in out["memory"]["stages"]], [7, 8, 6])
        out = self.compare({"model": {"preset": "deepseek-v3"}, "system": {"gpus": 1024},
                            "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 1024},
                            "parallel": {"tp": 2, "pp": 16, "ep": 64, "schedule": "interleaved",
                                         "virtual_stages": 2, "first_stage_layers": 2,
                                         "last_stage_layers": 6}})
        self.assertIsNone(out)  # 61 - 2 - 6 = 53 does not split over 14 stages
        out = self.compare({"model": {"preset": "llama-3.1-405b"}, "system": {"gpus": 1024},
                            "training": {"seq_len": 4096, "micro_batch": 1, "global_batch": 1024},
                            "parallel": {"tp": 8, "pp": 8, "schedule": "interleaved", "virtual_stages": 2,
                                         "first_stage_layers": 14, "last_stage_layers": 16}})
        self.assertEqual([s["layers"] for s in out["memory"]["stages"]], [14, 16, 16])
        # DeepSeek-V3 interleaved, balanced: 63 units over 32 chunks
        out = self.compare({"model": {"preset": "deepseek-v3"}, "system": {"gpus": 256},
                            "training": {"seq_len": 4096, "global_batch": 2048, "recompute": "full"},
                            "parallel": {"tp": 1, "pp": 16, "ep": 16, "schedule": "interleaved",
                                         "virtual_stages": 2}})
        self.assertEqual([s["layers"] for s in out["memory"]["stages"]], [3, 4, 2])
        rng = random.Random(5)
        valid = interleaved = 0
        for _ in range(200):
            doc = random_config(rng)
            if rng.random() < 0.5:
                to_moe(doc, rng, [1, 2, 4])
                doc["parallel"]["sp"] = True
            doc["parallel"]["pp"] = rng.choice([3, 5, 6, 7, 12])
            if rng.random() < 0.3:
                doc["parallel"]["first_stage_layers"] = rng.randint(1, 8)
            elif rng.random() < 0.4:  # balanced chunks of unequal units
                doc["parallel"].update(schedule="interleaved", virtual_stages=rng.choice([2, 3, 5]))
                doc["training"]["global_batch"] = 1024 * doc["parallel"]["pp"]  # micro-batches a multiple of pp
                doc["training"].pop("offload_layers", None)
            doc["system"]["gpus"] = doc["parallel"]["pp"] * rng.choice([8, 16, 64])
            out = self.compare(doc)
            if out is not None:
                layers = [s["layers"] for s in out["memory"]["stages"]]
                valid += len(set(layers)) > 1
                interleaved += len(set(layers)) > 1 and doc["parallel"]["schedule"] == "interleaved"
        print(f"\n{valid} of 200 random configs with uneven stages valid and equal, {interleaved} interleaved")
        self.assertGreaterEqual(valid, 30)
        self.assertGreaterEqual(interleaved, 5)

    def test_fp8_recipe_scales(self):
        """Each fp8 byte carries its recipe's scale: MXFP8 one byte per 32
        values (Blackwell), 1x128 blocks one fp32 per 128 activations and
        per 128x128 weights; dense and MoE, with recompute modules."""
        base = {"model": {"preset": "llama-3.1-70b"}, "system": {"cluster": "gb200-nvl72", "gpus": 64},
                "training": {"seq_len": 8192, "global_batch": 64, "recompute": "selective",
                             "recompute_mlp": True,
                             "precision": {"fp8": True, "fp8_recipe": "mxfp8"}},
                "parallel": {"tp": 4}}
        mx = self.compare(base)
        base["training"]["precision"]["fp8_recipe"] = "delayed"
        delayed = self.compare(base)
        self.assertEqual(mx["memory"]["bytes_per_param"]["fp8_weights"], 2.0 * (1 + 1 / 32))
        self.assertGreater(mx["memory"]["peak_bytes"], delayed["memory"]["peak_bytes"])
        moe = {"model": {"preset": "mixtral-8x7b"}, "system": {"cluster": "dgx-h100", "gpus": 64},
               "training": {"seq_len": 4096, "global_batch": 64, "recompute_moe_act": True,
                            "precision": {"fp8": True, "fp8_recipe": "blockwise", "fp8_params": True}},
               "parallel": {"tp": 2, "ep": 8, "zero": 1}}
        out = self.compare(moe)
        self.assertEqual(out["memory"]["bytes_per_param"]["weights"], 1 + 4 / 128 ** 2)

    def test_fp8_weight_copies(self):
        """Transformer Engine keeps a weight's fp8 cast and a columnwise one
        (Hopper's transpose, MXFP8's column-scaled cast); Blackwell reads one
        per-tensor-scaled copy both ways; NVFP4 keeps two half-byte casts,
        each with a 1-byte scale per 16 values."""
        doc = {"model": {"preset": "llama-3.1-70b"}, "system": {"cluster": "gb200-nvl72", "gpus": 64},
               "training": {"seq_len": 8192, "global_batch": 64,
                            "precision": {"fp8": True, "fp8_recipe": "tensorwise"}},
               "parallel": {"tp": 4}}
        bpp = lambda out: out["memory"]["bytes_per_param"]  # noqa: E731
        self.assertEqual(bpp(self.compare(doc))["fp8_weights"], 1.0)
        doc["training"]["precision"]["fp8_params"] = True
        self.assertEqual([bpp(self.compare(doc))[k] for k in ("weights", "fp8_weights")], [1.0, 0.0])
        doc["training"]["precision"].update(fp8_params=False, fp4=True)
        self.assertEqual(bpp(self.compare(doc))["fp8_weights"], 2 * (0.5 + 1 / 16))
        doc["training"]["precision"].pop("fp4")
        doc["system"]["cluster"] = "dgx-h100"
        self.assertEqual(bpp(self.compare(doc))["fp8_weights"], 2.0)

    def test_red_is_the_tensors_alone(self):
        """A peak over capacity only with the allocator's slack is yellow;
        over it without the slack, red."""
        doc = {"model": {"preset": "llama-3.1-8b"}, "system": {"cluster": "dgx-h100", "gpus": 8},
               "parallel": {"sharding": "fsdp_full_shard"},
               "training": {"seq_len": 8192, "global_batch": 16, "micro_batch": 1},
               "overheads": {"fragmentation": 0.6}}
        out = self.compare(doc)
        m = out["memory"]
        self.assertGreater(m["usage_fraction"], 1.0)
        self.assertLessEqual(m["allocated_fraction"], 1.0)
        self.assertEqual(m["zone"], "yellow")
        doc["training"]["micro_batch"] = 2
        m = self.compare(doc)["memory"]
        self.assertGreater(m["allocated_fraction"], 1.0)
        self.assertEqual(m["zone"], "red")

    def test_pp_gather_once(self):
        """torchtitan under pipeline parallelism keeps FSDP's weights and
        gradients whole through the step: zero 1's states, the optimizer
        alone sharded; without pp, or with the switch off, FSDP shards."""
        doc = {"model": {"preset": "llama-3.1-70b"}, "system": {"gpus": 256},
               "training": {"framework": "torchtitan", "seq_len": 8192, "global_batch": 256},
               "parallel": {"tp": 8, "pp": 4, "sharding": "fsdp_full_shard"}}
        out = self.compare(doc)
        self.assertTrue(out["config"]["parallel"]["pp_gather_once"])
        self.assertEqual([out["plan"]["shard_factors"][k] for k in ("weights", "gradients", "optimizer")], [1, 1, 8])
        doc["parallel"]["pp_gather_once"] = False
        out = self.compare(doc)
        self.assertEqual([out["plan"]["shard_factors"][k] for k in ("weights", "gradients")], [8, 8])
        for sharding in ("fsdp_shard_grad_op", "fsdp_hybrid_shard"):
            doc["parallel"] = {"tp": 8, "pp": 4, "sharding": sharding, "pp_gather_once": True}
            out = self.compare(doc)
            self.assertEqual([out["plan"]["shard_factors"][k] for k in ("weights", "gradients")], [1, 1])

    def test_recompute_modules(self):
        """Megatron-Core's recompute modules on random dense and MoE configs
        (gqa and latent attention), beside recompute none or selective."""
        rng = random.Random(31)
        valid, used = 0, set()
        for doc, moe in dense_and_moe_configs(rng, 300):
            t = doc["training"]
            t["recompute"] = rng.choice(["none", "selective"])
            t.pop("recompute_layers", None)
            for name in ("recompute_mlp", "recompute_norms"):
                t[name] = rng.random() < 0.5
            if moe:
                t["recompute_moe_act"] = rng.random() < 0.5
                if doc["model"].get("attention") == "mla" or doc["model"].get("preset", "").startswith("deepseek"):
                    t["recompute_mla_up_proj"] = rng.random() < 0.5
            out = self.compare(doc)
            if out:
                valid += 1
                used.update(k for k in ("recompute_mlp", "recompute_norms", "recompute_moe_act",
                                        "recompute_mla_up_proj") if t.get(k))
        print(f"\n{valid} of 300 configs with recompute modules valid and equal; {sorted(used)} among them")
        self.assertGreaterEqual(valid, 60)
        self.assertEqual(len(used), 4)

    def test_recompute_elementwise(self):
        """torch.compile's partitioner rebuilding element-wise results, on
        random dense and MoE configs (with and without fp8 inputs kept), and
        Llama 3.1 8B compiled in torchtitan by hand."""
        rng = random.Random(43)
        valid, kinds = 0, set()
        for doc, moe in dense_and_moe_configs(rng, 300):
            t = doc["training"]
            t["recompute_elementwise"] = True
            t["recompute"] = rng.choice(["none", "selective", "full", "selective_op"])
            if t["recompute"] != "full":
                t.pop("recompute_layers", None)
            if self.compare(doc) is not None:
                valid += 1
                kinds.add((moe, t["recompute"], bool(t.get("precision", {}).get("fp8"))))
        print(f"\n{valid} of 300 random configs rebuilding element-wise results valid and equal; "
              f"{len(kinds)} of 14 MoE x recompute x fp8 kinds among them")
        self.assertGreaterEqual(valid, 60)
        self.assertGreaterEqual(len(kinds), 10)
        compiled = {"model": {"preset": "llama-3.1-8b"}, "system": {"gpus": 8},
                    "training": {"framework": "torchtitan", "eager": False, "seq_len": 8192,
                                 "micro_batch": 1, "global_batch": 8}}
        out = self.compare(compiled)
        self.assertTrue(out["config"]["training"]["recompute_elementwise"])
        # norm inputs 4h, Q and O 2h each, K and V 2w each, gate and up 4f
        per_token = 4 * 4096 + 2 * 4096 + 2 * 4096 + 4 * 1024 + 4 * 14336
        self.assertEqual(out["memory"]["stages"][0]["activation_parts"]["layer_bytes"], 8192 * per_token)
        compiled["training"]["recompute_elementwise"] = False  # given, it stays
        out = self.compare(compiled)
        self.assertFalse(out["config"]["training"]["recompute_elementwise"])
        self.assertEqual(out["memory"]["stages"][0]["activation_parts"]["layer_bytes"],
                         8192 * (8 * 4096 + 4 * 4096 + 4 * 1024 + 8 * 14336))

    def test_random_configs(self):
        rng = random.Random(7)
        start, before = time.monotonic(), MemoryAgrees.checks
        valid, schemes, summa = 0, set(), 0
        for _ in range(400):
            doc = random_config(rng)
            out = self.compare(doc)
            if out:
                valid += 1
                summa += doc["parallel"].get("tp_algorithm") == "summa"
                schemes.add((doc["parallel"]["sharding"], doc["parallel"]["schedule"],
                             doc["training"]["recompute"]))
        print(f"\n{valid} of 400 random configs valid and equal ({summa} with SUMMA), "
              f"{MemoryAgrees.checks - before} figures compared in {time.monotonic() - start:.1f} s; "
              f"{len(schemes)} of 45 sharding x schedule x recompute combinations among them")
        self.assertGreaterEqual(summa, 20)
        # enough valid configs, and most combinations of the branches met
        self.assertGreaterEqual(valid, 120)
        self.assertGreaterEqual(len(schemes), 30)

    def test_offload_and_fp8_params(self):
        """Activation offloading and fp8 parameters on random dense and MoE
        configs made to use them (one stage, no recompute; fp8 with
        master weights and a sharded optimizer), and by hand: Llama 3.1 8B
        offloading 8 of its 32 layers with fp8, each 8192 x 120,832 bytes
        (model.c: 6h of norm inputs and fp8 norm outputs, Q, O and W_O's
        fp8 input 5h, K and V 4w, fused SwiGLU with W2's fp8 input 5f);
        fp8 parameters 2 B a parameter less than bf16 with fp8's cache, on
        the 32 layers' 6,979,584,000 (the embedding and the LM head stay
        bf16)."""
        rng = random.Random(23)
        valid, offloaded, fp8 = 0, 0, 0
        for i in range(300):
            doc = random_config(rng)
            if i % 2:
                to_moe(doc, rng, [1, 2, 4, 8])
            t, p = doc["training"], doc["parallel"]
            t["recompute"], p["pp"], p["schedule"] = "none", 1, "1f1b"
            t.pop("recompute_layers", None)
            p.pop("virtual_stages", None)
            t["offload_layers"] = rng.randint(1, 7)
            pr = t["precision"]
            if pr["weights"] != "fp32" and rng.random() < 0.5:
                pr.update(fp8=True, fp8_params=True, master_weights=True)
                if p["sharding"] == "zero":
                    p["zero"] = rng.choice([1, 2, 3])
            out = self.compare(doc)
            if out:
                valid += 1
                offloaded += "offloaded_bytes" in out["memory"]["stages"][0]["activation_parts"]
                fp8 += out["memory"]["bytes_per_param"]["weights"] == 1
        print(f"\n{valid} of 300 offloading configs valid and equal, {fp8} of them with fp8 parameters")
        self.assertGreaterEqual(valid, 60)
        self.assertEqual(offloaded, valid)
        self.assertGreaterEqual(fp8, 15)
        base = {"model": {"preset": "llama-3.1-8b"}, "system": {"gpus": 8},
                "training": {"seq_len": 8192, "micro_batch": 1, "global_batch": 16,
                             "precision": {"fp8": True}}}
        plain = self.compare(base)["memory"]["stages"][0]
        base["training"]["offload_layers"] = 8
        base["training"]["precision"]["fp8_params"] = True
        both = self.compare(base)["memory"]["stages"][0]
        self.assertEqual(plain["activations_bytes"] - both["activations_bytes"], 8 * 8192 * 120832)
        self.assertEqual(plain["weights_bytes"] - both["weights_bytes"], 2 * 32 * (4096 * (4096 + 2 * 1024 + 4096)
                                                                                   + 3 * 4096 * 14336 + 2 * 4096))

    def test_moe_and_mla_configs(self):
        """Mixture-of-experts and latent-attention models: presets and custom
        shapes over ep, etp, capacity factor and the same schemes."""
        rng = random.Random(11)
        start, before = time.monotonic(), MemoryAgrees.checks
        valid, kinds = 0, set()
        for _ in range(300):
            doc = random_config(rng)
            if doc["parallel"]["sharding"] == "amsp":  # refused for MoE
                doc["parallel"] = {k: v for k, v in doc["parallel"].items() if k != "amsp"}
                doc["parallel"]["sharding"] = "zero"
            doc["model"] = random_moe_model(rng)
            doc["parallel"].pop("tp_algorithm", None)  # SUMMA is refused for MoE
            doc["parallel"]["sp"] = doc["parallel"]["sp"] or rng.random() < 0.8
            doc["parallel"]["ep"] = rng.choice([1, 2, 4, 8, 16])
            if rng.random() < 0.6:
                doc["parallel"]["etp"] = rng.choice([1, 1, 2, 4])
            doc["training"]["capacity_factor"] = rng.choice([1.0, 1.0, 1.25, 2.0])
            if self.compare(doc):
                valid += 1
                kinds.add((doc["model"].get("preset", "custom"), doc["parallel"]["sharding"],
                           doc["training"]["recompute"], doc["parallel"]["ep"] > 1))
        print(f"\n{valid} of 300 MoE/MLA configs valid and equal, {MemoryAgrees.checks - before} "
              f"figures compared in {time.monotonic() - start:.1f} s; {len(kinds)} model x scheme x "
              "recompute x ep kinds among them")
        self.assertGreaterEqual(valid, 60)
        self.assertGreaterEqual(len(kinds), 30)


MOE_MODELS = ["mixtral-8x7b", "mixtral-8x22b", "qwen2-57b-a14b", "deepseek-v2-lite", "deepseek-v3",
              "qwen3-30b-a3b", "qwen3-235b-a22b"]


def dense_and_moe_configs(rng, n):
    """n random configs, every other one made MoE (to_moe, ep 1 to 4),
    each with whether it is."""
    for i in range(n):
        doc = random_config(rng)
        if i % 2 == 1:
            to_moe(doc, rng, [1, 2, 4])
        yield doc, i % 2 == 1


def to_moe(doc, rng, eps):
    """Makes a random config's model a MoE one (random_moe_model), with
    what MoE needs of the plan: no AMSP or SUMMA, zero sharding, an ep
    among eps."""
    doc["model"] = random_moe_model(rng)
    p = doc["parallel"]
    p.pop("amsp", None)
    p.pop("tp_algorithm", None)
    p.update(sharding="zero", ep=rng.choice(eps))


def random_moe_model(rng):
    """A MoE preset, or a custom MoE shape with gqa or latent attention."""
    if rng.random() < 0.5:
        return {"preset": rng.choice(MOE_MODELS)}
    heads = rng.choice([8, 16, 32])
    hidden = heads * 128
    model = {"name": "custom", "arch": "llama", "layers": rng.choice([8, 12, 16, 24]), "hidden": hidden,
             "heads": heads, "kv_heads": rng.choice([2, 4, 8]), "ffn_hidden": 3 * hidden,
             "vocab": rng.choice([32000, 102400]),
             "moe": {"experts": rng.choice([8, 16, 64]), "experts_per_token": rng.choice([1, 2, 6]),
                     "expert_ffn_hidden": rng.choice([512, 1408, 2048]),
                     "shared_experts": rng.choice([0, 0, 1, 2]), "every": rng.choice([1, 1, 2]),
                     "first_dense": rng.choice([0, 0, 1, 3])}}
    if rng.random() < 0.3:
        model["head_dim"] = rng.choice([64, 128, 256])  # heads of their own size
    elif rng.random() < 0.5:
        model["attention"] = "mla"
        model["kv_heads"] = heads
        model["mla"] = {"q_lora_rank": rng.choice([0, 512, 1024]), "kv_lora_rank": rng.choice([256, 512]),
                        "qk_nope_head_dim": 128, "qk_rope_head_dim": rng.choice([0, 64]), "v_head_dim": 128}
    return model


if __name__ == "__main__":
    unittest.main()
