//! `make bench`'s ceiling (#55): how fast a private lot's part could go if it were only the
//! model's matrix products at the speed this build's kernel reaches on them, measured in the
//! same worker in the same run; beside it, where the part's time goes (its [`PartPhase`]s).
//! A ratio of the two means the same on any host, where an examples/s figure does not.
//!
//! Per example, Algorithm 1's "Compute gradient" and the clipped sum cost three products per
//! layer of widths i → o (2·i·o flops each): the forward sweep a·W, δ back through W (every
//! layer but the first) and the gradient's a·δᵀ, each as the model calls it (`model::mlp`).

use super::{training_case, TRAINING_CASES};
use crate::linalg::{matmul, matmul_panels, panels::ColumnPanels, panels_pay, KERNEL};
use crate::train::part::PartPhase;
use crate::train::Trainer;
use crate::Real;
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::collections::BTreeMap;

/// One model product's speed at the part's shape.
#[derive(Clone, Debug, Serialize)]
pub struct ProductLine {
    pub product: String,
    pub shape: String,
    pub gflops: f64,
}

/// The ceiling of one part of a lot, and its phases, on one worker.
#[derive(Clone, Debug, Serialize)]
pub struct CeilingLine {
    pub bench: &'static str,
    #[serde(rename = "impl")]
    pub implementation: String,
    pub model: String,
    pub kernel: &'static str,
    /// The part's mean size (part 0 of `workers`, as the training worker sums it).
    pub part_examples: f64,
    pub workers: usize,
    pub flops_per_example: f64,
    pub products: Vec<ProductLine>,
    /// All the products' flops over their time: the kernel's speed on this model.
    pub kernel_gflops: f64,
    /// Examples/s of one worker if a part cost only its products at `kernel_gflops`.
    pub ceiling_examples_per_sec: f64,
    /// Milliseconds per part of each [`PartPhase`], summed as the lot loop sums it.
    pub phases_ms: BTreeMap<&'static str, f64>,
    /// The products' share of those phases at the kernel's speed: the forward and backward
    /// products (in `forward_backward`) and the gradient's (in `gradient`).
    pub products_ms: BTreeMap<&'static str, f64>,
    /// Examples/s of the part alone (its phases only: no noise, exchange or step).
    pub part_examples_per_sec: f64,
    pub part_over_ceiling: f64,
}

/// The products of a part of `n` examples of the model with layer widths `sizes`, each timed
/// for about `budget_ms` (after one untimed call): (phase it belongs to, line, milliseconds).
fn products(
    sizes: &[usize],
    n: usize,
    now_ms: &dyn Fn() -> f64,
    budget_ms: f64,
) -> Vec<(&'static str, ProductLine, f64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut random = |r: usize, c: usize| Array2::<Real>::from_shape_fn((r, c), |_| rng.random());
    let mut out = Vec::new();
    let mut time = |phase: &'static str,
                    product: String,
                    shape: String,
                    flops: usize,
                    run: &mut dyn FnMut()| {
        run();
        let (start, mut reps) = (now_ms(), 0u32);
        while reps < 3 || now_ms() - start < budget_ms {
            run();
            reps += 1;
        }
        let ms = (now_ms() - start) / f64::from(reps);
        let gflops = round(flops as f64 / ms / 1e6, 1);
        out.push((
            phase,
            ProductLine {
                product,
                shape,
                gflops,
            },
            ms,
        ));
    };
    let layers = sizes.len() - 1;
    for (l, w) in sizes.windows(2).enumerate() {
        let (i, o) = (w[0], w[1]);
        let (a, weights, delta) = (random(n, i), random(i, o), random(n, o));
        let flops = 2 * n * i * o;
        let mut c = Array2::<Real>::zeros((n, o));
        time(
            "forward_backward",
            format!("forward {l}"),
            format!("{n}x{i}·{i}x{o}"),
            flops,
            &mut || matmul(&mut c.view_mut(), &a.view(), &weights.view(), false),
        );
        if l > 0 {
            let mut back = Array2::<Real>::zeros((n, i));
            let wt = weights.t();
            time(
                "forward_backward",
                format!("backward {l}"),
                format!("{n}x{o}·{o}x{i}"),
                flops,
                &mut || matmul(&mut back.view_mut(), &delta.view(), &wt, false),
            );
        }
        let mut g = Array2::<Real>::zeros((i, o));
        let shape = format!("{i}x{n}·{n}x{o}");
        if l == 0 && layers >= 2 && panels_pay(o) {
            // The first hidden layer's δ reaches the gradient in column panels (`first_delta`).
            let mut p = ColumnPanels::default();
            let ones = vec![1.0; n * o];
            p.relu_mask_from(delta.as_slice().expect("standard layout"), &ones, o, None);
            time(
                "gradient",
                format!("gradient {l}"),
                shape,
                flops,
                &mut || matmul_panels(&mut g.view_mut(), &a.t(), &p, true),
            );
        } else {
            time(
                "gradient",
                format!("gradient {l}"),
                shape,
                flops,
                &mut || matmul(&mut g.view_mut(), &a.t(), &delta.view(), true),
            );
        }
        std::hint::black_box((&c, &g));
    }
    out
}

