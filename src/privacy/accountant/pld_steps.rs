//! One step's PLD of the subsampled Gaussian and its moment table, kept for the worker's next
//! accountants. Both are pure functions of (q, σ, the grid interval h, the direction), and most
//! of a PLD accountant's first composition: a run restarted with the same privacy settings
//! (another C, η or epoch count, the lessons' usual move) or the page's next ε curves need the
//! same ones, and take them from here, the same numbers to the last bit.

use super::pld::{Direction, Pld};
use std::cell::RefCell;

/// A log-MGF table: (u, ln M(u), ln M(−u)).
pub(crate) type Mgf = Vec<(f64, f64, f64)>;

type Key = (u64, u64, u64, Direction);

/// The most grid points kept in all (8 bytes each: 16 MB), the newest first to stay.
const KEPT_POINTS: usize = 1 << 21;

thread_local! {
    static KEPT: RefCell<Vec<(Key, Pld, Mgf)>> = const { RefCell::new(Vec::new()) };
}

/// [`Pld::subsampled_gaussian`] and its [`Pld::mgf_table`], computed here once while kept.
pub(crate) fn step_pld(q: f64, sigma: f64, h: f64, dir: Direction) -> (Pld, Mgf) {
    let key = (q.to_bits(), sigma.to_bits(), h.to_bits(), dir);
    let kept = KEPT.with(|k| {
        let k = k.borrow();
        let found = k.iter().find(|(kk, _, _)| *kk == key);
        found.map(|(_, pld, mgf)| (pld.clone(), mgf.clone()))
    });
    if let Some(hit) = kept {
        return hit;
    }
    let pld = Pld::subsampled_gaussian(q, sigma, h, dir);
    let mgf = pld.mgf_table();
    KEPT.with(|k| {
        let mut k = k.borrow_mut();
        k.push((key, pld.clone(), mgf.clone()));
        let mut points: usize = k.iter().map(|(_, p, _)| p.pmf.len()).sum();
        while points > KEPT_POINTS && k.len() > 1 {
            points -= k.remove(0).1.pmf.len();
        }
        if points > KEPT_POINTS {
            k.clear(); // one step wider than all that is kept: not kept
        }
    });
    (pld, mgf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_step_is_the_computed_one_to_the_last_bit() {
        for dir in [Direction::Add, Direction::Remove] {
            let fresh = Pld::subsampled_gaussian(0.01, 1.1, 1e-3, dir);
            let (first, first_mgf) = step_pld(0.01, 1.1, 1e-3, dir);
            let (again, again_mgf) = step_pld(0.01, 1.1, 1e-3, dir);
            for p in [&first, &again] {
                assert_eq!(p.pmf, fresh.pmf);
                assert_eq!(
                    (p.offset, p.inf_mass.to_bits()),
                    (fresh.offset, fresh.inf_mass.to_bits())
                );
            }
            assert_eq!(first_mgf, fresh.mgf_table());
            assert_eq!(again_mgf, first_mgf);
        }
        // Another σ is another step, not the kept one.
        let (other, _) = step_pld(0.01, 1.2, 1e-3, Direction::Add);
        assert_ne!(other.pmf, step_pld(0.01, 1.1, 1e-3, Direction::Add).0.pmf);
        let kept = KEPT.with(|k| k.borrow().len());
        assert_eq!(kept, 3, "one per (q, σ, h, direction)");
    }
}
