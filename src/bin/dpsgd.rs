//! `dpsgd`: the lab's core from the command line, for scripting, benchmarks and reproducing the
//! paper. Every command prints JSON; a bad argument exits with status 2 and one line on stderr
//! that names the argument and its valid range (a mistyped flag: the flag it resembles).
//!
//! ```text
//! dpsgd train     [run options]                      one JSON report per epoch
//! dpsgd coverage  [run options]                      what the run's ε would cover, untrained
//! dpsgd audit     --threat NAME [...] [run options]  a membership attack on the run
//!                 (--alice [ROW]: a real training example as the canary)
//! dpsgd epsilon   --q --sigma (--epochs|--steps) --delta           ε of the training steps
//! dpsgd sigma     --target-epsilon --q (--epochs|--steps) --delta  σ for a target ε
//! dpsgd bench     [--case NAME]                      benchmarks, one JSON line per case
//! dpsgd export-opacus --out DIR [--accountant NAME] [run options]  an Opacus script
//! ```
//!
//! `dpsgd --help` and `dpsgd COMMAND --help` list every option with its default and valid
//! range, and each named choice's possible values, read from its enum. The run options are
//! RunConfig's fields, each as `--field-name` (`--noise` for `data_noise`), with the defaults of
//! `RunConfig::default()` and the ranges of config/validate.rs (`--dataset`, `--sigma` ...), and
//! the data's (`--csv`, `--label` ...).
//!
//! `epsilon` and `sigma` account the training steps alone (their JSON says so in `accounts`): a
//! run's DP-PCA, private ranges and noisy counts are in `train`'s ε, not theirs.
//!
//! A file of one's own (`--csv`) is private data: the report defaults to the private level,
//! numeric columns are clipped to stated (`--bounds`) or privately estimated ranges, and the
//! seed is random unless given (a fixed seed prints a warning).

#[cfg(not(target_arch = "wasm32"))]
#[path = "dpsgd/accounting.rs"]
mod accounting;
#[cfg(not(target_arch = "wasm32"))]
#[path = "dpsgd/args.rs"]
mod args;
#[cfg(not(target_arch = "wasm32"))]
#[path = "dpsgd/cli.rs"]
mod cli;
#[cfg(not(target_arch = "wasm32"))]
#[path = "dpsgd/commands.rs"]
mod commands;
#[cfg(not(target_arch = "wasm32"))]
#[path = "dpsgd/data.rs"]
mod data;
#[cfg(not(target_arch = "wasm32"))]
#[path = "dpsgd/export.rs"]
mod export;
#[cfg(not(target_arch = "wasm32"))]
#[path = "dpsgd/options.rs"]
mod options;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    commands::run()
}

/// Built for wasm32 the command line is this empty `main`: cargo builds a package's binaries
/// for its integration tests, the browser tests (tests/web.rs) too, and there the whole CLI
/// was a second whole-program LTO link (29 s on one core, each wasm build) and clap compiled
/// for nothing.
#[cfg(target_arch = "wasm32")]
fn main() {}
