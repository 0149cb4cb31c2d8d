/*
 * bind.c: the WebAssembly entry points. JSON in, JSON out, no logic: each
 * call parses, runs the core and serialises the envelope
 * {"ok":true,"result":...} or {"ok":false,"error":{"status","path","message"}}.
 * Every returned string is owned by the caller and freed with tp_wasm_free.
 * The exported names are listed in exports.json, not annotated here.
 */
#include "trainplan.h"

char *tp_wasm_estimate(const char *config_json)
{
    return tp_estimate_envelope_json(config_json);
}

char *tp_wasm_search(const char *search_json)
{
    return tp_search_envelope_json(search_json);
}

char *tp_wasm_presets(void)
{
    return tp_presets_json(0);
}

const char *tp_wasm_version(void)
{
    return TP_VERSION;
}

void tp_wasm_free(char *ptr)
{
    tp_free(ptr);
}
