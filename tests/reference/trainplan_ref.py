"""trainplan's reference implementation, in plain Python.

The same estimate and search as the C core, written a second time from the
papers' formulas as core/*.c states them in their header comments, for two
uses (issue 7):

  * a differential test (test_reference.py): for hundreds of configs the
    reference and `trainplan estimate` must agree on every memory and time
    figure, and for whole searches on every count and the top plans, so a
    slip in either implementation shows;
  * the benchmark's yardstick (tests/bench/bench_python.py): how long the
    same work takes in the language most calculators are written in.

Plain Python 3 and its standard library only; no numpy, so the figures show
what a straightforward implementation costs. Input is the resolved config
`trainplan estimate` echoes under "config" (every field present, units as
the JSON states them), so presets and defaults live in one place, the C core.

Models: dense GPT and Llama layers, mixture-of-experts layers with expert
parallelism (issue 8) and multi-head latent attention; the search covers
dense models (its ep and etp loops are the C's alone).

Equations, as cited in the C sources:
  memory      seed 003 eq. 1-18 (memory.c), Korthikanti et al. 2023 for
              activations (model.c), seed 001's sharding factors (plan.c)
  FLOPs       seed 004 §5.1 (flops.c)
  network     seed 002 §S2's two-tier ring (network.c)
  step time   seed 004 §2.2 and §3, seed 000's overlap, seed 001 §IV-C (time.c)
  search      issue 5's space, seed 002 §III-A S3's placements (search.c)
"""
import math

GIB = 1073741824.0
GBIT_BYTES = 1e9 / 8.0
SAFE_FRACTION = 0.8

TP, CP, DP, PP = 0, 1, 2, 3
DIM_NAMES = ("tp", "cp", "dp", "pp")
SEARCH_SHARDINGS = ("zero0", "zero1", "zero2", "zero3", "fsdp_hybrid", "amsp")
RECOMPUTES = ("none", "selective", "full")
INVALID_NAMES = ("tp_split", "cp_seq", "batch", "layers", "interleave", "amsp_rule",
                 "shard_group", "tp_crosses_node")


