/*
 * presets.c: models and GPUs as data, each number with its source.
 *
 * The same table feeds the CLI (`trainplan presets`), the web page (through
 * the wasm binding) and the tests. Names are lowercase with hyphens.
 *
 * GPU memory is the capacity the device reports to the allocator
 * (nvidia-smi "memory.total" in MiB), since that is what a run can fill;
 * where no such reading is known the nominal capacity is used and said so.
 * Tensor rates are dense (no structured sparsity) BF16/FP16 peaks. NVLink
 * is the per-GPU total of both directions as data sheets give it; network is
 * the scale-out bandwidth per GPU in one direction (NIC line rate / 8).
 */
#include <string.h>

#include "tp_internal.h"

#define MIB 1048576.0
#define TFLOP 1e12
#define GB_PER_S 1e9
#define GBIT_PER_S (1e9 / 8.0)

typedef struct {
    tp_model model;
    const char *source;
} model_preset;

typedef struct {
    tp_gpu gpu;
    const char *source;
} gpu_preset;

/* name, arch, layers, hidden, heads, kv_heads, ffn_hidden, vocab,
 * positions (learned, GPT only), tied embeddings, dropout */
static const model_preset model_presets[] = {
    {{"llama-3.1-8b", TP_ARCH_LLAMA, 32, 4096, 32, 8, 14336, 128256, 0, 0, 0},
     "Hugging Face meta-llama/Llama-3.1-8B config.json; seed 003 §4"},
    {{"llama-3.1-70b", TP_ARCH_LLAMA, 80, 8192, 64, 8, 28672, 128256, 0, 0, 0},
     "Hugging Face meta-llama/Llama-3.1-70B config.json; seed 003 §4"},
    {{"llama-3.1-405b", TP_ARCH_LLAMA, 126, 16384, 128, 8, 53248, 128256, 0, 0, 0},
     "Hugging Face meta-llama/Llama-3.1-405B config.json; Llama 3 paper Table 3"},
    {{"llama-2-7b", TP_ARCH_LLAMA, 32, 4096, 32, 32, 11008, 32000, 0, 0, 0},
     "Hugging Face meta-llama/Llama-2-7b-hf config.json"},
    {{"llama-2-13b", TP_ARCH_LLAMA, 40, 5120, 40, 40, 13824, 32000, 0, 0, 0},
     "Hugging Face meta-llama/Llama-2-13b-hf config.json"},
    {{"llama-2-70b", TP_ARCH_LLAMA, 80, 8192, 64, 8, 28672, 32000, 0, 0, 0},
     "Hugging Face meta-llama/Llama-2-70b-hf config.json"},
    {{"mistral-7b", TP_ARCH_LLAMA, 32, 4096, 32, 8, 14336, 32000, 0, 0, 0},
     "Hugging Face mistralai/Mistral-7B-v0.1 config.json (sliding-window "
     "attention does not change parameter or activation counts here)"},
    {{"qwen2.5-7b", TP_ARCH_LLAMA, 28, 3584, 28, 4, 18944, 152064, 0, 0, 0},
     "Hugging Face Qwen/Qwen2.5-7B config.json; its q/k/v biases (129,024 "
     "parameters) are not counted: the llama architecture has no biases"},
    {{"qwen2.5-72b", TP_ARCH_LLAMA, 80, 8192, 64, 8, 29568, 152064, 0, 0, 0},
     "Hugging Face Qwen/Qwen2.5-72B config.json; its q/k/v biases are not "
     "counted: the llama architecture has no biases"},
    {{"gpt3-175b", TP_ARCH_GPT, 96, 12288, 96, 96, 49152, 51200, 2048, 1, 1},
     "Brown et al. 2020 Table 2.1 (96 layers, d_model 12288, 96 heads, n_ctx "
     "2048); vocabulary padded to 51,200 and tied embeddings as in seed 004 §5.1"},
};

