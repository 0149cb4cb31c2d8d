/*
 * config_json.c: a config document in, the resolved config out. No
 * modelling happens here.
 *
 * The plain fields of each section are the field table's (fields.c): their
 * keys, types, units and echo come from its rows. What is written here by
 * hand is what a row cannot say:
 *   - presets: "model.preset", "system.cluster", "system.gpu" and
 *     "system.network" as a preset name or an object over one; a custom
 *     model or GPU must give the sizes a default would only guess;
 *   - what a field brings with it: a new arch its defaults, a new attention
 *     kind its sizes, a custom model multi-head attention, a new MoE model
 *     its shared experts' width;
 *   - the placement (parallel.order, parallel.per_node), AMSP's factors,
 *     the optional parallel.dp check, and fields that belong to one
 *     sharding scheme only.
 * Every section and field is optional and unknown keys are errors: a typo
 * must not fall back to a default. Errors name the field's JSON path.
 */
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "json_internal.h"

/* ===================== reading ===================== */

static int in_list(const char *key, const char *const *keys)
{
    for (; keys != NULL && *keys != NULL; keys++)
        if (strcmp(key, *keys) == 0)
            return 1;
    return 0;
}

/* An object whose keys are the section's fields or the hand-read ones. */
static tp_status check_keys(const cJSON *obj, field_section section, const char *const *extra, tp_error *err)
{
    const char *path = field_section_path(section);
    if (!cJSON_IsObject(obj))
        return err_set(err, TP_ERR_PARSE, path, "must be an object");
    const cJSON *item;
    cJSON_ArrayForEach(item, obj) {
        int renamed;
        if (field_find(section, item->string, &renamed) == NULL && !in_list(item->string, extra)) {
            char full[96];
            snprintf(full, sizeof full, "%s.%s", path, item->string);
            return err_set(err, TP_ERR_PARSE, full, "unknown field");
        }
    }
    return TP_OK;
}

static tp_status read_name(const cJSON *item, const field *f, void *target, const char *path, tp_error *err)
{
    if (!cJSON_IsString(item))
        return err_set(err, TP_ERR_INVALID, path, "must be a string");
    if (strlen(item->valuestring) >= f->size)
        return err_set(err, TP_ERR_INVALID, path, "is longer than %zu characters", f->size - 1);
    char *out = (char *)target + f->offset;
    snprintf(out, f->size, "%s", item->valuestring);
    return field_check(f, target, err);
}

/* One field's item into target, checked against the row's range. */
static tp_status read_field(const cJSON *item, const field *f, void *target, tp_error *err)
{
    char path[96];
    snprintf(path, sizeof path, "%s.%s", field_section_path(f->section), item->string);
    double value = 0.0;
    switch (f->type) {
    case FIELD_NAME:
        return read_name(item, f, target, path, err);
    case FIELD_BOOL:
        if (!cJSON_IsBool(item))
            return err_set(err, TP_ERR_INVALID, path, "must be true or false");
        value = cJSON_IsTrue(item) ? 1.0 : 0.0;
        break;
    case FIELD_ENUM: {
        int index = 0;
        TRY(json_name_index(item, path, f->names, &index, err));
        value = index;
        break;
    }
    case FIELD_INT: {
        int64_t n = 0;
        TRY(json_integer(item, path, &n, err));
        value = (double)n;
        break;
    }
    case FIELD_NUMBER:
        TRY(json_number(item, path, &value, err));
        break;
    }
    if (field_check_value(f, value, err) != TP_OK) {
        if (err != NULL) /* named as the document names it (an old key, say) */
            snprintf(err->path, sizeof err->path, "%.63s", path);
        return TP_ERR_INVALID;
    }
    field_set(f, target, value);
    return TP_OK;
}

static void add_note(json_notes *notes, const field *f, const char *old_key)
{
    if (notes == NULL || notes->count == (int)(sizeof notes->text / sizeof notes->text[0]))
        return;
    const char *path = field_section_path(f->section);
    snprintf(notes->text[notes->count++], sizeof notes->text[0],
             "%s.%s is now %s.%s; the old name is read until version 0.3", path, old_key, path, f->key);
}

