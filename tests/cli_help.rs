//! `dpsgd --help` through the binary: every command's help works; every RunConfig field has
//! exactly one flag, whose help shows RunConfig::default()'s value and the range of
//! config/validate.rs's table — the table the rules check against, as tested here at its ends;
//! and a mistyped flag is refused on one line with the flag it resembles.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{dpsgd, refused, temp_file};
use dpsgd_lab::config::GroupBy;
use dpsgd_lab::config::{
    names_of, range_of, Clipping, Ends, Mode, ModelKind, ReleaseLevel, RunConfig, Sampling, RANGES,
};
use dpsgd_lab::export::OpacusAccountant;
use dpsgd_lab::privacy::accountant::{AccountantName, Amplification};
use serde_json::{json, Value};

const COMMANDS: [&str; 7] = [
    "train",
    "coverage",
    "epsilon",
    "sigma",
    "audit",
    "bench",
    "export-opacus",
];

/// The commands that take the run options (RunConfig's fields).
const RUN_COMMANDS: [&str; 4] = ["train", "coverage", "audit", "export-opacus"];

fn help(args: &[&str]) -> String {
    let (code, out, err) = dpsgd(args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    assert!(err.is_empty(), "{args:?}: {err}");
    out
}

/// The flag of a RunConfig field, as the CLI names it.
fn flag_of(field: &str) -> String {
    match field {
        "data_noise" => "--noise".into(),
        _ => format!("--{}", field.replace('_', "-")),
    }
}

/// What a help line shows between `[name: ` and the next `]`.
fn shown<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let start = line.find(&format!("[{name}: "))? + name.len() + 3;
    Some(&line[start..start + line[start..].find(']')?])
}

#[test]
fn every_command_has_help_and_the_top_level_lists_them() {
    let top = help(&["--help"]);
    for cmd in COMMANDS {
        assert!(top.contains(&format!("  {cmd} ")), "{cmd}: {top}");
        for args in [vec![cmd, "--help"], vec![cmd, "-h"], vec!["help", cmd]] {
            let out = help(&args);
            assert!(
                out.contains(&format!("Usage: dpsgd {cmd}")),
                "{args:?}: {out}"
            );
        }
    }
    assert!(help(&["--version"]).starts_with("dpsgd "));
}

#[test]
fn every_field_has_one_flag_showing_its_default_and_range() {
    let defaults = serde_json::to_value(RunConfig::default()).unwrap();
    let defaults = defaults.as_object().unwrap();
    for cmd in RUN_COMMANDS {
        let out = help(&[cmd, "--help"]);
        for (field, default) in defaults {
            let flag = flag_of(field);
            let lines: Vec<&str> = out
                .lines()
                .map(str::trim)
                .filter(|l| l.split([' ', '=']).next() == Some(flag.as_str()))
                .collect();
            assert_eq!(lines.len(), 1, "{cmd} {flag}: {lines:?}");
            let line = lines[0];
            let given = shown(line, "default").unwrap_or_else(|| panic!("{cmd}: {line}"));
            let number = |t: &str| t.parse::<f64>().unwrap_or(f64::NAN);
            let same = match default {
                Value::Null => given == "none",
                Value::String(s) => given == s,
                Value::Number(n) => number(given) == n.as_f64().unwrap(),
                Value::Array(items) => {
                    let items: Vec<f64> = items.iter().map(|x| x.as_f64().unwrap()).collect();
                    given.split(',').map(number).collect::<Vec<_>>() == items
                }
                other => panic!("{field}: a default of {other}"),
            };
            assert!(
                same,
                "{cmd} {flag}: shows {given}, the default is {default}"
            );
            let range = range_of(field).map(|r| r.words());
            assert_eq!(shown(line, "range"), range.as_deref(), "{cmd}: {line}");
        }
    }
}

/// A configuration with `field` = `v` (a list of one for the list fields, and what makes the
/// field count: the MLP for `hidden`, per-layer clipping for `layer_clips`).
fn with(field: &str, v: f64, whole: bool) -> Value {
    let v = if whole { json!(v as u64) } else { json!(v) };
    match field {
        "hidden" => json!({ "model": "mlp", "hidden": [v] }),
        "layer_clips" => json!({ "clipping": "per-layer", "layer_clips": [v] }),
        _ => json!({ field: v }),
    }
}

