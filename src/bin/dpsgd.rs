//! `dpsgd`: the lab's core from the command line, for scripting, benchmarks and reproducing the
//! paper. Every command prints JSON; bad arguments exit with status 2 and one line that names
//! the argument and its valid range.
//!
//! ```text
//! dpsgd train   [--dataset adult|mnist|breast-cancer|blobs|circle|xor|spiral [--noise 0.1]]
//!               [--csv PATH --label COLUMN [--test-csv PATH] [--scale bounds|standard|none]
//!                [--bounds age=17:90,...] [--bounds-noise 5]]
//!               [--sigma S] [--clip C] [--lot-size L] [--lr η] [--epochs E]
//!               [--delta δ] [--seed N] [--batch-size B] [--model logistic|mlp] [--hidden 1000]
//!               [--clipping flat|per-layer] [--layer-clips 2,2] [--lr-end η] [--lr-decay-epochs K]
//!               [--mode dp|non-private|clip-only|noise-only] [--sampling poisson|shuffle]
//!               [--report private|teaching] [--amplification rigorous|classical|paper]
//!               [--clip-quantile γ [--clip-lr η_C]] [--count-noise σ_b] [--eval-noise σ_e]
//!               [--budget-epsilon ε [--budget-accountant moments|rdp|pld|strong|naive]]
//! dpsgd epsilon --q Q --sigma S (--epochs E | --steps T) --delta δ [--amplification rigorous|classical|paper]
//! dpsgd sigma   --target-epsilon ε --delta δ --q Q (--epochs E | --steps T) [--accountant moments]
//!               [--amplification rigorous|classical|paper]
//! dpsgd audit   --threat worst-case|realistic [--runs R] [--one-run --canaries m]
//!               [--audit-seed N] <the train options>
//! dpsgd bench   [--case all|training|accountants|kernels]
//! ```
//!
//! `epsilon` and `sigma` account the training steps alone (their JSON says so in `accounts`): a
//! run's DP-PCA, private ranges and noisy counts are in `train`'s ε, not theirs.
//!
//! A file of one's own (`--csv`) is private data: the report defaults to the private level,
//! numeric columns are clipped to stated (`--bounds`) or privately estimated ranges, and the
//! seed is random unless given (a fixed seed prints a warning).

#[path = "dpsgd/accounting.rs"]
mod accounting;
#[path = "dpsgd/args.rs"]
mod args;

use args::{fail, one_line, read_file, shown_path, Args, USAGE};
use dpsgd_lab::audit::{summarize, AuditPlan, AuditSpec, Threat};
use dpsgd_lab::config::{ReleaseLevel, RunConfig};
use dpsgd_lab::data::bounds::{parse_stated, DEFAULT_BOUNDS_NOISE};
use dpsgd_lab::data::builtin::{builtin_files, load_builtin, not_shipped_note};
use dpsgd_lab::data::csv::{parse_csv_pair, shown};
use dpsgd_lab::data::split::{
    check_rows, dataset_from_tables, private_dataset, PrivatePrep, Scale,
};
use dpsgd_lab::data::Dataset;
use dpsgd_lab::train::Trainer;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use std::sync::Arc;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = argv.split_first() else {
        fail(USAGE)
    };
    match cmd.as_str() {
        "train" => train(rest),
        "epsilon" => accounting::epsilon(rest),
        "sigma" => accounting::sigma(rest),
        "audit" => audit(rest),
        "bench" => bench(rest),
        "-h" | "--help" | "help" => println!("{USAGE}"),
        other => fail(format!("unknown command '{}'; {USAGE}", shown(other))),
    }
}

fn data_dir(a: &Args) -> PathBuf {
    if let Some(d) = a.0.get("data-dir") {
        return PathBuf::from(d);
    }
    let local = PathBuf::from("www/data");
    if local.is_dir() {
        local
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("www/data")
    }
}

/// The `train` options are RunConfig's own fields, each as `--field-name` (`--noise` for
/// `data_noise`), the value read by the JSON type of its default — so every setting of the page
/// and the config is a flag, under one name, with one set of checks.
fn flag_of(field: &str) -> String {
    if field == "data_noise" {
        "noise".into()
    } else {
        field.replace('_', "-")
    }
}

/// Optional fields whose value is a list (their default, null, does not say so).
const LIST_FIELDS: [&str; 1] = ["layer_clips"];

/// (flag, field, default) of every RunConfig field.
fn config_options() -> Vec<(String, String, serde_json::Value)> {
    let defaults = serde_json::to_value(RunConfig::default()).expect("RunConfig serialises");
    let fields = defaults
        .as_object()
        .expect("RunConfig is an object")
        .clone();
    fields
        .into_iter()
        .map(|(field, default)| (flag_of(&field), field, default))
        .collect()
}

