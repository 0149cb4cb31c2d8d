/*
 * search.c: every plan for a model on N GPUs, ranked by step time.
 *
 * The space (tp_search_space) is the product of
 *   tp, cp, pp    sizes that divide N (dp = N / (tp cp pp) follows); a pp
 *                 that does not divide the layers splits them as the base
 *                 config's first_stage_layers and last_stage_layers say, or
 *                 balanced (plan_split_layers) when they are 0,
 *   micro_batch   sizes that divide the global batch,
 *   virtual_stages 1 (1F1B) or v > 1 (interleaved 1F1B, Narayanan et al. 2021 §2.2.2),
 *   sp            off or on (only "on" when tp = 1, where it changes nothing),
 *   sharding      patterns of AMSP's factors (Chen et al. 2023): each of weights, gradients
 *                 and optimizer states split over 1 or all of the
 *                 data-parallel ranks inside a node, and over 1 or all across
 *                 nodes (ZeRO 0-3, FSDP hybrid and AMSP are such patterns),
 *   recompute     none, selective, full (every layer: training.recompute_layers
 *                 is not searched), and selective_op where search.recompute
 *                 names it and the model allows it (recompute_op_refusal),
 *   placement     how many ranks of each group share a node (Subramanian et al.
 *                 2024 §III-A S3: every block of the rank grid that fills a node),
 * and, outermost of all, the precision: fp8 compute off or on, where
 * search.precision asks for both (by default the base config's own). It
 * changes what a layer keeps (fp8_activations) and how fast its GEMMs run,
 * so the layer description is made again for each.
 * Loops run outermost to innermost in that order (the precision first), and
 * each validity rule is checked at the outermost loop that decides it, so an invalid choice
 * removes its whole subtree at once; the plans it removes are counted under
 * the first rule they break (tp_invalid lists the rules in checking order). The memory model
 * runs once per plan without its placement (memory does not depend on it);
 * only plans that fit pay for the step-time model, once per placement.
 *
 * Besides the top plans and the memory / step-time Pareto front, the search
 * keeps, for every value of every dimension, the best step time of a plan
 * that fits with that value and why the others failed: the explanation of
 * the best plan compares it with its neighbours ("tp 8: tp 4 does not fit
 * in memory; tp 16 would cross a node").
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_internal.h"

static int in_range(int64_t v, tp_range r) { return v >= r.min && v <= r.max; }

#define MAX_DIVISORS 1024 /* 73,513,440 (below the 10^8 limit of any count) has 768 */

/* Divisors of n within r, ascending: d and n / d for every d up to the
 * square root. n is at most 10^8, which has at most 768 divisors. */
static int divisors(int64_t n, tp_range r, int64_t *out)
{
    int64_t large[MAX_DIVISORS];
    int count = 0, large_count = 0;
    for (int64_t d = 1; d * d <= n; d++) {
        if (n % d != 0)
            continue;
        if (in_range(d, r))
            out[count++] = d;
        if (d != n / d && in_range(n / d, r))
            large[large_count++] = n / d;
    }
    while (large_count > 0)
        out[count++] = large[--large_count];
    return count;
}


static const char *const invalid_sentences[TP_INVALID_COUNT] = {
    "does not split the heads, kv heads and MLP width evenly",
    "does not split the sequence into 2 x cp equal chunks (cp chunks for an encoder)",
    "does not divide the global batch into micro_batch x dp",
    "does not split the layers into equal stages",
    "does not suit the interleaved schedule (pp >= 2, micro-batches a multiple of pp)",
    "breaks AMSP's rule weights <= gradients <= optimizer sharding",
    "leaves a node's data-parallel ranks unable to tile dp x cp",
    "would cross a node",
};
const char *tp_invalid_str(tp_invalid r) { return (unsigned)r < TP_INVALID_COUNT ? invalid_sentences[r] : "unknown"; }

void tp_search_defaults(tp_search_space *s)
{
    memset(s, 0, sizeof *s);
    const tp_range any = {1, 10000000};
    s->tp = s->cp = s->dp = any;
    s->pp = (tp_range){1, 10000};
    s->micro_batch = (tp_range){1, 16};
    s->virtual_stages = (tp_range){1, 8};
    s->ep = any;
    s->etp = (tp_range){1, 8};
    s->sp[0] = s->sp[1] = 1;
    /* fp8[] stays 0 0: the base config's own precision, so a search of an
     * fp8 config stays fp8 and one of a bf16 config bf16 */
    for (int i = 0; i < TP_SEARCH_SHARDING_COUNT; i++)
        s->sharding[i] = i != TP_SEARCH_AMSP;
    /* none, selective, full; selective_op (torchtitan's per-op policy) only
     * when search.recompute names it, so the default space stays Megatron's */
    s->recompute[TP_RECOMPUTE_NONE] = s->recompute[TP_RECOMPUTE_SELECTIVE] = s->recompute[TP_RECOMPUTE_FULL] = 1;
    s->placement = 1;
    s->tp_across_nodes = 0;
    s->memory_fraction = TP_SAFE_FRACTION;
    s->top = 10;
    s->max_evaluations = TP_SEARCH_MAX_EVALUATIONS;
}

/* ---------------- placements ---------------- */

/* Subramanian et al. 2024 §III-A S3: a node holds a block of the rank grid, per_node[d]
 * ranks of dimension d's groups, each a divisor of that group's size, the
 * four multiplying to the node's GPUs (n_NVS1 n_NVS2 n_NVSd n_NVSp = n_NVS).
 * A placement's id packs its four counts, 11 bits each (gpus_per_node is at
 * most 1024); id 0 is Megatron's order, used when placements are not
 * searched or no block fills a node (gpus not a multiple of it, say). */
#define PLACEMENT_BITS 11
#define MEGATRON_ORDER 0

/* The most blocks a node can be cut into: four ordered factors of a node of
 * up to 1024 GPUs give at most 1400 (720 GPUs; 20 for 8, 84 for 64). */
#define MAX_PLACEMENTS 1400

typedef struct {
    int count;                   /* placements */
    int ok;                      /* of which keep tp inside a node (or may cross) */
    int64_t megatron;            /* the id of the block Megatron's order gives */
    int64_t id[MAX_PLACEMENTS];  /* the ok ones first */
} placements;

static int64_t placement_id(const int64_t per_node[4])
{
    int64_t id = 0;
    for (int d = 3; d >= 0; d--)
        id = id << PLACEMENT_BITS | per_node[d];
    return id;
}

static void placement_per_node(int64_t id, int64_t per_node[4])
{
    for (int d = 0; d < 4; d++)
        per_node[d] = id >> (PLACEMENT_BITS * d) & ((1 << PLACEMENT_BITS) - 1);
}

/* Ok placements fill id from the front, tp-crossing ones from the back. */
static void add_placement(placements *out, int *back, int64_t id, int crossing)
{
    if (crossing)
        out->id[MAX_PLACEMENTS - ++*back] = id;
    else
        out->id[out->ok++] = id;
}

/* Every block of a node the group sizes allow: per_node[d] divides both
 * the group's size and what the node has left, walked over divisors. */
