/*
 * search_json.c: the JSON face of the search. Reads the "search" section of
 * a document (docs/search.md) and writes what tp_search found: the top
 * plans with their full estimates, the Pareto front, the counts, the
 * explanation of the best plan, the per-value statistics and, for a list of
 * GPU counts, the best plan of each (scaling).
 *
 * Section fields (all optional, over tp_search_defaults):
 *   tp, cp, pp, dp, micro_batch, virtual_stages
 *                   a number pins the dimension, [min, max] bounds it
 *   sp              true / false pins it, [false, true] allows both
 *   sharding        one name or a list of "zero0" ... "zero3",
 *                   "fsdp_hybrid", "amsp"
 *   recompute       one name or a list of "none", "selective", "full",
 *                   "selective_op" (default the first three)
 *   precision       one name or a list of "bf16" (fp8 off) and "fp8"
 *                   (default: the config's training.precision.fp8)
 *   placement       false keeps Megatron's order (tp, cp, dp, pp)
 *   tp_across_nodes true lets a tp group span nodes
 *   memory_fraction share of capacity a plan may use (default 0.8)
 *   top             plans to return (1-64, default 10)
 *   gpus            GPU counts for scaling mode (at most 32)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"
#include "units.h"

#define MAX_SCALING 32

typedef struct {
    int count;
    int64_t gpus[MAX_SCALING];
} scaling_list;

/* A number pins a range; [min, max] bounds it. */
static tp_status read_range(const cJSON *obj, const char *key, tp_range *out, tp_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    char path[64];
    snprintf(path, sizeof path, "search.%s", key);
    if (item == NULL)
        return TP_OK;
    int64_t v[2];
    if (cJSON_IsNumber(item)) {
        TRY(json_read_int(obj, "search", key, &v[0], err));
        out->min = out->max = v[0];
        return TP_OK;
    }
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 2)
        return err_set(err, TP_ERR_INVALID, path, "must be a number (pinned) or [min, max]");
    for (int i = 0; i < 2; i++) {
        const cJSON *e = cJSON_GetArrayItem(item, i);
        const double d = cJSON_IsNumber(e) ? e->valuedouble : NAN;
        if (!isfinite(d) || d != floor(d) || fabs(d) > 9.0e15)
            return err_set(err, TP_ERR_INVALID, path, "[min, max] must hold two integers");
        v[i] = (int64_t)d;
    }
    out->min = v[0];
    out->max = v[1];
    return TP_OK;
}

/* One name or a list of names from names; allowed[i] set for each named. */
static tp_status read_choices(const cJSON *obj, const char *key, const name_list *names, int *allowed,
                              tp_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    char path[64];
    snprintf(path, sizeof path, "search.%s", key);
    if (item == NULL)
        return TP_OK;
    if (!cJSON_IsString(item) && !cJSON_IsArray(item))
        return err_set(err, TP_ERR_INVALID, path, "must be a name or a list of names");
    for (int i = 0; i < names->count; i++)
        allowed[i] = 0;
    const int list = cJSON_IsArray(item);
    int index = 0;
    for (const cJSON *e = list ? item->child : item; e != NULL; e = list ? e->next : NULL, index++) {
        int found = -1;
        for (int i = 0; cJSON_IsString(e) && i < names->count && found < 0; i++)
            if (strcmp(e->valuestring, names->items[i]) == 0)
                found = i;
        if (found < 0) {
            char choices[160];
            json_name_choices(names, choices, sizeof choices);
            if (list)
                snprintf(path, sizeof path, "search.%s[%d]", key, index);
            return err_set(err, TP_ERR_INVALID, path, "must be one of %s", choices);
        }
        allowed[found] = 1;
    }
    return TP_OK;
}

/* true or false pins sp; a list allows each value it holds. */
static tp_status read_sp(const cJSON *obj, int sp[2], tp_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, "sp");
    if (item == NULL)
        return TP_OK;
    if (cJSON_IsBool(item)) {
        sp[0] = !cJSON_IsTrue(item);
        sp[1] = cJSON_IsTrue(item);
        return TP_OK;
    }
    if (!cJSON_IsArray(item))
        return err_set(err, TP_ERR_INVALID, "search.sp", "must be true, false or a list of them");
    sp[0] = sp[1] = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, item) {
        if (!cJSON_IsBool(e))
            return err_set(err, TP_ERR_INVALID, "search.sp", "must hold only true or false");
        sp[cJSON_IsTrue(e) ? 1 : 0] = 1;
    }
    return TP_OK;
}

