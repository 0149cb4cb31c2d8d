"""Published training runs as trainplan configs.

Each source's rows (tests/validation/runs/*.csv, transcribed with their
provenance in runs/README.md) become a config in the estimate's input form,
plus what the source measured. Everything a source does not print is an
assumption, and every assumption is said, row by row: the report lists
them. A row whose plan the source does not print is skipped with the
reason; a row trainplan refuses is not skipped, it is a failure.
"""
import csv
import os
import re

RUNS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs")

SOURCES = [
    # (source_id, file, the trainer)
    ("llmfoundry_mpt", "llmfoundry_mpt_benchmarks.csv", "llm-foundry"),
    ("torchtitan", "torchtitan_llama.csv", "torchtitan"),
    ("megatron_lm_readme", "megatron_lm_readme.csv", "megatron-core"),
    ("megatron_bridge_perf_summary", "megatron_bridge_perf_summary.csv", "nemo"),
    ("nemo_repo_perf_docs", "nemo_repo_perf_docs.csv", "nemo"),
    ("nemotron4_15b", "nemotron4_15b.csv", "megatron-core"),
    ("megascale_nsdi24", "megascale_nsdi24.csv", "megatron-core"),
    ("llama3_herd_405b", "llama3_herd_405b.csv", "torchtitan"),
    ("bloom_176b_tr11", "bloom_176b_tr11.csv", "deepspeed"),
    ("opt_175b", "opt_175b.csv", "torchtitan"),
    ("deepseek_v3", "deepseek_v3.csv", "megatron-core"),
    ("torchao_float8", "torchao_float8.csv", "torchtitan"),
    ("dgxc_benchmarking", "dgxc_benchmarking.csv", "nemo"),
    ("olmo_core", "olmo_core.csv", "torchtitan"),
]


class Skip(Exception):
    """The source does not print what a config needs (not a refusal)."""


def read_rows(file_name):
    with open(os.path.join(RUNS_DIR, file_name), newline="") as f:
        return list(csv.DictReader(f))


def num(text):
    return float(text) if text not in ("", None) else None


def integer(text):
    return int(float(text)) if text not in ("", None) else None


class Run:
    """One published row: its config, what was measured, what was assumed."""

    def __init__(self, source, row):
        self.source = source
        self.table = row["source_table"]
        self.label = row["row_label"]
        self.config = {}
        self.assumptions = []
        self.tokens_per_s_per_gpu = None  # measured
        self.peak_memory_gib = None       # measured, with memory_kind
        self.memory_kind = None
        self.oom = row.get("oom", "").strip().upper() == "OOM"
        self.gpu_family = None

    def assume(self, text):
        self.assumptions.append(text)


# ---------------------------------------------------------------- shared

def gpt_model(row, positions, tied, dropout):
    return {"name": row["model"], "arch": "gpt", "layers": integer(row["n_layers"]),
            "hidden": integer(row["hidden"]), "heads": integer(row["n_heads"]),
            "kv_heads": integer(row["n_kv_heads"] or row["n_heads"]),
            "ffn_hidden": integer(row["ffn_hidden"]) or 4 * integer(row["hidden"]),
            "vocab": integer(row["vocab"]), "positions": positions,
            "tied_embeddings": tied, "dropout": dropout}


def llama_model(row):
    return {"name": row["model"], "arch": "llama", "layers": integer(row["n_layers"]),
            "hidden": integer(row["hidden"]), "heads": integer(row["n_heads"]),
            "kv_heads": integer(row["n_kv_heads"] or row["n_heads"]),
            "ffn_hidden": integer(row["ffn_hidden"]), "vocab": integer(row["vocab"])}


def megatron_flop_per_token(layers, hidden, seq_len, vocab, ffn_hidden, heads, kv_heads, gated=False):
    """Megatron-LM's model FLOPs per token (training/utils num_floating_point_operations,
    Megatron-Core r0.8): 12 L h^2 [(1 + k/a + s/h) + g ffn/h + v/(2 L h)], with
    full (not causal) attention and g 3/2 for a gated (SwiGLU) MLP, else 1."""
    h = float(hidden)
    g = 1.5 if gated else 1.0
    return 12.0 * layers * h * h * ((1.0 + kv_heads / heads + seq_len / h) + g * ffn_hidden / h
                                    + vocab / (2.0 * layers * h))


# ---------------------------------------------------------------- llm-foundry

def map_llmfoundry(row):
    r = Run("llmfoundry_mpt", row)
    seq = integer(row["seq_len"])
    r.config["model"] = gpt_model(row, positions=seq, tied=True, dropout=False)
    r.assume("MPT blocks as gpt: LayerNorm and biases, learned positions of length seq_len, tied "
             "embeddings (the README's parameter counts check exactly); no dropout (pdrop 0 in the yamls)")
    gpu = {"H100-80GB": "h100-80gb", "A100-80GB": "a100-80gb", "A100-40GB": "a100-40gb"}[row["gpu_type"]]
    if gpu == "h100-80gb":
        r.config["system"] = {"cluster": "dgx-h100", "gpus": integer(row["num_gpus"])}
        r.assume("H100 nodes as DGX H100: 8 GPUs per node, 8 x 400 Gb/s (the README does not say)")
    else:
        r.config["system"] = {"cluster": "dgx-a100", "gpu": gpu, "gpus": integer(row["num_gpus"])}
        r.assume("A100 nodes of 8 GPUs with 8 x 200 Gb/s, the README's 1600 Gbps per node")
    r.gpu_family = "Ampere" if gpu.startswith("a100") else "Hopper"
    sharding = "fsdp_shard_grad_op" if "SHARD_GRAD_OP" in row["zero_stage_or_fsdp"] else "fsdp_full_shard"
    r.config["parallel"] = {"tp": 1, "pp": 1, "cp": 1, "sharding": sharding}
    recompute = "full" if row["activation_recompute"].startswith("full") else "none"
    precision = {"weights": "bf16", "gradients": "fp32", "optimizer": "fp32", "master_weights": True}
    if "fp8" in row["precision"]:
        precision["fp8"] = True
    r.assume("FSDP mixed precision: bf16 compute and gathers over fp32 sharded parameters, gradients "
             "and AdamW states (counted as bf16 weights with an fp32 master copy)")
    r.config["training"] = {"framework": "llm-foundry", "seq_len": seq,
                            "global_batch": integer(row["global_batch_seqs"]),
                            "micro_batch": integer(row["micro_batch"]), "recompute": recompute,
                            "optimizer": "adamw", "precision": precision, "flash_attention": True}
    # the benchmark script runs attn_impl triton unless told otherwise
    # (submit_benchmarks.py); the large-scale table's sweep.py (5e85bd62d)
    # passes --attn_impl flash for these four models
    if row["source_table"].startswith("H100 80GB BF16 (Large Scale") \
            and row["model"].lower() in ("mpt-1b", "mpt-3b", "mpt-7b", "mpt-70b"):
        r.config["training"]["attention_kernel"] = "flash"
        r.assume("FlashAttention-2 (attn_impl flash, as scripts/train/benchmarking/sweep.py sets for this model)")
    else:
        r.assume("FlashAttention in Triton (attn_impl triton, submit_benchmarks.py's default)")
    r.tokens_per_s_per_gpu = num(row["tokens_per_sec_per_gpu"])
    return r


# ---------------------------------------------------------------- torchtitan

