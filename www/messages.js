// The page's two places for words: the status line (progress, replaced as a run goes on) and
// the message box (errors and confirmations, kept until dismissed or the user's next change).
const $ = (id) => document.getElementById(id);

export function setStatus(text) {
  $('status').textContent = text;
}

export function showMessage(text) {
  $('message-text').textContent = text;
  $('message').hidden = false;
}

export function clearMessage() {
  $('message').hidden = true;
}

$('message-close').addEventListener('click', clearMessage);
