// @ts-check
// The Play / Pause button: whether the run trains (kept across runs: a paused lab starts its
// next run paused) and the button's words. A finished run has nothing to pause: the button
// says "Play" (not "Pause" for a run that is done, #53) and its title says why; it stays
// pressable, so the keyboard's path through the page does not change as a run ends.
const button = () => /** @type {HTMLButtonElement} */ (document.getElementById('play'));

let playing = true;

/** Whether runs train (true) or wait paused. */
export const isPlaying = () => playing;

/** Wires the button: `toggled(playing)` runs after each press, with the new state. */
export function setUpPlayButton(/** @type {(playing: boolean) => void} */ toggled) {
  button().addEventListener('click', () => {
    playing = !playing;
    show(false);
    toggled(playing);
  });
}

/** A run started (`ended` false) or finished (true): the button offers what can be done. */
export function show(/** @type {boolean} */ ended) {
  const b = button();
  b.textContent = playing && !ended ? 'Pause' : 'Play';
  b.setAttribute('aria-pressed', String(playing && !ended));
  b.title = ended ? 'This run is done: move a setting or press Reset to train again' : '';
}
