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
    /// Sum over the epoch's lots of the released (noisy) unclipped fraction b̃, and how many.
    pub noisy_unclipped: f64,
    pub noisy_counts: usize,
    /// Sums over the epoch's lots of ||Σ clipped g_i|| and ||noise||.
    pub signal_norm: f64,
    pub noise_norm: f64,
    /// A uniform sample of the epoch's per-example gradient norms, and how many it drew from.
    pub norms: Vec<Real>,
    seen: usize,
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
            self.seen += 1;
            if self.norms.len() < NORM_SAMPLE {
                self.norms.push(n);
            } else {
                // Algorithm R: the k-th norm replaces a random slot with probability S/k.
                let j = rng.random_range(0..self.seen);
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_norm_sample_is_uniform_over_the_epoch() {
        // 40,000 norms 0, 1, 2, … in batches of 600: a uniform sample of 4,096 has mean
        // 19,999.5 ± 180 (std 11,547/√4096) and half of it from the first half ± 0.8%.
        let mut stats = EpochStats::default();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut lot = Vec::new();
        let all: Vec<Real> = (0..40_000).map(|i| i as Real).collect();
        for batch in all.chunks(600) {
            stats.examples += batch.len();
            lot.clear();
            stats.record_norms(batch, &mut lot, &mut rng);
        }
        assert_eq!(stats.norms.len(), NORM_SAMPLE);
        assert_eq!(lot.len(), LOT_NORMS.min(all.len() % 600));
        let n = stats.norms.len() as f64;
        let mean = stats.norms.iter().map(|&v| v as f64).sum::<f64>() / n;
        assert!((mean - 19_999.5).abs() < 5.0 * 180.0, "sample mean {mean}");
        let early = stats.norms.iter().filter(|&&v| v < 20_000.0).count() as f64 / n;
        assert!(
            (early - 0.5).abs() < 5.0 * 0.0078,
            "{early} of the sample from the first half"
        );
    }
}
