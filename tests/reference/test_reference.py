"""The C core against its Python reference (trainplan_ref.py), issue 7.

Two implementations of the same equations, written apart, must agree:
  * estimates: 400 random configs over every dense preset and custom shapes,
    every cluster, sharding scheme, schedule, recompute mode, optimizer,
    precision and placement order; every memory, time and throughput figure
    `trainplan estimate` prints must equal the reference's to 1e-12 relative
    (the two sum the same terms, at most in a different order, which moves
    the last bits; any formula that differs moves far more); and 300 more
    over the mixture-of-experts presets and custom MoE shapes with gqa or
    latent attention, ep, etp and capacity factor;
  * searches: the counts of every kind and the ranked top plans with their
    step times, for spaces with and without AMSP's patterns, and with SUMMA.

Run: python3 -m unittest discover -s tests/reference -v  (after ci/build.sh)
"""
import json
import os
import random
import subprocess
import unittest

import trainplan_ref as ref

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "trainplan")
REL = 1e-12

MODELS = ["llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-2-7b", "llama-2-13b",
          "mistral-7b", "qwen2.5-7b", "qwen2.5-72b", "gpt3-175b", "gpt3-1t", "vit-era5"]
CLUSTERS = ["dgx-a100", "dgx-h100", "dgx-b200", "abci-a100", "tsubame4", "perlmutter",
            "a100-4x-200g", "a100-4x-100g", "a800-8x-4hdr", "lbnl-a100", "lbnl-h200",
            "lbnl-b200"]


def run_cli(command, doc):
    """(exit status, parsed JSON or None, stderr) of trainplan COMMAND on doc."""
    p = subprocess.run([CLI, command, "-"], input=json.dumps(doc), capture_output=True, text=True)
    return p.returncode, (json.loads(p.stdout) if p.returncode == 0 else None), p.stderr


def close(a, b):
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


