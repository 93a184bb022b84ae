//! Algorithm 1's standard normals (its "Add noise" N(0, σ²C²I), scaled by the sanitizer), drawn
//! exactly as rand_distr's `StandardNormal` draws them as f32 — its ziggurat, word for word from
//! the same stream — but with the ziggurat's common case run in a loop of its own over the
//! noise generator's buffered words.
//!
//! rand_distr's ziggurat (Marsaglia & Tsang 2000) takes a u64 `bits`: i = bits mod 256,
//! u = a float in [−1, 1) from bits' top 52, x = u·X[i]; when |x| < X[i + 1] (about 99% of draws)
//! x is the normal, else it goes on with more words (a wedge's test, or the tail when i = 0).
//! [`FillNormals::fill_standard_normals`] does that common case itself and hands every other
//! draw, from the same word, to `StandardNormal` — which then reads the same u64, refuses its
//! common case the same way and goes on as it would have. So the normals, and the words read,
//! are rand_distr's; a test holds them equal, draw for draw (`tests/common/noise_rng.rs`,
//! natively and in the browser). In V8 a normal's common case cost about as much as its words:
//! inside `sample`, the generator's position went to memory and back at every draw.
//!
//! rand_distr keeps its table X private; it is read here from rand_distr itself (see
//! `ziggurat_x`), not copied.

use crate::privacy::noise_rng::ChaCha8Lanes;
use crate::Real;
use rand::{Rng, RngCore};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use std::sync::OnceLock;

/// A generator the sanitizer draws its standard normals from.
pub trait FillNormals: RngCore {
    /// `out` filled with standard normals: the values, in order, of `StandardNormal` sampled
    /// as f32 `out.len()` times from this generator, which is left where that would leave it.
    fn fill_standard_normals(&mut self, out: &mut [Real]);
}

/// rand_chacha's own generator (the native noise generator): `StandardNormal`, one at a time.
impl FillNormals for ChaCha8Rng {
    fn fill_standard_normals(&mut self, out: &mut [Real]) {
        for z in out {
            *z = self.sample(StandardNormal);
        }
    }
}

/// The lanes (the wasm noise generator): the common case over their buffered words.
impl FillNormals for ChaCha8Lanes {
    fn fill_standard_normals(&mut self, out: &mut [Real]) {
        let x = ziggurat_x();
        let mut done = 0;
        while done < out.len() {
            self.take_buffered_u64s(|bits| match common_case(bits, x) {
                Some(z) if done < out.len() => {
                    out[done] = z;
                    done += 1;
                    true
                }
                _ => false,
            });
            // A draw past the common case, or one whose u64 spans two refills (or the end).
            if done < out.len() {
                out[done] = self.sample(StandardNormal);
                done += 1;
            }
        }
    }
}

/// rand_distr's ziggurat's first test on one u64: its normal (as f32) when it takes it there,
/// else None (it would read more words). u is `(bits >> 12).into_float_with_exponent(1) − 3`:
/// the float in [2, 4) with bits' top 52 as its mantissa, minus 3.
#[inline(always)]
fn common_case(bits: u64, x: &[f64; 257]) -> Option<Real> {
    let i = (bits & 0xff) as usize;
    let u = f64::from_bits((bits >> 12) | (1024 << 52)) - 3.0;
    let v = u * x[i];
    (v.abs() < x[i + 1]).then_some(v as Real)
}

/// A generator that returns the same u64 (and its low half as a u32) four times, then one that
/// any ziggurat takes at once as 0 (u = 0): a probe of `StandardNormal` that always ends.
struct Repeat {
    bits: u64,
    calls: u32,
}

impl Repeat {
    fn new(bits: u64) -> Self {
        Self { bits, calls: 0 }
    }
}

impl RngCore for Repeat {
    fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.calls += 1;
        if self.calls > 4 {
            (1 << 63) | 1
        } else {
            self.bits
        }
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes()[..chunk.len()]);
        }
    }
}

/// rand_distr's ziggurat table X for the standard normal, read from `StandardNormal` itself:
/// a u64 with i in its low byte and u = 2⁻⁸ (the mantissa 1.5 + 2⁻⁹ of 3 + 2⁻⁸) is a draw
/// x = X[i]/256 — exact, a power of two times X[i] — taken at its first test for every i but
/// 255, and at its wedge's test, first time, for 255 (X[256] = 0 there). X[256] is 0 here,
/// so i = 255 always goes the long way (correct whatever rand_distr's X[256]). If the values
/// read are not a ziggurat's (positive, decreasing: another algorithm), every X[i + 1] is 0
/// here, and every draw goes to `StandardNormal` — slower, never different.
fn ziggurat_x() -> &'static [f64; 257] {
    static X: OnceLock<[f64; 257]> = OnceLock::new();
    X.get_or_init(|| {
        let mut x = [0.0; 257];
        for (i, xi) in x.iter_mut().enumerate().take(256) {
            let bits = (1u64 << 63) | (1 << 55) | i as u64;
            let z: f64 = StandardNormal.sample(&mut Repeat::new(bits));
            *xi = z * 256.0;
        }
        let ziggurat = x[..256].windows(2).all(|w| w[0] > w[1]) && x[255] > 0.0;
        if ziggurat {
            x
        } else {
            [0.0; 257]
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_table_is_rand_distrs() {
        let x = ziggurat_x();
        // rand_distr's R (the tail's start) is X[1]; X[0] is V / f(R), past it.
        assert!((x[1] - 3.654_152_885_361_009).abs() < 1e-12, "{}", x[1]);
        assert!(x[0] > x[1] && x[255] > 0.0 && x[256] == 0.0);
        // Every draw the common case takes is rand_distr's own: the same f32, and u·X[i] with
        // u computed here another way (bits' top 52 over 2⁵¹, minus 1: exact).
        let mut words = ChaCha8Rng::seed_from_u64(11);
        let (mut taken, mut left) = (0, 0);
        for i in 0..256u64 {
            for _ in 0..64 {
                let bits = (words.next_u64() & !0xff) | i;
                let want: f64 = StandardNormal.sample(&mut Repeat::new(bits));
                let first_test = (bits >> 12) as f64 / (1u64 << 51) as f64 - 1.0;
                match common_case(bits, x) {
                    Some(z) => {
                        assert_eq!(z.to_bits(), (want as Real).to_bits(), "bits {bits:#x}");
                        assert_eq!(want, first_test * x[i as usize], "bits {bits:#x}");
                        taken += 1;
                    }
                    None => left += 1,
                }
            }
        }
        // About 99% taken at once (the wedges and the tail take the rest; all of i = 255).
        assert!(taken > 15_000 && left > 64, "taken {taken}, left {left}");
    }
}