static tp_status read_scaling(const cJSON *obj, scaling_list *out, tp_error *err)
{
    out->count = 0;
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, "gpus");
    if (item == NULL)
        return TP_OK;
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) > MAX_SCALING)
        return err_set(err, TP_ERR_INVALID, "search.gpus", "must be a list of at most %d GPU counts",
                       MAX_SCALING);
    const cJSON *e;
    cJSON_ArrayForEach(e, item) {
        const double d = cJSON_IsNumber(e) ? e->valuedouble : NAN;
        if (!isfinite(d) || d != floor(d) || d < 1.0 || d > 10000000.0)
            return err_set(err, TP_ERR_INVALID, "search.gpus",
                           "each GPU count must be an integer from 1 to 10000000");
        out->gpus[out->count++] = (int64_t)d;
    }
    return TP_OK;
}

static tp_status read_search(const cJSON *section, tp_search_space *s, scaling_list *scaling,
                             tp_error *err)
{
    tp_search_defaults(s);
    scaling->count = 0;
    if (section == NULL)
        return TP_OK;
    static const char *const keys[] = {"tp", "cp", "pp", "dp", "micro_batch", "virtual_stages", "ep", "etp", "sp",
                                       "sharding", "recompute", "precision", "placement", "tp_across_nodes",
                                       "memory_fraction", "top", "gpus", "max_evaluations", NULL};
    TRY(json_check_object(section, "search", keys, err));
    TRY(read_range(section, "tp", &s->tp, err));
    TRY(read_range(section, "cp", &s->cp, err));
    TRY(read_range(section, "pp", &s->pp, err));
    TRY(read_range(section, "dp", &s->dp, err));
    TRY(read_range(section, "micro_batch", &s->micro_batch, err));
    TRY(read_range(section, "virtual_stages", &s->virtual_stages, err));
    TRY(read_range(section, "ep", &s->ep, err));
    TRY(read_range(section, "etp", &s->etp, err));
    TRY(read_sp(section, s->sp, err));
    TRY(read_choices(section, "sharding", &search_sharding_names, s->sharding, err));
    TRY(read_choices(section, "recompute", &recompute_names, s->recompute, err));
    TRY(read_choices(section, "precision", &search_precision_names, s->fp8, err));
    /* an empty list would read as the default, the config's own precision */
    if (cJSON_GetObjectItemCaseSensitive(section, "precision") != NULL && !s->fp8[0] && !s->fp8[1])
        return err_set(err, TP_ERR_INVALID, "search.precision", "allows no value at all");
    TRY(json_read_bool(section, "search", "placement", &s->placement, err));
    TRY(json_read_bool(section, "search", "tp_across_nodes", &s->tp_across_nodes, err));
    TRY(json_read_number(section, "search", "memory_fraction", &s->memory_fraction, err));
    int64_t top = s->top;
    TRY(json_read_int(section, "search", "top", &top, err));
    s->top = top >= 0 && top <= 1000 ? (int)top : -1; /* -1: the check below says why */
    TRY(json_read_int(section, "search", "max_evaluations", &s->max_evaluations, err));
    TRY(read_scaling(section, scaling, err));
    return search_validate_space(s, err);
}

tp_status json_read_search(const cJSON *section, tp_search_space *space, tp_error *err)
{
    scaling_list scaling;
    return read_search(section, space, &scaling, err);
}

static tp_status read_document(const char *json, tp_config *config, tp_search_space *space,
                               scaling_list *scaling, json_notes *notes, tp_error *err)
{
    cJSON *root = json_parse_document(json, err);
    if (root == NULL)
        return err != NULL ? err->status : TP_ERR_PARSE;
    tp_status status = json_read_config(root, config, 0, notes, err);
    if (status == TP_OK)
        status = read_search(cJSON_GetObjectItemCaseSensitive(root, "search"), space, scaling, err);
    cJSON_Delete(root);
    return status;
}

tp_status tp_search_config_from_json(const char *json, tp_config *config, tp_search_space *space,
                                     tp_error *err)
{
    scaling_list scaling;
    return read_document(json, config, space, &scaling, NULL, err);
}

