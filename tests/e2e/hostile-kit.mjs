// What the hostile-input tests read off a page (hostile.test.mjs, hostile-links.test.mjs): its
// message box, and any "NaN" or "undefined" it writes.

// The message box's text ('' while hidden).
export const message = (page) =>
  page.evaluate(() =>
    document.getElementById('message').hidden
      ? ''
      : document.getElementById('message-text').textContent,
  );

// Waits until the message box says `pattern`.
export const waitForMessage = (page, pattern, timeout = 30_000) =>
  page.waitForFunction(
    ([source, flags]) =>
      !document.getElementById('message').hidden &&
      new RegExp(source, flags).test(document.getElementById('message-text').textContent),
    [pattern.source, pattern.flags],
    { timeout },
  );

// In the page: "NaN" or "undefined" anywhere the page writes (with `width` characters around
// it), or null; quoted echoes of the user's own input in the message box ("sigma = 'NaN' is
// not a number") excepted.
export function junkInPage(width) {
  const msg = document.getElementById('message');
  const saved = msg.hidden;
  msg.hidden = true;
  const text = document.body.innerText;
  msg.hidden = saved;
  const own = saved
    ? ''
    : document.getElementById('message-text').textContent.replace(/'[^']*'|"[^"]*"/g, "''");
  const hit = `${text}\n${own}`.match(
    new RegExp(`.{0,${width}}\\b(NaN|undefined)\\b.{0,${width}}`),
  );
  return hit ? hit[0] : null;
}
export const junkOnPage = (page) => page.evaluate(junkInPage, 50);
