//! Privacy loss distribution (PLD) accounting: the tightest known analysis of the subsampled
//! Gaussian (Meiser & Mohammadi 2018; Koskela et al. 2020; Google's dp_accounting).
//!
//! For a pair of neighbouring output distributions (P, Q) the privacy loss is L = ln(P/Q)(z)
//! with z ∼ P, and δ(ε) = E[(1 − e^{ε − L})₊] (plus the mass where L = +∞). Losses add over
//! steps, so T steps compose by convolving the distribution of L with itself T times — here by
//! FFT. The loss is discretised on a grid of spacing h pessimistically (the reported ε is an
//! upper bound up to the truncated tail mass, which is counted as L = ∞).
//!
//! Both directions of add/remove-one neighbours are accounted, and the larger ε is reported:
//! remove: P = (1 − q)N(0, σ²) + qN(1, σ²), Q = N(0, σ²); add: P and Q swapped.
//!
//! This file is the distribution: one step, and δ(ε) / ε(δ) of any discretised PLD. Composing
//! several mechanisms, step by step or epoch by epoch, is [`super::pld_accountant`].

use super::log_mgf::{block_powers, log_mgf};
use super::pld_accountant::PldAccountant;
use super::special::log_add;
use super::{PrivacyAccountant, SampledGaussian};
use rustfft::num_complex::Complex;
use rustfft::FftPlanner;

/// The discretisation interval h of the loss grid (dp_accounting's default is 1e-4).
pub const DEFAULT_INTERVAL: f64 = 1e-4;
/// Probability mass dropped at each truncation (counted as infinite loss).
pub(crate) const TAIL: f64 = 1e-15;
/// Truncation of the Gaussian in units of σ (Φ(−9) ≈ 1e-19).
const Z_TAIL: f64 = 9.0;

/// A discretised PLD: mass `pmf[i]` at loss (offset + i)·h, and `inf_mass` at L = +∞.
#[derive(Clone, Debug)]
pub struct Pld {
    pub h: f64,
    pub offset: i64,
    pub pmf: Vec<f64>,
    pub inf_mass: f64,
}

/// Which neighbour is P (the distribution the loss is drawn from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Remove,
    Add,
}

impl Direction {
    /// The other direction: P and Q swapped.
    pub fn other(self) -> Direction {
        match self {
            Direction::Remove => Direction::Add,
            Direction::Add => Direction::Remove,
        }
    }
}

fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

fn normal_sf(x: f64) -> f64 {
    0.5 * libm::erfc(x / std::f64::consts::SQRT_2)
}

/// The exact hockey-stick divergence δ(ε) of one step of the subsampled Gaussian in the given
/// direction: P[L > ε] − e^ε Q[L > ε].
pub fn one_step_delta(q: f64, sigma: f64, dir: Direction, eps: f64) -> f64 {
    let s2 = sigma * sigma;
    // The z where ln(μ/μ0)(z) = ln(1 − q + q·exp((2z − 1)/(2σ²))) equals r (−∞ if r ≤ ln(1 − q)).
    let z_of_ratio = |r: f64| {
        // e^r − (1 − q), accurate both ways: for r ≪ 0 expm1 would round e^r away (and with
        // q = 1 every loss above 37 would vanish), for r near 0 exp would lose e^r − 1.
        let a = if r < 0.0 {
            r.exp() - (1.0 - q)
        } else {
            r.exp_m1() + q
        };
        if a <= 0.0 {
            f64::NEG_INFINITY
        } else {
            s2 * (a.ln() - q.ln()) + 0.5
        }
    };
    let d = match dir {
        Direction::Remove => {
            // L > ε ⇔ z > z*: P = μ, Q = μ0.
            let z = z_of_ratio(eps);
            let p = (1.0 - q) * normal_sf(z / sigma) + q * normal_sf((z - 1.0) / sigma);
            p - eps.exp() * normal_sf(z / sigma)
        }
        Direction::Add => {
            // L = −ln(μ/μ0) > ε ⇔ z < z': P = μ0, Q = μ.
            let z = z_of_ratio(-eps);
            let qm = (1.0 - q) * normal_cdf(z / sigma) + q * normal_cdf((z - 1.0) / sigma);
            normal_cdf(z / sigma) - eps.exp() * qm
        }
    };
    d.clamp(0.0, 1.0)
}

