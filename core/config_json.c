/*
 * config_json.c: the JSON face of the core, and the only file that includes
 * cJSON. It turns a config document into a tp_config and an estimate into the
 * output document; no modelling happens here.
 *
 * Input rules (documented in README.md, "Config"):
 *   - Every section and field is optional; what is left out takes the value
 *     of tp_config_defaults, except where a default would be a guess: a model
 *     without "preset" must give all of layers, hidden, heads, ffn_hidden and
 *     vocab; a GPU object without "preset" must give every rate.
 *   - Unknown keys are errors (a typo must not fall back to a default).
 *   - Human units live in the key: memory_gib, tensor_tflops, hbm_gbps,
 *     nvlink_gbps (GB/s), network_gbps (Gbit/s, as NICs are sold).
 * Every error names the JSON path of the field and the reason.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "json_internal.h"

#define TERA 1e12
#define GIGA 1e9
#define GBIT_BYTES (1e9 / 8.0)

/* ===================== reading ===================== */

static int is_key(const cJSON *item, const char *const *keys)
{
    for (; *keys != NULL; keys++)
        if (strcmp(item->string, *keys) == 0)
            return 1;
    return 0;
}

/* Object at path with no keys outside the allowed list. */
tp_status json_check_object(const cJSON *obj, const char *path, const char *const *keys,
                              tp_error *err)
{
    if (!cJSON_IsObject(obj))
        return err_set(err, TP_ERR_PARSE, path, "must be an object");
    const cJSON *item;
    cJSON_ArrayForEach(item, obj) {
        if (!is_key(item, keys)) {
            char full[64];
            snprintf(full, sizeof full, "%s%s%s", path, *path ? "." : "", item->string);
            return err_set(err, TP_ERR_PARSE, full, "unknown field");
        }
    }
    return TP_OK;
}

static void join_path(char *out, size_t size, const char *section, const char *key)
{
    snprintf(out, size, "%s.%s", section, key);
}

/* The item at section.key, or NULL when the field is left out; fills path
 * (64 bytes) with the field's JSON path for error messages. */
static const cJSON *field(const cJSON *obj, const char *section, const char *key, char *path)
{
    join_path(path, 64, section, key);
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Optional integer field: left as is when absent. Accepts only numbers with
 * an integral value that int64 can hold; bounds are plan.c's job. */
tp_status json_read_int(const cJSON *obj, const char *section, const char *key,
                          int64_t *out, tp_error *err)
{
    char path[64];
    const cJSON *item = field(obj, section, key, path);
    if (item == NULL)
        return TP_OK;
    if (!cJSON_IsNumber(item))
        return err_set(err, TP_ERR_INVALID, path, "must be an integer");
    const double v = item->valuedouble;
    if (!isfinite(v) || v != floor(v) || fabs(v) > 9.0e15)
        return err_set(err, TP_ERR_INVALID, path, "must be an integer, got %g", v);
    *out = (int64_t)v;
    return TP_OK;
}

/* Optional number in human units; stored times scale. */
tp_status json_read_scaled(const cJSON *obj, const char *section, const char *key,
                             double scale, double *out, tp_error *err)
{
    char path[64];
    const cJSON *item = field(obj, section, key, path);
    if (item == NULL)
        return TP_OK;
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble))
        return err_set(err, TP_ERR_INVALID, path, "must be a number");
    *out = item->valuedouble * scale;
    return TP_OK;
}

/* Optional duration in microseconds, stored in seconds. Divided, not
 * multiplied by 1e-6, so that an echoed 2.5 reads back as exactly 2.5e-6. */
static tp_status read_microseconds(const cJSON *obj, const char *section, const char *key,
                                   double *out_s, tp_error *err)
{
    if (cJSON_GetObjectItemCaseSensitive(obj, key) == NULL)
        return TP_OK;
    double us = 0.0;
    TRY(json_read_scaled(obj, section, key, 1.0, &us, err));
    *out_s = us / 1e6;
    return TP_OK;
}

tp_status json_read_bool(const cJSON *obj, const char *section, const char *key, int *out,
                           tp_error *err)
{
    char path[64];
    const cJSON *item = field(obj, section, key, path);
    if (item == NULL)
        return TP_OK;
    if (!cJSON_IsBool(item))
        return err_set(err, TP_ERR_INVALID, path, "must be true or false");
    *out = cJSON_IsTrue(item) ? 1 : 0;
    return TP_OK;
}

static tp_status read_name(const cJSON *obj, const char *section, const char *key, char *out,
                           size_t size, tp_error *err)
{
    char path[64];
    const cJSON *item = field(obj, section, key, path);
    if (item == NULL)
        return TP_OK;
    if (!cJSON_IsString(item))
        return err_set(err, TP_ERR_INVALID, path, "must be a string");
    if (strlen(item->valuestring) >= size)
        return err_set(err, TP_ERR_INVALID, path, "is longer than %zu characters", size - 1);
    snprintf(out, size, "%s", item->valuestring);
    return TP_OK;
}

/* Optional string field naming one value of a list (names.c). */
static tp_status read_enum(const cJSON *obj, const char *section, const char *key,
                           const name_list *names, int *out, tp_error *err)
{
    const int count = names->count;
    char path[64];
    const cJSON *item = field(obj, section, key, path);
    if (item == NULL)
        return TP_OK;
    for (int i = 0; cJSON_IsString(item) && i < count; i++) {
        if (strcmp(item->valuestring, names->items[i]) == 0) {
            *out = i;
            return TP_OK;
        }
    }
    char list[160];
    json_name_choices(names, list, sizeof list);
    return err_set(err, TP_ERR_INVALID, path, "must be %s", list);
}

void json_name_choices(const name_list *names, char *out, size_t size)
{
    out[0] = '\0';
    for (int i = 0; i < names->count; i++) {
        const size_t used = strlen(out);
        snprintf(out + used, size - used, "%s\"%s\"", i == 0 ? "" : i == names->count - 1 ? " or " : ", ",
                 names->items[i]);
    }
}

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* read_enum into a field of enum type: names.items[i] is the enum's value i. */
#define READ_ENUM(obj, section, key, names, type, field)                            \
    do {                                                                            \
        int value_ = (int)(field);                                                  \
        TRY(read_enum(obj, section, key, &(names), &value_, err));                  \
        (field) = (type)value_;                                                     \
    } while (0)

/* Every key in the NULL-terminated list must be present: used where a
 * default would be a guess (a custom model or GPU). */
static tp_status require_fields(const cJSON *obj, const char *section, const char *const *keys,
                                const char *preset_path, tp_error *err)
{
    for (; *keys != NULL; keys++) {
        char path[64];
        if (field(obj, section, *keys, path) == NULL)
            return err_set(err, TP_ERR_INVALID, path, "is required when %s is not given", preset_path);
    }
    return TP_OK;
}

/* model.moe over the preset's (or a dense model's zeros): a model that
 * was dense must say how many experts, how many per token and how wide. */
