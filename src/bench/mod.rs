//! Benchmarks shared by the native CLI (`dpsgd bench`) and the browser (the wasm facade), so
//! the two measure the same code. The clock is passed in: `Instant` natively,
//! `performance.now()` in the browser. Each case is one JSON line.

pub mod ceiling;

use crate::config::{Mode, ModelKind, RunConfig};
use crate::data::{Dataset, Split};
use crate::privacy::accountant::mechanism::{Mechanism, Release, ReleaseKind};
use crate::privacy::accountant::pld_accountant::PldAccountant;
use crate::privacy::accountant::AccountantName;
use crate::privacy::accountant::{compose, Accountant, Amplification};
use crate::train::Trainer;
use crate::Real;
use ndarray::Array2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::sync::Arc;

/// One benchmark figure.
#[derive(Clone, Debug, Serialize)]
pub struct BenchLine {
    #[serde(rename = "impl")]
    pub implementation: String,
    pub case: String,
    pub what: String,
    pub ms: f64,
    /// The last value computed (so the work cannot be optimised away, and for a sanity check).
    pub value: f64,
}

/// Time to compute the ε-versus-epoch curve for epochs 1..=400 of the paper's setting
/// (q = 0.01, σ = 4, 100 steps per epoch, δ = 1e-5), per accountant.
pub fn accountant_curves(implementation: &str, now_ms: &dyn Fn() -> f64) -> Vec<BenchLine> {
    let mech = Mechanism {
        before: Vec::new(),
        step: Release {
            what: ReleaseKind::Training,
            q: 0.01,
            sigma: 4.0,
        },
        per_epoch: Vec::new(),
        steps_per_epoch: 100,
        epochs: 400,
    };
    let delta = 1e-5;
    let mut lines = Vec::new();
    // The best of three runs (the first also pays for warm-up, e.g. wasm tier-up).
    let mut time = |what: &str, f: &dyn Fn() -> f64| {
        let (mut best, mut value) = (f64::INFINITY, 0.0);
        for _ in 0..3 {
            let t0 = now_ms();
            value = f();
            best = best.min(now_ms() - t0);
        }
        lines.push(BenchLine {
            implementation: implementation.into(),
            case: "epsilon_curve_400_epochs".into(),
            what: what.into(),
            ms: best,
            value,
        });
    };
    let last = |v: Vec<f64>| *v.last().expect("400 epochs");
    for acc in [
        Accountant::of(AccountantName::Naive, Amplification::Rigorous),
        Accountant::of(AccountantName::Strong, Amplification::Rigorous),
        Accountant::named(AccountantName::Moments),
        Accountant::named(AccountantName::Rdp),
    ] {
        time(acc.name(), &|| {
            last(compose::curve(acc, &mech, delta).expect("valid"))
        });
    }
    for (what, h) in [("pld_h1e-3", 1e-3), ("pld_h1e-4", 1e-4)] {
        time(what, &|| {
            let mut ledger = PldAccountant::with_interval(h, &mech.after_epochs(mech.epochs));
            last(compose::curve_of(&mut ledger, &mech, delta).expect("valid"))
        });
    }
    lines
}

/// One training-throughput figure.
#[derive(Clone, Debug, Serialize)]
pub struct TrainLine {
    #[serde(rename = "impl")]
    pub implementation: String,
    pub model: String,
    pub private: bool,
    pub examples_per_sec: f64,
}

/// A fixed synthetic MNIST-shaped data set: `n` examples of `d` pixel-like features in [0, 1)
/// and 10 classes given by a random linear teacher (so there is something to learn).
pub fn synthetic(n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let teacher = Array2::<Real>::from_shape_fn((d, 10), |_| rng.random_range(-1.0..1.0));
    let mut split = |rows: usize| {
        let x = Array2::<Real>::from_shape_fn((rows, d), |_| rng.random::<Real>());
        let scores = x.dot(&teacher);
        let y = scores.rows().into_iter().map(|r| {
            r.iter()
                .enumerate()
                .fold(
                    (0, Real::NEG_INFINITY),
                    |b, (k, &v)| if v > b.1 { (k, v) } else { b },
                )
                .0
        });
        Split { y: y.collect(), x }
    };
    let train = split(n);
    let test = split(100);
    Dataset {
        name: format!("synthetic-{d}"),
        feature_names: (0..d).map(|j| format!("x{j}")).collect(),
        class_names: (0..10).map(|k| k.to_string()).collect(),
        train,
        test: Arc::new(test),
        private: false,
        releases: Vec::new(),
    }
}

