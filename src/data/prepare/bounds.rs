//! The range of each numeric column of a private file, without looking at the data in the
//! clear: bounds the user states, or bounds estimated with an accounted Gaussian release.
//!
//! The estimate is a noisy histogram per column over a fixed, public grid of power-of-two
//! bins (…, [−2, −1), …, [1, 2), [2, 4), …, and one bin around zero); one example falls in
//! one bin of each of the k columns, so the k histograms together have L2 sensitivity √k
//! and get Gaussian noise of std σ·√k per bin — one Gaussian release with noise multiplier
//! σ, composed into every accountant like DP-PCA's step. The range is the span of the bins
//! whose noisy count clears a threshold that pure noise passes with probability about 1e-3 per
//! column. (In the spirit of the approximate-bounds algorithms of Google's DP libraries.)
//!
//! Whether the estimate can work at all is decided before it is made, from public numbers
//! alone ([`rows_needed`]: the training rows and the columns without a stated range): a file
//! too small is refused with nothing released, rather than after a release that found
//! nothing.

use super::refusal::PrepError;
use super::types::{written_name, Range};
use crate::data::{DataError, DataErrorKind};
use crate::privacy::accountant::mechanism::{Release, ReleaseKind};
use crate::text::shown;
use rand::Rng;
use rand_distr::StandardNormal;

/// Powers of two the bins span: |v| from 2^MIN_EXP to 2^(MAX_EXP + 1); smaller is "zero".
const MIN_EXP: i32 = -20;
const MAX_EXP: i32 = 127;
/// Bins per column: one around zero, and (MAX_EXP − MIN_EXP + 1) for each sign.
const BINS: usize = 1 + 2 * (MAX_EXP - MIN_EXP + 1) as usize;
/// Threshold in noise standard deviations: Φ(−4.65) ≈ 1.7e-6 per bin, 5e-4 for a column's bins.
const THRESHOLD_SDS: f64 = 4.65;
/// Margin in noise standard deviations by which a column's count must clear the threshold when
/// every row falls in one bin (the best any data can do): Φ(−3) ≈ 0.13% of columns fail then.
const MARGIN_SDS: f64 = 3.0;
/// The default noise multiplier of the range estimate.
pub const DEFAULT_BOUNDS_NOISE: f64 = 5.0;

/// The noise multipliers the range estimate takes: below 0.1 its ε is past any use (at
/// 1e-300 a run on one's file trained with ε = ∞ and no word), above 1,000 no file has the
/// rows to clear its threshold (at ∞ the message asked for 18446744073709551615 rows).
pub const BOUNDS_NOISE_RANGE: (f64, f64) = (0.1, 1000.0);

/// The noise std of every bin when `columns` columns are estimated together with multiplier σ.
fn bin_noise(columns: usize, sigma: f64) -> f64 {
    sigma * (columns as f64).sqrt()
}

/// About how many training rows must share one bin for the estimate of `columns` columns
/// (noise multiplier σ) to find it: the threshold, in rows.
pub fn rows_per_bin(columns: usize, sigma: f64) -> usize {
    (THRESHOLD_SDS * bin_noise(columns, sigma)).ceil() as usize
}

/// Fewest training rows with which the estimate of `columns` columns can find their ranges:
/// even with all of a column's rows in one bin, its noisy count must clear the threshold by
/// [`MARGIN_SDS`]. A necessary condition, from public numbers only (N is public, as in the
/// paper): rows spread over many powers of two can still fail with more. 0 for no columns.
pub fn rows_needed(columns: usize, sigma: f64) -> usize {
    if columns == 0 {
        return 0;
    }
    ((THRESHOLD_SDS + MARGIN_SDS) * bin_noise(columns, sigma)).ceil() as usize
}

/// Up to 20 column names for a message, quoted, then how many more there are.
pub fn named(names: &[&str]) -> String {
    let mut out: Vec<String> = names
        .iter()
        .take(20)
        .map(|n| format!("'{}'", shown(n)))
        .collect();
    if names.len() > 20 {
        out.push(format!("and {} more", names.len() - 20));
    }
    out.join(", ")
}

/// The bin of value v: 0 is the zero bin, then the negative bins from −2^(MAX_EXP+1) upward,
/// then the positive bins from 2^MIN_EXP upward.
fn bin_of(v: f64) -> usize {
    let side = (MAX_EXP - MIN_EXP + 1) as usize;
    if v.abs() < 2f64.powi(MIN_EXP) {
        return side; // the middle bin
    }
    let e = (v.abs().log2().floor() as i32).clamp(MIN_EXP, MAX_EXP);
    let k = (e - MIN_EXP) as usize;
    if v > 0.0 {
        side + 1 + k
    } else {
        side - 1 - k
    }
}

/// The range [lower edge, upper edge] of bin `b`.
fn bin_range(b: usize) -> Range {
    let side = (MAX_EXP - MIN_EXP + 1) as usize;
    let zero = 2f64.powi(MIN_EXP);
    if b == side {
        return Range {
            lo: -zero,
            hi: zero,
        };
    }
    let (k, sign) = if b > side {
        (b - side - 1, 1.0)
    } else {
        (side - 1 - b, -1.0)
    };
    let e = MIN_EXP + k as i32;
    let (a, c) = (2f64.powi(e), 2f64.powi(e + 1));
    if sign > 0.0 {
        Range { lo: a, hi: c }
    } else {
        Range { lo: -c, hi: -a }
    }
}

