//! The options of a run (`train`, `coverage`, `audit`): RunConfig's own fields, each as
//! `--field-name` (`--noise` for `data_noise`). They are generated from RunConfig::default()'s
//! JSON form, so every field has exactly one flag, and each flag's help shows the field's
//! default and the range config/validate.rs checks (its table `RANGES`).

use crate::args::fail;
use clap::{Arg, ArgMatches, Command};
use dpsgd_lab::config::GroupBy;
use dpsgd_lab::config::{
    fmt_num, names_of, range_of, Clipping, Mode, ModelKind, ReleaseLevel, RunConfig, Sampling,
    HIDDEN_LAYERS,
};
use dpsgd_lab::data::builtin::BUILTIN;
use dpsgd_lab::privacy::accountant::{AccountantName, Amplification};
use dpsgd_lab::text::shown;
use serde_json::Value;

/// The flag of a RunConfig field: `--field-name`, but `--noise` for `data_noise`.
pub fn flag_of(field: &str) -> String {
    if field == "data_noise" {
        "noise".into()
    } else {
        field.replace('_', "-")
    }
}

/// Optional fields whose value is a list (their default, null, does not say so).
const LIST_FIELDS: [&str; 1] = ["layer_clips"];
/// Fields whose default is none (not serialised then) and whose value is a name.
const NAME_FIELDS: [&str; 1] = ["groups"];

/// One RunConfig field as a flag.
struct ConfigOption {
    flag: String,
    field: String,
    default: Value,
}

/// Every RunConfig field as a flag, in the order of the flags' names.
fn config_options() -> Vec<ConfigOption> {
    let defaults = serde_json::to_value(RunConfig::default()).expect("RunConfig serialises");
    let Value::Object(mut fields) = defaults else {
        panic!("RunConfig serialises as an object")
    };
    // Fields left out while they are none (so the page's links stay short) are flags too.
    for field in NAME_FIELDS {
        fields.entry(field).or_insert(Value::Null);
    }
    let mut options: Vec<ConfigOption> = fields
        .into_iter()
        .map(|(field, default)| ConfigOption {
            flag: flag_of(&field),
            field,
            default,
        })
        .collect();
    options.sort_by(|a, b| a.flag.cmp(&b.flag));
    options
}

/// What a field is, for its help, and the names it takes when it is a choice.
fn about(field: &str) -> (String, Option<String>) {
    // A choice's names, from its enum (config::names_of): never a list by hand.
    let listed = |names: Vec<String>| Some(names.join(", "));
    let (what, choices): (&str, Option<String>) = match field {
        "sigma" => ("Noise multiplier σ: the noise on a lot's clipped sum has std σ·C", None),
        "clip" => ("Clipping norm C: each example's gradient is cut to norm C", None),
        "lot_size" => ("Expected lot size L; lots are Poisson-sampled with q = L/N", None),
        "lr" => ("Learning rate η", None),
        "epochs" => ("Number of epochs; an epoch is N/L lots", None),
        "delta" => ("The δ at which ε is reported", None),
        "seed" => ("Seed of the run's random numbers; none: random", None),
        "batch_size" => ("Examples processed at once inside a lot (memory only)", None),
        "model" => ("The model", listed(names_of::<ModelKind>())),
        "hidden" => {
            let (lo, hi) = (HIDDEN_LAYERS.start(), HIDDEN_LAYERS.end());
            let what = format!("Widths of the MLP's hidden layers ({lo} to {hi} of them), as 128,64");
            return (what, None);
        }
        "clipping" => ("One bound C, or one per layer", listed(names_of::<Clipping>())),
        "layer_clips" => (
            "Per-layer bounds, output layer last, as 2,2; none: C/√layers each",
            None,
        ),
        "mode" => (
            "What the sanitizer does: DP-SGD, or one half of it",
            listed(names_of::<Mode>()),
        ),
        "sampling" => ("How lots are drawn", listed(names_of::<Sampling>())),
        "lr_end" => ("Final learning rate of a linear decay; none: no decay", None),
        "lr_decay_epochs" => ("Epochs of the decay to --lr-end", None),
        "dataset" => ("A built-in data set (its files under --data-dir)", {
            Some(BUILTIN.join(", "))
        }),
        "data_noise" => ("Coordinate noise of the generated 2-D sets", None),
        "pca" => ("DP-PCA to this many dimensions before training; none: no PCA", None),
        "pca_sigma" => ("DP-PCA's noise std σ_p", None),
        "pca_sample" => ("DP-PCA's sampling rate of training examples", None),
        "budget_epsilon" => ("Stop before the step that would pass this ε; none: no budget", None),
        "budget_accountant" => (
            "The accountant of --budget-epsilon",
            Some(AccountantName::names()),
        ),
        "amplification" => (
            "How the reports' naive and strong composition bound a step",
            listed(names_of::<Amplification>()),
        ),
        "report" => ("What the reports release (with --csv: private)", listed(names_of::<ReleaseLevel>())),
        "clip_quantile" => ("Adaptive clipping: C follows this quantile of the gradient norms; none: fixed C", None),
        "clip_lr" => ("Adaptive clipping's learning rate η_C", None),
        "count_noise" => (
            "Noise std σ_b of each lot's released unclipped count; none: L/20 with adaptive clipping",
            None,
        ),
        "eval_noise" => (
            "Noise std on the correct test predictions of private data; 0: not released",
            None,
        ),
        "groups" => (
            "Test accuracy per group in each report (sex and race: Adult only); none: no groups",
            listed(GroupBy::ALL.map(GroupBy::name).map(String::from).to_vec()),
        ),
        _ => ("", None),
    };
    (what.to_string(), choices)
}

