// The page's places for words: the status line (progress, replaced as a run goes on), the
// run's notes under it (Rust's caveats on the run's numbers, as its latest report gives them)
// and the message box (errors and confirmations, kept until dismissed or the user's next
// change). While a data set loads, a progress bar joins the status line.
const $ = (id) => document.getElementById(id);

let beforeProgress = null; // the status line a loading report took over

// The status line: `text`, and `aside` after it in a span of its own (a run's verdict: the
// presenter sets it smaller, as the lesson says it too).
export function setStatus(text, aside) {
  beforeProgress = null;
  $('load-progress').hidden = true;
  $('status').textContent = text;
  if (aside) {
    const span = document.createElement('span');
    span.className = 'status-aside';
    span.textContent = aside;
    $('status').append(' ', span);
  }
}

const MB = (b) => (b / 1048576).toFixed(1);

// A training worker's 'progress' report on loading `name`: bytes downloaded (a bar), then
// decoding and DP-PCA (a bar without an end: they take a few seconds on 60,000 images).
export function showProgress(m, name) {
  if (beforeProgress === null) beforeProgress = [...$('status').childNodes]; // the aside too
  const bar = $('load-progress');
  bar.hidden = false;
  const loaded = Number(m.loaded) || 0;
  const total = Number(m.total) || 0;
  if (m.stage === 'download' && total > 0) {
    bar.max = total;
    bar.value = Math.min(loaded, total);
    $('status').textContent = `Downloading ${name}: ${MB(loaded)} of ${MB(total)} MB…`;
    return;
  }
  bar.removeAttribute('value'); // indeterminate
  $('status').textContent =
    m.stage === 'download'
      ? `Downloading ${name}: ${MB(loaded)} MB…`
      : m.stage === 'decode'
        ? `Decoding ${name}…`
        : 'DP-PCA: projecting the data (noisy covariance, accounted)…';
}

// Loading is over: the status line goes back to what it said before.
export function endProgress() {
  if (beforeProgress === null) return;
  $('load-progress').hidden = true;
  $('status').replaceChildren(...beforeProgress);
  beforeProgress = null;
}

// The caveats a report carries (`notes`, written by Rust), shown as they are; none hides the list.
export function showNotes(notes) {
  const list = Array.isArray(notes) ? notes.map(String) : [];
  const items = list.map((n) =>
    Object.assign(document.createElement('li'), { textContent: `Note: ${n}.` }),
  );
  $('run-notes').replaceChildren(...items);
  $('run-notes').hidden = !items.length;
}

export function showMessage(text) {
  $('message-text').textContent = text;
  $('message').hidden = false;
}

// Adds `text` to what the message box already says (a link's pins each say their own).
export function addMessage(text) {
  showMessage($('message').hidden ? text : `${$('message-text').textContent} ${text}`);
}

export function clearMessage() {
  $('message').hidden = true;
}

$('message-close').addEventListener('click', clearMessage);
