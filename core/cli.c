/*
 * cli.c: the native `trainplan` command. It uses only the public API in
 * trainplan.h, as an application would.
 *
 *   trainplan estimate [FILE|-] [--table]   output JSON, or a GiB breakdown
 *   trainplan search [FILE|-] [--table]     the best plans, JSON or a table
 *   trainplan sweep [FILE|-] [--shard i/n]  the best plan at each point of a
 *                                           hardware grid, or one shard of it
 *   trainplan sweep --merge FILE...         shard outputs folded into one
 *   trainplan calibrate [FILE|-]            the physical parameters fitted
 *                                           to measured runs (docs/calibrate.md)
 *   trainplan calibrate-log [FILE|-]        what a training log excerpt says
 *                                           of its run: a run's "measured"
 *   trainplan presets [--table]             model, GPU and cluster presets
 *   trainplan fields [--markdown]           every plain config field: path,
 *                                           unit, default, range, meaning
 *   trainplan version
 *
 * Exit status: 0 success, 2 invalid input (the message names the field),
 * 1 anything else (unreadable file, out of memory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainplan.h"


static void usage(FILE *out)
{
    fputs("usage: trainplan estimate [FILE|-] [--table]\n"
          "       trainplan search [FILE|-] [--table]\n"
          "       trainplan sweep [FILE|-] [--shard i/n]\n"
          "       trainplan sweep --merge FILE...\n"
          "       trainplan calibrate [FILE|-]\n"
          "       trainplan calibrate-log [FILE|-]\n"
          "       trainplan presets [--table]\n"
          "       trainplan fields [--markdown]\n"
          "       trainplan version\n"
          "Reads a config JSON (see docs/config.md) from FILE, or standard input for '-' or none;\n"
          "calibrate reads a runs document (docs/calibrate.md), calibrate-log a training log excerpt\n"
          "(Megatron-LM, NeMo, torchtitan or llm-foundry) and prints what a run's \"measured\" takes.\n",
          out);
}

#define MAX_SHARD_OUTPUT_BYTES (64 << 20) /* a sweep shard's output (sweep --merge) */

/* Exit status of a failed read: 2 when the input was refused (too large),
 * 1 when it could not be read at all. */
static int read_status = 1;

/* Reads the whole input, at most max_bytes, into a NUL-terminated buffer,
 * or NULL (read_status says why). */
static char *read_file(const char *path, long max_bytes)
{
    read_status = 1;
    FILE *in = (path == NULL || strcmp(path, "-") == 0) ? stdin : fopen(path, "rb");
    if (in == NULL) {
        fprintf(stderr, "trainplan: cannot open %s\n", path);
        return NULL;
    }
    char *buffer = malloc((size_t)max_bytes + 1);
    size_t length = buffer ? fread(buffer, 1, (size_t)max_bytes + 1, in) : 0;
    if (in != stdin)
        fclose(in);
    if (buffer == NULL) {
        fputs("trainplan: out of memory\n", stderr);
        return NULL;
    }
    if (length > (size_t)max_bytes) {
        fprintf(stderr, "trainplan: error: %s is larger than %ld bytes\n", path ? path : "input", max_bytes);
        free(buffer);
        read_status = 2; /* refused input, like any other */
        return NULL;
    }
    buffer[length] = '\0';
    return buffer;
}

/* A config document: at most TP_MAX_INPUT_BYTES. */
static char *read_input(const char *path)
{
    return read_file(path, TP_MAX_INPUT_BYTES);
}

static int report(const tp_error *err);

/* Prints a JSON document the core returned, or reports why there is none. */
static int print_json(char *json, const tp_error *err)
{
    if (json == NULL)
        return report(err);
    puts(json);
    tp_free(json);
    return 0;
}

static int report(const tp_error *err)
{
    if (err->path[0] != '\0')
        fprintf(stderr, "trainplan: error: %s: %s\n", err->path, err->message);
    else
        fprintf(stderr, "trainplan: error: %s\n", err->message);
    return err->status == TP_ERR_NOMEM ? 1 : 2;
}

