/*
 * sweep_json.c: `trainplan sweep`, a what-if study as JSON (Subramanian et al. 2024 §IV
 * Q3, Figures 5 and 6): the document's config and "search" section, and a
 * "sweep" section of hardware axes, each a list of values:
 *
 *   "sweep": {"tensor_tflops": [312, 990, 2500], "memory_gib": [80, 141, 192]}
 *
 * Every point of the grid is searched (top 1) and reported with its best
 * plan. A large grid runs as shards (a batch scheduler's array jobs): shard
 * i of n takes the points whose index is i modulo n, and
 * tp_sweep_merge_json folds the n outputs into the one the whole sweep
 * prints, which the web page loads for its heatmap.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "json_internal.h"

#define MAX_SHARDS 100000
#define MAX_OUTPUT_BYTES (64 << 20) /* a shard's output: well under a KiB a point */

/* The values of one axis: 1 to TP_SWEEP_MAX_VALUES numbers, each one the
 * axis's field accepts (its range is checked with the config at each point). */
static tp_status read_axis(const cJSON *list, tp_sweep_axis a, tp_sweep *s, tp_error *err)
{
    char path[48];
    snprintf(path, sizeof path, "sweep.%s", list->string); /* as the document names it */
    const int n = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : -1;
    if (n < 1 || n > TP_SWEEP_MAX_VALUES)
        return err_set(err, TP_ERR_INVALID, path, "must be a list of 1 to %d values", TP_SWEEP_MAX_VALUES);
    const field *f = sweep_axis_field(a);
    const cJSON *e;
    cJSON_ArrayForEach(e, list) {
        double v = 0.0;
        TRY(json_number(e, path, &v, err));
        tp_error why;
        if (field_check_value(f, v, &why) != TP_OK || (f->type == FIELD_INT && v != floor(v))) {
            char range[96];
            field_range_text(f, range, sizeof range);
            return err_set(err, TP_ERR_INVALID, path, "each value must be %s, got %g", range, v);
        }
        s->values[a][s->value_count[a]++] = v;
    }
    return TP_OK;
}

static tp_status read_sweep(const cJSON *section, tp_sweep *s, json_notes *notes, tp_error *err)
{
    memset(s, 0, sizeof *s);
    if (section == NULL)
        return err_set(err, TP_ERR_INVALID, "sweep",
                       "is required: the hardware axes to vary, e.g. {\"tensor_tflops\": [312, 990]}");
    const char *keys[2 * TP_SWEEP_AXIS_COUNT + 1];
    int k = 0;
    for (int a = 0; a < TP_SWEEP_AXIS_COUNT; a++) {
        keys[k++] = tp_sweep_axis_str((tp_sweep_axis)a);
        if (sweep_axis_field((tp_sweep_axis)a)->old_key != NULL)
            keys[k++] = sweep_axis_field((tp_sweep_axis)a)->old_key;
    }
    keys[k] = NULL;
    TRY(json_check_object(section, "sweep", keys, err));
    int used = 0;
    for (int a = 0; a < TP_SWEEP_AXIS_COUNT; a++) {
        const field *f = sweep_axis_field((tp_sweep_axis)a);
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(section, tp_sweep_axis_str((tp_sweep_axis)a));
        const cJSON *old = f->old_key != NULL ? cJSON_GetObjectItemCaseSensitive(section, f->old_key) : NULL;
        if (list != NULL && old != NULL)
            return err_set(err, TP_ERR_INVALID, "sweep", "gives both %s and its old name %s", f->key, f->old_key);
        if (old != NULL && notes != NULL && notes->count < (int)(sizeof notes->text / sizeof notes->text[0]))
            snprintf(notes->text[notes->count++], sizeof notes->text[0],
                     "sweep.%s is now sweep.%s; the old name is read until version 0.3", f->old_key, f->key);
        list = list != NULL ? list : old;
        if (list == NULL)
            continue;
        TRY(read_axis(list, (tp_sweep_axis)a, s, err));
        used++;
    }
    if (used == 0)
        return err_set(err, TP_ERR_INVALID, "sweep", "names no axis: give at least one of %s, %s, %s, %s, %s, %s",
                       keys[0], tp_sweep_axis_str(1), tp_sweep_axis_str(2), tp_sweep_axis_str(3),
                       tp_sweep_axis_str(4), tp_sweep_axis_str(5));
    if (tp_sweep_point_count(s) > TP_SWEEP_MAX_POINTS)
        return err_set(err, TP_ERR_INVALID, "sweep", "has %lld points, above the limit of %d",
                       (long long)tp_sweep_point_count(s), TP_SWEEP_MAX_POINTS);
    return TP_OK;
}

