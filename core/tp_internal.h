/*
 * tp_internal.h: declarations shared between core/ files, not public.
 * Each file exports names with its own prefix (Lua style): model_ from
 * model.c, mem_ from memory.c, plan_ from plan.c, err_ from status.c.
 */
#ifndef TP_INTERNAL_H
#define TP_INTERNAL_H

#include "trainplan.h"

/* ---- model.c: one description of a transformer layer ----
 * Parameter and activation counts both derive from this, so they cannot
 * drift apart. Activation bytes are per token of one micro-batch sample. */
typedef struct {
    double attention_params;       /* W_Q, W_K, W_V, W_O: split over tp */
    double mlp_params;             /* gate, up, down: split over tp */
    double norm_params;            /* two RMSNorm scales: replicated over tp */
    double act_tp_split_bytes_per_token; /* always split over tp */
    double act_sp_split_bytes_per_token; /* split over tp only with sequence parallel */
} model_layer;

model_layer model_describe_layer(const tp_model *m);
double model_layer_params(const model_layer *layer);
double model_layer_params_per_gpu(const model_layer *layer, int64_t tp);
double model_embedding_params(const tp_model *m); /* one of input / output: v*h */
double model_final_norm_params(const tp_model *m);

/* ---- memory.c: per-GPU memory of each pipeline stage ---- */
void mem_estimate_stages(const tp_config *c, int64_t dp, int64_t micro_batches,
                         tp_estimate_result *out);

/* ---- status.c: error helpers ---- */
/* Fills err (if not NULL) and returns status. printf-style message. */
tp_status err_set(tp_error *err, tp_status status, const char *path,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Returns from the calling function when call fails. */
#define TRY(call)                                          \
    do {                                                   \
        const tp_status try_status_ = (call);              \
        if (try_status_ != TP_OK)                          \
            return try_status_;                            \
    } while (0)

#endif /* TP_INTERNAL_H */
