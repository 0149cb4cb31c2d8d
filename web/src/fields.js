// fields.js: every input of the page, described once. Each field knows its
// config path (the JSON path the core reports errors against), its URL key,
// its default, its unit and a short help text. state.js, url.js and the
// form all read this table.
import { PLACEMENT_GROUPS, readable } from './format.js';
// The core's field table (`trainplan fields`), written by ci/build.sh: the
// default, unit and range of every field whose path is a core field.
import { CORE_FIELDS } from './corefields.js';
import { calibratedSections, noCalibration } from './calibration.js';

/** @typedef {{key: string, path: string, label: string, unit?: string, help: string,
 *   kind: 'int'|'number'|'select'|'bool'|'list'|'text', group: string, default: string, options?: string[],
 *   optional?: boolean, counts?: boolean}} Field
 * optional: the empty text is allowed and leaves the value to the preset.
 * counts: a count of tokens, samples or GPUs, which may be typed 8k, 1.5M,
 * 2B or 2T (every numeric field takes 1e12). */

/** @type {Field[]} */
export const FIELDS = [
  { key: 'model', path: 'model.preset', label: 'Model', kind: 'select', group: 'Model', default: 'llama-3.1-8b',
    help: 'Architecture preset (layers, hidden, heads, kv heads, MLP width, vocabulary); the fields below override it.' },
  { key: 'mname', path: 'model.name', label: 'Model name', kind: 'text', optional: true, group: 'Model',
    default: '', help: 'The name the results and exports give the model. An import sets it; picking a preset then clears it with the imported sizes.' },
  { key: 'arch', path: 'model.arch', label: 'Architecture', kind: 'select', group: 'Model', default: 'preset',
    options: ['preset', 'llama', 'gpt', 'vit'],
    help: 'llama: RMSNorm, SwiGLU, rotary positions, no biases; gpt: LayerNorm, GeLU, biases, learned positions; vit: gpt\'s blocks as an encoder (attention over every token) reading patches instead of a vocabulary.' },
  { key: 'layers', path: 'model.layers', label: 'Layers', unit: 'L', kind: 'int', optional: true, group: 'Model',
    default: '', help: 'Transformer layers.' },
  { key: 'hidden', path: 'model.hidden', label: 'Hidden size', unit: 'h', kind: 'int', optional: true, group: 'Model',
    default: '', help: 'Model width.' },
  { key: 'heads', path: 'model.heads', label: 'Attention heads', unit: 'a', kind: 'int', optional: true,
    group: 'Model', default: '', help: 'Query heads; must divide the hidden size.' },
  { key: 'kvh', path: 'model.kv_heads', label: 'Key/value heads', unit: 'k', kind: 'int', optional: true,
    group: 'Model', default: '', help: 'Equal to the heads: multi-head; fewer: grouped-query; 1: multi-query.' },
  { key: 'hd', path: 'model.head_dim', label: 'Head size', unit: 'd', kind: 'int', optional: true,
    group: 'Model', default: '', help: 'Size of each attention head when it is not hidden / heads (Qwen3: 128); 0 means hidden / heads.' },
  { key: 'win', path: 'model.window_tokens', label: 'Attention window', kind: 'int', optional: true, group: 'Model',
    default: '', help: 'Sliding-window attention: the keys a windowed layer attends over (Mistral 7B: 4,096; gpt-oss: 128), the rest skipped by flash attention; 0 for none.' },
  { key: 'gevery', path: 'model.global_every', label: 'Global attention every', kind: 'int', optional: true,
    group: 'Model', default: '', help: 'With a window, every n-th layer attends over the whole sequence (gpt-oss: 2; Gemma 3: 6); 0: every layer windowed.' },
  { key: 'yarn', path: 'model.yarn_rope', label: 'YaRN rotary', kind: 'select', group: 'Model', default: 'preset',
    options: ['preset', 'true', 'false'],
    help: 'The rotary embedding is YaRN\'s, stretched past the context the model first trained on (gpt-oss): Megatron-Core applies it in separate passes over Q and K.' },
  { key: 'ffn', path: 'model.ffn_hidden', label: 'MLP width', unit: 'h_ffn', kind: 'int', optional: true,
    group: 'Model', default: '', help: 'Inner size of the MLP.' },
  { key: 'vocab', counts: true, path: 'model.vocab', label: 'Vocabulary', unit: 'tokens', kind: 'int', optional: true,
    group: 'Model', default: '', help: 'Rows of the embedding and the LM head.' },
  { key: 'patch', path: 'model.patch_dim', label: 'Patch size', unit: 'values', kind: 'int', optional: true,
    group: 'Model', default: '', help: 'vit: values per token in and out, channels x patch height x patch width (the ViT of Subramanian et al. 2024: 4 x 4 x 20 = 320).' },
  { key: 'pos', path: 'model.positions', label: 'Learned positions', unit: 'tokens', kind: 'int', optional: true,
    group: 'Model', default: '', help: 'Rows of the learned position table (gpt, vit; the sequence may not exceed it).' },
  { key: 'tied', path: 'model.tied_embeddings', label: 'Tied embeddings', kind: 'select', group: 'Model',
    default: 'preset', options: ['preset', 'true', 'false'], help: 'The embedding and the LM head share one matrix.' },
  { key: 'attn', path: 'model.attention', label: 'Attention', kind: 'select', group: 'Model', default: 'preset',
    options: ['preset', 'gqa', 'mla'],
    help: 'gqa: multi-head, grouped-query or multi-query by the key/value heads; mla: multi-head latent attention (DeepSeek), sized below.' },
  // Mixture of experts (llama architecture); empty fields keep the preset's.
  { key: 'experts', path: 'model.moe.experts', label: 'Routed experts', unit: 'E', kind: 'int', optional: true,
    group: 'Experts', default: '', help: 'Experts in each MoE layer; 0 for a dense model. A dense preset given experts also needs top-k and expert width.' },
  { key: 'topk', path: 'model.moe.experts_per_token', label: 'Experts per token', unit: 'k', kind: 'int', optional: true,
    group: 'Experts', default: '', help: 'Routed experts each token visits (top-k).' },
  { key: 'effn', path: 'model.moe.expert_ffn_hidden', label: 'Expert width', unit: 'h_ffn', kind: 'int', optional: true,
    group: 'Experts', default: '', help: 'SwiGLU width of one routed expert.' },
  { key: 'shexp', path: 'model.moe.shared_experts', label: 'Shared experts', kind: 'int', optional: true,
    group: 'Experts', default: '', help: 'Experts every token visits (DeepSeek, Qwen2-MoE).' },
  { key: 'sffn', path: 'model.moe.shared_ffn_hidden', label: 'Shared expert width', unit: 'h_ffn', kind: 'int', optional: true,
    group: 'Experts', default: '', help: 'Width of one shared expert; the routed width when left empty on a new MoE model.' },
  { key: 'every', path: 'model.moe.every', label: 'MoE every', unit: 'layers', kind: 'int', optional: true,
    group: 'Experts', default: '', help: 'After the dense layers, every n-th layer is MoE (1: all, 2: alternate, Llama 4).' },
  { key: 'fdense', path: 'model.moe.first_dense', label: 'First dense layers', unit: 'layers', kind: 'int', optional: true,
    group: 'Experts', default: '', help: 'Leading layers with the dense MLP of the MLP width (DeepSeek-V3: 3).' },
  { key: 'ebias', path: 'model.moe.expert_bias', label: 'Expert biases', kind: 'select', group: 'Experts',
    default: 'preset', options: ['preset', 'true', 'false'],
    help: 'Each routed expert\'s two matrices carry biases (gpt-oss): Megatron-Core adds the second one\'s, weighed by the router, in passes of its own.' },
  { key: 'clamp', path: 'model.moe.glu_clamp', label: 'Clamped GLU', kind: 'select', group: 'Experts',
    default: 'preset', options: ['preset', 'true', 'false'],
    help: 'The experts clamp the GLU\'s inputs before the activation (gpt-oss\'s swiglu_limit 7): Megatron-Core clamps in a pass of its own and keeps its input for the backward.' },
  { key: 'cf', path: 'training.capacity_factor', label: 'Capacity factor', kind: 'number', group: 'Experts',
    help: 'Tokens the busiest expert gets over an even share; scales routed activations, expert GEMMs and all-to-all.' },
  // Multi-head latent attention; empty fields keep the preset's.
  { key: 'qlora', path: 'model.mla.q_lora_rank', label: 'Query latent', unit: 'rank', kind: 'int', optional: true,
    group: 'Latent attention', default: '', help: 'Rank of the query down-projection; 0 projects queries directly (DeepSeek-V2-Lite).' },
  { key: 'kvlora', path: 'model.mla.kv_lora_rank', label: 'Key/value latent', unit: 'rank', kind: 'int', optional: true,
    group: 'Latent attention', default: '', help: 'Rank of the key/value down-projection (DeepSeek-V3: 512).' },
  { key: 'nope', path: 'model.mla.qk_nope_head_dim', label: 'Q/K head size', unit: 'per head', kind: 'int', optional: true,
    group: 'Latent attention', default: '', help: 'Part of each query and key head without rotary.' },
  { key: 'rope', path: 'model.mla.qk_rope_head_dim', label: 'Rotary head size', unit: 'per head', kind: 'int', optional: true,
    group: 'Latent attention', default: '', help: 'Rotary part of each query head; one rotary key of this size serves all heads.' },
  { key: 'vhd', path: 'model.mla.v_head_dim', label: 'Value head size', unit: 'per head', kind: 'int', optional: true,
    group: 'Latent attention', default: '', help: 'Size of each value head and of the attention output per head.' },
  { key: 'cluster', path: 'system.cluster', label: 'Cluster', kind: 'select', group: 'Hardware', default: 'none',
    help: 'A cluster preset sets GPU, node size and the two network tiers (NVLink, InfiniBand); none: the network follows the GPU.' },
  { key: 'gpu', path: 'system.gpu', label: 'GPU', kind: 'select', group: 'Hardware', default: 'h100-80gb',
    help: 'GPU preset: memory, tensor FLOP/s, HBM and link bandwidths.' },
  { key: 'gpus', counts: true, path: 'system.gpus', label: 'GPUs', unit: 'GPUs', kind: 'int', group: 'Hardware',
    help: 'GPUs in the job; dp = GPUs / (tp·pp·cp).' },
  { key: 'gpn', counts: true, path: 'system.gpus_per_node', label: 'GPUs per node', unit: 'GPUs', kind: 'int', group: 'Hardware', help: 'Size of the NVLink domain.' },
  // A custom GPU and network: empty fields keep the presets' values.
  { key: 'gmem', path: 'system.gpu.memory_gib', label: 'GPU memory', kind: 'number', optional: true,
    group: 'Custom hardware', default: '', help: 'Capacity the device reports to the allocator.' },
  { key: 'gtf', path: 'system.gpu.tensor_tflops', label: 'BF16 tensor peak', kind: 'number', optional: true,
    group: 'Custom hardware', default: '', help: 'Dense BF16 tensor-core peak of one GPU (the MFU\'s denominator).' },
  { key: 'gf8', path: 'system.gpu.fp8_tflops', label: 'FP8 tensor peak', kind: 'number', optional: true,
    group: 'Custom hardware', default: '', help: 'Dense FP8 peak, at which fp8 compute runs the linear layers; 0: none.' },
  { key: 'gf4', path: 'system.gpu.fp4_tflops', label: 'FP4 tensor peak', kind: 'number', optional: true,
    group: 'Custom hardware', default: '', help: 'Dense FP4 peak, at which NVFP4 runs the linear layers; 0: none.' },
  { key: 'ghbm', path: 'system.gpu.hbm_gb_per_s', label: 'HBM bandwidth', kind: 'number', optional: true,
    group: 'Custom hardware', default: '', help: 'Memory bandwidth of one GPU.' },
  { key: 'gnvl', path: 'system.gpu.nvlink_gb_per_s', label: 'NVLink bandwidth', kind: 'number', optional: true,
    group: 'Custom hardware', default: '', help: 'NVLink bandwidth of one GPU, both ways (without a cluster preset).' },
  { key: 'gnet', path: 'system.gpu.network_gbit_per_s', label: 'NIC per GPU', kind: 'number', optional: true,
    group: 'Custom hardware', default: '', help: 'Network bandwidth of one GPU\'s NIC (without a cluster preset).' },
  { key: 'nfast', path: 'system.network.fast_gb_per_s', label: 'Node fabric per GPU', kind: 'number', optional: true,
    group: 'Custom hardware', default: '', help: 'With a cluster: bandwidth inside a node per GPU, one way (NVLink, NVSwitch).' },
  { key: 'nslow', path: 'system.network.slow_gbit_per_s', label: 'Network per NIC', kind: 'number', optional: true,
    group: 'Custom hardware', default: '', help: 'With a cluster: bandwidth of each NIC between nodes.' },
  { key: 'nnics', path: 'system.network.nics_per_node', label: 'NICs per node', kind: 'int', optional: true,
    group: 'Custom hardware', default: '', help: 'With a cluster: NICs each node has for the network between nodes.' },
  { key: 'loader', path: 'system.loader_gb_per_s', label: 'Data loader rate', unit: 'GB/s', kind: 'number', group: 'Hardware', help: 'Bytes per second one training process\'s data loader delivers to its GPU (shared memory, pinned memory, device); fitted on the long-sequence runs of Fujii et al. 2024.' },
  { key: 'overhead', path: 'system.step_overhead_s', label: 'Host overhead per step', unit: 's', kind: 'number', group: 'Hardware', help: 'Time per optimizer step the GPUs wait for the host (the framework\'s Python around the optimizer step, the loss\'s synchronisation); fitted on the published runs, 0 for a loop whose GPU never idles.' },
  { key: 'fw', path: 'training.framework', label: 'Framework', kind: 'select', group: 'Training',
    options: ['megatron-core', 'nemo', 'torchtitan', 'llm-foundry', 'deepspeed'],
    help: 'The trainer: its defaults the estimate counts (the cross-entropy\'s workspace, FSDP\'s mixed precision, a fused SwiGLU, fp8 inputs kept by the linear layers; docs/config.md, Frameworks).' },
  { key: 'seq', counts: true, path: 'training.seq_len', label: 'Sequence length', unit: 'tokens', kind: 'int', group: 'Training', help: 'Tokens per sample (s).' },
  { key: 'docs', counts: true, path: 'training.document_tokens', label: 'Packed document length', kind: 'int', group: 'Training',
    help: 'Samples packed from shorter documents that attend only within themselves (packed fine-tuning data such as SQuAD, Megatron-Core\'s packed sequences, document masking): their mean length in tokens. Attention then costs documents × their length², not the sample\'s length². 0: one document per sample. Needs FlashAttention.' },
  { key: 'gbs', counts: true, path: 'training.global_batch', label: 'Global batch', unit: 'samples', kind: 'int', group: 'Training', help: 'Samples per optimizer step.' },
  { key: 'tokens', counts: true, path: 'training.train_tokens', label: 'Tokens to train', unit: 'tokens', kind: 'int',
    group: 'Training', help: 'Tokens of the whole run, for time to train and GPU-hours.' },
  { key: 'price', path: 'training.gpu_hour_cost', label: 'Price per GPU-hour', unit: '$', kind: 'number',
    group: 'Training', help: 'Cost of one GPU-hour; 0 leaves the cost out.' },
  { key: 'mbs', counts: true, path: 'training.micro_batch', label: 'Micro-batch', unit: 'samples', kind: 'int', group: 'Training', help: 'Samples per micro-batch (b).' },
  { key: 'weights', path: 'training.precision.weights', label: 'Weights', kind: 'select', group: 'Precision', options: ['bf16', 'fp16', 'fp32'], help: 'Working copy of the weights.' },
  { key: 'grads', path: 'training.precision.gradients', label: 'Gradients', kind: 'select', group: 'Precision', options: ['fp32', 'bf16', 'fp16'], help: 'Gradient accumulation buffer.' },
  { key: 'master', path: 'training.precision.master_weights', label: 'fp32 master weights', kind: 'bool',
    group: 'Precision', help: 'A 4-byte master copy (only counted when weights are not fp32).' },
  { key: 'fp8', path: 'training.precision.fp8', label: 'fp8 compute', kind: 'bool', group: 'Precision', help: 'Transformer Engine fp8 GEMMs: caches an fp8 copy of the weights and its transpose (one copy with per-tensor scaling on Blackwell, whose fp8 GEMMs read it either way).' },
  { key: 'fp8r', path: 'training.precision.fp8_recipe', label: 'fp8 scaling', kind: 'select', group: 'Precision',
    default: 'framework', options: ['framework', 'delayed', 'tensorwise', 'rowwise', 'blockwise', 'mxfp8'],
    help: 'With fp8 compute: how the GEMMs scale their operands (Megatron-LM --fp8-recipe; torchao rowwise). It sets their speed, measured on an H200 and an H100 (per tensor 92%, per row 87%, 1x128/128x128 blocks 81% of bf16\'s share of the peak; mxfp8, Blackwell only, 100%) and the casts each linear layer adds (per row each operand is cast again along its other axis for the weight gradient). framework: the trainer\'s default (delayed; torchtitan tensorwise).' },
  { key: 'fp8c', path: 'training.precision.fp8_casts', label: 'fp8 cast kernels', kind: 'select', group: 'Precision',
    default: 'framework', options: ['framework', 'fused', 'compiled'],
    help: 'With fp8 compute: fused: Transformer Engine\'s fused amax, cast and transpose kernels, at the bytes they must move; compiled: torch.compile\'s kernels for torchao\'s casts, which cost whole training steps on an H100 and an H200 1.4 (per tensor) and 2 (per row) times those bytes, up to 2.9 for the other recipes. framework: the trainer\'s default (compiled for torchtitan, fused for the others).' },
  { key: 'fp8p', path: 'training.precision.fp8_params', label: 'fp8 weights', kind: 'bool', group: 'Precision',
    help: 'With fp8 compute: the layers\' weights themselves are fp8 with their transpose (2 bytes, not bf16 and an fp8 cache: 4; on Blackwell with per-tensor scaling 1, not 3; the embedding and LM head stay bf16), gathered in fp8 (Megatron-LM --fp8-param-gather); needs fp32 master weights and a sharded optimizer.' },
  { key: 'fp4', path: 'training.precision.fp4', label: 'NVFP4 GEMMs', kind: 'bool', group: 'Precision',
    help: 'With fp8 compute: the linear layers\' matrix multiplies in NVFP4 at the GPU\'s FP4 peak (Blackwell; Transformer Engine\'s NVFP4 recipe); two weight copies and the saved inputs at half a byte a value with a 1-byte scale per 16.' },
  { key: 'opt', path: 'training.optimizer', label: 'Optimizer', kind: 'select', group: 'Precision',
    options: ['adam', 'adamw', 'sgd', 'adafactor', 'adam8bit'],
    help: 'Adam/AdamW keep two states, SGD one, Adafactor factors the second moment, 8-bit Adam stores int8 states.' },
  { key: 'optdt', path: 'training.precision.optimizer', label: 'Optimizer states', kind: 'select', group: 'Precision', options: ['fp32', 'bf16', 'fp16'], help: 'Precision of the optimizer states (not 8-bit Adam).' },
  { key: 'recompute', path: 'training.recompute', label: 'Recompute', kind: 'select', group: 'Training', options: ['none', 'selective', 'full', 'selective_op'],
    optionLabels: { selective_op: 'per-op (torchtitan)' },
    help: 'Selective recomputes the attention core; full keeps only each layer input; per-op (torchtitan) keeps every other matrix multiply\'s output and recomputes the rest.' },
  { key: 'rclayers', path: 'training.recompute_layers', label: 'Layers recomputed per stage', unit: 'layers', kind: 'int',
    group: 'Training',
    help: 'Full recompute only: how many layers of each pipeline stage recompute, the rest keeping all activations (Megatron\'s --recompute-method block); 0 means every layer.' },
  { key: 'rcmlp', path: 'training.recompute_mlp', label: 'Recompute the MLP', kind: 'bool', group: 'Training',
    help: 'The dense MLP and its norm run again in the backward, keeping only their input (Megatron-Core --recompute-modules mlp); with recompute none or selective.' },
  { key: 'rcnorm', path: 'training.recompute_norms', label: 'Recompute the norms', kind: 'bool', group: 'Training',
    help: 'The norms\' outputs run again in the backward (Megatron-Core --recompute-modules layernorm); with fp8 the linear layers keep their own copies, so nothing is saved.' },
  { key: 'rcup', path: 'training.recompute_mla_up_proj', label: 'Recompute MLA up-projections', kind: 'bool', group: 'Training',
    help: 'Latent attention: Q, K and V run again from their latents in the backward (Megatron-Core --recompute-modules mla_up_proj).' },
  { key: 'rcact', path: 'training.recompute_moe_act', label: 'Recompute the experts\' SwiGLU', kind: 'bool', group: 'Training',
    help: 'MoE: the routed experts\' SwiGLU output runs again in the backward (Megatron-Core --recompute-modules moe_act).' },
  { key: 'offload', path: 'training.offload_layers', label: 'Layers offloaded to host', unit: 'layers', kind: 'int',
    group: 'Training',
    help: 'Layers whose activations wait in host memory between forward and backward, copied over the GPU\'s host link behind the other layers (Megatron-Core --cpu-offloading-num-layers); pipeline parallel 1, no recompute, fewer than the layers. 0: none.' },
  { key: 'flash', path: 'training.flash_attention', label: 'FlashAttention', kind: 'bool', group: 'Training', help: 'Without it the attention scores (s² per head) are stored.' },
  { key: 'attk', path: 'training.attention_kernel', label: 'Attention kernel', kind: 'select', group: 'Training',
    default: 'framework', options: ['framework', 'cudnn', 'flash', 'triton', 'sdpa'],
    help: 'With FlashAttention: which kernel runs it. cudnn: cuDNN 9\'s fused attention (Transformer Engine\'s, on Hopper and Blackwell; FlashAttention-3), 1.7 times FlashAttention-2 as measured on an H100 (56% against 33% of the peak); flash: FlashAttention-2; triton: FlashAttention written in Triton (llm-foundry\'s attn_impl triton), 1.8 times slower than FlashAttention-2 (Dao 2023); sdpa: PyTorch\'s scaled_dot_product_attention, as flash on NVIDIA GPUs and as triton on AMD Instinct GPUs, where PyTorch runs AOTriton\'s Triton kernels. framework: the trainer\'s default (cudnn for Megatron-Core and NeMo, triton for llm-foundry, sdpa for torchtitan, flash for DeepSpeed).' },
  { key: 'eager', path: 'training.eager', label: 'Element-wise kernels', kind: 'select', group: 'Training',
    default: 'framework', options: ['framework', 'fused', 'eager'],
    help: 'How a Llama layer\'s norms, rotary and SwiGLU run. fused: one kernel each (Megatron-Core, Transformer Engine, or torch.compile\'s); eager: PyTorch without torch.compile, each RMSNorm in fp32 through separate kernels (36 bytes per element against 4), rotary through fp32 complex numbers, SwiGLU in two kernels and grouped-query K and V copied out to every head. With torchtitan, fused means torch.compile, whose partitioner also rebuilds the norms\' outputs and SwiGLU\'s product in the backward instead of keeping them (training.recompute_elementwise): 4 bytes per element of the MLP\'s width and 4 of the hidden size fewer a layer. framework: the trainer\'s default (eager for torchtitan, whose compile option is off by default; fused for the others).' },
  { key: 'cgraph', path: 'training.cuda_graphs', label: 'CUDA graphs', kind: 'select', group: 'Training',
    options: ['none', 'layers', 'full'],
    help: 'Kernels replayed from CUDA graphs, each without the host\'s dispatch (a third of the kernel latency kept: 20 of the H100\'s 30 µs are the host\'s PyTorch call). layers: each layer\'s kernels but the routed experts\' (Megatron-Core\'s per-layer graphs, Transformer Engine\'s over attention and MLP); full: the whole step, routed experts and optimizer too, with no host time between steps (Megatron --cuda-graph-impl full_iteration).' },
  { key: 'ggemm', path: 'training.grouped_gemm', label: 'Expert GEMMs', kind: 'select', group: 'Training',
    default: 'framework', options: ['framework', 'grouped', 'each'],
    help: 'MoE: how the local experts\' matrices run. grouped: one kernel a matrix (torch._grouped_mm, CUTLASS or DeepGEMM grouped GEMMs); each: one cuBLAS GEMM launched per local expert (Transformer Engine\'s GroupedLinear under Megatron-Core), a kernel latency for each. framework: the trainer\'s default (each for Megatron-Core, NeMo and DeepSpeed; grouped for torchtitan and llm-foundry).' },
  { key: 'dlmask', path: 'training.dataloader_mask', label: 'Mask built by data loader', kind: 'bool', group: 'Training', help: 'The data loader builds a dense s × s causal mask for every sample, as Megatron-LM does without --no-create-attention-mask-in-dataloader; at 32K tokens the GPUs can wait for it.' },
  // tp 2, not the core's 1: the page opens on a plan that fits (Llama 3.1 8B at
  // 8K tokens on 8 H100s peaks at 78% of memory with tp 2, 140% with tp 1)
  { key: 'tp', path: 'parallel.tp', label: 'Tensor parallel', unit: 'tp', kind: 'int', group: 'Parallelism', default: '2', help: 'Splits every layer across GPUs; must divide heads and kv heads.' },
  { key: 'pp', path: 'parallel.pp', label: 'Pipeline parallel', unit: 'pp', kind: 'int', group: 'Parallelism', help: 'Splits the layers into pipeline stages of at least one layer each; when it does not divide them, see First and Last stage layers.' },
  { key: 'cp', path: 'parallel.cp', label: 'Context parallel', unit: 'cp', kind: 'int', group: 'Parallelism', help: 'Splits the sequence; must divide the sequence length.' },
  { key: 'sp', path: 'parallel.sp', label: 'Sequence parallel', kind: 'bool', group: 'Parallelism',
    help: 'Splits norm and block inputs over tp (Korthikanti et al. 2023).' },
  { key: 'tpo', path: 'parallel.tp_overlap', label: 'TP overlap', kind: 'bool', group: 'Parallelism',
    help: 'Tensor-parallel collectives pipelined with their matrix multiplies (Megatron-LM --tp-comm-overlap, torchtitan async TP).' },
  { key: 'cpo', path: 'parallel.cp_overlap', label: 'CP ring overlap', kind: 'bool', group: 'Parallelism',
    help: 'Context parallel: each ring step\'s K/V exchange runs beside the attention of the block before it (Transformer Engine, PyTorch ring attention); off counts it exposed.' },
  { key: 'tpalg', path: 'parallel.tp_algorithm', label: 'TP algorithm', kind: 'select', group: 'Parallelism', options: ['megatron', 'summa'],
    help: 'Megatron splits heads and MLP width over tp (with cp, the 2D TP of Subramanian et al. 2024); SUMMA splits every weight over tp·cp and broadcasts panels (Subramanian et al. 2024, Table A2). Dense models, sp on.' },
  { key: 'panels', path: 'parallel.summa_panels', label: 'SUMMA panels', unit: 'n_b', kind: 'int', group: 'Parallelism', help: 'SUMMA only: panels per multiply (must divide hidden and MLP width); 0 picks the fastest.' },
  { key: 'place', path: 'parallel.per_node', label: 'GPUs per node of each group', unit: 'tp,cp,dp,pp',
    kind: 'list', optional: true, group: 'Parallelism', default: '',
    help: 'How many ranks of each tp, cp, dp and pp group share a node (the placement of Subramanian et al. 2024), e.g. 4,1,1,2; they multiply to the GPUs per node. Empty: Megatron\'s rank order, tp first.' },
  { key: 'ep', path: 'parallel.ep', label: 'Expert parallel', unit: 'ep', kind: 'int', group: 'Parallelism', help: 'MoE: splits each layer\'s experts over GPUs (E/ep whole experts each); must divide the experts.' },
  { key: 'epo', path: 'parallel.ep_overlap', label: 'Expert all-to-all overlap', kind: 'bool', group: 'Parallelism',
    help: 'MoE: each micro-batch\'s dispatch and combine run beside another micro-batch\'s compute (Megatron-Core --overlap-moe-expert-parallel-comm --delay-wgrad-compute).' },
  { key: 'epd', path: 'parallel.ep_dispatcher', label: 'Expert dispatcher', kind: 'select', group: 'Parallelism',
    options: ['alltoall', 'flex'],
    help: 'MoE: how tokens reach their experts on other nodes. alltoall: every routed copy to its expert\'s GPU (NCCL\'s all-to-all); flex: each token crosses the network once per node it reaches, at the 89% of the NICs\' line rate DeepEP\'s kernels reach, and NVLink forwards its copies (DeepEP, HybridEP; Megatron-Core --moe-token-dispatcher-type flex).' },
  { key: 'etp', path: 'parallel.etp', label: 'Expert tensor parallel', unit: 'etp', kind: 'int', optional: true,
    group: 'Parallelism',
    help: 'MoE: splits each expert\'s width; empty means tp. ep·etp must divide tp·cp·dp; the experts\' own data parallel is tp·cp·dp/(ep·etp).' },
  { key: 'schedule', path: 'parallel.schedule', label: 'Pipeline schedule', kind: 'select', group: 'Parallelism', options: ['1f1b', 'interleaved', 'gpipe'],
    help: 'Interleaved holds L(1 + (p−1)/(pv)) layers on the first stage; GPipe holds every micro-batch.' },
  { key: 'vstages', path: 'parallel.virtual_stages', label: 'Model chunks per GPU', unit: 'v', kind: 'int',
    group: 'Parallelism', default: '2', // the core's 1 is what the other schedules take; interleaved needs 2 or more
    help: 'Interleaved schedule only; pp·v must divide the layers, or every stage\'s layers given below must split into v chunks.' },
  { key: 'fsl', path: 'parallel.first_stage_layers', label: 'First stage layers', kind: 'int', group: 'Parallelism',
    help: 'Layers of the first pipeline stage, the middle stages sharing the rest evenly (Megatron-LM --decoder-first-pipeline-num-layers). 0 balances: when pp does not divide the layers, the embedding and the LM head count as a layer each and the stages take as even shares as they can, earlier ones the extra (torchtitan\'s default; 405B\'s 126 layers at pp 16: 7, 14 × 8, 7).' },
  { key: 'lsl', path: 'parallel.last_stage_layers', label: 'Last stage layers', kind: 'int', group: 'Parallelism',
    help: 'Layers of the last pipeline stage (Megatron-LM --decoder-last-pipeline-num-layers); 0 balances, or with only the first stage given takes a middle stage\'s share.' },
  { key: 'sharding', path: 'parallel.sharding', label: 'Sharding', kind: 'select', group: 'Sharding',
    options: ['zero', 'fsdp_full_shard', 'fsdp_shard_grad_op', 'fsdp_hybrid_shard'],
    help: 'ZeRO stages, or PyTorch FSDP strategies; hybrid shards inside a group and replicates across.' },
  { key: 'zero', path: 'parallel.zero', label: 'ZeRO stage', kind: 'select', group: 'Sharding',
    options: ['0', '1', '2', '3'],
    help: 'With ZeRO sharding: 1 shards optimizer states over dp·cp (distributed optimizer), 2 also gradients, 3 also weights.' },
  { key: 'group', counts: true, path: 'parallel.shard_group', label: 'Shard group', unit: 'GPUs', kind: 'int', group: 'Sharding', help: 'With hybrid shard: ranks per shard group; 0 means one node.' },
  // The search's constraints: its own group, shown with the search results.
  { key: 'stp', path: 'search.tp', label: 'Largest tp', unit: 'tp', kind: 'int', group: 'Search', default: '0',
    help: 'Tensor parallel sizes tried go up to this; 0 means no limit (a tp group still stays inside a node).' },
  { key: 'spp', path: 'search.pp', label: 'Largest pp', unit: 'pp', kind: 'int', group: 'Search', default: '0',
    help: 'Pipeline sizes tried go up to this; 0 means no limit.' },
  { key: 'smb', counts: true, path: 'search.micro_batch', label: 'Largest micro-batch', unit: 'samples', kind: 'int',
    group: 'Search', default: '16', help: 'Micro-batch sizes tried go up to this.' },
  { key: 'smem', path: 'search.memory_fraction', label: 'Memory limit', unit: '% of capacity', kind: 'int',
    group: 'Search', default: '80', help: 'A plan fits when its peak stays under this share of GPU memory (Fujii et al. 2024: 80%).' },
  { key: 'samsp', path: 'search.sharding', label: 'Try AMSP sharding', kind: 'bool', group: 'Search', default: '0',
    help: 'Also shard each model state inside or across nodes on its own (AMSP, Chen et al. 2023); multiplies the space.' },
  { key: 'sfp8', path: 'search.precision', label: 'Try fp8', kind: 'bool', group: 'Search', default: '0',
    help: 'Also try fp8 compute (Transformer Engine fp8 GEMMs) beside bf16; each plan says which. Only on a GPU with FP8 tensor cores.' },
  { key: 'sgpus', path: 'search.gpus', label: 'Scaling GPU counts', unit: 'comma-separated', kind: 'list',
    group: 'Search', default: '64,128,256,512,1024', help: 'The best plan on each count, for the scaling chart; empty for none.' },
];

