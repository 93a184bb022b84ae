//! `make bench`'s ceiling and phases (#55): a part timed phase by phase is the same sum as the
//! untimed one, its phases come in order, and the ceiling's arithmetic (flops per example,
//! examples per second from the products' time) holds — on a clock that ticks once per reading,
//! so nothing here depends on the machine's speed.

use dpsgd_lab::bench::ceiling::{lot_ceiling, products_gflops};
use dpsgd_lab::bench::training_case;
use dpsgd_lab::train::part::PartPhase;
use dpsgd_lab::train::Trainer;
use std::cell::Cell;

#[test]
fn a_timed_part_is_the_same_sum_with_its_phases_in_order() {
    let (cfg, data) = training_case("mlp 60-1000-10", true).unwrap();
    let (mut timed, mut plain) = (
        Trainer::new(cfg.clone(), data.clone()).unwrap(),
        Trainer::new(cfg, data).unwrap(),
    );
    for t in [&mut timed, &mut plain] {
        t.draw_lot();
    }
    let mut seen = Vec::new();
    timed.sum_own_part_timed(0, 2, &mut |p| seen.push(p));
    plain.sum_own_part(0, 2);
    assert_eq!(
        seen,
        PartPhase::ALL,
        "one batch of the part: each phase once, in order"
    );
    for t in [&mut timed, &mut plain] {
        t.sum_own_part(1, 2);
        t.finish_lot(2);
    }
    assert_eq!(timed.params(), plain.params(), "the same step, bit for bit");
}

#[test]
fn the_ceiling_counts_three_products_a_layer_and_times_every_phase() {
    let clock = ticking_clock();
    for (model, flops, k) in [
        ("logistic 784-10", 4 * 784 * 10, 1),
        ("mlp 60-1000-10", 4 * 60 * 1000 + 6 * 1000 * 10, 2),
    ] {
        let (cfg, data) = training_case(model, true).unwrap();
        let lot = cfg.lot_size as f64;
        let mut t = Trainer::new(cfg, data).unwrap();
        let line = lot_ceiling("native", model, &mut t, k, &clock, 40.0);
        assert_eq!(line.flops_per_example, flops as f64, "{model}");
        let products = if model.starts_with("mlp") { 5 } else { 2 };
        assert_eq!(
            line.products.len(),
            products,
            "{model}: {:?}",
            line.products
        );
        let names: Vec<&str> = PartPhase::ALL.iter().map(|p| p.name()).collect();
        let mut keys: Vec<&str> = line.phases_ms.keys().copied().collect();
        keys.sort();
        let mut want = names.clone();
        want.sort();
        assert_eq!(keys, want, "{model}");
        // Each phase is one tick a batch on this clock (a Poisson lot over the batch size of
        // 600 is summed in two).
        let batches = line.phases_ms["gather"];
        assert!(batches >= 1.0, "{model}: {batches}");
        let same = line.phases_ms.values().all(|&ms| ms == batches);
        assert!(same, "{model}: {:?}", line.phases_ms);
        let part = line.part_examples;
        assert!(
            part > 0.3 * lot / k as f64 && part < 1.7 * lot / k as f64,
            "{model}: {part}"
        );
        // (`part_examples` is rounded to 0.1 in the line, `batches` to 0.001)
        let rate = part / (4.0 * batches) * 1e3;
        assert!(
            (line.part_examples_per_sec - rate).abs() <= 1e-3 * rate,
            "{model}: {line:?}"
        );
        // The ceiling: the part's examples over its products' summed time.
        let products_ms: f64 = line.products_ms.values().sum();
        let ceiling = part.round() / products_ms * 1e3;
        let off = (line.ceiling_examples_per_sec / ceiling - 1.0).abs();
        assert!(off <= 1e-3, "{model}: {line:?}");
        assert!(line.part_over_ceiling > 0.0, "{model}");
    }
}

/// With a clock that moves 1 ms at each reading, each product is timed over three calls and two
/// readings: 2/3 ms. 60→1000→10 on 8 examples is five products and (4·60·1000 + 6·1000·10)·8 =
/// 2.4 MFLOP, so 2.4e6 / (5 · 2/3 ms) = 0.72 GFLOP/s (the kernels' speed `make bench` times
/// alone and two at once).
#[test]
fn the_kernels_speed_is_each_products_flops_over_its_time() {
    assert_eq!(
        products_gflops(&[60, 1000, 10], 8, &ticking_clock(), 1.0),
        0.72
    );
}

/// A clock that moves 1 ms each time it is read.
fn ticking_clock() -> impl Fn() -> f64 {
    let ticks = Cell::new(0.0);
    move || {
        ticks.set(ticks.get() + 1.0);
        ticks.get()
    }
}