/// The losses at the noise's truncation points (±9σ): beyond them δ is below 1e-19.
pub(crate) fn one_step_loss_range(q: f64, sigma: f64, dir: Direction) -> (f64, f64) {
    let log_ratio = |z: f64| {
        let t = (2.0 * z - 1.0) / (2.0 * sigma * sigma);
        if q == 1.0 {
            t
        } else {
            log_add((-q).ln_1p(), q.ln() + t)
        }
    };
    let (z_lo, z_hi) = (-Z_TAIL * sigma, 1.0 + Z_TAIL * sigma);
    match dir {
        Direction::Remove => (log_ratio(z_lo), log_ratio(z_hi)),
        Direction::Add => (-log_ratio(z_hi), -log_ratio(z_lo)),
    }
}

impl Pld {
    /// One step of the subsampled Gaussian on a loss grid of spacing `h`, by the pessimistic
    /// "connect the dots" construction (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022): the
    /// discrete PLD whose δ(ε) equals the exact one at every grid point and is linear in e^ε
    /// between them — above the exact curve, which is convex in e^ε. Unlike rounding every
    /// loss up, its error does not grow linearly with the number of compositions.
    ///
    /// The masses are dp_accounting's fixed-gap form, differences of δ over e^h − 1 (never
    /// divided by e^ε). Where ε < 0, δ(ε) is close to 1 and its differences would be lost to
    /// rounding, so they are taken from 1 − δ(ε) = e^ε (1 − δ'(−ε)), δ' the other direction's
    /// (the identity H_α(P‖Q) = 1 − α + α·H_{1/α}(Q‖P)), which keeps its precision.
    pub fn subsampled_gaussian(q: f64, sigma: f64, h: f64, dir: Direction) -> Pld {
        let (loss_lo, loss_hi) = one_step_loss_range(q, sigma, dir);
        let k_min = (loss_lo / h).floor() as i64;
        let k_max = ((loss_hi / h).ceil() as i64).max(k_min + 1);
        // (δ_k, 1 − δ_k) at every grid point, each computed where it is accurate.
        let (deltas, complements): (Vec<f64>, Vec<f64>) = (k_min..=k_max)
            .map(|k| {
                let eps = k as f64 * h;
                if eps >= 0.0 {
                    let d = one_step_delta(q, sigma, dir, eps);
                    (d, 1.0 - d)
                } else {
                    let c = eps.exp() * (1.0 - one_step_delta(q, sigma, dir.other(), -eps));
                    (1.0 - c, c)
                }
            })
            .unzip();
        let n = deltas.len();
        // d_i = δ_i − δ_{i+1} ≥ 0.
        let diffs: Vec<f64> = (0..n - 1)
            .map(|i| {
                let below_zero = (k_min + i as i64 + 1) < 0;
                let d = if below_zero {
                    complements[i + 1] - complements[i]
                } else {
                    deltas[i] - deltas[i + 1]
                };
                d.max(0.0)
            })
            .collect();
        let g = h.exp_m1();
        let mut pmf = vec![0.0; n];
        pmf[0] = (complements[0] - diffs[0] / g).max(0.0);
        for i in 1..n - 1 {
            pmf[i] = (diffs[i - 1] * (g + 1.0) - diffs[i]).max(0.0) / g;
        }
        pmf[n - 1] = diffs[n - 2] * (g + 1.0) / g;
        Pld {
            h,
            offset: k_min,
            pmf,
            inf_mass: deltas[n - 1],
        }
    }

