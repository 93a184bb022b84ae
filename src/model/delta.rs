//! A layer's δ as the clipped sum reads it (`Mlp::add_grad_sum`), in either of its layouts:
//! row-major, or column panels (the relaxed-SIMD build's first hidden layer, `linalg::panels`).
//! The steps are the same on both: zero a dropped example's row, scale rows by clip factors,
//! then add Aᵀ·Δ and the bias part Σ_i w_i δ_i to the gradient (Goodfellow's identity, the
//! paper's Section 3.1).

use crate::linalg::panels::ColumnPanels;
use crate::linalg::{matmul, matmul_panels};
use crate::Real;
use ndarray::{ArrayView1, ArrayView2, ArrayViewMut2};

pub(super) trait Delta {
    /// Row `r` set to zero (written, never multiplied: it may hold an overflow, and 0·∞ is NaN).
    fn zero_row(&mut self, r: usize);
    /// Row r multiplied by `w[r]` (rows of weight 0 already zeroed).
    fn scale_rows(&mut self, w: ArrayView1<Real>);
    /// `gw += aᵀ·Δ` and `gb += Σ_r w[r]·δ_r` (every weight 1 with `None`).
    fn add_to_grad(
        &self,
        a: ArrayView2<Real>,
        gw: &mut ArrayViewMut2<Real>,
        bias_w: Option<ArrayView1<Real>>,
        gb: &mut [Real],
    );
}

impl Delta for ArrayViewMut2<'_, Real> {
    fn zero_row(&mut self, r: usize) {
        self.row_mut(r).fill(0.0);
    }

    fn scale_rows(&mut self, w: ArrayView1<Real>) {
        for (mut row, &wi) in self.rows_mut().into_iter().zip(w) {
            row *= wi;
        }
    }

    fn add_to_grad(
        &self,
        a: ArrayView2<Real>,
        gw: &mut ArrayViewMut2<Real>,
        bias_w: Option<ArrayView1<Real>>,
        gb: &mut [Real],
    ) {
        matmul(gw, &a.t(), &self.view(), true);
        for (r, row) in self.rows().into_iter().enumerate() {
            let wi = bias_w.as_ref().map_or(1.0, |w| w[r]);
            let row = row.to_slice().expect("rows of a standard-layout array");
            for (g, &d) in gb.iter_mut().zip(row) {
                *g += wi * d;
            }
        }
    }
}

impl Delta for ColumnPanels {
    fn zero_row(&mut self, r: usize) {
        ColumnPanels::zero_row(self, r);
    }

    fn scale_rows(&mut self, w: ArrayView1<Real>) {
        ColumnPanels::scale_rows(self, w);
    }

    fn add_to_grad(
        &self,
        a: ArrayView2<Real>,
        gw: &mut ArrayViewMut2<Real>,
        bias_w: Option<ArrayView1<Real>>,
        gb: &mut [Real],
    ) {
        matmul_panels(gw, &a.t(), self, true);
        self.add_weighted_column_sums(bias_w, gb);
    }
}
