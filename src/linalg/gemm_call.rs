//! The call into gemm's f32 kernel (the `gemm-f32` crate) that the `gemm` crate's generic
//! `gemm::gemm` makes for f32, without that crate: its dispatch over every element type pulled
//! in the f64 and complex kernels (gemm-f64, gemm-c32, gemm-c64), 26 s of one core's compile
//! natively and 4 s in each wasm build, for products the lab never takes.

use crate::Real;
use gemm_common::Parallelism;

/// `dst = lhs·rhs`, or `dst += lhs·rhs` when `read_dst`: `dst` is m × n, `lhs` m × k, `rhs`
/// k × n, each given by its first element and its column and row strides (in elements). As
/// `gemm::gemm` 0.19 does before its kernel: a destination stored by rows is computed as the
/// transposed product (the kernel's is by columns), and negative strides are turned around.
///
/// # Safety
/// The pointers and strides must describe the three matrices exactly, within their
/// allocations, and `dst` must alias neither input.
pub unsafe fn gemm_f32(
    (m, n, k): (usize, usize, usize),
    (dst, dst_cs, dst_rs): (*mut Real, isize, isize),
    read_dst: bool,
    (lhs, lhs_cs, lhs_rs): (*const Real, isize, isize),
    (rhs, rhs_cs, rhs_rs): (*const Real, isize, isize),
) {
    let by_rows = dst_cs.abs() < dst_rs.abs();
    let (
        m,
        n,
        mut dst_cs,
        mut dst_rs,
        mut lhs,
        mut lhs_cs,
        mut lhs_rs,
        mut rhs,
        mut rhs_cs,
        mut rhs_rs,
    ) = if by_rows {
        (
            n, m, dst_rs, dst_cs, rhs, rhs_rs, rhs_cs, lhs, lhs_rs, lhs_cs,
        )
    } else {
        (
            m, n, dst_cs, dst_rs, lhs, lhs_cs, lhs_rs, rhs, rhs_cs, rhs_rs,
        )
    };
    let mut dst = dst;
    if dst_rs < 0 && m > 0 {
        dst = dst.wrapping_offset((m - 1) as isize * dst_rs);
        dst_rs = -dst_rs;
        lhs = lhs.wrapping_offset((m - 1) as isize * lhs_rs);
        lhs_rs = -lhs_rs;
    }
    if dst_cs < 0 && n > 0 {
        dst = dst.wrapping_offset((n - 1) as isize * dst_cs);
        dst_cs = -dst_cs;
        rhs = rhs.wrapping_offset((n - 1) as isize * rhs_cs);
        rhs_cs = -rhs_cs;
    }
    if lhs_cs < 0 && k > 0 {
        lhs = lhs.wrapping_offset((k - 1) as isize * lhs_cs);
        lhs_cs = -lhs_cs;
        rhs = rhs.wrapping_offset((k - 1) as isize * rhs_rs);
        rhs_rs = -rhs_rs;
    }
    // dst = 1·dst + 1·lhs·rhs (dst is not read unless read_dst); no conjugation (real numbers).
    gemm_f32::gemm::f32::get_gemm_fn()(
        m,
        n,
        k,
        dst,
        dst_cs,
        dst_rs,
        read_dst,
        lhs as *mut Real,
        lhs_cs,
        lhs_rs,
        rhs as *mut Real,
        rhs_cs,
        rhs_rs,
        1.0,
        1.0,
        false,
        false,
        false,
        Parallelism::None,
    );
}
