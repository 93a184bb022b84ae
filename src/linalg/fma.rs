//! A packed, register-blocked matrix product whose inner step is a fused multiply-add on four
//! f32 lanes: in wasm, relaxed SIMD's `f32x4.relaxed_madd` (one `vfmadd` on x86 with FMA, one
//! `fmla` on ARM), where the simd128 kernel `gemm` ships must issue a multiply and an add.
//! Used in wasm builds with the `relaxed-simd` target feature (the page loads that build when
//! the browser validates relaxed SIMD, `www/core/wasm-module.js`); natively the same blocking runs
//! on [`Emulated`] lanes (`f32::mul_add`, so also fused) so its tiling, edges and strides are
//! tested against `gemm`.
//!
//! Blocking (the classic Goto/BLIS scheme, reduced to what these shapes need): B is packed once
//! into column panels of [`NR`] (k × 12, contiguous, zero-padded), or read in place when few
//! rows of A reuse it, or arrives in panels already ([`matmul_panels`]: the MLP's first δ); A
//! into row panels of [`MR`] (k × 3); each 3 × 12 tile of C lives in 9
//! four-lane accumulators for a block of [`KC`] steps of k, fed by three loads of B and three
//! broadcasts of A per step. Nine accumulators are one more than FMA latency × ports needs on
//! the x86 cores measured (4 cycles × 2), so a late load does not stall the chain, and with
//! the three B vectors and the broadcasts they fit V8's 16 vector registers (a 4 × 8 tile
//! ran 5–10% slower on every product; 5 × 8 and 6 × 8 spilled: docs/performance.md).

use super::panels::ColumnPanels;
use crate::Real;
use ndarray::{s, ArrayView2, ArrayViewMut2};
use std::cell::RefCell;

/// Rows of C per tile.
pub const MR: usize = 3;
/// Columns of C per tile (three four-lane vectors).
pub const NR: usize = 12;
/// Four-lane vectors per row of a tile.
const V: usize = NR / 4;
/// Columns of C below which `linalg::matmul` leaves a product to gemm.
pub const MIN_COLUMNS: usize = 32;
/// Steps of k per pass: a B panel (KC × NR) and an A panel (KC × MR) take 15 KB of L1.
pub const KC: usize = 256;

/// Four f32 lanes with a fused multiply-add: what the micro-kernel needs of a SIMD type.
pub trait Lanes: Copy {
    fn zero() -> Self;
    /// Four lanes from `src[0..4]`.
    fn load(src: &[Real]) -> Self;
    /// `*x` in every lane (a broadcast load).
    fn splat(x: &Real) -> Self;
    /// `self + a·b`, fused (one rounding) where the hardware has it.
    fn madd(self, a: Self, b: Self) -> Self;
    fn add(self, other: Self) -> Self;
    /// The four lanes into `dst[0..4]`.
    fn store(self, dst: &mut [Real]);
}

/// Portable lanes (`f32::mul_add`): the native reference of the blocking, not a fast path.
#[derive(Clone, Copy)]
pub struct Emulated(pub(super) [Real; 4]);

impl Lanes for Emulated {
    #[inline(always)]
    fn zero() -> Self {
        Emulated([0.0; 4])
    }
    #[inline(always)]
    fn load(src: &[Real]) -> Self {
        Emulated([src[0], src[1], src[2], src[3]])
    }
    #[inline(always)]
    fn splat(x: &Real) -> Self {
        Emulated([*x; 4])
    }
    #[inline(always)]
    fn madd(self, a: Self, b: Self) -> Self {
        Emulated(std::array::from_fn(|i| a.0[i].mul_add(b.0[i], self.0[i])))
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Emulated(std::array::from_fn(|i| self.0[i] + other.0[i]))
    }
    #[inline(always)]
    fn store(self, dst: &mut [Real]) {
        dst[..4].copy_from_slice(&self.0);
    }
}

/// Four f32 from `src[0..4]` into a wasm vector (the loads of [`Relaxed`] and
/// `thin::Simd128`).
#[cfg(target_arch = "wasm32")]
#[inline(always)]
pub fn wasm_load(src: &[Real]) -> core::arch::wasm32::v128 {
    assert!(src.len() >= 4);
    // SAFETY: four f32 in bounds (checked above); v128_load has no alignment requirement.
    unsafe { core::arch::wasm32::v128_load(src.as_ptr().cast()) }
}