static tp_status read_moe(const cJSON *obj, tp_moe *x, tp_error *err)
{
    static const char *const keys[] = {"experts", "experts_per_token", "expert_ffn_hidden",
                                       "shared_experts", "shared_ffn_hidden", "every",
                                       "first_dense", NULL};
    TRY(json_check_object(obj, "model.moe", keys, err));
    const cJSON *experts = cJSON_GetObjectItemCaseSensitive(obj, "experts");
    if (cJSON_IsNumber(experts) && experts->valuedouble == 0.0) {
        /* {"experts": 0} makes a MoE preset dense; nothing else applies */
        if (cJSON_GetArraySize(obj) > 1)
            return err_set(err, TP_ERR_INVALID, "model.moe.experts",
                           "0 makes the model dense: leave out the other model.moe fields");
        memset(x, 0, sizeof *x);
        return TP_OK;
    }
    if (x->experts == 0) {
        static const char *const required[] = {"experts", "experts_per_token", "expert_ffn_hidden", NULL};
        TRY(require_fields(obj, "model.moe", required, "model.preset", err));
        x->every = 1;
    }
    const int64_t shared_width = x->shared_ffn_hidden;
    TRY(json_read_int(obj, "model.moe", "experts", &x->experts, err));
    TRY(json_read_int(obj, "model.moe", "experts_per_token", &x->experts_per_token, err));
    TRY(json_read_int(obj, "model.moe", "expert_ffn_hidden", &x->expert_ffn_hidden, err));
    TRY(json_read_int(obj, "model.moe", "shared_experts", &x->shared_experts, err));
    TRY(json_read_int(obj, "model.moe", "shared_ffn_hidden", &x->shared_ffn_hidden, err));
    TRY(json_read_int(obj, "model.moe", "every", &x->every, err));
    TRY(json_read_int(obj, "model.moe", "first_dense", &x->first_dense, err));
    /* shared experts are as wide as routed ones unless told (DeepSeek) */
    if (x->shared_experts > 0 && shared_width == 0
        && cJSON_GetObjectItemCaseSensitive(obj, "shared_ffn_hidden") == NULL)
        x->shared_ffn_hidden = x->expert_ffn_hidden;
    return TP_OK;
}

/* model.mla over the preset's (or zeros): a model that had no latent
 * attention must give its ranks and head sizes; q_lora_rank may stay 0
 * (queries projected directly, DeepSeek-V2-Lite). */
static tp_status read_mla(const cJSON *obj, tp_mla *x, tp_error *err)
{
    static const char *const keys[] = {"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim",
                                       "qk_rope_head_dim", "v_head_dim", NULL};
    TRY(json_check_object(obj, "model.mla", keys, err));
    if (x->kv_lora_rank == 0) {
        static const char *const required[] = {"kv_lora_rank", "qk_nope_head_dim",
                                               "qk_rope_head_dim", "v_head_dim", NULL};
        TRY(require_fields(obj, "model.mla", required, "model.preset", err));
    }
    TRY(json_read_int(obj, "model.mla", "q_lora_rank", &x->q_lora_rank, err));
    TRY(json_read_int(obj, "model.mla", "kv_lora_rank", &x->kv_lora_rank, err));
    TRY(json_read_int(obj, "model.mla", "qk_nope_head_dim", &x->qk_nope_head_dim, err));
    TRY(json_read_int(obj, "model.mla", "qk_rope_head_dim", &x->qk_rope_head_dim, err));
    TRY(json_read_int(obj, "model.mla", "v_head_dim", &x->v_head_dim, err));
    return TP_OK;
}

static tp_status read_model(const cJSON *obj, tp_model *m, tp_error *err)
{
    static const char *const keys[] = {"preset", "name", "arch", "layers", "hidden", "heads",
                                       "kv_heads", "ffn_hidden", "vocab", "positions",
                                       "tied_embeddings", "dropout", "moe", "attention", "mla",
                                       "head_dim", "patch_dim", NULL};
    TRY(json_check_object(obj, "model", keys, err));
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(obj, "preset");
    if (preset != NULL) {
        const tp_model *found = cJSON_IsString(preset) ? tp_model_preset_find(preset->valuestring) : NULL;
        if (found == NULL)
            return err_set(err, TP_ERR_INVALID, "model.preset",
                           "unknown model preset (see `trainplan presets`)");
        *m = *found;
    } else {
        /* A custom model: the sizes that define it cannot be defaulted (a
         * vit reads patches of patch_dim values where the others have a
         * vocabulary) */
        const cJSON *arch = cJSON_GetObjectItemCaseSensitive(obj, "arch");
        const int vit = cJSON_IsString(arch) && strcmp(arch->valuestring, "vit") == 0;
        const char *const required[] = {"layers", "hidden", "heads", "ffn_hidden",
                                        vit ? "patch_dim" : "vocab", NULL};
        TRY(require_fields(obj, "model", required, "model.preset", err));
        memset(m, 0, sizeof *m);
        snprintf(m->name, sizeof m->name, "custom");
        m->arch = TP_ARCH_LLAMA;
    }
    const tp_arch before = m->arch;
    READ_ENUM(obj, "model", "arch", arch_names, tp_arch, m->arch);
    if (m->arch != before) {
        /* a change of architecture brings that architecture's defaults:
         * GPT ties its embeddings and uses dropout (seed 004), Llama
         * neither; a ViT has GPT's dropout (seed 002 §III) and no
         * vocabulary to tie */
        m->tied_embeddings = m->arch == TP_ARCH_GPT;
        m->dropout = m->arch != TP_ARCH_LLAMA;
        m->positions = 0;
        if (m->arch == TP_ARCH_VIT)
            m->vocab = 0;
        else
            m->patch_dim = 0;
    }
    TRY(read_name(obj, "model", "name", m->name, sizeof m->name, err));
    TRY(json_read_int(obj, "model", "layers", &m->layers, err));
    TRY(json_read_int(obj, "model", "hidden", &m->hidden, err));
    TRY(json_read_int(obj, "model", "heads", &m->heads, err));
    TRY(json_read_int(obj, "model", "kv_heads", &m->kv_heads, err));
    TRY(json_read_int(obj, "model", "head_dim", &m->head_dim, err));
    TRY(json_read_int(obj, "model", "ffn_hidden", &m->ffn_hidden, err));
    TRY(json_read_int(obj, "model", "vocab", &m->vocab, err));
    TRY(json_read_int(obj, "model", "positions", &m->positions, err));
    TRY(json_read_int(obj, "model", "patch_dim", &m->patch_dim, err));
    TRY(json_read_bool(obj, "model", "tied_embeddings", &m->tied_embeddings, err));
    TRY(json_read_bool(obj, "model", "dropout", &m->dropout, err));
    if (m->arch == TP_ARCH_GPT && m->positions == 0)
        return err_set(err, TP_ERR_INVALID, "model.positions",
                       "is required for gpt: the rows of its learned position embedding");
    if (preset == NULL && cJSON_GetObjectItemCaseSensitive(obj, "kv_heads") == NULL)
        m->kv_heads = m->heads; /* a custom model is multi-head unless told otherwise */
    const tp_attention attention = m->attention;
    READ_ENUM(obj, "model", "attention", attention_names, tp_attention, m->attention);
    const cJSON *mla = cJSON_GetObjectItemCaseSensitive(obj, "mla");
    if (m->attention != attention) {
        /* latent attention has a key and value per head; leaving it drops
         * the preset's latents */
        memset(&m->mla, 0, sizeof m->mla);
        if (m->attention == TP_ATTENTION_MLA && cJSON_GetObjectItemCaseSensitive(obj, "kv_heads") == NULL)
            m->kv_heads = m->heads;
        if (m->attention == TP_ATTENTION_MLA && cJSON_GetObjectItemCaseSensitive(obj, "head_dim") == NULL)
            m->head_dim = 0; /* MLA sizes its heads in model.mla */
    }
    if (mla != NULL) {
        if (m->attention != TP_ATTENTION_MLA)
            return err_set(err, TP_ERR_INVALID, "model.mla", "is read only with model.attention \"mla\"");
        TRY(read_mla(mla, &m->mla, err));
    } else if (m->attention == TP_ATTENTION_MLA && m->mla.kv_lora_rank == 0) {
        return err_set(err, TP_ERR_INVALID, "model.mla",
                       "is required with model.attention \"mla\": its ranks and head sizes");
    }
    const cJSON *moe = cJSON_GetObjectItemCaseSensitive(obj, "moe");
    if (moe != NULL)
        TRY(read_moe(moe, &m->moe, err));
    return TP_OK;
}

