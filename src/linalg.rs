//! The one matrix product the models use, c = a·b or c += a·b, on ndarray views of any
//! strides. Backed by the `gemm` crate (AVX-512 / AVX2+FMA kernels chosen at run time natively,
//! a simd128 kernel in wasm), single-threaded. The cargo feature `matrixmultiply-backend`
//! switches to ndarray's own product (matrixmultiply) so the two can be benchmarked.

use crate::Real;
use ndarray::{ArrayView2, ArrayViewMut2};

/// `c = a·b` (`accumulate = false`) or `c += a·b` (`accumulate = true`).
#[cfg(feature = "matrixmultiply-backend")]
pub fn matmul(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    b: &ArrayView2<Real>,
    accumulate: bool,
) {
    let beta = if accumulate { 1.0 } else { 0.0 };
    ndarray::linalg::general_mat_mul(1.0, a, b, beta, c);
}

/// `c = a·b` (`accumulate = false`) or `c += a·b` (`accumulate = true`).
#[cfg(not(feature = "matrixmultiply-backend"))]
pub fn matmul(
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
        gemm::gemm(
            m,
            n,
            k,
            c.as_mut_ptr(),
            c_cs,
            c_rs,
            accumulate,
            a.as_ptr(),
            a_cs,
            a_rs,
            b.as_ptr(),
            b_cs,
            b_rs,
            1.0, // dst = 1·dst + 1·a·b when accumulating
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
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
}