static void add_blocks(placements *out, int *back, const int64_t size[4], int64_t node, int tp_across_nodes)
{
    const tp_range any = {1, node};
    int64_t first[MAX_DIVISORS], second[MAX_DIVISORS], third[MAX_DIVISORS];
    const int n0 = divisors(plan_gcd(size[0], node), any, first);
    for (int a = 0; a < n0; a++) {
        const int64_t left1 = node / first[a];
        const int n1 = divisors(plan_gcd(size[1], left1), any, second);
        for (int b = 0; b < n1; b++) {
            const int64_t left2 = left1 / second[b];
            const int n2 = divisors(plan_gcd(size[2], left2), any, third);
            for (int k = 0; k < n2; k++) {
                const int64_t per_node[4] = {first[a], second[b], third[k], left2 / third[k]};
                if (size[3] % per_node[3] == 0)
                    add_placement(out, back, placement_id(per_node), per_node[0] < size[0] && !tp_across_nodes);
            }
        }
    }
}

/* Every block of a node the group sizes allow, those keeping tp whole on a
 * node first (unless tp may cross nodes); Megatron's order alone when all
 * is 0 or no block fills a node exactly. */
static void node_placements(const int64_t size[4], int64_t gpus, int64_t gpus_per_node, int all,
                            int tp_across_nodes, placements *out)
{
    int64_t megatron_per_node[4];
    plan_order_ranks_per_node(plan_megatron_order, size, gpus_per_node, megatron_per_node);
    out->megatron = placement_id(megatron_per_node);
    int back = 0;
    out->ok = 0;
    const int64_t node = gpus < gpus_per_node ? gpus : gpus_per_node;
    if (all && gpus % node == 0)
        add_blocks(out, &back, size, node, tp_across_nodes);
    if (out->ok + back == 0)
        add_placement(out, &back, MEGATRON_ORDER,
                      megatron_per_node[TP_DIM_TP] < size[TP_DIM_TP] && !tp_across_nodes);
    /* the crossing ones after the ok ones, in the order they were found */
    int64_t *crossing = out->id + MAX_PLACEMENTS - back;
    for (int i = 0, j = back - 1; i < j; i++, j--) {
        const int64_t id = crossing[i];
        crossing[i] = crossing[j];
        crossing[j] = id;
    }
    memmove(out->id + out->ok, crossing, (size_t)back * sizeof *crossing);
    out->count = out->ok + back;
}

/* Sets p's placement to the one id stands for: Megatron's order where that
 * is what it gives (the plan then says "order", not ranks per node). */
static void apply_placement(tp_plan *p, int64_t id, const placements *pl)
{
    memcpy(p->order, plan_megatron_order, sizeof p->order);
    if (id == MEGATRON_ORDER || id == pl->megatron)
        memset(p->per_node, 0, sizeof p->per_node);
    else
        placement_per_node(id, p->per_node);
}

/* ---------------- sharding patterns ---------------- */

/* A pattern: bit s (weights 1, gradients 2, optimizer 4) of axis a set
 * when that state is split over the whole extent of axis a (0 inside a
 * node, 1 across nodes). */
typedef struct {
    unsigned bits[2];
    tp_search_sharding kind;
    int valid; /* the dependency rule holds */
} pattern;

/* weights <= gradients <= optimizer: a sharded state's successors are
 * sharded too, so the patterns are none, optimizer, gradients and
 * optimizer, all three */
static int monotone(unsigned b)
{
    return b == 0 || b == 4 || b == 6 || b == 7;
}

static tp_search_sharding classify(unsigned in, unsigned out, int64_t extent_in, int64_t extent_out)
{
    /* an axis of extent 1 splits nothing: it reads as the other axis */
    if (extent_in == 1)
        in = out;
    if (extent_out == 1)
        out = in;
    if (in == out) {
        switch (in) {
        case 0: return TP_SEARCH_ZERO0;
        case 4: return TP_SEARCH_ZERO1;
        case 6: return TP_SEARCH_ZERO2;
        case 7: return TP_SEARCH_ZERO3;
        default: return TP_SEARCH_AMSP;
        }
    }
    if (in == 7 && out == 0)
        return TP_SEARCH_FSDP_HYBRID;
    return TP_SEARCH_AMSP;
}

typedef struct {
    int count;
    pattern p[64];
} pattern_list;

/* The patterns of the allowed kinds for extents inside and across nodes.
 * An axis of extent 1 has only the pattern 0. With a single replica (dp x cp
 * = 1) the one plan counts as the first allowed ZeRO stage. */
static pattern_list sharding_patterns(const tp_search_space *s, int64_t extent_in, int64_t extent_out)
{
    pattern_list list;
    list.count = 0;
    const unsigned in_max = extent_in > 1 ? 8 : 1, out_max = extent_out > 1 ? 8 : 1;
    for (unsigned in = 0; in < in_max; in++) {
        for (unsigned out = 0; out < out_max; out++) {
            pattern p = {{in, out}, classify(in, out, extent_in, extent_out),
                         monotone(in) && monotone(out)};
            if (extent_in == 1 && extent_out == 1) {
                for (int k = TP_SEARCH_ZERO0; k <= TP_SEARCH_FSDP_HYBRID && !s->sharding[p.kind]; k++)
                    if (s->sharding[k])
                        p.kind = (tp_search_sharding)k;
            }
            if (s->sharding[p.kind])
                list.p[list.count++] = p;
        }
    }
    return list;
}

/* The kind a plan's sharding fields describe (apply_pattern's inverse). */
tp_search_sharding tp_search_plan_sharding(const tp_plan *plan)
{
    if (plan->sharding == TP_SHARD_FSDP_HYBRID)
        return TP_SEARCH_FSDP_HYBRID;
    if (plan->sharding == TP_SHARD_AMSP)
        return TP_SEARCH_AMSP;
    return (tp_search_sharding)(TP_SEARCH_ZERO0 + plan->zero);
}

static void apply_pattern(tp_plan *plan, const pattern *p, int64_t extent_in, int64_t extent_out)
{
    plan->sharding = TP_SHARD_ZERO;
    plan->zero = 0;
    plan->shard_group = 0;
    for (int st = 0; st < 3; st++)
        plan->amsp[st][0] = plan->amsp[st][1] = 1;
    switch (p->kind) {
    case TP_SEARCH_ZERO0: plan->zero = 0; break;
    case TP_SEARCH_ZERO1: plan->zero = 1; break;
    case TP_SEARCH_ZERO2: plan->zero = 2; break;
    case TP_SEARCH_ZERO3: plan->zero = 3; break;
    case TP_SEARCH_FSDP_HYBRID: plan->sharding = TP_SHARD_FSDP_HYBRID; break;
    default:
        plan->sharding = TP_SHARD_AMSP;
        for (int st = 0; st < 3; st++) {
            const unsigned bit = 1u << st; /* weights 1, gradients 2, optimizer 4 */
            plan->amsp[st][0] = (p->bits[0] & bit) ? extent_in : 1;
            plan->amsp[st][1] = (p->bits[1] & bit) ? extent_out : 1;
        }
        break;
    }
}

/* ---------------- per-value statistics and the explanation ---------------- */

/* The slot of value in dimension d, or NULL when the table is full. */
static tp_search_value *value_slot(tp_search_result *r, tp_search_dim d, int64_t value)
{
    tp_search_value *v = r->values[d];
    for (int i = 0; i < r->value_count[d]; i++)
        if (v[i].value == value)
            return &v[i];
    if (r->value_count[d] == TP_SEARCH_MAX_VALUES) {
        r->values_truncated[d] = 1; /* counted, and said in the output */
        return NULL;
    }
    tp_search_value *slot = &v[r->value_count[d]++];
    memset(slot, 0, sizeof *slot);
    slot->value = value;
    slot->best_step_s = -1.0;
    return slot;
}

/* The values a plan takes in each dimension, in tp_search_dim order, with
 * their statistics slots, looked up once when the loop sets the value (a
 * lookup per plan was a third of the search's time). */