/* Every plain field obj gives, but those its section reads by hand. */
static tp_status read_fields(const cJSON *obj, field_section section, void *target, json_notes *notes,
                             tp_error *err)
{
    const cJSON *item;
    cJSON_ArrayForEach(item, obj) {
        int renamed = 0;
        const field *f = field_find(section, item->string, &renamed);
        if (f == NULL || f->by_hand)
            continue;
        if (renamed) {
            if (cJSON_GetObjectItemCaseSensitive(obj, f->key) != NULL) {
                char path[96];
                snprintf(path, sizeof path, "%s.%s", field_section_path(section), item->string);
                return err_set(err, TP_ERR_INVALID, path, "is the old name of %s: give one of the two", f->key);
            }
            add_note(notes, f, item->string);
        }
        TRY(read_field(item, f, target, err));
    }
    return TP_OK;
}

/* A by-hand enum field of obj (model.arch, model.attention), if given. */
static tp_status read_by_hand(const cJSON *obj, field_section section, const char *key, void *target, tp_error *err)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    int renamed;
    return item == NULL ? TP_OK : read_field(item, field_find(section, key, &renamed), target, err);
}

static int has(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
}

/* Every key in the NULL-terminated list must be present: used where a
 * default would be a guess (a custom model or GPU). */
static tp_status require_fields(const cJSON *obj, const char *section, const char *const *keys,
                                const char *preset_path, tp_error *err)
{
    for (; *keys != NULL; keys++) {
        if (!has(obj, *keys)) {
            char path[96];
            snprintf(path, sizeof path, "%s.%s", section, *keys);
            return err_set(err, TP_ERR_INVALID, path, "is required when %s is not given", preset_path);
        }
    }
    return TP_OK;
}

/* model.moe over the model's (a dense model's are all 0): a model that was
 * dense must say how many experts, how many per token and how wide. */
static tp_status read_moe(const cJSON *obj, tp_moe *x, int preset_given, json_notes *notes, tp_error *err)
{
    TRY(check_keys(obj, SECTION_MOE, NULL, err));
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
        TRY(require_fields(obj, "model.moe", required,
                           preset_given ? "the preset has no experts and model.moe.experts" : "model.preset", err));
        x->every = 1;
    }
    TRY(read_fields(obj, SECTION_MOE, x, notes, err));
    /* shared experts are as wide as routed ones unless told (DeepSeek gives
     * its own), and have no width when there are none */
    if (!has(obj, "shared_ffn_hidden")) {
        if (x->shared_experts == 0)
            x->shared_ffn_hidden = 0;
        else if (x->shared_ffn_hidden == 0)
            x->shared_ffn_hidden = x->expert_ffn_hidden;
    }
    return TP_OK;
}

/* model.mla over the model's: a model that had no latent attention must
 * give its ranks and head sizes (q_lora_rank may stay 0: DeepSeek-V2-Lite). */
static tp_status read_mla(const cJSON *obj, tp_mla *x, json_notes *notes, tp_error *err)
{
    TRY(check_keys(obj, SECTION_MLA, NULL, err));
    if (x->kv_lora_rank == 0) {
        static const char *const required[] = {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim",
                                               NULL};
        TRY(require_fields(obj, "model.mla", required, "the model has no latent attention and model.mla", err));
    }
    return read_fields(obj, SECTION_MLA, x, notes, err);
}

/* The preset named, or a custom model of the required sizes. */
static tp_status model_base(const cJSON *obj, tp_model *m, tp_error *err)
{
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(obj, "preset");
    if (preset != NULL) {
        const tp_model *found = cJSON_IsString(preset) ? tp_model_preset_find(preset->valuestring) : NULL;
        if (found == NULL)
            return err_set(err, TP_ERR_INVALID, "model.preset", "unknown model preset (see `trainplan presets`)");
        *m = *found;
        return TP_OK;
    }
    /* a vit reads patches of patch_dim values where the others have a vocabulary */
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(obj, "arch");
    const int vit = cJSON_IsString(arch) && strcmp(arch->valuestring, "vit") == 0;
    const char *const required[] = {"layers", "hidden", "heads", "ffn_hidden", vit ? "patch_dim" : "vocab", NULL};
    TRY(require_fields(obj, "model", required, "model.preset", err));
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "custom");
    m->arch = TP_ARCH_LLAMA;
    return TP_OK;
}

