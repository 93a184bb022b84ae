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
//! dpsgd coverage <the train options>   (what ε would cover, without training)
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

#[path = "dpsgd/data.rs"]
mod data;

use args::{fail, one_line, Args, USAGE};
use data::{load_data, DATA_FLAGS};
use dpsgd_lab::audit::{summarize, AuditPlan, AuditSpec, Threat};
use dpsgd_lab::config::RunConfig;
use dpsgd_lab::data::csv::shown;
use dpsgd_lab::train::{Shown, Trainer};
use std::sync::Arc;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = argv.split_first() else {
        fail(USAGE)
    };
    match cmd.as_str() {
        "train" => train(rest),
        "coverage" => coverage(rest),
        "epsilon" => accounting::epsilon(rest),
        "sigma" => accounting::sigma(rest),
        "audit" => audit(rest),
        "bench" => bench(rest),
        "-h" | "--help" | "help" => println!("{USAGE}"),
        other => fail(format!("unknown command '{}'; {USAGE}", shown(other))),
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

/// The trainer the `train` options describe, and the note every report of it carries when
/// `--scale standard` fitted one's own data without noise.
fn prepared(raw: &[String]) -> (Trainer, Option<&'static str>) {
    let flags: Vec<String> = config_options().into_iter().map(|o| o.0).collect();
    let mut allowed: Vec<&str> = flags.iter().map(String::as_str).collect();
    allowed.extend(DATA_FLAGS);
    let a = Args::parse(raw, &allowed);
    let cfg = train_config(&a);
    let data = Arc::new(load_data(&a, &cfg));
    let trainer = Trainer::new(cfg, data)
        .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)));
    // Standardising one's own data fits it without noise: everything after it is outside ε.
    let standardised =
        a.0.contains_key("csv") && a.0.get("scale").map(String::as_str) == Some("standard");
    (trainer, standardised.then_some(STANDARDISED))
}

/// A line of a run that ε does not cover at all (`--scale standard`): every field but the
/// notes (which say why) is listed in `not_private`, so a script that trusts the fields outside
/// that list trusts none of this run's, ε included.
fn every_field_not_private(line: &mut serde_json::Value) {
    let Some(fields) = line.as_object_mut() else {
        return;
    };
    let all: Vec<serde_json::Value> = fields
        .keys()
        .filter(|k| !matches!(k.as_str(), "notes" | "not_private"))
        .map(|k| k.as_str().into())
        .collect();
    fields.insert("not_private".into(), all.into());
}

const STANDARDISED: &str =
    "--scale standard fitted the mean and spread of your data without noise: ε does not cover this run";

fn train(raw: &[String]) {
    let (mut trainer, note) = prepared(raw);
    while let Some(mut report) = trainer.run_epoch() {
        report.notes.extend(note.map(String::from));
        let mut line = serde_json::to_value(&report).expect("report serialises");
        if note.is_some() {
            every_field_not_private(&mut line);
        }
        println!("{line}");
        if let Some(why) = &report.divergence {
            eprintln!("dpsgd: {}", one_line(why));
            std::process::exit(1); // the run failed, not the command line (status 2)
        }
    }
}

/// `dpsgd coverage`: what the run the train options describe would cover with its ε, and what
/// it would not, as the page's "What ε covers" says it (`{"covered": [...], "outside": [...]}`),
/// without training. One's own file is still prepared (its split and ranges drawn), then
/// dropped.
fn coverage(raw: &[String]) {
    let (trainer, note) = prepared(raw);
    let mut c = trainer.coverage(Shown::default());
    if let Some(note) = note {
        c.covered.clear();
        c.outside.insert(0, format!("Everything: {note}."));
    }
    println!(
        "{}",
        serde_json::to_string(&c).expect("coverage serialises")
    );
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
