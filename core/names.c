/*
 * names.c: the name of every enum value in the config and output JSON,
 * value i at index i. The JSON reader (config_json.c) parses with the same
 * lists the tp_*_str functions print, so a name is written once.
 */
#include <stdio.h>

#include "tp_internal.h"

#define NAME_LIST(list, ...)                                               \
    static const char *const list##_items[] = {__VA_ARGS__};               \
    const name_list list = {list##_items, (int)(sizeof list##_items / sizeof list##_items[0])}

NAME_LIST(zone_names, "green", "yellow", "red");
NAME_LIST(dtype_names, "fp32", "bf16", "fp16");
NAME_LIST(arch_names, "llama", "gpt", "vit");
NAME_LIST(attention_names, "gqa", "mla");
NAME_LIST(optimizer_names, "adam", "adamw", "sgd", "adafactor", "adam8bit");
NAME_LIST(sharding_names, "zero", "fsdp_full_shard", "fsdp_shard_grad_op", "fsdp_hybrid_shard",
          "amsp");
NAME_LIST(recompute_names, "none", "selective", "full", "selective_op");
NAME_LIST(framework_names, "megatron-core", "nemo", "torchtitan", "llm-foundry", "deepspeed");
NAME_LIST(schedule_names, "1f1b", "interleaved", "gpipe");
NAME_LIST(fp8_recipe_names, "delayed", "tensorwise", "rowwise", "blockwise", "mxfp8");
NAME_LIST(attention_kernel_names, "flash", "triton", "cudnn", "sdpa");
NAME_LIST(ep_dispatcher_names, "alltoall", "flex");
NAME_LIST(fp8_casts_names, "fused", "compiled");
NAME_LIST(cuda_graphs_names, "none", "layers", "full");
NAME_LIST(tp_algorithm_names, "megatron", "summa");
NAME_LIST(dim_names, "tp", "cp", "dp", "pp");
NAME_LIST(search_sharding_names, "zero0", "zero1", "zero2", "zero3", "fsdp_hybrid", "amsp");
NAME_LIST(invalid_names, "tp_split", "cp_seq", "batch", "layers", "interleave", "amsp_rule",
          "shard_group", "tp_crosses_node");
NAME_LIST(search_dim_names, "tp", "cp", "pp", "dp", "micro_batch", "virtual_stages", "ep", "etp", "sp", "sharding",
          "recompute", "placement", "precision");
NAME_LIST(search_precision_names, "bf16", "fp8"); /* by training.precision.fp8 */

static const char *name_of(const name_list *list, int value)
{
    return value >= 0 && value < list->count ? list->items[value] : "unknown";
}

const char *tp_zone_str(tp_zone zone) { return name_of(&zone_names, (int)zone); }
const char *tp_dtype_str(tp_dtype dtype) { return name_of(&dtype_names, (int)dtype); }
const char *tp_arch_str(tp_arch arch) { return name_of(&arch_names, (int)arch); }
const char *tp_attention_str(tp_attention kind) { return name_of(&attention_names, (int)kind); }
const char *tp_optimizer_str(tp_optimizer opt) { return name_of(&optimizer_names, (int)opt); }
const char *tp_sharding_str(tp_sharding sharding) { return name_of(&sharding_names, (int)sharding); }
const char *tp_recompute_str(tp_recompute mode) { return name_of(&recompute_names, (int)mode); }
const char *tp_framework_str(tp_framework framework) { return name_of(&framework_names, (int)framework); }
const char *tp_schedule_str(tp_schedule schedule) { return name_of(&schedule_names, (int)schedule); }
const char *tp_fp8_recipe_str(tp_fp8_recipe recipe) { return name_of(&fp8_recipe_names, (int)recipe); }
const char *tp_fp8_casts_str(tp_fp8_casts casts) { return name_of(&fp8_casts_names, (int)casts); }
const char *tp_cuda_graphs_str(tp_cuda_graphs graphs) { return name_of(&cuda_graphs_names, (int)graphs); }
const char *tp_ep_dispatcher_str(tp_ep_dispatcher dispatcher)
{
    return name_of(&ep_dispatcher_names, (int)dispatcher);
}
const char *tp_attention_kernel_str(tp_attention_kernel kernel)
{
    return name_of(&attention_kernel_names, (int)kernel);
}
const char *tp_tp_algorithm_str(tp_tp_algorithm a) { return name_of(&tp_algorithm_names, (int)a); }
const char *tp_dim_str(tp_dim dim) { return name_of(&dim_names, (int)dim); }
const char *tp_search_sharding_str(tp_search_sharding s) { return name_of(&search_sharding_names, (int)s); }
const char *tp_invalid_name(tp_invalid reason) { return name_of(&invalid_names, (int)reason); }
const char *tp_search_dim_str(tp_search_dim d) { return name_of(&search_dim_names, (int)d); }

void tp_order_str(const tp_dim order[4], char *out, size_t size)
{
    snprintf(out, size, "%s-%s-%s-%s", tp_dim_str(order[0]), tp_dim_str(order[1]), tp_dim_str(order[2]),
             tp_dim_str(order[3]));
}

double tp_dtype_bytes(tp_dtype dtype)
{
    return dtype == TP_DTYPE_FP32 ? 4.0 : 2.0;
}