/** The core's default of a field as the form's text: '1'/'0' for a flag. */
function coreDefault(row) {
  if (row.type === 'boolean') return row.default ? '1' : '0';
  return String(row.default);
}

// Each field the core describes takes from it what the page does not say
// itself: its default, its unit and its range (min, max).
for (const f of FIELDS) {
  const row = CORE_FIELDS.find((r) => r.path === f.path);
  if (!row) continue;
  f.core = row;
  if (f.default === undefined) f.default = row.from_preset ? '' : coreDefault(row);
  if (f.unit === undefined && row.unit !== '') f.unit = row.unit;
  if (row.min !== undefined) Object.assign(f, { min: row.min, max: row.max });
}

/** The form's groups; the Search group is shown with the search results. */
export const GROUPS = ['Model', 'Experts', 'Latent attention', 'Hardware', 'Custom hardware', 'Training', 'Precision',
  'Parallelism', 'Sharding'];
export const SEARCH_GROUP = 'Search';

/** @returns {Record<string, string>} */
export function defaultInputs() {
  return { ...Object.fromEntries(FIELDS.map((f) => [f.key, f.default])), ...noCalibration() };
}

const DEFAULTS = defaultInputs();
const FIELD_BY_KEY = new Map(FIELDS.map((f) => [f.key, f]));

