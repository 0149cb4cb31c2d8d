/*
 * bind.c: the WebAssembly entry points. JSON in, JSON out, no logic: each
 * call parses, runs the core and serialises the envelope
 * {"ok":true,"result":...} or {"ok":false,"error":{"status","path","message"}}.
 * Every returned string is owned by the caller and freed with tp_wasm_free.
 * The exported names are listed in exports.json, not annotated here.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "trainplan.h"

char *tp_wasm_estimate(const char *config_json)
{
    return tp_estimate_envelope_json(config_json);
}

char *tp_wasm_search(const char *search_json)
{
    return tp_search_envelope_json(search_json);
}

/* A search split over workers (tp_search_part): each worker fills a result
 * of tp_wasm_search_result_bytes() bytes; the page copies those bytes, which
 * hold no pointers, into one worker's memory and merges them there. Every
 * worker runs this same module, so the layout is the same. */
size_t tp_wasm_search_result_bytes(void)
{
    return sizeof(tp_search_result);
}

char *tp_wasm_search_part(const char *search_json, int part, int parts, tp_search_result *out)
{
    return tp_search_part_envelope_json(search_json, part, parts, out);
}

char *tp_wasm_search_merge(const char *search_json, const tp_search_result *parts, int count)
{
    return tp_search_merge_envelope_json(search_json, parts, count);
}

/* trainplan sweep, whole (shard 0 of 1) or one shard of a split. */
char *tp_wasm_sweep(const char *sweep_json, int shard, int shards)
{
    return tp_sweep_envelope_json(sweep_json, shard, shards);
}

/* The shards' outputs, `count` NUL-terminated texts back to back in one
 * buffer (one copy across the boundary), merged into the whole sweep. */
char *tp_wasm_sweep_merge(const char *texts, int count)
{
    if (count < 1)
        return tp_sweep_merge_envelope_json(NULL, 0); /* the core says why (and past its limit too) */
    const char **outputs = malloc((size_t)count * sizeof *outputs);
    if (outputs == NULL)
        return NULL; /* the wrapper reports out of memory */
    const char *p = texts;
    for (int i = 0; i < count; i++) {
        outputs[i] = p;
        p += strlen(p) + 1;
    }
    char *out = tp_sweep_merge_envelope_json(outputs, count);
    free(outputs);
    return out;
}

/* trainplan calibrate: a runs document (docs/calibrate.md) fitted. */
char *tp_wasm_calibrate(const char *runs_json)
{
    return tp_calibrate_envelope_json(runs_json);
}

/* trainplan calibrate-log: what a pasted log excerpt says of its run. */
char *tp_wasm_calibrate_log(const char *text)
{
    return tp_calibrate_log_envelope_json(text);
}

char *tp_wasm_presets(void)
{
    return tp_presets_json(0);
}

const char *tp_wasm_version(void)
{
    return TP_VERSION;
}

/* Bytes the allocator has handed out and not had back: a browser test runs
 * thousands of calls and requires this flat (no call leaks). */
size_t tp_wasm_heap_in_use(void)
{
    return (size_t)mallinfo().uordblks;
}

void tp_wasm_free(char *ptr)
{
    tp_free(ptr);
}