/// A default as the help shows it: numbers as a person writes them, a list comma-separated,
/// null as "none".
fn shown_default(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_u64() {
            Some(k) => k.to_string(),
            None => fmt_num(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(shown_default).collect();
            items.join(",")
        }
        other => other.to_string(),
    }
}

/// The flag of one field: its help is what it is, its default, and its range or its names.
fn arg_of(o: &ConfigOption) -> Arg {
    let (what, choices) = about(&o.field);
    let mut help = format!("{what} [default: {}]", shown_default(&o.default));
    if let Some(r) = range_of(&o.field) {
        help += &format!(" [range: {}]", r.words());
    }
    if let Some(names) = choices {
        help += &format!(" [possible values: {names}]");
    }
    let value_name = match &o.default {
        Value::String(_) => "NAME",
        _ if NAME_FIELDS.contains(&o.field.as_str()) => "NAME",
        Value::Array(_) => "LIST",
        _ if LIST_FIELDS.contains(&o.field.as_str()) => "LIST",
        Value::Number(n) if n.is_u64() => "N",
        _ => "NUMBER",
    };
    Arg::new(o.field.clone())
        .long(o.flag.clone())
        .value_name(value_name)
        .value_parser(clap::value_parser!(String))
        .help(help)
        .help_heading("Run options (RunConfig's fields)")
}

/// The run options given, as (field, flag, value as typed).
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    given: Vec<(String, String, String)>,
}

impl clap::FromArgMatches for RunOptions {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let given = config_options()
            .into_iter()
            .filter_map(|o| {
                let v = m.get_one::<String>(&o.field)?.clone();
                Some((o.field, o.flag, v))
            })
            .collect();
        Ok(RunOptions { given })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for RunOptions {
    fn augment_args(cmd: Command) -> Command {
        cmd.args(config_options().iter().map(arg_of))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl RunOptions {
    /// The value of `--flag` as typed, if given.
    pub fn get(&self, flag: &str) -> Option<&str> {
        let mut given = self.given.iter();
        given.find(|g| g.1 == flag).map(|g| g.2.as_str())
    }

    /// The run's configuration, built through RunConfig's own JSON form, so the CLI, the page
    /// and the tests share one set of names, defaults and checks; the value of each flag is
    /// read by the JSON type of its field's default. One's own file (`own_file`) is private
    /// data: the private release level unless `--report` says otherwise.
    pub fn config(&self, own_file: bool) -> RunConfig {
        let defaults = serde_json::to_value(RunConfig::default()).expect("RunConfig serialises");
        let mut obj = serde_json::Map::new();
        for (field, flag, v) in &self.given {
            let number = |t: &str| -> Value {
                serde_json::from_str::<serde_json::Number>(t.trim())
                    .map(Value::Number)
                    .unwrap_or_else(|_| fail(format!("--{flag} = '{}' is not a number", shown(v))))
            };
            let value = match &defaults[field.as_str()] {
                Value::String(_) => Value::String(v.clone()),
                _ if NAME_FIELDS.contains(&field.as_str()) => Value::String(v.clone()),
                Value::Array(_) => Value::Array(v.split(',').map(number).collect()),
                _ if LIST_FIELDS.contains(&field.as_str()) => {
                    Value::Array(v.split(',').map(number).collect())
                }
                _ => number(v),
            };
            obj.insert(field.clone(), value);
        }
        if own_file && !obj.contains_key("report") {
            obj.insert("report".into(), "private".into());
        }
        RunConfig::from_json(&Value::Object(obj).to_string())
            .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)))
    }
}