def random_config(rng):
    """A config of random shape; some are invalid and the CLI says so."""
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
    if rng.random() < 0.25:  # 2D TP with SUMMA: tp x cp, sp on, n_b chosen or pinned
        parallel["tp_algorithm"] = "summa"
        parallel["sp"] = True
        if rng.random() < 0.5:
            parallel["summa_panels"] = rng.choice([1, 2, 4, 8])
    schedule = rng.choice(["1f1b", "1f1b", "interleaved", "gpipe"])
    parallel["schedule"] = schedule
    if schedule == "interleaved":
        parallel["virtual_stages"] = rng.choice([2, 3, 4])
    precision = {"weights": rng.choice(["bf16", "bf16", "fp16", "fp32"]),
                 "gradients": rng.choice(["fp32", "bf16"]),
                 "optimizer": rng.choice(["fp32", "bf16"]),
                 "master_weights": rng.random() < 0.8}
    precision["fp8"] = precision["weights"] != "fp32" and rng.random() < 0.2
    training = {"seq_len": rng.choice([2048, 4096, 8192, 32768]),
                "global_batch": rng.choice([256, 512, 1024, 1536, 4096]),
                "micro_batch": rng.choice([1, 1, 2, 4]),
                "optimizer": rng.choice(["adam", "adamw", "sgd", "adafactor", "adam8bit"]),
                "recompute": rng.choice(["none", "selective", "full"]),
                "flash_attention": rng.random() < 0.8,
                "dataloader_mask": rng.random() < 0.4,
                "precision": precision,
                "gpu_hour_cost": rng.choice([0, 2.5])}
    if training["recompute"] == "full" and rng.random() < 0.4:  # some of each stage's layers
        training["recompute_layers"] = rng.randint(1, max(1, model.get("layers", 32) // pp))
    system = {"cluster": rng.choice(CLUSTERS), "gpus": gpus}
    if rng.random() < 0.5:  # a slow loader binds more often
        system["loader_gbps"] = rng.choice([0.05, 0.48, 5.0])
    if rng.random() < 0.3:
        system["step_overhead_s"] = rng.choice([0.0, 0.5])
    return {"model": model, "system": system, "training": training, "parallel": parallel}


class EstimateAgrees(unittest.TestCase):
    def compare(self, doc):
        """The CLI's estimate of doc, checked against the reference; None
        where the CLI refuses doc."""
        code, out, err = run_cli("estimate", doc)
        if code == 2:
            return None
        self.assertEqual(code, 0, err)
        mine = ref.estimate(out["config"])
        where = json.dumps(doc)
        self.assertEqual(out["params"]["total"], mine["params_total"], where)
        self.assertEqual(out["params"]["active"], mine["params_active"], where)
        mem = mine["memory"]
        self.assertEqual(out["plan"]["dp"], mem["dp"], where)
        self.assertEqual(out["plan"]["micro_batches"], mem["micro_batches"], where)
        factors = out["plan"]["shard_factors"]
        self.assertEqual([factors["weights"], factors["gradients"], factors["optimizer"]],
                         list(mem["shards"][:3]), where)
        for k, v in out["memory"]["bytes_per_param"].items():
            self.assertTrue(close(v, mem["bytes_per_param"][k]), f"bytes_per_param.{k} {where}")
        self.assertEqual(len(out["memory"]["stages"]), len(mem["stages"]), where)
        if "expert_shard_factors" in out["plan"]:
            x = out["plan"]["expert_shard_factors"]
            self.assertEqual([x["weights"], x["gradients"], x["optimizer"]], list(mem["expert_shards"]), where)
            self.assertEqual([out["plan"]["ep"], out["plan"]["etp"], out["plan"]["edp"]],
                             list(mem["expert_sizes"]), where)
        for theirs, ours in zip(out["memory"]["stages"], mem["stages"]):
            self.assertEqual(theirs["name"], ours["name"], where)
            for k, v in theirs.items():
                if k in ("other", "experts", "activation_parts"):
                    for kk, vv in v.items():
                        self.assertTrue(close(vv, ours[k][kk]),
                                        f"{ours['name']}.{k}.{kk}: {vv} vs {ours[k][kk]} {where}")
                elif k != "name":
                    self.assertTrue(close(v, ours[k]), f"{ours['name']}.{k}: {v} vs {ours[k]} {where}")
        self.assertTrue(close(out["memory"]["peak_bytes"], mem["peak_bytes"]), where)
        for k, v in out["time"].items():
            self.assertTrue(close(v, mine["time"][k]), f"time.{k}: {v} vs {mine['time'][k]} {where}")
        for k, v in mine["throughput"].items():
            self.assertTrue(close(out["throughput"][k], v),
                            f"throughput.{k}: {out['throughput'][k]} vs {v} {where}")
        return out

    def place_explicitly(self, doc, rng):
        """Half the time, doc's order becomes one of the blocks of ranks that
        fill a node (seed 002 S3), drawn from the reference's list. Returns
        whether it did."""
        code, out, _ = run_cli("estimate", doc)
        if code != 0 or rng.random() < 0.5:
            return False
        p = out["plan"]
        blocks = ref.node_blocks([p["tp"], p["cp"], p["dp"], p["pp"]], out["config"]["system"]["gpus"],
                                 out["config"]["system"]["gpus_per_node"])
        if not blocks:
            return False
        doc["parallel"].pop("order", None)
        doc["parallel"]["per_node"] = dict(zip(ref.DIM_NAMES, rng.choice(blocks)))
        return True

    def test_benchmark_estimate(self):
        with open(os.path.join(ROOT, "tests", "bench", "cases.json")) as f:
            self.assertTrue(self.compare(json.load(f)["estimate"]))

    def test_random_configs(self):
        rng = random.Random(7)
        valid, schemes, summa, placed, waiting = 0, set(), 0, 0, 0
        for _ in range(400):
            doc = random_config(rng)
            explicit = self.place_explicitly(doc, rng)
            out = self.compare(doc)
            if out:
                valid += 1
                waiting += out["time"]["data_wait_s"] > 0.0
                summa += doc["parallel"].get("tp_algorithm") == "summa"
                placed += explicit
                schemes.add((doc["parallel"]["sharding"], doc["parallel"]["schedule"],
                             doc["training"]["recompute"]))
        print(f"\n{valid} of 400 random configs valid and equal ({summa} with SUMMA, {placed} placed by "
              f"ranks per node, {waiting} waiting for the data loader); {len(schemes)} of 45 sharding x "
              f"schedule x recompute combinations among them")
        self.assertGreaterEqual(summa, 20)
        self.assertGreaterEqual(waiting, 10)
        self.assertGreaterEqual(placed, 40)
        # enough valid configs, and most combinations of the branches met
        self.assertGreaterEqual(valid, 120)
        self.assertGreaterEqual(len(schemes), 30)

    def test_moe_and_mla_configs(self):
        """Mixture-of-experts and latent-attention models: presets and custom
        shapes over ep, etp, capacity factor and the same schemes."""
        rng = random.Random(11)
        valid, kinds = 0, set()
        for _ in range(300):
            doc = random_config(rng)
            if doc["parallel"]["sharding"] == "amsp":  # refused for MoE
                doc["parallel"] = {k: v for k, v in doc["parallel"].items() if k != "amsp"}
                doc["parallel"]["sharding"] = "zero"
            doc["model"] = random_moe_model(rng)
            for key in ("tp_algorithm", "summa_panels"):  # SUMMA is refused for MoE
                doc["parallel"].pop(key, None)
            doc["parallel"]["sp"] = doc["parallel"]["sp"] or rng.random() < 0.8
            doc["parallel"]["ep"] = rng.choice([1, 2, 4, 8, 16])
            if rng.random() < 0.6:
                doc["parallel"]["etp"] = rng.choice([1, 1, 2, 4])
            doc["training"]["capacity_factor"] = rng.choice([1.0, 1.0, 1.25, 2.0])
            self.place_explicitly(doc, rng)
            if self.compare(doc):
                valid += 1
                kinds.add((doc["model"].get("preset", "custom"), doc["parallel"]["sharding"],
                           doc["training"]["recompute"], doc["parallel"]["ep"] > 1))
        print(f"\n{valid} of 300 MoE/MLA configs valid and equal; {len(kinds)} model x scheme x "
              "recompute x ep kinds among them")
        self.assertGreaterEqual(valid, 60)
        self.assertGreaterEqual(len(kinds), 30)


MOE_MODELS = ["mixtral-8x7b", "mixtral-8x22b", "qwen2-57b-a14b", "deepseek-v2-lite", "deepseek-v3",
              "qwen3-30b-a3b", "qwen3-235b-a22b"]


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


SEARCHES = {
    "llama-3.1-8b on 64 H100": {
        "model": {"preset": "llama-3.1-8b"}, "system": {"cluster": "dgx-h100", "gpus": 64}},
    "gpt3-175b on 128 A100 40GB (4 per node), AMSP": {
        "model": {"preset": "gpt3-175b"}, "system": {"cluster": "a100-4x-200g", "gpus": 128},
        "training": {"seq_len": 2048, "global_batch": 1536},
        "search": {"sharding": ["zero0", "zero1", "zero2", "zero3", "fsdp_hybrid", "amsp"],
                   "micro_batch": [1, 4]}},
    # seed 002 S3: the five blocks of a node of 8 that keep tp 2 whole, four
    # of them no rank order gives
    "llama-3.1-8b on 64 H100, tp 2 cp 2 pp 4, every placement": {
        "model": {"preset": "llama-3.1-8b"}, "system": {"cluster": "dgx-h100", "gpus": 64},
        "training": {"global_batch": 64},
        "search": {"tp": [2, 2], "cp": [2, 2], "pp": [4, 4], "micro_batch": [1, 2]}},
    "llama-3.1-70b on 256 H100, no placements, sp on": {
        "model": {"preset": "llama-3.1-70b"}, "system": {"cluster": "dgx-h100", "gpus": 256},
        "search": {"placement": False, "sp": [True], "recompute": ["none", "full"]}},
    # an encoder: cp need only divide its 3,000 tokens (causal cp needs 2 cp)
    "custom ViT on 64 B200 (seed 002 hardware)": {
        "model": {"name": "custom", "arch": "vit", "layers": 24, "hidden": 2048, "heads": 16,
                  "ffn_hidden": 8192, "patch_dim": 768, "positions": 3000},
        "system": {"cluster": "seed002-b200", "gpus": 64},
        "training": {"seq_len": 3000, "global_batch": 512},
        "search": {"recompute": ["none"], "micro_batch": [1, 2]}},
    "custom ViT on 64 B200 with SUMMA (n_b chosen per plan)": {
        "model": {"name": "custom", "arch": "vit", "layers": 24, "hidden": 2048, "heads": 16,
                  "ffn_hidden": 8192, "patch_dim": 768, "positions": 3000},
        "system": {"cluster": "seed002-b200", "gpus": 64},
        "training": {"seq_len": 3000, "global_batch": 512},
        "parallel": {"tp_algorithm": "summa"},
        "search": {"recompute": ["none"], "micro_batch": [1, 2], "tp": [2, 8]}},
}


class SearchAgrees(unittest.TestCase):
    def test_searches(self):
        placed = 0  # top plans placed by ranks per node
        for name, doc in SEARCHES.items():
            with self.subTest(name):
                doc = dict(doc, search=dict(doc.get("search", {}), top=10))
                code, out, err = run_cli("search", doc)
                self.assertEqual(code, 0, err)
                base = out["plans"][0]["estimate"]["config"]
                if "summa_panels" in base["parallel"]:  # the search's base leaves n_b free
                    base["parallel"]["summa_panels"] = doc.get("parallel", {}).get("summa_panels", 0)
                counts, top = ref.search(base, out["search"])
                theirs = dict(out["counts"])
                del theirs["invalid_total"]
                self.assertEqual(theirs, counts)
                self.assertEqual(len(out["plans"]), len(top))
                placed += sum("order" not in plan["plan"] for plan in out["plans"])
                for rank, (plan, (step_s, peak, _, ours)) in enumerate(zip(out["plans"], top)):
                    shown = {k: v for k, v in plan["plan"].items()}
                    self.assertEqual(shown, ours, f"rank {rank + 1}")
                    self.assertTrue(close(plan["estimate"]["time"]["step_s"], step_s), f"rank {rank + 1}")
                    self.assertTrue(close(plan["estimate"]["memory"]["peak_bytes"], peak), f"rank {rank + 1}")
                print(f"\n{name}: {counts['candidates']} plans, {counts['fit']} fit; "
                      f"top 10 equal, best {top[0][3]['tp']}x{top[0][3]['pp']}x{top[0][3]['cp']} "
                      f"{top[0][0]:.3f} s")
        self.assertGreaterEqual(placed, 4)


if __name__ == "__main__":
    unittest.main()
