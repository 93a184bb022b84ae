//! The PLD accountant as a running composition: mechanisms are composed one after another
//! (DP-PCA's step, then the training steps an epoch at a time, …) by multiplying the
//! spectra of their loss distributions, and ε(δ) or δ(ε) can be read after any of them — one
//! inverse FFT per read. This is what makes the ε-versus-epoch curve cheap: every further
//! epoch is one pointwise product and one inverse FFT.
//!
//! Every mechanism shares one loss grid of interval h per direction, planned from the largest
//! composition expected (the `capacity`): wide enough that the composed distribution's
//! Chernoff window (mass outside below 1e-15, counted as infinite loss) fits in
//! [`MAX_GRID`] points. Composing beyond the capacity re-plans and starts over.

use super::pld::{
    complex_pow, one_step_loss_range, Direction, Pld, DEFAULT_INTERVAL, MAX_GRID, TAIL,
};
use super::pld_steps::{step_pld, Mgf};
use super::{merge_parts, needs_accounting, PrivacyAccountant, SampledGaussian};
use rustfft::num_complex::Complex;
use rustfft::FftPlanner;

/// Transforms of powers of one step's PLD, by (q, σ, count).
type Powers = Vec<((f64, f64, u64), Vec<Complex<f64>>)>;

/// Transforms kept for reuse (one epoch's spectrum, recomposed every epoch) up to this size.
const CACHE_MAX_SIZE: usize = 1 << 19;

/// The composition so far in one direction of neighbouring.
struct Side {
    dir: Direction,
    h: f64,
    size: usize,
    /// Product of the composed parts' spectra (pmfs placed from index 0).
    spectrum: Vec<Complex<f64>>,
    /// Σ count·offset and Σ count·(offset + len − 1): the composed support's index range.
    base: i64,
    top: i64,
    /// (u, Σ count·ln M(u), Σ count·ln M(−u)) for the Chernoff window.
    mgf: Vec<(f64, f64, f64)>,
    /// Σ count·ln(1 − infinite mass of one step).
    log_finite: f64,
    /// One step's PLD and its log-MGF table per (q, σ), and transforms of powers of it:
    /// ((q, σ, count), spectrum).
    steps: Vec<((f64, f64), Pld, Mgf)>,
    powers: Powers,
}

/// Index window [lo, hi] outside which a sum with these summed log-MGFs has mass below TAIL
/// (Chernoff: P[S ≥ a] ≤ exp(ln M_S(u) − u a), P[S ≤ a] ≤ exp(ln M_S(−u) + u a)).
fn chernoff_window(mgf: &[(f64, f64, f64)], base: i64, top: i64) -> (i64, i64) {
    let ln_tail = TAIL.ln();
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for &(u, pos, neg) in mgf {
        hi = hi.min((pos - ln_tail) / u);
        lo = lo.max((ln_tail - neg) / u);
    }
    let lo = (lo.floor() as i64).max(base);
    let hi = (hi.ceil() as i64).min(top);
    (lo, hi.max(lo))
}

/// Summed log-MGF table and support (index range) of `parts` composed, each given with its
/// one-step PLD and that PLD's log-MGF table.
fn composed_extent(parts: &[(SampledGaussian, &Pld, &Mgf)]) -> (Mgf, i64, i64) {
    let mut mgf: Mgf = Vec::new();
    let (mut base, mut top) = (0i64, 0i64);
    for (p, pld, table) in parts {
        let t = p.steps as f64;
        for (i, &(u, pos, neg)) in table.iter().enumerate() {
            if i == mgf.len() {
                mgf.push((u, 0.0, 0.0));
            }
            mgf[i].1 += t * pos;
            mgf[i].2 += t * neg;
        }
        base += p.steps as i64 * pld.offset;
        top += p.steps as i64 * (pld.offset + pld.pmf.len() as i64 - 1);
    }
    (mgf, base, top)
}

/// The grid interval for composing `parts` (merged, nontrivial) in direction `dir`: `h`, or
/// wider when one step or the composition would not fit in [`MAX_GRID`] points (the width of
/// the composition is estimated on a coarse grid first).
fn plan_interval(parts: &[SampledGaussian], dir: Direction, h: f64) -> f64 {
    let widest_step = parts
        .iter()
        .map(|p| {
            let (lo, hi) = one_step_loss_range(p.q, p.sigma, dir);
            hi - lo
        })
        .fold(0.0, f64::max);
    let coarse_h = 1e-2f64.max(h).max(widest_step / MAX_GRID);
    let coarse: Vec<(SampledGaussian, Pld, Mgf)> = parts
        .iter()
        .map(|p| {
            let (pld, table) = step_pld(p.q, p.sigma, coarse_h, dir);
            (*p, pld, table)
        })
        .collect();
    let refs: Vec<(SampledGaussian, &Pld, &Mgf)> =
        coarse.iter().map(|(p, d, m)| (*p, d, m)).collect();
    let (mgf, base, top) = composed_extent(&refs);
    let (lo, hi) = chernoff_window(&mgf, base, top);
    let longest = coarse
        .iter()
        .map(|(_, d, _)| d.pmf.len())
        .max()
        .unwrap_or(1);
    let width = ((hi - lo + 1) as f64).max(longest as f64) * coarse_h;
    h.max(width / MAX_GRID).max(widest_step / MAX_GRID)
}