/* A change of architecture brings that architecture's defaults: GPT ties
 * its embeddings and uses dropout (Narayanan et al.), Llama neither; a ViT
 * has GPT's dropout and no vocabulary to tie. */
static void arch_defaults(tp_model *m)
{
    m->tied_embeddings = m->arch == TP_ARCH_GPT;
    m->dropout = m->arch != TP_ARCH_LLAMA;
    m->positions = 0;
    if (m->arch == TP_ARCH_VIT)
        m->vocab = 0;
    else
        m->patch_dim = 0;
}

/* A change of attention kind: latent attention has a key and value per
 * head and sizes its heads in model.mla; leaving it drops the latents. */
static void attention_defaults(const cJSON *obj, tp_model *m)
{
    memset(&m->mla, 0, sizeof m->mla);
    if (m->attention == TP_ATTENTION_MLA && !has(obj, "kv_heads"))
        m->kv_heads = m->heads;
    if (m->attention == TP_ATTENTION_MLA && !has(obj, "head_dim"))
        m->head_dim = 0;
}

static tp_status read_model(const cJSON *obj, tp_model *m, json_notes *notes, tp_error *err)
{
    static const char *const extra[] = {"preset", "moe", "mla", NULL};
    TRY(check_keys(obj, SECTION_MODEL, extra, err));
    TRY(model_base(obj, m, err));
    const tp_arch arch = m->arch;
    TRY(read_by_hand(obj, SECTION_MODEL, "arch", m, err));
    if (m->arch != arch)
        arch_defaults(m);
    const tp_attention attention = m->attention;
    TRY(read_by_hand(obj, SECTION_MODEL, "attention", m, err));
    if (m->attention != attention)
        attention_defaults(obj, m);
    TRY(read_fields(obj, SECTION_MODEL, m, notes, err));
    if (!has(obj, "preset") && !has(obj, "kv_heads"))
        m->kv_heads = m->heads; /* a custom model is multi-head unless told otherwise */
    const cJSON *mla = cJSON_GetObjectItemCaseSensitive(obj, "mla");
    if (mla != NULL) {
        if (m->attention != TP_ATTENTION_MLA)
            return err_set(err, TP_ERR_INVALID, "model.mla", "is read only with model.attention \"mla\"");
        TRY(read_mla(mla, &m->mla, notes, err));
    } else if (m->attention == TP_ATTENTION_MLA && m->mla.kv_lora_rank == 0) {
        return err_set(err, TP_ERR_INVALID, "model.mla",
                       "is required with model.attention \"mla\": its ranks and head sizes");
    }
    const cJSON *moe = cJSON_GetObjectItemCaseSensitive(obj, "moe");
    return moe == NULL ? TP_OK : read_moe(moe, &m->moe, has(obj, "preset"), notes, err);
}

static tp_status find_gpu(const cJSON *item, const char *path, const tp_gpu **out, tp_error *err)
{
    *out = cJSON_IsString(item) ? tp_gpu_preset_find(item->valuestring) : NULL;
    if (*out == NULL)
        return err_set(err, TP_ERR_INVALID, path, "unknown GPU preset (see `trainplan presets`)");
    return TP_OK;
}

static tp_status find_cluster(const cJSON *item, const char *path, const tp_cluster **out, tp_error *err)
{
    *out = cJSON_IsString(item) ? tp_cluster_preset_find(item->valuestring) : NULL;
    if (*out == NULL)
        return err_set(err, TP_ERR_INVALID, path, "unknown cluster preset (see `trainplan presets`)");
    return TP_OK;
}

/* The H100's ratio of vector to tensor peak, for a custom GPU that gives
 * only its tensor peak. */
#define H100_VECTOR_PER_TENSOR (133.8 / 989.4)

/* A GPU preset name, or an object over one; a custom GPU gives its memory
 * and rates, and takes the H100's efficiencies and latency (echoed in the
 * output like every input). */