    /// (u, ln M(u), ln M(−u)) with M(u) = E[e^{u·i}] over the finite part, i the grid index,
    /// on the grid of u the Chernoff bounds search (λ = u/h from 1e-3 to 1e3 in loss units, a
    /// tenth of a decade apart: a coarser grid loosens the window and can double the FFT).
    /// Independent of the number of compositions.
    ///
    /// Each ln M is a log-sum-exp shifted by its largest term, so it never underflows: a plain
    /// Σ p·e^{u·i} does for a wide distribution (a small σ), and a ln M of −∞ would collapse
    /// the window to one point and hide all the loss (ε = 0 for σ = 0.1 — a bug once).
    pub(crate) fn mgf_table(&self) -> Vec<(f64, f64, f64)> {
        let log_mgf = |u: f64| log_mgf(&self.pmf, self.offset, u, &block_powers(u));
        (0..61)
            .map(|k| {
                let u = 10f64.powf(-3.0 + k as f64 * 0.1) * self.h;
                (u, log_mgf(u), log_mgf(-u))
            })
            .collect()
    }

    /// The pmf zero-padded to `size` and transformed.
    pub(crate) fn spectrum(&self, size: usize, planner: &mut FftPlanner<f64>) -> Vec<Complex<f64>> {
        let mut buf = vec![Complex::new(0.0, 0.0); size];
        for (b, &p) in buf.iter_mut().zip(&self.pmf) {
            *b = Complex::new(p, 0.0);
        }
        planner.plan_fft_forward(size).process(&mut buf);
        buf
    }

    /// δ(ε) = P[L = ∞] + Σ_{l > ε} p(l)(1 − e^{ε − l}).
    pub fn delta_for_epsilon(&self, eps: f64) -> f64 {
        let tail: f64 = self
            .pmf
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, (self.offset + i as i64) as f64 * self.h))
            .filter(|&(_, l)| l > eps)
            .map(|(p, l)| p * -(eps - l).exp_m1())
            .sum();
        (self.inf_mass + tail).min(1.0)
    }

    /// The smallest ε ≥ 0 with δ(ε) ≤ δ (∞ if the infinite-loss mass alone exceeds δ).
    pub fn epsilon_for_delta(&self, delta: f64) -> f64 {
        if self.inf_mass >= delta {
            return f64::INFINITY;
        }
        // Scan losses from the top; on the stretch where {l > ε} = {l_i, …} is fixed,
        // δ(ε) = inf + A − e^ε·B with A = Σ p and B = Σ p e^{−l}. With C = B·e^{l_i}
        // (= p_i + C_{i+1}·e^{−h}, never above A, so no overflow): ε = l_i + ln((inf + A − δ)/C),
        // which lies in the stretch [l_i − h, l_i) when inf + A − δ ≥ C·e^{−h}.
        let decay = (-self.h).exp();
        let (mut a, mut c) = (0.0f64, 0.0f64);
        for i in (0..self.pmf.len()).rev() {
            let p = self.pmf[i];
            a += p;
            c = p + c * decay;
            let excess = self.inf_mass + a - delta;
            if excess > 0.0 && (excess >= c * decay || i == 0) {
                let l = (self.offset + i as i64) as f64 * self.h;
                return (l + (excess / c).ln()).max(0.0);
            }
        }
        0.0
    }
}

/// c^t, t steps composed in the frequency domain (|c| ≤ 1 for a spectrum of a sub-probability
/// vector), by repeated squaring: about 2·log₂ t complex products, where the polar form's
/// hypot, atan2, ln, exp, sin and cos took most of a first epoch's PLD composition in wasm
/// (#55). Its rounding error grows like the polar form's, about t·ε relative.
pub(crate) fn complex_pow(c: Complex<f64>, t: u64) -> Complex<f64> {
    let (mut result, mut base, mut rest) = (Complex::new(1.0, 0.0), c, t);
    while rest > 0 {
        if rest & 1 == 1 {
            result *= base;
        }
        rest >>= 1;
        if rest > 0 {
            base *= base;
        }
    }
    result
}

/// ε at δ after `mech.steps` steps, the larger of the add and remove directions.
pub fn epsilon(mech: &SampledGaussian, delta: f64) -> f64 {
    epsilon_with_interval(mech, delta, DEFAULT_INTERVAL)
}

/// [`epsilon`] with a chosen discretisation interval h (smaller is tighter and slower). Long
/// runs with little noise may widen h to keep the grid within [`MAX_GRID`] points: the
/// estimate stays an upper bound, only less tight.
pub fn epsilon_with_interval(mech: &SampledGaussian, delta: f64, h: f64) -> f64 {
    let mut acc = PldAccountant::with_interval(h, std::slice::from_ref(mech));
    acc.compose(mech);
    acc.epsilon(delta)
}

