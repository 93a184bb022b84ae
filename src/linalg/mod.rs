//! The one matrix product the models use, c = a·b or c += a·b, on ndarray views of any
//! strides. Backed by the `gemm` crate (AVX-512 / AVX2+FMA kernels chosen at run time natively,
//! a simd128 kernel in wasm), single-threaded; in a wasm build with relaxed SIMD by our own
//! fused multiply-add kernel ([`fma`]) for wide products; in both wasm builds, products of at
//! most 12 columns by our thin kernel ([`thin`]). The cargo feature `matrixmultiply-backend`
//! switches to ndarray's own product (matrixmultiply) so the backends can be benchmarked.

pub mod backward;
pub mod fma;
mod gemm_call;
pub mod panels;
pub mod thin;

use crate::Real;
use ndarray::{ArrayView2, ArrayViewMut2};

/// Which kernel [`matmul`] runs in this build (bench lines and the page name it).
pub const KERNEL: &str = if cfg!(feature = "matrixmultiply-backend") {
    "matrixmultiply"
} else if RELAXED {
    "relaxed-simd fma"
} else if cfg!(target_arch = "wasm32") {
    "gemm simd128"
} else {
    "gemm"
};

/// Relaxed SIMD's fused multiply-add is compiled in (a wasm build with `+relaxed-simd`).
const RELAXED: bool = cfg!(all(target_arch = "wasm32", target_feature = "relaxed-simd"));

/// Whether a layer's δ of `width` columns is kept in column panels ([`panels`]) for its
/// gradient product: in the relaxed-SIMD build, on the widths the fused kernel takes (gemm,
/// natively and in the simd128 build, reads Δ row-major).
pub fn panels_pay(width: usize) -> bool {
    RELAXED && !cfg!(feature = "matrixmultiply-backend") && width >= fma::MIN_COLUMNS
}

/// `c = a·b` or `c += a·b` with B in column panels: the fused kernel on relaxed SIMD; in other
/// builds the same blocking on portable lanes (reached natively only by tests: see
/// [`panels_pay`]).
pub fn matmul_panels(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    b: &panels::ColumnPanels,
    accumulate: bool,
) {
    #[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
    fma::matmul_panels::<fma::Relaxed>(c, a, b, accumulate);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "relaxed-simd")))]
    fma::matmul_panels::<fma::Emulated>(c, a, b, accumulate);
}

/// The first hidden layer's δ = (δ_next · W_nextᵀ) ⊙ 1[a > 0] into column panels in one sweep
/// ([`backward`]; where [`backward::fits`] the next layer's width): the fused kernel on relaxed
/// SIMD, the same blocking on portable lanes elsewhere (natively reached only by tests: see
/// [`panels_pay`]).
pub fn backward_relu_panels(
    out: &mut panels::ColumnPanels,
    delta_next: &ArrayView2<Real>,
    w_next: &ArrayView2<Real>,
    a: &[Real],
    sums: Option<&mut Vec<Real>>,
) {
    #[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
    backward::backward_relu_into::<fma::Relaxed>(out, delta_next, w_next, a, sums);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "relaxed-simd")))]
    backward::backward_relu_into::<fma::Emulated>(out, delta_next, w_next, a, sums);
}

/// `c = a·b` (`accumulate = false`) or `c += a·b` (`accumulate = true`), with [`KERNEL`].
pub fn matmul(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    b: &ArrayView2<Real>,
    accumulate: bool,
) {
    if cfg!(feature = "matrixmultiply-backend") {
        let beta = if accumulate { 1.0 } else { 0.0 };
        ndarray::linalg::general_mat_mul(1.0, a, b, beta, c);
        return;
    }
    // Thin products (the 10 classes of an output layer) would leave most of the fused
    // kernel's tiles empty and pay for packing A (measured: logistic 784→10 trained at 0.68×
    // with every product on the fused kernel); the thin kernel takes up to 12 columns, gemm
    // the widths between.
    #[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
    if b.ncols() >= fma::MIN_COLUMNS {
        fma::matmul::<fma::Relaxed>(c, a, b, accumulate);
        return;
    }
    // In wasm, the thinnest (logistic regression's) take a kernel without gemm's indirect call.
    #[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
    if b.ncols() <= thin::MAX_COLUMNS {
        thin::matmul::<fma::Relaxed>(c, a, b, accumulate);
        return;
    }
    #[cfg(all(target_arch = "wasm32", not(target_feature = "relaxed-simd")))]
    if b.ncols() <= thin::MAX_COLUMNS {
        thin::matmul::<thin::Simd128>(c, a, b, accumulate);
        return;
    }
    gemm_matmul(c, a, b, accumulate);
}