/// `*x` in every lane (a broadcast load).
#[cfg(target_arch = "wasm32")]
#[inline(always)]
pub fn wasm_splat(x: &Real) -> core::arch::wasm32::v128 {
    // SAFETY: `x` is a valid f32 reference.
    unsafe { core::arch::wasm32::v128_load32_splat((x as *const Real).cast()) }
}

/// The four lanes of `v` into `dst[0..4]`.
#[cfg(target_arch = "wasm32")]
#[inline(always)]
pub fn wasm_store(v: core::arch::wasm32::v128, dst: &mut [Real]) {
    assert!(dst.len() >= 4);
    // SAFETY: four f32 in bounds (checked above); v128_store has no alignment requirement.
    unsafe { core::arch::wasm32::v128_store(dst.as_mut_ptr().cast(), v) }
}

/// wasm relaxed SIMD: `f32x4.relaxed_madd`, which engines lower to a fused multiply-add where
/// the CPU has one (and to a multiply and an add where it has not: still correct, one more
/// rounding).
#[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
#[derive(Clone, Copy)]
pub struct Relaxed(pub(super) core::arch::wasm32::v128);

#[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
impl Lanes for Relaxed {
    #[inline(always)]
    fn zero() -> Self {
        Relaxed(core::arch::wasm32::f32x4_splat(0.0))
    }
    #[inline(always)]
    fn load(src: &[Real]) -> Self {
        Relaxed(wasm_load(src))
    }
    #[inline(always)]
    fn splat(x: &Real) -> Self {
        Relaxed(wasm_splat(x))
    }
    #[inline(always)]
    fn madd(self, a: Self, b: Self) -> Self {
        Relaxed(core::arch::wasm32::f32x4_relaxed_madd(a.0, b.0, self.0))
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        Relaxed(core::arch::wasm32::f32x4_add(self.0, other.0))
    }
    #[inline(always)]
    fn store(self, dst: &mut [Real]) {
        wasm_store(self.0, dst)
    }
}