/** What a link may carry for a list field: up to 32 GPU counts, or nothing. */
export const LIST_TEXT = /^([0-9]{1,8}(,[0-9]{1,8}){0,31})?$/;
/** A model name: what a Hugging Face repository id looks like, within the
 * core's 47 characters for model.name. */
export const NAME_TEXT = /^[A-Za-z0-9][A-Za-z0-9 ._\/+(),-]{0,46}$/;

/** Powers of ten of the count suffixes (case aside): k 3, M 6, B and G 9, T 12. */
const SUFFIX_EXPONENT = { k: 3, m: 6, b: 9, g: 9, t: 12 };
/** A number as people type it: 8192, 0.48, 1e12, and on a count field 8k,
 * 1.5M, 2B, 2T. The sign is allowed here so that -8 is named as out of
 * range rather than as not a number. */
const NUMBER_TYPED = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:e([+-]?[0-9]{1,3}))?\s?([kmbgt])?$/i;
/** At most this many characters are read as a number (a link's values too). */
const MAX_NUMBER_TEXT = 24;

/** The value a unit names, singular for 1 ("1 GPU", "2 GPUs"); `text`,
 * the value as typed, else the value as format.js reads it out. */
function withUnit(value, unit, text = readable(value)) {
  if (!unit) return text;
  const one = value === 1 && /[a-z]s$/i.test(unit) ? unit.slice(0, -1) : unit;
  return `${text} ${one}`;
}

