// A settings object's identity, pure: two settings told apart in one place.

/**
 * A settings object's identity (#54 §1): its JSON with every object's keys sorted, so that the
 * same settings read back in another order (from a link, a pin, Rust's check) are the same run.
 * The one place the page tells two settings apart, for the audit's and Alice's staleness, a
 * pin kept as the run, a step's earlier run and calibration's.
 * @param {unknown} cfg
 */
export function configKey(cfg) {
  const sorted = (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v;
  return JSON.stringify(cfg, sorted);
}

/** Whether `a` and `b` are the same settings (configKey). */
export const sameConfig = (a, b) => configKey(a) === configKey(b);
