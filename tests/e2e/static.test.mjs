// The page computes no privacy quantity: q, the steps per epoch, σ_eff and DP-PCA's step come
// from Rust (RunConfig::mechanism, through the accounting functions), never from arithmetic in
// www/*.js. This scans the page's scripts for the arithmetic such a copy would need. And the
// offline copy (sw.js) lists every script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WWW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../www');

// Each pattern is a way of deriving a privacy quantity from settings.
const FORBIDDEN = [
  [/lot_size\s*\/|\/\s*(n_?train|nTrain|facts\.n_train)\b/i, 'a sampling rate q = L/N'],
  [/(n_?train|nTrain)\s*\/\s*[\w.]*lot/i, 'steps per epoch N/L'],
  [/sigma\s*\/\s*Math\.sqrt|Math\.sqrt\([^)]*layers/i, 'a per-layer σ/√k'],
  [/accounted_sigma|count_noise_std|\*\s*steps_per_epoch|steps_per_epoch\s*\*/, 'σ_eff or the step count'],
  [/pca_sample|pcaArgs/, "DP-PCA's step"],
  [/Math\.(exp|log)\([^)]*(delta|sigma|eps)/i, 'an accountant formula'],
];

test('no script of the page derives q, T, σ_eff or a DP-PCA step', async () => {
  const files = (await readdir(WWW)).filter((f) => f.endsWith('.js'));
  assert.ok(files.length >= 8, files.join(', '));
  const found = [];
  for (const f of files) {
    const lines = (await readFile(path.join(WWW, f), 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (/^\s*\/\//.test(line)) return; // comments may name the quantities
      for (const [pattern, what] of FORBIDDEN) {
        if (pattern.test(line)) found.push(`${f}:${i + 1}: ${what}: ${line.trim()}`);
      }
    });
  }
  assert.deepEqual(found, []);
});

test('the scan would catch the old copies', () => {
  // The arithmetic the page had before the mechanism moved to Rust.
  for (const line of ['const q = cfg.lot_size / nTrain;', 'const stepsPerEpoch = Math.max(1, Math.round(nTrain / cfg.lot_size));',
    'export const pcaArgs = (cfg) => (cfg.pca ? [1.0, cfg.pca_sigma] : [0, 0]);']) {
    assert.ok(FORBIDDEN.some(([p]) => p.test(line)), line);
  }
});

// The offline copy (sw.js) must hold every script the page or its workers import: one left out
// works online and fails offline, which no online test would see.
test('the service worker stores every script of the page', async () => {
  const sw = await readFile(path.join(WWW, 'sw.js'), 'utf8');
  const shell = sw.match(/const SHELL = \[([^\]]*)\]/);
  assert.ok(shell, 'sw.js has a SHELL list');
  const listed = new Set([...shell[1].matchAll(/'([^']+)'/g)].map((m) => m[1]));
  const scripts = (await readdir(WWW)).filter((f) => f.endsWith('.js') && f !== 'sw.js');
  assert.deepEqual(scripts.filter((f) => !listed.has(f)), []);
});
