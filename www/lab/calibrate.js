// "Calibrate σ": asks the accounting worker (Rust) for the smallest σ, rounded up, whose run
// spends at most the target ε, and moves the σ slider there. An answer to settings that have
// changed since is dropped with a message; the page itself computes nothing of it.
import { clearMessage, setStatus, showMessage } from '../core/messages.js';
import { configKey } from './config-key.js';
import { settings } from './settings.js';
import { counted, deltaText } from '../core/shown.js';

const $ = (id) => document.getElementById(id);

// `current()` gives { cfg, facts } of the controls now (facts null while the data set loads).
export function setUpCalibrate({ accounting, fmtEps, restart, current }) {
  $('calibrate').addEventListener('click', () => {
    const { cfg, facts } = current();
    if (!facts) {
      showMessage('The data set is still loading: press Calibrate σ again in a moment.');
      return;
    }
    const accountant = settings.get('budget_accountant');
    const target = settings.get('budget_epsilon');
    const asked = configKey([cfg, facts]);
    clearMessage();
    const delta = `δ = ${deltaText(cfg.delta)}`;
    setStatus(`Calibrating σ for ε = ${target} at ${delta} with the ${accountant} accountant…`);
    accounting.ask('calibrate', { config: cfg, facts, accountant, target }, (m) => {
      const now = current();
      if (configKey([now.cfg, now.facts]) !== asked) {
        showMessage('The settings changed while σ was being calibrated: press Calibrate σ again.');
        return;
      }
      if (m.error) {
        showMessage(`Cannot calibrate: ${m.error}`);
        return;
      }
      const { sigma, epsilon } = m.result;
      const max = settings.sliderMax('sigma');
      if (sigma > max) {
        showMessage(
          `σ = ${sigma} would be needed for ε = ${target} at ${delta}; the slider stops at ` +
            `${max}. Try fewer epochs or a smaller lot.`,
        );
        return;
      }
      settings.apply({ sigma });
      restart();
      // ε is shown rounded up: at two decimals of a target of 10 or more (12.34) that can
      // read above it (12.4), though Rust's calibration holds ε ≤ the target; then only that.
      const shown = fmtEps(epsilon);
      const spends = Number(shown) <= Number(target) ? `ε = ${shown} ≤ ${target}` : `ε ≤ ${target}`;
      showMessage(
        `σ = ${sigma} (rounded up) spends ${spends} at ${delta} ` +
          `in ${counted(cfg.epochs, 'epoch')} (${m.result.accountant} accountant).`,
      );
    });
  });
}