/// Whether a run on `n` examples accepts `field` = `v`.
fn accepts(field: &str, v: f64, whole: bool, n: usize) -> bool {
    let cfg = RunConfig::from_json(&with(field, v, whole).to_string())
        .unwrap_or_else(|e| panic!("{field} = {v}: {e}"));
    cfg.validate(n).is_ok()
}

/// The table the help shows is the one validation uses: at each end of every range, the
/// value and its nearest neighbours outside (and inside an open end) are accepted or refused
/// as the range says.
#[test]
fn the_ranges_shown_are_those_validation_checks() {
    let n = 1000;
    for r in RANGES {
        let f = r.field;
        // A whole-number field refuses 0.5 as a type, before any range.
        let whole = RunConfig::from_json(&with(f, 0.5, false).to_string()).is_err();
        // The nearest neighbours: by 1 for whole numbers, else by a relative 1e-9 (the JSON
        // that carries them does not round-trip the last bit).
        let step = |v: f64| if whole { 1.0 } else { 1e-9 * v.abs().max(1.0) };
        let (below, above) = (r.lo - step(r.lo), r.hi + step(r.hi));
        assert!(!accepts(f, below, whole, n), "{f} = {below}");
        let hi = if r.ends == Ends::UpToN {
            n as f64
        } else {
            r.hi
        };
        let low_end = !matches!(r.ends, Ends::OpenLow | Ends::Open);
        assert_eq!(accepts(f, r.lo, whole, n), low_end, "{f} = {}", r.lo);
        if !whole && !low_end {
            assert!(
                accepts(f, r.lo + step(r.lo), whole, n),
                "{f} just above {}",
                r.lo
            );
        }
        if hi.is_finite() {
            let high_end = r.ends != Ends::Open;
            assert_eq!(accepts(f, hi, whole, n), high_end, "{f} = {hi}");
            let beyond = if r.ends == Ends::UpToN {
                hi + 1.0
            } else {
                above
            };
            assert!(!accepts(f, beyond, whole, n), "{f} = {beyond}");
            if !high_end {
                assert!(accepts(f, hi - step(hi), whole, n), "{f} just below {hi}");
            }
        }
    }
}

/// A mistyped flag or command names what it resembles, on one line with status 2 (clap's
/// refusals too: a missing value, a flag given twice, a stray argument).
#[test]
fn a_mistyped_flag_is_one_line_with_a_suggestion() {
    for cmd in ["train", "coverage", "epsilon"] {
        let e = refused(&[cmd, "--sigmaa", "1"]);
        assert!(
            e.contains("unknown option --sigmaa") && e.contains("did you mean --sigma?"),
            "{cmd}: {e}"
        );
    }
    let e = refused(&["audit", "--threatt", "realistic"]);
    assert!(e.contains("did you mean --threat?"), "{e}");
    let e = refused(&["trian"]);
    assert!(
        e.contains("unknown command 'trian' (did you mean 'train'?)"),
        "{e}"
    );
    assert!(refused(&[]).contains("dpsgd --help"));
    for args in [
        vec!["train", "--sigma"],
        vec!["train", "--sigma", "1", "--sigma", "2"],
        vec!["train", "stray"],
        vec!["audit", "--one-run", "--one-run", "--threat", "realistic"],
    ] {
        let e = refused(&args);
        assert!(e.starts_with("dpsgd: "), "{args:?}: {e}");
    }
    // A value starting with '-' is still the flag's value, refused by our own check.
    let e = refused(&["train", "--sigma", "-1", "--epochs", "1"]);
    assert!(
        e.contains("--sigma: noise multiplier σ = -1 must be between 0 and 100"),
        "{e}"
    );
}

