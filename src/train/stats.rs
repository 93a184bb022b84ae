//! What an epoch accumulates for its report and the teaching views: examples and clipped
//! counts, a reservoir sample of per-example gradient norms, the last lot's norms, and the
//! (signal, noise) norms of evenly spaced lots.

use crate::Real;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// How many per-example gradient norms an epoch keeps for its summary (reservoir sample).
const NORM_SAMPLE: usize = 4096;
/// How many norms of the last lot a report carries (for the clipping histogram).
const LOT_NORMS: usize = 512;
/// How many lots' (signal, noise) norms an epoch's report carries, evenly spaced.
const LOT_SAMPLE: u64 = 64;

/// Statistics accumulated over the lots of the current epoch.
#[derive(Default)]
pub(super) struct EpochStats {
    pub examples: usize,
    pub clipped: usize,
    pub lots: usize,
    /// Sums over the epoch's lots of ||Σ clipped g_i|| and ||noise||.
    pub signal_norm: f64,
    pub noise_norm: f64,
    /// A uniform sample of the epoch's per-example gradient norms.
    pub norms: Vec<Real>,
    /// (position in the epoch, ||Σ clipped g_i||, ||noise||) of up to `LOT_SAMPLE` evenly
    /// spaced lots; the position of lot j (from 0) is (j + 1) / steps per epoch.
    pub per_lot: Vec<[f32; 3]>,
}

impl EpochStats {
    /// Adds a batch's per-example norms: to the epoch's reservoir sample (on an RNG of its
    /// own, so statistics never change the training's random stream) and, up to `LOT_NORMS`,
    /// to the current lot's norms.
    pub fn record_norms(
        &mut self,
        batch: &[Real],
        lot_norms: &mut Vec<Real>,
        rng: &mut ChaCha8Rng,
    ) {
        for &n in batch {
            if lot_norms.len() < LOT_NORMS {
                lot_norms.push(n);
            }
            if self.norms.len() < NORM_SAMPLE {
                self.norms.push(n);
            } else {
                let j = rng.random_range(0..self.examples);
                if j < NORM_SAMPLE {
                    self.norms[j] = n;
                }
            }
        }
    }

    /// Adds a finished lot's signal and noise norms (keeping every k-th lot's pair, k chosen
    /// so an epoch of `steps_per_epoch` lots keeps at most `LOT_SAMPLE`).
    pub fn record_lot(&mut self, signal: f64, noise: f64, steps_per_epoch: u64) {
        let stride = steps_per_epoch.div_ceil(LOT_SAMPLE).max(1) as usize;
        if self.lots.is_multiple_of(stride) {
            let position = (self.lots + 1) as f64 / steps_per_epoch.max(1) as f64;
            self.per_lot
                .push([position as f32, signal as f32, noise as f32]);
        }
        self.lots += 1;
        self.signal_norm += signal;
        self.noise_norm += noise;
    }
}