/** A numeric field's text read: {value} (null for an empty optional field),
 * {problem}, a sentence that names the text typed and, in the field's unit,
 * what is allowed, or both for a number out of range. */
export function readNumber(field, text) {
  if (text === '' && field.optional) return { value: null };
  const unit = field.core?.unit ?? '';
  const range = field.min === undefined ? '' : ` (from ${withUnit(field.min, unit)} to ${withUnit(field.max, unit)})`;
  const shown = JSON.stringify(text.length > MAX_NUMBER_TEXT ? text.slice(0, MAX_NUMBER_TEXT) + '…' : text);
  const match = text.length <= MAX_NUMBER_TEXT ? NUMBER_TYPED.exec(text) : null;
  if (!match || (match[3] && !field.counts)) {
    const examples = field.counts ? '8192, 8k, 1.5M, 2B or 1e12' : field.kind === 'int' ? '12 or 1e3' : '0.5 or 1e-3';
    return { problem: `${shown} is not a number; write it as ${examples}${range}` };
  }
  const [, mantissa, exponent = '0', suffix] = match;
  // the powers are added as text, so 1.1k is 1100 exactly, not 1100.0000000000002
  const value = Number(`${mantissa}e${Number(exponent) + (suffix ? SUFFIX_EXPONENT[suffix.toLowerCase()] : 0)}`);
  if (!Number.isFinite(value)) return { problem: `${shown} is too large a number${range}` };
  if (field.kind === 'int' && !Number.isInteger(value)) {
    return { problem: `${shown} is not a whole number${unit ? ' of ' + unit : ''}${range}` };
  }
  // a number out of range is still sent, for the core to refuse at its path
  if (field.min !== undefined && !(value >= field.min && value <= field.max)) {
    return { value, problem: `${withUnit(value, unit, text)} is out of range${range}` };
  }
  if (field.kind === 'int' && !Number.isSafeInteger(value)) {
    return { problem: `${shown} is too large to count exactly` };
  }
  return { value };
}