/// Every named choice's help lists its enum's names (#54 §4: from the enum, never a list by
/// hand), each name is one RunConfig takes, and a name outside the list is refused.
#[test]
fn each_choice_lists_the_names_its_setting_takes() {
    let out = help(&["train", "--help"]);
    let listed = |field: &str| -> Vec<String> {
        let flag = flag_of(field);
        let line = out
            .lines()
            .map(str::trim)
            .find(|l| l.split([' ', '=']).next() == Some(flag.as_str()))
            .unwrap_or_else(|| panic!("{flag} has help"));
        let names = shown(line, "possible values").unwrap_or_else(|| panic!("{line}"));
        names.split(", ").map(String::from).collect()
    };
    let choices: [(&str, Vec<String>); 8] = [
        ("model", names_of::<ModelKind>()),
        ("clipping", names_of::<Clipping>()),
        ("mode", names_of::<Mode>()),
        ("sampling", names_of::<Sampling>()),
        ("amplification", names_of::<Amplification>()),
        ("report", names_of::<ReleaseLevel>()),
        (
            "budget_accountant",
            AccountantName::ALL.map(|a| a.name().to_string()).to_vec(),
        ),
        (
            "groups",
            GroupBy::ALL.map(|g| g.name().to_string()).to_vec(),
        ),
    ];
    for (field, names) in choices {
        assert_eq!(listed(field), names, "{field}");
        // Adult: the one data set every grouping applies to.
        let config = |name: &str| json!({ field: name, "dataset": "adult" }).to_string();
        for name in &names {
            RunConfig::from_json(&config(name)).unwrap_or_else(|e| panic!("{field} = {name}: {e}"));
        }
        assert!(
            RunConfig::from_json(&config("no-such-name")).is_err(),
            "{field}"
        );
    }
}

/// The flags outside RunConfig that take a closed set of names (`bench --case`, `export-opacus
/// --accountant`, `--scale`, `--amplification`) list their enum's names in their help, refuse
/// another name with that same list, and accept each listed name (#54 §5: the names come from
/// the enums; none is written by hand in the binary's source).
#[test]
fn the_commands_own_choices_list_and_take_their_enums_names() {
    let listed = |cmd: &str, flag: &str| -> Vec<String> {
        let out = help(&[cmd, "--help"]);
        let line = out
            .lines()
            .map(str::trim)
            .find(|l| l.starts_with(&format!("{flag} ")))
            .unwrap_or_else(|| panic!("{cmd} {flag} has help: {out}"));
        let names = shown(line, "possible values").unwrap_or_else(|| panic!("{line}"));
        names.split(", ").map(String::from).collect()
    };
    let opacus = listed("export-opacus", "--accountant");
    assert_eq!(opacus, names_of::<OpacusAccountant>());
    assert_eq!(
        listed("epsilon", "--amplification"),
        names_of::<Amplification>()
    );
    // Its parse reads the same names (Amplification::name, not a list of its own).
    for name in names_of::<Amplification>() {
        let parsed = Amplification::parse(&name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(parsed.name(), name);
    }
    let csv = temp_file("choices.csv", b"a,y\n1,0\n2,1\n3,0\n4,1\n");
    let csv = csv.to_str().unwrap();
    let out = std::env::temp_dir().join(format!("dpsgd-choices-{}", std::process::id()));
    let out = out.to_str().unwrap();
    for (cmd, flag, names, args) in [
        ("bench", "--case", listed("bench", "--case"), vec![]),
        // A run whose --epochs is refused after --accountant is read: nothing is written.
        (
            "export-opacus",
            "--accountant",
            opacus,
            vec!["--out", out, "--epochs", "abc"],
        ),
        (
            "coverage",
            "--scale",
            listed("coverage", "--scale"),
            vec!["--csv", csv, "--label", "y", "--report", "teaching"],
        ),
    ] {
        assert!(names.len() >= 2, "{cmd} {flag}: {names:?}");
        let args_with = |value: &str| {
            let mut a = vec![cmd, flag, value];
            a.extend(args.iter().copied());
            dpsgd(&a)
        };
        let (code, _, err) = args_with("no-such-name");
        assert_eq!(code, Some(2), "{cmd} {flag}: {err}");
        assert!(
            err.contains(&format!(
                "{flag} = 'no-such-name' must be one of {}",
                names.join(", ")
            )),
            "{cmd} {flag}: {err}"
        );
        // Each listed name gets past the flag's own check (bench's are not run: too slow).
        for name in names.iter().filter(|_| cmd != "bench") {
            let (_, _, err) = args_with(name);
            assert!(
                !err.contains(&format!("{flag} =")),
                "{cmd} {flag} {name}: {err}"
            );
        }
    }
    // The binary's source lists no choice by hand: every "possible values" is made from an enum.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bin");
    let mut by_hand = Vec::new();
    let mut stack = vec![src];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines().filter(|l| l.contains("possible values: ")) {
                if !line.contains("{}") && !line.contains("{names}") {
                    by_hand.push(format!("{}: {line}", path.display()));
                }
            }
        }
    }
    assert!(by_hand.is_empty(), "{by_hand:#?}");
}