/* ===================== writing ===================== */

/* The plan as the search chose it: the contract names tp, pp, cp,
 * dp, micro_batch and vpp. */
/* A found plan as "plans[].plan" documents it; base resolves its placement. */
static void write_plan(json_writer *w, cJSON *obj, const tp_config *base, const tp_search_plan *p)
{
    json_add_number(w, obj, "tp", (double)p->plan.tp);
    json_add_number(w, obj, "pp", (double)p->plan.pp);
    json_add_number(w, obj, "cp", (double)p->plan.cp);
    json_add_number(w, obj, "dp", (double)p->dp);
    json_add_number(w, obj, "micro_batch", (double)p->micro_batch);
    json_add_number(w, obj, "vpp", (double)p->plan.virtual_stages);
    if (p->plan.etp > 0) { /* a MoE plan: its expert grid */
        json_add_number(w, obj, "ep", (double)p->plan.ep);
        json_add_number(w, obj, "etp", (double)p->plan.etp);
    }
    json_add_bool(w, obj, "sp", p->plan.sp);
    json_add_string(w, obj, "tp_algorithm", tp_tp_algorithm_str(p->plan.tp_algorithm));
    if (p->plan.tp_algorithm == TP_TP_SUMMA)
        json_add_number(w, obj, "summa_panels", (double)p->plan.summa_panels);
    json_add_string(w, obj, "sharding", tp_search_sharding_str(tp_search_plan_sharding(&p->plan)));
    if (p->plan.sharding == TP_SHARD_AMSP)
        json_add_amsp(w, obj, p->plan.amsp);
    json_add_string(w, obj, "recompute", tp_recompute_str(p->recompute));
    json_add_bool(w, obj, "fp8", p->fp8);
    json_add_string(w, obj, "schedule", tp_schedule_str(p->plan.schedule));
    if (!plan_places_explicitly(&p->plan)) {
        char order[24];
        tp_order_str(p->plan.order, order, sizeof order);
        json_add_string(w, obj, "order", order);
    }
    const tp_config applied = tp_search_apply(base, p);
    int64_t per_node[4];
    plan_ranks_per_node(&applied, p->dp, per_node);
    json_add_per_node(w, obj, per_node);
}

static double tokens_per_s_per_gpu(const tp_config *c, double step_s)
{
    return (double)c->training.global_batch * (double)c->training.seq_len / step_s
         / (double)c->system.gpus;
}

static void write_counts(json_writer *w, cJSON *obj, const tp_search_counts *n)
{
    json_add_number(w, obj, "candidates", (double)n->candidates);
    json_add_number(w, obj, "fit", (double)n->fit);
    json_add_number(w, obj, "out_of_memory", (double)n->out_of_memory);
    cJSON *invalid = json_add_object(w, obj, "invalid");
    int64_t total = 0;
    for (int i = 0; i < TP_INVALID_COUNT; i++) {
        json_add_number(w, invalid, tp_invalid_name((tp_invalid)i), (double)n->invalid[i]);
        total += n->invalid[i];
    }
    json_add_number(w, obj, "invalid_total", (double)total);
    json_add_number(w, obj, "memory_evaluations", (double)n->memory_evaluations);
    json_add_number(w, obj, "time_evaluations", (double)n->time_evaluations);
    json_add_number(w, obj, "shapes", (double)n->shapes);
    json_add_number(w, obj, "shapes_searched", (double)n->shapes_searched);
    /* what the space holds but the search, stopped at its budget, never saw */
    json_add_number(w, obj, "unsearched", (double)(n->candidates - total - n->out_of_memory - n->fit));
    json_add_number(w, obj, "work", (double)n->work);
}