/// Builds the run's configuration from the flags through RunConfig's own JSON form, so the
/// CLI, the page and the tests share one set of names, defaults and checks.
fn train_config(a: &Args) -> RunConfig {
    let options = config_options();
    let mut obj = serde_json::Map::new();
    for (flag, field, default) in &options {
        let Some(v) = a.0.get(flag.as_str()) else {
            continue;
        };
        let number = |t: &str| -> serde_json::Value {
            serde_json::from_str::<serde_json::Number>(t.trim())
                .map(serde_json::Value::Number)
                .unwrap_or_else(|_| fail(format!("--{flag} = '{}' is not a number", shown(v))))
        };
        let value = match default {
            serde_json::Value::String(_) => serde_json::Value::String(v.clone()),
            serde_json::Value::Array(_) => {
                serde_json::Value::Array(v.split(',').map(number).collect())
            }
            _ if LIST_FIELDS.contains(&field.as_str()) => {
                serde_json::Value::Array(v.split(',').map(number).collect())
            }
            _ => number(v),
        };
        obj.insert(field.clone(), value);
    }
    // A file of one's own is private data: the private release level unless asked otherwise.
    if a.0.contains_key("csv") && !obj.contains_key("report") {
        obj.insert("report".into(), "private".into());
    }
    let json = serde_json::Value::Object(obj).to_string();
    RunConfig::from_json(&json)
        .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)))
}

/// The options of `train` (and of the run `audit` audits).
const DATA_FLAGS: [&str; 7] = [
    "data-dir",
    "csv",
    "test-csv",
    "label",
    "scale",
    "bounds",
    "bounds-noise",
];

fn train(raw: &[String]) {
    let flags: Vec<String> = config_options().into_iter().map(|o| o.0).collect();
    let mut allowed: Vec<&str> = flags.iter().map(String::as_str).collect();
    allowed.extend(DATA_FLAGS);
    let a = Args::parse(raw, &allowed);
    let cfg = train_config(&a);
    let data = Arc::new(load_data(&a, &cfg));
    let mut trainer = Trainer::new(cfg, data)
        .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)));
    // Standardising one's own data fits it without noise: everything after it is outside ε.
    let standardised =
        a.0.contains_key("csv") && a.0.get("scale").map(String::as_str) == Some("standard");
    while let Some(mut report) = trainer.run_epoch() {
        if standardised {
            report.notes.push(
                "--scale standard fitted the mean and spread of your data without noise: ε does not cover this run".into(),
            );
        }
        println!(
            "{}",
            serde_json::to_string(&report).expect("report serialises")
        );
        if let Some(why) = &report.divergence {
            eprintln!("dpsgd: {}", one_line(why));
            std::process::exit(1); // the run failed, not the command line (status 2)
        }
    }
}

/// The training data: a CSV of one's own (`--csv`, `--label`, optional `--test-csv` and
/// `--scale`) or a built-in set (`--dataset`, files under `--data-dir`, default www/data).
fn load_data(a: &Args, cfg: &RunConfig) -> Dataset {
    if let Some(path) = a.0.get("csv") {
        if a.0.contains_key("dataset") {
            fail("give --dataset or --csv, not both");
        }
        let label =
            a.0.get("label")
                .unwrap_or_else(|| fail("--csv needs --label COLUMN (the class column)"));
        let at = shown_path(path);
        let test_bytes = a.0.get("test-csv").map(|p| read_file(p, "test-csv"));
        let (train, test) = parse_csv_pair(&read_file(path, "csv"), test_bytes.as_deref(), label)
            .unwrap_or_else(|e| fail(format!("{at}: {e}")));
        if cfg.seed.is_some() {
            eprintln!(
                "dpsgd: warning: --seed makes the run's noise reproducible; anyone who knows the \
                 seed can subtract it. Leave it out for a private run of your own data."
            );
        }
        let mut rng = match cfg.seed {
            Some(seed) => ChaCha8Rng::seed_from_u64(seed ^ 0xda7a_da7a),
            None => ChaCha8Rng::from_os_rng(),
        };
        let private = cfg.report == ReleaseLevel::Private;
        return match a.0.get("scale").map(String::as_str) {
            None | Some("bounds") => {
                let prep = PrivatePrep {
                    stated: a
                        .0
                        .get("bounds")
                        .map(|b| parse_stated(b).unwrap_or_else(|e| fail(format!("--bounds: {e}"))))
                        .unwrap_or_default(),
                    bounds_noise: a
                        .get("bounds-noise", "a positive number")
                        .unwrap_or(DEFAULT_BOUNDS_NOISE),
                    ..PrivatePrep::default()
                };
                private_dataset(path, train, test, &prep, &mut rng)
                    .unwrap_or_else(|e| fail(format!("{at}: {e}")))
            }
            Some(other @ ("standard" | "none")) => {
                for flag in ["bounds", "bounds-noise"] {
                    if a.0.contains_key(flag) {
                        fail(format!("--{flag} goes with --scale bounds"));
                    }
                }
                if other == "none" {
                    let prep = PrivatePrep {
                        scale: false,
                        ..PrivatePrep::default()
                    };
                    return private_dataset(path, train, test, &prep, &mut rng)
                        .unwrap_or_else(|e| fail(format!("{at}: {e}")));
                }
                if private {
                    fail("--scale standard fits the mean and spread of your data without noise, \
                          which ε does not cover; use --scale bounds (the default) or --report teaching");
                }
                let rows = train.y.len();
                let mut d = dataset_from_tables(path, train, test, Scale::Standard, rand::random());
                check_rows(rows, d.train.len(), d.test.len())
                    .unwrap_or_else(|e| fail(format!("{at}: {e}")));
                eprintln!(
                    "dpsgd: warning: --scale standard fits your data's mean and spread without \
                     noise; ε does not cover it"
                );
                d.private = true;
                d
            }
            Some(o) => fail(format!(
                "--scale = '{}' must be bounds, standard or none",
                shown(o)
            )),
        };
    }
    for flag in ["label", "test-csv", "scale", "bounds", "bounds-noise"] {
        if a.0.contains_key(flag) {
            fail(format!("--{flag} goes with --csv"));
        }
    }
    let name = cfg.dataset.as_str();
    let files: Vec<Vec<u8>> = builtin_files(name)
        .iter()
        .map(|file| {
            let path = data_dir(a).join(file);
            if !path.exists() && !not_shipped_note(name).is_empty() {
                fail(format!(
                    "--dataset {name}: {} is missing. {}",
                    shown_path(&path.to_string_lossy()),
                    not_shipped_note(name)
                ));
            }
            read_file(&path.to_string_lossy(), "data-dir")
        })
        .collect();
    let files: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
    load_builtin(name, &files, cfg.seed.unwrap_or(0), cfg.data_noise).unwrap_or_else(|e| fail(e))
}

