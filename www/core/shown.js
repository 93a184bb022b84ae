// User strings in the page's words (a file's or a column's name, a link's value): on one line
// and short whatever their length, by the rule of Rust's `text::shown` (src/text.rs), which
// shortens what Rust says: control characters escaped, and past 60 characters the first 60,
// then "…" and how many characters the whole has ("abc… (900,000 characters)").
export const SHOWN_CHARS = 60;

const escaped = (c) =>
  ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ?? `\\u{${c.codePointAt(0).toString(16)}}`;

// `text` (any value, as a string) for a message, cut after `max` characters.
export function shown(text, max = SHOWN_CHARS) {
  const chars = [...String(text)];
  const kept = chars
    .slice(0, max)
    .join('')
    .replace(/\p{Cc}/gu, escaped);
  return chars.length > max
    ? `${kept}… (${chars.length.toLocaleString('en-US')} characters)`
    : kept;
}

// `n` and its noun, singular for one ("1 epoch", "3 epochs"; Rust's `text::counted`).
export const counted = (/** @type {number} */ n, /** @type {string} */ one, many = `${one}s`) =>
  `${n} ${n === 1 ? one : many}`;

// A δ as a person writes it, by the rule of Rust's `text::delta_in_words` (the charts' titles):
// 1e-5, 2.5e-7 (three significant digits at most), whatever float noise the slider left in it
// (10 ** -5 is 9.999999999999999e-6).
export function deltaText(/** @type {number} */ d) {
  if (!Number.isFinite(d) || d <= 0) return String(d);
  const [mantissa, exponent] = d.toExponential(2).split('e');
  return `${mantissa.replace(/\.?0+$/, '')}e${exponent.replace('+', '')}`;
}