def torchtitan_gpu(r, row):
    gpu_type = row["gpu_type"]
    if gpu_type.startswith("H100-80GB SXM"):
        r.config["system"] = {"cluster": "dgx-h100"}
        r.assume("H100 80 GB SXM in nodes of 8 (the source says H100 without the variant)")
    elif gpu_type.startswith("H100"):
        r.config["system"] = {"cluster": "dgx-h100", "gpu": "h100-95gb-hbm2e"}
        if "not stated" in gpu_type:
            r.assume("the H100 variant is not stated: taken as the Grand Teton H100 of torchtitan's own "
                     "H100 benchmarks, from the same PyTorch team")
        r.assume("Grand Teton H100 96 GB HBM2e at 500 W as the h100-95gb-hbm2e preset, its peak the "
                 "midpoint of the SXM's and the NVL's that torchtitan's footnote bounds it by; 8 per "
                 "node with 400 Gb/s RoCE per GPU")
        r.gpu_family = "Hopper"
    elif "power limited" in gpu_type:
        raise Skip("the GPUs are power limited to a limit the source does not state, so their peak is "
                   "not known")
    elif gpu_type == "MI300X":
        r.config["system"] = {"gpu": "mi300x", "gpus_per_node": 8}
        r.assume("8 MI300X on Infinity Fabric in one node (the platform is not stated)")
        r.gpu_family = "CDNA3"
    elif gpu_type == "H200":
        r.config["system"] = {"cluster": "dgx-h100", "gpu": "h200"}
        r.assume("H200 nodes of 8 with 400 Gb/s per GPU (the network is not stated)")
        r.gpu_family = "Hopper"
    elif gpu_type.startswith("A100-80GB"):
        r.config["system"] = {"cluster": "dgx-a100"}
        r.assume("A100 80 GB nodes as DGX A100: 8 per node, 8 x 200 Gb/s (not stated)")
        r.gpu_family = "Ampere"
    else:
        raise Skip("GPU %s has no preset" % gpu_type)
    r.config["system"]["gpus"] = integer(row["num_gpus"])


def map_torchtitan(row):
    r = Run(row["source_id"], row)
    r.config["model"] = llama_model(row)
    torchtitan_gpu(r, row)
    tp, pp, cp = integer(row["tp"]) or 1, integer(row["pp"]) or 1, integer(row["cp"]) or 1
    parallel = {"tp": tp, "pp": pp, "cp": cp, "sharding": "fsdp_full_shard"}
    if pp > 1:
        parallel["sharding"] = "fsdp_shard_grad_op"
        r.assume("with pp, torchtitan keeps each stage's parameters gathered from forward to backward "
                 "(reshard_after_forward False, parallelize_llama.py @9dec370): FSDP's SHARD_GRAD_OP")
        if row["vpp"].startswith("interleaved"):
            parallel["schedule"] = "interleaved"
            parallel["virtual_stages"] = 2
            r.assume("interleaved schedule with 2 model chunks per GPU, the split torchtitan generates "
                     "for a multi-stage schedule without split points (generate_split_points, "
                     "pipelining_utils.py @9dec370)")
        else:
            parallel["schedule"] = "1f1b"
    r.config["parallel"] = parallel
    ac = row["activation_recompute"]
    if ac.startswith("full"):
        recompute = "full"
    elif ac.startswith("selective") and "layer" not in ac:
        recompute = "selective_op"
    elif ac.startswith("selective"):
        recompute = "selective_op"
        r.assume("per-layer selective checkpointing (every n-th layer whole) as the per-op policy: "
                 "per-layer SAC is not modelled")
    else:
        recompute = "none"
    micro = integer(row["micro_batch"])
    if micro is None:
        # pipeline_parallel_microbatches defaults to the pp degree
        # (config_manager.py and pipelining_utils.py @9dec370)
        local = integer(row["global_batch_seqs"]) // (integer(row["num_gpus"]) // (tp * pp * cp))
        micro = local // pp
        r.assume("torchtitan splits a rank's local batch into pp micro-batches, its default "
                 "pipeline_parallel_microbatches (not stated)")
    precision = {"weights": "bf16", "gradients": "fp32", "optimizer": "fp32", "master_weights": True}
    if row["precision"].startswith("fp8"):
        if "gw_hp" in row["precision"]:
            raise Skip("torchao's rowwise_with_gw_hp recipe (the weight gradient in bf16): outside the "
                       "fp8 recipes trainplan models")
        precision["fp8"] = True
        if "rowwise" in row["precision"]:
            precision["fp8_recipe"] = "rowwise"
            if integer(row["tp"]) > 1 and "asyncTP" in row["source_table"]:
                # the table's own note, and torchao PR 2410's root cause
                r.assume("not modelled: the source calls this row's throughput a known bug (torchtitan "
                         "issue 1207: torchao converted the small K and V projections, which ran about "
                         "40% slower per row; torchao PR 2410 filters them); the same shapes on one H100 "
                         "with torch 2.11 ran 4% slower than bf16, not 15-18% (tests/device/README.md)")
        elif "mxfp8" in row["precision"]:
            precision["fp8_recipe"] = "mxfp8"
        r.assume("Float8 linears as fp8 GEMMs, %s scaling, with their weight copies"
                 % precision.get("fp8_recipe", "tensorwise"))
    r.assume("FSDP2 mixed precision: bf16 compute over fp32 sharded parameters, gradients and AdamW states")
    r.config["training"] = {"framework": "torchtitan", "seq_len": integer(row["seq_len"]),
                            "global_batch": integer(row["global_batch_seqs"]),
                            "micro_batch": micro, "recompute": recompute, "optimizer": "adamw",
                            "precision": precision, "flash_attention": True}
    label = row["row_label"].lower()
    # torchtitan's llama3_405b.toml (3faaa1a0d and 9dec370) turns compile on
    # and gathers the Float8 weights in fp8 (enable_fsdp_float8_all_gather);
    # the smaller models' tomls do neither
    big = "405B" in row["model"]
    if big and precision.get("fp8"):
        precision["fp8_params"] = True
        r.assume("FSDP gathers the Float8 weights in fp8 (enable_fsdp_float8_all_gather in llama3_405b.toml) "
                 "as training.precision.fp8_params, which the torchtitan export writes as that option")
    elif precision.get("fp8") and "float8 all-gather" in row["zero_stage_or_fsdp"]:
        precision["fp8_params"] = True
        r.assume("FSDP gathers the Float8 weights in fp8 (the source's float8 all-gather) as "
                 "training.precision.fp8_params")
    if big or "compile" in label or "compile" in row["source_table"].lower() or "compile" in row["notes"]:
        r.config["training"]["eager"] = False
        r.assume("torch.compile on: the element-wise work fused (training.eager false)")
        # the loss is compiled with the model from bbb1b616e (2025-04,
        # components/loss.py); 9dec370's train.py leaves it eager
        # ("compiling loss function causes CUDA errors, turning off for now")
        if "2024" in row["framework"]:
            r.config["overheads"] = {"loss_bytes_per_logit": 6}
            r.assume("the loss eager under compile, as torchtitan before 2025-04 ran it: "
                     "overheads.loss_bytes_per_logit 6")
    else:
        r.assume("eager PyTorch, torchtitan's default (compile = false in its train configs)")
    if "async" in label:
        r.config["parallel"]["tp_overlap"] = True
    r.tokens_per_s_per_gpu = num(row["tokens_per_sec_per_gpu"])
    if row["peak_memory_gb"]:
        r.peak_memory_gib = num(row["peak_memory_gb"])
        r.memory_kind = "reserved"
    return r


# ---------------------------------------------------------------- Megatron-LM README