/* A label as the terminal may show it: control characters (an escape
 * sequence) become '?'. The core refuses them in names; this holds for
 * any config a caller of the library builds. */
static const char *printable(const char *label, char out[64])
{
    size_t i = 0;
    for (; label[i] != '\0' && i < 63; i++)
        out[i] = (unsigned char)label[i] < 0x20 || label[i] == 0x7f ? '?' : label[i];
    out[i] = '\0';
    return out;
}

static void print_table(const tp_config *c, const tp_estimate_result *r)
{
    char model[64], gpu[64];
    printf("%s on %lld x %s: tp=%lld pp=%lld cp=%lld dp=%lld sp=%s %s, "
           "micro_batch=%lld, %lld micro-batches\n",
           printable(c->model.name, model), (long long)c->system.gpus, printable(c->system.gpu.name, gpu),
           (long long)c->plan.tp,
           (long long)c->plan.pp, (long long)c->plan.cp, (long long)r->dp, c->plan.sp ? "on" : "off",
           tp_schedule_str(c->plan.schedule), (long long)c->training.micro_batch,
           (long long)r->micro_batches);
    printf("sharding %s: weights over %lld, gradients over %lld, optimizer over %lld GPUs; "
           "recompute %s\n",
           tp_sharding_str(c->plan.sharding), (long long)r->shard_weights,
           (long long)r->shard_gradients, (long long)r->shard_optimizer,
           tp_recompute_str(c->training.recompute));
    const int moe = c->model.moe.experts > 0;
    if (moe)
        printf("experts: ep=%lld etp=%lld edp=%lld; expert weights over %lld, gradients over %lld, "
               "optimizer over %lld GPUs\n",
               (long long)r->ep, (long long)r->etp, (long long)r->edp, (long long)r->expert_shard_weights,
               (long long)r->expert_shard_gradients, (long long)r->expert_shard_optimizer);
    printf("parameters: %lld (%.2f B)", (long long)r->params_total, (double)r->params_total / 1e9);
    if (moe)
        printf(", %lld active (%.2f B)", (long long)r->params_active, (double)r->params_active / 1e9);
    /* with experts, the first four columns leave the routed experts'
     * share to their own column, as the page does */
    printf("\n\n%-8s %6s %10s %10s %10s %12s%s %8s %10s\n", "stage", "layers", "weights", "gradients",
           "optimizer", "activations", moe ? "    experts" : "", "other", "total GiB");
    for (int i = 0; i < r->stage_count; i++) {
        const tp_stage_memory *s = &r->stages[i];
        const tp_expert_memory *e = &s->experts;
        const double expert_bytes = e->weights_bytes + e->gradients_bytes + e->optimizer_bytes + e->activations_bytes;
        printf("%-8s %6lld %10.2f %10.2f %10.2f %12.2f", s->name, (long long)s->layers,
               (s->weights_bytes - e->weights_bytes) / TP_GIB, (s->gradients_bytes - e->gradients_bytes) / TP_GIB,
               (s->optimizer_bytes - e->optimizer_bytes) / TP_GIB,
               (s->activations_bytes - e->activations_bytes) / TP_GIB);
        if (moe)
            printf(" %10.2f", expert_bytes / TP_GIB);
        printf(" %8.2f %10.2f%s\n", s->other_bytes / TP_GIB, s->total_bytes / TP_GIB,
               i == r->peak_stage ? "  (peak)" : "");
    }
    printf("\npeak %.2f GiB of %.2f GiB (%.1f%%; %.1f%% without the allocator's slack): %s\n",
           r->peak_bytes / TP_GIB, r->capacity_bytes / TP_GIB, 100.0 * r->usage_fraction,
           100.0 * r->allocated_fraction, tp_zone_str(r->zone));
}

