// The end-to-end files that time anything run alone (scripts/test-e2e runs the others two at a
// time): a file that measures the page's main-thread tasks, reads a clock, asserts a time or
// sets the training worker's watchdog to a clock of its own (setSilence: beside a busy file a
// sound worker can miss it) says so on its first line, "// e2e: alone (why)". The main thread's
// CPU time too: on this machine's two cores another browser beside it lengthened a chart's task
// from at most 51 ms of CPU (alone, a core busy) to 132 ms (#52 item 14, one run two at a time).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const E2E = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../e2e');
const TIMES = new RegExp(
  String.raw`assertResponsive|responsiveSuite|longTasks|Date\.now\(\)|performance` +
    String.raw`\.now\(\)|coresTimed|setSilence`,
);

test('every end-to-end file that times anything is marked to run alone', () => {
  const files = readdirSync(E2E).filter((f) => f.endsWith('.test.mjs'));
  assert.ok(files.length > 20, files.join(', '));
  const unmarked = files.filter((f) => {
    const text = readFileSync(path.join(E2E, f), 'utf8');
    return TIMES.test(text) && !/^\/\/ e2e: alone \(.+\)\.\n/.test(text);
  });
  assert.deepEqual(unmarked, [], 'mark them "// e2e: alone (why)." on their first line');
});

test('the marker is read as scripts/test-e2e reads it', () => {
  const script = readFileSync(path.join(E2E, '../../scripts/test-e2e'), 'utf8');
  assert.match(script, /head -1 "\$f" \| grep -q '\^\/\/ e2e: alone \('/);
  // The files whose page times the machine run last of those alone, after the work beside them.
  assert.match(script, /head -1 "\$f" \| grep -q '\^\/\/ e2e: alone \(the page times '/);
  const last = readdirSync(E2E).filter((f) =>
    readFileSync(path.join(E2E, f), 'utf8').startsWith('// e2e: alone (the page times '),
  );
  assert.ok(last.includes('engines.test.mjs'), last.join(', '));
});