/// Training throughput, single thread, lots of 600 (one batch each), private (σ = 1, C = 1)
/// and non-private, for logistic 784→10, MLP 60→1000→10 and MLP 784→128→10. Each case runs
/// lots for about `budget_ms` after two warm-up lots.
pub fn training(implementation: &str, now_ms: &dyn Fn() -> f64, budget_ms: f64) -> Vec<TrainLine> {
    let mut lines = Vec::new();
    for name in TRAINING_CASES {
        for private in [true, false] {
            let (cfg, data) = training_case(name, private).expect("a listed case");
            let mut t = Trainer::new(cfg, data).expect("bench config is valid");
            t.step();
            t.step();
            let (start, seen) = (now_ms(), t.examples_seen());
            let mut lots = 0;
            while lots < 3 || now_ms() - start < budget_ms {
                t.step();
                lots += 1;
            }
            let secs = (now_ms() - start) / 1e3;
            lines.push(TrainLine {
                implementation: implementation.into(),
                model: name.into(),
                private,
                examples_per_sec: (t.examples_seen() - seen) as f64 / secs,
            });
        }
    }
    lines
}

/// The models of the training benchmark (input-hidden-classes).
pub const TRAINING_CASES: [&str; 3] = ["logistic 784-10", "mlp 60-1000-10", "mlp 784-128-10"];

/// A training benchmark's run: `name` (one of [`TRAINING_CASES`]) on 6,000 synthetic examples,
/// lots of 600 summed in one batch, private (σ = 1, C = 1) or not.
pub fn training_case(name: &str, private: bool) -> Option<(RunConfig, Arc<Dataset>)> {
    let (d, hidden) = match name {
        "logistic 784-10" => (784, vec![]),
        "mlp 60-1000-10" => (60, vec![1000]),
        "mlp 784-128-10" => (784, vec![128]),
        _ => return None,
    };
    let cfg = RunConfig {
        model: if hidden.is_empty() {
            ModelKind::Logistic
        } else {
            ModelKind::Mlp
        },
        hidden: if hidden.is_empty() { vec![128] } else { hidden },
        mode: if private { Mode::Dp } else { Mode::NonPrivate },
        lot_size: 600,
        batch_size: 600,
        lr: 0.05,
        sigma: 1.0,
        clip: 1.0,
        seed: Some(1),
        ..RunConfig::default()
    };
    Some((cfg, Arc::new(synthetic(6000, d, 1))))
}

/// One matrix-product figure: the kernel that dominates training, alone.
#[derive(Clone, Debug, Serialize)]
pub struct KernelLine {
    #[serde(rename = "impl")]
    pub implementation: String,
    pub kernel: String,
    /// The matrix-product code measured (`linalg::KERNEL`, or gemm as the baseline).
    pub backend: String,
    /// m×k · k×n.
    pub shape: String,
    pub gflops: f64,
}