static void write_values(json_writer *w, cJSON *obj, const tp_search_result *r)
{
    for (int d = 0; d < TP_SEARCH_DIM_COUNT; d++) {
        cJSON *list = json_add_array(w, obj, tp_search_dim_str((tp_search_dim)d));
        if (list == NULL)
            return;
        for (int i = 0; i < r->value_count[d]; i++) {
            const tp_search_value *v = &r->values[d][i];
            cJSON *item = json_add_object(w, list, NULL);
            char label[48];
            tp_search_value_label((tp_search_dim)d, v->value, label, sizeof label);
            json_add_string(w, item, "label", label);
            if (d <= TP_SEARCH_DIM_ETP)
                json_add_number(w, item, "value", (double)v->value);
            json_add_number(w, item, "valid", (double)v->valid);
            json_add_number(w, item, "fit", (double)v->fit);
            if (v->fit > 0)
                json_add_number(w, item, "best_step_s", v->best_step_s);
            cJSON *invalid = json_add_object(w, item, "invalid");
            for (int k = 0; k < TP_INVALID_COUNT; k++)
                if (v->invalid[k] > 0)
                    json_add_number(w, invalid, tp_invalid_name((tp_invalid)k), (double)v->invalid[k]);
        }
    }
}

void json_write_space(json_writer *w, cJSON *obj, const tp_search_space *s, const tp_config *base)
{
    const struct { const char *key; tp_range r; } ranges[] = {
        {"tp", s->tp}, {"cp", s->cp}, {"pp", s->pp}, {"dp", s->dp},
        {"micro_batch", s->micro_batch}, {"virtual_stages", s->virtual_stages},
        {"ep", s->ep}, {"etp", s->etp},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        const int64_t pair[2] = {ranges[i].r.min, ranges[i].r.max};
        json_add_pair(w, obj, ranges[i].key, pair);
    }
    cJSON *sharding = json_add_array(w, obj, "sharding");
    cJSON *recompute = json_add_array(w, obj, "recompute");
    cJSON *sp = json_add_array(w, obj, "sp");
    cJSON *precision = json_add_array(w, obj, "precision");
    if (sharding == NULL || recompute == NULL || sp == NULL || precision == NULL)
        return;
    for (int i = 0; i < TP_SEARCH_SHARDING_COUNT; i++)
        if (s->sharding[i] && !cJSON_AddItemToArray(sharding, cJSON_CreateString(search_sharding_names.items[i])))
            w->failed = 1;
    for (int i = 0; i < TP_RECOMPUTE_COUNT; i++)
        if (s->recompute[i] && !cJSON_AddItemToArray(recompute, cJSON_CreateString(recompute_names.items[i])))
            w->failed = 1;
    for (int i = 0; i < 2; i++)
        if (s->sp[i] && !cJSON_AddItemToArray(sp, cJSON_CreateBool(i)))
            w->failed = 1;
    int fp8[2];
    const int fp8_count = search_precisions(base, s, fp8);
    for (int i = 0; i < fp8_count; i++)
        json_add_string(w, precision, NULL, search_precision_names.items[fp8[i]]);
    json_add_bool(w, obj, "placement", s->placement);
    json_add_bool(w, obj, "tp_across_nodes", s->tp_across_nodes);
    json_add_number(w, obj, "memory_fraction", s->memory_fraction);
    json_add_number(w, obj, "top", (double)s->top);
    json_add_number(w, obj, "max_evaluations", (double)s->max_evaluations);
}

tp_status json_write_best(json_writer *w, cJSON *item, const tp_config *c, const tp_search_result *r,
                          tp_error *err)
{
    json_add_bool(w, item, "fits", r->top_count > 0);
    if (r->counts.truncated)
        json_add_bool(w, item, "truncated", 1); /* the best of what its budget covered */
    if (r->top_count == 0)
        return TP_OK;
    const tp_config applied = tp_search_apply(c, &r->top[0]);
    tp_estimate_result est;
    TRY(tp_estimate(&applied, &est, err));
    write_plan(w, json_add_object(w, item, "plan"), c, &r->top[0]);
    json_add_number(w, item, "step_s", est.time.step_s);
    json_add_number(w, item, "tokens_per_s_per_gpu", est.throughput.tokens_per_s_per_gpu);
    json_add_number(w, item, "tokens_per_s", est.throughput.tokens_per_s_per_gpu * (double)c->system.gpus);
    json_add_number(w, item, "mfu", est.throughput.mfu);
    json_add_number(w, item, "peak_memory_gib", est.peak_bytes / UNIT_GIB);
    json_add_number(w, item, "time_to_train_days", est.throughput.time_to_train_s / UNIT_DAY_S);
    json_add_number(w, item, "gpu_hours", est.throughput.gpu_hours);
    return TP_OK;
}