/** What is wrong with a field's text, or null: a number that does not read
 * or is out of the core's range, a name or list of the wrong shape. */
export function fieldProblem(field, text) {
  if (field.kind === 'int' || field.kind === 'number') return readNumber(field, text).problem ?? null;
  if (field.kind === 'text' && text !== '' && !NAME_TEXT.test(text)) {
    return `${JSON.stringify(text)}: a name is letters, digits, spaces and . _ / + ( ) , -, at most 47 characters`;
  }
  return null;
}

/** A model field's value in a preset (presets.models[i]), as the form's
 * text, or '' where the preset has none: shown in the empty field. */
export function presetValue(field, preset) {
  if (!preset || !field.path.startsWith('model.')) return '';
  const value = field.path.split('.').slice(1).reduce((o, k) => o?.[k], preset);
  return value === undefined || value === null || typeof value === 'object' ? '' : String(value);
}

/** What an empty custom-hardware field stands for: the GPU preset's value,
 * or the cluster preset's network's. */
export function hardwareValue(field, inputs, presets) {
  const [, section, key] = field.path.split('.');
  const from = section === 'gpu' ? presets?.gpus.find((g) => g.name === inputs.gpu)
    : presets?.clusters.find((c) => c.name === inputs.cluster)?.network;
  const value = from?.[key];
  return typeof value === 'number' ? String(Math.round(value * 1000) / 1000) : '';
}