/* A preset named by a string item; path names it in the error. */
static tp_status find_gpu(const cJSON *item, const char *path, const tp_gpu **out, tp_error *err)
{
    *out = cJSON_IsString(item) ? tp_gpu_preset_find(item->valuestring) : NULL;
    if (*out == NULL)
        return err_set(err, TP_ERR_INVALID, path, "unknown GPU preset (see `trainplan presets`)");
    return TP_OK;
}

static tp_status find_cluster(const cJSON *item, const char *path, const tp_cluster **out,
                              tp_error *err)
{
    *out = cJSON_IsString(item) ? tp_cluster_preset_find(item->valuestring) : NULL;
    if (*out == NULL)
        return err_set(err, TP_ERR_INVALID, path, "unknown cluster preset (see `trainplan presets`)");
    return TP_OK;
}

static tp_status read_gpu(const cJSON *item, tp_gpu *gpu, tp_error *err)
{
    const tp_gpu *found;
    if (cJSON_IsString(item)) {
        TRY(find_gpu(item, "system.gpu", &found, err));
        *gpu = *found;
        return TP_OK;
    }
    static const char *const keys[] = {"preset", "name", "memory_gib", "tensor_tflops", "hbm_gbps",
                                       "nvlink_gbps", "network_gbps", "vector_tflops",
                                       "matmul_efficiency", "attention_efficiency",
                                       "kernel_latency_us", "overlap_slowdown",
                                       "nvlink_overlap_slowdown", "compute_spread", NULL};
    static const char *const required[] = {"memory_gib", "tensor_tflops", "hbm_gbps",
                                           "nvlink_gbps", "network_gbps", NULL};
    TRY(json_check_object(item, "system.gpu", keys, err));
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(item, "preset");
    if (preset != NULL) {
        TRY(find_gpu(preset, "system.gpu.preset", &found, err));
        *gpu = *found;
    } else {
        TRY(require_fields(item, "system.gpu", required, "system.gpu.preset", err));
        /* performance figures a data sheet may not give: the H100's
         * (README "Config"), echoed in the output like every input */
        *gpu = *tp_gpu_preset_find("h100-80gb");
        snprintf(gpu->name, sizeof gpu->name, "custom");
    }
    TRY(read_name(item, "system.gpu", "name", gpu->name, sizeof gpu->name, err));
    TRY(json_read_scaled(item, "system.gpu", "memory_gib", TP_GIB, &gpu->memory_bytes, err));
    TRY(json_read_scaled(item, "system.gpu", "tensor_tflops", TERA, &gpu->tensor_flop_per_s, err));
    TRY(json_read_scaled(item, "system.gpu", "hbm_gbps", GIGA, &gpu->hbm_bytes_per_s, err));
    TRY(json_read_scaled(item, "system.gpu", "nvlink_gbps", GIGA, &gpu->nvlink_bytes_per_s, err));
    TRY(json_read_scaled(item, "system.gpu", "network_gbps", GBIT_BYTES, &gpu->network_bytes_per_s, err));
    const int custom_vector = cJSON_GetObjectItemCaseSensitive(item, "vector_tflops") != NULL;
    if (preset == NULL && !custom_vector) /* the H100's ratio of vector to tensor peak */
        gpu->vector_flop_per_s = gpu->tensor_flop_per_s * (133.8 / 989.4);
    TRY(json_read_scaled(item, "system.gpu", "vector_tflops", TERA, &gpu->vector_flop_per_s, err));
    TRY(json_read_scaled(item, "system.gpu", "matmul_efficiency", 1.0, &gpu->matmul_efficiency, err));
    TRY(json_read_scaled(item, "system.gpu", "attention_efficiency", 1.0, &gpu->attention_efficiency, err));
    TRY(read_microseconds(item, "system.gpu", "kernel_latency_us", &gpu->kernel_latency_s, err));
    TRY(json_read_scaled(item, "system.gpu", "overlap_slowdown", 1.0, &gpu->overlap_slowdown, err));
    TRY(json_read_scaled(item, "system.gpu", "nvlink_overlap_slowdown", 1.0, &gpu->nvlink_overlap_slowdown, err));
    TRY(json_read_scaled(item, "system.gpu", "compute_spread", 1.0, &gpu->compute_spread, err));
    return TP_OK;
}

/* The network: a cluster preset name, or an object of the two tiers, each
 * field optional over the network in effect (a "preset" first if given). */
static tp_status read_network(const cJSON *item, tp_network *n, tp_error *err)
{
    const tp_cluster *found;
    if (cJSON_IsString(item)) {
        TRY(find_cluster(item, "system.network", &found, err));
        *n = found->network;
        return TP_OK;
    }
    static const char *const keys[] = {"preset", "name", "fast_gbps", "fast_latency_us",
                                       "fast_efficiency", "slow_gbps", "slow_latency_us",
                                       "slow_efficiency", "nics_per_node", NULL};
    TRY(json_check_object(item, "system.network", keys, err));
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(item, "preset");
    if (preset != NULL) {
        TRY(find_cluster(preset, "system.network.preset", &found, err));
        *n = found->network;
    } else {
        snprintf(n->name, sizeof n->name, "custom");
    }
    TRY(read_name(item, "system.network", "name", n->name, sizeof n->name, err));
    TRY(json_read_scaled(item, "system.network", "fast_gbps", GIGA, &n->fast.bytes_per_s, err));
    TRY(read_microseconds(item, "system.network", "fast_latency_us", &n->fast.latency_s, err));
    TRY(json_read_scaled(item, "system.network", "fast_efficiency", 1.0, &n->fast.efficiency, err));
    TRY(json_read_scaled(item, "system.network", "slow_gbps", GBIT_BYTES, &n->slow.bytes_per_s, err));
    TRY(read_microseconds(item, "system.network", "slow_latency_us", &n->slow.latency_s, err));
    TRY(json_read_scaled(item, "system.network", "slow_efficiency", 1.0, &n->slow.efficiency, err));
    TRY(json_read_int(item, "system.network", "nics_per_node", &n->nics_per_node, err));
    return TP_OK;
}

static tp_status read_system(const cJSON *obj, tp_system *s, tp_error *err)
{
    static const char *const keys[] = {"cluster", "gpu", "gpus", "gpus_per_node", "network",
                                       "loader_gbps", "step_overhead_s", NULL};
    TRY(json_check_object(obj, "system", keys, err));
    /* A cluster names GPU, node size and network at once; the other fields
     * override it. Without a cluster or a network, the network follows the
     * GPU (tp_network_for_gpu). */
    const cJSON *cluster = cJSON_GetObjectItemCaseSensitive(obj, "cluster");
    if (cluster != NULL) {
        const tp_cluster *found;
        TRY(find_cluster(cluster, "system.cluster", &found, err));
        tp_system_use_cluster(s, found);
    }
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(obj, "gpu");
    if (gpu != NULL)
        TRY(read_gpu(gpu, &s->gpu, err));
    TRY(json_read_int(obj, "system", "gpus", &s->gpus, err));
    TRY(json_read_int(obj, "system", "gpus_per_node", &s->gpus_per_node, err));
    if (cluster == NULL)
        s->network = tp_network_for_gpu(&s->gpu, s->gpus_per_node);
    const cJSON *network = cJSON_GetObjectItemCaseSensitive(obj, "network");
    if (network != NULL)
        TRY(read_network(network, &s->network, err));
    TRY(json_read_scaled(obj, "system", "loader_gbps", GIGA, &s->loader_bytes_per_s, err));
    TRY(json_read_scaled(obj, "system", "step_overhead_s", 1.0, &s->step_overhead_s, err));
    return TP_OK;
}