/// Estimates the range of each of `columns` (each a column of raw values, all of one
/// split's rows) with one Gaussian release of noise multiplier `sigma`, drawing the noise
/// from `rng`. Returns the ranges and the release to account; an error names every column
/// whose rows are too few (or too spread out) for any bin to stand out from the noise, and
/// carries the release, which that verdict was read from.
pub fn estimate<R: Rng + ?Sized>(
    columns: &[(&str, Vec<f64>)],
    sigma: f64,
    rng: &mut R,
) -> Result<(Vec<Range>, Release), PrepError> {
    if !(sigma.is_finite() && sigma > 0.0) {
        return Err(PrepError::from(DataError::out_of_range(format!(
            "the range estimate's noise must be a positive number, not {sigma}"
        ))));
    }
    let release = Release {
        what: ReleaseKind::Bounds,
        q: 1.0,
        sigma,
    };
    let std = bin_noise(columns.len(), sigma);
    let threshold = THRESHOLD_SDS * std;
    let mut ranges = Vec::with_capacity(columns.len());
    let mut failed: Vec<&str> = Vec::new();
    for (name, values) in columns {
        let mut counts = vec![0.0f64; BINS];
        for &v in values {
            counts[bin_of(v)] += 1.0;
        }
        for c in &mut counts {
            *c += std * rng.sample::<f64, _>(StandardNormal);
        }
        let over: Vec<usize> = (0..BINS).filter(|&b| counts[b] > threshold).collect();
        match (over.first(), over.last()) {
            (Some(&first), Some(&last)) => ranges.push(Range {
                lo: bin_range(first).lo,
                hi: bin_range(last).hi,
            }),
            _ => failed.push(name),
        }
    }
    if failed.is_empty() {
        return Ok((ranges, release));
    }
    // Read from the noisy histograms: the release is spent even though the file is refused.
    // Every column whose range was not found is named (the histograms were released together).
    let (its, them) = if failed.len() == 1 {
        ("its range", "its bounds")
    } else {
        ("their ranges", "their bounds")
    };
    // The column at fault when one is; with several the sentence names them all.
    let error = DataError::new(
        DataErrorKind::Range,
        format!(
            "{} {}: too few rows to estimate {its} privately (a range is found where about {} \
             rows share a power of two); state {them} instead, e.g. {}=0:100",
            if failed.len() == 1 {
                "column"
            } else {
                "columns"
            },
            named(&failed),
            threshold.ceil(),
            written_name(&shown(failed[0]))
        ),
    );
    Err(PrepError {
        error: match failed.as_slice() {
            [one] => error.in_column(one),
            _ => error,
        },
        spent: vec![release],
        ranges: None,
    })
}

/// v clipped to the range and scaled to [0, 1].
pub fn scale(v: f64, r: Range) -> f64 {
    if r.hi > r.lo {
        ((v.clamp(r.lo, r.hi) - r.lo) / (r.hi - r.lo)).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn bins_tile_the_line() {
        for v in [
            -1e30, -3.0, -1.0, -0.5, -1e-7, 0.0, 1e-7, 0.75, 1.0, 17.0, 90.0, 3e38,
        ] {
            let r = bin_range(bin_of(v));
            assert!(r.lo <= v && v <= r.hi, "{v} not in {r:?}");
        }
        assert_eq!(bin_range(bin_of(17.0)), Range { lo: 16.0, hi: 32.0 });
        assert_eq!(bin_range(bin_of(-3.0)), Range { lo: -4.0, hi: -2.0 });
    }

    #[test]
    fn the_estimate_covers_the_data_and_ignores_a_lone_outlier() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        // 2,000 ages in [17, 90] and one value of 1e9: the outlier's bin stays under the noise.
        let mut ages: Vec<f64> = (0..2000).map(|i| 17.0 + (i % 74) as f64).collect();
        ages.push(1e9);
        let hours: Vec<f64> = (0..2001).map(|i| (i % 99 + 1) as f64).collect();
        let (ranges, release) =
            estimate(&[("age", ages), ("hours", hours)], 5.0, &mut rng).unwrap();
        assert_eq!(
            ranges[0],
            Range {
                lo: 16.0,
                hi: 128.0
            }
        );
        // Hours 1..99: the single value 1 (20 rows) is under the threshold (33), so the range
        // starts at 2 — a private estimate clips the sparse edges.
        assert_eq!(ranges[1], Range { lo: 2.0, hi: 128.0 });
        assert_eq!((release.q, release.sigma), (1.0, 5.0));
        // Ten rows cannot clear the threshold: the error says what to do.
        let few: Vec<f64> = (0..10).map(f64::from).collect();
        let e = estimate(&[("x", few)], 5.0, &mut rng).unwrap_err();
        assert_eq!(e.spent.len(), 1, "the histograms were released: {e:?}");
        assert_eq!(e.error.kind, DataErrorKind::Range);
        assert_eq!(e.error.column.as_deref(), Some("x"));
        let e = e.error.message;
        assert!(
            e.contains("column 'x'") && e.contains("state its bounds"),
            "{e}"
        );
    }

    #[test]
    fn pure_noise_rarely_passes_the_threshold() {
        // With no rows at all, a column's 297 bins are pure noise: 200 columns estimated one at
        // a time find a range in about 0.05% each.
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let found = (0..200)
            .filter(|_| estimate(&[("x", Vec::new())], 1.0, &mut rng).is_ok())
            .count();
        assert!(found <= 2, "{found} of 200 empty columns found a range");
    }

    #[test]
    fn a_value_is_clipped_to_its_range_and_scaled() {
        assert_eq!(scale(150.0, Range { lo: 17.0, hi: 90.0 }), 1.0);
        assert_eq!(scale(17.0, Range { lo: 17.0, hi: 90.0 }), 0.0);
        assert_eq!(scale(53.5, Range { lo: 17.0, hi: 90.0 }), 0.5);
    }
}
