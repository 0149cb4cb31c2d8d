/*
 * fields.h: every plain field of a config, described once.
 *
 * A row in trainplan.h (its section's TP_<SECTION>_FIELDS, just above the
 * struct) declares a field's struct member and names its JSON key, its
 * unit and scale, its default, its range and a line of documentation;
 * fields.c makes the table below from those rows. From that row come: the
 * member itself, the JSON reader's key lists and its reading
 * (config_json.c), the echoed config (config_json.c), the defaults
 * (tp_config_defaults), the range check every estimate and search runs
 * (validate.c), the reference tables of docs/config.md and the page's
 * defaults and bounds (both from `trainplan fields`).
 *
 * What a row cannot say stays hand-written beside it: presets and the
 * object forms of system.gpu and system.network (config_json.c), the
 * placement (parallel.order, parallel.per_node), AMSP's factors, and every
 * rule between fields (validate.c).
 */
#ifndef TP_FIELDS_H
#define TP_FIELDS_H

#include <stddef.h>

#include "tp_internal.h"

/* The JSON objects plain fields live in, and the struct each fills. */
typedef enum {
    SECTION_MODEL = 0,  /* "model", tp_model */
    SECTION_MOE,        /* "model.moe", tp_moe */
    SECTION_MLA,        /* "model.mla", tp_mla */
    SECTION_SYSTEM,     /* "system", tp_system */
    SECTION_GPU,        /* "system.gpu", tp_gpu */
    SECTION_NETWORK,    /* "system.network", tp_network */
    SECTION_TRAINING,   /* "training", tp_training */
    SECTION_PRECISION,  /* "training.precision", tp_training */
    SECTION_PARALLEL,   /* "parallel", tp_plan */
    SECTION_OVERHEADS,  /* "overheads", tp_overheads */
    SECTION_COUNT
} field_section;

typedef enum {
    FIELD_INT = 0, /* int64_t; the JSON number must be an integer */
    FIELD_NUMBER,  /* double; stored = JSON value x scale */
    FIELD_BOOL,    /* int, 0 or 1; JSON true or false */
    FIELD_ENUM,    /* an enum; JSON one of names */
    FIELD_NAME     /* char[size]; JSON printable text */
} field_type;

/* When the echoed config (config_json.c) writes a field. */
typedef enum {
    ECHO_ALWAYS = 0,
    ECHO_NONZERO,        /* only when not 0 (0 means "as derived") */
    ECHO_VIT,            /* model.patch_dim: arch vit only */
    ECHO_MOE,            /* parallel.ep: MoE models only */
    ECHO_SUMMA,          /* parallel.summa_panels: tp_algorithm summa only */
    ECHO_ZERO,           /* parallel.zero: sharding zero only */
    ECHO_HYBRID,         /* parallel.shard_group: fsdp_hybrid_shard, when set */
    ECHO_FP8,            /* training.precision.fp8_recipe: with fp8 only */
    ECHO_CP,             /* parallel.cp_overlap: cp > 1 only */
    ECHO_YARN,           /* training.unfused_yarn_rope: with model.yarn_rope only */
    ECHO_BY_HAND         /* written by config_json.c itself (parallel.etp) */
} field_echo;

/* The default of a field whose section comes from a preset (a row's
 * TP_FROM_PRESET). */
#define FIELD_FROM_PRESET TP_FROM_PRESET

typedef struct {
    field_section section;
    const char *key;        /* the JSON key, unit included: "memory_gib" */
    const char *old_key;    /* a former name still read (deprecated), or NULL */
    field_type type;
    size_t offset;          /* of the member in its section's struct */
    size_t size;            /* FIELD_NAME: the member's array size */
    const name_list *names; /* FIELD_ENUM */
    const char *unit;       /* the unit of the JSON value, "" for a count */
    double scale;           /* stored value = JSON value x scale */
    double min, max;        /* allowed JSON values, both included */
    double fallback;        /* default JSON value, or FIELD_FROM_PRESET */
    field_echo echo;
    int by_hand;            /* the section's reader reads it itself, before
                               the others (model.arch, model.attention) */
    const char *doc;
} field;

extern const field field_table[];
extern const int field_count;

const char *field_section_path(field_section section);  /* "system.gpu" */
/* The struct of section inside c (the training struct for its precision). */
void *field_section_struct(tp_config *c, field_section section);
const void *field_section_struct_const(const tp_config *c, field_section section);

/* The row of section.key (or its old key, *renamed set), or NULL. */
const field *field_find(field_section section, const char *key, int *renamed);
/* "system.gpu.memory_gib" */
void field_path(const field *f, char *out, size_t size);

/* A field's value in its JSON unit (enums and flags as their index). */
double field_get(const field *f, const void *section_struct);
/* Sets a field from a value in its JSON unit; a name is not set here. */
void field_set(const field *f, void *section_struct, double json_value);
/* The value to echo for a stored one: the JSON value that reads back to
 * exactly the stored double, wherever one exists. */
double field_echo_value(const field *f, const void *section_struct);

/* Whether a value in the field's JSON unit is in its range; else err names
 * the field, the value and the range in that unit. */
tp_status field_check_value(const field *f, double json_value, tp_error *err);
/* The same for the value a struct holds (a name: printable text). */
tp_status field_check(const field *f, const void *section_struct, tp_error *err);
/* Every row of every section of c checked, whether c uses it or not. */
tp_status fields_check(const tp_config *c, tp_error *err);

/* A limit or a value as messages and docs write it: plain digits below
 * 10^15 (1000000, not 1e+06), else the shortest %g. */
void field_format_amount(double v, char *out, size_t size);
/* "a number from 0 to 1000000 µs": the range as an error states it. */
void field_range_text(const field *f, char *out, size_t size);

/* The field a sweep axis sets (sweep.c). */
const field *sweep_axis_field(tp_sweep_axis axis);

#endif /* TP_FIELDS_H */