def map_megatron(row):
    r = Run("megatron_lm_readme", row)
    if row["tp"] == "" or row["dp"] == "" or row["num_gpus"] == "":
        raise Skip("the source prints no parallel plan for this run")
    if row["model_tflops_per_gpu"] == "":
        raise Skip("the source prints no per-GPU throughput for this run")
    seq = integer(row["seq_len"])
    model = gpt_model(row, positions=seq, tied=True, dropout=True)
    model["kv_heads"] = model["heads"]
    model["ffn_hidden"] = 4 * model["hidden"]
    r.config["model"] = model
    r.assume("GPT blocks with multi-head attention, a 4h GeLU MLP, learned positions, tied embeddings "
             "and Megatron's default dropout (the README prints heads, hidden and layers only)")
    r.config["system"] = {"cluster": "dgx-h100", "gpus": integer(row["num_gpus"])}
    r.gpu_family = "Hopper"
    r.assume("DGX H100 nodes (Eos): 8 per node, 8 x 400 Gb/s")
    tp, pp, dp = integer(row["tp"]), integer(row["pp"]), integer(row["dp"])
    gbs = integer(row["global_batch_seqs"])
    r.config["parallel"] = {"tp": tp, "pp": pp, "cp": 1, "sp": True,
                            "sharding": "zero", "zero": 1, "tp_overlap": True}
    r.assume("sequence parallelism and the distributed optimizer on; no recompute; "
             "bf16 with fp32 gradients (not printed)")
    r.assume("--tp-comm-overlap as parallel.tp_overlap; the gradient reduce and parameter gather "
             "overlapped with the last backward and the first forward, as trainplan always counts them")
    if pp == 1:
        # The table succeeds Narayanan et al. 2021's Table 1, by the same
        # team, whose scripts (examples/sc21/run_table_1.sh) give a row
        # without a pipeline as large a micro-batch as fits: the rank's
        # whole batch of 16 from 1.7B to 7.5B. And the 32B row's fp32
        # reduce-scatter alone (0.31 s over 50 GB/s NICs) could not hide
        # behind the last of four micro-batches of its 0.89 s step.
        micro_batch = gbs // dp
        r.assume("micro-batch %d, the rank's whole batch (GBS / DP), which fits: the same team's "
                 "weak-scaling scripts for Narayanan et al. 2021 ran their rows without a pipeline "
                 "at the largest micro-batch that fit" % micro_batch)
    else:
        # "PP" overlap, which the README lists as on, exists only in the
        # interleaved schedule (Megatron-LM's arguments.py turns
        # overlap_p2p_comm off otherwise), and every batch is a multiple
        # of DP x PP micro-batches, the count that schedule requires. The
        # 119B and 462B rows have 23 and 7 layers a stage, prime, so a
        # --num-layers-per-virtual-pipeline-stage shared by every row can
        # only be 1.
        micro_batch = 1
        r.config["parallel"]["schedule"] = "interleaved"
        r.config["parallel"]["virtual_stages"] = model["layers"] // pp
        r.assume("micro-batch 1; the interleaved schedule with one layer per model chunk: the "
                 "README's PP overlap runs only in it, and the batch is a multiple of DP x PP "
                 "micro-batches, as it requires")
    r.config["training"] = {"framework": "megatron-core", "seq_len": seq,
                            "global_batch": gbs, "micro_batch": micro_batch,
                            "recompute": "none", "flash_attention": True,
                            "precision": {"weights": "bf16", "gradients": "fp32", "optimizer": "fp32",
                                          "master_weights": True}}
    m = model
    flop_per_token = megatron_flop_per_token(m["layers"], m["hidden"], seq, m["vocab"], m["ffn_hidden"],
                                             m["heads"], m["kv_heads"])
    r.tokens_per_s_per_gpu = num(row["model_tflops_per_gpu"]) * 1e12 / flop_per_token
    r.assume("tokens/s per GPU from the printed TFLOP/s under Megatron's own FLOP count (full attention)")
    return r


def map_olmo_core(row):
    """OLMo-core trains on the same PyTorch stack as torchtitan (FSDP2,
    torch.compile, torchao's Float8 linears): its profile, with what the
    scripts set."""
    r = map_torchtitan(row)
    # torchtitan before 2025-04 left its loss eager under compile; OLMo-core
    # compiles it (compile_loss=True)
    r.config.pop("overheads", None)
    r.assume("the loss compiled with the model (compile_loss=True in the script)")
    r.assume("OLMo's reordered-norm blocks as Llama blocks; their QK-norm not counted")
    r.assume("every sequence 4,096 tokens, the README's context length (the scripts' data mix draws "
             "256 to 8,192, a variable-sequence-length curriculum)")
    return r


# ---------------------------------------------------------------- papers and NVIDIA's tables

# Models a preset describes, by the source's name (same dimensions).
MODEL_PRESETS = {"Llama 3.1 405B": "llama-3.1-405b", "Llama 3 70B": "llama-3.1-70b", "Llama 3 8B": "llama-3.1-8b",
                 "Qwen3-30B-A3B": "qwen3-30b-a3b", "Qwen3-235B-A22B": "qwen3-235b-a22b", "Kimi_K2": "kimi-k2",
                 "DeepSeek-V3 671B-A37B": "deepseek-v3", "gpt-oss-120b": "gpt-oss-120b"}
CLUSTERS = (("GB200", "gb200-nvl72", "Blackwell"), ("GB300", "gb300-nvl72", "Blackwell"),
            ("B300", "dgx-b300", "Blackwell"), ("H100", "dgx-h100", "Hopper"), ("B200", "dgx-b200", "Blackwell"),
            ("H800", "h800-8x-400g", "Hopper"),
            ("A100-80GB", "dgx-a100", "Ampere"), ("A100", "dgx-a100", "Ampere"), ("Ampere", "dgx-a100", "Ampere"))
GATED = ("Llama", "Qwen", "DeepSeek", "Mistral", "Mixtral")


# Vocabularies a table leaves out, by model family: the NullTokenizer
# sizes NVIDIA's NeMo performance scripts train these models with
# (NVIDIA/NeMo scripts/performance/llm/pretrain_gpt3_175b.py and
# pretrain_nemotron3_{8b,22b}.py, since 81d94d1501, 2025-02-19).
UNPRINTED_VOCAB = {"GPT3": 51200, "Nemotron-3": 256000}


def published_model(r, row):
    name = row["model"].split(" [")[0]
    if name in MODEL_PRESETS:
        r.config["model"] = {"preset": MODEL_PRESETS[name]}
        if name.startswith("DeepSeek"):
            r.assume("DeepSeek-V3 as its preset, without the multi-token-prediction module")
        return True
    family = next((f for f in UNPRINTED_VOCAB if name.startswith(f + " ")), None)
    if row["vocab"] == "" and family and row["source_id"] == "nemo_repo_perf_docs":
        row = dict(row, vocab=str(UNPRINTED_VOCAB[family]))
        r.assume("a vocabulary of %s (not printed): the NullTokenizer size NeMo's performance scripts "
                 "train %s with" % (f"{UNPRINTED_VOCAB[family]:,}", family))
    if row["n_layers"] == "" or row["hidden"] == "" or row["vocab"] == "" \
            or row["ffn_hidden"] == "" and not row["model"].startswith("GPT"):
        raise Skip("the source and the transcription give no model dimensions (%s)" % row["model"])
    if "experts=" in row["notes"]:
        return moe_model(r, row)
    if any(row["model"].startswith(g) for g in GATED):
        r.config["model"] = llama_model(row)
        return True
    seq = integer(row["seq_len"])
    if row["model"].startswith(("GPT3 ", "GPT-3 ")):
        r.config["model"] = gpt_model(row, positions=seq, tied=True, dropout=True)
        r.assume("GPT-3 as NeMo 1.0's YAMLs build it (NeMo-Framework-Launcher conf/training/gpt3, "
                 "dgxc-benchmarking gpt3_175b_hydra.yaml): learned positions, embeddings shared with the "
                 "output layer (NeMo's default), dropout 0.1")
        return False
    r.config["model"] = gpt_model(row, positions=seq, tied=False, dropout=False)
    r.assume("%s as gpt blocks (a two-matrix MLP, LayerNorm, biases; a learned position table of the "
             "sequence's length standing for its rotary or ALiBi positions)" % row["model"])
    return False


# A MoE model no preset describes, as the transcription's notes give it:
# "experts=E, top-k=K, expert ffn=F".
MOE_NOTE = re.compile(r"experts=(\d+), top-k=(\d+), expert ffn=(\d+)")