static void write_axes(json_writer *w, cJSON *obj, const tp_sweep *s)
{
    for (int a = 0; a < TP_SWEEP_AXIS_COUNT; a++) {
        if (s->value_count[a] == 0)
            continue;
        cJSON *list = json_add_array(w, obj, tp_sweep_axis_str((tp_sweep_axis)a));
        for (int i = 0; list != NULL && i < s->value_count[a]; i++) {
            cJSON *v = cJSON_CreateNumber(s->values[a][i]);
            if (v == NULL || !cJSON_AddItemToArray(list, v))
                w->failed = 1;
        }
    }
}

/* One point: its index, its value on each axis, and its best plan. */
static tp_status write_point(json_writer *w, cJSON *points, const tp_config *base, const tp_sweep *s,
                             const tp_search_space *space, int64_t point, tp_search_result *r,
                             tp_error *err)
{
    tp_config c;
    TRY(tp_sweep_point_config(base, s, point, &c, err));
    TRY(tp_search(&c, space, r, err));
    cJSON *item = json_add_object(w, points, NULL);
    json_add_number(w, item, "index", (double)point);
    cJSON *at = json_add_object(w, item, "at");
    double value[TP_SWEEP_AXIS_COUNT] = {0};
    sweep_point_values(s, point, value);
    for (int a = 0; a < TP_SWEEP_AXIS_COUNT; a++)
        if (s->value_count[a] > 0)
            json_add_number(w, at, tp_sweep_axis_str((tp_sweep_axis)a), value[a]);
    return json_write_best(w, item, &c, r, err);
}

/* A sweep document: its config, search section and grid. */
static tp_status read_sweep_document(const char *json, tp_config *config, tp_search_space *space, tp_sweep *sweep,
                                     json_notes *notes, tp_error *err)
{
    cJSON *doc = json_parse_document(json, err);
    if (doc == NULL)
        return err != NULL ? err->status : TP_ERR_PARSE;
    tp_status status = json_read_config(doc, config, 0, notes, err);
    if (status == TP_OK)
        status = json_read_search(cJSON_GetObjectItemCaseSensitive(doc, "search"), space, err);
    if (status == TP_OK)
        status = read_sweep(cJSON_GetObjectItemCaseSensitive(doc, "sweep"), sweep, notes, err);
    cJSON_Delete(doc);
    return status;
}

