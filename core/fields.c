/*
 * fields.c: the table of a config's plain fields, made from the rows that
 * trainplan.h's structs declare their members from (fields.h says who reads
 * it), and the operations every row shares: get and set in the JSON unit,
 * the range check, the defaults.
 *
 * Ranges. Every rate and capacity has a lower bound above 0 (TP_RATE_MIN)
 * as well as an upper one, so that no product or quotient of allowed values
 * leaves the doubles' range: the estimate's figures stay finite by
 * construction (validate.c still checks them). Integer counts stay within
 * 10^8, so their products (tp pp cp <= 10^16, micro_batch dp <= 10^13) fit
 * in 64 bits.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "units.h"

/* Row shapes, after the section and its struct that ALL_ROWS puts in
 * front of each row of trainplan.h: the member, the JSON key, then the
 * kind's own figures, then what the row adds (.doc always; .old_key,
 * .echo, .by_hand where they apply). Enum and flag ranges are their names. */
#define ROW_INT(sec, st, mem, k, u, lo, hi, def, ...)                                            \
    .section = sec, .key = k, .type = FIELD_INT, .offset = offsetof(st, mem), .unit = u,         \
    .scale = 1.0, .min = lo, .max = hi, .fallback = def, __VA_ARGS__
#define ROW_NUM(sec, st, mem, k, u, sc, lo, hi, def, ...)                                        \
    .section = sec, .key = k, .type = FIELD_NUMBER, .offset = offsetof(st, mem), .unit = u,      \
    .scale = sc, .min = lo, .max = hi, .fallback = def, __VA_ARGS__
#define ROW_NUM_NESTED ROW_NUM
#define ROW_FLAG(sec, st, mem, k, def, ...)                                                      \
    .section = sec, .key = k, .type = FIELD_BOOL, .offset = offsetof(st, mem), .unit = "",       \
    .scale = 1.0, .min = 0, .max = 1, .fallback = def, __VA_ARGS__
#define ROW_ENUM(sec, st, mem, k, enum_type, def, ...)                                           \
    .section = sec, .key = k, .type = FIELD_ENUM, .offset = offsetof(st, mem),                   \
    .names = &NAMES_OF_##enum_type, .unit = "", .scale = 1.0, .min = 0, .max = 0,                \
    .fallback = def, __VA_ARGS__
#define ROW_NAME(sec, st, mem, k, ...)                                                           \
    .section = sec, .key = k, .type = FIELD_NAME, .offset = offsetof(st, mem),                   \
    .size = sizeof(((st *)0)->mem), .unit = "", .scale = 1.0, .fallback = FIELD_FROM_PRESET,     \
    __VA_ARGS__

/* The JSON names of the values of each enum type a row names (names.c). */
#define NAMES_OF_tp_arch arch_names
#define NAMES_OF_tp_attention attention_names
#define NAMES_OF_tp_optimizer optimizer_names
#define NAMES_OF_tp_recompute recompute_names
#define NAMES_OF_tp_framework framework_names
#define NAMES_OF_tp_dtype dtype_names
#define NAMES_OF_tp_tp_algorithm tp_algorithm_names
#define NAMES_OF_tp_sharding sharding_names
#define NAMES_OF_tp_schedule schedule_names
#define NAMES_OF_tp_fp8_recipe fp8_recipe_names
#define NAMES_OF_tp_attention_kernel attention_kernel_names
#define NAMES_OF_tp_ep_dispatcher ep_dispatcher_names
#define NAMES_OF_tp_fp8_casts fp8_casts_names
#define NAMES_OF_tp_cuda_graphs cuda_graphs_names