/** The custom GPU's and network's fields the user set, by section. */
function customHardware(inputs) {
  const out = { gpu: {}, network: {} };
  for (const f of FIELDS) {
    if (f.group !== 'Custom hardware' || inputs[f.key] === '') continue;
    const [, section, key] = f.path.split('.');
    out[section][key] = numberOrText(inputs, f.key);
  }
  return out;
}

/** The form's fields (the Search group aside) a core error is about: the
 * one at its path, and every field its message names, by its path
 * ("model.heads") or by a key no prose word shares ("micro_batch" in "1024
 * is not a multiple of micro_batch*dp", "tp" in "tp*pp*cp=8"), so that a
 * rule between fields marks the field just typed as well as the one the
 * path names. */
export function errorFields(error) {
  if (!error?.path) return [];
  const mentions = (word) => new RegExp(`(^|[^a-z_.])${word.replace(/\./g, '\\.')}($|[^a-z_])`).test(error.message);
  const named = (f) => {
    const leaf = f.path.split('.').pop();
    return mentions(f.path) || ((leaf.includes('_') || leaf.length <= 3) && mentions(leaf));
  };
  return FIELDS.filter((f) => f.group !== SEARCH_GROUP
    && (error.path === f.path || error.path.startsWith(f.path + '.') || named(f))).map((f) => f.key);
}

/** A core error in the form's words: where the field at its path holds
 * text the page reads as out of range or not a number, the page's message
 * (the value typed, the range in the field's unit) replaces the core's. */
export function describeError(error, inputs) {
  const f = FIELDS.find((x) => x.path === error?.path);
  const problem = f && fieldProblem(f, inputs[f.key]);
  return problem ? { ...error, message: problem } : error;
}

/** A numeric field's text as a number when it reads as one, else the text,
 * so the core reports its own reason against the field's path. */
