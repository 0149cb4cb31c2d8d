// The explanations (web/src/explain.js) put the CLI's own figures into the
// formula they show, and the formula gives the number it explains, for
// plans that exercise sharding, pipeline stages and recompute, on every
// pipeline stage. Lines of Other whose inputs are not all in the output
// (the NCCL buffers, the gathered weights, a MoE stage's backward
// workspace) list their inputs and cite, and are not worked out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliEstimate } from '../helpers.mjs';
import { explanations } from '../../web/src/explain.js';

const CONFIGS = [
  { model: { preset: 'llama-3.1-8b' }, system: { gpu: 'h100-80gb', gpus: 64 }, training: { seq_len: 8192, global_batch: 1024 },
    parallel: { tp: 2, pp: 2 } },
  { model: { preset: 'llama-3.1-70b' }, system: { gpu: 'a100-80gb', gpus: 256 }, training: { seq_len: 4096, global_batch: 512,
    recompute: 'full', train_tokens: 2e12 }, parallel: { tp: 8, pp: 4, schedule: 'interleaved', virtual_stages: 5, sharding: 'zero', zero: 2 } },
  { model: { preset: 'gpt3-175b' }, system: { gpu: 'h100-80gb', gpus: 512 }, training: { seq_len: 2048, global_batch: 1536 },
    parallel: { tp: 8, pp: 8, sharding: 'fsdp_hybrid_shard' } },
  // experts sharded over their own replicas (ZeRO-1: the optimizer over edp 2)
  { model: { preset: 'mixtral-8x7b' }, system: { gpu: 'h100-80gb', gpus: 64 }, training: { seq_len: 4096, global_batch: 256,
    capacity_factor: 1.25 }, parallel: { tp: 2, pp: 4, ep: 8, etp: 1 } },
  // the all-to-alls hidden behind the other direction, but for the
  // micro-batch directions that run alone (time.ep_step_s)
  { model: { preset: 'mixtral-8x7b' }, system: { gpu: 'h100-80gb', gpus: 64 }, training: { seq_len: 4096, global_batch: 256 },
    parallel: { tp: 2, pp: 4, ep: 8, etp: 1, ep_overlap: true } },
  // dense first layers, latent attention, ZeRO-3 over the experts too
  { model: { preset: 'deepseek-v2-lite' }, system: { gpu: 'h100-80gb', gpus: 16 }, training: { seq_len: 4096, global_batch: 64 },
    parallel: { ep: 8, sharding: 'zero', zero: 3 } },
  // full recompute of 3 of each stage's 9 layers; the first stage mixes
  // its dense layer with MoE ones, so the layers not re-run keep the mean
  { model: { preset: 'deepseek-v2-lite' }, system: { gpu: 'h100-80gb', gpus: 24 }, training: { seq_len: 4096, global_batch: 96,
    recompute: 'full', recompute_layers: 3 }, parallel: { pp: 3, ep: 8 } },
  // torchtitan's per-op checkpointing, tp 2 with sp and two stages
  { model: { preset: 'llama-3.1-8b' }, system: { gpu: 'h100-80gb', gpus: 32 }, training: { seq_len: 8192, global_batch: 256,
    micro_batch: 2, recompute: 'selective_op' }, parallel: { tp: 2, pp: 2 } },
  // activations offloaded to the host, more than PCIe hides
  { model: { preset: 'llama-3.1-8b' }, system: { gpu: 'h100-80gb', gpus: 8 }, training: { seq_len: 8192, global_batch: 64,
    offload_layers: 24, precision: { fp8: true, fp8_params: true } }, parallel: { tp: 1, pp: 1 } },
];

const close = (a, b) => Math.abs(a - b) <= 1e-12 * Math.abs(b);

