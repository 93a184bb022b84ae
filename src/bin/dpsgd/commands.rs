//! The commands of `dpsgd` (src/bin/dpsgd.rs), each run over the lab's core.

use crate::args::{fail, one_line, say};
use crate::cli::{
    self, AuditArgs, BenchArgs, BenchCase, Command, RunArgs, DEFAULT_CANARIES, DEFAULT_RUNS,
};
use crate::data::load_data;
use crate::options::flag_of;
use crate::{accounting, export};
use dpsgd_lab::audit::alice::AliceChoice;
use dpsgd_lab::audit::{summarize, AuditPlan, AuditSpec, Threat};
use dpsgd_lab::config::names_of;
use dpsgd_lab::text::shown;
use dpsgd_lab::train::{Shown, Trainer};
use std::sync::Arc;

/// The command line's entry: the command named, run.
pub fn run() {
    match cli::parse() {
        Command::Train(a) => train(&a),
        Command::Coverage(a) => coverage(&a),
        Command::Epsilon(a) => accounting::epsilon(&a),
        Command::Sigma(a) => accounting::sigma(&a),
        Command::Audit(a) => audit(&a),
        Command::Bench(a) => bench(&a),
        Command::ExportOpacus(a) => export::export(&a),
    }
}

/// The trainer the run options describe, and the note every report of it carries when
/// `--scale standard` fitted one's own data without noise.
fn prepared(a: &RunArgs) -> (Trainer, Option<&'static str>) {
    let own_file = a.data.csv.is_some();
    let cfg = a.run.config(own_file);
    let data = Arc::new(load_data(&a.data, &a.run, &cfg));
    let trainer = Trainer::new(cfg, data)
        .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)));
    // Standardising one's own data fits it without noise: everything after it is outside ε.
    let standardised = own_file && a.data.scale.as_deref() == Some("standard");
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

fn train(a: &RunArgs) {
    let (mut trainer, note) = prepared(a);
    while let Some(mut report) = trainer.run_epoch() {
        report.notes.extend(note.map(String::from));
        let mut line = serde_json::to_value(&report).expect("report serialises");
        if note.is_some() {
            every_field_not_private(&mut line);
        }
        say(line);
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
fn coverage(a: &RunArgs) {
    let (trainer, note) = prepared(a);
    let mut c = trainer.coverage(Shown::default());
    if let Some(note) = note {
        c.covered.clear();
        c.outside.insert(0, format!("Everything: {note}."));
    }
    say(serde_json::to_string(&c).expect("coverage serialises"));
}

/// `dpsgd audit`: a membership attack against the run the train options describe (R runs
/// with the canary, R without; `--one-run` adds the one-run audit with m canaries), printed as
/// one JSON object.
fn audit(a: &AuditArgs) {
    let alice = a.alice.as_deref().map(|row| AliceChoice {
        index: (row != "pick").then(|| {
            row.parse().unwrap_or_else(|_| {
                fail(format!(
                    "--alice = '{}' must be a training row (0, 1, …) or nothing for the lab's pick",
                    shown(row)
                ))
            })
        }),
    });
    // The attacks' names are Threat's own (config::names_of), parsed as its JSON names.
    let attacks = names_of::<Threat>().join(" or ");
    let threat = match a.threat.as_deref() {
        Some(o) => serde_json::from_value(serde_json::Value::String(o.into()))
            .unwrap_or_else(|_| fail(format!("--threat = '{}' must be {attacks}", shown(o)))),
        None if alice.is_some() => Threat::Realistic,
        None => fail(format!("--threat is required ({attacks})")),
    };
    let runs = a.runs.as_ref().map_or(DEFAULT_RUNS, |r| r.value);
    let canaries = match (a.one_run, &a.canaries) {
        (true, c) => c.as_ref().map_or(DEFAULT_CANARIES, |c| c.value),
        (false, Some(_)) => fail("--canaries goes with --one-run"),
        (false, None) => 0,
    };
    let RunArgs { run, data } = &a.options;
    if data.csv.is_some() {
        // Said before the file is read or prepared (up to 100 MB, and its private ranges), and
        // of the flag given (the library's refusal names the data set, `--dataset`).
        fail(
            "--csv: the audit runs on the built-in data sets only: it trains hundreds of models \
             on the data and shows how they differ, which no ε covers",
        );
    }
    let cfg = run.config(data.csv.is_some());
    let seed = a
        .audit_seed
        .as_ref()
        .map(|s| s.value)
        .or(cfg.seed)
        .unwrap_or_else(rand::random);
    let data = Arc::new(load_data(data, run, &cfg));
    let spec = AuditSpec {
        threat,
        runs,
        canaries,
        seed,
        fault: Default::default(),
        alice,
    };
    let plan = AuditPlan::new(cfg, data, spec)
        .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)));
    let runs = plan
        .run_all(&mut |_, _| {})
        .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)));
    let result = summarize(&plan, &runs);
    say(serde_json::to_string(&result).expect("audit result serialises"));
}

fn bench(a: &BenchArgs) {
    let start = std::time::Instant::now();
    let now = move || start.elapsed().as_secs_f64() * 1e3;
    // An unknown --case is refused before any benchmark runs.
    a.runs(BenchCase::All);
    if a.runs(BenchCase::Kernels) {
        for l in dpsgd_lab::bench::kernels("native", &now, 300.0) {
            say(serde_json::to_string(&l).expect("bench line serialises"));
        }
    }
    if a.runs(BenchCase::Ceiling) {
        for l in dpsgd_lab::bench::ceiling::ceilings("native", &now, 1000.0) {
            say(serde_json::to_string(&l).expect("bench line serialises"));
        }
    }
    if a.runs(BenchCase::Training) {
        for l in dpsgd_lab::bench::training("native", &now, 1000.0) {
            say(serde_json::to_string(&l).expect("bench line serialises"));
        }
    }
    if a.runs(BenchCase::Accountants) {
        for l in dpsgd_lab::bench::accountant_curves("native", &now) {
            say(serde_json::to_string(&l).expect("bench line serialises"));
        }
    }
}