def moe_model(r, row):
    """A gated MoE model from the row's dimensions and its notes' experts;
    Llama 4's every other layer MoE beside a shared expert, as the notes
    say its public config has."""
    m = MOE_NOTE.search(row["notes"])
    if m is None or not any(row["model"].startswith(g) for g in GATED + ("Grok",)):
        raise Skip("a MoE model without a preset (%s)" % row["model"])
    model = llama_model(row)
    model["moe"] = {"experts": int(m.group(1)), "experts_per_token": int(m.group(2)),
                    "expert_ffn_hidden": int(m.group(3))}
    if "MoE on every other layer with a shared expert" in row["notes"]:
        model["moe"].update(every=2, shared_experts=1)
        r.assume("every other layer MoE, the first dense, with one shared expert of the routed width "
                 "(the public Llama-4-Maverick config: interleave_moe_layer_step 2); its chunked "
                 "attention (8,192 tokens) is whole at this sequence length")
    if row["model"].startswith("Grok"):
        r.assume("Grok-1's GeGLU experts as gated (SwiGLU) ones: the same matrices and FLOPs")
    r.config["model"] = model
    return True


def published_gpu(r, row):
    for key, cluster, family in CLUSTERS:
        if key in row["gpu_type"]:
            r.config["system"] = {"cluster": cluster, "gpus": integer(row["num_gpus"])}
            r.gpu_family = family
            if "4 OPA links per node" in row["notes"]:
                # Jean Zay's gpu_p5 nodes: DGX-like 8 A100s on NVSwitch, with
                # four 100 Gb/s Omni-Path links, not eight 200 Gb/s HDR
                r.config["system"] = {"gpu": "a100-80gb", "gpus": integer(row["num_gpus"]), "gpus_per_node": 8,
                                      "network": {"preset": cluster, "slow_gbit_per_s": 100, "nics_per_node": 4}}
                r.assume("8 A100 80 GB per node on NVSwitch with 4 x 100 Gb/s Omni-Path between nodes")
            if key == "Ampere":
                r.assume("the unnamed Ampere GPUs as A100 80 GB in DGX A100 nodes")
            return
    raise Skip("no preset for %s yet" % row["gpu_type"])


# What a NeMo row is taken to run where its recipe says nothing else.
TP_OVERLAP_AS_RECIPES = "tp communication overlap on, as NVIDIA's performance recipes set it"


def tp_overlap_off(r, why):
    """A NeMo row whose recipe turns tp overlap off, for the reason given."""
    r.config["parallel"]["tp_overlap"] = False
    if TP_OVERLAP_AS_RECIPES in r.assumptions:
        r.assumptions.remove(TP_OVERLAP_AS_RECIPES)
    r.assume(why)


def published_plan(r, row, trainer):
    tp, pp, cp = integer(row["tp"]), integer(row["pp"]) or 1, integer(row["cp"]) or 1
    if tp is None or row["global_batch_seqs"] == "":
        raise Skip("the source prints no parallel plan or batch for this run")
    parallel = {"tp": tp, "pp": pp, "cp": cp, "sp": row["sequence_parallel"] != "no" and tp > 1}
    sharding = row["zero_stage_or_fsdp"]
    if "FSDP" in sharding and "ZeRO-2" in sharding:
        parallel.update(sharding="fsdp_shard_grad_op")
    elif "FSDP" in sharding and "FSDP=0" not in sharding:
        parallel.update(sharding="fsdp_full_shard")
    elif sharding == "ZeRO-1":
        parallel.update(sharding="zero", zero=1)
    elif "ZeRO-2" in sharding:
        parallel.update(sharding="zero", zero=1)
        r.assume("'ZeRO-2 style' data parallelism as Megatron's distributed optimizer: gradients "
                 "accumulate whole and reduce-scatter once per step (trainplan's zero 1)")
    else:
        parallel.update(sharding="zero", zero=1)
        r.assume("the distributed optimizer (ZeRO-1) where the source names no sharding")
    vpp = integer(row["vpp"]) if row["vpp"].isdigit() else None
    if pp > 1 and vpp and vpp > 1:
        parallel.update(schedule="interleaved", virtual_stages=vpp)
        if row["source_id"] == "megascale_nsdi24":
            parallel["pp_overlap"] = False
            r.assume("the Megatron-LM baseline's pipeline sends block: overlapping them is one of "
                     "MegaScale's own changes (Jiang et al. 2024, §3.2)")
    if row["source_id"] == "llama3_herd_405b" and pp > 1:
        # Dubey et al. 2024 §3.3.2: an interleaved schedule whose first
        # model chunk on the first stage holds the embedding alone once one
        # layer is taken off the first and last stages: one unit per chunk,
        # 126 layers and the two ends over 16 stages, 8 chunks each; and
        # asynchronous point-to-point sends
        parallel.update(schedule="interleaved", virtual_stages=(integer(row["n_layers"]) + 2) // pp,
                        pp_overlap=True)
        r.assume("interleaved schedule, %d chunks per stage: the paper's first chunk holds the embedding "
                 "alone, one unit (layer, embedding or head) per chunk" % parallel["virtual_stages"])
        r.assume("pipeline sends asynchronous, beside the compute (the paper's asynchronous point-to-point)")
    if integer(row["ep"]):
        parallel["ep"] = integer(row["ep"])
        etp = re.search(r"ETP=(\d+)", row["notes"])
        if etp:
            parallel["etp"] = int(etp.group(1))
            r.assume("expert tensor parallel %s, as the recipe sets it" % etp.group(1))
        stage_ranks = tp * integer(row["cp"] or "1") * integer(row["dp"] or "1")
        if row["row_label"].endswith(" alt") and stage_ranks % parallel["ep"] != 0:
            # Megatron-Core carves ep out of a stage's ranks; an alternative
            # cell that changes pp without its own ep leaves the main one's
            parallel["ep"] = stage_ranks
            r.assume("ep %d: the parenthesized alternative gives pp %s and no ep of its own, and the main "
                     "row's ep %s does not fit the %d ranks of a stage" % (stage_ranks, row["pp"], row["ep"],
                                                                           stage_ranks))
    if trainer == "nemo" and tp > 1:
        parallel["tp_overlap"] = True
        r.assume(TP_OVERLAP_AS_RECIPES)
    if row["source_id"] == "nemotron4_15b" and tp > 1:
        parallel["tp_overlap"] = True
        r.assume("tp communication overlap on: %s sets ub_tp_comm_overlap True" % NEMOTRON_CONFIG)
    r.config["parallel"] = parallel
    if "nvl72" in r.config["system"].get("cluster", ""):
        r.assume("GB200/GB300 racks as one 72-GPU NVLink domain (the transcription's 4 per node is the "
                 "compute tray, not the NVLink domain)")


def fp8_recipe(row):
    """The scaling a run's precision label names. Megatron-Bridge's tables print
    "fp8" for the recipes' precision='fp8_cs' (megatron_bridge_recipes.csv
    shows every such row's recipe), current per-tensor scaling; NeMo's
    "fp8" is its bf16_with_fp8_mixed recipe, delayed scaling, the
    framework's default."""
    label = row["precision"].lower()
    if "mx" in label:
        return "mxfp8"
    if "blockwise" in label:
        return "blockwise"
    if label == "fp8-cs" or (label == "fp8" and row["source_id"] == "megatron_bridge_perf_summary"):
        return "tensorwise"
    return None


# NVIDIA's own config for Nemotron-4 15B, in every version from the
# report's month (2024-02) to its last (2024-12): the settings the report
# does not print.
NEMOTRON_CONFIG = ("NVIDIA's own config for the model (NeMo-Framework-Launcher "
                   "conf/training/nemotron/nemotron_15b.yaml, @01903770 2024-02-09 to @3dd35614 2024-12-05)")

# What a row that prints no activation recompute is taken to run; a
# recipe that recomputes replaces it.
NO_RECOMPUTE_PRINTED = "no activation recompute (not printed)"


# A packed SQuAD v1.1 example, context, question and answer: about 900
# characters (huggingface.co/datasets/varun-v-rao/squad, 79,061,690 bytes
# over 87,285 training examples) at about 4 characters per token; 100 or
# 300 moves the SFT rows by under 1%.
SQUAD_EXAMPLE_TOKENS = 200


