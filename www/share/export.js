// Export: the run log as CSV (only what the run's reports carry; columns outside ε named so,
// what ε does not cover, no seed for a student's own data — see runlog.js), the charts as PNG,
// and the run as an Opacus script (export-opacus.js).
import { csvOf } from '../views/runlog.js';
import { setUpOpacusExport } from './export-opacus.js';
import { download, downloadBytes } from './download.js';

const $ = (id) => document.getElementById(id);

// Wires the two export buttons; `currentRun()` is the run now shown ({cfg, history, coverage})
// or null, `fileTotal()` the file ledger's sentence on show (all runs on a student's file),
// `accounting` the accounting worker (which writes the Opacus script).
export function setUpExport(currentRun, fileTotal, accounting) {
  $('export-csv').addEventListener('click', () => {
    const run = currentRun();
    if (!run) return;
    downloadBytes(
      'dpsgd-run-log.csv',
      csvOf(run.history, run.cfg, { outside: run.coverage?.outside || [], fileTotal: fileTotal() }),
      'text/csv',
    );
  });
  $('export-png').addEventListener('click', () => {
    for (const id of [
      'accuracy-chart',
      'epsilon-chart',
      'clipping-chart',
      'noise-chart',
      'sigma-chart',
    ]) {
      download(`dpsgd-${id}.png`, $(id).toDataURL('image/png'));
    }
  });
  setUpOpacusExport(currentRun, accounting);
}
