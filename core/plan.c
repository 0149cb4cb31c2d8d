/*
 * plan.c: what a parallel plan implies: the ranks that hold the same
 * parameters, how many of them share a node, and the factors each sharding
 * scheme splits the weights, gradients and optimizer states by (Chen et
 * al.'s AMSP reduces every scheme to three such factors, §IV-B). The rules
 * a plan must keep are in validate.c.
 */
#include <string.h>

#include "tp_internal.h"

int64_t plan_cp_weight_split(const tp_plan *p)
{
    return p->tp_algorithm == TP_TP_SUMMA ? p->cp : 1;
}

int64_t plan_replicas(const tp_plan *p, int64_t dp)
{
    return p->tp_algorithm == TP_TP_SUMMA ? dp : dp * p->cp;
}

int plan_places_explicitly(const tp_plan *p)
{
    return p->per_node[0] != 0 || p->per_node[1] != 0 || p->per_node[2] != 0 || p->per_node[3] != 0;
}

const tp_dim plan_megatron_order[4] = {TP_DIM_TP, TP_DIM_CP, TP_DIM_DP, TP_DIM_PP};

void plan_order_ranks_per_node(const tp_dim order[4], const int64_t size[4], int64_t gpus_per_node,
                               int64_t out[4])
{
    int64_t stride = 1;
    for (int i = 0; i < 4; i++) {
        out[order[i]] = net_ranks_per_node(size[order[i]], stride, gpus_per_node);
        stride *= size[order[i]];
    }
}

void plan_ranks_per_node(const tp_config *c, int64_t dp, int64_t out[4])
{
    if (plan_places_explicitly(&c->plan)) {
        memcpy(out, c->plan.per_node, sizeof c->plan.per_node);
        return;
    }
    const int64_t size[4] = {c->plan.tp, c->plan.cp, dp, c->plan.pp};
    plan_order_ranks_per_node(c->plan.order, size, c->system.gpus_per_node, out);
}

int64_t plan_intra_node_dp(const tp_config *c, int64_t dp)
{
    /* Megatron orders ranks tp fastest, then cp, then dp: the dp*cp ranks
     * sharing a tp rank sit tp apart, so a node of R GPUs holds R/tp of
     * them. With SUMMA the dp replicas sit tp*cp apart. */
    const int64_t group = plan_replicas(&c->plan, dp);
    const int64_t stride = c->plan.tp * plan_cp_weight_split(&c->plan);
    const int64_t r = c->system.gpus_per_node;
    if (r % stride != 0)
        return 1;
    return r / stride < group ? r / stride : group;
}