/// The product with the `gemm` crate (its simd128 kernel in wasm): the fallback, and the
/// baseline the relaxed-SIMD kernel is measured against in the same run.
pub fn gemm_matmul(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    b: &ArrayView2<Real>,
    accumulate: bool,
) {
    let (m, k) = a.dim();
    let (k2, n) = b.dim();
    assert!(
        k == k2 && c.dim() == (m, n),
        "matmul shapes {:?} · {:?} -> {:?}",
        a.dim(),
        b.dim(),
        c.dim()
    );
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            c.fill(0.0);
        }
        return;
    }
    let (a_rs, a_cs) = (a.strides()[0], a.strides()[1]);
    let (b_rs, b_cs) = (b.strides()[0], b.strides()[1]);
    let (c_rs, c_cs) = (c.strides()[0], c.strides()[1]);
    // SAFETY: the pointers and strides describe the three views exactly (shapes checked
    // above), `c` is borrowed mutably so it aliases neither input, and gemm reads and writes
    // only inside those bounds.
    unsafe {
        gemm_call::gemm_f32(
            (m, n, k),
            (c.as_mut_ptr(), c_cs, c_rs),
            accumulate,
            (a.as_ptr(), a_cs, a_rs),
            (b.as_ptr(), b_cs, b_rs),
        );
    }
}

/// Lanes [`sum_squares`] accumulates in (the panels' sweep adds its squares in the same ones).
pub const SUM_LANES: usize = 8;

/// Σ v², accumulated in [`SUM_LANES`] f32 lanes (so the compiler vectorises the loop; a
/// single running sum would be a serial chain of additions). For rows of up to a few thousand
/// entries.
pub fn sum_squares(v: &[Real]) -> Real {
    let mut lanes = [0.0 as Real; SUM_LANES];
    let mut it = v.chunks_exact(SUM_LANES);
    for c in &mut it {
        for (l, &x) in lanes.iter_mut().zip(c) {
            *l += x * x;
        }
    }
    lanes_total(&lanes, it.remainder().iter().map(|&x| x * x))
}

/// How [`sum_squares`] ends: its lanes' sum plus the squares past the last whole group of
/// lanes, added in order. The panels' sweep ends its rows' sums here too, so they stay bit for
/// bit the row-major ones.
#[inline]
pub fn lanes_total(lanes: &[Real; SUM_LANES], remainder: impl Iterator<Item = Real>) -> Real {
    lanes.iter().sum::<Real>() + remainder.sum::<Real>()
}

