// The page's modules import one way (#54 §1): no module reaches itself through its imports.
// A circle (lesson-player.js → worksheet.js → share.js → link.js → teacher.js → lesson-player.js
// was one) means no module of it can be read, tested or moved to a room of its own without the
// others. Every import of every script under www/ (but the built pkg/ and v/) is followed. And
// the rooms stand in layers: a module imports from its own room or the rooms below, never above.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WWW = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../www');
// Folders of www/ that are built or data, not the page's modules (.gitignore).
const BUILT = new Set(['pkg', 'v', 'data']);

function scripts(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return BUILT.has(name) ? [] : scripts(full);
    return name.endsWith('.js') ? [full] : [];
  });
}

// The modules a script imports (`import … from './x.js'`, `export … from`, `import('./x.js')`), as
// paths.
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const found = [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s*['"](\.[^'"]+)['"]/gm),
    // A module loaded on demand (`import('./x.js')`), not a JSDoc type (`{import('./x.js').T}`).
    ...text
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '')
      .matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ];
  return found
    .map((m) => path.resolve(path.dirname(file), m[1]))
    .filter((p) => !p.includes(`${path.sep}pkg${path.sep}`));
}

// The circles of `graph` (a Map from a node to the nodes it imports), each as its nodes in order.
function circlesOf(graph) {
  const state = new Map(); // 1: on the path, 2: done
  const circles = [];
  const visit = (node, trail) => {
    if (state.get(node) === 2) return;
    if (state.get(node) === 1) {
      circles.push([...trail.slice(trail.indexOf(node)), node]);
      return;
    }
    state.set(node, 1);
    for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
    state.set(node, 2);
  };
  for (const node of graph.keys()) visit(node, []);
  return circles;
}

test('no module of the page imports itself through others', () => {
  const files = scripts(WWW);
  assert.ok(files.length > 40, `${files.length} scripts`);
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const edges = [...graph.values()].reduce((n, list) => n + list.length, 0);
  assert.ok(edges > 80, `${edges} imports read`);
  assert.deepEqual(
    circlesOf(graph).map((c) => c.map((f) => path.basename(f)).join(' → ')),
    [],
  );
});

test('the check finds a circle where there is one', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  assert.deepEqual(circlesOf(graph), [['a', 'b', 'c', 'a']]);
});

// The rooms from the bottom up (ARCHITECTURE.md): the root's own scripts, which import nothing
// (sw.js, the built version.js); core/, what the page and its workers share (protocol, the
// wasm module, module workers, the build's snapshot, words); workers/, the workers' entries and
// their parts; the settings and links; the views; sharing; the lessons; the audit and Alice;
// the test hooks; the page's run cycle (page/, which reads the worker's messages into all of
// them); and the page's wiring, main.js.
const LAYERS = [
  '',
  'core',
  'workers',
  'lab',
  'views',
  'share',
  'lessons',
  'audit',
  'testing',
  'page',
  'main',
];
const WIRING = new Set(['main.js']);
const roomOf = (file) => {
  const rel = path.relative(WWW, file);
  return WIRING.has(rel) ? 'main' : rel.includes(path.sep) ? rel.split(path.sep)[0] : '';
};

test('www/ holds no script at its root but main.js, sw.js and the built version.js', () => {
  const root = readdirSync(WWW).filter((name) => name.endsWith('.js'));
  assert.deepEqual(
    root.filter((name) => !['main.js', 'sw.js', 'version.js'].includes(name)),
    [],
  );
});

test('only a worker imports from workers/: the page starts one by its URL, never imports', () => {
  const files = scripts(WWW);
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const intoWorkers = [...graph].flatMap(([from, list]) =>
    roomOf(from) === 'workers'
      ? []
      : list
          .filter((to) => roomOf(to) === 'workers')
          .map((to) => `${path.relative(WWW, from)} → ${path.relative(WWW, to)}`),
  );
  assert.deepEqual(intoWorkers, []);
});

// The imports of `graph` that go up a layer, as "from → to".
function upwardOf(graph, room) {
  const rank = (f) => LAYERS.indexOf(room(f));
  return [...graph].flatMap(([from, list]) =>
    list.filter((to) => rank(to) > rank(from)).map((to) => `${from} → ${to}`),
  );
}

test('each room imports from its own room or the rooms below it', () => {
  const files = scripts(WWW);
  const unknown = files
    .filter((f) => LAYERS.indexOf(roomOf(f)) < 0)
    .map((f) => path.relative(WWW, f));
  assert.deepEqual(unknown, [], 'a room that is not in LAYERS');
  const graph = new Map(files.map((f) => [f, importsOf(f)]));
  const rel = (arrow) =>
    arrow
      .split(' → ')
      .map((f) => path.relative(WWW, f))
      .join(' → ');
  assert.deepEqual(upwardOf(graph, roomOf).map(rel), []);
});

test('the check finds an import from a lower room to a higher one', () => {
  // lab/link.js reading the teacher's keys from lessons/teacher.js was one.
  const graph = new Map([
    ['lab/link.js', ['lessons/teacher.js', 'shown.js']],
    ['lessons/teacher.js', ['shown.js']],
  ]);
  const room = (f) => (f.includes('/') ? f.split('/')[0] : '');
  assert.deepEqual(upwardOf(graph, room), ['lab/link.js → lessons/teacher.js']);
});