/// `spectrum` times `factor`, point by point: composition is the product of the spectra.
fn multiply_into(spectrum: &mut [Complex<f64>], factor: &[Complex<f64>]) {
    for (a, b) in spectrum.iter_mut().zip(factor) {
        *a *= b;
    }
}

impl Side {
    fn plan(capacity: &[SampledGaussian], dir: Direction, h_wanted: f64) -> Side {
        let h = plan_interval(capacity, dir, h_wanted);
        let steps: Vec<((f64, f64), Pld, Mgf)> = capacity
            .iter()
            .map(|p| {
                let (pld, table) = step_pld(p.q, p.sigma, h, dir);
                ((p.q, p.sigma), pld, table)
            })
            .collect();
        let with_counts: Vec<(SampledGaussian, &Pld, &Mgf)> = capacity
            .iter()
            .zip(&steps)
            .map(|(p, (_, pld, table))| (*p, pld, table))
            .collect();
        let (mgf, base, top) = composed_extent(&with_counts);
        let (lo, hi) = chernoff_window(&mgf, base, top);
        let longest = steps.iter().map(|(_, d, _)| d.pmf.len()).max().unwrap_or(1);
        let size = ((hi - lo + 1) as usize).max(longest).next_power_of_two();
        let zero_mgf = mgf.iter().map(|&(u, _, _)| (u, 0.0, 0.0)).collect();
        Side {
            dir,
            h,
            size,
            spectrum: vec![Complex::new(1.0, 0.0); size],
            base: 0,
            top: 0,
            mgf: zero_mgf,
            log_finite: 0.0,
            steps,
            powers: Vec::new(),
        }
    }

    /// The index of (q, σ)'s one-step PLD in `steps`, built on first use.
    fn step_pld(&mut self, q: f64, sigma: f64) -> usize {
        if let Some(i) = self.steps.iter().position(|(k, _, _)| *k == (q, sigma)) {
            return i;
        }
        let (pld, table) = step_pld(q, sigma, self.h, self.dir);
        self.steps.push(((q, sigma), pld, table));
        self.steps.len() - 1
    }

    /// Multiplies `part` into the composition.
    fn compose(&mut self, part: &SampledGaussian, planner: &mut FftPlanner<f64>) {
        let index = self.step_pld(part.q, part.sigma);
        let pld = &self.steps[index].1;
        let key = (part.q, part.sigma, part.steps);
        let t = part.steps as f64;
        // The cached power is multiplied in where it lies (no copy of its spectrum per epoch).
        match self.powers.iter().position(|(k, _)| *k == key) {
            Some(i) => multiply_into(&mut self.spectrum, &self.powers[i].1),
            None => {
                let p: Vec<Complex<f64>> = pld
                    .spectrum(self.size, planner)
                    .into_iter()
                    .map(|c| complex_pow(c, part.steps))
                    .collect();
                multiply_into(&mut self.spectrum, &p);
                if self.size <= CACHE_MAX_SIZE {
                    if self.powers.len() >= 4 {
                        self.powers.remove(0);
                    }
                    self.powers.push((key, p));
                }
            }
        }
        let (_, pld, table) = &self.steps[index];
        for ((_, pos, neg), &(_, p1, n1)) in self.mgf.iter_mut().zip(table) {
            *pos += t * p1;
            *neg += t * n1;
        }
        self.base += part.steps as i64 * pld.offset;
        self.top += part.steps as i64 * (pld.offset + pld.pmf.len() as i64 - 1);
        self.log_finite += t * (-pld.inf_mass).ln_1p();
    }

    /// The composed distribution, read off the spectrum by one inverse FFT within its
    /// Chernoff window (never wider than the transform). Whatever mass the window does not
    /// hold — the tails beyond it, or anything lost to rounding — is counted as infinite loss,
    /// so a mistake here can only make ε larger, never smaller.
    ///
    /// The transform is the smallest power of two m that holds the window, not the whole grid:
    /// the spectrum at every (size/m)-th frequency is the transform of the pmf folded modulo m
    /// (aliasing), and folding leaves the window's points apart. What folds onto them from the
    /// tails outside (mass below 2·TAIL, already counted as infinite) only adds mass, so ε can
    /// only grow. Early in a run the window is a fraction of the grid planned for its end, and
    /// each epoch's read costs that fraction.
    fn read(&self, planner: &mut FftPlanner<f64>) -> Pld {
        let (lo, hi) = chernoff_window(&self.mgf, self.base, self.top);
        let hi = hi.min(lo + self.size as i64 - 1);
        let m = ((hi - lo + 1) as usize).next_power_of_two().min(self.size);
        let mut buf: Vec<Complex<f64>> = self
            .spectrum
            .iter()
            .step_by(self.size / m)
            .copied()
            .collect();
        planner.plan_fft_inverse(m).process(&mut buf);
        let m = m as i64;
        let pmf: Vec<f64> = (lo..=hi)
            .map(|s| (buf[(s - self.base).rem_euclid(m) as usize].re / m as f64).max(0.0))
            .collect();
        let infinite = (-self.log_finite.exp_m1() + 2.0 * TAIL).min(1.0);
        let missing = 1.0 - infinite - pmf.iter().sum::<f64>();
        Pld {
            h: self.h,
            offset: lo,
            pmf,
            inf_mass: (infinite + missing.max(0.0)).min(1.0),
        }
    }
}