static tp_status read_gpu(const cJSON *item, tp_gpu *gpu, json_notes *notes, tp_error *err)
{
    const tp_gpu *found;
    if (cJSON_IsString(item)) {
        TRY(find_gpu(item, "system.gpu", &found, err));
        *gpu = *found;
        return TP_OK;
    }
    static const char *const extra[] = {"preset", NULL};
    TRY(check_keys(item, SECTION_GPU, extra, err));
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(item, "preset");
    if (preset != NULL) {
        TRY(find_gpu(preset, "system.gpu.preset", &found, err));
        *gpu = *found;
    } else {
        static const char *const required[] = {"memory_gib", "tensor_tflops", "hbm_gb_per_s", "nvlink_gb_per_s",
                                               "network_gbit_per_s", NULL};
        for (const char *const *key = required; *key != NULL; key++) {
            int renamed;
            const field *f = field_find(SECTION_GPU, *key, &renamed);
            if (!has(item, f->key) && (f->old_key == NULL || !has(item, f->old_key))) {
                char path[64];
                field_path(f, path, sizeof path);
                return err_set(err, TP_ERR_INVALID, path, "is required when system.gpu.preset is not given");
            }
        }
        *gpu = *tp_gpu_preset_find("h100-80gb");
        snprintf(gpu->name, sizeof gpu->name, "custom");
    }
    TRY(read_fields(item, SECTION_GPU, gpu, notes, err));
    if (preset == NULL && !has(item, "vector_tflops"))
        gpu->vector_flop_per_s = gpu->tensor_flop_per_s * H100_VECTOR_PER_TENSOR;
    if (preset == NULL && !has(item, "fp8_tflops")) /* FP8 doubles BF16 on Hopper and Blackwell */
        gpu->fp8_flop_per_s = 2.0 * gpu->tensor_flop_per_s;
    return TP_OK;
}

/* A cluster preset name (its network), or an object over the network in
 * effect (a "preset" first if given). */
static tp_status read_network(const cJSON *item, tp_network *n, json_notes *notes, tp_error *err)
{
    const tp_cluster *found;
    if (cJSON_IsString(item)) {
        TRY(find_cluster(item, "system.network", &found, err));
        *n = found->network;
        return TP_OK;
    }
    static const char *const extra[] = {"preset", NULL};
    TRY(check_keys(item, SECTION_NETWORK, extra, err));
    const cJSON *preset = cJSON_GetObjectItemCaseSensitive(item, "preset");
    if (preset != NULL) {
        TRY(find_cluster(preset, "system.network.preset", &found, err));
        *n = found->network;
    } else {
        snprintf(n->name, sizeof n->name, "custom");
    }
    return read_fields(item, SECTION_NETWORK, n, notes, err);
}

/* A cluster names GPU, node size and network at once; the other fields
 * override it. Without a cluster or a network, the network follows the
 * GPU (tp_network_for_gpu). */
static tp_status read_system(const cJSON *obj, tp_system *s, json_notes *notes, tp_error *err)
{
    static const char *const extra[] = {"cluster", "gpu", "network", NULL};
    TRY(check_keys(obj, SECTION_SYSTEM, extra, err));
    const cJSON *cluster = cJSON_GetObjectItemCaseSensitive(obj, "cluster");
    if (cluster != NULL) {
        const tp_cluster *found;
        TRY(find_cluster(cluster, "system.cluster", &found, err));
        tp_system_use_cluster(s, found);
    }
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(obj, "gpu");
    if (gpu != NULL)
        TRY(read_gpu(gpu, &s->gpu, notes, err));
    TRY(read_fields(obj, SECTION_SYSTEM, s, notes, err));
    if (cluster == NULL)
        s->network = tp_network_for_gpu(&s->gpu, s->gpus_per_node);
    const cJSON *network = cJSON_GetObjectItemCaseSensitive(obj, "network");
    return network == NULL ? TP_OK : read_network(network, &s->network, notes, err);
}

/* training.framework first: its facts are the defaults of fields read after
 * it (the overheads section is read after this one). */