static tp_status read_training(const cJSON *obj, tp_training *t, tp_error *err)
{
    static const char *const keys[] = {"seq_len", "global_batch", "micro_batch", "precision",
                                       "optimizer", "recompute", "recompute_layers",
                                       "flash_attention", "dataloader_mask", "capacity_factor", "train_tokens",
                                       "gpu_hour_cost", NULL};
    static const char *const precision_keys[] = {"weights", "gradients", "optimizer",
                                                 "master_weights", "fp8", NULL};
    TRY(json_check_object(obj, "training", keys, err));
    TRY(json_read_int(obj, "training", "seq_len", &t->seq_len, err));
    TRY(json_read_int(obj, "training", "global_batch", &t->global_batch, err));
    TRY(json_read_int(obj, "training", "micro_batch", &t->micro_batch, err));
    READ_ENUM(obj, "training", "optimizer", optimizer_names, tp_optimizer, t->optimizer);
    READ_ENUM(obj, "training", "recompute", recompute_names, tp_recompute, t->recompute);
    TRY(json_read_int(obj, "training", "recompute_layers", &t->recompute_layers, err));
    TRY(json_read_bool(obj, "training", "flash_attention", &t->flash_attention, err));
    TRY(json_read_bool(obj, "training", "dataloader_mask", &t->dataloader_mask, err));
    TRY(json_read_scaled(obj, "training", "capacity_factor", 1.0, &t->capacity_factor, err));
    TRY(json_read_scaled(obj, "training", "train_tokens", 1.0, &t->train_tokens, err));
    TRY(json_read_scaled(obj, "training", "gpu_hour_cost", 1.0, &t->gpu_hour_cost, err));
    const cJSON *precision = cJSON_GetObjectItemCaseSensitive(obj, "precision");
    if (precision != NULL) {
        TRY(json_check_object(precision, "training.precision", precision_keys, err));
        READ_ENUM(precision, "training.precision", "weights", dtype_names, tp_dtype, t->weights_dtype);
        READ_ENUM(precision, "training.precision", "gradients", dtype_names, tp_dtype, t->gradients_dtype);
        READ_ENUM(precision, "training.precision", "optimizer", dtype_names, tp_dtype, t->optimizer_dtype);
        TRY(json_read_bool(precision, "training.precision", "master_weights", &t->master_weights, err));
        TRY(json_read_bool(precision, "training.precision", "fp8", &t->fp8, err));
    }
    return TP_OK;
}

/* AMSP factors: {"weights": [intra, inter], "gradients": [...], "optimizer": [...]},
 * each pair optional (default [1, 1]: replicated). */
static tp_status read_amsp(const cJSON *obj, tp_plan *p, tp_error *err)
{
    static const char *const keys[] = {"weights", "gradients", "optimizer", NULL};
    TRY(json_check_object(obj, "parallel.amsp", keys, err));
    for (int state = 0; state < 3; state++) {
        char path[64];
        const cJSON *pair = field(obj, "parallel.amsp", keys[state], path);
        if (pair == NULL)
            continue;
        if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2)
            return err_set(err, TP_ERR_INVALID, path,
                           "must be [intra_node, inter_node], two integers");
        for (int axis = 0; axis < 2; axis++) {
            const cJSON *f = cJSON_GetArrayItem(pair, axis);
            const double v = cJSON_IsNumber(f) ? f->valuedouble : 0.0;
            if (!cJSON_IsNumber(f) || !isfinite(v) || v != floor(v) || v < 1.0 || v > 1e9)
                return err_set(err, TP_ERR_INVALID, path,
                               "item %d must be a positive integer", axis);
            p->amsp[state][axis] = (int64_t)v;
        }
    }
    return TP_OK;
}

/* "tp-cp-dp-pp": the four dimensions, innermost first, each once. */
static tp_status read_order(const cJSON *item, tp_plan *p, tp_error *err)
{
    const char *text = cJSON_IsString(item) ? item->valuestring : NULL;
    if (text == NULL || strlen(text) != 11)
        return err_set(err, TP_ERR_INVALID, "parallel.order",
                       "must be the four dimensions innermost first, e.g. \"tp-cp-dp-pp\"");
    int seen = 0;
    for (int i = 0; i < 4; i++) {
        const char *part = text + 3 * i;
        int found = -1;
        for (int d = 0; d < 4; d++)
            if (strncmp(part, dim_names.items[d], 2) == 0)
                found = d;
        if (found < 0 || (seen & (1 << found)) || (i < 3 && part[2] != '-'))
            return err_set(err, TP_ERR_INVALID, "parallel.order",
                           "must name tp, cp, dp and pp once each, joined by '-', got \"%.16s\"", text);
        seen |= 1 << found;
        p->order[i] = (tp_dim)found;
    }
    return TP_OK;
}

/* {"tp": 4, "pp": 2}: ranks per node of each dimension's groups; a
 * dimension left out keeps one rank per node. */
static tp_status read_per_node(const cJSON *item, tp_plan *p, tp_error *err)
{
    static const char *const keys[] = {"tp", "cp", "dp", "pp", NULL};
    if (!cJSON_IsObject(item))
        return err_set(err, TP_ERR_INVALID, "parallel.per_node",
                       "must be an object of ranks per node, e.g. {\"tp\": 4, \"pp\": 2}");
    TRY(json_check_object(item, "parallel.per_node", keys, err));
    for (int d = 0; d < 4; d++) {
        p->per_node[d] = 1;
        TRY(json_read_int(item, "parallel.per_node", keys[d], &p->per_node[d], err));
    }
    return TP_OK;
}

/* dp may be given as a check; it must agree with gpus/(tp*pp*cp). Fields of
 * one sharding scheme are errors with another, so a config says one thing. */
static tp_status read_parallel(const cJSON *obj, tp_plan *p, int64_t *dp, tp_error *err)
{
    static const char *const keys[] = {"tp", "pp", "cp", "dp", "sp", "zero", "sharding",
                                       "shard_group", "amsp", "schedule", "virtual_stages",
                                       "order", "per_node", "ep", "etp", "tp_algorithm", "summa_panels",
                                       NULL};
    TRY(json_check_object(obj, "parallel", keys, err));
    const cJSON *order = cJSON_GetObjectItemCaseSensitive(obj, "order");
    const cJSON *per_node = cJSON_GetObjectItemCaseSensitive(obj, "per_node");
    if (order != NULL && per_node != NULL)
        return err_set(err, TP_ERR_INVALID, "parallel.per_node",
                       "conflicts with parallel.order: give one placement, an order or ranks per node");
    if (order != NULL)
        TRY(read_order(order, p, err));
    if (per_node != NULL)
        TRY(read_per_node(per_node, p, err));
    READ_ENUM(obj, "parallel", "sharding", sharding_names, tp_sharding, p->sharding);
    READ_ENUM(obj, "parallel", "schedule", schedule_names, tp_schedule, p->schedule);
    READ_ENUM(obj, "parallel", "tp_algorithm", tp_algorithm_names, tp_tp_algorithm, p->tp_algorithm);
    TRY(json_read_int(obj, "parallel", "summa_panels", &p->summa_panels, err));
    static const struct { const char *key; tp_sharding only; const char *name; } scoped[] = {
        {"zero", TP_SHARD_ZERO, "zero"},
        {"shard_group", TP_SHARD_FSDP_HYBRID, "fsdp_hybrid_shard"},
        {"amsp", TP_SHARD_AMSP, "amsp"},
    };
    for (int i = 0; i < COUNT(scoped); i++) {
        if (cJSON_GetObjectItemCaseSensitive(obj, scoped[i].key) != NULL && p->sharding != scoped[i].only) {
            char path[64];
            join_path(path, sizeof path, "parallel", scoped[i].key);
            return err_set(err, TP_ERR_INVALID, path,
                           "applies only with parallel.sharding \"%s\"", scoped[i].name);
        }
    }
    const cJSON *amsp = cJSON_GetObjectItemCaseSensitive(obj, "amsp");
    if (amsp != NULL)
        TRY(read_amsp(amsp, p, err));
    TRY(json_read_int(obj, "parallel", "shard_group", &p->shard_group, err));
    TRY(json_read_int(obj, "parallel", "virtual_stages", &p->virtual_stages, err));
    TRY(json_read_int(obj, "parallel", "tp", &p->tp, err));
    TRY(json_read_int(obj, "parallel", "pp", &p->pp, err));
    TRY(json_read_int(obj, "parallel", "cp", &p->cp, err));
    TRY(json_read_int(obj, "parallel", "ep", &p->ep, err));
    TRY(json_read_int(obj, "parallel", "etp", &p->etp, err));
    TRY(json_read_int(obj, "parallel", "dp", dp, err));
    TRY(json_read_bool(obj, "parallel", "sp", &p->sp, err));
    TRY(json_read_int(obj, "parallel", "zero", &p->zero, err));
    return TP_OK;
}