tp_status json_new_search_output(tp_search_result **r, cJSON **root, tp_error *err)
{
    *r = calloc(1, sizeof **r);
    *root = cJSON_CreateObject();
    if (*r != NULL && *root != NULL)
        return TP_OK;
    free(*r);
    cJSON_Delete(*root);
    *r = NULL;
    *root = NULL;
    return err_set(err, TP_ERR_NOMEM, "", "out of memory");
}

cJSON *json_finish_search_output(tp_search_result *r, cJSON *root, tp_status status,
                                 const json_writer *w, tp_error *err)
{
    free(r);
    if (status == TP_OK)
        return json_finish(root, w, err);
    cJSON_Delete(root);
    return NULL;
}

/* The best plan for each GPU count, then the smallest count that fits. */
static tp_status write_scaling(json_writer *w, cJSON *root, const tp_config *base,
                               const tp_search_space *space, const scaling_list *scaling,
                               tp_search_result *work, tp_error *err)
{
    cJSON *list = json_add_array(w, root, "scaling");
    if (list == NULL)
        return TP_OK;
    /* the counts share half the search's budget, the smallest count the
     * other half: the whole document does at most twice a search's work */
    tp_search_space one = *space;
    one.top = 1;
    one.max_evaluations = space->max_evaluations / 2 / scaling->count > 0
                        ? space->max_evaluations / 2 / scaling->count : 1;
    for (int i = 0; i < scaling->count; i++) {
        tp_config c = *base;
        c.system.gpus = scaling->gpus[i];
        TRY(tp_search(&c, &one, work, err));
        cJSON *item = json_add_object(w, list, NULL);
        json_add_number(w, item, "gpus", (double)c.system.gpus);
        TRY(json_write_best(w, item, &c, work, err));
    }
    int64_t min_gpus = 0;
    tp_search_space half = *space;
    half.max_evaluations = space->max_evaluations / 2 > 0 ? space->max_evaluations / 2 : 1;
    TRY(tp_search_min_gpus(base, &half, 10000000, work, &min_gpus, err));
    if (min_gpus > 0)
        json_add_number(w, root, "min_gpus", (double)min_gpus);
    else if (!cJSON_AddNullToObject(root, "min_gpus"))
        w->failed = 1;
    if (min_gpus == 0 && work->counts.truncated)
        json_add_bool(w, root, "min_gpus_truncated", 1); /* none found within the budget */
    return TP_OK;
}

/* Writes r, the document's search result, and runs its scaling searches
 * (which reuse r as scratch). */
static tp_status write_search(json_writer *w, cJSON *root, const tp_config *base,
                              const tp_search_space *space, const scaling_list *scaling,
                              tp_search_result *r, tp_error *err)
{
    json_add_string(w, root, "version", TP_VERSION);
    json_write_space(w, json_add_object(w, root, "search"), space, base);
    json_add_number(w, root, "gpus", (double)base->system.gpus);
    write_counts(w, json_add_object(w, root, "counts"), &r->counts);
    json_add_bool(w, root, "truncated", r->counts.truncated != 0);
    cJSON *plans = json_add_array(w, root, "plans");
    for (int i = 0; plans != NULL && i < r->top_count; i++) {
        cJSON *item = json_add_object(w, plans, NULL);
        json_add_number(w, item, "rank", (double)(i + 1));
        write_plan(w, json_add_object(w, item, "plan"), base, &r->top[i]);
        const tp_config applied = tp_search_apply(base, &r->top[i]);
        tp_estimate_result est;
        TRY(tp_estimate(&applied, &est, err)); /* the search built it valid */
        json_write_result(w, json_add_object(w, item, "estimate"), &applied, &est);
    }
    cJSON *pareto = json_add_array(w, root, "pareto");
    for (int i = 0; pareto != NULL && i < r->pareto_count; i++) {
        const tp_search_plan *p = &r->pareto[i];
        cJSON *item = json_add_object(w, pareto, NULL);
        write_plan(w, json_add_object(w, item, "plan"), base, p);
        json_add_number(w, item, "peak_memory_gib", p->peak_bytes / TP_GIB);
        json_add_number(w, item, "step_s", p->step_s);
        json_add_number(w, item, "tokens_per_s_per_gpu", tokens_per_s_per_gpu(base, p->step_s));
    }
    json_add_bool(w, root, "pareto_truncated", r->pareto_truncated);
    /* the cloud behind the front: only what a chart needs */
    cJSON *sample = json_add_array(w, root, "sample");
    for (int i = 0; sample != NULL && i < r->sample_count; i++) {
        cJSON *item = json_add_object(w, sample, NULL);
        json_add_number(w, item, "peak_memory_gib", r->sample[i].peak_bytes / TP_GIB);
        json_add_number(w, item, "tokens_per_s_per_gpu", tokens_per_s_per_gpu(base, r->sample[i].step_s));
    }
    /* about one plan in sample_stride that fit is in the sample */
    const int64_t stride = r->sample_count > 0 ? (r->counts.fit + r->sample_count - 1) / r->sample_count : 1;
    json_add_number(w, root, "sample_stride", (double)stride);
    cJSON *explain = json_add_object(w, root, "explain");
    for (int d = 0; r->top_count > 0 && d < TP_SEARCH_DIM_COUNT; d++)
        json_add_string(w, explain, tp_search_dim_str((tp_search_dim)d), r->explain[d]);
    write_values(w, json_add_object(w, root, "values"), r);
    cJSON *cut = json_add_array(w, root, "values_truncated"); /* more values than a table holds */
    for (int d = 0; cut != NULL && d < TP_SEARCH_DIM_COUNT; d++)
        if (r->values_truncated[d])
            json_add_string(w, cut, NULL, tp_search_dim_str((tp_search_dim)d));
    if (scaling->count > 0)
        TRY(write_scaling(w, root, base, space, scaling, r, err));
    return TP_OK;
}