static tp_status read_training(const cJSON *obj, tp_config *c, json_notes *notes, tp_error *err)
{
    static const char *const extra[] = {"precision", NULL};
    tp_training *t = &c->training;
    TRY(check_keys(obj, SECTION_TRAINING, extra, err));
    TRY(read_by_hand(obj, SECTION_TRAINING, "framework", t, err));
    tp_framework_defaults(c);
    TRY(read_fields(obj, SECTION_TRAINING, t, notes, err));
    /* training.eager given: the overheads section may still override the
     * loss's figure, and an explicit recompute_elementwise stays */
    const int elementwise = t->recompute_elementwise;
    tp_framework_compile_defaults(c);
    if (cJSON_GetObjectItemCaseSensitive(obj, "recompute_elementwise") != NULL)
        t->recompute_elementwise = elementwise;
    const cJSON *precision = cJSON_GetObjectItemCaseSensitive(obj, "precision");
    if (precision == NULL)
        return TP_OK;
    TRY(check_keys(precision, SECTION_PRECISION, NULL, err));
    return read_fields(precision, SECTION_PRECISION, t, notes, err);
}

/* AMSP factors: {"weights": [intra, inter], "gradients": [...], "optimizer": [...]},
 * each pair optional (default [1, 1]: replicated). */
static tp_status read_amsp(const cJSON *obj, tp_plan *p, tp_error *err)
{
    static const char *const keys[] = {"weights", "gradients", "optimizer", NULL};
    TRY(json_check_object(obj, "parallel.amsp", keys, err));
    for (int state = 0; state < 3; state++) {
        char path[64];
        snprintf(path, sizeof path, "parallel.amsp.%s", keys[state]);
        const cJSON *pair = cJSON_GetObjectItemCaseSensitive(obj, keys[state]);
        if (pair == NULL)
            continue;
        if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2)
            return err_set(err, TP_ERR_INVALID, path, "must be [intra_node, inter_node], two integers");
        for (int axis = 0; axis < 2; axis++) {
            int64_t factor = 0;
            snprintf(path, sizeof path, "parallel.amsp.%s[%d]", keys[state], axis);
            TRY(json_integer(cJSON_GetArrayItem(pair, axis), path, &factor, err));
            if (factor < 1 || factor > 10000000)
                return err_set(err, TP_ERR_INVALID, path, "must be an integer from 1 to 10000000, got %lld",
                               (long long)factor);
            p->amsp[state][axis] = factor;
        }
    }
    return TP_OK;
}