/// The three matrix products of one lot of 600 on the MLP 60→1000→10 (forward into the hidden
/// layer, back-propagation through the output layer, the hidden layer's gradient Xᵀ·Δ), each
/// repeated for about `budget_ms`: the ceiling training cannot beat, natively and in wasm. In
/// a build whose kernel is not gemm's (relaxed SIMD), gemm is measured too, in the same run,
/// as the baseline. The gradient reads Δ as the model gives it to each kernel: in column
/// panels to the fused one (`linalg::panels_pay`), row-major to gemm (and, for comparison, to
/// the fused one too); a fourth line times the whole chain that makes and uses Δ — the backward
/// product, the ReLU sweep (which writes the panels, and each row's Σδ² as private training
/// asks) and the gradient — so what the layout saves is measured with what it costs.
pub fn kernels(implementation: &str, now_ms: &dyn Fn() -> f64, budget_ms: f64) -> Vec<KernelLine> {
    use crate::linalg::{
        gemm_matmul, matmul, matmul_panels, panels::ColumnPanels, panels_pay,
        relu_mask_sum_squares, KERNEL,
    };
    type Product = fn(
        &mut ndarray::ArrayViewMut2<Real>,
        &ndarray::ArrayView2<Real>,
        &ndarray::ArrayView2<Real>,
        bool,
    );
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut random = |r: usize, c: usize| Array2::<Real>::from_shape_fn((r, c), |_| rng.random());
    let (x, w0, d1, w1t) = (
        random(600, 60),
        random(60, 1000),
        random(600, 10),
        random(10, 1000),
    );
    let d0 = random(600, 1000);
    let a0 = random(600, 1000) - 0.5; // hidden activations: about half masked
    let gemm = if cfg!(target_arch = "wasm32") {
        "gemm simd128"
    } else {
        "gemm"
    };
    let fused = !KERNEL.starts_with("gemm");
    let mut lines = Vec::new();
    // Repeats `run` for about `budget_ms` (after one untimed call); `flops` per repetition.
    let mut time =
        |kernel: &str, backend: &str, shape: String, flops: usize, run: &mut dyn FnMut(bool)| {
            run(false);
            let (start, mut reps) = (now_ms(), 0u64);
            while reps < 3 || now_ms() - start < budget_ms {
                run(true);
                reps += 1;
            }
            let secs = (now_ms() - start) / 1e3;
            lines.push(KernelLine {
                implementation: implementation.into(),
                kernel: kernel.into(),
                backend: backend.into(),
                shape,
                gflops: flops as f64 * reps as f64 / secs / 1e9,
            });
        };
    let shape_of = |a: &ndarray::ArrayView2<Real>, b: &ndarray::ArrayView2<Real>| {
        let (m, k, n) = (a.nrows(), a.ncols(), b.ncols());
        (format!("{m}x{k}·{k}x{n}"), 2 * m * k * n)
    };
    let (xt, d) = (x.t(), d0.view());
    // Where the model gives the fused kernel Δ in panels, the gradient is also measured with
    // Δ row-major, under this name.
    let panels = panels_pay(d.ncols());
    let row_major = format!("{KERNEL}, Δ row-major");
    let cases = [
        ("forward X·W", x.view(), w0.view()),
        ("backward Δ·Wᵀ", d1.view(), w1t.view()),
        ("gradient Xᵀ·Δ", xt, d),
    ];
    for (kernel, a, b) in cases {
        let (shape, flops) = shape_of(&a, &b);
        let mut c = Array2::<Real>::zeros((a.nrows(), b.ncols()));
        let gradient = kernel.starts_with("gradient");
        let mut backends: Vec<(&str, Product)> = vec![(KERNEL, matmul)];
        if panels && gradient {
            backends[0].0 = &row_major;
        }
        if fused {
            backends.push((gemm, gemm_matmul));
        }
        // Each product as the model calls it: the forward and backward ones write C, the
        // gradient adds into the lot's sum (after the untimed first call). Adding into the
        // forward's C (600 × 1000, read back from L3 a few rows at a time) measured 47–49
        // GFLOP/s against 54–56 writing it, on the relaxed kernel; gemm's ~32 either way.
        for (backend, product) in backends {
            time(kernel, backend, shape.clone(), flops, &mut |acc| {
                product(&mut c.view_mut(), &a, &b, acc && gradient)
            });
        }
        if panels && gradient {
            let mut p = ColumnPanels::default();
            let ones = vec![1.0; d.len()];
            p.relu_mask_from(
                d.as_slice().expect("standard layout"),
                &ones,
                d.ncols(),
                None,
            );
            time(kernel, KERNEL, shape, flops, &mut |acc| {
                matmul_panels(&mut c.view_mut(), &xt, &p, acc)
            });
        }
    }
    // The chain private training runs for the hidden layer: Δ = (δ·Wᵀ) ⊙ 1[a > 0] with each
    // row's Σδ² (for the norms), then the gradient Xᵀ·Δ; the fused kernel's Δ in panels,
    // written by the sweep, or row-major, masked in place. GFLOP/s of both products.
    let kernel = "backward Δ·Wᵀ + ReLU sweep with norms + gradient Xᵀ·Δ";
    let ((shape, gradient_flops), (_, backward_flops)) =
        (shape_of(&xt, &d), shape_of(&d1.view(), &w1t.view()));
    let flops = gradient_flops + backward_flops;
    let a_rows = a0.as_slice().expect("standard layout");
    let (mut delta, mut sums) = (Array2::<Real>::zeros(d.dim()), Vec::new());
    let mut c = Array2::<Real>::zeros((xt.nrows(), d.ncols()));
    if panels {
        let mut p = ColumnPanels::default();
        time(kernel, KERNEL, shape.clone(), flops, &mut |acc| {
            matmul(&mut delta.view_mut(), &d1.view(), &w1t.view(), false);
            sums.clear();
            let rows = delta.as_slice().expect("standard layout");
            p.relu_mask_from(rows, a_rows, d.ncols(), Some(&mut sums));
            matmul_panels(&mut c.view_mut(), &xt, &p, acc)
        });
    }
    let mut in_place: Vec<(&str, Product)> =
        vec![(if panels { &row_major } else { KERNEL }, matmul)];
    if fused {
        in_place.push((gemm, gemm_matmul));
    }
    for (backend, product) in in_place {
        time(kernel, backend, shape.clone(), flops, &mut |acc| {
            product(&mut delta.view_mut(), &d1.view(), &w1t.view(), false);
            sums.clear();
            let rows = delta.as_slice_mut().expect("standard layout");
            for (dr, ar) in rows
                .chunks_exact_mut(d.ncols())
                .zip(a_rows.chunks_exact(d.ncols()))
            {
                sums.push(relu_mask_sum_squares(dr, ar));
            }
            product(&mut c.view_mut(), &xt, &delta.view(), acc)
        });
    }
    std::hint::black_box((&c, &sums));
    lines
}