/* name, memory, dense tensor FLOP/s, HBM, NVLink, network */
static const gpu_preset gpu_presets[] = {
    {{"a100-40gb", 40960 * MIB, 312 * TFLOP, 1555 * GB_PER_S, 600 * GB_PER_S, 200 * GBIT_PER_S},
     "NVIDIA A100 data sheet (SXM4 40 GB: 312 TFLOP/s BF16 dense, 1,555 GB/s, "
     "NVLink 600 GB/s); 40,960 MiB reported; one 200 Gb/s HDR NIC per GPU as in DGX A100"},
    {{"a100-80gb", 81920 * MIB, 312 * TFLOP, 2039 * GB_PER_S, 600 * GB_PER_S, 200 * GBIT_PER_S},
     "NVIDIA A100 data sheet (SXM4 80 GB: 312 TFLOP/s, 2,039 GB/s, NVLink 600 GB/s); "
     "81,920 MiB reported; one 200 Gb/s HDR NIC per GPU as in DGX A100"},
    {{"h100-80gb", 81559 * MIB, 989.4 * TFLOP, 3350 * GB_PER_S, 900 * GB_PER_S, 400 * GBIT_PER_S},
     "NVIDIA H100 data sheet (SXM5 80 GB: 1,979 TFLOP/s BF16 with sparsity, so 989.4 "
     "dense, 3.35 TB/s, NVLink 900 GB/s); 81,559 MiB reported by nvidia-smi; one 400 Gb/s "
     "NDR NIC per GPU as in DGX H100"},
    {{"h100-94gb", 94 * 1024 * MIB, 989.4 * TFLOP, 3350 * GB_PER_S, 900 * GB_PER_S, 200 * GBIT_PER_S},
     "H100 SXM5 94 GB as in seed 003 (TSUBAME 4.0, 4 per node): capacity taken as the "
     "nominal 94 GiB that seed 003 compares against; compute and NVLink as the SXM5 80 GB; "
     "HBM bandwidth assumed equal to the SXM5 80 GB (not separately published); "
     "one 200 Gb/s NDR200 port per GPU"},
    {{"h200", 143771 * MIB, 989.4 * TFLOP, 4800 * GB_PER_S, 900 * GB_PER_S, 400 * GBIT_PER_S},
     "NVIDIA H200 data sheet (SXM 141 GB, 4.8 TB/s, 989 TFLOP/s BF16 dense, NVLink "
     "900 GB/s); 143,771 MiB reported by nvidia-smi; one 400 Gb/s NIC per GPU as in DGX H200"},
    {{"b200", 183359 * MIB, 2250 * TFLOP, 8000 * GB_PER_S, 1800 * GB_PER_S, 400 * GBIT_PER_S},
     "NVIDIA DGX B200 data sheet (180 GB per GPU; 2.25 PFLOP/s BF16 dense, half the "
     "sparse 4.5; 8 TB/s; NVLink 5 1.8 TB/s); 183,359 MiB reported by nvidia-smi; one "
     "400 Gb/s ConnectX-7 per GPU"},
    {{"mi300x", 196592 * MIB, 1307.4 * TFLOP, 5300 * GB_PER_S, 896 * GB_PER_S, 400 * GBIT_PER_S},
     "AMD Instinct MI300X data sheet (192 GB HBM3, 5.3 TB/s, 1,307.4 TFLOP/s BF16 dense, "
     "Infinity Fabric 896 GB/s peer aggregate); 196,592 MiB assumed usable; one 400 Gb/s "
     "NIC per GPU"},
};

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

size_t tp_model_preset_count(void) { return COUNT(model_presets); }
const tp_model *tp_model_preset(size_t i) { return i < COUNT(model_presets) ? &model_presets[i].model : NULL; }
const char *tp_model_preset_source(size_t i) { return i < COUNT(model_presets) ? model_presets[i].source : NULL; }

const tp_model *tp_model_preset_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < COUNT(model_presets); i++)
        if (strcmp(model_presets[i].model.name, name) == 0)
            return &model_presets[i].model;
    return NULL;
}

size_t tp_gpu_preset_count(void) { return COUNT(gpu_presets); }
const tp_gpu *tp_gpu_preset(size_t i) { return i < COUNT(gpu_presets) ? &gpu_presets[i].gpu : NULL; }
const char *tp_gpu_preset_source(size_t i) { return i < COUNT(gpu_presets) ? gpu_presets[i].source : NULL; }

const tp_gpu *tp_gpu_preset_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < COUNT(gpu_presets); i++)
        if (strcmp(gpu_presets[i].gpu.name, name) == 0)
            return &gpu_presets[i].gpu;
    return NULL;
}