function numberOrText(inputs, key) {
  const f = FIELD_BY_KEY.get(key);
  const { value } = readNumber(f, inputs[key]);
  return value === undefined || value === null ? inputs[key] : value;
}

/** The config document (the CLI's input format) for a set of inputs. */
export function toConfig(inputs) {
  const n = (key) => numberOrText(inputs, key);
  const system = { gpu: inputs.gpu, gpus: n('gpus'), gpus_per_node: n('gpn') };
  if (inputs.cluster !== 'none') system.cluster = inputs.cluster;
  const parallel = { tp: n('tp'), pp: n('pp'), cp: n('cp'), sp: inputs.sp === '1', sharding: inputs.sharding,
    schedule: inputs.schedule };
  // Fields of one scheme or schedule are errors with another in the core, so
  // the page sends each only where it applies (the form still shows it).
  if (inputs.sharding === 'zero') parallel.zero = n('zero');
  if (inputs.sharding === 'fsdp_hybrid_shard' && inputs.group !== '0') parallel.shard_group = n('group');
  if (inputs.schedule === 'interleaved') parallel.virtual_stages = n('vstages');
  // uneven stages only where given, so a config that leaves them stays as it was
  if (inputs.fsl !== '0') parallel.first_stage_layers = n('fsl');
  if (inputs.lsl !== '0') parallel.last_stage_layers = n('lsl');
  // expert fields only where set, so a dense model's config stays as it was
  if (inputs.ep !== '1') parallel.ep = n('ep');
  if (inputs.etp !== '') parallel.etp = n('etp');
  Object.assign(parallel, tpAlgorithm(inputs));
  if (inputs.place !== '') parallel.per_node = perNode(inputs.place);
  const training = {
    seq_len: n('seq'), global_batch: n('gbs'), micro_batch: n('mbs'),
    train_tokens: n('tokens'), gpu_hour_cost: numberOrText(inputs, 'price'),
    optimizer: inputs.opt, recompute: inputs.recompute, flash_attention: inputs.flash === '1',
    precision: { weights: inputs.weights, gradients: inputs.grads, optimizer: inputs.optdt,
      master_weights: inputs.master === '1', fp8: inputs.fp8 === '1' },
  };
  // these only where set, so a config that leaves them stays as it was
  const changed = (key) => inputs[key] !== DEFAULTS[key];
  if (changed('fw')) training.framework = inputs.fw;
  if (changed('cf')) training.capacity_factor = numberOrText(inputs, 'cf');
  if (changed('dlmask')) training.dataloader_mask = inputs.dlmask === '1';
  if (inputs.recompute === 'full' && changed('rclayers')) training.recompute_layers = n('rclayers');
  if (changed('offload')) training.offload_layers = n('offload');
  if (inputs.fp8 === '1' && changed('fp8p')) training.precision.fp8_params = inputs.fp8p === '1';
  if (inputs.fp8 === '1' && changed('fp4')) training.precision.fp4 = inputs.fp4 === '1';
  if (inputs.fp8 === '1' && changed('fp8r')) training.precision.fp8_recipe = inputs.fp8r;
  if (inputs.fp8 === '1' && changed('fp8c')) training.precision.fp8_casts = inputs.fp8c;
  if (inputs.flash === '1' && changed('attk')) training.attention_kernel = inputs.attk;
  if (inputs.flash === '1' && changed('docs')) training.document_tokens = n('docs');
  if (changed('eager')) training.eager = inputs.eager === 'eager';
  if (changed('cgraph')) training.cuda_graphs = inputs.cgraph;
  if (changed('ggemm')) training.grouped_gemm = inputs.ggemm === 'grouped';
  const modules = { rcmlp: 'recompute_mlp', rcnorm: 'recompute_norms', rcup: 'recompute_mla_up_proj',
    rcact: 'recompute_moe_act' };
  for (const [key, field] of Object.entries(modules)) {
    if (changed(key) && takesModules(inputs)) training[field] = inputs[key] === '1';
  }
  if (changed('epo') && inputs.ep !== '1') parallel.ep_overlap = inputs.epo === '1';
  if (changed('epd') && inputs.ep !== '1') parallel.ep_dispatcher = inputs.epd;
  if (changed('tpo')) parallel.tp_overlap = inputs.tpo === '1';
  if (changed('cpo') && inputs.cp !== '1') parallel.cp_overlap = inputs.cpo === '1';
  if (changed('loader')) system.loader_gb_per_s = numberOrText(inputs, 'loader');
  if (changed('overhead')) system.step_overhead_s = numberOrText(inputs, 'overhead');
  const custom = customHardware(inputs);
  if (Object.keys(custom.gpu).length > 0) system.gpu = { preset: inputs.gpu, ...custom.gpu };
  if (Object.keys(custom.network).length > 0 && inputs.cluster !== 'none') {
    system.network = { preset: inputs.cluster, ...custom.network };
  }
  const config = { model: toModel(inputs), system, training, parallel };
  return withCalibration(config, inputs);
}

/** Megatron-Core's recompute modules go beside recompute none or selective
 * only (the core refuses them with the others). */
function takesModules(inputs) {
  return inputs.recompute === 'none' || inputs.recompute === 'selective';
}

/** The config with the calibrated cluster's values (calibration.js) over
 * its GPU and cluster presets, when one is applied. */
function withCalibration(config, inputs) {
  const cal = calibratedSections(inputs);
  if (!cal) return config;
  const { system } = config;
  // the calibrated values over the custom ones, both over the presets
  const custom = (section) => (typeof section === 'object' ? section : {});
  if (Object.keys(cal.gpu).length > 0) system.gpu = { preset: inputs.gpu, ...custom(system.gpu), ...cal.gpu };
  if (Object.keys(cal.network).length > 0) {
    system.network = inputs.cluster !== 'none'
      ? { preset: inputs.cluster, ...custom(system.network), ...cal.network } : cal.network;
  }
  Object.assign(system, cal.system);
  if (Object.keys(cal.overheads).length > 0) config.overheads = cal.overheads;
  return config;
}

/** "4,1,1,2" as {tp: 4, cp: 1, dp: 1, pp: 2}; any other text goes as it
 * is, for the core to refuse at parallel.per_node. */
function perNode(text) {
  const counts = LIST_TEXT.test(text) ? text.split(',').map(Number) : [];
  if (counts.length !== 4) return text;
  const [tp, cp, dp, pp] = counts;
  return { tp, cp, dp, pp };
}

/** parallel.tp_algorithm and summa_panels, only where SUMMA is chosen. */
function tpAlgorithm(inputs) {
  if (inputs.tpalg === 'megatron') return {};
  const out = { tp_algorithm: inputs.tpalg };
  if (inputs.panels !== '0') out.summa_panels = numberOrText(inputs, 'panels');
  return out;
}

/** The model section: the preset, and each override the user set (an
 * empty field or "preset" keeps the preset's value). */