/// The ceiling of part 0 of `k` of `trainer`'s lots (its model, lot size and split as its
/// run has them), and the phases of the part as [`Trainer::sum_own_part`] sums it, for about
/// `budget_ms` each. Draws lots from the trainer's stream without stepping: a bench's trainer.
pub fn lot_ceiling(
    implementation: &str,
    model: &str,
    trainer: &mut Trainer,
    k: usize,
    now_ms: &dyn Fn() -> f64,
    budget_ms: f64,
) -> CeilingLine {
    let mut phases_ms: BTreeMap<&'static str, f64> =
        PartPhase::ALL.iter().map(|p| (p.name(), 0.0)).collect();
    let (mut parts, mut examples) = (0u32, 0usize);
    let start = now_ms();
    while parts < 5 || now_ms() - start < budget_ms {
        trainer.draw_lot();
        examples += trainer.lot_part(0, k).len();
        let mut last = now_ms();
        trainer.sum_own_part_timed(0, k, &mut |phase| {
            let t = now_ms();
            *phases_ms.get_mut(phase.name()).expect("every phase") += t - last;
            last = t;
        });
        parts += 1;
    }
    let n = (examples as f64 / f64::from(parts)).round().max(1.0) as usize;
    let sizes = trainer.model().sizes().to_vec();
    let timed = products(&sizes, n, now_ms, budget_ms / 8.0);
    let flops: f64 = sizes
        .windows(2)
        .enumerate()
        .map(|(l, w)| (if l > 0 { 6 } else { 4 } * w[0] * w[1]) as f64)
        .sum();
    let mut products_ms = BTreeMap::new();
    for (phase, _, ms) in &timed {
        *products_ms.entry(*phase).or_insert(0.0) += ms;
    }
    let products_total: f64 = products_ms.values().sum();
    for ms in phases_ms.values_mut() {
        *ms /= f64::from(parts);
    }
    let part_ms: f64 = phases_ms.values().sum();
    let rounded =
        |m: BTreeMap<&'static str, f64>| m.into_iter().map(|(k, v)| (k, round(v, 3))).collect();
    let ceiling = n as f64 / products_total * 1e3;
    let part_rate = examples as f64 / f64::from(parts) / part_ms * 1e3;
    CeilingLine {
        bench: "ceiling",
        implementation: implementation.into(),
        model: model.into(),
        kernel: KERNEL,
        part_examples: round(examples as f64 / f64::from(parts), 1),
        workers: k,
        flops_per_example: flops,
        kernel_gflops: round(flops * n as f64 / products_total / 1e6, 1),
        ceiling_examples_per_sec: ceiling.round(),
        products: timed.into_iter().map(|(_, line, _)| line).collect(),
        phases_ms: rounded(phases_ms),
        products_ms: rounded(products_ms),
        part_examples_per_sec: part_rate.round(),
        part_over_ceiling: round(part_rate / ceiling, 3),
    }
}

/// The kernel's speed (GFLOP/s) on the products of a part of `n` examples of the model with
/// layer widths `sizes`, timed for about `budget_ms` in all: what [`lot_ceiling`] measures
/// after the lot loop, on its own. `make bench` times it in one worker alone and in two at
/// once, so that the ceiling of k = 2 can be read against what the cores' kernels reach when
/// both run (shared caches and memory; on a VM, whatever the host runs beside).
pub fn products_gflops(sizes: &[usize], n: usize, now_ms: &dyn Fn() -> f64, budget_ms: f64) -> f64 {
    let n = n.max(1);
    let budget = budget_ms / (3 * (sizes.len() - 1)) as f64;
    let timed = products(sizes, n, now_ms, budget.max(1.0));
    let flops: f64 = sizes
        .windows(2)
        .enumerate()
        .map(|(l, w)| (if l > 0 { 6 } else { 4 } * w[0] * w[1] * n) as f64)
        .sum();
    let ms: f64 = timed.iter().map(|(_, _, ms)| ms).sum();
    round(flops / ms / 1e6, 2)
}

/// `x` to `digits` decimals (the bench's JSON is read by people).
fn round(x: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (x * scale).round() / scale
}

/// [`lot_ceiling`] of each private training case (`bench::TRAINING_CASES`) on one worker:
/// `dpsgd bench --case ceiling`, natively.
pub fn ceilings(
    implementation: &str,
    now_ms: &dyn Fn() -> f64,
    budget_ms: f64,
) -> Vec<CeilingLine> {
    TRAINING_CASES
        .iter()
        .map(|name| {
            let (cfg, data) = training_case(name, true).expect("a listed case");
            let mut t = Trainer::new(cfg, data).expect("bench config is valid");
            lot_ceiling(implementation, name, &mut t, 1, now_ms, budget_ms)
        })
        .collect()
}