/* field_get and field_set read and write an enum member as an int. */
_Static_assert(sizeof(tp_arch) == sizeof(int) && sizeof(tp_attention) == sizeof(int)
                   && sizeof(tp_optimizer) == sizeof(int) && sizeof(tp_recompute) == sizeof(int)
                   && sizeof(tp_dtype) == sizeof(int) && sizeof(tp_tp_algorithm) == sizeof(int)
                   && sizeof(tp_sharding) == sizeof(int) && sizeof(tp_schedule) == sizeof(int)
                   && sizeof(tp_framework) == sizeof(int) && sizeof(tp_fp8_recipe) == sizeof(int)
                   && sizeof(tp_attention_kernel) == sizeof(int) && sizeof(tp_ep_dispatcher) == sizeof(int)
                   && sizeof(tp_fp8_casts) == sizeof(int) && sizeof(tp_cuda_graphs) == sizeof(int),
               "enums are int-sized");

/* Every row of trainplan.h's lists in the table's order, the order of
 * docs/config.md and of `trainplan fields`: ALL_ROWS calls
 * EACH_ROW(section, struct, kind, member, key, ...) once a row, and
 * EACH_ROW is defined for each use below. */
#define MODEL_ROW(...) EACH_ROW(SECTION_MODEL, tp_model, __VA_ARGS__)
#define MOE_ROW(...) EACH_ROW(SECTION_MOE, tp_moe, __VA_ARGS__)
#define MLA_ROW(...) EACH_ROW(SECTION_MLA, tp_mla, __VA_ARGS__)
#define SYSTEM_ROW(...) EACH_ROW(SECTION_SYSTEM, tp_system, __VA_ARGS__)
#define GPU_ROW(...) EACH_ROW(SECTION_GPU, tp_gpu, __VA_ARGS__)
#define NETWORK_ROW(...) EACH_ROW(SECTION_NETWORK, tp_network, __VA_ARGS__)
#define TRAINING_ROW(...) EACH_ROW(SECTION_TRAINING, tp_training, __VA_ARGS__)
#define PRECISION_ROW(...) EACH_ROW(SECTION_PRECISION, tp_training, __VA_ARGS__)
#define PARALLEL_ROW(...) EACH_ROW(SECTION_PARALLEL, tp_plan, __VA_ARGS__)
#define OVERHEADS_ROW(...) EACH_ROW(SECTION_OVERHEADS, tp_overheads, __VA_ARGS__)
#define ALL_ROWS                                                                                 \
    TP_MODEL_FIELDS(MODEL_ROW) TP_MOE_FIELDS(MOE_ROW) TP_MLA_FIELDS(MLA_ROW)                     \
    TP_SYSTEM_FIELDS(SYSTEM_ROW) TP_GPU_FIELDS(GPU_ROW) TP_NETWORK_FIELDS(NETWORK_ROW)           \
    TP_TRAINING_FIELDS(TRAINING_ROW) TP_PRECISION_FIELDS(PRECISION_ROW)                          \
    TP_PARALLEL_FIELDS(PARALLEL_ROW) TP_OVERHEADS_FIELDS(OVERHEADS_ROW)

#define EACH_ROW(sec, st, kind, ...) {ROW_##kind(sec, st, __VA_ARGS__)},
const field field_table[] = {ALL_ROWS};
#undef EACH_ROW

const int field_count = (int)(sizeof field_table / sizeof field_table[0]);

static const struct {
    const char *path;
    size_t offset; /* of the section's struct in tp_config */
} sections[SECTION_COUNT] = {
    [SECTION_MODEL] = {"model", offsetof(tp_config, model)},
    [SECTION_MOE] = {"model.moe", offsetof(tp_config, model.moe)},
    [SECTION_MLA] = {"model.mla", offsetof(tp_config, model.mla)},
    [SECTION_SYSTEM] = {"system", offsetof(tp_config, system)},
    [SECTION_GPU] = {"system.gpu", offsetof(tp_config, system.gpu)},
    [SECTION_NETWORK] = {"system.network", offsetof(tp_config, system.network)},
    [SECTION_TRAINING] = {"training", offsetof(tp_config, training)},
    [SECTION_PRECISION] = {"training.precision", offsetof(tp_config, training)},
    [SECTION_PARALLEL] = {"parallel", offsetof(tp_config, plan)},
    [SECTION_OVERHEADS] = {"overheads", offsetof(tp_config, overheads)},
};

