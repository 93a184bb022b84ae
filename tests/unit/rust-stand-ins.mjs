// Stand-ins for the Rust functions the page hands its modules, for the unit tests (no wasm
// here): each as its Rust says, and named after it.

// RunConfig::adds_noise (src/config/mod.rs), the page's adds_noise: a mode with noise at σ > 0.
export const addsNoise = (/** @type {{mode?: string, sigma?: number}} */ s) =>
  (s.sigma ?? 1) > 0 && !['non-private', 'clip-only'].includes(s.mode ?? 'dp');