/// max(x, 0), as a select: `f32::max` (which must ignore a NaN) is no single wasm
/// instruction, and in the simd128 build LLVM calls `fmaxf` once per element for it (a hidden
/// layer's ReLU took 2.7 ms of a lot of 600 on the MLP 60→1000→10, against 0.14 ms as a
/// select; `make bench`'s ceiling phases). Equal to `x.max(0.0)` but for NaN → 0 either way
/// and −0 → +0.
#[inline(always)]
pub fn relu(x: Real) -> Real {
    if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// ReLU in place, `v = max(v, 0)`, returning Σ v² of the result. Two sweeps over a row that
/// stays in L1, each of which the compiler vectorises.
pub fn relu_sum_squares(v: &mut [Real]) -> Real {
    for x in v.iter_mut() {
        *x = relu(*x);
    }
    sum_squares(v)
}

/// A hidden layer's outputs from its product: `v = max(v + b, 0)` in place, returning Σ v² of
/// the result ([`relu_sum_squares`] after adding the bias, in one sweep of the row).
pub fn bias_relu_sum_squares(v: &mut [Real], b: &[Real]) -> Real {
    assert_eq!(v.len(), b.len());
    for (x, &y) in v.iter_mut().zip(b) {
        *x = relu(*x + y);
    }
    sum_squares(v)
}

/// The ReLU's backward mask, `d = d · 1[a > 0]`, returning Σ d² of the result.
pub fn relu_mask_sum_squares(d: &mut [Real], a: &[Real]) -> Real {
    relu_mask(d, a);
    sum_squares(d)
}

/// The ReLU's backward mask, `d = d · 1[a > 0]` (branch-free, vectorised).
pub fn relu_mask(d: &mut [Real], a: &[Real]) {
    assert_eq!(d.len(), a.len());
    for (x, &y) in d.iter_mut().zip(a) {
        *x = if y > 0.0 { *x } else { 0.0 };
    }
}

/// A deterministic matrix of values in [−0.5, 0.5) from a hash of (row, column, seed): the
/// kernels' tests' operands.
#[cfg(test)]
pub(crate) fn test_matrix(rows: usize, cols: usize, seed: u32) -> ndarray::Array2<Real> {
    ndarray::Array2::from_shape_fn((rows, cols), |(i, j)| {
        let h = (i as u32 * 7919 + j as u32 * 104_729 + seed).wrapping_mul(2_654_435_761);
        (h >> 8) as Real / (1u32 << 24) as Real - 0.5
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, Array2};

    #[test]
    fn matches_ndarray_on_strided_views() {
        let a = Array2::from_shape_fn((7, 5), |(i, j)| (i * 5 + j) as Real * 0.1 - 1.0);
        let b = Array2::from_shape_fn((9, 4), |(i, j)| ((i + 2 * j) % 7) as Real * 0.3);
        let bt = b.t(); // 4 × 9, column-major view
        let a_sub = a.slice(s![.., 1..5]); // 7 × 4 with a row stride of 5
        let want = a_sub.dot(&bt);
        let mut c = Array2::<Real>::from_elem((7, 9), 2.0);
        matmul(&mut c.view_mut(), &a_sub, &bt, true);
        let diff = (&c - &want)
            .mapv(|v| (v - 2.0).abs())
            .fold(0.0f32, |m, &v| m.max(v));
        assert!(diff < 1e-5, "accumulate: max diff {diff}");
        matmul(&mut c.view_mut(), &a_sub, &bt, false);
        assert!((&c - &want).iter().all(|v| v.abs() < 1e-5));
    }

    #[test]
    fn fused_relu_sweeps_match_the_plain_loops() {
        for n in [0, 3, 8, 17, 1000] {
            let v: Vec<Real> = (0..n)
                .map(|i| ((i * 29 % 23) as Real - 11.0) / 3.0)
                .collect();
            let a: Vec<Real> = (0..n).map(|i| (i * 7 % 5) as Real - 2.0).collect();
            let plain = |v: &[Real]| v.iter().map(|&x| x as f64 * x as f64).sum::<f64>();
            assert!((sum_squares(&v) as f64 - plain(&v)).abs() <= 1e-4 * plain(&v).max(1.0));

            let mut r = v.clone();
            let sq = relu_sum_squares(&mut r);
            let want: Vec<Real> = v.iter().map(|&x| x.max(0.0)).collect();
            assert_eq!(r, want);
            assert!((sq as f64 - plain(&want)).abs() <= 1e-4 * plain(&want).max(1.0));

            let mut r = v.clone();
            let sq = bias_relu_sum_squares(&mut r, &a);
            let want: Vec<Real> = v.iter().zip(&a).map(|(&x, &b)| (x + b).max(0.0)).collect();
            assert_eq!(r, want);
            assert!((sq as f64 - plain(&want)).abs() <= 1e-4 * plain(&want).max(1.0));

            let mut d = v.clone();
            let sq = relu_mask_sum_squares(&mut d, &a);
            let want: Vec<Real> = v
                .iter()
                .zip(&a)
                .map(|(&x, &y)| if y > 0.0 { x } else { 0.0 })
                .collect();
            assert_eq!(d, want);
            assert!((sq as f64 - plain(&want)).abs() <= 1e-4 * plain(&want).max(1.0));
        }
    }

    #[test]
    fn relu_is_max_with_zero_and_maps_nan_to_zero() {
        for x in [
            -2.5,
            -0.0,
            0.0,
            1e-40,
            3.0,
            Real::INFINITY,
            Real::NEG_INFINITY,
        ] {
            assert_eq!(relu(x), x.max(0.0), "relu({x})");
        }
        assert_eq!(relu(Real::NAN), 0.0);
        assert_eq!(Real::NAN.max(0.0), 0.0, "as f32::max would have it");
    }
}