/* Overheads in human units: GiB for the fixed buffers. */
static tp_status read_overheads(const cJSON *obj, tp_overheads *o, tp_error *err)
{
    static const char *const keys[] = {"cuda_context_gib", "nccl_gib_per_group",
                                       "loss_bytes_per_logit", "backward_layers",
                                       "fragmentation", "bucket_params", "prefetch_layers", NULL};
    TRY(json_check_object(obj, "overheads", keys, err));
    TRY(json_read_scaled(obj, "overheads", "cuda_context_gib", TP_GIB, &o->cuda_context_bytes, err));
    TRY(json_read_scaled(obj, "overheads", "nccl_gib_per_group", TP_GIB, &o->nccl_bytes_per_group, err));
    TRY(json_read_scaled(obj, "overheads", "loss_bytes_per_logit", 1.0, &o->loss_bytes_per_logit, err));
    TRY(json_read_scaled(obj, "overheads", "backward_layers", 1.0, &o->backward_layers, err));
    TRY(json_read_scaled(obj, "overheads", "fragmentation", 1.0, &o->fragmentation_fraction, err));
    TRY(json_read_scaled(obj, "overheads", "bucket_params", 1.0, &o->bucket_params, err));
    TRY(json_read_int(obj, "overheads", "prefetch_layers", &o->prefetch_layers, err));
    return TP_OK;
}

tp_status json_read_config(const cJSON *root, tp_config *config, int check_plan, tp_error *err)
{
    /* "search" and "sweep" belong to their commands, which read them; one
     * document serves estimate, search and sweep */
    static const char *const keys[] = {"model", "system", "training", "parallel", "overheads",
                                       "search", "sweep", NULL};
    TRY(json_check_object(root, "", keys, err));
    tp_config_defaults(config);
    const cJSON *section;
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "model")) != NULL)
        TRY(read_model(section, &config->model, err));
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "system")) != NULL)
        TRY(read_system(section, &config->system, err));
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "training")) != NULL)
        TRY(read_training(section, &config->training, err));
    int64_t dp = 0;
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "parallel")) != NULL)
        TRY(read_parallel(section, &config->plan, &dp, err));
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "overheads")) != NULL)
        TRY(read_overheads(section, &config->overheads, err));
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "search")) != NULL) {
        tp_search_space space;
        TRY(json_read_search(section, &space, err));
    }
    if (!check_plan)
        return plan_validate_inputs(config, err);
    TRY(tp_config_validate(config, err));
    if (dp != 0) {
        const int64_t derived = config->system.gpus / (config->plan.tp * config->plan.pp * config->plan.cp);
        if (dp != derived)
            return err_set(err, TP_ERR_INVALID, "parallel.dp",
                           "%lld disagrees with system.gpus/(tp*pp*cp)=%lld", (long long)dp, (long long)derived);
    }
    return TP_OK;
}

cJSON *json_parse_document(const char *json, tp_error *err)
{
    if (json == NULL) {
        err_set(err, TP_ERR_PARSE, "", "no input");
        return NULL;
    }
    size_t length = 0; /* strnlen is POSIX, not C11 */
    while (length <= TP_MAX_INPUT_BYTES && json[length] != '\0')
        length++;
    if (length > TP_MAX_INPUT_BYTES) {
        err_set(err, TP_ERR_PARSE, "", "input is larger than %d bytes", TP_MAX_INPUT_BYTES);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, length + 1, &end, 1);
    if (root == NULL) {
        const size_t offset = end != NULL && end >= json ? (size_t)(end - json) : 0;
        err_set(err, TP_ERR_PARSE, "", "not valid JSON (at byte %zu)", offset);
    }
    return root;
}

tp_status tp_config_from_json(const char *json, tp_config *config, tp_error *err)
{
    cJSON *root = json_parse_document(json, err);
    if (root == NULL)
        return err != NULL ? err->status : TP_ERR_PARSE;
    tp_status status = json_read_config(root, config, 1, err);
    cJSON_Delete(root);
    return status;
}

/* ===================== writing ===================== */

cJSON *json_add_object(json_writer *w, cJSON *parent, const char *key)
{
    cJSON *obj = cJSON_CreateObject();
    if (obj == NULL || (key ? !cJSON_AddItemToObject(parent, key, obj) : !cJSON_AddItemToArray(parent, obj))) {
        cJSON_Delete(obj);
        w->failed = 1;
        return NULL;
    }
    return obj;
}

cJSON *json_add_array(json_writer *w, cJSON *parent, const char *key)
{
    cJSON *list = parent != NULL ? cJSON_AddArrayToObject(parent, key) : NULL;
    if (list == NULL)
        w->failed = 1;
    return list;
}

void json_add_number(json_writer *w, cJSON *obj, const char *key, double value)
{
    if (obj == NULL || cJSON_AddNumberToObject(obj, key, value) == NULL)
        w->failed = 1;
}

void json_add_string(json_writer *w, cJSON *obj, const char *key, const char *value)
{
    if (obj == NULL || cJSON_AddStringToObject(obj, key, value) == NULL)
        w->failed = 1;
}

void json_add_bool(json_writer *w, cJSON *obj, const char *key, int value)
{
    if (obj == NULL || cJSON_AddBoolToObject(obj, key, value) == NULL)
        w->failed = 1;
}

static void write_model(json_writer *w, cJSON *obj, const tp_model *m)
{
    json_add_string(w, obj, "name", m->name);
    json_add_string(w, obj, "arch", tp_arch_str(m->arch));
    json_add_number(w, obj, "layers", (double)m->layers);
    json_add_number(w, obj, "hidden", (double)m->hidden);
    json_add_number(w, obj, "heads", (double)m->heads);
    json_add_number(w, obj, "kv_heads", (double)m->kv_heads);
    json_add_number(w, obj, "ffn_hidden", (double)m->ffn_hidden);
    json_add_number(w, obj, "vocab", (double)m->vocab);
    json_add_number(w, obj, "positions", (double)m->positions);
    json_add_bool(w, obj, "tied_embeddings", m->tied_embeddings);
    json_add_bool(w, obj, "dropout", m->dropout);
    if (m->head_dim > 0)
        json_add_number(w, obj, "head_dim", (double)m->head_dim);
    if (m->arch == TP_ARCH_VIT)
        json_add_number(w, obj, "patch_dim", (double)m->patch_dim);
    json_add_string(w, obj, "attention", tp_attention_str(m->attention));
    if (m->attention == TP_ATTENTION_MLA) {
        cJSON *mla = json_add_object(w, obj, "mla");
        json_add_number(w, mla, "q_lora_rank", (double)m->mla.q_lora_rank);
        json_add_number(w, mla, "kv_lora_rank", (double)m->mla.kv_lora_rank);
        json_add_number(w, mla, "qk_nope_head_dim", (double)m->mla.qk_nope_head_dim);
        json_add_number(w, mla, "qk_rope_head_dim", (double)m->mla.qk_rope_head_dim);
        json_add_number(w, mla, "v_head_dim", (double)m->mla.v_head_dim);
    }
    if (m->moe.experts > 0) {
        cJSON *moe = json_add_object(w, obj, "moe");
        json_add_number(w, moe, "experts", (double)m->moe.experts);
        json_add_number(w, moe, "experts_per_token", (double)m->moe.experts_per_token);
        json_add_number(w, moe, "expert_ffn_hidden", (double)m->moe.expert_ffn_hidden);
        json_add_number(w, moe, "shared_experts", (double)m->moe.shared_experts);
        json_add_number(w, moe, "shared_ffn_hidden", (double)m->moe.shared_ffn_hidden);
        json_add_number(w, moe, "every", (double)m->moe.every);
        json_add_number(w, moe, "first_dense", (double)m->moe.first_dense);
    }
}

