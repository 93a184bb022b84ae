//! Synthetic two-dimensional data sets for the decision-boundary view, generated from the
//! run's seed (no files): two Gaussian blobs, a circle inside a ring, XOR quadrants and two
//! interleaved spirals (the shapes of TensorFlow Playground), with a noise level.

use super::{DataError, Dataset, Split};
use crate::Real;
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use std::f64::consts::PI;
use std::sync::Arc;

/// The generated shapes, by name.
pub const SHAPES: [&str; 4] = ["blobs", "circle", "xor", "spiral"];

/// `n` training and `n/4` test points of `shape` in roughly [−1, 1]², coordinates perturbed by
/// N(0, noise²).
pub fn two_d(shape: &str, n: usize, noise: f64, seed: u64) -> Result<Dataset, DataError> {
    if !SHAPES.contains(&shape) {
        return Err(DataError::unknown_name(format!(
            "unknown 2-D set '{}'; the sets are {}",
            crate::text::shown(shape),
            SHAPES.join(", ")
        )));
    }
    if !(noise.is_finite() && (0.0..=1.0).contains(&noise)) {
        return Err(DataError::out_of_range(format!(
            "noise level {noise} must be between 0 and 1"
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let jitter = Normal::new(0.0, noise.max(1e-12)).expect("valid std");
    let mut make = |count: usize| {
        let mut x = Array2::<Real>::zeros((count, 2));
        let mut y = Vec::with_capacity(count);
        for i in 0..count {
            let label = i % 2;
            let (a, b) = point(shape, label, &mut rng);
            let (ja, jb) = if noise > 0.0 {
                (jitter.sample(&mut rng), jitter.sample(&mut rng))
            } else {
                (0.0, 0.0)
            };
            x[[i, 0]] = (a + ja) as Real;
            x[[i, 1]] = (b + jb) as Real;
            y.push(label);
        }
        Split { x, y }
    };
    let train = make(n.max(2));
    let test = make((n / 4).max(2));
    Ok(Dataset {
        name: shape.into(),
        feature_names: vec!["x1".into(), "x2".into()],
        class_names: vec!["orange".into(), "blue".into()],
        train,
        test: Arc::new(test),
        private: false,
        releases: Vec::new(),
    })
}

/// One point of class `label` (0 or 1) before noise.
fn point<R: Rng>(shape: &str, label: usize, rng: &mut R) -> (f64, f64) {
    let sign = if label == 0 { -1.0 } else { 1.0 };
    match shape {
        "blobs" => {
            let g = Normal::new(0.0, 0.35).expect("valid std");
            (0.5 * sign + g.sample(rng), 0.5 * sign + g.sample(rng))
        }
        "circle" => {
            // Class 1 inside radius 0.5, class 0 on a ring from 0.7 to 1.
            let r = if label == 1 {
                0.5 * rng.random::<f64>().sqrt()
            } else {
                0.7 + 0.3 * rng.random::<f64>()
            };
            let t = 2.0 * PI * rng.random::<f64>();
            (r * t.cos(), r * t.sin())
        }
        "xor" => {
            // Class 1 where the coordinates share a sign; a margin keeps the quadrants apart.
            let mut c = || 0.05 + 0.95 * rng.random::<f64>();
            let (a, b) = (c(), c());
            let (sa, sb) = if rng.random::<bool>() {
                (1.0, sign)
            } else {
                (-1.0, -sign)
            };
            (sa * a, sb * b)
        }
        _ => {
            // Spiral arm of class `label`: radius grows with the angle.
            let s = rng.random::<f64>();
            let t = 1.75 * s * 2.0 * PI + if label == 1 { PI } else { 0.0 };
            (s * t.sin(), s * t.cos())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_seeded_balanced_and_bounded() {
        for shape in SHAPES {
            let a = two_d(shape, 400, 0.0, 3).unwrap();
            let b = two_d(shape, 400, 0.0, 3).unwrap();
            assert_eq!(a.train.x, b.train.x, "{shape}: same seed, same points");
            assert_eq!(a.train.y.iter().filter(|&&y| y == 1).count(), 200);
            assert_eq!(a.test.len(), 100);
            assert!(a.train.x.iter().all(|v| v.abs() < 2.5), "{shape}: bounded");
        }
        assert!(two_d("moons", 10, 0.1, 1).is_err());
        assert!(two_d("xor", 10, 2.0, 1).is_err());
    }

    #[test]
    fn xor_is_what_it_says() {
        let d = two_d("xor", 200, 0.0, 1).unwrap();
        for (row, &y) in d.train.x.rows().into_iter().zip(&d.train.y) {
            assert_eq!((row[0] * row[1] > 0.0) as usize, y);
        }
    }
}