/* estimate --table: the config's memory, stage by stage. */
static int estimate_table(const char *input)
{
    tp_error err = {TP_OK, "", ""};
    tp_config config;
    tp_estimate_result result;
    if (tp_config_from_json(input, &config, &err) != TP_OK || tp_estimate(&config, &result, &err) != TP_OK)
        return report(&err);
    print_table(&config, &result);
    return 0;
}

/* The top plans, one line each, then the explanation of the best. */
static int print_search_table(const tp_config *config, const tp_search_space *space)
{
    tp_search_result *r = malloc(sizeof *r);
    if (r == NULL) {
        fputs("trainplan: out of memory\n", stderr);
        return 1;
    }
    tp_error err = {TP_OK, "", ""};
    if (tp_search(config, space, r, &err) != TP_OK) {
        free(r);
        return report(&err);
    }
    const tp_search_counts *n = &r->counts;
    int64_t invalid = 0;
    for (int i = 0; i < TP_INVALID_COUNT; i++)
        invalid += n->invalid[i];
    printf("%lld GPUs: %lld plans, %lld invalid, %lld out of memory, %lld fit\n\n",
           (long long)config->system.gpus, (long long)n->candidates, (long long)invalid,
           (long long)n->out_of_memory, (long long)n->fit);
    const int moe = config->model.moe.experts > 0;
    printf("%4s %4s %4s %4s %5s %3s %4s%s %3s %-11s %-9s %-9s %-14s %8s %10s %6s %8s\n", "rank", "tp", "cp",
           "pp", "dp", "mb", "vpp", moe ? "   ep  etp" : "", "sp", "sharding", "recompute", "precision", "placement",
           "step s", "tok/s/GPU", "MFU", "peak GiB");
    for (int i = 0; i < r->top_count; i++) {
        const tp_search_plan *p = &r->top[i];
        const tp_config applied = tp_search_apply(config, p);
        tp_estimate_result est;
        if (tp_estimate(&applied, &est, &err) != TP_OK) {
            free(r);
            return report(&err);
        }
        /* the order's name, or the ranks per node given outright: two plans
         * that differ only there must not print alike */
        char placement[48];
        tp_search_value_label(TP_SEARCH_DIM_PLACEMENT, p->placement, placement, sizeof placement);
        const char *where = strncmp(placement, "placement ", 10) == 0 ? placement + 10 : placement;
        const char *sharding = tp_search_sharding_str(tp_search_plan_sharding(&p->plan));
        printf("%4d %4lld %4lld %4lld %5lld %3lld %4lld", i + 1, (long long)p->plan.tp, (long long)p->plan.cp,
               (long long)p->plan.pp, (long long)p->dp, (long long)p->micro_batch,
               (long long)p->plan.virtual_stages);
        if (moe)
            printf(" %4lld %4lld", (long long)est.ep, (long long)est.etp);
        char precision[8];
        tp_search_value_label(TP_SEARCH_DIM_PRECISION, p->fp8, precision, sizeof precision);
        printf(" %3s %-11s %-9s %-9s %-14s %8.3f %10.0f %6.3f %8.2f\n", p->plan.sp ? "on" : "off", sharding,
               tp_recompute_str(p->recompute), precision, where, est.time.step_s,
               est.throughput.tokens_per_s_per_gpu, est.throughput.mfu, est.peak_bytes / TP_GIB);
    }
    if (r->top_count == 0)
        puts("no plan fits: allow more GPUs, recompute or sharding, or raise search.memory_fraction");
    else
        puts("\nwhy the best plan:");
    for (int d = 0; r->top_count > 0 && d < TP_SEARCH_DIM_COUNT; d++)
        printf("  %s\n", r->explain[d]);
    free(r);
    return 0;
}

/* search --table */
static int search_table(const char *input)
{
    tp_error err = {TP_OK, "", ""};
    tp_config config;
    tp_search_space space;
    if (tp_search_config_from_json(input, &config, &space, &err) != TP_OK)
        return report(&err);
    return print_search_table(&config, &space);
}

/* estimate and search: read the document, then print its JSON output or,
 * with --table, the command's table. */