def published_training(r, row, trainer):
    ac = row["activation_recompute"]
    recompute = "full" if ac.startswith("full") else ("selective" if ac.startswith("selective") else "none")
    if ac == "":
        r.assume(NO_RECOMPUTE_PRINTED)
    micro = integer(row["micro_batch"])
    if micro is None and row["source_id"] == "nemotron4_15b":
        micro = 2
        r.assume("micro-batch of 2 sequences (not printed): %s sets micro_batch_size 2" % NEMOTRON_CONFIG)
    elif micro is None:
        micro = 1
        r.assume("micro-batch of 1 sequence (not printed)")
    precision = {"weights": "bf16", "gradients": "fp32", "optimizer": "fp32", "master_weights": True}
    unstated_fp8 = row["precision"] == "" and "different FP8 quantization granularity" in row["notes"]
    if unstated_fp8:
        r.assume("fp8: the table's footnote calls its parenthesized figures a different FP8 "
                 "granularity, so the main figures are fp8 too; per tensor, current scaling, as the "
                 "next release's tables print it (FP8-CS)")
    if unstated_fp8 or any(p in row["precision"] for p in ("fp8", "fp4", "FP8", "FP4")):
        precision["fp8"] = True
        recipe = "tensorwise" if unstated_fp8 else fp8_recipe(row)
        if recipe:
            precision["fp8_recipe"] = recipe
        r.assume("%s GEMMs at the GPU's FP8 peak, with their weight copies, %s scaling"
                 % (row["precision"][:12], recipe or "the framework's default"))
    if "fp4" in row["precision"].lower():
        precision["fp4"] = True
        r.assume("NVFP4 linear GEMMs at the GPU's FP4 peak, their weight copies and saved inputs NVFP4's")
    r.config["training"] = {"framework": trainer, "seq_len": integer(row["seq_len"]),
                            "global_batch": integer(row["global_batch_seqs"]), "micro_batch": micro,
                            "recompute": recompute, "precision": precision, "flash_attention": True}
    if "SFT" in row["source_table"] or "SFT (full fine-tuning)" in row["notes"]:
        # NeMo's and Megatron-Bridge's SFT benchmarks pack SQuAD v1.1 into
        # each sample (the NeMo table's note; Bridge's _sft_common,
        # recipes/common.py: SQuAD with offline packing), and attention runs
        # within each example (THD, cu_seqlens)
        r.config["training"]["document_tokens"] = SQUAD_EXAMPLE_TOKENS
        r.assume("SQuAD v1.1 examples packed into each sample, attending within themselves: about %d "
                 "tokens each (training.document_tokens; Hugging Face's squad card: 79.1 MB over "
                 "87,285 examples, about 900 characters, at about 4 characters per token)"
                 % SQUAD_EXAMPLE_TOKENS)
    if row["source_id"] == "llama3_herd_405b":
        r.config["training"]["eager"] = False
        r.assume("Meta's own training stack with fused element-wise kernels whose results the backward "
                 "rebuilds rather than keeps, as torch.compile's partitioner does (training.eager false, "
                 "so training.recompute_elementwise): Dubey et al. 2024 §3.3.2 train 8K sequences with "
                 "no activation checkpointing after freeing every tensor the backward does not need; "
                 "torchtitan's profile for the rest, the paper names no kernels")
    if row["source_id"] == "deepseek_v3":
        deepseek_v3_training(r)
    if row["source_id"] == "bloom_176b_tr11":
        # BigScience's Megatron-DeepSpeed fork (2022) ran attention as two
        # GEMMs around its fused scale-mask-softmax; FlashAttention came out
        # during the run and was not adopted
        r.config["training"]["flash_attention"] = False
        r.assume("attention as GEMMs around the fused scaled-masked softmax, the scores stored (no "
                 "FlashAttention in the 2022 Megatron-DeepSpeed fork)")


def deepseek_v3_training(r):
    """What DeepSeek-V3's report says of its training beyond the plan
    (Liu et al. 2024, §3.2-§3.3)."""
    t, p = r.config["training"], r.config["parallel"]
    r.assume("HAI-LLM counted with Megatron-Core's profile (fused kernels, fp8 inputs kept for the "
             "backward, the router's weights multiplied in inside the experts, so the combine keeps "
             "no expert output), attention at FlashAttention-2's speed (the report names no kernel)")
    t["attention_kernel"] = "flash"
    t.update(recompute_norms=True, recompute_mla_up_proj=True, recompute_moe_act=True)
    r.assume("RMSNorm, MLA up-projections and the MoE SwiGLU output recomputed in the backward (§3.2.3, §3.3.3)")
    t["grouped_gemm"] = True
    r.assume("the routed experts' GEMMs as one grouped kernel a matrix (DeepSeek's DeepGEMM)")
    t["precision"]["optimizer"] = "bf16"
    r.assume("AdamW moments in bf16, master weights and gradients in fp32 (§3.3.3)")
    p.update(ep_dispatcher="flex", ep_overlap=True)
    r.assume("tokens over InfiniBand once per node, then NVLink (§3.2.2): the flex dispatcher; the "
             "all-to-alls each beside one step of the other direction's compute (attention, MLP), as "
             "DualPipe pairs them (§3.2.1, Figure 4), those of "
             "the warm-up forwards and cool-down backwards, which have no partner, exposed")
    r.assume("DualPipe's bubble counted as 1F1B's, more than twice DualPipe's (the report's Table 2); each "
             "token's nodes not capped at 4; dispatch in bf16, not fp8")


def megatron_deepspeed_hardware_flop_per_token(layers, hidden, seq_len, vocab, checkpointing):
    """The FLOPs per token behind the TFLOPs Megatron-DeepSpeed logs:
    Narayanan et al. SC21 eq. 3, 24 c L h^2 (1 + s/(6h) + v/(16 L h)), c 4
    with activation checkpointing (the forward again), else 3 (BLOOM's
    README, tr11-176B-ml, says the log counts 4 x 2). On BLOOM's iteration
    12695 it gives the logged 149.0 TFLOPs from the logged 105.23 s, and 8.04
    on the GBS 16 row."""
    h = float(hidden)
    c = 4.0 if checkpointing else 3.0
    return 24.0 * c * layers * h * h * (1.0 + seq_len / (6.0 * h) + vocab / (16.0 * layers * h))


def published_measure(r, row, gated):
    printed = num(row["tokens_per_sec_per_gpu"]) if row["tokens_per_sec_per_gpu"] else None
    if row["source_id"] == "bloom_176b_tr11" and row["hw_tflops_per_gpu"]:
        flop = megatron_deepspeed_hardware_flop_per_token(
            integer(row["n_layers"]), integer(row["hidden"]), integer(row["seq_len"]), integer(row["vocab"]),
            row["activation_recompute"].startswith("full"))
        derived = num(row["hw_tflops_per_gpu"]) * 1e12 / flop
        if printed is not None and abs(derived / printed - 1.0) > 0.005:
            raise ValueError("%s: the hardware FLOP count gives %.2f tokens/s, the log %.2f"
                             % (row["row_label"], derived, printed))
        if printed is None:
            r.tokens_per_s_per_gpu = derived
            r.assume("tokens/s per GPU from the printed TFLOPs under Megatron-DeepSpeed's hardware FLOP "
                     "count (the forward counted twice with checkpointing), which gives the logged "
                     "TFLOPs of the rows that print a time, within 0.5%")
            return
    if printed is not None and row["step_time_s"]:
        # Two printed cells, the step time and the MFU, against one: where
        # the tokens/s cell disagrees with the step (dgxc's Grok-1 GB200
        # 512-GPU rows print half of seq x GBS / step, while their MFU
        # matches the step), the step is the measurement.
        stepped = integer(row["seq_len"]) * integer(row["global_batch_seqs"]) / num(row["step_time_s"]) \
            / integer(row["num_gpus"])
        if abs(stepped / printed - 1.0) > 0.02:
            r.assume("tokens/s per GPU from the printed step time, %.0f: the printed %.0f is %.2f of "
                     "it, while the printed MFU matches the step (a misprint)"
                     % (stepped, printed, printed / stepped))
            printed = stepped
    if printed is not None:
        r.tokens_per_s_per_gpu = printed
        return
    if not row["model_tflops_per_gpu"]:
        raise Skip("the source prints no throughput per GPU for this run")
    heads, kv = integer(row["n_heads"]), integer(row["n_kv_heads"] or row["n_heads"])
    hidden = integer(row["hidden"])
    ffn = integer(row["ffn_hidden"]) or 4 * hidden
    flop = megatron_flop_per_token(integer(row["n_layers"]), hidden, integer(row["seq_len"]),
                                   integer(row["vocab"]), ffn, heads, kv, gated)
    r.tokens_per_s_per_gpu = num(row["model_tflops_per_gpu"]) * 1e12 / flop
    r.assume("tokens/s per GPU from the printed model TFLOP/s under Megatron's FLOP count")