static cJSON *sweep_document(const char *json, int shard, int shards, tp_error *err)
{
    if (shards < 1 || shards > MAX_SHARDS || shard < 0 || shard >= shards) {
        err_set(err, TP_ERR_INVALID, "shard", "must be i/n with 0 <= i < n <= %d", MAX_SHARDS);
        return NULL;
    }
    tp_config config;
    tp_search_space space;
    tp_sweep sweep;
    json_notes notes;
    if (read_sweep_document(json, &config, &space, &sweep, &notes, err) != TP_OK)
        return NULL;
    space.top = 1;
    const int64_t count = tp_sweep_point_count(&sweep);
    /* the shard's points share the search's budget */
    const int64_t mine = (count - shard + shards - 1) / shards;
    const tp_search_space whole = space;
    space.max_evaluations = mine > 0 ? whole.max_evaluations / mine : whole.max_evaluations;
    tp_search_result *r;
    cJSON *root;
    if (json_new_search_output(&r, &root, err) != TP_OK)
        return NULL;
    json_writer w = {0};
    /* the document that reproduces the sweep: its base config (each point
     * sets its axes over it), the search run at every point, the grid */
    json_add_string(&w, root, "version", TP_VERSION);
    json_write_config(&w, json_add_object(&w, root, "config"), &config);
    json_write_space(&w, json_add_object(&w, root, "search"), &whole, &config);
    write_axes(&w, json_add_object(&w, root, "sweep"), &sweep);
    json_add_number(&w, root, "gpus", (double)config.system.gpus);
    json_add_number(&w, root, "point_count", (double)count);
    json_write_notes(&w, root, &notes);
    cJSON *at = json_add_object(&w, root, "shard");
    json_add_number(&w, at, "index", (double)shard);
    json_add_number(&w, at, "count", (double)shards);
    cJSON *points = json_add_array(&w, root, "points");
    tp_status status = TP_OK;
    for (int64_t p = shard; status == TP_OK && points != NULL && p < count; p += shards)
        status = write_point(&w, points, &config, &sweep, &space, p, r, err);
    return json_finish_search_output(r, root, status, &w, err);
}

char *tp_sweep_json(const char *json, int shard, int shards, int pretty, tp_error *err)
{
    return json_print_document(sweep_document(json, shard, shards, err), pretty, err);
}

/* ===================== merging shards ===================== */

/* A number field of obj, or -1 when it is absent or not a number. */
static double number_at(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

/* The sweep's identity, what every shard must share: all but its shard and
 * points (version, config, search, grid), printed. */
static char *identity_of(const cJSON *output)
{
    cJSON *copy = cJSON_Duplicate(output, 1);
    if (copy == NULL)
        return NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "shard");
    cJSON_DeleteItemFromObjectCaseSensitive(copy, "points");
    char *text = cJSON_PrintUnformatted(copy);
    cJSON_Delete(copy);
    return text;
}

/* The shards being merged: the first one's document, which takes every
 * shard's points, and what the others must agree with. */
typedef struct {
    cJSON *root;
    char *identity;
    unsigned char *seen; /* by shard index */
    int64_t point_count;
} merging;

/* Output i: a sweep shard of count, one not seen yet, of the same sweep;
 * its points move under the first document's. */
static tp_status merge_shard(merging *g, const char *output, int i, int count, tp_error *err)
{
    cJSON *doc = json_parse_limited(output, MAX_OUTPUT_BYTES, NULL);
    const cJSON *shard = cJSON_GetObjectItemCaseSensitive(doc, "shard");
    cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "points");
    const double index = number_at(shard, "index"), shards = number_at(shard, "count");
    const double points_in_grid = number_at(doc, "point_count");
    char *mine = doc != NULL ? identity_of(doc) : NULL;
    tp_status status = TP_OK;
    if (doc == NULL || !cJSON_IsArray(list) || mine == NULL || !(points_in_grid >= 1.0)
        || points_in_grid > TP_SWEEP_MAX_POINTS || points_in_grid != floor(points_in_grid))
        status = err_set(err, TP_ERR_PARSE, "shard", "output %d is not a trainplan sweep output", i + 1);
    else if (shards != (double)count)
        status = err_set(err, TP_ERR_INVALID, "shard", "output %d is a shard of %.0f, but %d outputs were given",
                         i + 1, shards, count);
    else if (index < 0.0 || index >= shards || index != floor(index) || g->seen[(int)index])
        status = err_set(err, TP_ERR_INVALID, "shard", "output %d repeats shard %.0f or has none", i + 1, index);
    else if (g->identity != NULL && strcmp(g->identity, mine) != 0)
        status = err_set(err, TP_ERR_INVALID, "shard",
                         "output %d comes from another sweep (version, config, search or grid differ)", i + 1);
    if (status == TP_OK) {
        g->seen[(int)index] = 1;
        if (g->root == NULL) { /* the first: it takes the others' points */
            g->root = doc;
            g->identity = mine;
            g->point_count = (int64_t)points_in_grid;
            return TP_OK;
        }
        cJSON *into = cJSON_GetObjectItemCaseSensitive(g->root, "points");
        cJSON *p;
        while ((p = cJSON_DetachItemFromArray(list, 0)) != NULL)
            cJSON_AddItemToArray(into, p);
    }
    free(mine);
    cJSON_Delete(doc);
    return status;
}

