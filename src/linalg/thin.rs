//! Thin products, `c = a·b` or `c += a·b` with B of at most [`MAX_COLUMNS`] columns: logistic
//! regression's forward X·W and gradient Xᵀ·Δ (10 classes; 2 on Adult), in the wasm builds. Two
//! columns or fewer from A's contiguous rows (X·W on two classes) go along k instead
//! ([`row_dots`]). Otherwise B is copied once into rows of 4·V (V = 1, 2 or 3 four-lane vectors, as
//! few as hold its columns; zero beyond them); A is read in place, one broadcast load per element;
//! a tile of R rows × 4·V columns of C stays in R·V accumulators over the whole of k (R = 8, 4, 3:
//! with the V vectors of B, a broadcast and the simd128 build's product, at most 14 registers;
//! V8 allocates 15 of x64's 16). The tiles were 6 × 8 and 4 × 12, one register too many: in V8
//! they spilled, and 4 × 12 → 3 × 12 trained the MLP 60→1000→10 12% faster and logistic
//! regression 784→10 45% (relaxed build; docs/performance.md, "The thin kernel"). Natively (and by
//! `gemm` in wasm before this kernel) the product runs through `gemm`, which calls its
//! micro-kernels through a function pointer: in Chromium, whether V8 inlined that call from its
//! feedback made logistic regression's lots about 15% slower or not, depending on what the compiled
//! module had run before (docs/performance.md). This kernel has no indirect call.

use super::fma::Lanes;
use crate::Real;
use ndarray::{ArrayView2, ArrayViewMut2};
use std::cell::RefCell;

/// The most columns of B this kernel takes (three four-lane vectors).
pub const MAX_COLUMNS: usize = 12;

thread_local! {
    /// B's rows padded to 12, kept between calls (a lot's products reuse the same sizes).
    static PADDED: RefCell<Vec<Real>> = const { RefCell::new(Vec::new()) };
}

/// Four lanes of wasm SIMD without a fused multiply-add (the simd128 build): a multiply, then
/// an add.
#[cfg(target_arch = "wasm32")]
#[derive(Clone, Copy)]
pub struct Simd128(core::arch::wasm32::v128);

#[cfg(target_arch = "wasm32")]
impl Lanes for Simd128 {
    #[inline(always)]
    fn zero() -> Self {
        Simd128(core::arch::wasm32::f32x4_splat(0.0))
    }
    #[inline(always)]
    fn load(src: &[Real]) -> Self {
        Simd128(super::fma::wasm_load(src))
    }
    #[inline(always)]
    fn splat(x: &Real) -> Self {
        Simd128(super::fma::wasm_splat(x))
    }
    #[inline(always)]
    fn madd(self, a: Self, b: Self) -> Self {
        use core::arch::wasm32::{f32x4_add, f32x4_mul};
        Simd128(f32x4_add(self.0, f32x4_mul(a.0, b.0)))
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Simd128(core::arch::wasm32::f32x4_add(self.0, other.0))
    }
    #[inline(always)]
    fn store(self, dst: &mut [Real]) {
        super::fma::wasm_store(self.0, dst)
    }
}

/// `c = a·b` (`accumulate = false`) or `c += a·b`, B of at most [`MAX_COLUMNS`] columns, on
/// views of any strides, with lanes `L`. Never inlined (see `fma::matmul`: a large kernel
/// inlined into `linalg::matmul` slowed its other branches in Chromium).
#[inline(never)]
pub fn matmul<L: Lanes>(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    b: &ArrayView2<Real>,
    accumulate: bool,
) {
    let ((m, k), (k2, n)) = (a.dim(), b.dim());
    assert!(
        k == k2 && c.dim() == (m, n) && n <= MAX_COLUMNS,
        "thin matmul shapes"
    );
    if m == 0 || n == 0 {
        return;
    }
    // Rows of A contiguous and long enough to fill lanes (the forward X·W): along k.
    if n <= 2 && k >= 8 && a.strides()[1] == 1 {
        match n {
            1 => row_dots::<L, 1>(c, a, b, accumulate),
            _ => row_dots::<L, 2>(c, a, b, accumulate),
        }
        return;
    }
    match n.div_ceil(4) {
        1 => padded_product::<L, 1, 8>(c, a, b, accumulate),
        2 => padded_product::<L, 2, 4>(c, a, b, accumulate),
        _ => padded_product::<L, 3, 3>(c, a, b, accumulate),
    }
}