/// Most grid points of one step's or the composed distribution (memory and FFT time bound).
pub const MAX_GRID: f64 = (1u64 << 21) as f64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_step_pmf_is_a_distribution() {
        for dir in [Direction::Remove, Direction::Add] {
            let p = Pld::subsampled_gaussian(0.05, 1.0, 1e-3, dir);
            let total: f64 = p.pmf.iter().sum::<f64>() + p.inf_mass;
            assert!((total - 1.0).abs() < 1e-9, "{dir:?}: total mass {total}");
            assert!(p.pmf.iter().all(|&m| m >= 0.0));
        }
    }

    #[test]
    fn small_sigma_keeps_a_distribution_and_matches_the_exact_gaussian() {
        // q = 1: one step is the Gaussian mechanism, whose exact ε at δ = 1e-5 is known in
        // closed form (Balle & Wang; mpmath): σ = 0.1 → 91.8173, σ = 0.2 → 33.1037. The PLD
        // must keep its mass (it once summed to 6,520 in the add direction) and meet them.
        for (sigma, exact) in [(0.1, 91.81728962466374), (0.2, 33.10373233592247)] {
            for dir in [Direction::Remove, Direction::Add] {
                let h = 2e-4;
                let p = Pld::subsampled_gaussian(1.0, sigma, h, dir);
                let total: f64 = p.pmf.iter().sum::<f64>() + p.inf_mass;
                assert!(
                    (total - 1.0).abs() < 1e-9,
                    "σ {sigma} {dir:?}: mass {total}"
                );
                let e = p.epsilon_for_delta(1e-5);
                assert!(
                    e >= exact - 1e-9 && e < exact + 2e-3,
                    "σ {sigma} {dir:?}: {e} vs {exact}"
                );
            }
        }
    }

    #[test]
    fn connect_the_dots_is_exact_on_the_grid_and_pessimistic_between() {
        for dir in [Direction::Remove, Direction::Add] {
            let h = 1e-2;
            let p = Pld::subsampled_gaussian(0.1, 1.0, h, dir);
            for k in [-3i64, 0, 5, 20, 60] {
                let eps = k as f64 * h;
                let exact = one_step_delta(0.1, 1.0, dir, eps);
                let ours = p.delta_for_epsilon(eps);
                assert!(
                    (ours - exact).abs() < 1e-9,
                    "{dir:?} ε={eps}: {ours} vs {exact}"
                );
                let mid = eps + h / 2.0;
                assert!(p.delta_for_epsilon(mid) >= one_step_delta(0.1, 1.0, dir, mid) - 1e-12);
            }
        }
    }

    #[test]
    fn unsampled_gaussian_matches_the_exact_delta() {
        // q = 1: L ∼ N(μ, 2μ) with μ = 1/(2σ²) per step; T steps: μ_T = T/(2σ²), and
        // δ(ε) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2), s = sqrt(T)/σ (Balle & Wang 2018).
        let (sigma, t, eps) = (2.0f64, 16u64, 1.0f64);
        let s = (t as f64).sqrt() / sigma;
        let exact = normal_cdf(-eps / s + s / 2.0) - eps.exp() * normal_cdf(-eps / s - s / 2.0);
        let mut acc = PldAccountant::with_interval(1e-4, &[]);
        acc.compose(&SampledGaussian::new(1.0, sigma, t).unwrap());
        let pld = acc.composed(Direction::Remove).expect("composed");
        let ours = pld.delta_for_epsilon(eps);
        assert!(
            ours >= exact * (1.0 - 1e-9),
            "pessimistic: {ours} vs exact {exact}"
        );
        assert!((ours / exact - 1.0) < 2e-3, "{ours} vs exact {exact}");
        // And ε(δ) inverts δ(ε).
        let e = pld.epsilon_for_delta(ours);
        assert!((e - eps).abs() < 1e-3, "ε(δ(1)) = {e}");
    }
}