thread_local! {
    /// The packed panels, kept between calls (a lot's products reuse the same sizes).
    static PANELS: RefCell<(Vec<Real>, Vec<Real>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// `f` on this thread's packing buffers for A and B (`linalg::backward` packs with them too).
pub(super) fn with_buffers<T>(f: impl FnOnce(&mut Vec<Real>, &mut Vec<Real>) -> T) -> T {
    PANELS.with(|panels| {
        let (ap, bp) = &mut *panels.borrow_mut();
        f(ap, bp)
    })
}

/// `c = a·b` (`accumulate = false`) or `c += a·b`, on views of any strides, with lanes `L`.
///
/// Never inlined: inlined, the kernel made `linalg::matmul` a 68 KB function, and Chromium's
/// optimising compiler then ran its other branch (the thin products, then on gemm: all of
/// logistic regression's) about 1.5× slower, until feedback-driven recompilation fixed it in
/// some workers and not in others (a helper's half of a lot 0.78 ms against 0.50; 0.77 in
/// every worker with `--no-wasm-dynamic-tiering`; 0.49–0.52 with this attribute, either way).
#[inline(never)]
pub fn matmul<L: Lanes>(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    b: &ArrayView2<Real>,
    accumulate: bool,
) {
    let ((m, k), (k2, n)) = (a.dim(), b.dim());
    assert!(k == k2 && c.dim() == (m, n), "matmul shapes");
    if m == 0 || n == 0 {
        return;
    }
    PANELS.with(|panels| {
        let (ap, bp) = &mut *panels.borrow_mut();
        // B is packed when its panels are reused by many row blocks; with few rows of A (the
        // gradient Xᵀ·Δ: m = 60) packing would cost as much as the product, and a row-major B
        // is read in place.
        match b.as_slice().filter(|_| m <= DIRECT_B_ROWS) {
            Some(rows) => product::<L>(c, a, ap, B::Rows(rows, bp), accumulate),
            None => {
                pack(bp, b, NR, true);
                product::<L>(c, a, ap, B::Panels(bp), accumulate)
            }
        }
    });
}

/// `c = a·b` or `c += a·b` with B already in column panels (the MLP's first δ, written so
/// by its backward sweep: `ColumnPanels`).
pub fn matmul_panels<L: Lanes>(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    b: &ColumnPanels,
    accumulate: bool,
) {
    let ((m, k), n) = (a.dim(), b.cols());
    assert!(k == b.rows() && c.dim() == (m, n), "matmul shapes");
    if m == 0 || n == 0 {
        return;
    }
    PANELS.with(|panels| {
        let (ap, _) = &mut *panels.borrow_mut();
        product::<L>(c, a, ap, B::Panels(b.as_slice()), accumulate)
    });
}

/// Where the product reads B from: its row-major rows in place (the buffer is for the last,
/// partial column panel), or column panels of NR (k × NR each).
enum B<'a> {
    Rows(&'a [Real], &'a mut Vec<Real>),
    Panels(&'a [Real]),
}

/// The blocked product (A packed into `ap`), for [`matmul`] and [`matmul_panels`].
#[inline(always)]
fn product<L: Lanes>(
    c: &mut ArrayViewMut2<Real>,
    a: &ArrayView2<Real>,
    ap: &mut Vec<Real>,
    mut b: B,
    accumulate: bool,
) {
    let ((m, k), n) = (a.dim(), c.ncols());
    pack(ap, a, MR, false);
    let mut tile = [0.0 as Real; MR * NR];
    // k in blocks of KC, so a B panel and an A panel share L1 (later blocks add to C).
    for k0 in (0..k).step_by(KC) {
        let kc = KC.min(k - k0);
        let add = accumulate || k0 > 0;
        for jb in 0..n.div_ceil(NR) {
            let j0 = jb * NR;
            let (b_panel, b_stride) = match &mut b {
                B::Rows(rows, _) if j0 + NR <= n => (&rows[k0 * n + j0..], n),
                B::Rows(rows, edge) => {
                    pack_edge(edge, rows, n, k0, kc, j0);
                    (&edge[..], NR)
                }
                B::Panels(bp) => (&bp[(jb * k + k0) * NR..][..kc * NR], NR),
            };
            for ib in 0..m.div_ceil(MR) {
                let i0 = ib * MR;
                let a_panel = &ap[(ib * k + k0) * MR..][..kc * MR];
                let acc = if b_stride == NR {
                    micro_kernel::<L>(a_panel, b_panel.chunks_exact(NR), kc)
                } else {
                    micro_kernel::<L>(a_panel, b_panel.chunks(b_stride), kc)
                };
                let whole = i0 + MR <= m && j0 + NR <= n;
                match c.as_slice_mut() {
                    // Row-major C and a whole tile: straight from the accumulators.
                    Some(cs) if whole => store_rows::<L>(cs, n, &acc, i0, j0, add),
                    _ => {
                        for (r, row) in acc.iter().enumerate() {
                            for (v, lanes) in row.iter().enumerate() {
                                lanes.store(&mut tile[r * NR + 4 * v..]);
                            }
                        }
                        write_tile(c, &tile, i0, j0, add);
                    }
                }
            }
        }
    }
    if k == 0 && !accumulate {
        c.fill(0.0);
    }
}

/// Packs `x` into panels of `width` rows of A (`by_columns = false`: panel p holds rows
/// p·width.. as k × width, element (r, kk) at kk·width + r) or columns of B (`true`: column
/// block p as k × width, element (kk, j) at kk·width + j), zero-padded to whole panels.
pub(super) fn pack(out: &mut Vec<Real>, x: &ArrayView2<Real>, width: usize, by_columns: bool) {
    let (outer, k) = if by_columns {
        (x.ncols(), x.nrows())
    } else {
        (x.nrows(), x.ncols())
    };
    let panels = outer.div_ceil(width);
    out.clear();
    out.resize(panels * k * width, 0.0);
    for p in 0..panels {
        let panel = &mut out[p * k * width..][..k * width];
        let w = width.min(outer - p * width);
        match (by_columns, x.as_slice()) {
            // Row-major B: each of the panel's k rows is `w` contiguous values of a row of B.
            (true, Some(rows)) => {
                let n = x.ncols();
                for (kk, dst) in panel.chunks_exact_mut(width).enumerate() {
                    let src = &rows[kk * n + p * width..];
                    match (<&mut [Real; NR]>::try_from(&mut *dst), src.get(..NR)) {
                        // A whole panel: a copy of known length, three vector moves (a copy of
                        // run-time length is an out-of-line `memory.copy` call in wasm, which
                        // measurably slowed the forward product: docs/performance.md).
                        (Ok(d), Some(src)) if w == NR => d.copy_from_slice(src),
                        _ => dst[..w].copy_from_slice(&src[..w]),
                    }
                }
            }
            _ => {
                for j in 0..w {
                    let line = if by_columns {
                        x.column(p * width + j)
                    } else {
                        x.row(p * width + j)
                    };
                    for (kk, &v) in line.iter().enumerate() {
                        panel[kk * width + j] = v;
                    }
                }
            }
        }
    }
}

/// Rows of C up to which a row-major B is read in place rather than packed.
const DIRECT_B_ROWS: usize = 128;

/// Rows k0..k0+kc of the last, partial column panel (from column j0) of a row-major B with
/// `n` columns, zero-padded to NR.
fn pack_edge(out: &mut Vec<Real>, rows: &[Real], n: usize, k0: usize, kc: usize, j0: usize) {
    out.clear();
    out.resize(kc * NR, 0.0);
    for (kk, dst) in out.chunks_exact_mut(NR).enumerate() {
        let row = (k0 + kk) * n;
        dst[..n - j0].copy_from_slice(&rows[row + j0..row + n]);
    }
}

/// One MR × NR tile of A·B over k steps (9 accumulators; per step three loads of B, three
/// broadcasts of A's panel, nine fused multiply-adds). `b_rows` yields each step's values of
/// B, the first NR of each used: a packed panel's `chunks_exact(NR)`, or B's rows read in place
/// (`chunks(n)`) — iterators, so no step pays an index check.
#[inline(always)]
pub(super) fn micro_kernel<'b, L: Lanes>(
    a: &[Real],
    b_rows: impl Iterator<Item = &'b [Real]>,
    k: usize,
) -> [[L; V]; MR] {
    let mut acc = [[L::zero(); V]; MR];
    for (ak, bk) in a.chunks_exact(MR).zip(b_rows).take(k) {
        let b: [L; V] = std::array::from_fn(|v| L::load(&bk[4 * v..]));
        for (r, row) in acc.iter_mut().enumerate() {
            let x = L::splat(&ak[r]);
            for (lanes, &bv) in row.iter_mut().zip(&b) {
                *lanes = lanes.madd(x, bv);
            }
        }
    }
    acc
}

/// A whole tile into row-major C (`n` columns) at rows i0.., columns j0.., four lanes at a time.
#[inline(always)]
fn store_rows<L: Lanes>(
    c: &mut [Real],
    n: usize,
    acc: &[[L; V]; MR],
    i0: usize,
    j0: usize,
    accumulate: bool,
) {
    for (r, row) in acc.iter().enumerate() {
        let dst = &mut c[(i0 + r) * n + j0..][..NR];
        for (q, &v) in row.iter().enumerate() {
            let d = &mut dst[q * 4..];
            let v = if accumulate { v.add(L::load(d)) } else { v };
            v.store(d);
        }
    }
}

/// Adds (or writes) the part of `tile` that lies inside C at rows i0.., columns j0...
fn write_tile(
    c: &mut ArrayViewMut2<Real>,
    tile: &[Real; MR * NR],
    i0: usize,
    j0: usize,
    accumulate: bool,
) {
    let (m, n) = c.dim();
    let w = NR.min(n - j0);
    for r in 0..MR.min(m - i0) {
        let src = &tile[r * NR..r * NR + w];
        let mut dst = c.slice_mut(s![i0 + r, j0..j0 + w]);
        match (dst.as_slice_mut(), accumulate) {
            (Some(d), true) => d.iter_mut().zip(src).for_each(|(d, &v)| *d += v),
            (Some(d), false) => d.copy_from_slice(src),
            (None, _) => dst.iter_mut().zip(src).for_each(|(d, &v)| {
                *d = if accumulate { *d + v } else { v };
            }),
        }
    }
}

#[cfg(test)]
#[path = "fma_tests.rs"]
mod tests;