def bridge_recipes():
    """Megatron-Bridge's recipe settings per run (megatron_bridge_recipes.csv:
    each release's recipe code run and recorded, matched to the table's
    rows; its .md says how), by row label."""
    return {row["row_label"]: row for row in read_rows("megatron_bridge_recipes.csv")}


RECIPES = None

# Rows whose printed plan is a misprint, with the plan the release ran.
# The 26.02.01 archive (Megatron-Bridge cfeddcd94, "patch container data")
# changed the plan columns of two GB300 Llama 3 70B rows that 26.02
# (c0b9a0003) printed as pp 4, vp 5, micro-batch 1, while release r0.3.0's
# recipes (LLAMA3_70B_PRETRAIN_CONFIG_GB300_NVFP4_V2 and _FP8_MX_V2) kept
# that plan; and the NVFP4 row's printed plan (tp 1, pp 1, no FSDP) cannot
# run: 70.6B parameters' bf16 weights and gradients alone take 282 GB of
# the GB300's 288 GB.
BRIDGE_MISPRINTED_PLANS = {
    "26.02.01 LLAMA3_70B DGX-GB300 64GPU NVFP4 main": "tp 1, pp 1, no FSDP, micro-batch 2",
    "26.02.01 LLAMA3_70B DGX-GB300 64GPU MXFP8 main": "pp 4 without virtual stages, micro-batch 2",
}


# A run whose recipe the transcription could not establish (its printed
# expert-parallel size is not its release's recipe's), but whose model and
# GPU recompute the same modules in every release's recipe: the recompute
# does not depend on the parallel plan, so the run recomputed them too.
# Every Megatron-Bridge gpt-oss recipe for the B200, v0.2.0 to v0.6.0
# (GPT_OSS_120B_B200_BF16_BASE_CONFIG and its V1/V2 successors), sets
# recompute_modules layernorm and moe_act.
BRIDGE_RECOMPUTE_OF_EVERY_RELEASE = {
    "25.11 GPT OSS 120B DGX-B200 64GPU BF16 main": ("layernorm", "moe_act"),
}


# A row whose printed expert-parallel size is a misprint, with the one its
# release ran. The 25.11 table prints ep 8 for gpt-oss on 64 B200s, but
# release v0.2.0's recipe (GPT_OSS_120B_B200_BF16_BASE_CONFIG,
# megatron_bridge_recipes.csv) sets 64, as v0.3.0's does for the 26.02
# row, which prints 64; the run's 8,213 tokens/s per GPU is that 26.02
# ep-64 run's rate (8,047), where the ep-8 runs of 26.02.01 on ran at
# 13,045-13,722.
BRIDGE_MISPRINTED_EP = {
    "25.11 GPT OSS 120B DGX-B200 64GPU BF16 main": 64,
}


def correct_misprinted_plan(r, row):
    """The recipe's plan where the table's is a misprint (BRIDGE_MISPRINTED_PLANS,
    BRIDGE_MISPRINTED_EP)."""
    ep = BRIDGE_MISPRINTED_EP.get(row["row_label"])
    if ep is not None:
        r.assume("ep %d, not the printed %s: the release's recipe sets %d, and the run's rate is that of the "
                 "next release's ep-%d run, not of the later ep-%s runs" % (ep, row["ep"], ep, ep, row["ep"]))
        r.config["parallel"]["ep"] = ep
    printed = BRIDGE_MISPRINTED_PLANS.get(row["row_label"])
    if printed is None:
        return
    r.config["parallel"].update(pp=4, schedule="interleaved", virtual_stages=5)
    r.config["training"]["micro_batch"] = 1
    r.assume("pp 4, 5 virtual stages, micro-batch 1: the printed plan (%s) is a misprint of the "
             "26.02.01 archive; release r0.3.0's recipe and the 26.02 table run this plan" % printed)


def alt_row_micro_batch(r, row):
    """An alt row (the table cell's parenthesised plan) shares the main
    row's MBS column, as the transcription read it; where the alt plan's
    own GA gives another micro-batch, GBS/(GA x DP), and the recipe that
    ran it sets that one, the run used it."""
    recipe = RECIPES.get(row["row_label"])  # read by apply_recipe, which runs first
    if not row["row_label"].endswith(" alt") or not row["grad_accum"] or recipe is None:
        return
    t, p = r.config["training"], r.config["parallel"]
    dp = r.config["system"]["gpus"] // (p["tp"] * p["pp"] * p.get("cp", 1))
    ga = integer(row["grad_accum"])
    implied, rest = divmod(t["global_batch"], ga * dp)
    if rest or implied == t["micro_batch"] or ("mbs: recipe %d vs" % implied) not in recipe["notes"]:
        return
    r.assume("micro-batch %d, not the MBS column's %d: the alt plan's printed GA %d gives GBS/(GA x DP) "
             "= %d, and its recipe sets it" % (implied, t["micro_batch"], ga, implied))
    t["micro_batch"] = implied


def recompute_modules(r, names):
    """Megatron-Core's selective recompute_modules as trainplan's fields:
    core_attn is recompute selective, the others one flag each."""
    t = r.config["training"]
    if "core_attn" in names:
        t["recompute"] = "selective"
    as_field = {"mlp": "recompute_mlp", "layernorm": "recompute_norms",
                "mla_up_proj": "recompute_mla_up_proj", "moe_act": "recompute_moe_act"}
    for name in names:
        if name in as_field:
            t[as_field[name]] = True
        elif name != "core_attn":
            r.assume("selective recompute of %s: not modelled" % name)