typedef struct {
    int64_t v[TP_SEARCH_DIM_COUNT];
    tp_search_value *slot[TP_SEARCH_DIM_COUNT]; /* NULL when the table is full */
    int known; /* dimensions decided so far: a prefix of tp_search_dim, and
                  the precision, which the outermost loop always has decided */
} choice;

static void choose(tp_search_result *r, choice *ch, tp_search_dim d, int64_t value)
{
    ch->v[d] = value;
    ch->slot[d] = value_slot(r, d, value);
    if (d != TP_SEARCH_DIM_PRECISION)
        ch->known = (int)d + 1;
}

static void note_invalid(tp_search_result *r, const choice *ch, tp_invalid reason, int64_t plans)
{
    r->counts.invalid[reason] += plans;
    for (int d = 0; d < ch->known; d++)
        if (ch->slot[d] != NULL)
            ch->slot[d]->invalid[reason] += plans;
    if (ch->slot[TP_SEARCH_DIM_PRECISION] != NULL)
        ch->slot[TP_SEARCH_DIM_PRECISION]->invalid[reason] += plans;
}

static void note_valid(const choice *ch, int64_t plans, int64_t fit, double step_s)
{
    for (int d = 0; d < TP_SEARCH_DIM_COUNT; d++) {
        tp_search_value *slot = ch->slot[d];
        if (slot == NULL)
            continue;
        slot->valid += plans;
        slot->fit += fit;
        if (fit > 0 && (slot->best_step_s < 0.0 || step_s < slot->best_step_s))
            slot->best_step_s = step_s;
    }
}

/* "placement tp4 pp2": the groups with more than one rank on a node;
 * "placement tp-cp-dp-pp" for Megatron's order. */
static void placement_label(int64_t id, char *out, size_t size)
{
    if (id == MEGATRON_ORDER) {
        snprintf(out, size, "placement tp-cp-dp-pp");
        return;
    }
    int64_t per_node[4];
    placement_per_node(id, per_node);
    int used = snprintf(out, size, "placement");
    for (int d = 0; d < 4; d++)
        if (per_node[d] > 1 && used >= 0 && (size_t)used < size)
            used += snprintf(out + used, size - (size_t)used, " %s%lld", tp_dim_str((tp_dim)d), (long long)per_node[d]);
    if (used == (int)strlen("placement"))
        snprintf(out, size, "placement 1 rank per node");
}

/* "tp 8", "recompute selective", "placement tp4 pp2" */
void tp_search_value_label(tp_search_dim d, int64_t v, char *out, size_t size)
{
    if ((unsigned)d >= TP_SEARCH_DIM_COUNT || v < 0 || (d == TP_SEARCH_DIM_SHARDING && v >= TP_SEARCH_SHARDING_COUNT)
        || (d == TP_SEARCH_DIM_RECOMPUTE && v >= TP_RECOMPUTE_COUNT) || (d == TP_SEARCH_DIM_PLACEMENT && v >> (4 * PLACEMENT_BITS) != 0)
        || (d == TP_SEARCH_DIM_PRECISION && v > 1)) {
        snprintf(out, size, "?");
        return;
    }
    const char *name = tp_search_dim_str(d);
    switch (d) {
    case TP_SEARCH_DIM_SP: snprintf(out, size, "sp %s", v ? "on" : "off"); break;
    case TP_SEARCH_DIM_SHARDING: snprintf(out, size, "%s", tp_search_sharding_str((tp_search_sharding)v)); break;
    case TP_SEARCH_DIM_RECOMPUTE: snprintf(out, size, "recompute %s", tp_recompute_str((tp_recompute)v)); break;
    case TP_SEARCH_DIM_PLACEMENT: placement_label(v, out, size); break;
    case TP_SEARCH_DIM_PRECISION: snprintf(out, size, "%s", search_precision_names.items[v]); break;
    default: snprintf(out, size, "%s %lld", name, (long long)v); break;
    }
}

/* One clause about an alternative value: how it compares with the best. */
static int alternative(char *out, size_t size, tp_search_dim d, const tp_search_value *alt,
                       double best_step_s)
{
    char label[48];
    tp_search_value_label(d, alt->value, label, sizeof label);
    if (alt->fit > 0) {
        const double slower = alt->best_step_s / best_step_s - 1.0;
        if (slower < 0.005)
            return snprintf(out, size, "%s is as fast", label);
        return snprintf(out, size, "%s is %.0f%% slower", label, 100.0 * slower);
    }
    if (alt->valid > 0)
        return snprintf(out, size, "%s does not fit in memory", label);
    int worst = 0;
    for (int i = 1; i < TP_INVALID_COUNT; i++)
        if (alt->invalid[i] > alt->invalid[worst])
            worst = i;
    return snprintf(out, size, "%s %s", label, invalid_sentences[worst]);
}

/* Numeric dimensions compare with the next smaller and larger value; the
 * others with each alternative, fastest first, up to three. */
static void explain_dimension(tp_search_result *r, tp_search_dim d, int64_t chosen, double best_step_s)
{
    char *out = r->explain[d];
    const size_t size = sizeof r->explain[d];
    char head[48];
    tp_search_value_label(d, chosen, head, sizeof head);
    int n = snprintf(out, size, "%s: ", head);
    const tp_search_value *v = r->values[d];
    const tp_search_value *picks[3] = {NULL, NULL, NULL};
    int count = 0;
    if (d <= TP_SEARCH_DIM_ETP) {
        const tp_search_value *below = NULL, *above = NULL;
        for (int i = 0; i < r->value_count[d]; i++) {
            if (v[i].value < chosen && (below == NULL || v[i].value > below->value))
                below = &v[i];
            if (v[i].value > chosen && (above == NULL || v[i].value < above->value))
                above = &v[i];
        }
        if (below != NULL)
            picks[count++] = below;
        if (above != NULL)
            picks[count++] = above;
    } else {
        /* the alternatives that fit, fastest first, then those that do not */
        int used[TP_SEARCH_MAX_VALUES] = {0};
        while (count < 3) {
            int pick = -1;
            for (int i = 0; i < r->value_count[d]; i++) {
                if (used[i] || v[i].value == chosen || (v[i].valid == 0 && d == TP_SEARCH_DIM_PLACEMENT))
                    continue;
                const double key = v[i].fit > 0 ? v[i].best_step_s : 1e300;
                const double best = pick < 0 ? 0.0 : (v[pick].fit > 0 ? v[pick].best_step_s : 1e300);
                if (pick < 0 || key < best)
                    pick = i;
            }
            if (pick < 0)
                break;
            used[pick] = 1;
            picks[count++] = &v[pick];
        }
    }
    if (count == 0) {
        snprintf(out + n, size - (size_t)n, "the only choice in the space");
        return;
    }
    for (int i = 0; i < count && n < (int)size; i++) {
        if (i > 0)
            n += snprintf(out + n, size - (size_t)n, "; ");
        if (n < (int)size)
            n += alternative(out + n, size - (size_t)n, d, picks[i], best_step_s);
    }
}

/* ---------------- top plans and the Pareto front ---------------- */

/* splitmix64's finaliser: every input bit moves about half the output bits. */
static uint64_t mix64(uint64_t h)
{
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
    return h ^ (h >> 31);
}

/* A plan's key hashes its choices, the outer ones (shape, micro-batch,
 * chunks) once per loop, the inner ones (sp, sharding pattern, recompute,
 * placement) packed in one word per plan: two different plans practically
 * never share a key. */
