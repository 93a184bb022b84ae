// "Export as Opacus script" (#41 §4): the current settings as a Python script that trains the
// same run with Opacus — for Adult, breast cancer and the 2-D sets a tar of the script and the
// prepared features, otherwise the script alone. Rust writes it (`opacus_export`,
// src/export/) in the accounting worker, off the main thread; a run Opacus cannot express
// exactly gets Rust's one line here.
import { settings } from './settings.js';
import { downloadBytes } from './download.js';

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

// Wires the button: `currentRun()` is the run now shown ({cfg, facts}) or null, `accounting`
// the accounting worker (accounting.js).
export function setUpOpacusExport(/** @type {() => any} */ currentRun, /** @type {import('./accounting.js').Accounting} */ accounting) {
  const say = $('opacus-export-message');
  $('export-opacus').addEventListener('click', () => {
    const config = settings.config();
    const run = currentRun();
    // The data's public facts (its N) from the last run on this data set, if one has loaded.
    const facts = run && run.cfg.dataset === config.dataset ? run.facts ?? null : null;
    const label = config.dataset === 'own' ? String($('label-column')?.value ?? '') : undefined;
    say.textContent = 'Writing the Opacus script…';
    accounting.ask('opacus-export', { config, facts, label, accountant: String($('opacus-accountant').value) }, (m) => {
      if ('error' in m) {
        say.textContent = `Not exported: ${String(m.error).split('\n')[0]}`;
        return;
      }
      const { name, bytes } = m.result;
      downloadBytes(name, bytes, name.endsWith('.py') ? 'text/x-python' : 'application/x-tar');
      say.textContent = `Saved ${m.result.name}: run it with Opacus (its first lines say how).`;
    });
  });
}