void json_add_pair(json_writer *w, cJSON *obj, const char *key, const int64_t pair[2])
{
    const double values[2] = {(double)pair[0], (double)pair[1]};
    cJSON *array = cJSON_CreateDoubleArray(values, 2);
    if (obj == NULL || array == NULL || !cJSON_AddItemToObject(obj, key, array)) {
        cJSON_Delete(array);
        w->failed = 1;
    }
}

void json_add_amsp(json_writer *w, cJSON *obj, const int64_t amsp[3][2])
{
    cJSON *factors = json_add_object(w, obj, "amsp");
    json_add_pair(w, factors, "weights", amsp[0]);
    json_add_pair(w, factors, "gradients", amsp[1]);
    json_add_pair(w, factors, "optimizer", amsp[2]);
}

void json_add_per_node(json_writer *w, cJSON *obj, const int64_t per_node[4])
{
    cJSON *ranks = json_add_object(w, obj, "per_node");
    for (int d = 0; d < 4; d++)
        json_add_number(w, ranks, tp_dim_str((tp_dim)d), (double)per_node[d]);
}

static void write_gpu(json_writer *w, cJSON *obj, const tp_gpu *g)
{
    json_add_string(w, obj, "name", g->name);
    json_add_number(w, obj, "memory_gib", g->memory_bytes / TP_GIB);
    json_add_number(w, obj, "tensor_tflops", g->tensor_flop_per_s / TERA);
    json_add_number(w, obj, "hbm_gbps", g->hbm_bytes_per_s / GIGA);
    json_add_number(w, obj, "nvlink_gbps", g->nvlink_bytes_per_s / GIGA);
    json_add_number(w, obj, "network_gbps", g->network_bytes_per_s / GBIT_BYTES);
    json_add_number(w, obj, "vector_tflops", g->vector_flop_per_s / TERA);
    json_add_number(w, obj, "matmul_efficiency", g->matmul_efficiency);
    json_add_number(w, obj, "attention_efficiency", g->attention_efficiency);
    json_add_number(w, obj, "kernel_latency_us", g->kernel_latency_s * 1e6);
    json_add_number(w, obj, "overlap_slowdown", g->overlap_slowdown);
    json_add_number(w, obj, "nvlink_overlap_slowdown", g->nvlink_overlap_slowdown);
    json_add_number(w, obj, "compute_spread", g->compute_spread);
}

/* The resolved config in input form: feeding it back gives the same config. */
static void write_network(json_writer *w, cJSON *obj, const tp_network *n)
{
    json_add_string(w, obj, "name", n->name);
    json_add_number(w, obj, "fast_gbps", n->fast.bytes_per_s / GIGA);
    json_add_number(w, obj, "fast_latency_us", n->fast.latency_s * 1e6);
    json_add_number(w, obj, "fast_efficiency", n->fast.efficiency);
    json_add_number(w, obj, "slow_gbps", n->slow.bytes_per_s / GBIT_BYTES);
    json_add_number(w, obj, "slow_latency_us", n->slow.latency_s * 1e6);
    json_add_number(w, obj, "slow_efficiency", n->slow.efficiency);
    json_add_number(w, obj, "nics_per_node", (double)n->nics_per_node);
}

void json_write_config(json_writer *w, cJSON *root, const tp_config *c)
{
    cJSON *config = json_add_object(w, root, "config");
    write_model(w, json_add_object(w, config, "model"), &c->model);
    cJSON *system = json_add_object(w, config, "system");
    write_gpu(w, json_add_object(w, system, "gpu"), &c->system.gpu);
    json_add_number(w, system, "gpus", (double)c->system.gpus);
    json_add_number(w, system, "gpus_per_node", (double)c->system.gpus_per_node);
    write_network(w, json_add_object(w, system, "network"), &c->system.network);
    json_add_number(w, system, "loader_gbps", c->system.loader_bytes_per_s / GIGA);
    json_add_number(w, system, "step_overhead_s", c->system.step_overhead_s);
    cJSON *training = json_add_object(w, config, "training");
    json_add_number(w, training, "seq_len", (double)c->training.seq_len);
    json_add_number(w, training, "global_batch", (double)c->training.global_batch);
    json_add_number(w, training, "micro_batch", (double)c->training.micro_batch);
    json_add_number(w, training, "capacity_factor", c->training.capacity_factor);
    json_add_number(w, training, "train_tokens", c->training.train_tokens);
    json_add_number(w, training, "gpu_hour_cost", c->training.gpu_hour_cost);
    cJSON *precision = json_add_object(w, training, "precision");
    json_add_string(w, precision, "weights", tp_dtype_str(c->training.weights_dtype));
    json_add_string(w, precision, "gradients", tp_dtype_str(c->training.gradients_dtype));
    json_add_string(w, precision, "optimizer", tp_dtype_str(c->training.optimizer_dtype));
    json_add_bool(w, precision, "master_weights", c->training.master_weights);
    json_add_bool(w, precision, "fp8", c->training.fp8);
    json_add_string(w, training, "optimizer", tp_optimizer_str(c->training.optimizer));
    json_add_string(w, training, "recompute", tp_recompute_str(c->training.recompute));
    json_add_number(w, training, "recompute_layers", (double)c->training.recompute_layers);
    json_add_bool(w, training, "flash_attention", c->training.flash_attention);
    json_add_bool(w, training, "dataloader_mask", c->training.dataloader_mask);
    const tp_plan *p = &c->plan;
    cJSON *parallel = json_add_object(w, config, "parallel");
    json_add_number(w, parallel, "tp", (double)p->tp);
    json_add_number(w, parallel, "pp", (double)p->pp);
    json_add_number(w, parallel, "cp", (double)p->cp);
    json_add_bool(w, parallel, "sp", p->sp);
    json_add_string(w, parallel, "tp_algorithm", tp_tp_algorithm_str(p->tp_algorithm));
    if (p->tp_algorithm == TP_TP_SUMMA)
        json_add_number(w, parallel, "summa_panels", (double)p->summa_panels);
    if (c->model.moe.experts > 0) {
        json_add_number(w, parallel, "ep", (double)p->ep);
        json_add_number(w, parallel, "etp", (double)plan_expert_tp(p));
    }
    json_add_string(w, parallel, "sharding", tp_sharding_str(p->sharding));
    if (p->sharding == TP_SHARD_ZERO)
        json_add_number(w, parallel, "zero", (double)p->zero);
    if (p->sharding == TP_SHARD_FSDP_HYBRID && p->shard_group > 0)
        json_add_number(w, parallel, "shard_group", (double)p->shard_group);
    if (p->sharding == TP_SHARD_AMSP)
        json_add_amsp(w, parallel, p->amsp);
    json_add_string(w, parallel, "schedule", tp_schedule_str(p->schedule));
    json_add_number(w, parallel, "virtual_stages", (double)p->virtual_stages);
    if (plan_places_explicitly(p)) {
        json_add_per_node(w, parallel, p->per_node);
    } else {
        char order[24];
        tp_order_str(p->order, order, sizeof order);
        json_add_string(w, parallel, "order", order);
    }
    const tp_overheads *o = &c->overheads;
    cJSON *overheads = json_add_object(w, config, "overheads");
    json_add_number(w, overheads, "cuda_context_gib", o->cuda_context_bytes / TP_GIB);
    json_add_number(w, overheads, "nccl_gib_per_group", o->nccl_bytes_per_group / TP_GIB);
    json_add_number(w, overheads, "loss_bytes_per_logit", o->loss_bytes_per_logit);
    json_add_number(w, overheads, "backward_layers", o->backward_layers);
    json_add_number(w, overheads, "fragmentation", o->fragmentation_fraction);
    json_add_number(w, overheads, "bucket_params", o->bucket_params);
    json_add_number(w, overheads, "prefetch_layers", (double)o->prefetch_layers);
}