static uint64_t outer_key(const int64_t *values, int count)
{
    uint64_t h = 0;
    for (int i = 0; i < count; i++)
        h = mix64(h ^ ((uint64_t)values[i] + 0x9e3779b97f4a7c15u));
    return h;
}

static uint64_t plan_key(uint64_t outer, int sp, const pattern *p, int recompute, int64_t placement)
{
    const uint64_t inner = (uint64_t)sp | (uint64_t)p->bits[0] << 1 | (uint64_t)p->bits[1] << 4
                           | (uint64_t)p->kind << 7 | (uint64_t)recompute << 10 | (uint64_t)placement << 12;
    return mix64(outer ^ mix64(inner + 0x9e3779b97f4a7c15u));
}

/* A total order: step time, then memory, then key, so the top plans do not
 * depend on the order the search met them in (or on how it was split). */
static int faster(const tp_search_plan *a, const tp_search_plan *b)
{
    if (a->step_s != b->step_s)
        return a->step_s < b->step_s;
    if (a->peak_bytes != b->peak_bytes)
        return a->peak_bytes < b->peak_bytes;
    return a->key < b->key;
}

static void keep_top(tp_search_result *r, int top, const tp_search_plan *p)
{
    if (r->top_count == top && !faster(p, &r->top[top - 1]))
        return;
    int i = r->top_count < top ? r->top_count++ : top - 1;
    while (i > 0 && faster(p, &r->top[i - 1])) {
        r->top[i] = r->top[i - 1];
        i--;
    }
    r->top[i] = *p;
}

/* The front holds plans no other plan beats in both peak memory and step
 * time, sorted by memory (so step time falls along it). Of plans equal in
 * both, the one first in faster's order stands for them. */
static void keep_pareto(tp_search_result *r, const tp_search_plan *p)
{
    int lo = 0, hi = r->pareto_count; /* first point with at least p's memory */
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (r->pareto[mid].peak_bytes < p->peak_bytes)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && r->pareto[lo - 1].step_s <= p->step_s)
        return; /* dominated by a point with less memory */
    if (lo < r->pareto_count && r->pareto[lo].peak_bytes == p->peak_bytes && !faster(p, &r->pareto[lo]))
        return; /* a point with the same memory is at least as good */
    int end = lo; /* points p dominates: no less memory and no faster */
    while (end < r->pareto_count && r->pareto[end].step_s >= p->step_s)
        end++;
    if (end == lo && r->pareto_count == TP_SEARCH_MAX_PARETO) {
        r->pareto_truncated = 1;
        return;
    }
    memmove(&r->pareto[lo + 1], &r->pareto[end], (size_t)(r->pareto_count - end) * sizeof *p);
    r->pareto[lo] = *p;
    r->pareto_count += 1 - (end - lo);
}

/* The sample keeps the fitting plans with the smallest keys (a bottom-k
 * sample: uniform over the plans, whatever order they come in), held as a
 * max-heap on key so the largest is replaced first. */