/* The document's output object, from its search run here (parts NULL) or
 * from the results of its parts, merged; NULL with err filled on failure. */
static cJSON *search_document(const char *json, const tp_search_result *parts, int part_count,
                              tp_error *err)
{
    tp_config config;
    tp_search_space space;
    scaling_list scaling;
    json_notes notes;
    if (read_document(json, &config, &space, &scaling, &notes, err) != TP_OK)
        return NULL;
    if (parts != NULL && search_validate_parts(part_count, err) != TP_OK)
        return NULL;
    for (int i = 0; parts != NULL && i < part_count; i++)
        if (search_check_part(&config, &parts[i], i, err) != TP_OK)
            return NULL;
    tp_search_result *r;
    cJSON *root;
    if (json_new_search_output(&r, &root, err) != TP_OK)
        return NULL;
    json_writer w = {0};
    tp_status status = TP_OK;
    if (parts == NULL)
        status = tp_search(&config, &space, r, err);
    for (int i = 0; parts != NULL && i < part_count; i++)
        tp_search_merge(&space, r, &parts[i]);
    if (status == TP_OK)
        status = write_search(&w, root, &config, &space, &scaling, r, err);
    json_write_notes(&w, root, &notes);
    return json_finish_search_output(r, root, status, &w, err);
}

char *tp_search_json(const char *json, int pretty, tp_error *err)
{
    return json_print_document(search_document(json, NULL, 0, err), pretty, err);
}

char *tp_search_envelope_json(const char *json)
{
    tp_error err = {TP_OK, "", ""};
    cJSON *result = search_document(json, NULL, 0, &err);
    return json_envelope(result, &err);
}

char *tp_search_part_envelope_json(const char *json, int part, int parts, tp_search_result *out)
{
    tp_error err = {TP_OK, "", ""};
    tp_config config;
    tp_search_space space;
    scaling_list scaling;
    cJSON *result = NULL;
    if (read_document(json, &config, &space, &scaling, NULL, &err) == TP_OK
        && tp_search_part(&config, &space, part, parts, out, &err) == TP_OK) {
        json_writer w = {0};
        result = cJSON_CreateObject();
        json_add_number(&w, result, "part", part);
        json_add_number(&w, result, "parts", parts);
        write_counts(&w, json_add_object(&w, result, "counts"), &out->counts);
        if (w.failed) {
            cJSON_Delete(result);
            result = NULL;
            err_set(&err, TP_ERR_NOMEM, "", "out of memory");
        }
    }
    return json_envelope(result, &err);
}

char *tp_search_merge_envelope_json(const char *json, const tp_search_result *parts, int count)
{
    tp_error err = {TP_OK, "", ""};
    cJSON *result = search_document(json, parts, count, &err);
    return json_envelope(result, &err);
}
