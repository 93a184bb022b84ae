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
//! The ε-versus-epoch curve is in [`super::pld_curve`].

use super::special::log_add;
use super::SampledGaussian;
use rustfft::num_complex::Complex;
use rustfft::FftPlanner;

/// The discretisation interval h of the loss grid (dp_accounting's default is 1e-4).
pub const DEFAULT_INTERVAL: f64 = 1e-4;
/// Probability mass dropped at each truncation (counted as infinite loss).
const TAIL: f64 = 1e-15;
/// Truncation of the Gaussian in units of σ (Φ(−9) ≈ 1e-19).
const Z_TAIL: f64 = 9.0;

/// A discretised PLD: mass `pmf[i]` at loss (offset + i)·h, and `inf_mass` at L = +∞.
#[derive(Clone, Debug)]
pub struct Pld {
    h: f64,
    offset: i64,
    pmf: Vec<f64>,
    inf_mass: f64,
}

/// Which neighbour is P (the distribution the loss is drawn from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Remove,
    Add,
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
        let a = r.exp_m1() + q; // e^r − (1 − q)
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
fn one_step_loss_range(q: f64, sigma: f64, dir: Direction) -> (f64, f64) {
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
    /// Number of grid points of the finite part.
    pub(crate) fn grid_points(&self) -> usize {
        self.pmf.len()
    }

    /// One step of the subsampled Gaussian on a loss grid of spacing `h`, by the pessimistic
    /// "connect the dots" construction (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022): the
    /// discrete PLD whose δ(ε) equals the exact one at every grid point and is linear in e^ε
    /// between them — above the exact curve, which is convex in e^ε. Unlike rounding every
    /// loss up, its error does not grow linearly with the number of compositions.
    pub fn subsampled_gaussian(q: f64, sigma: f64, h: f64, dir: Direction) -> Pld {
        let (loss_lo, loss_hi) = one_step_loss_range(q, sigma, dir);
        let k_min = (loss_lo / h).floor() as i64;
        let k_max = ((loss_hi / h).ceil() as i64).max(k_min + 1);
        let deltas: Vec<f64> = (k_min..=k_max)
            .map(|k| one_step_delta(q, sigma, dir, k as f64 * h))
            .collect();
        // On [ε_k, ε_k+1] the discrete δ(ε) = A − e^ε B; B_k is the slope in e^ε, and each
        // grid point's mass is e^{ε_k}(B_{k−1} − B_k).
        let n = deltas.len();
        let slope: Vec<f64> = (0..n - 1)
            .map(|i| {
                let e_k = (k_min + i as i64) as f64 * h;
                ((deltas[i] - deltas[i + 1]) / (e_k.exp() * h.exp_m1())).max(0.0)
            })
            .collect();
        let mut pmf = vec![0.0; n];
        for i in 1..n {
            let e_k = (k_min + i as i64) as f64 * h;
            let next = if i < n - 1 { slope[i] } else { 0.0 };
            pmf[i] = (e_k.exp() * (slope[i - 1] - next)).max(0.0);
        }
        let inf_mass = deltas[n - 1];
        pmf[0] = (1.0 - inf_mass - pmf[1..].iter().sum::<f64>()).max(0.0);
        Pld {
            h,
            offset: k_min,
            pmf,
            inf_mass,
        }
    }

    /// ln E[e^{u·i}] over the finite part, i the grid index (for Chernoff tail bounds).
    fn log_mgf(&self, u: f64) -> f64 {
        let shift = if u > 0.0 {
            self.offset as f64 + self.pmf.len() as f64
        } else {
            self.offset as f64
        };
        let s: f64 = self
            .pmf
            .iter()
            .enumerate()
            .map(|(i, &p)| p * (u * ((self.offset + i as i64) as f64 - shift)).exp())
            .sum();
        s.ln() + u * shift
    }

    /// (u, ln M(u), ln M(−u)) on the grid of u the Chernoff bounds search (λ = u/h from 1e-3
    /// to 800 in loss units). Independent of the number of compositions.
    pub(crate) fn mgf_table(&self) -> Vec<(f64, f64, f64)> {
        (0..60)
            .map(|i| {
                let u = 10f64.powf(-3.0 + i as f64 * 0.1) * self.h;
                (u, self.log_mgf(u), self.log_mgf(-u))
            })
            .collect()
    }

    /// Index window [lo, hi] outside which the T-fold sum has mass below TAIL (Chernoff:
    /// P[S ≥ a] ≤ exp(T ln M(u) − u a), P[S ≤ a] ≤ exp(T ln M(−u) + u a)).
    pub(crate) fn window(&self, mgf: &[(f64, f64, f64)], t: u64) -> (i64, i64) {
        let (tf, ln_tail) = (t as f64, TAIL.ln());
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        for &(u, pos, neg) in mgf {
            hi = hi.min((tf * pos - ln_tail) / u);
            lo = lo.max((ln_tail - tf * neg) / u);
        }
        let n = self.pmf.len() as i64;
        let lo = (lo.floor() as i64).max(t as i64 * self.offset);
        let hi = (hi.ceil() as i64).min(t as i64 * (self.offset + n - 1));
        (lo, hi.max(lo))
    }

    fn composed_window(&self, t: u64) -> (i64, i64) {
        self.window(&self.mgf_table(), t)
    }

    /// The t-fold composition read off a cyclic convolution result `buf` (length `size`, not
    /// yet divided by it) of the pmf padded from index 0: index j holds the sums S with
    /// S − t·offset ≡ j (mod size); only the window [lo, hi] is kept.
    pub(crate) fn composed_from_cyclic(
        &self,
        buf: &[Complex<f64>],
        t: u64,
        (lo, hi): (i64, i64),
    ) -> Pld {
        let size = buf.len();
        let base = t as i64 * self.offset;
        let pmf: Vec<f64> = (lo..=hi)
            .map(|s| (buf[(s - base).rem_euclid(size as i64) as usize].re / size as f64).max(0.0))
            .collect();
        let finite_one_step = 1.0 - self.inf_mass;
        let inf_mass = (1.0 - finite_one_step.powf(t as f64) + 2.0 * TAIL).min(1.0);
        Pld {
            h: self.h,
            offset: lo,
            pmf,
            inf_mass,
        }
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

    /// The PLD of `t` independent copies composed, by FFT of the pmf raised to the t-th power.
    pub fn compose(&self, t: u64) -> Pld {
        if t == 1 {
            return self.clone();
        }
        if t == 0 {
            return Pld {
                h: self.h,
                offset: 0,
                pmf: vec![1.0],
                inf_mass: 0.0,
            };
        }
        let window = self.composed_window(t);
        let size = ((window.1 - window.0 + 1) as usize)
            .max(self.pmf.len())
            .next_power_of_two();
        let mut planner = FftPlanner::new();
        let mut buf = self.spectrum(size, &mut planner);
        for c in buf.iter_mut() {
            *c = complex_pow(*c, t as f64);
        }
        planner.plan_fft_inverse(size).process(&mut buf);
        self.composed_from_cyclic(&buf, t, window)
    }

    /// The PLD of this mechanism followed by `other` (same grid): the convolution of the two
    /// loss distributions, by FFT.
    pub fn convolve(&self, other: &Pld) -> Pld {
        assert!(
            (self.h - other.h).abs() <= 1e-12 * self.h,
            "PLDs on different grids"
        );
        let len = self.pmf.len() + other.pmf.len() - 1;
        let size = len.next_power_of_two();
        let mut planner = FftPlanner::new();
        let mut a = self.spectrum(size, &mut planner);
        let b = other.spectrum(size, &mut planner);
        for (x, y) in a.iter_mut().zip(&b) {
            *x *= y;
        }
        planner.plan_fft_inverse(size).process(&mut a);
        let pmf = a[..len]
            .iter()
            .map(|c| (c.re / size as f64).max(0.0))
            .collect();
        let inf_mass = 1.0 - (1.0 - self.inf_mass) * (1.0 - other.inf_mass);
        Pld {
            h: self.h,
            offset: self.offset + other.offset,
            pmf,
            inf_mass,
        }
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

/// c^t through polar form (|c| ≤ 1 for a spectrum of a sub-probability vector).
pub(crate) fn complex_pow(c: Complex<f64>, t: f64) -> Complex<f64> {
    let (r, theta) = c.to_polar();
    if r == 0.0 {
        Complex::new(0.0, 0.0)
    } else {
        Complex::from_polar((t * r.ln()).exp(), t * theta)
    }
}

/// ε at δ after `mech.steps` steps, the larger of the add and remove directions.
pub fn epsilon(mech: &SampledGaussian, delta: f64) -> f64 {
    epsilon_with_interval(mech, delta, DEFAULT_INTERVAL)
}

/// [`epsilon`] with a chosen discretisation interval h (smaller is tighter and slower).
///
/// When the composed distribution would need more than [`MAX_GRID`] points at h (long runs
/// with little noise), h is widened to fit: the estimate stays a valid upper bound, only less
/// tight.
pub fn epsilon_with_interval(mech: &SampledGaussian, delta: f64, h: f64) -> f64 {
    if let Some(e) = mech.trivial_epsilon() {
        return e;
    }
    [Direction::Remove, Direction::Add]
        .into_iter()
        .map(|d| {
            let h = grid_interval(mech, d, h);
            Pld::subsampled_gaussian(mech.q, mech.sigma, h, d)
                .compose(mech.steps)
                .epsilon_for_delta(delta)
        })
        .fold(0.0, f64::max)
}

/// Most grid points of one step's or the composed distribution (memory and FFT time bound).
pub const MAX_GRID: f64 = (1u64 << 21) as f64;

/// The interval to use: `h`, or wider when one step or the composition would not fit in
/// [`MAX_GRID`] points (the width of both is estimated on a coarse grid first).
pub(crate) fn grid_interval(mech: &SampledGaussian, dir: Direction, h: f64) -> f64 {
    let (lo, hi) = one_step_loss_range(mech.q, mech.sigma, dir);
    let coarse_h = 1e-2f64.max(h).max((hi - lo) / MAX_GRID);
    let coarse = Pld::subsampled_gaussian(mech.q, mech.sigma, coarse_h, dir);
    let (lo, hi) = coarse.composed_window(mech.steps);
    let width = ((hi - lo + 1) as f64).max(coarse.pmf.len() as f64) * coarse_h;
    h.max(width / MAX_GRID)
}

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
        let pld = Pld::subsampled_gaussian(1.0, sigma, 1e-4, Direction::Remove).compose(t);
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