/* "tp-cp-dp-pp": the four dimensions, innermost first, each once. */
static tp_status read_order(const cJSON *item, tp_plan *p, tp_error *err)
{
    const char *text = cJSON_IsString(item) ? item->valuestring : NULL;
    int seen = 0;
    for (int i = 0; text != NULL && strlen(text) == 11 && i < 4; i++) {
        const char *part = text + 3 * i;
        int found = -1;
        for (int d = 0; d < 4; d++)
            if (strncmp(part, dim_names.items[d], 2) == 0)
                found = d;
        if (found < 0 || (seen & (1 << found)) || (i < 3 && part[2] != '-'))
            break;
        seen |= 1 << found;
        p->order[i] = (tp_dim)found;
    }
    if (seen != 15)
        return err_set(err, TP_ERR_INVALID, "parallel.order",
                       "must name tp, cp, dp and pp once each, innermost first, joined by '-' (e.g. \"tp-cp-dp-pp\")");
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

/* Fields of one sharding scheme are errors with another, so a config says
 * one thing. */
static tp_status check_scoped(const cJSON *obj, const tp_plan *p, tp_error *err)
{
    static const struct {
        const char *key;
        tp_sharding only;
    } scoped[] = {{"zero", TP_SHARD_ZERO}, {"shard_group", TP_SHARD_FSDP_HYBRID}, {"amsp", TP_SHARD_AMSP}};
    for (size_t i = 0; i < sizeof scoped / sizeof scoped[0]; i++) {
        if (has(obj, scoped[i].key) && p->sharding != scoped[i].only) {
            char path[64];
            snprintf(path, sizeof path, "parallel.%s", scoped[i].key);
            return err_set(err, TP_ERR_INVALID, path, "applies only with parallel.sharding \"%s\"",
                           tp_sharding_str(scoped[i].only));
        }
    }
    return TP_OK;
}

/* dp may be given as a check; it must agree with gpus/(tp*pp*cp). */
static tp_status read_parallel(const cJSON *obj, tp_plan *p, int64_t *dp, json_notes *notes, tp_error *err)
{
    static const char *const extra[] = {"dp", "amsp", "order", "per_node", NULL};
    TRY(check_keys(obj, SECTION_PARALLEL, extra, err));
    const cJSON *order = cJSON_GetObjectItemCaseSensitive(obj, "order");
    const cJSON *per_node = cJSON_GetObjectItemCaseSensitive(obj, "per_node");
    if (order != NULL && per_node != NULL)
        return err_set(err, TP_ERR_INVALID, "parallel.per_node",
                       "conflicts with parallel.order: give one placement, an order or ranks per node");
    if (order != NULL)
        TRY(read_order(order, p, err));
    if (per_node != NULL)
        TRY(read_per_node(per_node, p, err));
    TRY(read_fields(obj, SECTION_PARALLEL, p, notes, err));
    TRY(check_scoped(obj, p, err));
    const cJSON *amsp = cJSON_GetObjectItemCaseSensitive(obj, "amsp");
    if (amsp != NULL)
        TRY(read_amsp(amsp, p, err));
    return json_read_int(obj, "parallel", "dp", dp, err);
}

static tp_status read_overheads(const cJSON *obj, tp_overheads *o, json_notes *notes, tp_error *err)
{
    TRY(check_keys(obj, SECTION_OVERHEADS, NULL, err));
    return read_fields(obj, SECTION_OVERHEADS, o, notes, err);
}

static tp_status read_sections(const cJSON *root, tp_config *config, int64_t *dp, json_notes *notes, tp_error *err)
{
    const cJSON *section;
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "model")) != NULL)
        TRY(read_model(section, &config->model, notes, err));
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "system")) != NULL)
        TRY(read_system(section, &config->system, notes, err));
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "training")) != NULL)
        TRY(read_training(section, config, notes, err));
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "parallel")) != NULL)
        TRY(read_parallel(section, &config->plan, dp, notes, err));
    if ((section = cJSON_GetObjectItemCaseSensitive(root, "overheads")) != NULL)
        TRY(read_overheads(section, &config->overheads, notes, err));
    return TP_OK;
}

tp_status json_read_config(const cJSON *root, tp_config *config, int check_plan, json_notes *notes,
                           tp_error *err)
{
    /* "search" and "sweep" belong to their commands: one document serves
     * estimate, search and sweep */
    static const char *const keys[] = {"model", "system", "training", "parallel", "overheads", "search", "sweep",
                                       NULL};
    TRY(json_check_object(root, "", keys, err));
    tp_config_defaults(config);
    if (notes != NULL)
        notes->count = 0;
    int64_t dp = 0;
    TRY(read_sections(root, config, &dp, notes, err));
    if (!check_plan)
        return valid_inputs(config, err);
    TRY(tp_config_validate(config, err));
    const int64_t derived = config->system.gpus / (config->plan.tp * config->plan.pp * config->plan.cp);
    if (dp != 0 && dp != derived)
        return err_set(err, TP_ERR_INVALID, "parallel.dp", "%lld disagrees with system.gpus/(tp*pp*cp)=%lld",
                       (long long)dp, (long long)derived);
    return TP_OK;
}

/* ===================== writing ===================== */

/* Whether the echo writes f; c NULL (a preset alone) writes no field
 * whose condition is on the rest of a config. */
static int echoes(const field *f, const void *section_struct, const tp_config *c)
{
    if (c == NULL && f->echo > ECHO_VIT)
        return 0;
    switch (f->echo) {
    case ECHO_ALWAYS: return 1;
    case ECHO_NONZERO: return field_get(f, section_struct) != 0.0;
    case ECHO_VIT: return ((const tp_model *)section_struct)->arch == TP_ARCH_VIT;
    case ECHO_MOE: return c->model.moe.experts > 0;
    case ECHO_SUMMA: return c->plan.tp_algorithm == TP_TP_SUMMA;
    case ECHO_ZERO: return c->plan.sharding == TP_SHARD_ZERO;
    case ECHO_HYBRID: return c->plan.sharding == TP_SHARD_FSDP_HYBRID && c->plan.shard_group > 0;
    case ECHO_FP8: return c->training.fp8;
    case ECHO_CP: return c->plan.cp > 1;
    case ECHO_YARN: return c->model.yarn_rope;
    case ECHO_BY_HAND: return 0;
    }
    return 1;
}

