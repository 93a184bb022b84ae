// Files a reader can hold in mind (CONTRIBUTING.md, "Files stay at most 400 lines"): every file
// under src/ and www/ (not www/pkg/, built, nor www/data/, data) is at most 400 lines, and every
// test file at most 500 (not tests/fixtures/, data). The page's markup once grew to 455 lines
// unnoticed; the reading page and the own-data panel are files of their own since.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Every file under `dir` (relative to the root), but those under `skip` and dot files.
function filesUnder(dir, skip) {
  const found = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.name.startsWith('.') || skip.includes(rel)) continue;
    if (entry.isDirectory()) found.push(...filesUnder(rel, skip));
    else found.push(rel);
  }
  return found;
}

// The lines of a text file, as `wc -l` counts those of a file ending in a newline.
const linesOf = (rel) => {
  const text = readFileSync(path.join(ROOT, rel), 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
};

const over = (files, max) =>
  files
    .map((f) => [f, linesOf(f)])
    .filter(([, n]) => n > max)
    .map(([f, n]) => `${f}: ${n} lines`);

test('every file under src/ and www/ is at most 400 lines', () => {
  const files = [
    ...filesUnder('src', []),
    ...filesUnder('www', ['www/pkg', 'www/data', 'www/v']),
  ].filter((f) => !f.endsWith('www/version.js')); // written by scripts/version.py
  assert.ok(
    files.some((f) => f === 'www/index.html') && files.some((f) => f === 'src/lib.rs'),
    files.join(', '),
  );
  assert.deepEqual(over(files, 400), [], 'split these by concern (CONTRIBUTING.md)');
});

test('every test file is at most 500 lines', () => {
  const files = filesUnder('tests', ['tests/fixtures']);
  assert.ok(
    files.some((f) => f === 'tests/unit/file-sizes.test.mjs'),
    files.join(', '),
  );
  assert.deepEqual(over(files, 500), [], 'split these by concern (CONTRIBUTING.md)');
});

test('the count is the one wc -l gives', () => {
  for (const f of ['www/index.html', 'src/lib.rs', 'tests/unit/file-sizes.test.mjs']) {
    assert.equal(
      linesOf(f),
      Number(
        execFileSync('wc', ['-l', path.join(ROOT, f)], { encoding: 'utf8' })
          .trim()
          .split(/\s+/)[0],
      ),
      f,
    );
  }
});