/// `dpsgd audit`: a membership attack against the run the train options describe (R runs
/// with the canary, R without; `--one-run` adds the one-run audit with m canaries), printed as
/// one JSON object.
fn audit(raw: &[String]) {
    // `--one-run` is a switch: give it a value so the pairs parse.
    let mut raw: Vec<String> = raw.to_vec();
    let one_run = raw.iter().position(|f| f == "--one-run").map(|i| {
        raw.remove(i);
    });
    let flags: Vec<String> = config_options().into_iter().map(|o| o.0).collect();
    let mut allowed: Vec<&str> = flags.iter().map(String::as_str).collect();
    allowed.extend(DATA_FLAGS);
    allowed.extend(["threat", "runs", "canaries", "audit-seed"]);
    let a = Args::parse(&raw, &allowed);
    let threat = match a.0.get("threat").map(String::as_str) {
        Some("worst-case") => Threat::WorstCase,
        Some("realistic") => Threat::Realistic,
        Some(o) => fail(format!(
            "--threat = '{}' must be worst-case or realistic",
            shown(o)
        )),
        None => fail("--threat is required (worst-case or realistic)"),
    };
    let runs: usize = a
        .get("runs", "a whole number of runs per side")
        .unwrap_or(DEFAULT_RUNS);
    let canaries: usize = match (
        one_run.is_some(),
        a.get::<usize>("canaries", "a whole number"),
    ) {
        (true, c) => c.unwrap_or(DEFAULT_CANARIES),
        (false, Some(_)) => fail("--canaries goes with --one-run"),
        (false, None) => 0,
    };
    let cfg = train_config(&a);
    let seed = a
        .get("audit-seed", "a whole number")
        .or(cfg.seed)
        .unwrap_or_else(rand::random);
    let data = Arc::new(load_data(&a, &cfg));
    let spec = AuditSpec {
        threat,
        runs,
        canaries,
        seed,
        fault: Default::default(),
    };
    let plan = AuditPlan::new(cfg, data, spec)
        .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)));
    let runs = plan
        .run_all(&mut |_, _| {})
        .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)));
    let result = summarize(&plan, &runs);
    println!(
        "{}",
        serde_json::to_string(&result).expect("audit result serialises")
    );
}

/// Runs per side, and one-run canaries, when not given.
const DEFAULT_RUNS: usize = 200;
const DEFAULT_CANARIES: usize = 1000;

fn bench(raw: &[String]) {
    let a = Args::parse(raw, &["case"]);
    let start = std::time::Instant::now();
    let now = move || start.elapsed().as_secs_f64() * 1e3;
    let case = a.0.get("case").map_or("all", String::as_str);
    if !["all", "training", "accountants", "kernels"].contains(&case) {
        fail(format!(
            "--case = '{}' must be all, training, accountants or kernels",
            shown(case)
        ));
    }
    if case == "all" || case == "kernels" {
        for l in dpsgd_lab::bench::kernels("native", &now, 300.0) {
            println!(
                "{}",
                serde_json::to_string(&l).expect("bench line serialises")
            );
        }
    }
    if case == "all" || case == "training" {
        for l in dpsgd_lab::bench::training("native", &now, 1000.0) {
            println!(
                "{}",
                serde_json::to_string(&l).expect("bench line serialises")
            );
        }
    }
    if case == "all" || case == "accountants" {
        for l in dpsgd_lab::bench::accountant_curves("native", &now) {
            println!(
                "{}",
                serde_json::to_string(&l).expect("bench line serialises")
            );
        }
    }
}