/* The section's fields from their struct, in the table's order; c is the
 * whole config for rows echoed under a condition on it (NULL: a preset's
 * model, GPU or network alone). */
static void write_fields(json_writer *w, cJSON *obj, field_section section, const void *section_struct,
                         const tp_config *c)
{
    for (int i = 0; i < field_count; i++) {
        const field *f = &field_table[i];
        if (f->section != section || !echoes(f, section_struct, c))
            continue;
        if (f->type == FIELD_NAME)
            json_add_string(w, obj, f->key, (const char *)section_struct + f->offset);
        else if (f->type == FIELD_ENUM)
            json_add_string(w, obj, f->key, f->names->items[(int)field_get(f, section_struct)]);
        else if (f->type == FIELD_BOOL)
            json_add_bool(w, obj, f->key, field_get(f, section_struct) != 0.0);
        else
            json_add_number(w, obj, f->key, field_echo_value(f, section_struct));
    }
}

void json_write_model(json_writer *w, cJSON *obj, const tp_model *m)
{
    write_fields(w, obj, SECTION_MODEL, m, NULL);
    if (m->attention == TP_ATTENTION_MLA)
        write_fields(w, json_add_object(w, obj, "mla"), SECTION_MLA, &m->mla, NULL);
    if (m->moe.experts > 0)
        write_fields(w, json_add_object(w, obj, "moe"), SECTION_MOE, &m->moe, NULL);
}

void json_write_gpu(json_writer *w, cJSON *obj, const tp_gpu *g)
{
    write_fields(w, obj, SECTION_GPU, g, NULL);
}

void json_write_network(json_writer *w, cJSON *obj, const tp_network *n)
{
    write_fields(w, obj, SECTION_NETWORK, n, NULL);
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

static void write_parallel(json_writer *w, cJSON *parallel, const tp_config *c)
{
    const tp_plan *p = &c->plan;
    write_fields(w, parallel, SECTION_PARALLEL, p, c);
    if (c->model.moe.experts > 0)
        json_add_number(w, parallel, "etp", (double)plan_expert_tp(p)); /* resolved: 0 reads as tp */
    if (p->sharding == TP_SHARD_AMSP)
        json_add_amsp(w, parallel, p->amsp);
    if (plan_places_explicitly(p)) {
        json_add_per_node(w, parallel, p->per_node);
    } else {
        char order[24];
        tp_order_str(p->order, order, sizeof order);
        json_add_string(w, parallel, "order", order);
    }
}

void json_write_system(json_writer *w, cJSON *obj, const tp_system *s)
{
    json_write_gpu(w, json_add_object(w, obj, "gpu"), &s->gpu);
    write_fields(w, obj, SECTION_SYSTEM, s, NULL);
    json_write_network(w, json_add_object(w, obj, "network"), &s->network);
}

void json_write_overheads(json_writer *w, cJSON *obj, const tp_overheads *o)
{
    write_fields(w, obj, SECTION_OVERHEADS, o, NULL);
}

void json_write_config(json_writer *w, cJSON *config, const tp_config *c)
{
    json_write_model(w, json_add_object(w, config, "model"), &c->model);
    json_write_system(w, json_add_object(w, config, "system"), &c->system);
    cJSON *training = json_add_object(w, config, "training");
    write_fields(w, training, SECTION_TRAINING, &c->training, c);
    write_fields(w, json_add_object(w, training, "precision"), SECTION_PRECISION, &c->training, c);
    write_parallel(w, json_add_object(w, config, "parallel"), c);
    json_write_overheads(w, json_add_object(w, config, "overheads"), &c->overheads);
}

void json_write_notes(json_writer *w, cJSON *root, const json_notes *notes)
{
    if (notes == NULL || notes->count == 0)
        return;
    cJSON *list = json_add_array(w, root, "deprecated");
    for (int i = 0; list != NULL && i < notes->count; i++)
        json_add_string(w, list, NULL, notes->text[i]);
}
