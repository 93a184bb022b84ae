// "Export as Opacus script" (#41 §4): the run on show as a Python script that trains the
// same run with Opacus — for Adult, breast cancer and the 2-D sets a tar of the script and the
// prepared features, otherwise the script alone. Rust writes it (`opacus_export`,
// src/export/) in the accounting worker, off the main thread; a run Opacus cannot express
// exactly gets Rust's one line here.
import { downloadBytes } from './download.js';

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

// Wires the button: `currentRun()` is the run now shown ({cfg, facts}) or null, `accounting`
// the accounting worker (accounting.js).
export function setUpOpacusExport(
  /** @type {() => any} */ currentRun,
  /** @type {import('../lab/accounting.js').Accounting} */ accounting,
) {
  const say = $('opacus-export-message');
  $('export-opacus').addEventListener('click', () => {
    // The run on show, as it was started: never the pickers, which may have moved since.
    const run = currentRun();
    if (!run) {
      say.textContent = 'Not exported: start a run first (the script is the run on show).';
      return;
    }
    const config = run.cfg;
    const facts = run.facts ?? null;
    say.textContent = 'Writing the Opacus script…';
    accounting.ask(
      'opacus-export',
      { config, facts, accountant: String($('opacus-accountant').value) },
      (m) => {
        if ('error' in m) {
          say.textContent = `Not exported: ${String(m.error).split('\n')[0]}`;
          return;
        }
        const { name, bytes } = m.result;
        downloadBytes(name, bytes, name.endsWith('.py') ? 'text/x-python' : 'application/x-tar');
        say.textContent = `Saved ${m.result.name}: run it with Opacus (its first lines say how).`;
      },
    );
  });
}