static void write_other(json_writer *w, cJSON *obj, const tp_other_memory *x)
{
    json_add_number(w, obj, "cuda_context_bytes", x->cuda_context_bytes);
    json_add_number(w, obj, "nccl_bytes", x->nccl_bytes);
    json_add_number(w, obj, "loss_workspace_bytes", x->loss_workspace_bytes);
    json_add_number(w, obj, "backward_workspace_bytes", x->backward_workspace_bytes);
    json_add_number(w, obj, "gathered_params_bytes", x->gathered_params_bytes);
    json_add_number(w, obj, "gradient_bucket_bytes", x->gradient_bucket_bytes);
    json_add_number(w, obj, "fragmentation_bytes", x->fragmentation_bytes);
}

void json_write_result(json_writer *w, cJSON *root, const tp_config *c, const tp_estimate_result *r)
{
    json_add_string(w, root, "version", TP_VERSION);
    json_write_config(w, root, c);
    cJSON *params = json_add_object(w, root, "params");
    json_add_number(w, params, "total", (double)r->params_total);
    json_add_number(w, params, "active", (double)r->params_active);
    cJSON *plan = json_add_object(w, root, "plan");
    json_add_number(w, plan, "tp", (double)c->plan.tp);
    json_add_number(w, plan, "pp", (double)c->plan.pp);
    json_add_number(w, plan, "cp", (double)c->plan.cp);
    json_add_number(w, plan, "dp", (double)r->dp);
    json_add_bool(w, plan, "sp", c->plan.sp);
    json_add_string(w, plan, "tp_algorithm", tp_tp_algorithm_str(c->plan.tp_algorithm));
    json_add_string(w, plan, "sharding", tp_sharding_str(c->plan.sharding));
    if (c->plan.sharding == TP_SHARD_ZERO)
        json_add_number(w, plan, "zero", (double)c->plan.zero);
    cJSON *factors = json_add_object(w, plan, "shard_factors");
    json_add_number(w, factors, "weights", (double)r->shard_weights);
    json_add_number(w, factors, "gradients", (double)r->shard_gradients);
    json_add_number(w, factors, "optimizer", (double)r->shard_optimizer);
    if (r->shard_group > 0)
        json_add_number(w, plan, "shard_group", (double)r->shard_group);
    if (c->model.moe.experts > 0) {
        json_add_number(w, plan, "ep", (double)r->ep);
        json_add_number(w, plan, "etp", (double)r->etp);
        json_add_number(w, plan, "edp", (double)r->edp);
        cJSON *expert = json_add_object(w, plan, "expert_shard_factors");
        json_add_number(w, expert, "weights", (double)r->expert_shard_weights);
        json_add_number(w, expert, "gradients", (double)r->expert_shard_gradients);
        json_add_number(w, expert, "optimizer", (double)r->expert_shard_optimizer);
    }
    json_add_number(w, plan, "micro_batch", (double)c->training.micro_batch);
    json_add_number(w, plan, "micro_batches", (double)r->micro_batches);
    json_add_string(w, plan, "schedule", tp_schedule_str(c->plan.schedule));
    json_add_number(w, plan, "virtual_stages", (double)c->plan.virtual_stages);
    json_add_string(w, plan, "recompute", tp_recompute_str(c->training.recompute));
    json_add_bool(w, plan, "flash_attention", c->training.flash_attention);
    int64_t per_node[4];
    plan_ranks_per_node(c, r->dp, per_node);
    json_add_per_node(w, plan, per_node);
    cJSON *memory = json_add_object(w, root, "memory");
    cJSON *bpp = json_add_object(w, memory, "bytes_per_param");
    json_add_number(w, bpp, "weights", r->bytes_per_param.weights);
    json_add_number(w, bpp, "fp8_weights", r->bytes_per_param.fp8_weights);
    json_add_number(w, bpp, "gradients", r->bytes_per_param.gradients);
    json_add_number(w, bpp, "master_weights", r->bytes_per_param.master_weights);
    json_add_number(w, bpp, "optimizer_states", r->bytes_per_param.optimizer_states);
    cJSON *stages = json_add_array(w, memory, "stages");
    for (int i = 0; stages != NULL && i < r->stage_count; i++) {
        const tp_stage_memory *s = &r->stages[i];
        cJSON *stage = json_add_object(w, stages, NULL);
        json_add_string(w, stage, "name", s->name);
        json_add_number(w, stage, "layers", (double)s->layers);
        json_add_number(w, stage, "micro_batches_in_flight", (double)s->in_flight);
        json_add_number(w, stage, "layers_in_flight", s->layers_in_flight);
        json_add_number(w, stage, "params", s->params);
        json_add_number(w, stage, "weights_bytes", s->weights_bytes);
        json_add_number(w, stage, "gradients_bytes", s->gradients_bytes);
        json_add_number(w, stage, "optimizer_bytes", s->optimizer_bytes);
        json_add_number(w, stage, "activations_bytes", s->activations_bytes);
        cJSON *parts = json_add_object(w, stage, "activation_parts");
        json_add_number(w, parts, "layer_bytes", s->activation_parts.layer_bytes);
        json_add_number(w, parts, "mean_layer_bytes", s->activation_parts.mean_layer_bytes);
        json_add_number(w, parts, "scores_bytes", s->activation_parts.scores_bytes);
        json_add_number(w, parts, "layer_input_bytes", s->activation_parts.layer_input_bytes);
        json_add_number(w, parts, "embedding_bytes", s->activation_parts.embedding_bytes);
        json_add_number(w, parts, "lm_head_bytes", s->activation_parts.lm_head_bytes);
        json_add_number(w, stage, "other_bytes", s->other_bytes);
        write_other(w, json_add_object(w, stage, "other"), &s->other);
        json_add_number(w, stage, "total_bytes", s->total_bytes);
        cJSON *experts = json_add_object(w, stage, "experts");
        json_add_number(w, experts, "moe_layers", (double)s->experts.moe_layers);
        json_add_number(w, experts, "params", s->experts.params);
        json_add_number(w, experts, "weights_bytes", s->experts.weights_bytes);
        json_add_number(w, experts, "gradients_bytes", s->experts.gradients_bytes);
        json_add_number(w, experts, "optimizer_bytes", s->experts.optimizer_bytes);
        json_add_number(w, experts, "activations_bytes", s->experts.activations_bytes);
    }
    json_add_string(w, memory, "peak_stage", r->stages[r->peak_stage].name);
    json_add_number(w, memory, "peak_bytes", r->peak_bytes);
    json_add_number(w, memory, "capacity_bytes", r->capacity_bytes);
    json_add_number(w, memory, "usage_fraction", r->usage_fraction);
    json_add_number(w, memory, "safe_fraction", TP_SAFE_FRACTION);
    json_add_string(w, memory, "zone", tp_zone_str(r->zone));

    const tp_time *t = &r->time;
    cJSON *time = json_add_object(w, root, "time");
    json_add_number(w, time, "step_s", t->step_s);
    json_add_number(w, time, "compute_s", t->compute_s);
    json_add_number(w, time, "tp_comm_s", t->tp_comm_s);
    json_add_number(w, time, "cp_comm_s", t->cp_comm_s);
    json_add_number(w, time, "ep_comm_s", t->ep_comm_s);
    json_add_number(w, time, "pp_comm_s", t->pp_comm_s);
    json_add_number(w, time, "dp_comm_s", t->dp_comm_s);
    json_add_number(w, time, "bubble_s", t->bubble_s);
    json_add_number(w, time, "optimizer_s", t->optimizer_s);
    json_add_number(w, time, "data_wait_s", t->data_wait_s);
    json_add_number(w, time, "step_overhead_s", t->step_overhead_s);
    json_add_number(w, time, "slowest_gpu_slowdown", t->slowest_gpu_slowdown);
    json_add_number(w, time, "forward_s", t->forward_s);
    json_add_number(w, time, "backward_s", t->backward_s);
    json_add_number(w, time, "micro_batch_compute_s", t->micro_batch_compute_s);
    json_add_number(w, time, "micro_batch_tp_s", t->micro_batch_tp_s);
    json_add_number(w, time, "micro_batch_cp_s", t->micro_batch_cp_s);
    json_add_number(w, time, "micro_batch_ep_s", t->micro_batch_ep_s);
    json_add_number(w, time, "micro_batch_p2p_s", t->micro_batch_p2p_s);
    json_add_number(w, time, "micro_batch_dp_s", t->micro_batch_dp_s);
    json_add_number(w, time, "dp_step_s", t->dp_step_s);
    json_add_number(w, time, "bubble_micro_batch_s", t->bubble_micro_batch_s);
    json_add_number(w, time, "micro_batch_s", t->micro_batch_s);
    json_add_number(w, time, "micro_batch_loader_s", t->micro_batch_loader_s);
    json_add_number(w, time, "optimizer_bytes", t->optimizer_bytes);
    if (c->plan.tp_algorithm == TP_TP_SUMMA)
        json_add_number(w, time, "summa_panels", (double)t->summa_panels);
    const tp_throughput *th = &r->throughput;
    cJSON *throughput = json_add_object(w, root, "throughput");
    json_add_number(w, throughput, "tokens_per_s_per_gpu", th->tokens_per_s_per_gpu);
    json_add_number(w, throughput, "model_tflops_per_gpu", th->model_flop_per_s_per_gpu / TERA);
    json_add_number(w, throughput, "hardware_tflops_per_gpu", th->hardware_flop_per_s_per_gpu / TERA);
    json_add_number(w, throughput, "mfu", th->mfu);
    json_add_number(w, throughput, "hfu", th->hfu);
    json_add_number(w, throughput, "model_flop_per_step", th->model_flop_per_step);
    json_add_number(w, throughput, "hardware_flop_per_step", th->hardware_flop_per_step);
    json_add_number(w, throughput, "time_to_train_days", th->time_to_train_s / 86400.0);
    json_add_number(w, throughput, "gpu_hours", th->gpu_hours);
    if (c->training.gpu_hour_cost > 0.0) /* no price given, no cost */
        json_add_number(w, throughput, "cost", th->cost);
}