/// Rows of A in tiles of [`DOT_ROWS`] for [`row_dots`].
const DOT_ROWS: usize = 4;

/// The product for B of N ≤ 2 columns with A's rows contiguous (logistic regression on two
/// classes, as on Adult: the padded tiles below would fill half their lanes and broadcast every
/// element of A): each row of A read four elements at a time against each column of B (copied
/// once as Bᵀ), DOT_ROWS rows a tile; the lanes summed at the end, k mod 4 elements added one by
/// one.
#[inline(never)]
fn row_dots<L: Lanes, const N: usize>(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    b: &ArrayView2<Real>,
    accumulate: bool,
) {
    let (m, k) = a.dim();
    let whole = k - k % 4;
    PADDED.with(|padded| {
        let bt = &mut *padded.borrow_mut();
        bt.clear();
        for j in 0..N {
            bt.extend(b.column(j).iter());
        }
        let mut i = 0;
        while i < m {
            let rows = DOT_ROWS.min(m - i);
            let row = |r: usize| a.row(i + r.min(rows - 1)).to_slice().expect("contiguous");
            let x: [&[Real]; DOT_ROWS] = std::array::from_fn(row);
            let mut acc = [[L::zero(); N]; DOT_ROWS];
            for p in (0..whole).step_by(4) {
                let bs: [L; N] = std::array::from_fn(|j| L::load(&bt[j * k + p..]));
                for (acc_r, x_r) in acc.iter_mut().zip(&x) {
                    let xv = L::load(&x_r[p..]);
                    for (a_j, b_j) in acc_r.iter_mut().zip(&bs) {
                        *a_j = a_j.madd(xv, *b_j);
                    }
                }
            }
            for (r, (acc_r, x_r)) in acc.iter().zip(&x).enumerate().take(rows) {
                for (j, lanes) in acc_r.iter().enumerate() {
                    let mut l = [0.0 as Real; 4];
                    lanes.store(&mut l);
                    let mut sum = (l[0] + l[1]) + (l[2] + l[3]);
                    for p in whole..k {
                        sum += x_r[p] * bt[j * k + p];
                    }
                    let out = &mut c[(i + r, j)];
                    *out = if accumulate { *out + sum } else { sum };
                }
            }
            i += rows;
        }
    });
}

/// The product with B padded to rows of 4·V, in tiles of R rows (the last tile's rows one at a
/// time: at most R − 1 of them). One function per width, called directly.
#[inline(never)]
fn padded_product<L: Lanes, const V: usize, const R: usize>(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    b: &ArrayView2<Real>,
    accumulate: bool,
) {
    let (m, k) = a.dim();
    PADDED.with(|padded| {
        let bp = &mut *padded.borrow_mut();
        bp.clear();
        bp.resize(k * 4 * V, 0.0);
        for (row, padded_row) in b.rows().into_iter().zip(bp.chunks_exact_mut(4 * V)) {
            for (x, y) in row.iter().zip(padded_row.iter_mut()) {
                *y = *x;
            }
        }
        let mut i = 0;
        while i + R <= m {
            tile::<L, V, R>(c, a, bp, i, accumulate);
            i += R;
        }
        for i in i..m {
            tile::<L, V, 1>(c, a, bp, i, accumulate);
        }
    });
}

