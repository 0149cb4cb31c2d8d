/* estimate_sanity.c: see estimate_sanity.h. */
#include <math.h>

#include "estimate_sanity.h"

int estimate_memory_sane(const tp_estimate_result *r)
{
    for (int i = 0; i < r->stage_count; i++) {
        const tp_stage_memory *s = &r->stages[i];
        const double items[] = {s->weights_bytes, s->gradients_bytes, s->optimizer_bytes,
                                s->activations_bytes, s->other_bytes, s->total_bytes};
        for (size_t k = 0; k < sizeof items / sizeof items[0]; k++)
            if (!isfinite(items[k]) || items[k] < 0.0)
                return 0;
        const double sum = items[0] + items[1] + items[2] + items[3] + items[4];
        if (fabs(sum - s->total_bytes) > 1e-9 * s->total_bytes)
            return 0;
        /* the experts' share of each item: finite, and within the item */
        const tp_expert_memory *e = &s->experts;
        const double parts[][2] = {{e->params, s->params}, {e->weights_bytes, s->weights_bytes},
                                   {e->gradients_bytes, s->gradients_bytes},
                                   {e->optimizer_bytes, s->optimizer_bytes},
                                   {e->activations_bytes, s->activations_bytes}};
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
            if (!isfinite(parts[k][0]) || parts[k][0] < 0.0 || parts[k][0] > parts[k][1] * (1.0 + 1e-12))
                return 0;
    }
    return isfinite(r->usage_fraction) && r->peak_bytes == r->stages[r->peak_stage].total_bytes;
}

static int finite_non_negative(double x) { return isfinite(x) && x >= 0.0; }

/* The items of the breakdown (trainplan.h tp_time), in one place. */
#define TIME_ITEMS(t)                                                                            \
    {(t)->compute_s, (t)->tp_comm_s, (t)->cp_comm_s, (t)->ep_comm_s, (t)->pp_comm_s,             \
     (t)->dp_comm_s, (t)->bubble_s, (t)->optimizer_s, (t)->data_wait_s, (t)->step_overhead_s}

double estimate_time_items_s(const tp_time *t)
{
    const double items[] = TIME_ITEMS(t);
    double sum = 0.0;
    for (size_t k = 0; k < sizeof items / sizeof items[0]; k++)
        sum += items[k];
    return sum;
}

int estimate_time_sane(const tp_estimate_result *r)
{
    const tp_time *t = &r->time;
    const double items[] = TIME_ITEMS(t);
    for (size_t k = 0; k < sizeof items / sizeof items[0]; k++)
        if (!finite_non_negative(items[k]))
            return 0;
    const double sum = estimate_time_items_s(t);
    const tp_throughput *th = &r->throughput;
    const double figures[] = {t->forward_s, t->backward_s, th->tokens_per_s_per_gpu,
                              th->model_flop_per_s_per_gpu, th->hardware_flop_per_s_per_gpu,
                              th->mfu, th->hfu, th->time_to_train_s, th->gpu_hours};
    for (size_t k = 0; k < sizeof figures / sizeof figures[0]; k++)
        if (!finite_non_negative(figures[k]))
            return 0;
    return t->step_s > 0.0 && fabs(sum - t->step_s) <= 1e-9 * t->step_s;
}