class Config:
    """A resolved config in SI units (bytes, seconds, FLOP/s)."""

    def __init__(self, doc):
        m, s, t, p, o = (doc["model"], doc["system"], doc["training"], doc["parallel"],
                         doc["overheads"])
        g, n = s["gpu"], s["network"]
        self.arch = m["arch"]
        self.layers, self.hidden, self.heads = m["layers"], m["hidden"], m["heads"]
        self.kv_heads, self.ffn_hidden, self.vocab = m["kv_heads"], m["ffn_hidden"], m["vocab"]
        self.positions, self.tied, self.dropout = m["positions"], m["tied_embeddings"], m["dropout"]
        # a ViT encoder (arch vit): GPT's blocks, attention over every key, and
        # linears of patch_dim values per token in and out for a vocabulary
        self.vit = self.arch == "vit"
        self.patch_dim = m.get("patch_dim", 0)
        self.causal = not self.vit
        self.output_width = self.patch_dim if self.vit else self.vocab
        # multi-head latent attention (model.c describe_attention)
        # a head's size: model.head_dim when the config sets one (gqa)
        self.head_dim = m.get("head_dim", m["hidden"] // m["heads"])
        self.mla = m["attention"] == "mla"
        x = m.get("mla", {})
        self.q_lora_rank, self.kv_lora_rank = x.get("q_lora_rank", 0), x.get("kv_lora_rank", 0)
        self.qk_nope, self.qk_rope = x.get("qk_nope_head_dim", 0), x.get("qk_rope_head_dim", 0)
        self.v_head_dim = x.get("v_head_dim", 0)
        # mixture of experts (model.c, issue 8)
        e = m.get("moe", {})
        self.experts, self.experts_per_token = e.get("experts", 0), e.get("experts_per_token", 0)
        self.expert_ffn, self.shared_experts = e.get("expert_ffn_hidden", 0), e.get("shared_experts", 0)
        self.shared_ffn, self.every = e.get("shared_ffn_hidden", 0), e.get("every", 1)
        self.first_dense = e.get("first_dense", 0)

        self.memory_bytes = g["memory_gib"] * GIB
        self.tensor_flop_per_s = g["tensor_tflops"] * 1e12
        self.hbm_bytes_per_s = g["hbm_gbps"] * 1e9
        self.vector_flop_per_s = g["vector_tflops"] * 1e12
        self.matmul_efficiency = g["matmul_efficiency"]
        self.attention_efficiency = g["attention_efficiency"]
        self.kernel_latency_s = g["kernel_latency_us"] / 1e6
        self.overlap_slowdown = g["overlap_slowdown"]
        self.nvlink_overlap_slowdown = g["nvlink_overlap_slowdown"]
        self.compute_spread = g["compute_spread"]
        self.gpus, self.gpus_per_node = s["gpus"], s["gpus_per_node"]
        self.fast_bytes_per_s = n["fast_gbps"] * 1e9
        self.fast_latency_s = n["fast_latency_us"] / 1e6
        self.fast_efficiency = n["fast_efficiency"]
        self.slow_bytes_per_s = n["slow_gbps"] * GBIT_BYTES
        self.slow_latency_s = n["slow_latency_us"] / 1e6
        self.slow_efficiency = n["slow_efficiency"]
        self.nics_per_node = n["nics_per_node"]
        self.loader_bytes_per_s = s["loader_gbps"] * 1e9
        self.step_overhead_s = s["step_overhead_s"]

        self.seq_len, self.global_batch = t["seq_len"], t["global_batch"]
        self.micro_batch = t["micro_batch"]
        self.train_tokens, self.gpu_hour_cost = t["train_tokens"], t["gpu_hour_cost"]
        pr = t["precision"]
        self.weights_dtype, self.gradients_dtype = pr["weights"], pr["gradients"]
        self.optimizer_dtype = pr["optimizer"]
        self.master_weights, self.fp8 = pr["master_weights"], pr["fp8"]
        self.optimizer, self.recompute = t["optimizer"], t["recompute"]
        self.recompute_layers = t["recompute_layers"]
        self.flash_attention = t["flash_attention"]
        self.dataloader_mask = t["dataloader_mask"]
        self.capacity_factor = t["capacity_factor"]

        self.tp, self.pp, self.cp, self.sp = p["tp"], p["pp"], p["cp"], p["sp"]
        self.sharding = p["sharding"]
        self.zero = p.get("zero", 0)
        self.shard_group = p.get("shard_group", 0)
        a = p.get("amsp", {"weights": [1, 1], "gradients": [1, 1], "optimizer": [1, 1]})
        self.amsp = [list(a["weights"]), list(a["gradients"]), list(a["optimizer"])]
        self.schedule, self.virtual_stages = p["schedule"], p["virtual_stages"]
        self.order = [DIM_NAMES.index(d) for d in p.get("order", "tp-cp-dp-pp").split("-")]
        # seed 002 S3: ranks per node of each group given outright, or None
        self.per_node = [p["per_node"].get(d, 1) for d in DIM_NAMES] if "per_node" in p else None
        self.ep, self.etp = p.get("ep", 1), p.get("etp", p["tp"])
        # 2D TP with SUMMA (seed 002 Table A2): weights over tp x cp, n_b panels
        self.summa = p.get("tp_algorithm", "megatron") == "summa"
        self.summa_panels = p.get("summa_panels", 0)

        self.cuda_context_bytes = o["cuda_context_gib"] * GIB
        self.nccl_bytes_per_group = o["nccl_gib_per_group"] * GIB
        self.loss_bytes_per_logit = o["loss_bytes_per_logit"]
        self.backward_layers = o["backward_layers"]
        self.fragmentation = o["fragmentation"]
        self.bucket_params = o["bucket_params"]
        self.prefetch_layers = o["prefetch_layers"]

    def copy(self):
        c = Config.__new__(Config)
        c.__dict__.update(self.__dict__)
        c.amsp = [list(x) for x in self.amsp]
        c.order = list(self.order)
        c.per_node = list(self.per_node) if self.per_node else None
        return c


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
        # the attention block: every width per token
        if c.mla:
            a, rq, rkv = float(c.heads), float(c.q_lora_rank), float(c.kv_lora_rank)
            rope, v = float(c.qk_rope), float(c.v_head_dim)
            qk = float(c.qk_nope + c.qk_rope)
            self.sp_matrix = (h * rq if rq > 0 else 0.0) + h * (rkv + rope)  # W_DQ, W_DKV
            self.attention_matrix = ((rq * a * qk if rq > 0 else h * a * qk)
                                     + rkv * a * float(c.qk_nope + c.v_head_dim) + a * v * h)
            self.attention = self.attention_matrix
            self.kv_matrix = self.kv = 0.0
            self.kv_heads = a
            self.replicated = rq + rkv + self.sp_matrix
            self.rows_plus_cols = (((h + rq) + (rq + a * qk) if rq > 0 else h + a * qk)
                                   + (h + rkv + rope) + (rkv + a * float(c.qk_nope + c.v_head_dim))
                                   + (a * v + h))
            self.q_width, self.kv_width, self.o_width = a * qk, a * (qk + v), a * v
            self.rope_width = a * rope + rope
            self.gather_width = (rq if rq > 0 else h) + rkv + rope
            self.act_sp = 4.0 * rq + 4.0 * rkv + 2.0 * rope
        else:
            q, w = float(c.heads * c.head_dim), float(c.kv_heads * c.head_dim)
            self.sp_matrix = 0.0
            self.attention_matrix = 2.0 * h * q
            self.kv_matrix = 2.0 * h * w
            self.attention = self.attention_matrix + (q if gpt else 0.0)
            self.kv = self.kv_matrix + (2.0 * w if gpt else 0.0)
            self.kv_heads = float(c.kv_heads)
            self.replicated = 0.0
            self.rows_plus_cols = 2.0 * (h + q) + 2.0 * (h + w)
            self.q_width = self.o_width = q
            self.kv_width = 2.0 * w
            self.rope_width = q + w
            self.gather_width = h
            self.act_sp = 0.0
        attention_act = 2.0 * self.q_width + 2.0 * self.o_width
        self.act_kv = 2.0 * self.kv_width
        # the MLP every token passes: dense, or a MoE layer's shared experts
        f = float(c.ffn_hidden)
        shared, fs = float(c.shared_experts), float(c.shared_ffn)
        width = shared * fs if moe else f
        self.mlp_matrix = (2.0 if gpt else 3.0) * h * width
        self.mlp = self.mlp_matrix + (f if gpt else 0.0)
        self.replicated += 6.0 * h if gpt else 2.0 * h
        self.rows_plus_cols += 3.0 * shared * (h + fs) if moe else (2.0 if gpt else 3.0) * (h + f)
        self.act_tp = attention_act + (4.0 if gpt else 8.0) * width
        self.act_sp += 8.0 * h + (2.0 * h if c.dropout else 0.0)
        self.act_input = 2.0 * h
        self.act_score = 5.0 if c.dropout else 2.0
        self.experts = self.experts_per_token = 0.0
        self.expert_params = self.expert_each = 0.0
        self.act_copy = self.act_expert_mlp = 0.0
        if moe:  # the router and the routed experts
            e, k = float(c.experts), float(c.experts_per_token)
            fe = float(c.expert_ffn)
            self.replicated += e * h
            self.sp_matrix += e * h  # the router
            self.rows_plus_cols += (h + e) + 3.0 * e * (h + fe)
            self.experts, self.experts_per_token = e, k
            self.expert_each = 3.0 * h * fe
            self.expert_params = e * self.expert_each
            self.act_sp += 4.0 * e + 4.0 * k
            self.act_copy = 4.0 * h
            self.act_expert_mlp = 8.0 * fe
        # flops.c: per token, forward
        self.attention_gemm_flop = 2.0 * self.attention_matrix
        self.kv_gemm_flop = 2.0 * self.kv_matrix
        self.mlp_gemm_flop = 2.0 * self.mlp_matrix
        self.sp_gemm_flop = 2.0 * self.sp_matrix
        self.attention_flop = 2.0 * float(c.seq_len) * (self.q_width + self.o_width)
        self.lm_head_flop = 2.0 * h * float(c.output_width)
        self.embedding_flop = 2.0 * float(c.patch_dim) * h if c.vit else 0.0
        self.attention_fraction = 0.5 if c.causal else 1.0
        self.sp_bytes = 20.0 * h + (10.0 * h if c.dropout else 0.0)
        self.tp_bytes = 4.0 * width if gpt else 4.0 * self.rope_width + 6.0 * width
        self.gemm_kernels = 2.0 + (2.0 if width > 0.0 else 0.0)
        self.elementwise_kernels = 5.0 if gpt else 7.0
        if c.mla:
            rq = float(c.q_lora_rank)
            self.sp_bytes += 4.0 * (rq + float(c.kv_lora_rank))
            self.tp_bytes += 8.0 * self.q_width
            self.gemm_kernels += 3.0 if rq > 0 else 2.0
            self.elementwise_kernels += (2.0 if rq > 0 else 1.0) + 2.0
        self.expert_flop_per_copy = self.copy_bytes = self.expert_bytes_per_copy = 0.0
        if moe:
            self.gemm_kernels += 1.0
            self.expert_flop_per_copy = 2.0 * self.expert_each
            self.copy_bytes = 8.0 * h
            self.expert_bytes_per_copy = 6.0 * float(c.expert_ffn)
            self.elementwise_kernels += 4.0

    def params(self):
        return self.attention + self.kv + self.mlp + self.replicated

    def kv_split(self, tp):
        return float(tp) if tp < self.kv_heads else self.kv_heads

    def params_per_gpu(self, tp):
        return (self.attention + self.mlp) / tp + self.kv / self.kv_split(tp) + self.replicated

    def forward_flop(self):
        return (self.attention_gemm_flop + self.kv_gemm_flop + self.mlp_gemm_flop + self.sp_gemm_flop
                + self.attention_flop + self.experts_per_token * self.expert_flop_per_copy)


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
    """(weights, gradients, optimizer, hybrid group) split factors."""
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
    return {
        "weights": dtype_bytes(c.weights_dtype),
        "fp8_weights": 2.0 if c.fp8 else 0.0,
        "gradients": dtype_bytes(c.gradients_dtype),
        "master_weights": 4.0 if c.master_weights and c.weights_dtype != "fp32" else 0.0,
        "optimizer_states": opt,
    }


def stage_shape(c, rank, m):
    """Micro-batch passes a pipeline rank holds at its peak (seed 003 eq. 16-17,
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
    stage_layers = float(c.layers // p)
    sets = in_flight * stage_layers / v if interleaved else in_flight * stage_layers
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
    """MoE layers a pipeline rank holds: its block, or its interleaved chunks."""
    if c.experts == 0:
        return 0
    p = c.pp
    v = c.virtual_stages if c.schedule == "interleaved" else 1
    chunk = c.layers // (p * v)
    return sum(moe_layers_in(c, (j * p + rank) * chunk, chunk) for j in range(v))


def layer_set(c, layer, etp):
    """(kept, scores, input, routed) bytes of one layer for one micro-batch on one GPU."""
    t = float(c.tp)
    tokens = float(c.seq_len) * float(c.micro_batch) / float(c.cp)
    sp_split = t if c.sp else 1.0
    kept = tokens * (layer.act_tp / t + layer.act_kv / layer.kv_split(c.tp) + layer.act_sp / sp_split)
    scores = 0.0 if c.flash_attention else tokens * float(c.seq_len) * layer.act_score * c.heads / t
    layer_input = tokens * layer.act_input / sp_split
    routed = 0.0
    if layer.experts_per_token > 0.0:
        copies = routed_copies_sent(c, layer.experts_per_token) * float(etp)
        routed = copies * (layer.act_copy + layer.act_expert_mlp / float(etp))
        kept += routed
    return kept, scores, layer_input, routed


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
        layers_here = c.layers // c.pp
        moe_here = moe_layers_of_rank(c, rank)
        dense_here = float(layers_here) - float(moe_here)
        dense = (dense_here * dense_params + float(moe_here) * moe_params
                 + (embedding + float(c.positions) * c.hidden if first else 0.0)
                 + (lm_head + (2.0 if c.arch != "llama" else 1.0) * c.hidden if last else 0.0)
                 ) / cp_weight_split(c)
        e = {"moe_layers": moe_here, "params": 0.0, "weights_bytes": 0.0, "gradients_bytes": 0.0,
             "optimizer_bytes": 0.0, "activations_bytes": 0.0}
        if moe_here > 0:
            e["params"] = float(moe_here) * expert_params
            e["weights_bytes"] = e["params"] * (bpp["weights"] + bpp["fp8_weights"]) / ewf
            e["gradients_bytes"] = e["params"] * bpp["gradients"] / egf
            e["optimizer_bytes"] = e["params"] * (bpp["optimizer_states"] + bpp["master_weights"]) / eof
        params = dense + e["params"]
        # one layer set of the stage's mix (its mean); full recompute
        # re-runs its largest layer
        kept, scores, layer_input, routed = dense_set
        largest = dense_set
        if moe_here > 0:
            share = float(moe_here) / float(layers_here)
            kept = (1.0 - share) * dense_set[0] + share * moe_set[0]
            routed = share * moe_set[3]
            if moe_set[0] > dense_set[0]:
                largest = moe_set
        rerun_kept, rerun_routed = (largest[0], largest[3]) if c.recompute == "full" else (kept, routed)
        if sets <= 0.0:
            acts = 0.0
        elif c.recompute == "full":
            # a share of the sets keeps its input, the rest everything, and
            # the layer being recomputed holds its whole activations again
            share = recompute_share(c)
            acts = (share * sets * layer_input + (1.0 - share) * sets * (kept + scores)
                    + rerun_kept + scores - layer_input)
        elif c.recompute == "selective":
            acts = sets * kept + scores
        else:
            acts = sets * (kept + scores)
        parts = {"layer_bytes": rerun_kept, "mean_layer_bytes": kept, "scores_bytes": scores,
                 "layer_input_bytes": layer_input,
                 "embedding_bytes": emb_in_flight * embedding_act,
                 "lm_head_bytes": head_in_flight * lm_head_act}
        acts += parts["embedding_bytes"] + parts["lm_head_bytes"]
        e["activations_bytes"] = ((1.0 - recompute_share(c)) * sets * routed + rerun_routed
                                  if c.recompute == "full" else sets * routed)
        gathered = 0.0
        if wf > 1:
            unit = (max(dense_params if dense_here > 0.0 else 0.0, moe_params + expert_params)
                    if moe_here > 0 else dense_params)
            if first:
                unit = max(unit, embedding)
            if last:
                unit = max(unit, lm_head)
            unit /= cp_weight_split(c)
            gathered = unit * ((1 + c.prefetch_layers) * bpp["weights"] + bpp["gradients"])
        other = {
            "cuda_context_bytes": c.cuda_context_bytes,
            "nccl_bytes": nccl,
            "loss_workspace_bytes": c.loss_bytes_per_logit * tokens * c.output_width / t if last else 0.0,
            "backward_workspace_bytes": c.backward_layers * largest[0],
            "gathered_params_bytes": gathered,
            "gradient_bucket_bytes": (min(c.bucket_params, params) * bpp["gradients"]
                                      if gf > 1 and wf == 1 else 0.0),
            "fragmentation_bytes": c.fragmentation * acts,
        }
        stage = {
            "name": name, "rank": rank, "layers": layers_here,
            "micro_batches_in_flight": in_flight, "layers_in_flight": sets, "params": params,
            "weights_bytes": dense * (bpp["weights"] + bpp["fp8_weights"]) / wf + e["weights_bytes"],
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
    return {"dp": dp, "micro_batches": m, "shards": shards, "expert_shards": (ewf, egf, eof),
            "expert_sizes": (ep, etp, edp), "expert_params": expert_params,
            "bytes_per_param": bpp, "stages": stages, "peak_bytes": peak["total_bytes"]}


# ---------------- network (network.c) ----------------

def ranks_per_node(size, stride, gpus_per_node):
    if stride >= gpus_per_node:
        return 1
    return min(gpus_per_node // stride, size)


def _fast_rate(c):
    return c.fast_bytes_per_s * c.fast_efficiency


def _slow_rate(c, per_node):
    node = c.nics_per_node * c.slow_bytes_per_s * c.slow_efficiency
    return node * per_node / c.gpus_per_node


def within_node(n, per_node):
    """A group of n ranks, per_node of them on a node, on the fast tier only."""
    return per_node >= n


def _group_rate(c, n, per_node):
    fast = _fast_rate(c)
    if within_node(n, per_node):
        return fast
    return min(_slow_rate(c, per_node), fast)


def _ring_pass_s(c, nbytes, n, per_node):
    nodes = n / per_node
    if nodes > 1.0:
        latency = c.slow_latency_s * (nodes - 1.0) + c.fast_latency_s * (n - nodes)
    else:
        latency = (n - 1) * c.fast_latency_s
    return latency + (n - 1) / n * nbytes / _group_rate(c, n, per_node)


def collective_s(c, kind, nbytes, n, per_node):
    """all_gather, reduce_scatter, broadcast, all_reduce or all_to_all of nbytes over n ranks."""
    if n <= 1 or nbytes <= 0.0:
        return 0.0
    if kind == "all_to_all":
        # 1/n of the buffer to each other rank: the node's part over the fast
        # tier, the rest through the NICs its GPUs share, side by side
        nodes = n / per_node
        inside = (per_node - 1) / n * nbytes / _fast_rate(c)
        outside = (n - per_node) / n * nbytes / _slow_rate(c, 1) if nodes > 1.0 else 0.0
        latency = c.slow_latency_s if nodes > 1.0 else c.fast_latency_s
        return latency + max(inside, outside)
    if kind == "broadcast":
        return _ring_pass_s(c, nbytes, n, per_node) * n / (n - 1)
    if kind == "all_reduce":
        ring = 2.0 * _ring_pass_s(c, nbytes, n, per_node)
        alpha = c.fast_latency_s if within_node(n, per_node) else c.slow_latency_s
        tree = 2.0 * math.ceil(math.log2(n)) * alpha + 2.0 * nbytes / _group_rate(c, n, per_node)
        return min(ring, tree)
    return _ring_pass_s(c, nbytes, n, per_node)


def p2p_s(c, nbytes, same_node):
    if nbytes <= 0.0:
        return 0.0
    if same_node:
        return c.fast_latency_s + nbytes / _fast_rate(c)
    return c.slow_latency_s + nbytes / _slow_rate(c, 1)


# ---------------- step time (time.c) ----------------

def _transfer(c, seconds, n, per_node):
    """A collective compute may hide: (time, time x its tier's slowdown);
    inside one node NVLink's, across nodes the network's."""
    slowdown = c.nvlink_overlap_slowdown if within_node(n, per_node) else c.overlap_slowdown
    return (seconds, seconds * slowdown)


def _tsum(*transfers):
    return (sum(t[0] for t in transfers), sum(t[1] for t in transfers))


NO_TRANSFER = (0.0, 0.0)


def _overlapped_s(compute, transfer):
    """Transfer hidden behind compute: what shows, plus the slowdown of the
    hidden part (the time-weighted slowdown of its parts)."""
    seconds, slowed = transfer
    if seconds <= 0.0:
        return 0.0
    return max(0.0, seconds - compute) + slowed / seconds * min(seconds, compute)


def slowest_of_n_sigmas(n):
    """Expected largest of n standard normal draws: Blom's formula, its tail
    quantile by Abramowitz and Stegun 26.2.23 (time.c)."""
    if n <= 1:
        return 0.0
    t = math.sqrt(-2.0 * math.log(0.625 / (n + 0.25)))
    return t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)))


def slowest_gpu_slowdown(c):
    """How much longer the slowest of the job's GPUs takes for matrix work."""
    return c.compute_spread * slowest_of_n_sigmas(c.gpus)


def _slowest_flop_per_s(c, efficiency):
    """What the job's slowest GPU reaches at a fraction of the tensor peak."""
    return c.tensor_flop_per_s / (1.0 + slowest_gpu_slowdown(c)) * efficiency


def _gemm_s(c, flop, kernels):
    return kernels * c.kernel_latency_s + flop / _slowest_flop_per_s(c, c.matmul_efficiency)


def _elementwise_s(c, nbytes, flop):
    return max(nbytes / c.hbm_bytes_per_s, flop / c.vector_flop_per_s)


def order_per_node(order, size, gpus_per_node):
    """Ranks per node of each dimension's groups when ranks are numbered
    along order, innermost first (plan_order_ranks_per_node)."""
    per_node, stride = [0, 0, 0, 0], 1
    for d in order:
        per_node[d] = ranks_per_node(size[d], stride, gpus_per_node)
        stride *= size[d]
    return per_node


def _place(c, dp):
    size = [c.tp, c.cp, dp, c.pp]
    return size, list(c.per_node) if c.per_node else order_per_node(c.order, size, c.gpus_per_node)


def _layer_forward(c, x, ctx):
    """(gemm, attention, elementwise) seconds of one layer's forward on one GPU."""
    t, tokens = float(c.tp), ctx["tokens"]
    gemm_flop = tokens * ((x.attention_gemm_flop + x.mlp_gemm_flop) / t + x.kv_gemm_flop / ctx["kv_split"])
    # SUMMA: each of its five multiplies in n_b panels, n_b - 1 more launches
    summa_kernels = SUMMA_MULTIPLIES * (ctx["summa_panels"] - 1.0) if ctx["summa_panels"] > 0.0 else 0.0
    gemm = _gemm_s(c, gemm_flop, x.gemm_kernels + summa_kernels)
    if c.flash_attention:
        flop = x.attention_fraction * tokens * x.attention_flop / t
        attention = c.kernel_latency_s + flop / _slowest_flop_per_s(c, c.attention_efficiency)
    else:
        flop = tokens * x.attention_flop / t
        scores = tokens * c.seq_len * c.heads / t
        bytes_per_score = 8.0 + (5.0 if c.dropout else 0.0)  # dropout: read, write, 1-byte mask
        attention = _gemm_s(c, flop, 2.0) + _elementwise_s(c, bytes_per_score * scores, 5.0 * scores)
    sp_split = t if c.sp else 1.0
    nbytes = tokens * (x.sp_bytes / sp_split + x.tp_bytes / t)
    elementwise = x.elementwise_kernels * c.kernel_latency_s + _elementwise_s(c, nbytes, nbytes / 2.0)
    # MLA down-projections and the router on sequence-parallel tokens
    gemm += tokens / sp_split * x.sp_gemm_flop / _slowest_flop_per_s(c, c.matmul_efficiency)
    if x.experts_per_token > 0.0:
        etp = float(ctx["etp"])
        copies = routed_copies_sent(c, x.experts_per_token) * etp
        flop = copies * x.expert_flop_per_copy / etp
        weight_bytes = 2.0 * ctx["expert_params"]
        gemm += 2.0 * c.kernel_latency_s + max(flop / _slowest_flop_per_s(c, c.matmul_efficiency),
                                               weight_bytes / c.hbm_bytes_per_s)
        moved = copies * (x.copy_bytes + x.expert_bytes_per_copy / etp)
        elementwise += _elementwise_s(c, moved, moved / 2.0)
    return gemm, attention, elementwise


def _expert_comm_s(c, ctx, moe_layer):
    """Dispatch and combine all-to-alls over ep, and etp's gather and reduce-scatter."""
    sent = routed_copies_sent(c, moe_layer.experts_per_token) * 2.0 * float(c.hidden)
    t = 2.0 * collective_s(c, "all_to_all", sent, ctx["ep"], ctx["ep_per_node"])
    if ctx["etp"] > 1:
        gathered = sent * float(ctx["etp"])
        t += (collective_s(c, "all_gather", gathered, ctx["etp"], ctx["etp_per_node"])
              + collective_s(c, "reduce_scatter", gathered, ctx["etp"], ctx["etp_per_node"]))
    return t


def _tp_pair_s(c, size, per_node, gather_bytes, nbytes):
    if c.sp:
        return (collective_s(c, "all_gather", gather_bytes, size[TP], per_node[TP])
                + collective_s(c, "reduce_scatter", nbytes, size[TP], per_node[TP]))
    return collective_s(c, "all_reduce", nbytes, size[TP], per_node[TP])


SUMMA_MULTIPLIES = 5.0  # seed 002 Table A2: Q, K, V, W1, W2


def _summa_multiply_s(c, ctx, size, per_node, k_in, n_out, weight_split, panels):
    """A SUMMA multiply's exposed broadcasts (seed 002 Table A2, Algorithm 1):
    the narrower activation side over tp, the weight's k_in x n_out / tp over
    cp, n_b panels, the first pair exposed and each later pair behind the
    previous panel's multiply."""
    tokens = ctx["tokens"]
    act = 2.0 * tokens * min(k_in, n_out) / panels
    weight = 2.0 * k_in * n_out / weight_split / panels
    prologue = _tsum(
        _transfer(c, collective_s(c, "broadcast", act, size[TP], per_node[TP]), size[TP], per_node[TP]),
        _transfer(c, collective_s(c, "broadcast", weight, size[CP], per_node[CP]), size[CP], per_node[CP]))
    panel_s = _gemm_s(c, 2.0 * tokens * k_in * n_out / weight_split / panels, 1.0)
    return prologue[0] + (panels - 1.0) * _overlapped_s(panel_s, prologue)


def _summa_layer_s(c, ctx, size, per_node, layer, panels):
    """Q, K, V, the MLP's up (gate and up for SwiGLU) and down multiplies."""
    h, f, t = float(c.hidden), float(c.ffn_hidden), float(c.tp)
    up = layer.mlp_matrix / h - f
    return (_summa_multiply_s(c, ctx, size, per_node, h, layer.q_width, t, panels)
            + 2.0 * _summa_multiply_s(c, ctx, size, per_node, h, layer.kv_width / 2.0, ctx["kv_split"], panels)
            + _summa_multiply_s(c, ctx, size, per_node, h, up, t, panels)
            + _summa_multiply_s(c, ctx, size, per_node, f, h, t, panels))


def _summa_panels(c, ctx, size, per_node, layer):
    """n_b as planned, or the fastest power of two up to 64 dividing hidden and ffn."""
    if c.summa_panels > 0:
        return float(c.summa_panels)
    best, best_s = 1.0, None
    n = 1
    while n <= 64 and c.hidden % n == 0 and c.ffn_hidden % n == 0:
        t = 3.0 * (_summa_layer_s(c, ctx, size, per_node, layer, float(n))
                   + SUMMA_MULTIPLIES * (n - 1.0) * c.kernel_latency_s)
        if best_s is None or t < best_s:
            best, best_s = float(n), t
        n *= 2
    return best


def _shard_transfer(c, bpp, params, n, scatter_n, per_node):
    """A sharded layer's weight gather (over n) and gradient reduce-scatter (over scatter_n)."""
    return (_transfer(c, collective_s(c, "all_gather", params * bpp["weights"], n, per_node), n, per_node),
            _transfer(c, collective_s(c, "reduce_scatter", params * bpp["gradients"], scatter_n, per_node),
                      scatter_n, per_node))


def _add_layers(c, st, x, count, ctx, mem, size, per_node, replicas_per_node):
    """count layers of one kind (x: dense or MoE) on a stage's micro-batch."""
    moe = x.experts_per_token > 0.0
    layers = count
    tokens = ctx["tokens"]
    act_bytes = tokens * c.hidden * 2.0
    full = c.recompute == "full"
    wf, gf = mem["shards"][0], mem["shards"][1]
    bpp = mem["bytes_per_param"]
    gemm, attention, elementwise = _layer_forward(c, x, ctx)
    fwd = gemm + attention + elementwise
    bwd = 2.0 * gemm + 2.5 * attention + 2.0 * elementwise
    # of one layer that recomputes; share: the layers that do
    recompute = fwd if full else attention if c.recompute == "selective" else 0.0
    share = recompute_share(c) if full else 1.0
    st["compute_f"] += layers * fwd
    st["compute_b"] += layers * (bwd + share * recompute)

    if ctx["summa_panels"] > 0.0:
        # two LayerNorm all-reduces and W_O's reduce-scatter, and the multiplies
        around = (2.0 * collective_s(c, "all_reduce", act_bytes, size[TP], per_node[TP])
                  + collective_s(c, "reduce_scatter", act_bytes, size[TP], per_node[TP]))
        tp_f, tp_b = around + ctx["summa_layer_f"], around + 2.0 * ctx["summa_layer_f"]
    else:
        mlp_pairs = (1.0 if c.shared_experts > 0 else 0.0) if moe else 1.0
        tp_f = tp_b = (_tp_pair_s(c, size, per_node, tokens * x.gather_width * 2.0, act_bytes)
                       + mlp_pairs * _tp_pair_s(c, size, per_node, act_bytes, act_bytes))
    st["tp_f"] += layers * tp_f
    st["tp_b"] += layers * (tp_b + (share * tp_f if full else 0.0))

    if moe:
        ep = _expert_comm_s(c, ctx, x)
        st["ep_f"] += layers * ep
        st["ep_b"] += layers * ep * (1.0 + share if full else 1.0)

    cp = size[CP]
    if cp > 1:
        kv_bytes = tokens * x.kv_width / ctx["kv_split"] * 2.0
        same = per_node[CP] == cp
        st["cp_f"] += layers * (cp - 1) * p2p_s(c, kv_bytes, same)
        st["cp_b"] += layers * (cp - 1) * p2p_s(c, 2.0 * kv_bytes, same)

    if wf > 1:
        params = ctx["moe_layer_params"] if moe else ctx["layer_params"]
        amsp = c.sharding == "amsp"
        r = c.amsp[0][0] if amsp else min(wf, replicas_per_node)
        gather, scatter = _shard_transfer(c, bpp, params, wf, wf if amsp else gf, r)
        if moe:
            ewf, egf, _ = mem["expert_shards"]
            g2, s2 = _shard_transfer(c, bpp, ctx["expert_params"], ewf, egf, min(ewf, ctx["edp_per_node"]))
            gather, scatter = _tsum(gather, g2), _tsum(scatter, s2)
        st["shard_f"] += layers * _overlapped_s(fwd, gather)
        both = _tsum(gather, scatter)
        st["shard_b"] += layers * (share * _overlapped_s(bwd + recompute, both)
                                   + (1.0 - share) * _overlapped_s(bwd, both))


def _stage_micro_batch(c, layers, ctx, mem, stage, size, per_node, replicas_per_node):
    """One micro-batch's forward and backward on one stage, by kind."""
    t = float(c.tp)
    tokens = ctx["tokens"]
    act_bytes = tokens * c.hidden * 2.0
    first, last = stage["rank"] == 0, stage["rank"] == c.pp - 1
    st = dict.fromkeys(("compute_f", "compute_b", "tp_f", "tp_b", "cp_f", "cp_b", "shard_f", "shard_b",
                        "ep_f", "ep_b", "p2p"), 0.0)
    moe_layers = float(stage["experts"]["moe_layers"])
    if float(stage["layers"]) > moe_layers:
        _add_layers(c, st, layers[0], float(stage["layers"]) - moe_layers, ctx, mem, size, per_node,
                    replicas_per_node)
    if moe_layers > 0.0:
        _add_layers(c, st, layers[1], moe_layers, ctx, mem, size, per_node, replicas_per_node)

    tp_n, tp_r = size[TP], per_node[TP]
    layer = layers[0]
    if first:
        st["compute_f"] += _elementwise_s(c, 2.0 * act_bytes, 0.0)
        st["compute_b"] += _elementwise_s(c, 4.0 * act_bytes, 0.0)
        st["tp_f"] += collective_s(c, "reduce_scatter" if c.sp else "all_reduce", act_bytes, tp_n, tp_r)
        if layer.embedding_flop > 0.0:  # a ViT's patch linear
            flop = tokens * layer.embedding_flop / t
            st["compute_f"] += _gemm_s(c, flop, 1.0)
            st["compute_b"] += _gemm_s(c, 2.0 * flop, 2.0)
    if last:
        flop = tokens * layer.lm_head_flop / t
        logits = tokens * c.output_width / t
        panels = ctx["summa_panels"] if ctx["summa_panels"] > 0.0 else 1.0
        st["compute_f"] += _gemm_s(c, flop, panels) + _elementwise_s(c, logits * 60.0 / 2.0, 0.0)
        st["compute_b"] += _gemm_s(c, 2.0 * flop, 2.0 * panels) + _elementwise_s(c, logits * 60.0 / 2.0, 0.0)
        if ctx["summa_panels"] > 0.0:  # the head is one more SUMMA multiply
            head = _summa_multiply_s(c, ctx, size, per_node, float(c.hidden), float(c.output_width), t,
                                     ctx["summa_panels"])
            st["tp_f"] += head
            st["tp_b"] += 2.0 * head
        elif c.sp:
            st["tp_f"] += collective_s(c, "all_gather", act_bytes, tp_n, tp_r)
            st["tp_b"] += collective_s(c, "reduce_scatter", act_bytes, tp_n, tp_r)
        else:
            st["tp_b"] += collective_s(c, "all_reduce", act_bytes, tp_n, tp_r)

    if size[PP] > 1:
        st["p2p"] = 2.0 * c.virtual_stages * p2p_s(c, act_bytes / t, per_node[PP] > 1)
    return st


def _amsp_step(c, mem, grad_bytes, replicas, replicas_per_node, backward_s):
    """AMSP's T_g, T_os^0 and T_os^1 (seed 001 §IV-C): reduce, gather, per micro-batch."""
    wf, gf, of, _ = mem["shards"]
    s = c.amsp
    shard_bytes = grad_bytes / wf
    m = float(mem["micro_batches"])
    per_micro_batch = 0.0
    g = gf // wf
    if g > 1 and m > 1.0:
        g_per_node = s[1][0] // s[0][0]
        t_g = _transfer(c, collective_s(c, "all_reduce", shard_bytes, g, g_per_node), g, g_per_node)
        per_micro_batch = (m - 1.0) / m * _overlapped_s(backward_s, t_g)
    d = replicas // wf
    d_per_node = max(replicas_per_node // s[0][0], 1)
    reduce = _transfer(c, collective_s(c, "all_reduce", shard_bytes, d, d_per_node), d, d_per_node)
    o, o_per_node = of // wf, s[2][0] // s[0][0]
    weight_bytes = shard_bytes / mem["bytes_per_param"]["gradients"] * mem["bytes_per_param"]["weights"]
    gather = _transfer(c, o * collective_s(c, "broadcast", weight_bytes / o, o, o_per_node), o, o_per_node)
    return reduce, gather, per_micro_batch


def _replica_step(c, mem, params, shards, replicas, per_node):
    """(reduce, gather, per-micro-batch reduce-scatter) of one set of
    parameters over the replicas holding it, sharded (w, g, o) over them:
    the dense states over dp*cp, the routed experts over edp."""
    bpp = mem["bytes_per_param"]
    w, g, o = shards
    grad_bytes = params * bpp["gradients"]
    reduce = gather = transfer = NO_TRANSFER
    if g == 1:
        reduce = _transfer(c, collective_s(c, "reduce_scatter" if o > 1 else "all_reduce", grad_bytes,
                                           replicas, per_node), replicas, per_node)
    else:
        r = min(g, per_node)
        if w == 1:
            transfer = _transfer(c, collective_s(c, "reduce_scatter", grad_bytes, g, r), g, r)
        gr = max(per_node // r, 1)
        reduce = _transfer(c, collective_s(c, "all_reduce", grad_bytes / g, replicas // g, gr), replicas // g, gr)
    if w == 1 and o > 1:
        r = min(o, per_node)
        gather = _transfer(c, collective_s(c, "all_gather", params * bpp["weights"], o, r), o, r)
    return reduce, gather, transfer


def step_time(c, layers, mem):
    """Step time and its breakdown on the slowest stage, and throughput."""
    dp = mem["dp"]
    size, per_node = _place(c, dp)
    replicas_per_node = per_node[DP] * (1 if c.summa else per_node[CP])
    n_replicas = replicas(c, dp)
    m, p, v = float(mem["micro_batches"]), float(c.pp), float(c.virtual_stages)
    wf, gf, of, _ = mem["shards"]
    bpp = mem["bytes_per_param"]
    ep, etp, edp = mem["expert_sizes"]
    ctx = {"tokens": float(c.micro_batch) * float(c.seq_len) / float(c.cp),
           "kv_split": layers[0].kv_split(c.tp),
           "layer_params": layers[0].params_per_gpu(c.tp) / cp_weight_split(c),
           "moe_layer_params": layers[1].params_per_gpu(c.tp),
           "expert_params": 0.0, "ep": ep, "etp": etp, "edp": edp,
           "ep_per_node": 1, "etp_per_node": 1, "edp_per_node": 1,
           "summa_panels": 0.0, "summa_layer_f": 0.0}
    if c.experts > 0:
        ctx["expert_params"] = mem["expert_params"]
        pool = per_node[TP] * replicas_per_node  # a stage's tp cp dp ranks on one node
        ctx["etp_per_node"] = min(etp, pool)
        ctx["ep_per_node"] = ranks_per_node(ep, etp, pool)
        ctx["edp_per_node"] = ranks_per_node(edp, ep * etp, pool)
    if c.summa:
        ctx["summa_panels"] = _summa_panels(c, ctx, size, per_node, layers[0])
        ctx["summa_layer_f"] = _summa_layer_s(c, ctx, size, per_node, layers[0], ctx["summa_panels"])
    eof = mem["expert_shards"][2]
    # one micro-batch through one process's data loader: 28 bytes a token
    # (int64 tokens, labels, positions; fp32 loss mask) and the s x s bool mask
    s = float(c.seq_len)
    loader = float(c.micro_batch) * (28.0 * s + (s * s if c.dataloader_mask else 0.0)) \
        / c.loader_bytes_per_s
    stage_sum = stage_weight = 0.0
    slowest = -1.0
    best = None
    for stage in mem["stages"]:
        st = _stage_micro_batch(c, layers, ctx, mem, stage, size, per_node, replicas_per_node)
        f = st["compute_f"] + st["tp_f"] + st["cp_f"] + st["shard_f"] + st["ep_f"]
        b = st["compute_b"] + st["tp_b"] + st["cp_b"] + st["shard_b"] + st["ep_b"]
        end = stage["rank"] == 0 or stage["rank"] == c.pp - 1
        weight = 1.0 if end else p - 2.0
        stage_sum += weight * (f + b + st["p2p"])
        stage_weight += weight

        params = stage["params"] - stage["experts"]["params"]
        grad_bytes = params * bpp["gradients"]
        reduce = gather = transfer = NO_TRANSFER
        per_micro_batch = 0.0
        if c.sharding == "amsp":
            reduce, gather, per_micro_batch = _amsp_step(c, mem, grad_bytes, n_replicas,
                                                         replicas_per_node, b)
        else:
            reduce, gather, transfer = _replica_step(c, mem, params, (wf, gf, of), n_replicas,
                                                     replicas_per_node)
            if stage["experts"]["params"] > 0.0:
                r2, g2, t2 = _replica_step(c, mem, stage["experts"]["params"], mem["expert_shards"],
                                           ctx["edp"], ctx["edp_per_node"])
                reduce, gather, transfer = _tsum(reduce, r2), _tsum(gather, g2), _tsum(transfer, t2)
            per_micro_batch = _overlapped_s(b, transfer)
        exposed = _overlapped_s(b, reduce) + _overlapped_s(f, gather)
        opt_bytes = ((params / of + stage["experts"]["params"] / eof)
                     * (2.0 * (bpp["optimizer_states"] + bpp["master_weights"]) + bpp["gradients"]
                        + bpp["weights"]))
        opt = opt_bytes / c.hbm_bytes_per_s
        own = f + b + st["p2p"] + per_micro_batch
        wait = max(loader - own, 0.0)  # the loader sets the pace
        steady = m * (own + wait)
        if steady + exposed + opt > slowest:
            slowest = steady + exposed + opt
            # per micro-batch of the slowest stage, and what the step adds
            best = {
                "micro_batch_compute_s": st["compute_f"] + st["compute_b"],
                "micro_batch_tp_s": st["tp_f"] + st["tp_b"],
                "micro_batch_cp_s": st["cp_f"] + st["cp_b"],
                "micro_batch_ep_s": st["ep_f"] + st["ep_b"],
                "micro_batch_p2p_s": st["p2p"],
                "micro_batch_dp_s": st["shard_f"] + st["shard_b"] + per_micro_batch,
                "dp_step_s": exposed,
                "optimizer_bytes": opt_bytes,
                "optimizer_s": opt,
                "forward_s": f,
                "backward_s": b,
                "micro_batch_s": own,
                "data_wait_s": m * wait,
            }
    for part, per in (("compute_s", "compute_s"), ("tp_comm_s", "tp_s"), ("cp_comm_s", "cp_s"),
                      ("ep_comm_s", "ep_s"), ("pp_comm_s", "p2p_s"), ("dp_comm_s", "dp_s")):
        best[part] = m * best["micro_batch_" + per]
    best["dp_comm_s"] += best["dp_step_s"]
    best["bubble_micro_batch_s"] = stage_sum / stage_weight
    best["bubble_s"] = (p - 1.0) / v * best["bubble_micro_batch_s"] if p > 1.0 else 0.0
    best["micro_batch_loader_s"] = loader
    best["step_overhead_s"] = c.step_overhead_s  # the host's time per step
    best["slowest_gpu_slowdown"] = slowest_gpu_slowdown(c)
    if c.summa:
        best["summa_panels"] = int(ctx["summa_panels"])
    best["step_s"] = (best["compute_s"] + best["tp_comm_s"] + best["cp_comm_s"] + best["ep_comm_s"]
                      + best["pp_comm_s"] + best["dp_comm_s"] + best["bubble_s"] + best["optimizer_s"]
                      + best["data_wait_s"] + best["step_overhead_s"])
    return best


def recompute_share(c):
    """Of each stage's layers, the share full recompute re-runs (training.
    recompute_layers of the L/pp, or all for 0); 0 without full recompute."""
    if c.recompute != "full":
        return 0.0
    if c.recompute_layers == 0:
        return 1.0
    return c.recompute_layers / float(c.layers // c.pp)


def throughput(c, layers, step_s):
    tokens = float(c.global_batch) * float(c.seq_len)
    moe_layers = float(moe_layers_in(c, 0, c.layers))
    dense_layers = float(c.layers) - moe_layers
    layer_forward = (dense_layers * layers[0].forward_flop()
                     + (moe_layers * layers[1].forward_flop() if moe_layers > 0.0 else 0.0))
    forward = layer_forward + layers[0].embedding_flop + layers[0].lm_head_flop
    recompute = (recompute_share(c) * layer_forward if c.recompute == "full"
                 else (dense_layers + moe_layers) * layers[0].attention_flop if c.recompute == "selective"
                 else 0.0)
    model_flop = 3.0 * forward * tokens
    hardware_flop = (3.0 * forward + recompute) * tokens
    per_gpu = tokens / step_s / c.gpus
    days = c.train_tokens / (per_gpu * c.gpus) / 86400.0
    return {
        "tokens_per_s_per_gpu": per_gpu,
        "model_flop_per_step": model_flop,
        "hardware_flop_per_step": hardware_flop,
        "mfu": model_flop / step_s / c.gpus / c.tensor_flop_per_s,
        "hfu": hardware_flop / step_s / c.gpus / c.tensor_flop_per_s,
        "time_to_train_days": days,
    }


def estimate(doc):
    """The estimate of a resolved config (the "config" trainplan echoes)."""
    c = Config(doc)
    layers = describe_layers(c)
    mem = memory(c, layers)
    t = step_time(c, layers, mem)
    return {"params_total": params_total(c), "params_active": params_active(c), "memory": mem, "time": t,
            "throughput": throughput(c, layers, t["step_s"])}


# ---------------- search (search.c) ----------------

MEGATRON = (0, 1, 2, 3)  # tp, cp, dp, pp innermost first
PLACEMENT_BITS = 11
MASK64 = (1 << 64) - 1


def _mix64(h):
    """splitmix64's finaliser, as search.c keys its plans (ties in step time and
    memory fall back to the key, so both implementations rank alike)."""
    h = ((h ^ (h >> 30)) * 0xbf58476d1ce4e5b9) & MASK64
    h = ((h ^ (h >> 27)) * 0x94d049bb133111eb) & MASK64
    return h ^ (h >> 31)


def _outer_key(values):
    h = 0
    for v in values:
        h = _mix64(h ^ ((v + 0x9e3779b97f4a7c15) & MASK64))
    return h


def _plan_key(outer, sp, bits, kind, recompute, placement):
    inner = sp | bits[0] << 1 | bits[1] << 4 | kind << 7 | recompute << 10 | placement << 12
    return _mix64(outer ^ _mix64((inner + 0x9e3779b97f4a7c15) & MASK64))


def node_blocks(size, gpus, gpus_per_node):
    """Seed 002 S3: every (tp, cp, dp, pp) ranks per node, each dividing its
    group's size, multiplying to the GPUs of a node (all of them on a smaller
    job), tp's count outermost."""
    node = min(gpus, gpus_per_node)
    if gpus % node:
        return []
    out = []
    for a in range(1, node + 1):
        if size[0] % a or node % a:
            continue
        for b in range(1, node // a + 1):
            if size[1] % b or (node // a) % b:
                continue
            left = node // (a * b)
            for c in range(1, left + 1):
                if size[2] % c or left % c or size[3] % (left // c):
                    continue
                out.append([a, b, c, left // c])
    return out


def _placement_id(per_node):
    return sum(n << (PLACEMENT_BITS * d) for d, n in enumerate(per_node))


def _placements(size, gpus, gpus_per_node, all_blocks, tp_across_nodes):
    """Placement ids (0: Megatron's order), those keeping tp on a node first;
    how many there are in all; the id of the block Megatron's order gives."""
    megatron = order_per_node(MEGATRON, size, gpus_per_node)
    ok, crossing = [], []
    for per_node in node_blocks(size, gpus, gpus_per_node) if all_blocks else []:
        (crossing if per_node[TP] < size[TP] and not tp_across_nodes else ok).append(_placement_id(per_node))
    if not ok and not crossing:
        (crossing if megatron[TP] < size[TP] and not tp_across_nodes else ok).append(0)
    return ok, len(ok) + len(crossing), _placement_id(megatron)


def _classify(bits_in, bits_out, extent_in, extent_out):
    if extent_in == 1:
        bits_in = bits_out
    if extent_out == 1:
        bits_out = bits_in
    if bits_in == bits_out:
        return {0: 0, 4: 1, 6: 2, 7: 3}.get(bits_in, 5)
    if bits_in == 7 and bits_out == 0:
        return 4
    return 5


def _patterns(allowed, extent_in, extent_out):
    """Sharding patterns (bits per axis: weights 1, gradients 2, optimizer 4)."""
    out = []
    for bits_in in range(8 if extent_in > 1 else 1):
        for bits_out in range(8 if extent_out > 1 else 1):
            kind = _classify(bits_in, bits_out, extent_in, extent_out)
            if extent_in == 1 and extent_out == 1 and kind not in allowed:
                kind = next((k for k in range(5) if k in allowed), kind)
            if kind in allowed:
                valid = bits_in in (0, 4, 6, 7) and bits_out in (0, 4, 6, 7)
                out.append(((bits_in, bits_out), kind, valid))
    return out


def _apply_pattern(c, bits, kind, extent_in, extent_out):
    c.sharding, c.zero, c.shard_group = "zero", 0, 0
    c.amsp = [[1, 1], [1, 1], [1, 1]]
    if kind <= 3:
        c.zero = kind
    elif kind == 4:
        c.sharding = "fsdp_hybrid_shard"
    else:
        c.sharding = "amsp"
        for state in range(3):
            c.amsp[state][0] = extent_in if bits[0] & (1 << state) else 1
            c.amsp[state][1] = extent_out if bits[1] & (1 << state) else 1


def _divisors(n, lo, hi):
    return [d for d in range(1, min(n, hi) + 1) if n % d == 0 and d >= lo]


def search(doc, space):
    """Every plan of the space (the "search" object trainplan echoes), ranked.
    Returns the counts and the top plans as (step_s, peak_bytes, key, plan)."""
    base = Config(doc)
    base.recompute_layers = 0  # full recompute re-runs every layer in the search
    if base.experts > 0:  # the differential test searches dense models
        raise NotImplementedError("the reference search does not cover ep and etp")
    layers = describe_layers(base)
    capacity = space["memory_fraction"] * base.memory_bytes
    allowed = {SEARCH_SHARDINGS.index(s) for s in space["sharding"]}
    recomputes = [RECOMPUTES.index(r) for r in space["recompute"]]
    sps = {int(x) for x in space["sp"]}
    top = space["top"]
    counts = {"candidates": 0, "fit": 0, "out_of_memory": 0,
              "invalid": dict.fromkeys(INVALID_NAMES, 0),
              "memory_evaluations": 0, "time_evaluations": 0}
    found = []
    micro_batches = [b for b in range(space["micro_batch"][0], space["micro_batch"][1] + 1)
                     if base.global_batch % b == 0][:64]
    chunks = [v for v in range(space["virtual_stages"][0], space["virtual_stages"][1] + 1)
              if base.layers % v == 0][:64]
    gpus = base.gpus
    c = base.copy()
    for tp in _divisors(gpus, *space["tp"]):
        for cp in _divisors(gpus // tp, *space["cp"]):
            for pp in _divisors(gpus // (tp * cp), *space["pp"]):
                dp = gpus // (tp * cp * pp)
                if not space["dp"][0] <= dp <= space["dp"][1]:
                    continue
                c.tp, c.cp, c.pp = tp, cp, pp
                ok, n_placements, megatron = _placements([tp, cp, dp, pp], gpus, base.gpus_per_node,
                                               space["placement"], space["tp_across_nodes"])
                extent_in = intra_node_dp(c, dp)
                n_replicas = replicas(c, dp)
                extent_out = max(n_replicas // extent_in, 1)
                patterns = _patterns(allowed, extent_in, extent_out)
                # SUMMA with tp needs sp: counted once, on
                sp_count = 1 if tp == 1 else (int(1 in sps) if base.summa else len(sps))
                per_v = sp_count * len(patterns) * len(recomputes) * n_placements
                per_shape = len(micro_batches) * len(chunks) * per_v
                counts["candidates"] += per_shape
                if (base.heads % tp or base.ffn_hidden % tp
                        or (base.kv_heads % tp and tp % base.kv_heads)):
                    counts["invalid"]["tp_split"] += per_shape
                    continue
                if cp > 1 and base.seq_len % ((2 if base.causal else 1) * cp):
                    counts["invalid"]["cp_seq"] += per_shape
                    continue
                for mb in micro_batches:
                    if base.global_batch % (mb * dp):
                        counts["invalid"]["batch"] += len(chunks) * per_v
                        continue
                    c.micro_batch = mb
                    m = base.global_batch // (mb * dp)
                    for v in chunks:
                        if base.layers % (pp * v):
                            counts["invalid"]["layers"] += per_v
                            continue
                        if v > 1 and (pp < 2 or m % pp):
                            counts["invalid"]["interleave"] += per_v
                            continue
                        c.virtual_stages = v
                        c.schedule = "interleaved" if v > 1 else "1f1b"
                        outer = _outer_key([tp, cp, pp, dp, mb, v])
                        for sp in (0, 1):
                            if (sp == 0) if tp == 1 else (sp not in sps or (base.summa and sp == 0)):
                                continue
                            c.sp = bool(sp)
                            for bits, kind, valid in patterns:
                                below = len(recomputes) * n_placements
                                if not valid:
                                    counts["invalid"]["amsp_rule"] += below
                                    continue
                                if kind >= 4 and n_replicas % extent_in:
                                    counts["invalid"]["shard_group"] += below
                                    continue
                                _apply_pattern(c, bits, kind, extent_in, extent_out)
                                for rc in recomputes:
                                    c.recompute = RECOMPUTES[rc]
                                    counts["invalid"]["tp_crosses_node"] += n_placements - len(ok)
                                    if not ok:
                                        continue
                                    mem = memory(c, layers)
                                    counts["memory_evaluations"] += 1
                                    if mem["peak_bytes"] > capacity:
                                        counts["out_of_memory"] += len(ok)
                                        continue
                                    for o in ok:
                                        c.order = list(MEGATRON)
                                        # Megatron's own block is written as its order
                                        explicit = o not in (0, megatron)
                                        c.per_node = [o >> (PLACEMENT_BITS * d) & 2047 for d in range(4)] if explicit else None
                                        t = step_time(c, layers, mem)
                                        counts["time_evaluations"] += 1
                                        counts["fit"] += 1
                                        key = _plan_key(outer, sp, bits, kind, rc, o)
                                        found.append((t["step_s"], mem["peak_bytes"], key,
                                                      _plan_of(c, dp, kind, t.get("summa_panels", 0))))
                                        if len(found) > 4 * top:
                                            found.sort(key=lambda x: x[:3])
                                            del found[top:]
    found.sort(key=lambda x: x[:3])
    return counts, found[:top]


def _plan_of(c, dp, kind, summa_panels):
    plan = {"tp": c.tp, "pp": c.pp, "cp": c.cp, "dp": dp, "micro_batch": c.micro_batch,
            "vpp": c.virtual_stages, "sp": c.sp,
            "tp_algorithm": "summa" if c.summa else "megatron", "sharding": SEARCH_SHARDINGS[kind],
            "recompute": c.recompute, "schedule": c.schedule,
            "per_node": dict(zip(DIM_NAMES, _place(c, dp)[1]))}
    if not c.per_node:
        plan["order"] = "-".join(DIM_NAMES[d] for d in c.order)
    if c.summa:
        plan["summa_panels"] = summa_panels
    if kind == 5:
        plan["amsp"] = {"weights": list(c.amsp[0]), "gradients": list(c.amsp[1]),
                        "optimizer": list(c.amsp[2])}
    return plan
