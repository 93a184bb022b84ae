// The page's modules import one way (#54 §1): no module reaches itself through its imports.
// A circle (lesson-player.js → worksheet.js → share.js → link.js → teacher.js → lesson-player.js
// was one) means no module of it can be read, tested or moved to a room of its own without the
// others. Every static import of every script under www/ (but the built pkg/ and v/) is followed.
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

// The modules a script imports statically (`import … from './x.js'`, `export … from`), as paths.
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]/gm), ...text.matchAll(/^\s*import\s*['"](\.[^'"]+)['"]/gm)];
  return found.map((m) => path.resolve(path.dirname(file), m[1])).filter((p) => !p.includes(`${path.sep}pkg${path.sep}`));
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
  assert.deepEqual(circlesOf(graph).map((c) => c.map((f) => path.basename(f)).join(' → ')), []);
});

test('the check finds a circle where there is one', () => {
  const graph = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
  assert.deepEqual(circlesOf(graph), [['a', 'b', 'c', 'a']]);
});
