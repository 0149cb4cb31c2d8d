// Citations a reader can follow: every "X et al. YEAR" the page's texts cite
// is in the page's References (web/src/references.js) with its authors,
// title, venue, year and arXiv id; the README's References name the same
// papers by the same ids; and the word "seed", the project's old name for
// the papers, reaches no user: not the built page, the README or anything
// the CLI prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ROOT } from '../helpers.mjs';
import { REFERENCES } from '../../web/src/references.js';

/** Every file under dir, recursively. */
const filesUnder = (dir) => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name);
  return statSync(path).isDirectory() ? filesUnder(path) : [path];
});

/** The old preset names a link may still carry (web/src/url.js,
 * core/presets.c): read, never shown; everything else is text a user sees. */
const OLD_PRESET_NAMES = /\b(?:vit|a100|h200|b200)-seed002\b|\bseed002-(?:a100|h200|b200)\b/g;
const seedIn = (text) => text.replace(OLD_PRESET_NAMES, '').match(/.{0,40}seed.{0,40}/i)?.[0] ?? null;

test('every citation on the page names a paper in its References, with authors, title, venue, year and arXiv id', () => {
  const keys = new Set(REFERENCES.map((r) => r.key));
  const sources = filesUnder(join(ROOT, 'web', 'src')).filter((f) => f.endsWith('.js') && !f.endsWith('references.js'));
  const cited = new Set();
  for (const file of sources) {
    for (const [, name, year] of readFileSync(file, 'utf8').matchAll(/([A-Z][a-z]+) et al\.?,?( \d{4})?/g)) {
      assert.ok(year, `${file}: "${name} et al." without its year`);
      const key = `${name} et al.${year}`;
      assert.ok(keys.has(key), `${file}: ${key} is not in the page's References`);
      cited.add(key);
    }
  }
  assert.ok(cited.size >= 6, `the page cites ${[...cited].join(', ')}`);
  const all = readFileSync(join(ROOT, 'docs', 'references.md'), 'utf8');
  for (const r of REFERENCES) {
    assert.ok(r.authors.split(', ').length >= 1 && r.title.length > 10 && r.venue && r.year >= 2019, r.key);
    assert.match(r.arxiv, /^\d{4}\.\d{5}$/, r.key);
    const keyYear = Number(r.key.slice(-4));
    assert.ok(keyYear === r.year || keyYear === 2000 + Number(r.arxiv.slice(0, 2)), `${r.key}: the key's year is the paper's`);
    assert.ok(all.includes(`[${r.arxiv}]`), `${r.key}: docs/references.md lists arXiv ${r.arxiv}`);
  }
});

test('the README\'s References name the papers the README cites, by the page\'s arXiv ids', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## References'));
  const listed = [...section.matchAll(/^- \*\*(.+? et al\. \d{4})\*\*.*\[arXiv:([\d.]+)\]/gm)];
  assert.ok(listed.length >= 5);
  for (const [, key, arxiv] of listed) assert.equal(REFERENCES.find((r) => r.key === key)?.arxiv, arxiv, key);
  for (const [, key] of readme.slice(0, readme.indexOf('## References')).matchAll(/([A-Z][a-z]+ et al\. \d{4})/g)) {
    assert.ok(listed.some(([, k]) => k === key), `README cites ${key} outside its References`);
  }
});

test('no "seed" reaches a user: the built page, the README, the CLI\'s help, presets, fields and errors', () => {
  assert.equal(seedIn(readFileSync(join(ROOT, 'README.md'), 'utf8')), null, 'README.md');
  const site = filesUnder(join(ROOT, 'public'));
  assert.ok(site.some((f) => f.endsWith('.js')), 'public/ holds the built page (ci/build.sh)');
  for (const file of site) assert.equal(seedIn(readFileSync(file, 'latin1')), null, file);
  const printed = [['presets'], ['presets', '--table'], ['fields'], ['version'], ['help'], ['--help'], []]
    .map((args) => spawnSync(CLI, args, { encoding: 'utf8' }))
    .map((run) => run.stdout + run.stderr);
  for (const config of ['{"model":{"preset":"nope"}}', '{"system":{"gpus":-8}}', '{"parallel":{"tp":3}}']) {
    printed.push(spawnSync(CLI, ['estimate', '-'], { input: config, encoding: 'utf8' }).stderr);
  }
  for (const text of printed) assert.equal(seedIn(text), null);
  assert.ok(printed[0].includes('llama-3.1-8b') && execFileSync(CLI, ['fields']).length > 1000);
});