def apply_recipe(r, row):
    """The memory and overlap settings of the recipe that produced the run,
    where the transcription established them."""
    global RECIPES
    if RECIPES is None:
        RECIPES = bridge_recipes()
    recipe = RECIPES.get(row["row_label"])
    if recipe is None or recipe["grad_reduce_in_fp32"] == "":
        # every recipe the transcription did establish (273 of the table's
        # rows, megatron_bridge_recipes.csv) reduces gradients in bf16
        r.config["training"]["precision"]["gradients"] = "bf16"
        r.assume("recipe settings not established for this run: defaults assumed, but gradients "
                 "reduced in bf16 as every established recipe of these tables sets "
                 "(grad_reduce_in_fp32=False)")
        modules = BRIDGE_RECOMPUTE_OF_EVERY_RELEASE.get(row["row_label"])
        if modules:
            recompute_modules(r, modules)
            if NO_RECOMPUTE_PRINTED in r.assumptions:
                r.assumptions.remove(NO_RECOMPUTE_PRINTED)
            r.assume("selective activation recompute of %s, as every release's recipe for this model "
                     "and GPU sets it" % ", ".join(modules))
        return
    t, p = r.config["training"], r.config["parallel"]
    r.assume("settings from the recipe that ran it (%s)" % recipe["recipe_commit"])
    if recipe["grad_reduce_in_fp32"] == "False":
        t["precision"]["gradients"] = "bf16"
    if recipe["use_megatron_fsdp"] == "True":
        p.update(sharding="fsdp_full_shard")
        p.pop("zero", None)
    p["sp"] = recipe["sequence_parallel"] == "True" and p["tp"] > 1
    if p["tp"] > 1 and not (recipe["tp_comm_overlap"] == "True" and p["sp"]):
        tp_overlap_off(r, "tp communication overlap off, as the recipe sets it")
    if recipe["expert_tensor_parallel_size"] not in ("", "None") and "ep" in p:
        p["etp"] = integer(recipe["expert_tensor_parallel_size"])
    modules = recipe["recompute_modules"]
    if recipe["recompute_granularity"] == "full":
        t["recompute"] = "full"
        if recipe["recompute_method"] == "block" and recipe["recompute_num_layers"] not in ("", "None"):
            t["recompute_layers"] = integer(recipe["recompute_num_layers"])
    elif recipe["recompute_granularity"] == "selective":
        recompute_modules(r, [m for m in modules.replace("[", "").replace("]", "").replace("'", "").split(";") if m])
    # the table prints no recompute, but the recipe says what ran
    # (selective with recompute_modules=[] recomputes nothing)
    if recipe["recompute_granularity"] == "full" or (recipe["recompute_granularity"] == "selective"
                                                      and modules not in ("", "[]")):
        if NO_RECOMPUTE_PRINTED in r.assumptions:
            r.assumptions.remove(NO_RECOMPUTE_PRINTED)
        if recipe["recompute_granularity"] == "full":
            layers = recipe["recompute_num_layers"]
            r.assume("full activation recompute, as the recipe sets it%s"
                     % (" (%s layers a stage)" % layers if layers not in ("", "None") else ""))
        else:
            r.assume("selective activation recompute of %s, as the recipe sets it" % modules.replace(";", ", "))
    if recipe["fp8_param_gather"] == "True" and t["precision"].get("fp8"):
        t["precision"]["fp8_params"] = True
    if "use_precision_aware_optimizer=True" in recipe["notes"]:
        # the DeepSeek recipes' precision-aware optimizer keeps Adam's
        # moments in bf16 beside fp32 main parameters (megatron/bridge/
        # recipes/deepseek/deepseek_v3.py: exp_avg_dtype, exp_avg_sq_dtype)
        t["precision"]["optimizer"] = "bf16"
        r.assume("Adam's moments in bf16: the recipe's precision-aware optimizer")
    if recipe["moe_token_dispatcher_type"].startswith("flex") and "ep" in p:
        p["ep_dispatcher"] = "flex"
        r.assume("the flex dispatcher (%s): each token crosses the network once per node it reaches"
                 % recipe["moe_token_dispatcher_type"].split(":")[-1])
    if "EP A2A overlap on" in recipe["notes"] and "ep" in p:
        p["ep_overlap"] = True
    if recipe["cpu_offloading"] == "True":
        t["offload_layers"] = integer(recipe["cpu_offloading_num_layers"])
    impl = recipe["cuda_graph_impl"]
    m = re.search(r"cuda_graph_scope=(\S+)", recipe["notes"])
    scope = m.group(1) if m else ""
    graphs = cuda_graphs(impl, scope)
    if graphs != "none":
        t["cuda_graphs"] = graphs
        r.assume("CUDA graphs over %s (%s%s)" % ("the whole step" if graphs == "full" else "each layer but its routed experts",
                                                   impl, ", scope " + scope if scope else ""))


def cuda_graphs(impl, scope):
    """training.cuda_graphs from a recipe's cuda_graph_impl and scope:
    full_iteration replays the step; Megatron-Core's per-layer graphs
    (local) and Transformer Engine's over attn or mlp replay the layers; a
    scope of the MoE router and preprocessing alone leaves most kernels
    launched by the host, so none."""
    if impl in ("", "none"):
        return "none"
    if impl == "full_iteration" or scope == "full_iteration":
        return "full"
    if impl.startswith("local") or "attn" in scope or "mlp" in scope:
        return "layers"
    return "none"


# NeMo 24.07's performance summary ran NeMo 1.0 through NeMo-Framework-
# Launcher: the per-model example scripts (examples/training/{gpt,llama}/
# h100/*_fp8*.sh, examples/peft/llama/h100/*_1node.sh and 70b_2node.sh @
# 97f45c18, 2024-06-26) over the model YAMLs, whose optimizer is Apex's
# distributed_fused_adam. Nemotron's scripts dropped grad_sync_dtype
# (79f92438, 2024-04-10); Nemotron-4 340B's YAML sets its own.
LAUNCHER_SFT_VIRTUAL_STAGES = {"LLAMA2-13B 8 GPUs SFT": 10, "LLAMA2-70B 16 GPUs SFT": 20}


# NeMo 24.03's long-sequence table runs Llama 2 7B at the tp and cp it
# prints. The launcher's config for that model (llama2_7b.yaml @1a9478a1,
# 2024-04) has tp 1, sequence_parallel false and ub_tp_comm_overlap False,
# and its fp8 example (examples/training/llama/h100/llama2_7b_fp8.sh) adds
# fp8 and grad_sync_dtype bf16; NeMo 24.03 turns ub_tp_comm_overlap off
# wherever sequence parallelism is off (megatron_base_model.py @11b7a733).
LAUNCHER_LLAMA2_7B = ("the launcher's Llama 2 7B config of NeMo 24.03 (llama2_7b.yaml, tp 1) with its fp8 "
                      "example's settings: no sequence parallelism, so no tp communication overlap (NeMo "
                      "turns ub_tp_comm_overlap off without it), and distributed_fused_adam's "
                      "grad_sync_dtype bf16; the table changes tp and cp alone")


def apply_launcher_scripts(r, row):
    """The optimizer, pipeline and tensor-parallel settings of the
    NeMo-Framework-Launcher configs and scripts behind NeMo 24.03's
    long-sequence table and NeMo 24.07's performance summary."""
    t, p = r.config["training"], r.config["parallel"]
    if "performance_long_sequence.md" in row["source_table"] and "24.03" in row["source_table"]:
        p["sp"] = False
        t["precision"]["gradients"] = "bf16"
        tp_overlap_off(r, LAUNCHER_LLAMA2_7B)
        return
    if "performance_summary.md" not in row["source_table"]:
        return
    label = row["row_label"]
    if label.endswith("SFT"):
        t["precision"].update(gradients="bf16", optimizer="bf16", fp8_params=True)
        r.assume("the launcher's SFT scripts (examples/peft/llama/h100): ++peft.model.fp8_params=true; "
                 "peft/llama/sft.yaml's distributed_fused_adam with grad_sync_dtype bf16 and dtype bf16 "
                 "(Adam's moments and its parameter copy in bf16)")
        if label in LAUNCHER_SFT_VIRTUAL_STAGES:
            p.update(schedule="interleaved", virtual_stages=LAUNCHER_SFT_VIRTUAL_STAGES[label])
            r.assume("virtual_pipeline_model_parallel_size=%d from the launcher's script for this "
                     "size (the SFT table prints no VP column)" % p["virtual_stages"])
    elif label.startswith("Nemotron-340B"):
        t["precision"].update(gradients="bf16", optimizer="bf16")
        r.assume("nemotron_340b.yaml's distributed_fused_adam: grad_sync_dtype bf16, dtype bf16 "
                 "(Adam's moments and its parameter copy in bf16)")
    elif not label.startswith("Nemotron"):
        t["precision"]["gradients"] = "bf16"
        r.assume("gradients reduced in bf16: the launcher's fp8 example scripts pass "
                 "+training.model.optim.grad_sync_dtype=bf16 to distributed_fused_adam")