const char *field_section_path(field_section section)
{
    return (unsigned)section < SECTION_COUNT ? sections[section].path : "";
}

void *field_section_struct(tp_config *c, field_section section)
{
    return (char *)c + sections[section].offset;
}

const void *field_section_struct_const(const tp_config *c, field_section section)
{
    return (const char *)c + sections[section].offset;
}

const field *field_find(field_section section, const char *key, int *renamed)
{
    for (int i = 0; i < field_count; i++) {
        const field *f = &field_table[i];
        if (f->section != section)
            continue;
        if (strcmp(f->key, key) == 0) {
            *renamed = 0;
            return f;
        }
        if (f->old_key != NULL && strcmp(f->old_key, key) == 0) {
            *renamed = 1;
            return f;
        }
    }
    return NULL;
}

void field_path(const field *f, char *out, size_t size)
{
    snprintf(out, size, "%s.%s", field_section_path(f->section), f->key);
}

static double field_max(const field *f)
{
    return f->type == FIELD_ENUM ? (double)(f->names->count - 1) : f->max;
}

double field_get(const field *f, const void *section_struct)
{
    const char *at = (const char *)section_struct + f->offset;
    switch (f->type) {
    case FIELD_INT: return (double)*(const int64_t *)at;
    case FIELD_NUMBER: return *(const double *)at / f->scale;
    case FIELD_BOOL:
    case FIELD_ENUM: return (double)*(const int *)at;
    case FIELD_NAME: break;
    }
    return 0.0;
}

void field_set(const field *f, void *section_struct, double json_value)
{
    char *at = (char *)section_struct + f->offset;
    switch (f->type) {
    case FIELD_INT: *(int64_t *)at = (int64_t)json_value; break;
    case FIELD_NUMBER: *(double *)at = json_value * f->scale; break;
    case FIELD_BOOL:
    case FIELD_ENUM: *(int *)at = (int)json_value; break;
    case FIELD_NAME: break;
    }
}

double field_echo_value(const field *f, const void *section_struct)
{
    if (f->type != FIELD_NUMBER || f->scale == 1.0)
        return field_get(f, section_struct);
    /* stored / scale need not read back (x scale) to the same double; a
     * neighbour of it does wherever the stored value came from a JSON
     * number or a preset written in the JSON unit */
    const double stored = *(const double *)((const char *)section_struct + f->offset);
    const double guess = stored / f->scale;
    double up = guess, down = guess;
    for (int step = 0; step < 3; step++) {
        if (up * f->scale == stored)
            return up;
        if (down * f->scale == stored)
            return down;
        up = nextafter(up, INFINITY);
        down = nextafter(down, -INFINITY);
    }
    return guess;
}

void field_format_amount(double v, char *out, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(out, size, "%.0f", v);
    else
        snprintf(out, size, "%g", v);
}

void field_range_text(const field *f, char *out, size_t size)
{
    if (f->type == FIELD_BOOL) {
        snprintf(out, size, "true or false");
        return;
    }
    char lo[32], hi[32];
    field_format_amount(f->min, lo, sizeof lo);
    field_format_amount(field_max(f), hi, sizeof hi);
    snprintf(out, size, "%s from %s to %s%s%s", f->type == FIELD_INT ? "an integer" : "a number", lo, hi,
             f->unit[0] != '\0' ? " " : "", f->unit);
}

