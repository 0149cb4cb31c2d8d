// The files the page hands out (web/src/exports.js): the search as CSV holds
// exactly the CLI's plans and Pareto front, and the config file is one the
// CLI reads back to the same estimate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliEstimate, cliSearch } from '../helpers.mjs';
import { SEARCH_CSV_COLUMNS, jsonFile, searchCsv } from '../../web/src/exports.js';
import { defaultInputs, toConfig, toSearchDocument } from '../../web/src/fields.js';
import { PLACEMENT_GROUPS } from '../../web/src/format.js';

test('the search CSV has one row per top plan and Pareto plan, with the CLI\'s figures', () => {
  const search = cliSearch(toSearchDocument({ ...defaultInputs(), gpus: '64', sgpus: '' }));
  const [header, ...rows] = searchCsv(search).trimEnd().split('\n').map((line) => line.split(','));
  assert.deepEqual(header, SEARCH_CSV_COLUMNS);
  assert.equal(rows.length, search.plans.length + search.pareto.length);
  const column = (name) => header.indexOf(name);
  search.plans.forEach((p, i) => {
    const row = rows[i];
    assert.equal(row[column('list')], 'top');
    assert.equal(Number(row[column('rank')]), p.rank);
    assert.equal(Number(row[column('tp')]), p.plan.tp);
    assert.equal(row[column('sharding')], p.plan.sharding);
    assert.equal(row[column('fp8')], String(p.plan.fp8));
    for (const d of PLACEMENT_GROUPS) assert.equal(Number(row[column(`per_node.${d}`)]), p.plan.per_node[d]);
    assert.equal(Number(row[column('step_s')]), p.estimate.time.step_s);
    assert.equal(Number(row[column('mfu')]), p.estimate.throughput.mfu);
    assert.equal(Number(row[column('peak_memory_gib')]), p.estimate.memory.peak_bytes / 2 ** 30);
  });
  search.pareto.forEach((p, i) => {
    const row = rows[search.plans.length + i];
    assert.equal(row[column('list')], 'pareto');
    assert.equal(Number(row[column('tokens_per_s_per_gpu')]), p.tokens_per_s_per_gpu);
    assert.equal(row[column('mfu')], '');
  });
});

test('the config file reads back through the CLI to the estimate file', () => {
  const config = toConfig({ ...defaultInputs(), gpus: '32', tp: '2', pp: '2', recompute: 'selective' });
  const estimate = cliEstimate(config);
  const again = cliEstimate(JSON.parse(jsonFile(estimate.config)));
  assert.deepEqual(JSON.parse(jsonFile(again)), estimate);
});