# What NVIDIA's DGX Cloud benchmarking recipes set beyond their tables'
# plans. NeMo 1.0 rows (NeMo 24.05-24.12 containers) ran the Hydra YAML
# beside the README at the row's commit. NeMo 2.0 rows ran the NVIDIA/NeMo
# commit the row's setup.sh pins (d2b2155, 7a8f1cc, b4148d2, 6f2c6fd):
# scripts/performance takes fp8 as the bf16_with_fp8_mixed plugin (fp8
# parameter gather, delayed scaling) with grad_reduce_in_fp32 False, and
# builds the Llama 3 and Nemotron-4 recipes with performance_mode=True,
# whose pretrain_performance_optimizations reduces gradients in bf16 in
# every precision.
DGXC_NEMO1_YAML = "the recipe's Hydra YAML at the row's dgxc-benchmarking commit"
DGXC_NEMO2_FP8 = ("fp8 parameters, delayed scaling and gradients reduced in bf16: NeMo 2.0's "
                  "scripts/performance (the NeMo commit setup.sh pins) run fp8 as bf16_with_fp8_mixed "
                  "with grad_reduce_in_fp32 False")
DGXC_NEMO2_BF16_GRADS = ("gradients reduced in bf16: the pinned NeMo's Llama 3 and Nemotron-4 recipes in "
                         "performance_mode set grad_reduce_in_fp32 False")


def dgxc_deepseek_v3(r, row):
    """What the DeepSeek-V3 benchmark runs beyond the table: its launch.sh
    (dgxc-benchmarking deepseek_v3/pretraining, @68eaf7e117 and
    @1f6d9f40e4) passes --recompute_modules mla_up_proj on H100 and
    core_attn on GB200, and the pinned NeMo's pretrain_deepseek_v3.py
    (7a8f1cc) turns tensor-parallel overlap off
    (MegatronCommOverlapCallback(tp_comm_overlap=False))."""
    t = r.config["training"]
    if "H100" in row["gpu_type"]:
        t["recompute"] = "none"
        t["recompute_mla_up_proj"] = True
        module = "mla_up_proj"
    else:
        t["recompute"] = "selective"
        module = "core_attn"
        r.assume("not modelled: what made NeMo 25.04 slow on GB200; the same model in bf16 on 256 GB200 "
                 "ran at 3,139 tokens/s per GPU under Megatron-Bridge 25.11 (tp 1, pp 4 x 4, ep 64; "
                 "megatron_bridge_perf_summary), 3.3 times this row's 959, where trainplan predicts this "
                 "plan 2.5 to 2.6 times as fast")
    r.assume("selective recompute of %s, as the benchmark's launch.sh passes it" % module)
    tp_overlap_off(r, "tp communication overlap off: the pinned NeMo's pretrain_deepseek_v3.py sets "
                      "tp_comm_overlap False")


# Megatron-Core moved the router's weights into the experts' SwiGLU in
# core_r0.13 (MR 2668, 2659630721); the Megatron-LM commits NeMo 2.2 and
# 2.3 (the 25.02 and 25.04 containers) pin in requirements/manifest.json,
# 791b70e and f62eb5b, 3cdfd61 and f98b1a0, and every NeMo 1.0 container
# before them, predate it.
DGXC_WEIGHED_COMBINE = ("the combine weighs the experts' outputs and keeps them: the container's "
                        "Megatron-Core predates core_r0.13, which moved the router's weights into the "
                        "experts' SwiGLU (NeMo 2.3, the 25.04 container, pins Megatron-LM f98b1a0)")


def apply_dgxc_recipe(r, row, moe_presets):
    t = r.config["training"]
    model = r.config["model"]
    if "moe" in model or model.get("preset") in moe_presets:
        t["routing_weights_in_activation"] = False
        r.assume(DGXC_WEIGHED_COMBINE)
    precision = t["precision"]
    if "NeMo 2.0" in row["framework"]:
        if precision.get("fp8"):
            precision.update(fp8_params=True, gradients="bf16")
            r.assume(DGXC_NEMO2_FP8)
        elif row["model"].startswith(("Llama 3", "Nemotron-4")):
            precision["gradients"] = "bf16"
            r.assume(DGXC_NEMO2_BF16_GRADS)
        if row["model"].startswith("DeepSeek-V3"):
            dgxc_deepseek_v3(r, row)
        pp = r.config["parallel"]["pp"]
        if row["model"].startswith("DeepSeek-V3") and pp > 1:
            # pretrain_deepseek_v3.py at 7a8f1cc: 64/pp layers a middle
            # stage, one fewer on the first, two fewer on the last
            first, last = 64 // pp - 1, 64 // pp - 2
            r.config["parallel"].update(first_stage_layers=first, last_stage_layers=last)
            r.assume("%d layers on the first stage and %d on the last, as the pinned NeMo's "
                     "pretrain_deepseek_v3.py splits them" % (first, last))
        return
    # NeMo 1.0: every YAML's optimizer but Nemotron-4 15B's at 8f5cbb3799
    # (mcore_distributed_optim, no grad_sync_dtype: fp32) is Apex's
    # distributed_fused_adam with grad_sync_dtype bf16
    if not (row["model"] == "Nemotron-4 15B" and "@8f5cbb3799" in row["source_table"]):
        precision["gradients"] = "bf16"
        r.assume("gradients reduced in bf16: %s sets distributed_fused_adam's grad_sync_dtype bf16"
                 % DGXC_NEMO1_YAML)
    if row["model"] == "Nemotron-4 340B":
        precision["optimizer"] = "bf16"
        r.assume("Adam's moments and its parameter copy in bf16: %s sets the optimizer's dtype bf16"
                 % DGXC_NEMO1_YAML)
    if row["model"] == "GPT-3 175B" and precision.get("fp8"):
        precision["fp8_params"] = True
        r.assume("fp8 parameters: %s sets fp8_params true" % DGXC_NEMO1_YAML)


# A footnote the transcription quotes where the table calls a run's
# throughput a known issue of its software.
KNOWN_ISSUE = re.compile(r"footnote \[\^[\w-]+\]: '([^']*known issue[^']*)'")


def make_published(source_id, trainer, moe_presets):
    def mapper(row):
        r = Run(source_id, row)
        if "MegaScale" in row["framework"] and "Megatron-LM" not in row["row_label"]:
            raise Skip("MegaScale's own runs change the model (parallel blocks, sliding-window attention)")
        if "Mamba" in row["model"] or "Nemotron_3" in row["model"] or "Nemotron-H" in row["model"] \
                or "hybrid" in row["model"].lower():
            raise Skip("a hybrid Mamba model: outside what trainplan models")
        if "INCONSISTENT" in row["notes"]:
            raise Skip("the transcription flags its sizes as inconsistent with its GPU count")
        if row["source_id"] == "opt_175b":
            raise Skip("the source prints no tensor-parallel size or batch for this run")
        gated = published_model(r, row)
        published_gpu(r, row)
        published_plan(r, row, trainer)
        published_training(r, row, trainer)
        if source_id == "megatron_bridge_perf_summary":
            correct_misprinted_plan(r, row)
            apply_recipe(r, row)
            alt_row_micro_batch(r, row)
            known = KNOWN_ISSUE.search(row["notes"])
            if known:
                r.assume("not modelled: the table footnotes this run: '%s'" % known.group(1))
        if source_id == "nemo_repo_perf_docs":
            apply_launcher_scripts(r, row)
        if source_id == "dgxc_benchmarking":
            apply_dgxc_recipe(r, row, moe_presets)
        published_measure(r, row, gated)
        return r
    return mapper


# Sources with a mapper of their own; the others are mapped as published
# tables (make_published).
OWN_MAPPERS = {"llmfoundry_mpt": map_llmfoundry, "torchtitan": map_torchtitan, "megatron_lm_readme": map_megatron,
               "torchao_float8": map_torchtitan, "olmo_core": map_olmo_core}


def load_runs(moe_presets):
    """Every row of every source: (source_id, trainer, Run or Skip).
    moe_presets: the names of trainplan's model presets with routed experts
    (`trainplan presets`)."""
    out = []
    for source_id, file_name, trainer in SOURCES:
        mapper = OWN_MAPPERS.get(source_id) or make_published(source_id, trainer, moe_presets)
        for row in read_rows(file_name):
            try:
                out.append((source_id, trainer, mapper(row)))
            except Skip as why:
                out.append((source_id, trainer, (row["source_table"], row["row_label"], str(why))))
    return out


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
