// The page's size budget: everything a first visit fetches (precache.json
// lists the whole site: page, bundle, worker, WebAssembly core), compressed
// with gzip as a static host sends it, stays under 300 KB. A size, not a
// timing: the build decides it, so it is checked here (the timings are in
// tests/bench/bench_page.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../helpers.mjs';

const BUDGET_BYTES = 300 * 1000;

test('the whole site is under 300 KB gzip, WebAssembly included', () => {
  const site = join(ROOT, 'public');
  const files = JSON.parse(readFileSync(join(site, 'precache.json'), 'utf8')).filter((f) => f !== './');
  assert.ok(files.includes('wasm/trainplan-core.wasm') && files.includes('index.html'));
  const sizes = Object.fromEntries(files.map((f) => [f, gzipSync(readFileSync(join(site, f)), { level: 9 }).length]));
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  console.log(`site: ${(total / 1000).toFixed(1)} KB gzip in ${files.length} files`, sizes);
  assert.ok(total < BUDGET_BYTES, `${total} bytes gzip`);
});
