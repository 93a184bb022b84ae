//! DP-SGD training on the shipped Adult data: the private step against an independent
//! computation, the non-private accuracy bar, reproducibility, and the golden run that the
//! browser test (tests/web.rs) must reproduce in wasm.
//!
//! One module per concern, under tests/training/: the step, the golden runs (and what must not
//! change them), the run's settings, the privacy budget, and a student's small file.

mod common;
#[path = "common/golden.rs"]
mod golden;
#[path = "common/noise_rng.rs"]
mod noise_rng;

#[path = "training/bench_phases.rs"]
mod bench_phases;
#[path = "training/budget.rs"]
mod budget;
#[path = "training/golden_runs.rs"]
mod golden_runs;
#[path = "training/settings.rs"]
mod settings;
#[path = "training/small_files.rs"]
mod small_files;
#[path = "training/step.rs"]
mod step;