test('each formula, fed the values it lists, gives the figure it explains', () => {
  for (const config of CONFIGS) for (const { name } of cliEstimate(config).memory.stages) {
    const result = cliEstimate(config);
    const how = explanations(result, name);
    const stage = result.memory.stages.find((s) => s.name === name);
    // what is shown is the CLI's figure; with experts, the first four items
    // leave the routed experts to their own line, and the lines still add up
    const moe = result.memory.stages.some((s) => s.experts.params > 0);
    assert.equal(moe, 'moe' in result.config.model);
    const keys = ['weights_bytes', 'gradients_bytes', 'optimizer_bytes', 'activations_bytes'];
    for (const key of keys) assert.equal(how[key].reported, stage[key] - (moe ? stage.experts[key] : 0), key);
    assert.equal(how.other_bytes.reported, stage.other_bytes);
    assert.equal('experts_bytes' in how, moe);
    const lines = [...keys, 'other_bytes', ...(moe ? ['experts_bytes'] : [])].reduce((sum, key) => sum + how[key].reported, 0);
    assert.ok(close(lines, stage.total_bytes), `${config.model.preset}: lines ${lines} vs total ${stage.total_bytes}`);
    assert.equal(how.step_s.reported, result.time.step_s);
    for (const key of ['tokens_per_s_per_gpu', 'mfu', 'time_to_train_days']) assert.equal(how[key].reported, result.throughput[key]);
    // every part of the step, each worked out from its per-micro-batch figure
    const parts = ['compute_s', 'tp_comm_s', 'cp_comm_s', 'ep_comm_s', 'pp_comm_s', 'dp_comm_s', 'offload_s', 'bubble_s',
      'optimizer_s', 'data_wait_s'];
    for (const key of parts) assert.equal(how[key]?.reported, result.time[key], key);
    if (config.parallel.ep_overlap) assert.ok(result.time.ep_step_s > 0 && how.ep_comm_s.values.length === 3);
    assert.ok(parts.filter((key) => result.time[key] > 0).length >= 4, `${config.model.preset}: parts that are not 0`);
    // and the formula, worked out on the values it lists, gives it
    // each line of Other on this stage
    for (const [key, bytes] of Object.entries(stage.other)) assert.equal(how[`other.${key}`].reported, bytes, key);
    // not worked out: NCCL, gathered weights when sharded, and the backward
    // workspace on a stage with routed experts (its largest layer, dense or
    // MoE, is not in the output)
    const open = Object.entries(how).filter(([, w]) => w.value === null).map(([key]) => key).sort();
    const expected = ['other.nccl_bytes'];
    if (result.plan.shard_factors.weights > 1) expected.push('other.gathered_params_bytes');
    if (stage.experts.params > 0) expected.push('other.backward_workspace_bytes');
    assert.deepEqual(open, expected.sort(), `${config.model.preset} ${name}`);
    for (const what of Object.values(how).filter((w) => w.value !== null)) {
      assert.ok(close(what.value, what.reported), `${config.model.preset} ${what.title}: ${what.value} vs ${what.reported}`);
      assert.ok(what.cite.length > 0 && what.values.every(([, , v]) => Number.isFinite(v)), what.title);
    }
  }
});

// gpt-oss under Megatron-Core clamps its experts' activation input in a pass
// of its own, whose input stays for the backward unless moe_act recomputes
test("the routed activations name gpt-oss's clamp where its input is kept", () => {
  const config = { model: { preset: 'gpt-oss-120b' }, system: { gpu: 'h100-80gb', gpus: 8 },
    training: { seq_len: 4096, global_batch: 8 }, parallel: { ep: 8 } };
  const line = (c) => explanations(cliEstimate(c)).experts_bytes.values.find(([name]) => name === 'routed activations')[1];
  assert.match(line(config), /clamp/);
  assert.doesNotMatch(line({ ...config, training: { ...config.training, recompute_moe_act: true } }), /clamp/);
  assert.doesNotMatch(line({ ...config, training: { ...config.training, framework: 'torchtitan' } }), /clamp/);
});