tp_status field_check_value(const field *f, double json_value, tp_error *err)
{
    if (json_value >= f->min && json_value <= field_max(f))
        return TP_OK;
    char path[64];
    field_path(f, path, sizeof path);
    if (f->type == FIELD_ENUM) {
        char list[192];
        snprintf(list, sizeof list, "%s", f->names->items[0]);
        for (int i = 1; i < f->names->count; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), ", %s", f->names->items[i]);
        return err_set(err, TP_ERR_INVALID, path, "must be one of %s", list);
    }
    char range[96], got[32];
    field_range_text(f, range, sizeof range);
    field_format_amount(json_value, got, sizeof got);
    return err_set(err, TP_ERR_INVALID, path, "must be %s, got %s", range, got);
}

tp_status field_check(const field *f, const void *section_struct, tp_error *err)
{
    if (f->type != FIELD_NAME)
        return field_check_value(f, field_get(f, section_struct), err);
    const char *text = (const char *)section_struct + f->offset;
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            char path[64];
            field_path(f, path, sizeof path);
            return err_set(err, TP_ERR_INVALID, path, "must be printable text (no control characters)");
        }
    }
    return TP_OK;
}

/* Where each section's struct sits in a config, for the check below. */
#define IN_SECTION_MODEL model
#define IN_SECTION_MOE model.moe
#define IN_SECTION_MLA model.mla
#define IN_SECTION_SYSTEM system
#define IN_SECTION_GPU system.gpu
#define IN_SECTION_NETWORK system.network
#define IN_SECTION_TRAINING training
#define IN_SECTION_PRECISION training
#define IN_SECTION_PARALLEL plan
#define IN_SECTION_OVERHEADS overheads

/* Each row as one comparison of the member with constant bounds: the
 * table's check compiled straight (a loop over the rows took three times
 * as long, and it runs on every estimate). */
#define CHECK_INT(sec, st, mem, k, u, lo, hi, def, ...) \
    in &= (c->IN_##sec.mem >= (int64_t)(lo)) & (c->IN_##sec.mem <= (int64_t)(hi));
#define CHECK_NUM(sec, st, mem, k, u, sc, lo, hi, def, ...) \
    in &= (c->IN_##sec.mem >= (lo) * (sc)) & (c->IN_##sec.mem <= (hi) * (sc));
#define CHECK_NUM_NESTED CHECK_NUM
#define CHECK_FLAG(sec, st, mem, k, def, ...) in &= (unsigned)c->IN_##sec.mem <= 1u;
#define CHECK_ENUM(sec, st, mem, k, enum_type, def, ...) \
    in &= (unsigned)c->IN_##sec.mem < (unsigned)NAMES_OF_##enum_type.count;
#define CHECK_NAME(...) /* printable by the time it is stored: the JSON reader checks it */
#define EACH_ROW(sec, st, kind, ...) CHECK_##kind(sec, st, __VA_ARGS__)

tp_status fields_check(const tp_config *c, tp_error *err)
{
    int in = 1;
    ALL_ROWS
    for (int i = 0; !in && i < field_count; i++) { /* the first that is out, to say why */
        const field *f = &field_table[i];
        if (f->type != FIELD_NAME)
            TRY(field_check(f, field_section_struct_const(c, f->section), err));
    }
    return TP_OK;
}

/* The rows' defaults into c (the rows whose section a preset fills keep
 * what c holds). */
static void fields_set_defaults(tp_config *c)
{
    for (int i = 0; i < field_count; i++) {
        const field *f = &field_table[i];
        if (f->fallback != FIELD_FROM_PRESET)
            field_set(f, field_section_struct(c, f->section), f->fallback);
    }
}

void tp_config_defaults(tp_config *c)
{
    memset(c, 0, sizeof *c);
    c->model = *tp_model_preset_find("llama-3.1-8b");
    c->system.gpu = *tp_gpu_preset_find("h100-80gb");
    c->system.network = tp_cluster_preset_find("dgx-h100")->network;
    fields_set_defaults(c);
    for (int i = 0; i < 3; i++)
        c->plan.amsp[i][0] = c->plan.amsp[i][1] = 1;
    memcpy(c->plan.order, plan_megatron_order, sizeof c->plan.order);
}
