// The documentation's relative links resolve: for README.md, CONTRIBUTING.md, ARCHITECTURE.md
// and every docs/*.md, each markdown link `[text](path)` or `[text](path#anchor)` names a file
// or folder of the repository, and an anchor on a .md file names one of its headings (GitHub's
// slugs). Links to other sites (http:, https:, mailto:) and to an anchor of the same page
// (`#anchor`) are not checked. Also: the README stays a front door, at most 200 lines.
// Run with `node --test tests/docs/` (no browser, no dependencies).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const README_MAX_LINES = 200;

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'ARCHITECTURE.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

// The text outside fenced code blocks (``` or ~~~), lines kept so line numbers still hold.
function outsideFences(text) {
  let fence = null;
  return text.split('\n').map((line) => {
    const m = line.match(/^\s{0,3}(`{3,}|~{3,})/);
    if (m && (fence === null || (m[1][0] === fence[0] && m[1].length >= fence.length))) {
      fence = fence === null ? m[1] : null;
      return '';
    }
    return fence === null ? line : '';
  });
}

// GitHub's anchor for a heading: its text as rendered, lower-cased, without punctuation
// (letters and digits of any script stay), spaces as hyphens; a repeated slug gets -1, -2, ….
function slug(heading) {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/<[^>]+>/g, '') // inline HTML such as <sub>
    .replace(/[`*]/g, '');
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file) {
  const seen = new Map();
  const anchors = new Set();
  for (const line of outsideFences(readFileSync(file, 'utf8'))) {
    const m = line.match(/^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

// Every inline link and image of a markdown file, with its line number; code spans are left out.
function linksOf(text) {
  const links = [];
  outsideFences(text).forEach((line, i) => {
    const prose = line.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length));
    for (const m of prose.matchAll(
      /!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g,
    )) {
      links.push({ line: i + 1, target: m[2] });
    }
  });
  return links;
}

// What is wrong with one link of `file`, or null when it resolves (or is not checked).
function problemWith(file, target) {
  if (target === '') return 'an empty link';
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // http:, https:, mailto:, …
  if (target.startsWith('#')) return null;
  const [rawPath, anchor] = target.split('#', 2);
  const resolved = path.resolve(path.dirname(file), decodeURIComponent(rawPath));
  if (resolved !== ROOT && !resolved.startsWith(ROOT + path.sep))
    return `${rawPath} is outside the repository`;
  if (!existsSync(resolved)) return `${rawPath} does not exist`;
  if (
    anchor !== undefined &&
    resolved.endsWith('.md') &&
    !anchorsOf(resolved).has(decodeURIComponent(anchor).toLowerCase())
  ) {
    return `${rawPath} has no heading with the anchor #${anchor}`;
  }
  return null;
}

for (const doc of DOCS) {
  test(`the relative links of ${doc} resolve`, () => {
    const file = path.join(ROOT, doc);
    assert.ok(existsSync(file), `${doc} is missing`);
    const links = linksOf(readFileSync(file, 'utf8'));
    const broken = links
      .map(({ line, target }) => ({ line, target, problem: problemWith(file, target) }))
      .filter((l) => l.problem)
      .map((l) => `${doc}:${l.line}: (${l.target}) — ${l.problem}`);
    assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
  });
}

test('the README is at most 200 lines', () => {
  const text = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  assert.ok(
    lines <= README_MAX_LINES,
    `README.md has ${lines} lines; keep it to ${README_MAX_LINES} and move the rest to docs/`,
  );
});

test('the checker sees links and headings (so a pass means something)', () => {
  const links = linksOf(
    'See [a](docs/x.md#y), ![b](c.png) and `[not](a-link)`.\n```\n[nor](this)\n```\n',
  );
  assert.deepEqual(
    links.map((l) => l.target),
    ['docs/x.md#y', 'c.png'],
  );
  assert.equal(slug('Auditing a run: what ε means'), 'auditing-a-run-what-ε-means');
  assert.equal(slug('The `make dist` folder'), 'the-make-dist-folder');
  assert.equal(slug('ε<sub>lower</sub> and [links](x.md)'), 'εlower-and-links');
  assert.equal(
    problemWith(path.join(ROOT, 'README.md'), 'no-such-file.md'),
    'no-such-file.md does not exist',
  );
  assert.ok(
    linksOf(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).length > 0,
    'README.md links to nothing',
  );
});
