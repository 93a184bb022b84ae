// The seed's controls as the data set asks: shown for a built-in set, hidden for a student's
// file unless a fixed seed was chosen (settings.js keeps the values).
import { settings } from './settings.js';

const $ = (id) => document.getElementById(id);

// What else follows the data set wherever the seed's controls do (groups.js: the groupings
// it offers).
const dataSetShown = [];
export const onDataSetShown = (/** @type {() => void} */ f) => dataSetShown.push(f);

// The seed's controls for the data set: a student's file hides the seed (a random one is drawn)
// unless the student fixes one.
export function showSeedMode() {
  for (const f of dataSetShown) f();
  const own = settings.ownData();
  for (const el of document.querySelectorAll('#seed-control .own-only')) el.hidden = !own;
  $('seed-help').hidden = own;
  $('seed').hidden = own && !settings.get('fixed_seed');
}
