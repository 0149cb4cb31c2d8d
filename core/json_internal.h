/*
 * json_internal.h: what the JSON files of the core share (config_json.c
 * reads configs and writes estimates; search_json.c reads the search section
 * and writes search results). The only header besides them that sees cJSON.
 */
#ifndef TP_JSON_INTERNAL_H
#define TP_JSON_INTERNAL_H

#include <cjson/cJSON.h>

#include "tp_internal.h"

/* ---- reading (config_json.c) ---- */
/* The document as cJSON, or NULL with err filled (too large, not JSON). */
cJSON *json_parse_document(const char *json, tp_error *err);
/* Object at path with no keys outside the NULL-terminated list. */
tp_status json_check_object(const cJSON *obj, const char *path, const char *const *keys,
                            tp_error *err);
/* Optional fields of obj, left as they are when absent; errors name
 * section.key. */
tp_status json_read_int(const cJSON *obj, const char *section, const char *key, int64_t *out,
                        tp_error *err);
tp_status json_read_scaled(const cJSON *obj, const char *section, const char *key, double scale,
                           double *out, tp_error *err);
tp_status json_read_bool(const cJSON *obj, const char *section, const char *key, int *out,
                         tp_error *err);
/* "\"a\", \"b\" or \"c\"": the names of a list, for an error message. */
void json_name_choices(const name_list *names, char *out, size_t size);
/* The config of a document (its "search" section checked, not used).
 * check_plan 0 skips the plan's rules, for the search, which ignores the
 * plan and builds its own. */
tp_status json_read_config(const cJSON *root, tp_config *config, int check_plan, tp_error *err);

/* ---- reading (search_json.c) ---- */
/* The "search" section over tp_search_defaults; NULL section: defaults. */
tp_status json_read_search(const cJSON *section, tp_search_space *space, tp_error *err);

/* ---- writing (config_json.c) ---- */
/* Adds to objects and remembers whether any allocation failed, so the
 * writers read straight through and check once at the end. */
typedef struct {
    int failed;
} json_writer;

cJSON *json_add_object(json_writer *w, cJSON *parent, const char *key); /* key NULL: array item */
/* An empty array under key; NULL (and w->failed set) when memory runs out
 * or parent is NULL. */
cJSON *json_add_array(json_writer *w, cJSON *parent, const char *key);
void json_add_number(json_writer *w, cJSON *obj, const char *key, double value);
void json_add_string(json_writer *w, cJSON *obj, const char *key, const char *value);
void json_add_bool(json_writer *w, cJSON *obj, const char *key, int value);
void json_add_pair(json_writer *w, cJSON *obj, const char *key, const int64_t pair[2]);
/* "amsp": {"weights": [intra, inter], "gradients": [...], "optimizer": [...]} */
void json_add_amsp(json_writer *w, cJSON *obj, const int64_t amsp[3][2]);
/* "per_node": {"tp": 4, "cp": 1, "dp": 1, "pp": 2}, indexed by tp_dim */
void json_add_per_node(json_writer *w, cJSON *obj, const int64_t per_node[4]);
/* "config": the resolved config in input form (config_json.c). */
void json_write_config(json_writer *w, cJSON *root, const tp_config *c);
/* A search space in the "search" section's form (search_json.c). */
void json_write_space(json_writer *w, cJSON *obj, const tp_search_space *s);
/* The output document of one estimate, as trainplan estimate prints it. */
void json_write_result(json_writer *w, cJSON *root, const tp_config *c, const tp_estimate_result *r);
/* A zeroed search result (large: on the heap) and an empty output object,
 * or TP_ERR_NOMEM with neither (search_json.c). */
tp_status json_new_search_output(tp_search_result **r, cJSON **root, tp_error *err);
/* Frees r; root when status is TP_OK and no write failed, else NULL with
 * err filled (root deleted). */
cJSON *json_finish_search_output(tp_search_result *r, cJSON *root, tp_status status,
                                 const json_writer *w, tp_error *err);
/* "fits", and when r found a plan its "plan", "step_s", throughput, memory
 * and time to train (search_json.c): one point of a scaling list or sweep. */
tp_status json_write_best(json_writer *w, cJSON *item, const tp_config *c, const tp_search_result *r,
                          tp_error *err);
/* Prints root (NULL when a write failed or memory runs out, err filled),
 * then deletes it. */
char *json_print_and_delete(cJSON *root, int pretty, json_writer *w, tp_error *err);

/* A finished output document printed and deleted; NULL root (its builder
 * failed and filled err) gives NULL. */
char *json_print_document(cJSON *root, int pretty, tp_error *err);
/* The envelope every JSON-either-way caller reads (the wasm binding):
 * {"ok":true,"result":result} when result is not NULL (it is taken over),
 * else {"ok":false,"error":{"status","path","message"}} from err. NULL only
 * when memory runs out. */
char *json_envelope(cJSON *result, const tp_error *err);

#endif /* TP_JSON_INTERNAL_H */
