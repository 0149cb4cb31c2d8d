"""trainplan's memory model, derived a second time in plain Python.

The closed forms of the per-GPU memory (parameter counts, bytes per
parameter, shard factors, activations and the per-stage totals) written
again from the papers' equations as core/*.c states them in their header
comments, so test_reference.py can hold every memory figure and the
parameter counts `trainplan estimate` prints to 1e-12 on hundreds of random
configs: two derivations that must agree, so a slip in either shows.

The step-time model and the search are not here: they are held by reviewed
golden outputs (tests/golden/, test_golden.py) and the C brute-force and
property tests (tests/unit/test_search.c, test_properties.c).

Plain Python 3 and its standard library only. Input is the resolved config
`trainplan estimate` echoes under "config" (every field present, units as
the JSON states them), so presets and defaults live in one place, the C core.
Of `system` it reads only the GPU's memory, the GPU count and the GPUs per
node: no bandwidth or rate (hbm_gbps, nvlink_gbps, fast_gbps, slow_gbps,
loader_gbps and their renamed spellings), so either spelling of those keys
leaves it unchanged.

Models: dense GPT, Llama and ViT layers, mixture-of-experts layers with
expert parallelism and multi-head latent attention.

Equations, as cited in the C sources:
  memory      Fujii et al. 2024 eq. 1-18 (memory.c), Korthikanti et al. 2023 for
              activations (model.c), Chen et al. 2023's sharding factors (plan.c)
"""
import copy
import math

GIB = 1073741824.0
SAFE_FRACTION = 0.8