/// Rows `i..i + R` of C from rows `i..i + R` of A and all of B, padded to rows of 4·V.
#[inline(always)]
fn tile<L: Lanes, const V: usize, const R: usize>(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    bp: &[Real],
    i: usize,
    accumulate: bool,
) {
    let (m, k) = a.dim();
    assert!(i + R <= m && bp.len() == k * 4 * V);
    let (rs, cs) = (a.strides()[0], a.strides()[1]);
    // SAFETY: rows i..i + R lie inside the view (checked above), so each row's start is in
    // bounds; the loop below reads row r at p·cs for p < k, inside the view too.
    let rows: [*const Real; R] =
        std::array::from_fn(|r| unsafe { a.as_ptr().offset((i + r) as isize * rs) });
    let mut acc = [[L::zero(); V]; R];
    for (p, b_row) in bp.chunks_exact(4 * V).enumerate() {
        let b: [L; V] = std::array::from_fn(|v| L::load(&b_row[4 * v..]));
        let step = p as isize * cs;
        for r in 0..R {
            // SAFETY: element (i + r, p) of the view: i + r < m, p < k.
            let x = L::splat(unsafe { &*rows[r].offset(step) });
            for v in 0..V {
                acc[r][v] = acc[r][v].madd(x, b[v]);
            }
        }
    }
    let n = c.ncols();
    let mut lanes = [0.0 as Real; MAX_COLUMNS];
    for (r, acc_row) in acc.iter().enumerate() {
        for (v, a) in acc_row.iter().enumerate() {
            a.store(&mut lanes[4 * v..]);
        }
        let mut c_row = c.row_mut(i + r);
        for j in 0..n {
            c_row[j] = if accumulate {
                c_row[j] + lanes[j]
            } else {
                lanes[j]
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::fma::Emulated;
    use ndarray::{s, Array2};

    use crate::linalg::test_matrix as filled;

    fn reference(a: &ArrayView2<Real>, b: &ArrayView2<Real>) -> Array2<Real> {
        let mut c = Array2::zeros((a.nrows(), b.ncols()));
        crate::linalg::gemm_matmul(&mut c.view_mut(), a, b, false);
        c
    }

    fn close(x: &Array2<Real>, y: &Array2<Real>) {
        for (p, q) in x.iter().zip(y.iter()) {
            assert!((p - q).abs() <= 1e-4 * (1.0 + q.abs()), "{p} vs {q}");
        }
    }

    #[test]
    fn matches_gemm_on_thin_products_of_every_edge_and_stride() {
        // Every width (1–3 vectors, whole and partial), tiles of 8, 4 and 3 rows with and
        // without rows left over, k = 1.
        for (m, k, n) in [
            (1, 1, 1),
            (3, 5, 2),
            (9, 7, 3),
            (17, 100, 2),
            (15, 9, 6),
            (13, 17, 8),
            (4, 784, 10),
            (13, 17, 12),
            (600, 784, 10),
            (7, 3, 11),
            (5, 1, 5),
        ] {
            let a = filled(m, k, 1);
            let b = filled(k, n, 2);
            let want = reference(&a.view(), &b.view());
            let mut got = Array2::from_elem((m, n), Real::NAN);
            matmul::<Emulated>(&mut got.view_mut(), &a.view(), &b.view(), false);
            close(&got, &want);
            // The gradient's shape: A a transposed view (column-major), accumulated into C.
            let at = filled(k, m, 3);
            let mut acc = filled(m, n, 4);
            let mut want_acc = acc.clone();
            let prod = reference(&at.t(), &b.view());
            want_acc += &prod;
            matmul::<Emulated>(&mut acc.view_mut(), &at.t(), &b.view(), true);
            close(&acc, &want_acc);
        }
        // Two or fewer columns from contiguous rows (row_dots), accumulated: k a multiple of 4
        // or not, rows a multiple of the tile or not.
        for (m, k, n) in [
            (4, 8, 1),
            (7, 105, 2),
            (9, 9, 1),
            (4096, 105, 2),
            (3, 12, 2),
        ] {
            let (a, b) = (filled(m, k, 7), filled(k, n, 8));
            let mut acc = filled(m, n, 9);
            let mut want_acc = acc.clone();
            want_acc += &reference(&a.view(), &b.view());
            matmul::<Emulated>(&mut acc.view_mut(), &a.view(), &b.view(), true);
            close(&acc, &want_acc);
        }
        // Strided views of every operand.
        let big_a = filled(20, 30, 5);
        let big_b = filled(30, 24, 6);
        let (a, b) = (big_a.slice(s![..;2, 1..;3]), big_b.slice(s![1..;3, ..;2]));
        let mut c = Array2::zeros((40, 24));
        let mut view = c.slice_mut(s![..;4, ..;2]);
        matmul::<Emulated>(&mut view, &a, &b, false);
        close(&view.to_owned(), &reference(&a, &b));
    }
}
