//! Numerical helpers shared by the accountants: stable log-space sums, log erfc and the
//! normal distribution's log CDF.

/// ln(e^a + e^b), exact for infinities.
pub fn log_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        hi
    } else {
        hi + (lo - hi).exp().ln_1p()
    }
}

/// ln(e^a − e^b) for a ≥ b; −∞ when they are equal (or b > a, which the callers rule out).
pub fn log_sub(a: f64, b: f64) -> f64 {
    if b == f64::NEG_INFINITY {
        a
    } else if b >= a {
        f64::NEG_INFINITY
    } else {
        a + (-(b - a).exp()).ln_1p()
    }
}

/// ln(erfc(x)) without underflow: libm's erfc up to x = 20, then the asymptotic series
/// erfc(x) ≈ e^{−x²}/(x√π) (1 − 1/(2x²) + 3/(4x⁴) − 15/(8x⁶)), relative error < 1e-10 there.
pub fn log_erfc(x: f64) -> f64 {
    if x < 20.0 {
        libm::erfc(x).ln()
    } else {
        let x2 = x * x;
        let series = 1.0 - 1.0 / (2.0 * x2) + 3.0 / (4.0 * x2 * x2) - 15.0 / (8.0 * x2 * x2 * x2);
        -x2 - x.ln() - 0.5 * std::f64::consts::PI.ln() + series.ln()
    }
}

/// ln Φ(x), Φ the standard normal CDF, without underflow far in the lower tail.
pub fn log_normal_cdf(x: f64) -> f64 {
    std::f64::consts::LN_2.mul_add(-1.0, log_erfc(-x / std::f64::consts::SQRT_2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_sums_match_direct_evaluation() {
        assert!((log_add(1.0f64.ln(), 2.0f64.ln()) - 3.0f64.ln()).abs() < 1e-15);
        assert!((log_sub(3.0f64.ln(), 1.0f64.ln()) - 2.0f64.ln()).abs() < 1e-15);
        assert_eq!(log_add(f64::NEG_INFINITY, 0.5), 0.5);
        assert_eq!(log_sub(0.5, 0.5), f64::NEG_INFINITY);
    }

    #[test]
    fn log_erfc_is_continuous_at_the_switch() {
        let below = libm::erfc(19.999).ln();
        let series = {
            let x: f64 = 19.999;
            let x2 = x * x;
            let s = 1.0 - 1.0 / (2.0 * x2) + 3.0 / (4.0 * x2 * x2) - 15.0 / (8.0 * x2 * x2 * x2);
            -x2 - x.ln() - 0.5 * std::f64::consts::PI.ln() + s.ln()
        };
        assert!((below - series).abs() < 1e-9, "{below} vs {series}");
        assert!(log_erfc(40.0).is_finite() && log_erfc(40.0) < -1600.0);
        assert!((log_erfc(0.0) - 0.0).abs() < 1e-15);
    }

    #[test]
    fn log_normal_cdf_matches_known_values() {
        // Φ(0) = 1/2, Φ(−1.959963985) = 0.025, and Φ(−40) = 3.655893540915e-350 (by the
        // asymptotic series), far below f64's smallest number.
        assert!((log_normal_cdf(0.0) - 0.5f64.ln()).abs() < 1e-15);
        assert!((log_normal_cdf(-1.959963985) - 0.025f64.ln()).abs() < 1e-8);
        let tail = log_normal_cdf(-40.0);
        assert!((tail - (-804.608442013754)).abs() < 1e-6, "{tail}");
        assert!(log_normal_cdf(40.0).abs() < 1e-300);
    }
}
