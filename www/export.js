// Export: the run log as CSV (only what the run's reports carry; columns outside ε named so,
// what ε does not cover, no seed for a student's own data — see runlog.js), the charts as PNG,
// and the run as an Opacus script (export-opacus.js).
import { csvOf } from './runlog.js';
import { setUpOpacusExport } from './export-opacus.js';

const $ = (id) => document.getElementById(id);

function download(name, href) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

// Wires the two export buttons; `currentRun()` is the run now shown ({cfg, history, coverage})
// or null, `fileTotal()` the file ledger's sentence on show (all runs on a student's file),
// `accounting` the accounting worker (which writes the Opacus script).
export function setUpExport(currentRun, fileTotal, accounting) {
  $('export-csv').addEventListener('click', () => {
    const run = currentRun();
    if (!run) return;
    const url = URL.createObjectURL(new Blob([csvOf(run.history, run.cfg, { outside: run.coverage?.outside || [], fileTotal: fileTotal() })], { type: 'text/csv' }));
    download('dpsgd-run-log.csv', url);
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  $('export-png').addEventListener('click', () => {
    for (const id of ['accuracy-chart', 'epsilon-chart', 'clipping-chart', 'noise-chart', 'sigma-chart']) {
      download(`dpsgd-${id}.png`, $(id).toDataURL('image/png'));
    }
  });
  setUpOpacusExport(currentRun, accounting);
}
