/*
 * test_presets: every preset loads, estimates, and matches published facts.
 * Parameter counts are checked against the totals the model cards publish
 * (to the printed precision), GPU figures against their data sheets.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tp_internal.h"

static double params_b(const char *name)
{
    return (double)tp_model_params_total(tp_model_preset_find(name)) / 1e9;
}

static void presets_should_all_estimate_on_the_defaults(void)
{
    for (size_t i = 0; i < tp_model_preset_count(); i++) {
        for (size_t j = 0; j < tp_gpu_preset_count(); j++) {
            tp_config c;
            tp_config_defaults(&c);
            c.model = *tp_model_preset(i);
            c.system.gpu = *tp_gpu_preset(j);
            if (c.model.arch == TP_ARCH_GPT) /* learned positions bound the sequence */
                c.training.seq_len = c.model.positions;
            tp_estimate_result r;
            tp_error err;
            CHECK_INT(tp_estimate(&c, &r, &err), TP_OK);
            CHECK(r.peak_bytes > 0.0 && r.usage_fraction > 0.0);
        }
        CHECK(tp_model_preset_source(i) != NULL && strlen(tp_model_preset_source(i)) > 20);
        CHECK(tp_model_preset_find(tp_model_preset(i)->name) == tp_model_preset(i));
    }
    for (size_t j = 0; j < tp_gpu_preset_count(); j++) {
        CHECK(tp_gpu_preset_source(j) != NULL && strlen(tp_gpu_preset_source(j)) > 20);
        CHECK(tp_gpu_preset_find(tp_gpu_preset(j)->name) == tp_gpu_preset(j));
    }
    CHECK_INT(tp_model_preset_count(), 17);
    CHECK_INT(tp_gpu_preset_count(), 8);
    CHECK(tp_model_preset_find("llama-3.1-9b") == NULL);
    CHECK(tp_gpu_preset_find(NULL) == NULL);
}

static void model_presets_should_match_published_totals(void)
{
    /* Llama 3.1 model card: 8.03B, 70.6B, 405.9B (untied, eq. 3 exactly). */
    CHECK_INT(tp_model_params_total(tp_model_preset_find("llama-3.1-8b")), 8030261248LL);
    CHECK_NEAR(params_b("llama-3.1-70b"), 70.55, 0.01);
    CHECK_NEAR(params_b("llama-3.1-405b"), 405.85, 0.01);
    /* Llama 2 paper: 7B (6.74B), 13B (13.02B), 70B (68.98B) */
    CHECK_INT(tp_model_params_total(tp_model_preset_find("llama-2-7b")), 6738415616LL);
    CHECK_NEAR(params_b("llama-2-13b"), 13.02, 0.01);
    CHECK_NEAR(params_b("llama-2-70b"), 68.98, 0.01);
    /* Mistral 7B v0.1: 7.24B */
    CHECK_NEAR(params_b("mistral-7b"), 7.24, 0.01);
    /* Qwen2.5 model cards: 7.61B, 72.7B; biases (0.1M / 0.3M) not yet counted */
    CHECK_NEAR(params_b("qwen2.5-7b"), 7.61, 0.01);
    CHECK_NEAR(params_b("qwen2.5-72b"), 72.7, 0.05);
}

/* The model's parameters summed off the layer descriptions (floating
 * point, what memory and FLOPs use) against the exact integer count
 * (params.total): the two are written apart, so they must agree for every
 * preset, whatever its attention kind, head size or experts. */
static void layer_descriptions_should_sum_to_the_exact_count(void)
{
    for (size_t i = 0; i < tp_model_preset_count(); i++) {
        const tp_model *m = tp_model_preset(i);
        const model_layers layers = model_describe_layers(m);
        const double moe = (double)model_moe_layers_in(m, 0, m->layers);
        const double sum = ((double)m->layers - moe) * model_layer_params(&layers.dense)
                         + moe * (model_layer_params(&layers.moe) + layers.moe.expert_params)
                         + (m->tied_embeddings ? 1.0 : 2.0) * model_embedding_params(m)
                         + model_position_params(m) + model_final_norm_params(m);
        const double exact = (double)tp_model_params_total(m);
        if (sum != exact)
            fprintf(stderr, "%s: layers sum to %.0f, exact count %.0f\n", m->name, sum, exact);
        CHECK_NEAR(sum / exact, 1.0, 1e-15);
    }
}

static void gpu_presets_should_carry_data_sheet_figures(void)
{
    const tp_gpu *a100 = tp_gpu_preset_find("a100-40gb");
    CHECK_NEAR(a100->memory_bytes / TP_GIB, 40.0, 1e-9);
    CHECK_NEAR(a100->tensor_flop_per_s, 312e12, 1.0);
    const tp_gpu *h100 = tp_gpu_preset_find("h100-80gb");
    CHECK_NEAR(h100->tensor_flop_per_s, 989.4e12, 1.0);
    CHECK_NEAR(h100->hbm_bytes_per_s, 3.35e12, 1.0);
    CHECK_NEAR(tp_gpu_preset_find("h100-94gb")->memory_bytes / TP_GIB, 94.0, 1e-9);
    CHECK_NEAR(tp_gpu_preset_find("b200")->tensor_flop_per_s, 2.25e15, 1.0);
    CHECK_NEAR(tp_gpu_preset_find("h200")->hbm_bytes_per_s, 4.8e12, 1.0);
}

int main(void)
{
    presets_should_all_estimate_on_the_defaults();
    model_presets_should_match_published_totals();
    layer_descriptions_should_sum_to_the_exact_count();
    gpu_presets_should_carry_data_sheet_figures();
    return check_finish("presets");
}