class Config:
    """The memory side of a resolved config, in bytes."""

    def __init__(self, doc):
        m, s, t, p, o = (doc["model"], doc["system"], doc["training"], doc["parallel"],
                         doc["overheads"])
        self.arch = m["arch"]
        self.layers, self.hidden, self.heads = m["layers"], m["hidden"], m["heads"]
        self.kv_heads, self.ffn_hidden, self.vocab = m["kv_heads"], m["ffn_hidden"], m["vocab"]
        self.positions, self.tied, self.dropout = m["positions"], m["tied_embeddings"], m["dropout"]
        # a ViT encoder (arch vit): GPT's blocks, and linears of patch_dim
        # values per token in and out for a vocabulary
        self.vit = self.arch == "vit"
        self.patch_dim = m.get("patch_dim", 0)
        self.output_width = self.patch_dim if self.vit else self.vocab
        # a head's size: model.head_dim when the config sets one (gqa)
        self.head_dim = m.get("head_dim", m["hidden"] // m["heads"])
        # multi-head latent attention (model.c describe_attention)
        self.mla = m["attention"] == "mla"
        x = m.get("mla", {})
        self.q_lora_rank, self.kv_lora_rank = x.get("q_lora_rank", 0), x.get("kv_lora_rank", 0)
        self.qk_nope, self.qk_rope = x.get("qk_nope_head_dim", 0), x.get("qk_rope_head_dim", 0)
        self.v_head_dim = x.get("v_head_dim", 0)
        # mixture of experts (model.c)
        e = m.get("moe", {})
        self.experts, self.experts_per_token = e.get("experts", 0), e.get("experts_per_token", 0)
        self.expert_ffn, self.shared_experts = e.get("expert_ffn_hidden", 0), e.get("shared_experts", 0)
        self.shared_ffn, self.every = e.get("shared_ffn_hidden", 0), e.get("every", 1)
        self.first_dense = e.get("first_dense", 0)

        self.memory_bytes = s["gpu"]["memory_gib"] * GIB
        # Blackwell's FP4 tensor cores, which read fp8 operands in any layout
        self.fp4_flop_per_s = s["gpu"]["fp4_tflops"] * 1e12
        self.gpus, self.gpus_per_node = s["gpus"], s["gpus_per_node"]

        self.seq_len, self.global_batch = t["seq_len"], t["global_batch"]
        self.micro_batch = t["micro_batch"]
        pr = t["precision"]
        self.weights_dtype, self.gradients_dtype = pr["weights"], pr["gradients"]
        self.optimizer_dtype = pr["optimizer"]
        self.master_weights, self.fp8 = pr["master_weights"], pr["fp8"]
        self.fsdp_mixed_precision = pr.get("fsdp_mixed_precision", False)
        # fp8 primary weights (echoed only when set)
        self.fp8_params = pr.get("fp8_params", False)
        # Transformer Engine keeps the linear layers' inputs in fp8
        self.fp8_activations = pr["fp8_activations"]
        # the scaling recipe (echoed with fp8) and NVFP4 (echoed when set)
        self.fp8_recipe = pr.get("fp8_recipe", "delayed")
        self.fp4 = pr.get("fp4", False)
        self.optimizer, self.recompute = t["optimizer"], t["recompute"]
        self.recompute_layers = t["recompute_layers"]
        # activation offloading to host memory (echoed only when set)
        self.offload_layers = t.get("offload_layers", 0)
        self.flash_attention = t["flash_attention"]
        # Megatron-Core's recompute modules (echoed only when set)
        self.recompute_mlp = t.get("recompute_mlp", False)
        self.recompute_norms = t.get("recompute_norms", False)
        self.recompute_mla_up_proj = t.get("recompute_mla_up_proj", False)
        self.recompute_moe_act = t.get("recompute_moe_act", False)
        # one SwiGLU kernel keeping its input only (Megatron-Core)
        self.fused_swiglu = t["fused_swiglu"]
        # the router's weights multiplied in inside the experts (Megatron-Core)
        self.routing_weights_in_activation = t["routing_weights_in_activation"]
        # torch.compile's partitioner rebuilds element-wise results in the
        # backward
        self.recompute_elementwise = t.get("recompute_elementwise", False)
        self.capacity_factor = t["capacity_factor"]

        self.tp, self.pp, self.cp, self.sp = p["tp"], p["pp"], p["cp"], p["sp"]
        self.sharding = p["sharding"]
        # PyTorch's pipeline schedules keep FSDP's weights and gradients
        # whole through the step (echoed only when set)
        self.pp_gather_once = p.get("pp_gather_once", False)
        self.zero = p.get("zero", 0)
        self.shard_group = p.get("shard_group", 0)
        a = p.get("amsp", {"weights": [1, 1], "gradients": [1, 1], "optimizer": [1, 1]})
        self.amsp = [list(a["weights"]), list(a["gradients"]), list(a["optimizer"])]
        self.schedule, self.virtual_stages = p["schedule"], p["virtual_stages"]
        # uneven stages (echoed only when set; 0 balances them)
        self.first_stage_layers = p.get("first_stage_layers", 0)
        self.last_stage_layers = p.get("last_stage_layers", 0)
        self.ep, self.etp = p.get("ep", 1), p.get("etp", p["tp"])
        # 2D TP with SUMMA (Subramanian et al. 2024 Table A2): weights over tp x cp
        self.summa = p.get("tp_algorithm", "megatron") == "summa"

        self.cuda_context_bytes = o["cuda_context_gib"] * GIB
        self.nccl_bytes_per_group = o["nccl_gib_per_group"] * GIB
        self.loss_bytes_per_logit = o["loss_bytes_per_logit"]
        self.backward_layers = o["backward_layers"]
        self.fragmentation = o["fragmentation"]
        self.bucket_params = o["bucket_params"]
        self.prefetch_layers = o["prefetch_layers"]


def dtype_bytes(name):
    return 4.0 if name == "fp32" else 2.0


# ---------------- the layer (model.c) ----------------

def is_moe_layer(c, i):
    return c.experts > 0 and i >= c.first_dense and (i - c.first_dense + 1) % c.every == 0


def moe_layers_in(c, first, count):
    """MoE layers among layers first .. first + count - 1 (counted one by one)."""
    return sum(1 for i in range(first, first + count) if is_moe_layer(c, i))


class Layer:
    """One transformer layer's parameters and stored activations (per token),
    dense or MoE (moe=True), with gqa or latent attention."""

    def __init__(self, c, moe=False):
        h = float(c.hidden)
        gpt = c.arch != "llama"
        self.moe, self.gpt = moe, gpt
        # the attention block: every width per token
        if c.mla:
            a, rq, rkv = float(c.heads), float(c.q_lora_rank), float(c.kv_lora_rank)
            rope, v = float(c.qk_rope), float(c.v_head_dim)
            qk = float(c.qk_nope + c.qk_rope)
            down = (h * rq if rq > 0 else 0.0) + h * (rkv + rope)  # W_DQ, W_DKV: whole on every tp rank
            self.attention = ((rq * a * qk if rq > 0 else h * a * qk)
                              + rkv * a * float(c.qk_nope + c.v_head_dim) + a * v * h)
            self.kv = 0.0
            self.kv_heads = a
            self.replicated = rq + rkv + down
            self.rows_plus_cols = (((h + rq) + (rq + a * qk) if rq > 0 else h + a * qk)
                                   + (h + rkv + rope) + (rkv + a * float(c.qk_nope + c.v_head_dim))
                                   + (a * v + h))
            self.q_width, self.kv_width, self.o_width = a * qk, a * (qk + v), a * v
            self.act_sp = 4.0 * rq + 4.0 * rkv + 2.0 * rope
        else:
            q, w = float(c.heads * c.head_dim), float(c.kv_heads * c.head_dim)
            self.attention = 2.0 * h * q + (q if gpt else 0.0)
            self.kv = 2.0 * h * w + (2.0 * w if gpt else 0.0)
            self.kv_heads = float(c.kv_heads)
            self.replicated = 0.0
            self.rows_plus_cols = 2.0 * (h + q) + 2.0 * (h + w)
            self.q_width = self.o_width = q
            self.kv_width = 2.0 * w
            self.act_sp = 0.0
        attention_act = 2.0 * self.q_width + 2.0 * self.o_width
        self.act_kv = 2.0 * self.kv_width
        # the MLP every token passes: dense, or a MoE layer's shared experts
        f = float(c.ffn_hidden)
        shared, fs = float(c.shared_experts), float(c.shared_ffn)
        width = shared * fs if moe else f
        self.mlp = (2.0 if gpt else 3.0) * h * width + (f if gpt else 0.0)
        self.replicated += 6.0 * h if gpt else 2.0 * h
        self.rows_plus_cols += 3.0 * shared * (h + fs) if moe else (2.0 if gpt else 3.0) * (h + f)
        # rebuilt element-wise results: the norms' outputs, SwiGLU's
        # product (and SiLU's output) or GeLU's output, and their fp8 casts
        rebuilt = c.recompute_elementwise
        swiglu = 4.0 if rebuilt else (6.0 if c.fused_swiglu else 8.0)
        self.act_tp = attention_act + ((2.0 if rebuilt else 4.0) if gpt else swiglu) * width
        self.act_sp += (4.0 if rebuilt else 8.0) * h + (2.0 * h if c.dropout else 0.0)
        # fp8 saved inputs: the norms' outputs and the second MLP matrix's
        # input at 1 B, and W_O's fp8 input beside FlashAttention's output
        # each such byte the cast's b bytes with its scale: saved 2 - b
        fp8_saved = c.fp8 and c.fp8_activations and not rebuilt
        kept = cast_bytes(c, False)
        if fp8_saved:
            self.act_tp += kept * self.o_width - (2.0 - kept) * width
            self.act_sp -= 2.0 * (2.0 - kept) * h
        self.act_input = 2.0 * h
        self.act_score = 5.0 if c.dropout else 2.0
        # torchtitan's per-op policy (9dec370 parallelize_llama.py): a
        # block's matrix multiplies in the order they run, each with the
        # elements per token of its output and how that output is split
        # ("tp", "kv" over min(tp, k), "sp" over tp only with sequence
        # parallelism); the policy saves the 1st, 3rd, 5th, ... of them
        mlp = ([("W1", width, "tp"), ("W3", width, "tp"), ("W2", h, "sp")] if not gpt
               else [("fc1", width, "tp"), ("fc2", h, "sp")])
        self.mms = [("Q", self.q_width, "tp"), ("K", self.kv_width / 2.0, "kv"),
                    ("V", self.kv_width / 2.0, "kv"), ("W_O", h, "sp")] + mlp
        self.experts_per_token = 0.0
        self.expert_params = 0.0
        self.act_copy = self.act_expert_mlp = 0.0
        if moe:  # the router and the routed experts
            e, k = float(c.experts), float(c.experts_per_token)
            fe = float(c.expert_ffn)
            self.replicated += e * h  # the router
            self.rows_plus_cols += (h + e) + 3.0 * e * (h + fe)
            self.experts_per_token = k
            self.expert_params = e * (3.0 * h * fe)  # each 3 h fe
            self.act_sp += 4.0 * e + 4.0 * k
            # the permuted copies are no element-wise result: as they were;
            # the experts' outputs kept only where the combine weighs them
            output = 0.0 if c.routing_weights_in_activation else 2.0
            self.act_copy = (output + (kept if c.fp8 and c.fp8_activations else 2.0)) * h
            self.act_expert_mlp = (swiglu - (2.0 - kept if fp8_saved else 0.0)) * fe
        # the same layer as stored without the partitioner: what the layer
        # being back-propagated holds again
        self.stored = self
        if rebuilt:
            plain = copy.copy(c)
            plain.recompute_elementwise = False
            self.stored = Layer(plain, moe)

    def params(self):
        return self.attention + self.kv + self.mlp + self.replicated

    def kv_split(self, tp):
        return float(tp) if tp < self.kv_heads else self.kv_heads

    def params_per_gpu(self, tp):
        return (self.attention + self.mlp) / tp + self.kv / self.kv_split(tp) + self.replicated


def attention_params_exact(c):
    h = c.hidden
    if c.mla:
        a, rq, rkv = c.heads, c.q_lora_rank, c.kv_lora_rank
        qk = c.qk_nope + c.qk_rope
        q = h * rq + rq + rq * a * qk if rq > 0 else h * a * qk
        return q + h * (rkv + c.qk_rope) + rkv + rkv * a * (c.qk_nope + c.v_head_dim) + a * c.v_head_dim * h
    return 2 * h * c.heads * c.head_dim + 2 * h * c.kv_heads * c.head_dim


def moe_layer_params(c, routed):
    h = c.hidden
    return (attention_params_exact(c) + 2 * h + c.experts * h
            + 3 * h * c.shared_ffn * c.shared_experts + 3 * h * c.expert_ffn * routed)


def params_total(c):
    h, f = c.hidden, c.ffn_hidden
    if c.arch != "llama":
        layer = attention_params_exact(c) + c.heads * c.head_dim + 2 * c.kv_heads * c.head_dim + 2 * h * f + f + 6 * h
        final_norm = 2 * h
    else:
        layer = attention_params_exact(c) + 3 * h * f + 2 * h
        final_norm = h
    if c.vit:  # patch linear and head, each with its bias
        embeddings = (c.patch_dim + 1) * h + (h + 1) * c.patch_dim + h * c.positions
    else:
        embeddings = (1 if c.tied else 2) * h * c.vocab + h * c.positions
    moe_layers = moe_layers_in(c, 0, c.layers)
    return (embeddings + final_norm + (c.layers - moe_layers) * layer
            + (moe_layers * moe_layer_params(c, c.experts) if moe_layers else 0))


def params_active(c):
    moe_layers = moe_layers_in(c, 0, c.layers)
    if moe_layers == 0:
        return params_total(c)
    return params_total(c) - moe_layers * (moe_layer_params(c, c.experts)
                                           - moe_layer_params(c, c.experts_per_token))


def routed_copies_sent(c, experts_per_token):
    """Routed token copies one GPU sends per MoE layer and micro-batch."""
    tokens = float(c.seq_len) * float(c.micro_batch) / float(c.cp)
    sp_split = float(c.tp) if c.sp else 1.0
    return c.capacity_factor * experts_per_token * tokens / sp_split


# ---------------- sharding (plan.c) ----------------

def replicas(c, dp):
    """Ranks holding the same parameters: dp*cp, or dp with SUMMA."""
    return dp if c.summa else dp * c.cp


def cp_weight_split(c):
    """SUMMA splits every weight over cp as well as tp."""
    return c.cp if c.summa else 1


def intra_node_dp(c, dp):
    """The replicas sharing parameters that sit inside one node."""
    r = c.gpus_per_node
    stride = c.tp * cp_weight_split(c)
    if r % stride != 0:
        return 1
    return min(r // stride, replicas(c, dp))


def shard_factors(c, dp):
    """(weights, gradients, optimizer, hybrid group) split factors; with
    pp_gather_once under pp > 1, FSDP's weights and gradients whole."""
    w, g, o, group = sharding_factors(c, dp)
    if c.pp_gather_once and c.pp > 1 and c.sharding.startswith("fsdp_"):
        return (1, 1, o, group)
    return (w, g, o, group)


def sharding_factors(c, dp):
    """The factors the sharding scheme alone sets."""
    n = replicas(c, dp)
    if c.sharding == "zero":
        return (n if c.zero >= 3 else 1, n if c.zero >= 2 else 1, n if c.zero >= 1 else 1, 0)
    if c.sharding == "fsdp_full_shard":
        return (n, n, n, 0)
    if c.sharding == "fsdp_shard_grad_op":
        return (1, n, n, 0)
    if c.sharding == "fsdp_hybrid_shard":
        g = c.shard_group if c.shard_group > 0 else intra_node_dp(c, dp)
        return (g, g, g, g)
    a = c.amsp
    return (a[0][0] * a[0][1], a[1][0] * a[1][1], a[2][0] * a[2][1], 0)


def expert_shards(c, dp, shards):
    """The routed experts' (weights, gradients, optimizer) factors over their own
    edp replicas, and (ep, etp, edp); all 1 for a dense model."""
    if c.experts == 0:
        return (1, 1, 1), (1, 1, 1)
    n = replicas(c, dp)
    ep, etp = c.ep, c.etp
    edp = c.tp * n // (ep * etp)

    def factor(dense):
        if dense == 1:
            return 1
        if dense == n:
            return edp
        instances = n // dense  # hybrid: as many optimizer instances as the dense states
        if n % dense == 0 and edp % instances == 0:
            return edp // instances
        return math.gcd(dense, edp)
    return tuple(factor(x) for x in shards[:3]), (ep, etp, edp)


def describe_layers(c):
    """(dense layer, MoE layer); the MoE one is the dense one for a dense model."""
    dense = Layer(c)
    return dense, (Layer(c, True) if c.experts > 0 else dense)


# ---------------- memory (memory.c) ----------------

def bytes_per_param(c, layers):
    layer = layers[1] if c.experts > 0 else layers[0]  # the layer holding most parameters
    state = dtype_bytes(c.optimizer_dtype)
    if c.optimizer == "sgd":
        opt = state
    elif c.optimizer == "adafactor":
        opt = state * (layer.rows_plus_cols + layer.replicated) / (layer.params() + layer.expert_params)
    elif c.optimizer == "adam8bit":
        opt = 2.0 * (1.0 + 4.0 / 2048.0)
    else:
        opt = 2.0 * state
    # fp8 compute caches an fp8 copy and a columnwise one (Hopper's
    # transpose, MXFP8's column-scaled cast) beside the 16-bit weights; a
    # Blackwell GPU (one with FP4) reads one per-tensor-scaled copy both
    # ways. fp8 parameters are the first copy, the 16-bit one gone
    # (Transformer Engine's primary fp8 weights keep their columnwise data
    # while gradients are enabled)
    fp8_byte = cast_bytes(c, True)
    per_tensor = c.fp8_recipe in ("delayed", "tensorwise") and not c.fp4
    copies = (1 if per_tensor and c.fp4_flop_per_s > 0 else 2) if c.fp8 else 0
    return {
        "weights": fp8_byte if c.fp8_params else dtype_bytes(c.weights_dtype),
        "fp8_weights": (copies - 1 if c.fp8_params else copies) * fp8_byte,
        "gradients": dtype_bytes(c.gradients_dtype),
        "master_weights": 4.0 if c.master_weights and c.weights_dtype != "fp32" else 0.0,
        "optimizer_states": opt,
    }


def kept_weights(c, bpp, weight_shards):
    """Bytes per parameter of the working weights kept between steps. PyTorch
    FSDP's mixed precision shards the fp32 parameter, which is the master
    copy, and makes the bf16 working copy only when it gathers a layer: with
    the weights sharded and a master copy counted, nothing more is kept."""
    if c.fsdp_mixed_precision and weight_shards > 1 and bpp["master_weights"] > 0:
        return 0.0
    return bpp["weights"]


def stage_layers(c):
    """Every pipeline stage's transformer layers, first to last. Given first
    or last stage layers, the other stages share the rest (Megatron-LM's
    --decoder-first/last-pipeline-num-layers); none given and pp dividing
    the layers, equal shares; otherwise torchtitan's default split: the
    embedding and the LM head count as one layer each, the L + 2 units are
    dealt one at a time round the p v chunks (v with the interleaved
    schedule, else 1; chunk j p + r is rank r's j-th), and the ends give
    their extra unit back."""
    p = c.pp
    if p == 1:
        return [c.layers]
    f, l = c.first_stage_layers, c.last_stage_layers
    if f or l:
        others = p - (1 if f else 0) - (1 if l else 0)
        share = (c.layers - f - l) // others if others else 0
        return [f or share] + [share] * (p - 2) + [l or share]
    if c.layers % p == 0:
        return [c.layers // p] * p
    units = [0] * p
    for k, n in enumerate(chunk_units(c)):
        units[k % p] += n
    units[0] -= 1
    units[-1] -= 1
    return units


def chunk_units(c):
    """The balanced split's units of each chunk, in round order."""
    v = c.virtual_stages if c.schedule == "interleaved" else 1
    chunks = [0] * (c.pp * v)
    for i in range(c.layers + 2):
        chunks[i % (c.pp * v)] += 1
    return chunks


def stage_shape(c, rank, m):
    """Micro-batch passes a pipeline rank holds at its peak (Fujii et al. 2024 eq. 16-17,
    Korthikanti §4.2.3 for the interleaved schedule, all m for GPipe)."""
    p, v = c.pp, c.virtual_stages
    interleaved = c.schedule == "interleaved" and p > 1
    if p == 1:
        in_flight = 1
    elif c.schedule == "gpipe":
        in_flight = m
    elif c.schedule == "interleaved":
        in_flight = min(2 * (p - rank - 1) + (v - 1) * p + 1, m * v)
    else:
        in_flight = min(p - rank, m)
    layers_here = float(stage_layers(c)[rank])
    sets = in_flight * layers_here / v if interleaved else in_flight * layers_here
    embedding = 0
    if rank == 0:
        if interleaved:
            groups, rest = in_flight // p, in_flight % p
            embedding = p * ((groups + v - 1) // v) + (rest if groups % v == 0 else 0)
        else:
            embedding = in_flight
    lm_head = 0
    if rank == p - 1:
        lm_head = m if c.schedule == "gpipe" and p > 1 else 1
    return in_flight, sets, embedding, lm_head


def moe_layers_of_rank(c, rank):
    """MoE layers a pipeline rank holds: its block, or its interleaved chunks.
    With v chunks, the layers run in v rounds, each round a chunk of every
    rank in rank order, a rank's chunk a v-th of its layers (Megatron-LM's
    get_transformer_layer_offset)."""
    if c.experts == 0:
        return 0
    v = c.virtual_stages if c.schedule == "interleaved" else 1
    order = [(j, r) for j in range(v) for r in range(c.pp)]
    balanced = v > 1 and c.layers % c.pp and not c.first_stage_layers and not c.last_stage_layers
    if balanced:
        # the L + 2 units dealt round the p v chunks, in round order: the
        # very first chunk gives a unit to the embedding, the very last to
        # the LM head
        sizes = dict(zip(order, chunk_units(c)))
        sizes[order[0]] -= 1
        sizes[order[-1]] -= 1
    else:
        sizes = {(j, r): stage_layers(c)[r] // v for j, r in order}
    start, n = 0, 0
    for jr in order:
        if jr[1] == rank:
            n += moe_layers_in(c, start, sizes[jr])
        start += sizes[jr]
    return n


def op_kept(c, layer):
    """Bytes of one layer for one micro-batch on one GPU that torchtitan's
    selective_op checkpointing keeps: every other matrix multiply's output
    counted from the first, the flash attention kernel's output (its
    per-row log-sum-exp left out), and the block input the checkpoint
    holds; all bf16."""
    tokens = float(c.seq_len) * float(c.micro_batch) / float(c.cp)
    split = {"tp": float(c.tp), "kv": layer.kv_split(c.tp), "sp": float(c.tp) if c.sp else 1.0}
    saved = [(width, how) for i, (_, width, how) in enumerate(layer.mms) if i % 2 == 0]
    saved += [(layer.o_width, "tp"), (float(c.hidden), "sp")]  # attention output, block input
    return sum(2.0 * tokens * width / split[how] for width, how in saved)


def cast_bytes(c, weights):
    """One value of the low-precision cast with its scale: fp8 1 B, with
    MXFP8 one more byte per 32 values, blockwise one fp32 per 1x128
    activation or 128x128 weight block; NVFP4 half a byte and one 1-byte
    scale per 16 values."""
    if c.fp4:
        return 0.5 + 1.0 / 16.0
    if c.fp8_recipe == "mxfp8":
        return 1.0 + 1.0 / 32.0
    if c.fp8_recipe == "blockwise":
        return 1.0 + (4.0 / (128.0 * 128.0) if weights else 4.0 / 128.0)
    return 1.0


def kept_input_bytes(c):
    """What a linear layer keeps of each element of its input: its fp8 cast
    with the cast's scale (fp8 inputs kept), else the bf16 value."""
    return cast_bytes(c, False) if c.fp8 and c.fp8_activations else 2.0


def recomputed_by_modules(c, layer, t, sp_split):
    """Bytes per token of one layer that Megatron-Core's recompute modules
    do not keep: mlp the dense MLP's tensors (GeLU's input and output, or
    SwiGLU's gate, up (and SiLU unfused), the product W2 reads; with fp8
    inputs W2's 1-byte copy instead of the product) and its norm's output;
    layernorm the norms' outputs (bf16 only: with fp8 inputs the linear
    layers hold their own copies); mla_up_proj Q, K and V."""
    h = float(c.hidden)
    fp8_saved = c.fp8 and c.fp8_activations
    freed_tp = freed_kv = freed_sp = 0.0
    norms_left = 2
    if c.recompute_mlp and not layer.moe:
        width = float(c.ffn_hidden)
        tensors = [2.0, 2.0] if layer.gpt else ([2.0, 2.0, 2.0] if c.fused_swiglu else [2.0, 2.0, 2.0, 2.0])
        tensors[-1] = kept_input_bytes(c)  # what W2 (fc2) keeps of its input
        freed_tp += sum(tensors) * width
        freed_sp += kept_input_bytes(c) * h
        norms_left = 1
    if c.recompute_norms and not fp8_saved:
        freed_sp += norms_left * 2.0 * h
    if c.recompute_mla_up_proj:
        freed_tp += 2.0 * layer.q_width
        freed_kv += 2.0 * layer.kv_width
    return freed_tp / t + freed_kv / layer.kv_split(c.tp) + freed_sp / sp_split


def layer_set(c, layer, etp):
    """(kept, scores, input, routed, whole) bytes of one layer for one
    micro-batch on one GPU; whole adds to kept what the backward rebuilds
    with recompute_elementwise."""
    kept_set = _layer_set(c, layer, etp)
    whole = kept_set[0] if layer.stored is layer else _layer_set(c, layer.stored, etp)[0]
    return kept_set + (whole,)


def _layer_set(c, layer, etp):
    """(kept, scores, input, routed) bytes of one layer for one micro-batch on one GPU."""
    t = float(c.tp)
    tokens = float(c.seq_len) * float(c.micro_batch) / float(c.cp)
    sp_split = t if c.sp else 1.0
    kept = tokens * (layer.act_tp / t + layer.act_kv / layer.kv_split(c.tp) + layer.act_sp / sp_split)
    kept -= tokens * recomputed_by_modules(c, layer, t, sp_split)
    scores = 0.0 if c.flash_attention else tokens * float(c.seq_len) * layer.act_score * c.heads / t
    layer_input = tokens * layer.act_input / sp_split
    routed = 0.0
    if layer.experts_per_token > 0.0:
        copies = routed_copies_sent(c, layer.experts_per_token) * float(etp)
        expert_mlp = layer.act_expert_mlp
        if c.recompute_moe_act:  # the SwiGLU output W2 keeps, fp8 or bf16
            expert_mlp -= kept_input_bytes(c) * float(c.expert_ffn)
        routed = copies * (layer.act_copy + expert_mlp / float(etp))
        kept += routed
    return kept, scores, layer_input, routed


def recompute_share(c, layers_here):
    """Of a stage's layers, the share full recompute re-runs (training.
    recompute_layers of them, all for 0 or when the stage has fewer); 0
    without full recompute."""
    if c.recompute != "full":
        return 0.0
    if c.recompute_layers == 0:
        return 1.0
    return min(c.recompute_layers, layers_here) / float(layers_here)


def memory(c, layers):
    """Per-GPU memory of the first, worst middle and last stages."""
    dense_layer, moe_layer = layers
    dp = c.gpus // (c.tp * c.pp * c.cp)
    m = c.global_batch // (c.micro_batch * dp)
    shards = shard_factors(c, dp)
    wf, gf, of, group = shards
    (ewf, egf, eof), (ep, etp, edp) = expert_shards(c, dp, shards)
    t = float(c.tp)
    tokens = float(c.seq_len) * float(c.micro_batch) / float(c.cp)
    dense_set = layer_set(c, dense_layer, etp)
    moe_set = layer_set(c, moe_layer, etp) if c.experts > 0 else dense_set
    bpp = bytes_per_param(c, layers)
    dense_params = dense_layer.params_per_gpu(c.tp)
    moe_params = moe_layer.params_per_gpu(c.tp)
    expert_params = moe_layer.expert_params / float(ep * etp)
    sbh = tokens * c.hidden / t
    h = float(c.hidden)
    embedding = ((c.patch_dim + 1.0) * h if c.vit else float(c.vocab) * h) / t
    head = (h + 1.0) * c.patch_dim if c.vit else float(c.vocab) * h
    lm_head = 0.0 if c.pp == 1 and c.tied else head / t
    embedding_act = 8.0 * sbh                                   # eq. 13
    lm_head_act = 4.0 * sbh * (1.0 + float(c.output_width) / h)  # eq. 14
    n_rep = replicas(c, dp)
    groups = ((c.tp > 1) + (c.cp > 1) + (c.pp > 1) + (dp > 1) + (dp > 1 and n_rep > dp)
              + (1 if 1 < group < n_rep else 0)
              + (ep > 1) + (etp > 1 and etp != c.tp) + (edp > 1 and edp != n_rep))
    nccl = groups * c.nccl_bytes_per_group

    ranks = [("only", 0)] if c.pp == 1 else (
        [("first", 0)] + ([("middle", 1)] if c.pp > 2 else []) + [("last", c.pp - 1)])
    stages = []
    for name, rank in ranks:
        in_flight, sets, emb_in_flight, head_in_flight = stage_shape(c, rank, m)
        first, last = rank == 0, rank == c.pp - 1
        layers_here = stage_layers(c)[rank]
        moe_here = moe_layers_of_rank(c, rank)
        dense_here = float(layers_here) - float(moe_here)
        layer_params = (dense_here * dense_params + float(moe_here) * moe_params) / cp_weight_split(c)
        end_params = ((embedding + float(c.positions) * c.hidden if first else 0.0)
                      + (lm_head + (2.0 if c.arch != "llama" else 1.0) * c.hidden if last else 0.0)
                      ) / cp_weight_split(c)
        dense = layer_params + end_params
        e = {"moe_layers": moe_here, "params": 0.0, "weights_bytes": 0.0, "gradients_bytes": 0.0,
             "optimizer_bytes": 0.0, "activations_bytes": 0.0}
        if moe_here > 0:
            e["params"] = float(moe_here) * expert_params
            e["weights_bytes"] = e["params"] * (kept_weights(c, bpp, ewf) + bpp["fp8_weights"]) / ewf
            e["gradients_bytes"] = e["params"] * bpp["gradients"] / egf
            e["optimizer_bytes"] = e["params"] * (bpp["optimizer_states"] + bpp["master_weights"]) / eof
        params = dense + e["params"]
        # one layer set of the stage's mix (its mean); full recompute
        # re-runs its largest layer
        kept, scores, layer_input, routed, whole = dense_set
        largest = dense_set
        if moe_here > 0:
            share = float(moe_here) / float(layers_here)
            kept = (1.0 - share) * dense_set[0] + share * moe_set[0]
            routed = share * moe_set[3]
            whole = (1.0 - share) * dense_set[4] + share * moe_set[4]
            if moe_set[0] > dense_set[0]:
                largest = moe_set
        rerun_kept, rerun_routed, rerun_whole = ((largest[0], largest[3], largest[4]) if c.recompute == "full"
                                                 else (kept, routed, whole))
        if sets <= 0.0:
            acts = 0.0
        elif c.recompute == "full":
            # a share of the sets keeps its input, the rest everything, and
            # the layer being recomputed holds its whole activations again
            share = recompute_share(c, layers_here)
            acts = (share * sets * layer_input + (1.0 - share) * sets * (kept + scores)
                    + rerun_whole + scores - layer_input)
        elif c.recompute == "selective":
            acts = sets * kept + scores + whole - kept
        elif c.recompute == "selective_op":
            # dense layers only (the CLI refuses the rest): each set keeps
            # its op part, and the layer being recomputed all of itself
            op = op_kept(c, dense_layer)
            acts = sets * op + (whole - op) + scores
        else:
            # the layer being back-propagated holds what it rebuilds again
            acts = sets * (kept + scores) + whole - kept
        parts = {"layer_bytes": rerun_kept, "mean_layer_bytes": kept, "scores_bytes": scores,
                 "layer_input_bytes": layer_input, "op_layer_bytes": op_kept(c, dense_layer),
                 "embedding_bytes": emb_in_flight * embedding_act,
                 "lm_head_bytes": head_in_flight * lm_head_act}
        acts += parts["embedding_bytes"] + parts["lm_head_bytes"]
        e["activations_bytes"] = ((1.0 - recompute_share(c, layers_here)) * sets * routed + rerun_routed
                                  if c.recompute == "full" else sets * routed)
        if c.offload_layers:
            # Transformer Engine's offloading keeps layers 0 .. N-1 of each
            # micro-batch in flight in host memory: the GPU holds the other
            # L - N layers' sets (one stage, no recompute: the CLI refuses
            # the rest)
            gone = gone_routed = 0.0
            for i in range(c.offload_layers):
                layer = moe_set if is_moe_layer(c, i) else dense_set
                gone += in_flight * (layer[0] + layer[1])
                gone_routed += in_flight * layer[3]
            parts["offloaded_bytes"] = gone
            acts -= gone
            e["activations_bytes"] -= gone_routed
        gathered = 0.0
        if wf > 1 or ewf > 1:
            # FSDP gathers each unit whole before it runs: what is sharded of
            # it (the dense part by wf, the routed experts by ewf), the running
            # unit and prefetch_layers more but never more than the stage
            # holds, and the running unit's whole gradient
            dense_part = 1.0 if wf > 1 else 0.0
            expert_part = 1.0 if ewf > 1 else 0.0
            unit = dense_part * dense_params if dense_here > 0.0 else 0.0
            if moe_here > 0:
                unit = max(unit, dense_part * moe_params + expert_part * expert_params)
            if first:
                unit = max(unit, dense_part * embedding)
            if last:
                unit = max(unit, dense_part * lm_head)
            unit /= cp_weight_split(c)
            units = float(layers_here) + first + last
            held = min(1.0 + c.prefetch_layers, units)
            gathered = unit * (held * bpp["weights"] + bpp["gradients"])
        other = {
            "cuda_context_bytes": c.cuda_context_bytes,
            "nccl_bytes": nccl,
            "loss_workspace_bytes": c.loss_bytes_per_logit * tokens * c.output_width / t if last else 0.0,
            "backward_workspace_bytes": c.backward_layers * largest[4],
            "gathered_params_bytes": gathered,
            "gradient_bucket_bytes": (min(c.bucket_params, (dense if gf > 1 else 0.0)
                                          + (e["params"] if egf > 1 else 0.0)) * bpp["gradients"]
                                      if wf == 1 and ewf == 1 else 0.0),
            "fragmentation_bytes": c.fragmentation * acts,
        }
        # the embedding and the LM head stay 16-bit: no fp8 copies
        kept = kept_weights(c, bpp, wf)
        end_kept = dtype_bytes(c.weights_dtype) if kept > 0 else 0.0
        stage = {
            "name": name, "rank": rank, "embedding": first, "lm_head": last, "layers": layers_here,
            "micro_batches_in_flight": in_flight, "layers_in_flight": sets, "params": params,
            "weights_bytes": (layer_params * (kept + bpp["fp8_weights"]) + end_params * end_kept) / wf
                             + e["weights_bytes"],
            "gradients_bytes": dense * bpp["gradients"] / gf + e["gradients_bytes"],
            "optimizer_bytes": (dense * (bpp["optimizer_states"] + bpp["master_weights"]) / of
                                + e["optimizer_bytes"]),
            "activations_bytes": acts,
            "activation_parts": parts,
            "other_bytes": sum(other.values()),
            "other": other,
            "experts": e,  # the routed experts' share, included in the items above
        }
        stage["total_bytes"] = (stage["weights_bytes"] + stage["gradients_bytes"]
                                + stage["optimizer_bytes"] + acts + stage["other_bytes"])
        stages.append(stage)
    peak = max(stages, key=lambda s: s["total_bytes"])  # the first of equals, as the C
    usage = peak["total_bytes"] / c.memory_bytes
    # the tensors alone, without the allocator's slack, decide red
    allocated = max(s["total_bytes"] - s["other"]["fragmentation_bytes"] for s in stages)
    return {"dp": dp, "micro_batches": m, "shards": shards, "expert_shards": (ewf, egf, eof),
            "expert_sizes": (ep, etp, edp), "bytes_per_param": bpp, "stages": stages,
            "peak_stage": peak["name"], "peak_bytes": peak["total_bytes"],
            "capacity_bytes": c.memory_bytes, "usage_fraction": usage, "safe_fraction": SAFE_FRACTION,
            "allocated_peak_bytes": allocated, "allocated_fraction": allocated / c.memory_bytes,
            "zone": ("green" if usage <= SAFE_FRACTION
                     else "yellow" if allocated <= c.memory_bytes else "red")}


def estimate(doc):
    """The parameter counts and memory of a resolved config (the "config"
    trainplan echoes)."""
    c = Config(doc)
    return {"params_total": params_total(c), "params_active": params_active(c),
            "memory": memory(c, describe_layers(c))}