static int run_document_command(const char *path, int table,
                                char *(*to_json)(const char *, int, tp_error *),
                                int (*print_table_of)(const char *))
{
    char *input = read_input(path);
    if (input == NULL)
        return read_status;
    tp_error err = {TP_OK, "", ""};
    const int status = table ? print_table_of(input) : print_json(to_json(input, 1, &err), &err);
    free(input);
    return status;
}

static int cmd_presets(int table)
{
    if (!table) {
        char *json = tp_presets_json(1);
        if (json == NULL) {
            fputs("trainplan: out of memory\n", stderr);
            return 1;
        }
        puts(json);
        tp_free(json);
        return 0;
    }
    printf("%-16s %6s %6s %6s %8s %8s %8s %10s\n", "model", "layers", "hidden", "heads", "kv_heads",
           "ffn", "vocab", "params (B)");
    for (size_t i = 0; i < tp_model_preset_count(); i++) {
        const tp_model *m = tp_model_preset(i);
        printf("%-16s %6lld %6lld %6lld %8lld %8lld %8lld %10.2f\n", m->name, (long long)m->layers,
               (long long)m->hidden, (long long)m->heads, (long long)m->kv_heads,
               (long long)m->ffn_hidden, (long long)m->vocab, (double)tp_model_params_total(m) / 1e9);
    }
    printf("\n%-12s %10s %14s %11s %11s %10s %12s %13s\n", "gpu", "memory GiB", "tensor TFLOP/s", "FP8 TFLOP/s",
           "FP4 TFLOP/s", "HBM GB/s", "NVLink GB/s", "network Gb/s");
    for (size_t i = 0; i < tp_gpu_preset_count(); i++) {
        const tp_gpu *g = tp_gpu_preset(i);
        printf("%-12s %10.2f %14.1f %11.1f %11.1f %10.0f %12.0f %13.0f\n", g->name, g->memory_bytes / TP_GIB,
               g->tensor_flop_per_s / 1e12, g->fp8_flop_per_s / 1e12, g->fp4_flop_per_s / 1e12,
               g->hbm_bytes_per_s / 1e9,
               g->nvlink_bytes_per_s / 1e9, g->network_bytes_per_s * 8.0 / 1e9);
    }
    /* the fast tier per GPU and one way, the slow one per NIC, as the
     * network fields take them */
    printf("\n%-16s %-12s %13s %14s %13s %5s\n", "cluster", "gpu", "GPUs per node", "fast GB/s", "slow Gb/s",
           "NICs");
    for (size_t i = 0; i < tp_cluster_preset_count(); i++) {
        const tp_cluster *c = tp_cluster_preset(i);
        printf("%-16s %-12s %13lld %14.1f %13.0f %5lld\n", c->name, c->gpu, (long long)c->gpus_per_node,
               c->network.fast.bytes_per_s / 1e9, c->network.slow.bytes_per_s * 8.0 / 1e9,
               (long long)c->network.nics_per_node);
    }
    return 0;
}

/* sweep [FILE|-] [--shard i/n]: one shard of the grid (all of it by default),
 * for one array job of a batch scheduler each. */
static int cmd_sweep(const char *path, int shard, int shards)
{
    char *input = read_input(path);
    if (input == NULL)
        return read_status;
    tp_error err = {TP_OK, "", ""};
    const int status = print_json(tp_sweep_json(input, shard, shards, 1, &err), &err);
    free(input);
    return status;
}

/* sweep --merge FILE...: the shards' outputs as the whole sweep's. */
static int cmd_sweep_merge(int count, char **paths)
{
    if (count < 1) {
        fputs("trainplan: sweep --merge takes the shard outputs to merge\n", stderr);
        return 2;
    }
    char **outputs = calloc((size_t)count, sizeof *outputs);
    int status = outputs == NULL ? 1 : 0;
    for (int i = 0; status == 0 && i < count; i++)
        if ((outputs[i] = read_file(paths[i], MAX_SHARD_OUTPUT_BYTES)) == NULL)
            status = read_status;
    if (status == 0) {
        tp_error err = {TP_OK, "", ""};
        status = print_json(tp_sweep_merge_json((const char *const *)outputs, count, 1, &err), &err);
    }
    for (int i = 0; outputs != NULL && i < count; i++)
        free(outputs[i]);
    free(outputs);
    return status;
}