/// The PLD accountant: both directions of add/remove-one neighbours, ε the larger of the two.
pub struct PldAccountant {
    h: f64,
    capacity: Vec<SampledGaussian>,
    composed: Vec<SampledGaussian>,
    open: bool,
    sides: Option<[Side; 2]>,
    planner: FftPlanner<f64>,
}

impl PldAccountant {
    /// An empty composition on grid interval `h` (widened when needed), planned for
    /// `capacity`: the most of each mechanism that will be composed.
    pub fn with_interval(h: f64, capacity: &[SampledGaussian]) -> PldAccountant {
        let noisy: Vec<SampledGaussian> = capacity
            .iter()
            .copied()
            .filter(|p| p.trivial_epsilon().is_none())
            .collect();
        PldAccountant {
            h,
            capacity: merge_parts(&noisy),
            composed: Vec::new(),
            open: false,
            sides: None,
            planner: FftPlanner::new(),
        }
    }

    /// [`PldAccountant::with_interval`] at the default interval 1e-4 (dp_accounting's).
    pub fn new(capacity: &[SampledGaussian]) -> PldAccountant {
        PldAccountant::with_interval(DEFAULT_INTERVAL, capacity)
    }

    /// Whether `totals` fit what the sides were planned for.
    fn fits(&self, totals: &[SampledGaussian]) -> bool {
        totals.iter().all(|p| {
            self.capacity
                .iter()
                .any(|c| (c.q, c.sigma) == (p.q, p.sigma) && c.steps >= p.steps)
        })
    }

    /// Plans the grids for the capacity (grown to cover `totals`) and recomposes what has been
    /// composed so far.
    fn replan(&mut self, totals: &[SampledGaussian]) {
        if !self.fits(totals) {
            let mut grown = self.capacity.clone();
            for p in totals {
                match grown.iter_mut().find(|c| (c.q, c.sigma) == (p.q, p.sigma)) {
                    Some(c) if c.steps >= p.steps => {}
                    Some(c) => c.steps = p.steps.saturating_mul(2),
                    None => grown.push(SampledGaussian {
                        steps: p.steps.saturating_mul(2),
                        ..*p
                    }),
                }
            }
            self.capacity = grown;
        }
        let mut sides = [
            Side::plan(&self.capacity, Direction::Remove, self.h),
            Side::plan(&self.capacity, Direction::Add, self.h),
        ];
        for side in &mut sides {
            for p in &self.composed {
                side.compose(p, &mut self.planner);
            }
        }
        self.sides = Some(sides);
    }

    /// The composed distribution in one direction (None before anything noisy is composed).
    pub fn composed(&mut self, dir: Direction) -> Option<Pld> {
        let side = self.sides.as_ref()?.iter().find(|s| s.dir == dir)?;
        Some(side.read(&mut self.planner))
    }
}

impl PrivacyAccountant for PldAccountant {
    fn compose(&mut self, part: &SampledGaussian) {
        if !needs_accounting(part, &mut self.open) {
            return;
        }
        let mut totals = self.composed.clone();
        totals.push(*part);
        let totals = merge_parts(&totals);
        if self.sides.is_none() || !self.fits(&totals) {
            self.composed = totals.clone();
            self.replan(&totals);
            return;
        }
        self.composed = totals;
        if let Some(sides) = self.sides.as_mut() {
            for side in sides {
                side.compose(part, &mut self.planner);
            }
        }
    }

    fn epsilon(&mut self, delta: f64) -> f64 {
        if self.open {
            return f64::INFINITY;
        }
        let Some(sides) = self.sides.as_ref() else {
            return 0.0;
        };
        sides
            .iter()
            .map(|s| s.read(&mut self.planner).epsilon_for_delta(delta))
            .fold(0.0, f64::max)
    }

    fn delta(&mut self, eps: f64) -> Option<f64> {
        if self.open {
            return Some(1.0);
        }
        let Some(sides) = self.sides.as_ref() else {
            return Some(0.0);
        };
        Some(
            sides
                .iter()
                .map(|s| s.read(&mut self.planner).delta_for_epsilon(eps))
                .fold(0.0, f64::max),
        )
    }
}

#[cfg(test)]
#[path = "pld_accountant_tests.rs"]
mod tests;