int64_t plan_gcd(int64_t a, int64_t b)
{
    while (b != 0) {
        const int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Each factor of the dense states, restated over the experts' edp
 * replicas: a state split over all dp*cp ranks splits over all edp; a
 * hybrid group, one of n / g instances (Megatron's distributed-optimizer
 * instances), over as many instances of edp, so a group that fills a
 * node does for the experts too; where edp does not split so, over the
 * part of the group edp can hold. */
static int64_t expert_factor(int64_t dense_factor, int64_t n, int64_t edp)
{
    if (dense_factor == 1)
        return 1;
    if (dense_factor == n)
        return edp;
    const int64_t instances = n / dense_factor;
    if (n % dense_factor == 0 && edp % instances == 0)
        return edp / instances;
    return plan_gcd(dense_factor, edp);
}

int64_t plan_expert_tp(const tp_plan *p)
{
    return p->etp > 0 ? p->etp : p->tp;
}

plan_shards plan_shard_factors(const tp_config *c, int64_t dp)
{
    const int64_t n = plan_replicas(&c->plan, dp);
    const tp_plan *p = &c->plan;
    plan_shards s = {1, 1, 1, 0, 1, 1, 1, 1, 1, 1};
    if (c->model.moe.experts > 0) {
        s.ep = p->ep;
        s.etp = plan_expert_tp(p);
        s.edp = p->tp * n / (s.ep * s.etp);
    }
    switch (p->sharding) {
    case TP_SHARD_ZERO:
        s.optimizer = p->zero >= 1 ? n : 1;
        s.gradients = p->zero >= 2 ? n : 1;
        s.weights = p->zero >= 3 ? n : 1;
        break;
    case TP_SHARD_FSDP_FULL:
        s.weights = s.gradients = s.optimizer = n;
        break;
    case TP_SHARD_FSDP_GRAD_OP:
        s.gradients = s.optimizer = n;
        break;
    case TP_SHARD_FSDP_HYBRID:
        s.group = p->shard_group > 0 ? p->shard_group : plan_intra_node_dp(c, dp);
        s.weights = s.gradients = s.optimizer = s.group;
        break;
    case TP_SHARD_AMSP:
        s.weights = p->amsp[0][0] * p->amsp[0][1];
        s.gradients = p->amsp[1][0] * p->amsp[1][1];
        s.optimizer = p->amsp[2][0] * p->amsp[2][1];
        break;
    }
    /* a pipeline schedule that keeps FSDP's weights and gradients whole
     * through the step leaves only the optimizer sharded */
    if (p->pp_gather_once && p->pp > 1 && p->sharding >= TP_SHARD_FSDP_FULL && p->sharding <= TP_SHARD_FSDP_HYBRID)
        s.weights = s.gradients = 1;
    s.expert_weights = expert_factor(s.weights, n, s.edp);
    s.expert_gradients = expert_factor(s.gradients, n, s.edp);
    s.expert_optimizer = expert_factor(s.optimizer, n, s.edp);
    return s;
}

/* How the layers split over the pipeline's ranks.
 *   given    first_stage_layers and last_stage_layers (either may be 0)
 *            are those stages' layers; the other stages share the rest
 *            evenly (Megatron-LM's --decoder-first-pipeline-num-layers and
 *            --decoder-last-pipeline-num-layers, get_num_layers_to_build in
 *            megatron/core/transformer/transformer_block.py).
 *   even     both 0 and pp divides the layers: L/pp each, as always.
 *   balanced both 0 and pp does not divide them: the embedding and the LM
 *            head count as a layer each, and the L + 2 units split into
 *            pp v chunks (v = 1 without the interleaved schedule) as evenly
 *            as possible, chunk k = j pp + rank (round j) taking Q + 1
 *            units for k < R and Q after, Q = (L + 2) / (pp v) and R the
 *            rest; the very first chunk holds the embedding, the very last
 *            the LM head (either may hold no layer besides). With v = 1
 *            this is torchtitan's default split (_generate_llm_fqn_per_
 *            model_part with input_weight = output_weight = 1,
 *            torchtitan/distributed/pipeline_parallel.py) and, where pp v
 *            divides L + 2, Megatron-LM's --account-for-embedding-in-
 *            pipeline-split with --account-for-loss-in-pipeline-split;
 *            otherwise it is the layout Megatron-Bridge writes out for
 *            DeepSeek-V3 (--pipeline-model-parallel-layout, "Et|(tt|)*30L"
 *            for its 61 layers over 32 chunks). Llama 3.1 405B's 126 layers
 *            over 16 stages are 7, 14 x 8, 7. A rank holds v Q units plus
 *            one for each of its chunks below R, so the earlier ranks hold
 *            at least as many and rank 1 the most of the middle stages.
 * validate.c's valid_layers says when a split is allowed. */
static int64_t balanced_units_of_rank(int64_t units, int64_t pp, int64_t v, int64_t rank)
{
    const int64_t q = units / (pp * v), r = units % (pp * v);
    const int64_t below = r > rank ? (r - rank + pp - 1) / pp : 0; /* chunks j pp + rank < r */
    return v * q + (below < v ? below : v);
}

int64_t plan_split_layers(int64_t layers, int64_t pp, int64_t v, int64_t first, int64_t last, int64_t rank)
{
    if (pp == 1)
        return layers;
    if (first == 0 && last == 0) {
        if (layers % pp == 0)
            return layers / pp;
        return balanced_units_of_rank(layers + 2, pp, v, rank) - (rank == 0) - (rank == pp - 1);
    }
    const int64_t given = (first > 0) + (last > 0);
    const int64_t middle = pp > given ? (layers - first - last) / (pp - given) : 0;
    if (rank == 0 && first > 0)
        return first;
    if (rank == pp - 1 && last > 0)
        return last;
    return middle;
}

/* Layers of the ranks before rank: in closed form, the search asks per
 * plan. Balanced, the ranks before hold rank v Q units, plus one for each
 * chunk below R among theirs: R / pp whole rounds of them, and of the
 * partial round those below R mod pp. */
int64_t plan_layers_before(int64_t layers, int64_t pp, int64_t v, int64_t first, int64_t last, int64_t rank)
{
    if (rank == 0)
        return 0;
    if (first == 0 && last == 0) {
        if (layers % pp == 0)
            return rank * (layers / pp);
        const int64_t units = layers + 2, q = units / (pp * v), r = units % (pp * v);
        const int64_t partial = r % pp < rank ? r % pp : rank;
        return rank * v * q + (r / pp) * rank + partial - 1; /* less the embedding's unit */
    }
    return plan_split_layers(layers, pp, v, first, last, 0)
         + (rank - 1) * plan_split_layers(layers, pp, v, first, last, 1);
}

/* v as the split sees it: the schedule's chunks per stage, 1 without the
 * interleaved schedule. */
static int64_t split_chunks(const tp_config *c)
{
    return c->plan.schedule == TP_SCHEDULE_INTERLEAVED && c->plan.pp > 1 ? c->plan.virtual_stages : 1;
}

int64_t plan_stage_layers(const tp_config *c, int64_t rank)
{
    return plan_split_layers(c->model.layers, c->plan.pp, split_chunks(c), c->plan.first_stage_layers,
                             c->plan.last_stage_layers, rank);
}

int64_t plan_stage_layers_before(const tp_config *c, int64_t rank)
{
    return plan_layers_before(c->model.layers, c->plan.pp, split_chunks(c), c->plan.first_stage_layers,
                              c->plan.last_stage_layers, rank);
}

/* Chunk j of rank's v model chunks: its count of layers, and the index of
 * its first layer in *first. Chunk j of every rank runs in round j, so
 * chunk k = j pp + rank (Megatron-LM's get_transformer_layer_offset).
 * Balanced and interleaved, chunk k takes the units from k Q + min(k, R)
 * (plan_split_layers), unit 0 the embedding, units 1 .. L the layers and
 * L + 1 the LM head; otherwise each round holds L / v layers and a rank's
 * chunk a v-th of its layers. */
int64_t plan_chunk_layers(const tp_config *c, int64_t rank, int64_t j, int64_t v, int64_t *first)
{
    const int64_t p = c->plan.pp, layers = c->model.layers;
    if (v > 1 && layers % p != 0 && c->plan.first_stage_layers == 0 && c->plan.last_stage_layers == 0) {
        const int64_t units = layers + 2, q = units / (p * v), r = units % (p * v), k = j * p + rank;
        const int64_t unit_start = k * q + (k < r ? k : r), unit_end = unit_start + q + (k < r);
        const int64_t start = unit_start > 1 ? unit_start - 1 : 0;
        const int64_t end = unit_end < layers + 1 ? unit_end - 1 : layers;
        *first = start;
        return end > start ? end - start : 0;
    }
    *first = j * (layers / v) + plan_stage_layers_before(c, rank) / v;
    return plan_stage_layers(c, rank) / v;
}

/* The most layers a stage holds: the first's, rank 1's (the middle with
 * the most) or the last's (plan_split_layers). */
int64_t plan_most_stage_layers(const tp_config *c)
{
    const int64_t p = c->plan.pp;
    const int64_t first = plan_stage_layers(c, 0), middle = plan_stage_layers(c, p > 1 ? 1 : 0);
    const int64_t last = plan_stage_layers(c, p - 1);
    const int64_t most = first > middle ? first : middle;
    return most > last ? most : last;
}