char *json_print_and_delete(cJSON *root, int pretty, json_writer *w, tp_error *err)
{
    char *text = w->failed ? NULL : (pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root));
    cJSON_Delete(root);
    if (text == NULL)
        err_set(err, TP_ERR_NOMEM, "", "out of memory");
    return text;
}

/* The output document of the estimate a config document asks for, or NULL
 * with err filled. */
static cJSON *estimate_document(const char *json, tp_error *err)
{
    tp_config config;
    tp_estimate_result result;
    if (tp_config_from_json(json, &config, err) != TP_OK || tp_estimate(&config, &result, err) != TP_OK)
        return NULL;
    json_writer w = {0};
    cJSON *root = cJSON_CreateObject();
    if (root != NULL)
        json_write_result(&w, root, &config, &result);
    if (root == NULL || w.failed) {
        cJSON_Delete(root);
        err_set(err, TP_ERR_NOMEM, "", "out of memory");
        return NULL;
    }
    return root;
}

char *json_print_document(cJSON *root, int pretty, tp_error *err)
{
    if (root == NULL)
        return NULL;
    json_writer w = {0};
    return json_print_and_delete(root, pretty, &w, err);
}

char *tp_estimate_json(const char *json, int pretty, tp_error *err)
{
    return json_print_document(estimate_document(json, err), pretty, err);
}

char *json_envelope(cJSON *result, const tp_error *err)
{
    json_writer w = {0};
    cJSON *root = cJSON_CreateObject();
    if (root == NULL) {
        cJSON_Delete(result);
        return NULL;
    }
    json_add_bool(&w, root, "ok", result != NULL);
    if (result != NULL) {
        if (!cJSON_AddItemToObject(root, "result", result)) {
            cJSON_Delete(result);
            w.failed = 1;
        }
    } else {
        cJSON *error = json_add_object(&w, root, "error");
        json_add_string(&w, error, "status", tp_status_str(err->status));
        json_add_string(&w, error, "path", err->path);
        json_add_string(&w, error, "message", err->message);
    }
    return json_print_and_delete(root, 0, &w, NULL);
}

char *tp_estimate_envelope_json(const char *json)
{
    tp_error err = {TP_OK, "", ""};
    cJSON *result = estimate_document(json, &err);
    return json_envelope(result, &err);
}

char *tp_presets_json(int pretty)
{
    json_writer w = {0};
    cJSON *root = cJSON_CreateObject();
    if (root == NULL)
        return NULL;
    cJSON *models = json_add_array(&w, root, "models");
    cJSON *gpus = json_add_array(&w, root, "gpus");
    cJSON *clusters = json_add_array(&w, root, "clusters");
    for (size_t i = 0; models != NULL && i < tp_model_preset_count(); i++) {
        cJSON *m = json_add_object(&w, models, NULL);
        write_model(&w, m, tp_model_preset(i));
        json_add_number(&w, m, "params_total", (double)tp_model_params_total(tp_model_preset(i)));
        json_add_string(&w, m, "source", tp_model_preset_source(i));
    }
    for (size_t i = 0; gpus != NULL && i < tp_gpu_preset_count(); i++) {
        cJSON *g = json_add_object(&w, gpus, NULL);
        write_gpu(&w, g, tp_gpu_preset(i));
        json_add_string(&w, g, "source", tp_gpu_preset_source(i));
    }
    for (size_t i = 0; clusters != NULL && i < tp_cluster_preset_count(); i++) {
        const tp_cluster *cl = tp_cluster_preset(i);
        cJSON *o = json_add_object(&w, clusters, NULL);
        json_add_string(&w, o, "name", cl->name);
        json_add_string(&w, o, "gpu", cl->gpu);
        json_add_number(&w, o, "gpus_per_node", (double)cl->gpus_per_node);
        write_network(&w, json_add_object(&w, o, "network"), &cl->network);
        json_add_string(&w, o, "source", tp_cluster_preset_source(i));
    }
    return json_print_and_delete(root, pretty, &w, NULL);
}

void tp_free(void *ptr)
{
    cJSON_free(ptr);
}