function toModel(inputs) {
  const model = { preset: inputs.model };
  if (inputs.arch !== 'preset') model.arch = inputs.arch;
  if (inputs.attn !== 'preset') model.attention = inputs.attn;
  if (inputs.mname !== '') model.name = inputs.mname;
  for (const f of MODEL_FIELDS) {
    if (f.optional && f.kind !== 'text' && inputs[f.key] !== '') putModel(model, f.path, numberOrText(inputs, f.key));
    // the preset / true / false selects: tied embeddings, YaRN, expert biases, clamp
    if (f.kind === 'select' && f.options.includes('true') && inputs[f.key] !== 'preset') {
      putModel(model, f.path, inputs[f.key] === 'true');
    }
  }
  return model;
}

/** Sets a model field by its path: model.layers into model, model.moe.experts
 * into model.moe. */
function putModel(model, path, value) {
  const parts = path.split('.').slice(1);
  const key = parts.pop();
  if (parts.length > 0 && !model[parts[0]]) model[parts[0]] = {};
  (parts.length > 0 ? model[parts[0]] : model)[key] = value;
}

/** Every field of the model section (Model, Experts, Latent attention). */
const MODEL_FIELDS = FIELDS.filter((f) => f.path.startsWith('model.') && f.key !== 'model');

/** Whether the GPU has FP8 tensor cores: the custom FP8 peak where set,
 * else the GPU preset's (presets.gpus; false while they are not loaded). */
export function gpuHasFp8(inputs, presets) {
  if (inputs.gf8 !== '') return Number(numberOrText(inputs, 'gf8')) > 0;
  const gpu = presets?.gpus.find((g) => g.name === inputs.gpu);
  return (gpu?.fp8_tflops ?? 0) > 0;
}

/** The search document: the config plus the search section the Search
 * group's fields describe. The core checks the section and names the
 * field at fault (search.tp, search.gpus, ...). fp8 is tried only on a
 * GPU with FP8 (the core refuses it elsewhere), so the presets decide. */
export function toSearchDocument(inputs, presets = null) {
  const n = (key) => numberOrText(inputs, key);
  const search = { top: 10, micro_batch: [1, n('smb')] };
  if (inputs.stp !== '0') search.tp = [1, n('stp')];
  if (inputs.spp !== '0') search.pp = [1, n('spp')];
  const percent = numberOrText(inputs, 'smem');
  search.memory_fraction = typeof percent === 'number' ? percent / 100 : percent;
  if (inputs.samsp === '1') search.sharding = ['zero0', 'zero1', 'zero2', 'zero3', 'fsdp_hybrid', 'amsp'];
  if (inputs.sfp8 === '1' && gpuHasFp8(inputs, presets)) search.precision = ['bf16', 'fp8'];
  if (inputs.sgpus !== '') {
    search.gpus = LIST_TEXT.test(inputs.sgpus) ? inputs.sgpus.split(',').map(Number) : inputs.sgpus;
  }
  // the search chooses the plan itself, holding only the tp algorithm
  const { parallel, ...config } = toConfig(inputs);
  const held = tpAlgorithm(inputs);
  return Object.keys(held).length > 0 ? { ...config, parallel: held, search } : { ...config, search };
}

/** The inputs with an imported architecture: every model override the
 * import does not set goes back to the preset's. */
export function withModel(inputs, fields) {
  const next = { ...inputs };
  for (const f of MODEL_FIELDS) next[f.key] = f.default;
  return { ...next, ...fields };
}

/** The estimator's inputs with a plan the search found applied. Plans the
 * form cannot express (AMSP patterns) are not offered for applying. */
export function withPlan(inputs, plan) {
  const next = { ...inputs, tp: String(plan.tp), pp: String(plan.pp), cp: String(plan.cp),
    mbs: String(plan.micro_batch), sp: plan.sp ? '1' : '0', recompute: plan.recompute,
    schedule: plan.schedule, ep: String(plan.ep ?? 1), etp: plan.etp === undefined ? '' : String(plan.etp),
    fp8: plan.fp8 ? '1' : '0', // fp8 weights and fp4 go with it only where fp8 is on
    rclayers: '0', // the search's full recompute re-runs every layer
    fsl: '0', lsl: '0' }; // and its stages split the layers balanced
  if (plan.vpp > 1) next.vstages = String(plan.vpp);
  // a plan found in Megatron's order has no ranks per node of its own
  next.place = plan.order === undefined ? PLACEMENT_GROUPS.map((d) => plan.per_node[d]).join(',') : '';
  next.tpalg = plan.tp_algorithm ?? 'megatron';
  next.panels = String(plan.summa_panels ?? 0);
  if (plan.sharding === 'fsdp_hybrid') {
    next.sharding = 'fsdp_hybrid_shard';
    next.group = '0';
  } else {
    next.sharding = 'zero';
    next.zero = plan.sharding.replace('zero', '');
  }
  return next;
}

/** Whether a field takes part in the config the inputs make, so the form
 * can dim the ones that do not apply. */
export function applies(field, inputs, presets = null) {
  const preset = presets?.models.find((m) => m.name === inputs.model);
  // the model as typed over its preset: with experts, with latent attention
  const moe = inputs.experts !== '' ? inputs.experts !== '0' : Boolean(preset?.moe);
  const mla = inputs.attn !== 'preset' ? inputs.attn === 'mla' : preset?.attention === 'mla';
  if (field.group === 'Experts' || ['ep', 'etp', 'epo', 'epd', 'ggemm'].includes(field.key)) return moe;
  if (field.group === 'Latent attention') return mla;
  if (field.key === 'zero') return inputs.sharding === 'zero';
  if (field.key === 'group') return inputs.sharding === 'fsdp_hybrid_shard';
  if (field.key === 'vstages') return inputs.schedule === 'interleaved';
  if (field.key === 'fsl' || field.key === 'lsl') return inputs.pp !== '1';
  if (field.key === 'panels') return inputs.tpalg === 'summa';
  if (field.key === 'rclayers') return inputs.recompute === 'full';
  if (field.key === 'offload') return inputs.pp === '1' && inputs.recompute === 'none';
  if (['fp8p', 'fp4', 'fp8r', 'fp8c'].includes(field.key)) return inputs.fp8 === '1';
  if (field.key === 'attk' || field.key === 'docs') return inputs.flash === '1';
  if (field.key === 'cpo') return inputs.cp !== '1';
  if (field.key === 'sfp8') return gpuHasFp8(inputs, presets);
  if (['rcmlp', 'rcnorm', 'rcup', 'rcact'].includes(field.key)) {
    if (!takesModules(inputs)) return false;
    if (field.key === 'rcup') return mla;
    if (field.key === 'rcact') return moe;
  }
  if (['nfast', 'nslow', 'nnics'].includes(field.key)) return inputs.cluster !== 'none';
  if (['gnvl', 'gnet'].includes(field.key)) return inputs.cluster === 'none';
  if (field.key === 'optdt') return inputs.opt !== 'adam8bit';
  if (field.key === 'overhead') return inputs.cal !== '1'; // the calibrated cluster's own
  return true;
}
