// Pinned runs: up to four, drawn faded behind the current run. A pin keeps only what ε covers
// (it stays on the charts whatever the release level), and a run on the student's own data is
// never written into a link (its settings cannot reopen it, and a fixed seed must not travel).
const $ = (id) => document.getElementById(id);
export const MAX_PINS = 4;

export class Pins {
  constructor() {
    this.list = [];
  }

  add(label, cfg, runHistory) {
    if (!runHistory.length) return;
    const keep = (r) => {
      const outside = new Set(r.not_private || []);
      return { epoch: r.epoch, test_acc: outside.has('test_acc') ? undefined : r.test_acc, private_test_acc: r.private_test_acc, epsilon: r.epsilon };
    };
    this.list.push({ label, cfg, history: runHistory.map(keep) });
    if (this.list.length > MAX_PINS) this.list.shift();
    this.render();
  }

  clear() {
    this.list = [];
    this.render();
  }

  render() {
    $('pin-list').replaceChildren(...this.list.map((p) => Object.assign(document.createElement('li'), { textContent: p.label })));
  }

  // What the charts draw: labels and histories.
  drawn() {
    return this.list.map((p) => ({ label: p.label, history: p.history }));
  }

  // What a link may carry: the settings of pins not on the student's own data.
  shared() {
    return this.list.filter((p) => p.cfg.dataset !== 'own').map((p) => ({ label: p.label, cfg: p.cfg }));
  }
}

