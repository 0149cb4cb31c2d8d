/*
 * plan.c: defaults and validation of a configuration.
 *
 * Every field has a documented range; every parallel size must divide what it
 * splits. Each failure names the JSON path of the field at fault, so a user
 * interface can mark it, and says the reason in words. The bounds keep every
 * count exact in int64 and every byte count finite in double (issue 7 widens
 * the list; these are the ones the estimate relies on today).
 */
#include <string.h>

#include "tp_internal.h"

void tp_config_defaults(tp_config *c)
{
    memset(c, 0, sizeof *c);
    c->model = *tp_model_preset_find("llama-3.1-8b");
    c->system.gpu = *tp_gpu_preset_find("h100-80gb");
    c->system.gpus = 8;
    c->system.gpus_per_node = 8;
    c->training.seq_len = 8192;
    c->training.global_batch = 1024;
    c->training.micro_batch = 1;
    c->training.weights_dtype = TP_DTYPE_BF16;
    c->training.gradients_dtype = TP_DTYPE_FP32;
    c->training.optimizer_dtype = TP_DTYPE_FP32;
    c->plan.tp = 1;
    c->plan.pp = 1;
    c->plan.cp = 1;
    c->plan.sp = 1;
    c->plan.zero = 1;
}

/* A bounded positive integer field. */
static tp_status check_count(int64_t value, int64_t max, const char *path, tp_error *err)
{
    if (value < 1)
        return err_set(err, TP_ERR_INVALID, path, "must be a positive integer, got %lld",
                       (long long)value);
    if (value > max)
        return err_set(err, TP_ERR_INVALID, path, "%lld is above the limit of %lld",
                       (long long)value, (long long)max);
    return TP_OK;
}

/* A positive finite rate or capacity, below max. */
static tp_status check_positive(double value, double max, const char *path, tp_error *err)
{
    if (!(value > 0.0) || !(value <= max))
        return err_set(err, TP_ERR_INVALID, path, "must be a positive number no larger than %g",
                       max);
    return TP_OK;
}

/* divisor must divide value; both already known positive. */
static tp_status check_divides(int64_t divisor, const char *divisor_path, int64_t value,
                               const char *value_name, tp_error *err)
{
    if (value % divisor != 0)
        return err_set(err, TP_ERR_INVALID, divisor_path, "%lld does not divide %s=%lld",
                       (long long)divisor, value_name, (long long)value);
    return TP_OK;
}

static tp_status validate_model(const tp_model *m, tp_error *err)
{
    if (m->arch != TP_ARCH_LLAMA)
        return err_set(err, TP_ERR_INVALID, "model.arch", "unknown architecture");
    TRY(check_count(m->layers, 10000, "model.layers", err));
    TRY(check_count(m->hidden, 1000000, "model.hidden", err));
    TRY(check_count(m->heads, 100000, "model.heads", err));
    TRY(check_count(m->kv_heads, 100000, "model.kv_heads", err));
    TRY(check_count(m->ffn_hidden, 10000000, "model.ffn_hidden", err));
    TRY(check_count(m->vocab, 100000000, "model.vocab", err));
    if (m->hidden % m->heads != 0)
        return err_set(err, TP_ERR_INVALID, "model.heads", "%lld does not divide model.hidden=%lld",
                       (long long)m->heads, (long long)m->hidden);
    if (m->heads % m->kv_heads != 0)
        return err_set(err, TP_ERR_INVALID, "model.kv_heads",
                       "%lld does not divide model.heads=%lld (grouped-query attention needs equal groups)",
                       (long long)m->kv_heads, (long long)m->heads);
    return TP_OK;
}

static tp_status validate_system(const tp_system *s, tp_error *err)
{
    TRY(check_positive(s->gpu.memory_bytes, 1e15, "system.gpu.memory_gib", err));
    TRY(check_positive(s->gpu.tensor_flop_per_s, 1e18, "system.gpu.tensor_tflops", err));
    TRY(check_positive(s->gpu.hbm_bytes_per_s, 1e15, "system.gpu.hbm_gbps", err));
    TRY(check_positive(s->gpu.nvlink_bytes_per_s, 1e15, "system.gpu.nvlink_gbps", err));
    TRY(check_positive(s->gpu.network_bytes_per_s, 1e15, "system.gpu.network_gbps", err));
    TRY(check_count(s->gpus, 10000000, "system.gpus", err));
    TRY(check_count(s->gpus_per_node, 1024, "system.gpus_per_node", err));
    return TP_OK;
}

static tp_status validate_training(const tp_training *t, tp_error *err)
{
    TRY(check_count(t->seq_len, 100000000, "training.seq_len", err));
    TRY(check_count(t->global_batch, 100000000, "training.global_batch", err));
    TRY(check_count(t->micro_batch, 100000, "training.micro_batch", err));
    if (t->micro_batch > t->global_batch)
        return err_set(err, TP_ERR_INVALID, "training.micro_batch",
                       "%lld is larger than training.global_batch=%lld",
                       (long long)t->micro_batch, (long long)t->global_batch);
    return TP_OK;
}

static tp_status validate_plan(const tp_config *c, tp_error *err)
{
    const tp_plan *p = &c->plan;
    const tp_model *m = &c->model;
    TRY(check_count(p->tp, 1000000, "parallel.tp", err));
    TRY(check_count(p->pp, 10000, "parallel.pp", err));
    TRY(check_count(p->cp, 1000000, "parallel.cp", err));
    if (p->sp != 0 && p->sp != 1)
        return err_set(err, TP_ERR_INVALID, "parallel.sp", "must be true or false");
    if (p->zero < 0 || p->zero > 3)
        return err_set(err, TP_ERR_INVALID, "parallel.zero", "must be 0, 1, 2 or 3, got %lld", (long long)p->zero);
    TRY(check_divides(p->tp, "parallel.tp", m->heads, "model.heads", err));
    TRY(check_divides(p->tp, "parallel.tp", m->kv_heads, "model.kv_heads", err));
    TRY(check_divides(p->tp, "parallel.tp", m->ffn_hidden, "model.ffn_hidden", err));
    TRY(check_divides(p->pp, "parallel.pp", m->layers, "model.layers", err));
    TRY(check_divides(p->cp, "parallel.cp", c->training.seq_len, "training.seq_len", err));
    /* tp, pp, cp are each at most 10^6 and gpus at most 10^7: no overflow */
    const int64_t model_parallel = p->tp * p->pp * p->cp;
    if (c->system.gpus % model_parallel != 0)
        return err_set(err, TP_ERR_INVALID, "system.gpus",
                       "%lld is not a multiple of tp*pp*cp=%lld",
                       (long long)c->system.gpus, (long long)model_parallel);
    const int64_t dp = c->system.gpus / model_parallel;
    if (c->training.global_batch % (c->training.micro_batch * dp) != 0)
        return err_set(err, TP_ERR_INVALID, "training.global_batch",
                       "%lld is not a multiple of micro_batch*dp=%lld*%lld",
                       (long long)c->training.global_batch,
                       (long long)c->training.micro_batch, (long long)dp);
    return TP_OK;
}

tp_status tp_config_validate(const tp_config *c, tp_error *err)
{
    TRY(validate_model(&c->model, err));
    TRY(validate_system(&c->system, err));
    TRY(validate_training(&c->training, err));
    TRY(validate_plan(c, err));
    return TP_OK;
}
