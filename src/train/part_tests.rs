//! Tests of the split of a lot into parts (Algorithm 1's per-example half, data-parallel):
//! the parts tile the lot, the coordinator's extra follows the cost model, and a lot is
//! finished once with each of its parts once.

use super::*;

#[test]
fn the_parts_tile_the_lot_and_the_coordinators_differs_by_its_extra_work() {
    for extra in [-70isize, -1, 0, 1, 64, 96] {
        let e = extra.unsigned_abs();
        for n in [0, 1, 37, e, 2 * e + 5, 600, 601] {
            let lot: Vec<usize> = (100..100 + n).collect();
            assert_eq!(
                lot_part(&lot, 0, 1, extra),
                &lot[..],
                "k = 1: the whole lot"
            );
            for k in 2..=8 {
                let parts: Vec<&[usize]> = (0..k).map(|i| lot_part(&lot, i, k, extra)).collect();
                let at = format!("extra = {extra}, n = {n}, k = {k}");
                assert_eq!(
                    parts.concat(),
                    lot,
                    "{at}: in order, nothing lost or repeated"
                );
                let sizes: Vec<usize> = parts.iter().map(|p| p.len()).collect();
                let helpers = &sizes[1..];
                let (lo, hi) = (helpers.iter().min().unwrap(), helpers.iter().max().unwrap());
                assert!(hi - lo <= 1, "{at}: helpers' sizes {sizes:?}");
                // The coordinator's part plus its extra work matches a helper's, to
                // rounding, unless the lot is too small for that (it then takes none of
                // it, or all of it).
                let own = sizes[0] as isize;
                if n == 0 {
                    assert!(*hi == 0, "{at}");
                } else if own > 0 && own < n as isize {
                    assert!((own + extra).abs_diff(*lo as isize) <= 1, "{at}: {sizes:?}");
                } else if own == 0 {
                    assert!(
                        n as isize <= (k as isize - 1) * extra + k as isize,
                        "{at}: {sizes:?}"
                    );
                } else {
                    assert!(*hi == 0 && extra < 0 && n <= (k - 1) * e, "{at}: {sizes:?}");
                }
            }
        }
    }
    let lot: Vec<usize> = (0..600).collect();
    assert_eq!(lot_part(&lot, 0, 2, 96).len(), 252);
    assert_eq!(lot_part(&lot, 0, 2, -70).len(), 335);
    assert!(lot_part(&[], 0, 4, 10).is_empty());
}

#[test]
fn the_split_follows_the_cost_of_the_noise_against_the_cost_of_an_example() {
    let extra = |sizes: &[usize]| coordinator_extra_examples(sizes, PartChannel::Messages);
    let shared = |sizes: &[usize]| coordinator_extra_examples(sizes, PartChannel::SharedMemory);
    // The benchmark shapes: logistic regression's noise costs less than its messages, so
    // the coordinator sums a few more examples than its helper; the MLPs' noise is worth
    // about 30 examples.
    assert_eq!(extra(&[784, 10]), -26);
    assert_eq!(extra(&[60, 1000, 10]), 29);
    assert_eq!(extra(&[784, 128, 10]), 31);
    assert!(extra(&[784, 10]) < extra(&[60, 1000, 10]));
    // Through shared memory nothing offsets the noise: logistic regression's is worth
    // about 20 examples, the MLPs' about 38.
    assert_eq!(shared(&[784, 10]), 21);
    assert_eq!(shared(&[60, 1000, 10]), 38);
    assert_eq!(shared(&[784, 128, 10]), 38);
    // Monotone in the width: more parameters, more noise per example of work.
    assert!(extra(&[60, 2000, 10]) >= extra(&[60, 1000, 10]));
    // A toy network: its messages cost more than all its work; bounded. Through shared
    // memory nothing offsets its noise: 22 normals, worth 23 of its examples (5.4 ns each).
    assert_eq!(extra(&[2, 4, 2]), -(MAX_EXTRA_EXAMPLES as isize));
    assert_eq!(shared(&[2, 4, 2]), 23);
    assert_eq!(extra(&[]), 0);
    assert_eq!(shared(&[]), 0);
}

#[test]
fn a_lot_is_finished_once_with_each_of_its_parts_once() {
    use PartErrorKind::*;
    // Each refusal's kind and the part it names (#54 §3).
    let refused = |r: Result<(), PartError>| r.map_err(|e| (e.kind, e.part)).unwrap_err();
    let mut lot = LotParts::default();
    assert_eq!(refused(lot.part(0, 2)), (NoLot, Some(0)), "no lot open");
    assert_eq!(refused(lot.finish(1)), (Unfinished, None), "no lot open");
    lot.open().unwrap();
    assert_eq!(
        refused(lot.open()),
        (LotOpen, None),
        "a second lot while one is open"
    );
    lot.part(1, 2).unwrap();
    assert_eq!(
        refused(lot.part(1, 2)),
        (Twice, Some(1)),
        "the same part twice"
    );
    assert_eq!(
        refused(lot.part(2, 2)),
        (NoSuchPart, Some(2)),
        "a part that does not exist"
    );
    assert_eq!(refused(lot.finish(2)), (Unfinished, None), "part 0 missing");
    lot.part(0, 2).unwrap();
    assert_eq!(
        refused(lot.finish(3)),
        (Unfinished, None),
        "k = 3: part 2 missing"
    );
    lot.finish(2).unwrap();
    assert_eq!(
        refused(lot.finish(2)),
        (Unfinished, None),
        "finished already"
    );
    // The next lot starts from nothing; k = 1 and the widest k work.
    lot.open().unwrap();
    lot.part(0, 1).unwrap();
    lot.finish(1).unwrap();
    lot.open().unwrap();
    for i in 0..MAX_PARTS {
        lot.part(i, MAX_PARTS).unwrap();
    }
    assert_eq!(refused(lot.part(0, MAX_PARTS + 1)), (NoSuchPart, Some(0)));
    lot.finish(MAX_PARTS).unwrap();
}
