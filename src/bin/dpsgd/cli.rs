//! `dpsgd`'s command line as clap reads it: one struct per command, and the parse that turns
//! whatever clap refuses into one line on stderr with status 2 (`--help` and `--version`
//! excepted: they print on stdout with status 0).

use crate::accounting::{EpsilonArgs, SigmaArgs};
use crate::args::{choice, choice_help, fail, read, refuse, Given};
use crate::data::DataOptions;
use crate::options::RunOptions;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use dpsgd_lab::audit::{Threat, MAX_CANARIES, MAX_RUNS};
use dpsgd_lab::config::names_of;
use dpsgd_lab::text::shown;
use serde::Serialize;
use strum::EnumIter;

/// Runs per side, and one-run canaries, when not given.
pub const DEFAULT_RUNS: usize = 200;
pub const DEFAULT_CANARIES: usize = 1000;

/// DP-SGD (Abadi et al. 2016) training and privacy accounting. Every command prints JSON; a
/// bad argument exits with status 2 and one line on stderr.
#[derive(Parser, Debug)]
#[command(name = "dpsgd", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Train with DP-SGD: one JSON report per epoch
    Train(RunArgs),
    /// What the run's ε would cover and what it would not, without training
    Coverage(RunArgs),
    /// ε of T sampled Gaussian steps by every accountant (the training steps alone)
    Epsilon(EpsilonArgs),
    /// The least σ keeping the training steps within a target ε
    Sigma(SigmaArgs),
    /// A membership attack against the run the options describe
    Audit(AuditArgs),
    /// Benchmarks: one JSON line per case
    Bench(BenchArgs),
    /// The run as a self-contained Opacus script, with its data, written into --out
    ExportOpacus(crate::export::ExportArgs),
}

/// The options of a run: RunConfig's fields and the data's.
#[derive(clap::Args, Clone, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub run: RunOptions,
    #[command(flatten)]
    pub data: DataOptions,
}

/// `dpsgd audit`'s options, and the run it audits.
#[derive(clap::Args, Clone, Debug)]
pub struct AuditArgs {
    #[arg(
        long,
        value_name = "NAME",
        help = format!("The attack (required) [possible values: {}]", names_of::<Threat>().join(", "))
    )]
    pub threat: Option<String>,
    #[arg(
        long,
        value_name = "R",
        value_parser = read::<usize>("a whole number of runs per side"),
        help = format!("Runs with the canary, and as many without \
                        [default: {DEFAULT_RUNS}] [range: 2 to {MAX_RUNS}]")
    )]
    pub runs: Option<Given<usize>>,
    /// Adds the one-run audit: m canaries in one run
    #[arg(long)]
    pub one_run: bool,
    #[arg(
        long,
        value_name = "M",
        value_parser = read::<usize>("a whole number"),
        help = format!("Canaries of the one-run audit, with --one-run \
                        [default: {DEFAULT_CANARIES}] [range: 2 to {MAX_CANARIES}]")
    )]
    pub canaries: Option<Given<usize>>,
    /// The canary is a real training example, "Alice": ROW (0-based), or the lab's pick without
    /// one (the largest loss under a non-private model), as --alice=ROW or --alice; realistic threat only
    #[arg(long, value_name = "ROW", num_args = 0..=1, require_equals = true, default_missing_value = "pick")]
    pub alice: Option<String>,
    /// Seed of the audit's runs [default: --seed, else random]
    #[arg(long, value_name = "N", value_parser = read::<u64>("a whole number"))]
    pub audit_seed: Option<Given<u64>>,
    #[command(flatten)]
    pub options: RunArgs,
}

/// `dpsgd bench`'s options.
#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    #[arg(long, value_name = "NAME", help = choice_help("Which benchmarks", BenchCase::All))]
    pub case: Option<String>,
}

/// Which benchmarks `dpsgd bench` runs (`--case`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, EnumIter)]
#[serde(rename_all = "kebab-case")]
pub enum BenchCase {
    All,
    Training,
    Accountants,
    Kernels,
    Ceiling,
}

impl BenchArgs {
    /// Whether `--case` asks for the benchmarks of `case`.
    pub fn runs(&self, case: BenchCase) -> bool {
        let chosen = choice("case", self.case.as_deref(), BenchCase::All);
        chosen == BenchCase::All || chosen == case
    }
}

/// The command line, or the exit clap's refusal calls for. Every option that takes a value
/// takes the next argument whatever it is (`--sigma -1` is σ = -1, refused by our check).
pub fn parse() -> Command {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Every option is text: an argument that is not UTF-8 (a file name in Latin-1, say) is
    // named, as far as it can be shown, rather than clap's "one or more arguments".
    if let Some((i, bad)) = argv
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, a)| a.to_str().is_none())
    {
        fail(format!(
            "argument {i}, '{}', is not UTF-8 text (the lab reads its options, file names \
             included, as UTF-8: rename the file or retype the value)",
            shown(&bad.to_string_lossy())
        ));
    }
    let cmd = Cli::command().mut_subcommands(|sub| {
        sub.mut_args(|a| {
            let takes = a.get_action().takes_values();
            a.allow_hyphen_values(takes)
        })
    });
    let named = argv
        .get(1)
        .and_then(|c| c.to_str())
        .filter(|c| cmd.find_subcommand(c).is_some())
        .map(String::from);
    cmd.try_get_matches_from(&argv)
        .and_then(|m| Cli::from_arg_matches(&m))
        .map(|cli| cli.command)
        .unwrap_or_else(|e| refuse(e, named.as_deref()))
}