/* Every point of the grid once, in index order, as shard 0 of 1. */
static tp_status finish_merge(merging *g, tp_error *err)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(g->root, "points");
    const cJSON **points = calloc((size_t)g->point_count, sizeof *points);
    if (points == NULL)
        return err_set(err, TP_ERR_NOMEM, "", "out of memory");
    int64_t taken = 0;
    tp_status status = TP_OK;
    const cJSON *p;
    cJSON_ArrayForEach(p, list) {
        const double index = number_at(p, "index");
        if (index < 0.0 || index >= (double)g->point_count || index != floor(index) || points[(int64_t)index] != NULL) {
            status = err_set(err, TP_ERR_INVALID, "shard", "point %.0f is repeated or outside the grid", index);
            break;
        }
        points[(int64_t)index] = p;
        taken++;
    }
    if (status == TP_OK && taken != g->point_count)
        status = err_set(err, TP_ERR_INVALID, "shard", "the outputs hold %lld of the sweep's %lld points",
                         (long long)taken, (long long)g->point_count);
    cJSON *sorted = status == TP_OK ? cJSON_CreateArray() : NULL;
    for (int64_t i = 0; sorted != NULL && i < g->point_count; i++)
        cJSON_AddItemToArray(sorted, cJSON_DetachItemViaPointer(list, (cJSON *)points[i]));
    free(points);
    if (status != TP_OK)
        return status;
    cJSON *shard = cJSON_CreateObject();
    if (sorted == NULL || shard == NULL || !cJSON_AddNumberToObject(shard, "index", 0)
        || !cJSON_AddNumberToObject(shard, "count", 1) || !cJSON_ReplaceItemInObjectCaseSensitive(g->root, "points", sorted)) {
        cJSON_Delete(sorted);
        cJSON_Delete(shard);
        return err_set(err, TP_ERR_NOMEM, "", "out of memory");
    }
    if (!cJSON_ReplaceItemInObjectCaseSensitive(g->root, "shard", shard)) {
        cJSON_Delete(shard);
        return err_set(err, TP_ERR_NOMEM, "", "out of memory");
    }
    return json_exact_numbers(g->root, err);
}

static cJSON *merge_document(const char *const *outputs, int count, tp_error *err)
{
    if (count < 1 || count > MAX_SHARDS) {
        err_set(err, TP_ERR_INVALID, "shard", "merge takes 1 to %d shard outputs", MAX_SHARDS);
        return NULL;
    }
    merging g = {NULL, NULL, calloc((size_t)count, 1), 0};
    tp_status status = g.seen != NULL ? TP_OK : err_set(err, TP_ERR_NOMEM, "", "out of memory");
    for (int i = 0; status == TP_OK && i < count; i++)
        status = merge_shard(&g, outputs[i], i, count, err);
    if (status == TP_OK)
        status = finish_merge(&g, err);
    free(g.seen);
    free(g.identity);
    if (status != TP_OK) {
        cJSON_Delete(g.root);
        return NULL;
    }
    return g.root;
}

char *tp_sweep_merge_json(const char *const *outputs, int count, int pretty, tp_error *err)
{
    return json_print_document(merge_document(outputs, count, err), pretty, err);
}

char *tp_sweep_envelope_json(const char *json, int shard, int shards)
{
    tp_error err = {TP_OK, "", ""};
    cJSON *result = sweep_document(json, shard, shards, &err);
    return json_envelope(result, &err);
}

char *tp_sweep_merge_envelope_json(const char *const *outputs, int count)
{
    tp_error err = {TP_OK, "", ""};
    cJSON *result = merge_document(outputs, count, &err);
    return json_envelope(result, &err);
}
