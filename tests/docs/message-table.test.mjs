// ARCHITECTURE.md's message table against www/core/protocol.js (#54 §5): every message type the
// protocol's JSDoc types name is in the table, every message the table names (`name {fields}`)
// is one of the protocol's, and each field the table gives it is one of that type's fields.
// The table had drifted from the protocol in four places before this test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const PROTOCOL = readFileSync(new URL('www/core/protocol.js', root), 'utf8');
const ARCHITECTURE = readFileSync(new URL('ARCHITECTURE.md', root), 'utf8');

// The text inside the braces that open at `open` (the index of a '{'), nested braces kept.
function braced(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    if (text[i] === '{') depth += 1;
    if (text[i] === '}' && (depth -= 1) === 0) return text.slice(open + 1, i);
  }
  throw new Error(`unclosed brace at ${open}`);
}

// The top-level field names of an object type's inside ("a: T, b?: {c: U}" → a, b).
function fieldsOf(inside) {
  const names = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inside.length; i += 1) {
    const c = inside[i];
    if ('{[('.includes(c) && c !== undefined) depth += 1;
    if ('}])'.includes(c) && c !== undefined) depth -= 1;
    if (i === inside.length || (c === ',' && depth === 0)) {
      const name = /^\s*['"]?([\w-]+)['"]?\??\s*:/.exec(inside.slice(start, i));
      if (name) names.push(name[1]);
      start = i + 1;
    }
  }
  return names;
}

// protocol.js's message types: type → the fields of each variant (a Set per type).
export function protocolTypes(jsdoc) {
  const text = jsdoc.replace(/\n\s*\*(?!\/)/g, ' '); // a type over several comment lines as one
  const types = new Map();
  for (const m of text.matchAll(/\{type: '([a-z-]+)'/g)) {
    const fields = fieldsOf(braced(text, m.index)).filter((f) => f !== 'type');
    types.set(m[1], new Set([...(types.get(m[1]) ?? []), ...fields]));
  }
  return types;
}

// The table's messages: each backticked `name` or `name {fields}` of its second column, but a
// name that explains a field ("`parts`: …") and file names.
export function tableMessages(text) {
  const start = text.indexOf('| from → to | messages |');
  const lines = text.slice(start).split('\n').slice(2);
  const rows = lines.slice(
    0,
    lines.findIndex((l) => !l.startsWith('|')),
  );
  const found = [];
  for (const row of rows) {
    const column = row.split(' | ').slice(1).join(' | ');
    for (const m of column.matchAll(/`([a-z]+(?:-[a-z]+)*)(?: \{([^`]*)\})?`(:)?/g)) {
      if (m[3] && !m[2]) continue; // a field explained, not a message
      const fields = (m[2] ?? '')
        .split(',')
        .map((f) => f.trim().replace(/\?$/, ''))
        .filter((f) => /^[\w-]+$/.test(f));
      found.push({ name: m[1], fields });
    }
  }
  return found;
}

test('the table names every message of the protocol, and only those, with their fields', () => {
  const types = protocolTypes(PROTOCOL);
  assert.ok(types.size > 35, [...types.keys()].join(' '));
  const table = tableMessages(ARCHITECTURE);
  assert.ok(table.length > 40, `${table.length} messages in the table`);
  const named = new Set(table.map((m) => m.name));
  assert.deepEqual(
    [...types.keys()].filter((t) => !named.has(t)),
    [],
    'in protocol.js, not in the table',
  );
  // A bare name that is not a message may be a field the row speaks of (`grad`, `setup`).
  const fields = new Set([...types.values()].flatMap((f) => [...f]));
  const madeUp = table.filter(
    (m) => !types.has(m.name) && (m.fields.length > 0 || !fields.has(m.name)),
  );
  assert.deepEqual(
    madeUp.map((m) => m.name),
    [],
    'in the table, not in protocol.js',
  );
  const wrong = table.flatMap((m) =>
    m.fields.filter((f) => !types.get(m.name)?.has(f)).map((f) => `${m.name}.${f}`),
  );
  assert.deepEqual(wrong, [], 'fields the table gives that the type has not');
});

test('the check finds a message missing, one made up and a field that is not there', () => {
  const protocol =
    "/** @typedef {{type: 'start', generation: number, config: {a: 1, b: 2}} | {type: " +
    "'pause'}} T */";
  assert.deepEqual(
    [...protocolTypes(protocol)].map(([t, f]) => [t, [...f]]),
    [
      ['start', ['generation', 'config']],
      ['pause', []],
    ],
  );
  const doc =
    '| from → to | messages |\n|---|---|\n| page → w | `start {generation, seed}` (`seed`: ' +
    'x), `stop`, `w.js` |\n';
  assert.deepEqual(tableMessages(doc), [
    { name: 'start', fields: ['generation', 'seed'] },
    { name: 'stop', fields: [] },
  ]);
});