/* calibrate-log [FILE|-]: a log excerpt, at most TP_LOG_MAX_BYTES. */
static int cmd_calibrate_log(const char *path)
{
    char *input = read_file(path, TP_LOG_MAX_BYTES);
    if (input == NULL)
        return read_status;
    tp_error err = {TP_OK, "", ""};
    const int status = print_json(tp_calibrate_log_json(input, 1, &err), &err);
    free(input);
    return status;
}

/* A decimal count of at most 6 digits (shards number at most 100000). */
static int parse_count(const char *text, const char **end, int *out)
{
    long value = 0;
    int digits = 0;
    for (; *text >= '0' && *text <= '9' && digits < 7; text++, digits++)
        value = value * 10 + (*text - '0');
    *end = text;
    *out = (int)value;
    return digits >= 1 && digits <= 6;
}

/* "i/n", both plain decimal counts, checked before any conversion. */
static int parse_shard(const char *text, int *shard, int *shards)
{
    const char *end;
    if (!parse_count(text, &end, shard) || *end != '/')
        return 0;
    if (!parse_count(end + 1, &end, shards) || *end != '\0')
        return 0;
    return *shards >= 1 && *shards <= 100000 && *shard < *shards;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *command = argv[1];
    const int sweep = strcmp(command, "sweep") == 0;
    if (sweep && argc > 2 && strcmp(argv[2], "--merge") == 0)
        return cmd_sweep_merge(argc - 3, argv + 3);
    const char *path = NULL;
    int table = 0, markdown = 0, shard = 0, shards = 1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--table") == 0 && !sweep) {
            table = 1;
        } else if (strcmp(argv[i], "--markdown") == 0 && strcmp(command, "fields") == 0) {
            markdown = 1;
        } else if (strcmp(argv[i], "--shard") == 0 && sweep && i + 1 < argc) {
            if (!parse_shard(argv[++i], &shard, &shards)) {
                fprintf(stderr, "trainplan: error: --shard takes i/n with 0 <= i < n <= 100000, "
                                "e.g. --shard 3/16 ($SLURM_ARRAY_TASK_ID/16)\n");
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "trainplan: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (path == NULL) {
            path = argv[i];
        } else {
            fprintf(stderr, "trainplan: more than one input file\n");
            return 2;
        }
    }
    if (sweep)
        return cmd_sweep(path, shard, shards);
    if (strcmp(command, "estimate") == 0)
        return run_document_command(path, table, tp_estimate_json, estimate_table);
    if (strcmp(command, "search") == 0)
        return run_document_command(path, table, tp_search_json, search_table);
    if (strcmp(command, "calibrate") == 0 && !table)
        return run_document_command(path, 0, tp_calibrate_json, NULL);
    if (strcmp(command, "calibrate-log") == 0 && !table)
        return cmd_calibrate_log(path);
    if (strcmp(command, "presets") == 0 && path == NULL)
        return cmd_presets(table);
    if (strcmp(command, "fields") == 0 && path == NULL) {
        char *text = markdown ? tp_fields_markdown() : tp_fields_json(1);
        if (text == NULL) {
            fputs("trainplan: out of memory\n", stderr);
            return 1;
        }
        fputs(text, stdout);
        if (!markdown)
            putchar('\n');
        tp_free(text);
        return 0;
    }
    if (strcmp(command, "version") == 0) {
        puts(TP_VERSION);
        return 0;
    }
    if (strcmp(command, "help") == 0 || strcmp(command, "--help") == 0) {
        usage(stdout);
        return 0;
    }
    usage(stderr);
    return 2;
}