static void keep_sample(tp_search_result *r, const tp_search_plan *p)
{
    tp_search_plan *heap = r->sample;
    int i;
    if (r->sample_count < TP_SEARCH_MAX_SAMPLE) {
        i = r->sample_count++;
        while (i > 0 && heap[(i - 1) / 2].key < p->key) { /* sift up */
            heap[i] = heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        heap[i] = *p;
        return;
    }
    if (p->key >= heap[0].key)
        return;
    i = 0; /* replace the root and sift down */
    for (;;) {
        int child = 2 * i + 1;
        if (child >= r->sample_count)
            break;
        if (child + 1 < r->sample_count && heap[child + 1].key > heap[child].key)
            child++;
        if (heap[child].key <= p->key)
            break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = *p;
}

static int by_key_descending(const void *a, const void *b)
{
    const uint64_t ka = ((const tp_search_plan *)a)->key, kb = ((const tp_search_plan *)b)->key;
    return (ka < kb) - (ka > kb);
}

static int by_value(const void *a, const void *b)
{
    const int64_t va = ((const tp_search_value *)a)->value, vb = ((const tp_search_value *)b)->value;
    return (va > vb) - (va < vb);
}

/* ---------------- the space ---------------- */

static tp_status check_range(tp_range r, int64_t limit, const char *path, tp_error *err)
{
    if (r.min < 1 || r.max < r.min || r.max > limit)
        return err_set(err, TP_ERR_INVALID, path,
                       "needs 1 <= min <= max <= %lld, got [%lld, %lld]", (long long)limit,
                       (long long)r.min, (long long)r.max);
    return TP_OK;
}

static tp_status check_choices(const int *allowed, int count, const char *path, tp_error *err)
{
    for (int i = 0; i < count; i++)
        if (allowed[i])
            return TP_OK;
    return err_set(err, TP_ERR_INVALID, path, "allows no value at all");
}

tp_status search_validate_space(const tp_search_space *s, tp_error *err)
{
    TRY(check_range(s->tp, 10000000, "search.tp", err));
    TRY(check_range(s->cp, 10000000, "search.cp", err));
    TRY(check_range(s->pp, 10000, "search.pp", err));
    TRY(check_range(s->dp, 10000000, "search.dp", err));
    TRY(check_range(s->micro_batch, 100000, "search.micro_batch", err));
    TRY(check_range(s->virtual_stages, 1000, "search.virtual_stages", err));
    TRY(check_range(s->ep, 10000000, "search.ep", err));
    TRY(check_range(s->etp, 10000000, "search.etp", err));
    TRY(check_choices(s->sp, 2, "search.sp", err));
    TRY(check_choices(s->sharding, TP_SEARCH_SHARDING_COUNT, "search.sharding", err));
    TRY(check_choices(s->recompute, TP_RECOMPUTE_COUNT, "search.recompute", err));
    if (!(s->memory_fraction > 0.0) || !(s->memory_fraction <= 1.0))
        return err_set(err, TP_ERR_INVALID, "search.memory_fraction",
                       "must be a fraction above 0 and at most 1");
    if (s->top < 1 || s->top > TP_SEARCH_MAX_TOP)
        return err_set(err, TP_ERR_INVALID, "search.top", "must be an integer from 1 to %d", TP_SEARCH_MAX_TOP);
    if (s->max_evaluations < 1 || s->max_evaluations > 1000000000000)
        return err_set(err, TP_ERR_INVALID, "search.max_evaluations",
                       "must be an integer from 1 to 1000000000000, got %lld", (long long)s->max_evaluations);
    return TP_OK;
}

/* Work units (tp_search_space.max_evaluations): a memory model, a
 * step-time model (about three memory models' time), a step of the loops. */
#define WORK_MEMORY 1
#define WORK_TIME 3
#define WORK_STEP 1

/* What every level of the loops needs: the space, the lists tried, the
 * work left, and where the results go. */
typedef struct {
    const tp_search_space *space;
    const model_layers *layers;
    tp_search_result *r;
    double capacity_bytes;
    int64_t gpu_divisors[MAX_DIVISORS]; /* of system.gpus, ascending */
    int gpu_divisor_count;
    int64_t micro_batch[MAX_DIVISORS]; /* divisors of the global batch in range */
    int micro_batch_count;
    int64_t virtual_stages[2 * MAX_DIVISORS]; /* chunk_counts of the layers in range */
    int virtual_stages_count;
    int64_t recompute_count; /* recompute modes allowed */
    int64_t budget;  /* work allowed */
    int stop_at_fit; /* tp_search_min_gpus: any plan that fits will do */
    int stopped;     /* a plan fitted (stop_at_fit) or the work ran out */
} search_state;

/* Whether the work is spent: then the search stops where it is, and says
 * so in its counts. */
static int out_of_work(search_state *st)
{
    if (st->r->counts.work <= st->budget)
        return 0;
    st->r->counts.truncated = 1;
    st->stopped = 1;
    return 1;
}

/* Whether plans with tp > 1 run with sequence parallelism only: a MoE
 * model's experts take sequence-parallel tokens, and SUMMA keeps its
 * layout (tp_config_validate refuses sp off for both, saying why). The
 * search counts such plans once, with sp on. */
static int sp_required(const tp_config *c)
{
    return c->model.moe.experts > 0 || c->plan.tp_algorithm == TP_TP_SUMMA;
}

/* A plan that fits, with its step time, into the top, the front, the
 * sample and its values' statistics. */
static void keep_plan(search_state *st, const tp_config *c, choice *ch, const tp_estimate_result *est,
                      uint64_t key, int64_t placement)
{
    tp_search_result *r = st->r;
    r->counts.fit++;
    choose(r, ch, TP_SEARCH_DIM_PLACEMENT, placement);
    note_valid(ch, 1, 1, est->time.step_s);
    tp_search_plan found;
    found.plan = c->plan;
    found.plan.summa_panels = est->time.summa_panels; /* n_b as chosen: applies as is */
    found.dp = ch->v[TP_SEARCH_DIM_DP];
    found.placement = placement;
    found.micro_batch = c->training.micro_batch;
    found.recompute = c->training.recompute;
    found.fp8 = c->training.fp8;
    found.step_s = est->time.step_s;
    found.peak_bytes = est->peak_bytes;
    found.key = key;
    keep_top(r, st->space->top, &found);
    keep_pareto(r, &found);
    keep_sample(r, &found);
}

/* The plans of one recompute mode under a sharding pattern: the memory
 * model once (placement does not change memory), then, if it fits, the
 * step time of each placement. */
static void search_placements(search_state *st, tp_config *c, choice *ch, const placements *pl, uint64_t key_base,
                              int sp, const pattern *p, int rc)
{
    tp_search_result *r = st->r;
    if (pl->ok < pl->count)
        note_invalid(r, ch, TP_INVALID_TP_NODE, pl->count - pl->ok);
    if (pl->ok == 0 || out_of_work(st))
        return;
    tp_estimate_result est;
    estimate_memory(c, st->layers, &est);
    r->counts.memory_evaluations++;
    r->counts.work += WORK_MEMORY;
    if (est.peak_bytes > st->capacity_bytes) {
        r->counts.out_of_memory += pl->ok;
        for (int o = 0; o < pl->ok; o++) {
            choose(r, ch, TP_SEARCH_DIM_PLACEMENT, pl->id[o]);
            note_valid(ch, 1, 0, 0.0);
        }
        return;
    }
    for (int o = 0; o < pl->ok && !st->stopped; o++) {
        apply_placement(&c->plan, pl->id[o], pl);
        time_estimate(c, st->layers, &est);
        r->counts.time_evaluations++;
        r->counts.work += WORK_TIME;
        keep_plan(st, c, ch, &est, plan_key(key_base, sp, p, rc, pl->id[o]), pl->id[o]);
        st->stopped = st->stop_at_fit;
    }
}

/* Evaluates the plans under one (shape, micro_batch, virtual_stages,
 * expert grid), counting every plan of its subtree. */
static void search_inner(search_state *st, tp_config *c, choice *ch, const placements *pl,
                         const pattern_list *patterns, int64_t extent_in, int64_t extent_out)
{
    tp_search_result *r = st->r;
    const int64_t n_replicas = plan_replicas(&c->plan, ch->v[TP_SEARCH_DIM_DP]);
    uint64_t outer = outer_key(ch->v, TP_SEARCH_DIM_EP); /* tp ... virtual_stages */
    if (c->model.moe.experts > 0) /* and the expert grid, for MoE models only */
        outer = mix64(outer ^ ((uint64_t)c->plan.ep << 24 | (uint64_t)c->plan.etp));
    if (c->training.fp8) /* and the precision: an fp8 plan and its bf16 twin differ */
        outer = mix64(outer ^ 0x8f8f8f8f8f8f8f8fu);
    for (int sp = 0; sp < 2 && !st->stopped; sp++) {
        if (c->plan.tp == 1 ? sp == 0 : !st->space->sp[sp])
            continue; /* sp changes nothing at tp 1: counted once, on */
        if (sp_required(c) && c->plan.tp > 1 && sp == 0)
            continue; /* counted once, on */
        c->plan.sp = sp;
        choose(r, ch, TP_SEARCH_DIM_SP, sp);
        for (int i = 0; i < patterns->count && !st->stopped; i++) {
            const pattern *p = &patterns->p[i];
            choose(r, ch, TP_SEARCH_DIM_SHARDING, p->kind);
            const int64_t below = st->recompute_count * pl->count;
            if (!p->valid) {
                note_invalid(r, ch, TP_INVALID_AMSP_RULE, below);
                continue;
            }
            if ((p->kind == TP_SEARCH_FSDP_HYBRID || p->kind == TP_SEARCH_AMSP)
                && valid_shard_group(n_replicas, extent_in, NULL) != TP_OK) {
                note_invalid(r, ch, TP_INVALID_SHARD_GROUP, below);
                continue;
            }
            apply_pattern(&c->plan, p, extent_in, extent_out);
            for (int rc = 0; rc < TP_RECOMPUTE_COUNT && !st->stopped; rc++) {
                if (!st->space->recompute[rc])
                    continue;
                c->training.recompute = (tp_recompute)rc;
                choose(r, ch, TP_SEARCH_DIM_RECOMPUTE, rc);
                search_placements(st, c, ch, pl, outer, sp, p, rc);
            }
        }
    }
}

/* The rules of the shape itself (tp, cp, pp), or -1 when it is valid. */
static int shape_rule(const tp_config *c)
{
    if (valid_tp_split(&c->model, c->plan.tp, NULL) != TP_OK)
        return TP_INVALID_TP_SPLIT;
    if (valid_cp_sequence(&c->model, c->training.seq_len, c->plan.cp, NULL) != TP_OK)
        return TP_INVALID_CP_SEQ;
    return -1;
}

/* The explanation of the best plan, the value tables in value order and
 * the sample as a max-heap sorted by key: what tp_search returns, whatever
 * order the plans were found or merged in. */
static void finish(tp_search_result *r)
{
    for (int d = 0; d < TP_SEARCH_DIM_COUNT; d++)
        qsort(r->values[d], (size_t)r->value_count[d], sizeof r->values[d][0], by_value);
    qsort(r->sample, (size_t)r->sample_count, sizeof r->sample[0], by_key_descending);
    memset(r->explain, 0, sizeof r->explain);
    if (r->top_count == 0)
        return;
    const tp_search_plan *best = &r->top[0];
    const int64_t chosen[TP_SEARCH_DIM_COUNT] = {
        best->plan.tp, best->plan.cp, best->plan.pp, best->dp, best->micro_batch,
        best->plan.virtual_stages, best->plan.ep, best->plan.etp > 0 ? best->plan.etp : 1,
        best->plan.sp, tp_search_plan_sharding(&best->plan),
        best->recompute, best->placement, best->fp8};
    for (int d = 0; d < TP_SEARCH_DIM_COUNT; d++)
        explain_dimension(r, (tp_search_dim)d, chosen[d], best->step_s);
}

/* The expert grid of a stage of `ranks` = tp cp dp GPUs, walked from
 * divisors: ep divides both the experts and the ranks, etp both an
 * expert's width and the ranks left (valid_expert_grid's rule), each in
 * its range. A dense model has the one grid (1, 1). */
typedef struct {
    int64_t eps[MAX_DIVISORS];
    int ep_count;
    int64_t etps[MAX_DIVISORS]; /* for eps[ep_index] */
    int etp_count;
    int ep_index, etp_index;
} expert_grid;

/* The next grid point into ep, etp; 0 when the grid is done. */
static int grid_next(expert_grid *g, const tp_config *c, const tp_search_space *space, int64_t ranks,
                     int64_t *ep, int64_t *etp)
{
    const tp_moe *x = &c->model.moe;
    if (x->experts == 0) {
        *ep = *etp = 1;
        return g->ep_index++ == 0;
    }
    while (g->etp_index >= g->etp_count) {
        if (++g->ep_index >= g->ep_count)
            return 0;
        const int64_t left = ranks / g->eps[g->ep_index];
        g->etp_count = divisors(plan_gcd(x->expert_ffn_hidden, left), space->etp, g->etps);
        g->etp_index = 0;
    }
    *ep = g->eps[g->ep_index];
    *etp = g->etps[g->etp_index++];
    /* divisors of the gcds keep the estimate's rule by construction */
    assert(valid_expert_grid(x, *ep, *etp, ranks, NULL) == TP_OK);
    return 1;
}

static void grid_start(expert_grid *g, const tp_config *c, const tp_search_space *space, int64_t ranks)
{
    g->ep_index = -1;
    g->etp_count = g->etp_index = 0;
    g->ep_count = c->model.moe.experts > 0 ? divisors(plan_gcd(c->model.moe.experts, ranks), space->ep, g->eps) : 1;
    if (c->model.moe.experts == 0)
        g->ep_index = 0;
}

/* The grid's points, counted by walking it. */
static int64_t grid_size(expert_grid *g, const tp_config *c, const tp_search_space *space, int64_t ranks)
{
    int64_t n = 0, ep, etp;
    grid_start(g, c, space, ranks);
    while (grid_next(g, c, space, ranks, &ep, &etp))
        n++;
    return n;
}

/* One (tp, cp, pp) shape already set in c: the sizes of its subtree, and
 * unless the shape breaks a rule or the work is spent, its plans. */
typedef struct {
    placements pl;
    pattern_list patterns;
    int64_t extent_in, extent_out;
    int64_t grid_count, per_grid, per_v;
} shape_plan;

static void shape_prepare(search_state *st, const tp_config *c, int64_t dp, shape_plan *sh, expert_grid *g)
{
    const tp_search_space *space = st->space;
    const int64_t size[4] = {c->plan.tp, c->plan.cp, dp, c->plan.pp};
    node_placements(size, c->system.gpus, c->system.gpus_per_node, space->placement, space->tp_across_nodes, &sh->pl);
    /* the data-parallel extents inside and across nodes, as
     * plan_intra_node_dp numbers them */
    sh->extent_in = plan_intra_node_dp(c, dp);
    const int64_t replicas = plan_replicas(&c->plan, dp);
    sh->extent_out = replicas / sh->extent_in > 0 ? replicas / sh->extent_in : 1;
    sh->patterns = sharding_patterns(space, sh->extent_in, sh->extent_out);
    const int64_t sp_count = c->plan.tp == 1 ? 1 : sp_required(c) ? space->sp[1] : space->sp[0] + space->sp[1];
    sh->grid_count = grid_size(g, c, space, c->plan.tp * c->plan.cp * dp);
    sh->per_grid = sp_count * sh->patterns.count * st->recompute_count * sh->pl.count;
    sh->per_v = sh->grid_count * sh->per_grid;
    if (!st->stopped) /* past the budget shapes are only counted */
        st->r->counts.work += WORK_STEP + sh->pl.count;
}

static void search_shape_plans(search_state *st, tp_config *c, choice *ch, int64_t dp, shape_plan *sh,
                               expert_grid *g)
{
    tp_search_result *r = st->r;
    const int64_t ranks = c->plan.tp * c->plan.cp * dp;
    for (int b = 0; b < st->micro_batch_count && !st->stopped; b++) {
        const int64_t mb = st->micro_batch[b];
        choose(r, ch, TP_SEARCH_DIM_MICRO_BATCH, mb);
        if (valid_batch(c->training.global_batch, mb, dp, NULL) != TP_OK) {
            note_invalid(r, ch, TP_INVALID_BATCH, (int64_t)st->virtual_stages_count * sh->per_v);
            continue;
        }
        c->training.micro_batch = mb;
        const int64_t micro_batches = c->training.global_batch / (mb * dp);
        for (int vi = 0; vi < st->virtual_stages_count && !st->stopped; vi++) {
            /* every v is a step of work, the invalid ones too: a balanced
             * split allows any v up to L + 2, so the list is long */
            st->r->counts.work += WORK_STEP;
            if (out_of_work(st))
                break;
            const int64_t v = st->virtual_stages[vi];
            choose(r, ch, TP_SEARCH_DIM_VIRTUAL_STAGES, v);
            if (valid_layers(c->model.layers, c->plan.pp, v, c->plan.first_stage_layers, c->plan.last_stage_layers,
                             NULL) != TP_OK) {
                note_invalid(r, ch, TP_INVALID_LAYERS, sh->per_v);
                continue;
            }
            if (valid_interleave(c->plan.pp, v, micro_batches, NULL) != TP_OK) {
                note_invalid(r, ch, TP_INVALID_INTERLEAVE, sh->per_v);
                continue;
            }
            c->plan.virtual_stages = v;
            c->plan.schedule = v > 1 ? TP_SCHEDULE_INTERLEAVED : TP_SCHEDULE_1F1B;
            int64_t ep, etp;
            grid_start(g, c, st->space, ranks);
            while (!st->stopped && grid_next(g, c, st->space, ranks, &ep, &etp)) {
                st->r->counts.work += WORK_STEP;
                c->plan.ep = ep;
                c->plan.etp = c->model.moe.experts > 0 ? etp : 0;
                choose(r, ch, TP_SEARCH_DIM_EP, ep);
                choose(r, ch, TP_SEARCH_DIM_ETP, etp);
                if (!out_of_work(st))
                    search_inner(st, c, ch, &sh->pl, &sh->patterns, sh->extent_in, sh->extent_out);
            }
        }
    }
}

static void search_shape(search_state *st, tp_config *c, choice *ch, int64_t dp)
{
    tp_search_result *r = st->r;
    shape_plan sh;
    expert_grid g;
    r->counts.shapes++;
    shape_prepare(st, c, dp, &sh, &g);
    const int64_t plans = (int64_t)st->micro_batch_count * st->virtual_stages_count * sh.per_v;
    r->counts.candidates += plans;
    if (st->stopped)
        return; /* counted, not searched */
    choose(r, ch, TP_SEARCH_DIM_TP, c->plan.tp);
    choose(r, ch, TP_SEARCH_DIM_CP, c->plan.cp);
    choose(r, ch, TP_SEARCH_DIM_PP, c->plan.pp);
    choose(r, ch, TP_SEARCH_DIM_DP, dp);
    const int rule = shape_rule(c);
    if (rule >= 0)
        note_invalid(r, ch, (tp_invalid)rule, plans);
    else
        search_shape_plans(st, c, ch, dp, &sh, &g);
    if (!st->stopped)
        r->counts.shapes_searched++;
}

/* Model chunks per GPU that some pp can split the layers into
 * (valid_layers), ascending: divisors of the layers (equal chunks, or ends
 * given in multiples of v) and, since a pp that does not divide the
 * layers splits the L + 2 units with the embedding and the LM head into
 * any pp v <= L + 2 chunks (the balanced split), every v up to L + 2 when
 * some pp > 1 does not divide them (all but L = 1 and 2). */
static int chunk_counts(int64_t layers, tp_range r, int64_t *out)
{
    if (layers <= 2)
        return divisors(layers, r, out);
    int count = 0;
    for (int64_t v = r.min; v <= r.max && v <= layers + 2 && count < 2 * MAX_DIVISORS; v++)
        out[count++] = v;
    return count;
}

/* The lists every shape shares: divisors of the GPU count, micro-batch
 * sizes that divide the global batch, model chunks that can split the
 * layers. */
static void prepare_lists(search_state *st, const tp_config *base, const tp_search_space *space)
{
    const tp_range any = {1, base->system.gpus};
    st->gpu_divisor_count = divisors(base->system.gpus, any, st->gpu_divisors);
    st->micro_batch_count = divisors(base->training.global_batch, space->micro_batch, st->micro_batch);
    st->virtual_stages_count = chunk_counts(base->model.layers, space->virtual_stages, st->virtual_stages);
    st->recompute_count = 0;
    for (int i = 0; i < TP_RECOMPUTE_COUNT; i++)
        st->recompute_count += space->recompute[i];
}

/* The plans validate_plan_mechanisms (validate.c) allows with the base's
 * activation offloading (one pipeline stage, no recompute, as Megatron-Core
 * runs it), FP8 parameters (a sharded optimizer) and recompute modules
 * (recompute none or selective): the search keeps the mechanism and offers
 * only those. */
static void narrow_for_mechanisms(const tp_config *base, tp_search_space *s)
{
    if (base->training.offload_layers > 0) {
        s->pp.max = 1;
        for (int i = 0; i < TP_RECOMPUTE_COUNT; i++)
            s->recompute[i] = i == TP_RECOMPUTE_NONE ? s->recompute[i] : 0;
    }
    if (base->training.fp8_params)
        s->sharding[TP_SEARCH_ZERO0] = 0;
    if (model_recompute_modules_set(&base->training))
        for (int i = 0; i < TP_RECOMPUTE_COUNT; i++)
            s->recompute[i] = model_recompute_takes_modules((tp_recompute)i) ? s->recompute[i] : 0;
}

/* A precision over the base config's training: fp8 off turns fp8's
 * companions off (fp8 weights, NVFP4 GEMMs), fp8 on keeps them as the
 * base has them, so a bf16 base searched in fp8 gets plain fp8 GEMMs. */
static void set_precision(tp_training *t, int fp8)
{
    t->fp8 = fp8;
    if (!fp8)
        t->fp8_params = t->fp4 = 0;
}

int search_precisions(const tp_config *base, const tp_search_space *space, int fp8[2])
{
    if (!space->fp8[0] && !space->fp8[1]) {
        fp8[0] = base->training.fp8;
        return 1;
    }
    int count = 0;
    for (int i = 0; i < 2; i++)
        if (space->fp8[i])
            fp8[count++] = i;
    return count;
}

/* The base, the space and, for each precision the space asks for, the
 * base run in it: an fp8 the GPU lacks is refused at search.precision
 * with the rule validate.c gives. */
static tp_status search_validate(const tp_config *base, const tp_search_space *space, tp_error *err)
{
    TRY(valid_inputs(base, err));
    TRY(search_validate_space(space, err));
    for (int fp8 = 0; fp8 < 2; fp8++) {
        if (!space->fp8[fp8])
            continue;
        tp_config c = *base;
        set_precision(&c.training, fp8);
        tp_error why = {TP_OK, "", ""};
        if (valid_inputs(&c, &why) != TP_OK)
            return err_set(err, why.status, "search.precision", "%s: %s: %s", search_precision_names.items[fp8],
                           why.path, why.message);
    }
    return TP_OK;
}

/* Part `part` of `parts` (see tp_search_part), within budget work units;
 * stop_at_fit ends it at the first plan that fits. The shapes are
 * numbered across the precisions, so the parts split both. */
static void run_search(const tp_config *base, const tp_search_space *space, int part, int parts, int64_t budget,
                       tp_search_result *r, int stop_at_fit)
{
    memset(r, 0, sizeof *r);
    int fp8s[2];
    const int precision_count = search_precisions(base, space, fp8s);
    search_state st = {.r = r, .budget = budget, .stop_at_fit = stop_at_fit};
    const int64_t gpus = base->system.gpus;
    choice ch;
    int64_t shape = -1; /* index of (precision, tp, cp, pp) in loop order, for the parts */
    for (int f = 0; f < precision_count && !(stop_at_fit && st.stopped); f++) {
        tp_config c = *base;
        set_precision(&c.training, fp8s[f]);
        c.training.recompute_layers = 0; /* full recompute re-runs every layer here */
        /* what a layer keeps depends on the precision (fp8_activations) */
        const model_layers layers = model_describe_layers(&c.model, &c.training);
        tp_search_space narrowed = *space;
        /* AMSP is not modelled for MoE, selective_op for what
         * recompute_op_refusal names (tp_config_validate): never offered */
        if (c.model.moe.experts > 0)
            narrowed.sharding[TP_SEARCH_AMSP] = 0;
        if (recompute_op_refusal(&c) != NULL)
            narrowed.recompute[TP_RECOMPUTE_SELECTIVE_OP] = 0;
        narrow_for_mechanisms(&c, &narrowed);
        st.space = &narrowed;
        st.layers = &layers;
        st.capacity_bytes = narrowed.memory_fraction * c.system.gpu.memory_bytes;
        prepare_lists(&st, &c, &narrowed);
        choose(r, &ch, TP_SEARCH_DIM_PRECISION, fp8s[f]);
        for (int i = 0; i < st.gpu_divisor_count && !(stop_at_fit && st.stopped); i++) {
            const int64_t tp = st.gpu_divisors[i];
            for (int j = 0; j < st.gpu_divisor_count && in_range(tp, narrowed.tp) && !(stop_at_fit && st.stopped);
                 j++) {
                const int64_t cp = st.gpu_divisors[j];
                for (int k = 0; k < st.gpu_divisor_count && (gpus / tp) % cp == 0 && in_range(cp, narrowed.cp); k++) {
                    const int64_t pp = st.gpu_divisors[k];
                    if ((gpus / (tp * cp)) % pp != 0 || !in_range(pp, narrowed.pp)
                        || !in_range(gpus / (tp * cp * pp), narrowed.dp) || ++shape % parts != part
                        || (stop_at_fit && st.stopped))
                        continue;
                    c.plan.tp = tp;
                    c.plan.cp = cp;
                    c.plan.pp = pp;
                    search_shape(&st, &c, &ch, gpus / (tp * cp * pp));
                }
            }
        }
    }
    if (!stop_at_fit)
        finish(r);
}

tp_status tp_search(const tp_config *base, const tp_search_space *space, tp_search_result *r,
                    tp_error *err)
{
    TRY(search_validate(base, space, err));
    run_search(base, space, 0, 1, space->max_evaluations, r, 0);
    return TP_OK;
}

tp_status search_validate_parts(int parts, tp_error *err)
{
    if (parts < 1 || parts > TP_SEARCH_MAX_PARTS)
        return err_set(err, TP_ERR_INVALID, "parts", "%d is not between 1 and %d", parts, TP_SEARCH_MAX_PARTS);
    return TP_OK;
}

tp_status tp_search_part(const tp_config *base, const tp_search_space *space, int part, int parts,
                         tp_search_result *r, tp_error *err)
{
    TRY(search_validate(base, space, err));
    TRY(search_validate_parts(parts, err));
    if (part < 0 || part >= parts)
        return err_set(err, TP_ERR_INVALID, "part", "%d is not between 0 and parts - 1 = %d", part, parts - 1);
    /* the parts share the whole search's budget */
    run_search(base, space, part, parts, space->max_evaluations / parts, r, 0);
    return TP_OK;
}

/* A found plan as a part hands it over: its figures finite, and its
 * choices a plan the base configuration accepts (every writer of it
 * indexes by its enums and its rank order), with dp the GPUs it leaves. */
static int plan_in_bounds(const tp_config *base, const tp_search_plan *p)
{
    if (!(p->dp >= 1 && p->micro_batch >= 1 && (unsigned)p->recompute < TP_RECOMPUTE_COUNT && p->placement >= 0
          && (p->fp8 == 0 || p->fp8 == 1) && isfinite(p->step_s) && p->step_s > 0.0 && isfinite(p->peak_bytes)))
        return 0;
    const tp_config c = tp_search_apply(base, p);
    tp_error ignored;
    if (tp_config_validate(&c, &ignored) != TP_OK)
        return 0;
    return c.system.gpus / (c.plan.tp * c.plan.pp * c.plan.cp) == p->dp;
}

/* A count a part may hold: merged over at most TP_SEARCH_MAX_PARTS parts,
 * counts below 2^52 each cannot overflow. */
static int count_in_bounds(int64_t n)
{
    return n >= 0 && n <= ((int64_t)1 << 52);
}

static int counts_in_bounds(const tp_search_counts *n)
{
    int ok = count_in_bounds(n->candidates) && count_in_bounds(n->out_of_memory) && count_in_bounds(n->fit)
          && count_in_bounds(n->memory_evaluations) && count_in_bounds(n->time_evaluations)
          && count_in_bounds(n->shapes) && count_in_bounds(n->shapes_searched)
          && count_in_bounds(n->work) && (n->truncated == 0 || n->truncated == 1);
    for (int i = 0; i < TP_INVALID_COUNT; i++)
        ok &= count_in_bounds(n->invalid[i]);
    return ok;
}

static int values_in_bounds(const tp_search_result *r)
{
    for (int d = 0; d < TP_SEARCH_DIM_COUNT; d++) {
        if (r->value_count[d] < 0 || r->value_count[d] > TP_SEARCH_MAX_VALUES
            || (r->values_truncated[d] != 0 && r->values_truncated[d] != 1))
            return 0;
        for (int i = 0; i < r->value_count[d]; i++) {
            const tp_search_value *v = &r->values[d][i];
            int ok = count_in_bounds(v->valid) && count_in_bounds(v->fit)
                  && (v->best_step_s == -1.0 || (isfinite(v->best_step_s) && v->best_step_s > 0.0));
            for (int k = 0; k < TP_INVALID_COUNT; k++)
                ok &= count_in_bounds(v->invalid[k]);
            if (!ok)
                return 0;
        }
    }
    return 1;
}

tp_status search_check_part(const tp_config *base, const tp_search_result *r, int index, tp_error *err)
{
    char path[32];
    snprintf(path, sizeof path, "parts[%d]", index);
    if (!counts_in_bounds(&r->counts) || !values_in_bounds(r))
        return err_set(err, TP_ERR_INVALID, path, "is not a search part: its counts are out of bounds");
    if (r->top_count < 0 || r->top_count > TP_SEARCH_MAX_TOP || r->pareto_count < 0
        || r->pareto_count > TP_SEARCH_MAX_PARETO || r->sample_count < 0 || r->sample_count > TP_SEARCH_MAX_SAMPLE)
        return err_set(err, TP_ERR_INVALID, path, "is not a search part: its plan counts are out of bounds");
    for (int i = 0; i < r->top_count + r->pareto_count + r->sample_count; i++) {
        const tp_search_plan *p = i < r->top_count ? &r->top[i]
                                : i < r->top_count + r->pareto_count ? &r->pareto[i - r->top_count]
                                : &r->sample[i - r->top_count - r->pareto_count];
        if (!plan_in_bounds(base, p))
            return err_set(err, TP_ERR_INVALID, path, "is not a search part: a plan is out of bounds");
    }
    return TP_OK;
}

static void merge_counts(tp_search_counts *into, const tp_search_counts *part)
{
    into->candidates += part->candidates;
    for (int i = 0; i < TP_INVALID_COUNT; i++)
        into->invalid[i] += part->invalid[i];
    into->out_of_memory += part->out_of_memory;
    into->fit += part->fit;
    into->memory_evaluations += part->memory_evaluations;
    into->time_evaluations += part->time_evaluations;
    into->shapes += part->shapes;
    into->shapes_searched += part->shapes_searched;
    into->work += part->work;
    into->truncated |= part->truncated;
}

void tp_search_merge(const tp_search_space *space, tp_search_result *into, const tp_search_result *part)
{
    merge_counts(&into->counts, &part->counts);
    for (int i = 0; i < part->top_count; i++)
        keep_top(into, space->top, &part->top[i]);
    into->pareto_truncated |= part->pareto_truncated;
    for (int i = 0; i < part->pareto_count; i++)
        keep_pareto(into, &part->pareto[i]);
    for (int i = 0; i < part->sample_count; i++)
        keep_sample(into, &part->sample[i]);
    for (int d = 0; d < TP_SEARCH_DIM_COUNT; d++) {
        into->values_truncated[d] |= part->values_truncated[d];
        for (int i = 0; i < part->value_count[d]; i++) {
            const tp_search_value *from = &part->values[d][i];
            tp_search_value *slot = value_slot(into, (tp_search_dim)d, from->value);
            if (slot == NULL)
                continue;
            slot->valid += from->valid;
            slot->fit += from->fit;
            for (int k = 0; k < TP_INVALID_COUNT; k++)
                slot->invalid[k] += from->invalid[k];
            if (from->fit > 0 && (slot->best_step_s < 0.0 || from->best_step_s < slot->best_step_s))
                slot->best_step_s = from->best_step_s;
        }
    }
    finish(into);
}

tp_status tp_search_min_gpus(const tp_config *base, const tp_search_space *space, int64_t max_gpus,
                             tp_search_result *work, int64_t *gpus, tp_error *err)
{
    TRY(search_validate(base, space, err));
    *gpus = 0;
    tp_config c = *base;
    int64_t spent = 0; /* the counts share one budget */
    for (int64_t n = 1; n <= max_gpus && n <= 10000000 && spent <= space->max_evaluations; n *= 2) {
        c.system.gpus = n;
        run_search(&c, space, 0, 1, space->max_evaluations - spent, work, 1);
        spent += work->counts.work;
        if (work->top_count > 0) {
            *gpus = n;
            break;
        }
    }
    return TP_OK;
}

tp_config tp_search_apply(const tp_config *base, const tp_search_plan *found)
{
    tp_config c = *base;
    c.plan = found->plan;
    c.training.micro_batch = found->micro_batch;
    c.training.recompute = found->recompute;
    c.training.recompute_layers = 0;
    set_precision(&c.training, found->fp8);
    return c;
}
