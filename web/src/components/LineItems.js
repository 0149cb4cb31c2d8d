// LineItems: what "Other" is made of on each stage, with the assumption
// behind each line, and the bytes each parameter costs before sharding.
import { html } from 'htm/preact';
import { TableScroll } from './TableScroll.js';
import { GIB, gib } from '../format.js';
import { OTHER_LINES } from '../items.js';

// the assumption behind each line of Other (items.js), from the overheads
const ASSUMPTION = {
  cuda_context_bytes: (o) => `${gib(o.cuda_context_gib * GIB)} GiB per GPU`,
  nccl_bytes: (o) => `${gib(o.nccl_gib_per_group * GIB)} GiB per communicator`,
  loss_workspace_bytes: (o) => `${o.loss_bytes_per_logit} B per logit, LM-head stage`,
  backward_workspace_bytes: (o) => `${o.backward_layers} layer of activation gradients`,
  gathered_params_bytes: (o) => `sharded weights: 1 + ${o.prefetch_layers} prefetched unit`,
  gradient_bucket_bytes: (o) => `${o.bucket_params / 1e6} M parameters, sharded gradients`,
  fragmentation_bytes: (o) => `${Math.round(o.fragmentation * 100)}% of activations`,
};

const PER_PARAM = [
  ['weights', 'weights'], ['fp8_weights', 'fp8 copies'], ['gradients', 'gradients'],
  ['master_weights', 'master'], ['optimizer_states', 'optimizer states'],
];

export function LineItems({ result }) {
  const { memory, plan, config } = result;
  const perParam = PER_PARAM.filter(([key]) => memory.bytes_per_param[key] > 0)
    .map(([key, label]) => `${label} ${+memory.bytes_per_param[key].toFixed(4)}`).join(' + ');
  const f = plan.shard_factors;
  return html`
    <div class="line-items">
      <p data-testid="bytes-per-param">Bytes per parameter before sharding: ${perParam}.
        Sharded over ${f.weights} (weights), ${f.gradients} (gradients), ${f.optimizer} (optimizer) GPUs
        with ${plan.sharding === 'zero' ? `ZeRO-${plan.zero}` : plan.sharding}.</p>
      <${TableScroll} label="What Other is made of"><table data-testid="other-table">
        <caption>Other memory per GPU, line by line (GiB), and the assumption behind each line</caption>
        <thead><tr><th scope="col">Item</th>${memory.stages.map((s) => html`<th scope="col">${s.name}</th>`)}<th scope="col">Assumption</th></tr></thead>
        <tbody>
          ${OTHER_LINES.map(([key, label]) => html`
            <tr data-other=${key}>
              <th scope="row">${label}</th>
              ${memory.stages.map((s) => html`<td data-bytes=${s.other[key]}>${gib(s.other[key])}</td>`)}
              <td class="assumption">${ASSUMPTION[key](config.overheads)}</td>
            </tr>`)}
        </tbody>
      </table></${TableScroll}>
    </div>`;
}
