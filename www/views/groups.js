// @ts-check
// Who pays for privacy, the page's side: the Groups control offers only the groupings the data
// set has (Rust's `group_choices`: Adult's sex and race and the class; the class elsewhere;
// none on a student's own file, whose private rows' groups would be released without noise,
// said in one line under the control), and the groups chart shows while a run has groups.
import { group_choices } from '../pkg/dpsgd_lab.js';
import { settings } from '../lab/settings.js';
import { onDataSetShown } from '../lab/seed-controls.js';
import { addMessage } from '../core/messages.js';

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

/**
 * Disables the groupings the data set does not offer (disabled, not hidden: a link read before
 * this runs may still choose one, and is then set right here); a disabled one chosen becomes none.
 */
export function showGroupChoices() {
  const offered = new Set(group_choices(String(settings.get('dataset'))));
  for (const option of $('groups').options)
    option.disabled = option.value !== 'none' && !offered.has(option.value);
  const chosen = $('groups').selectedOptions[0];
  if (chosen?.disabled) {
    // Said, not dropped in silence (a link's groups=sex on blobs, or Adult's race then blobs).
    const data =
      $('dataset').selectedOptions[0]?.textContent?.trim() || String(settings.get('dataset'));
    settings.apply({ groups: 'none' });
    if (!settings.ownData())
      addMessage(`Groups: ${data} has no grouping by ${chosen.value}, so no groups are shown.`);
  }
  $('groups-own').hidden = !settings.ownData();
}
onDataSetShown(showGroupChoices);

/** Shows the groups chart's figure while `cfg` (the run drawn) has groups; whether it shows. */
export function showGroupsFigure(/** @type {{groups?: string | null}} */ cfg) {
  const shown = typeof cfg.groups === 'string';
  $('groups-figure').hidden = !shown;
  return shown;
}
