//! Checks of a run's configuration: a table of the numeric fields' valid ranges ([`RANGES`],
//! which the CLI's help reads too), one table of rules checking against it, each naming its
//! field and saying in words what a valid value is, and readable messages for JSON that does
//! not fit.

use super::{ModelKind, RunConfig};
use crate::text::{fmt_num, shown, shown_up_to};
use std::fmt;

/// Largest σ the lab accepts; beyond it the noise swamps any gradient.
pub const MAX_SIGMA: f64 = 100.0;
/// Largest number of epochs of one run.
pub const MAX_EPOCHS: usize = 10_000;

/// A configuration value a run cannot use, with the field and its valid range.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub field: &'static str,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Every field of the configuration, by its JSON name (`config::tests` checks it against
/// RunConfig's own).
pub(super) const FIELDS: [&str; 30] = [
    "sigma",
    "clip",
    "lot_size",
    "lr",
    "epochs",
    "delta",
    "seed",
    "batch_size",
    "model",
    "hidden",
    "clipping",
    "layer_clips",
    "mode",
    "sampling",
    "lr_end",
    "lr_decay_epochs",
    "dataset",
    "data_noise",
    "pca",
    "pca_sigma",
    "pca_sample",
    "budget_epsilon",
    "budget_accountant",
    "amplification",
    "report",
    "clip_quantile",
    "clip_lr",
    "count_noise",
    "eval_noise",
    "groups",
];

impl ConfigError {
    /// A message for JSON that does not make a configuration: names the field when one is at
    /// fault, and says what it should be without serde's line and column.
    pub(super) fn from_json(e: &serde_json::Error) -> ConfigError {
        let text = quoted_shown(&e.to_string());
        let text = text
            .split(" at line ")
            .next()
            .unwrap_or(&text)
            .replace('`', "'");
        ConfigError {
            field: "config",
            message: humanise(&text),
        }
    }

    /// The field of `object` that makes it fail to parse, with a readable message.
    pub(super) fn locate(object: &serde_json::Map<String, serde_json::Value>) -> ConfigError {
        for (key, value) in object {
            let mut one = serde_json::Map::new();
            one.insert(key.clone(), value.clone());
            if let Err(e) = serde_json::from_value::<RunConfig>(serde_json::Value::Object(one)) {
                let field = FIELDS.iter().find(|f| **f == key).copied();
                let mut err = ConfigError::from_json(&e);
                if let Some(v) = value
                    .as_f64()
                    .filter(|_| err.message.contains("whole number"))
                {
                    // serde's "floating point `1e308`, expected usize", said plainly
                    err.message = if v >= 0.0 && v.fract() == 0.0 {
                        format!("{key} = {} is too large", crate::text::whole(v))
                    } else {
                        format!("{key} = {} is not a whole number ≥ 0", fmt_num(v))
                    };
                }
                match field {
                    Some(f) => err.field = f,
                    None => {
                        err.message = format!("unknown setting '{}'", shown(key));
                    }
                }
                return err;
            }
        }
        ConfigError {
            field: "config",
            message: "not a valid configuration".into(),
        }
    }
}

/// serde's wording for the lab's readers: "expected usize" is "expected a whole number".
/// serde's message with each value it quotes (`…` or "…": a value given, an unknown name)
/// [`shown`], and the whole at most [`MAX_MESSAGE`] characters: short, on one line.
fn quoted_shown(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find(['`', '"']) {
        let quote = if rest[open..].starts_with('`') {
            '`'
        } else {
            '"'
        };
        let inside = &rest[open + 1..];
        let Some(close) = inside.find(quote) else {
            break;
        };
        out.push_str(&rest[..=open]);
        out.push_str(&shown(&inside[..close]));
        out.push(quote);
        rest = &inside[close + 1..];
    }
    out.push_str(rest);
    shown_up_to(&out, MAX_MESSAGE)
}

/// Longest message made from serde's, in characters.
const MAX_MESSAGE: usize = 400;

fn humanise(text: &str) -> String {
    text.replace("expected usize", "expected a whole number ≥ 0")
        .replace("expected u64", "expected a whole number ≥ 0")
        .replace("expected u32", "expected a whole number ≥ 0")
        .replace("expected f64", "expected a number")
        .replace("invalid type: ", "")
        .replace("invalid value: ", "")
}

/// Which ends of a [`Range`] a valid value may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ends {
    /// A finite number from `lo` to `hi`, both included.
    Closed,
    /// A finite number above `lo` and at most `hi`.
    OpenLow,
    /// A finite number strictly between `lo` and `hi`.
    Open,
    /// `lo` or more (`hi` is ∞).
    AtLeast,
    /// From `lo` to the number of training examples N (`hi` is ∞: N is the data's).
    UpToN,
}

/// The valid values of one numeric field of [`RunConfig`] (of each element, for a list), as
/// the rules check them: the one place the lab's limits are written, also read by the CLI's
/// help.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// The field, by its JSON name.
    pub field: &'static str,
    pub lo: f64,
    pub hi: f64,
    pub ends: Ends,
}

impl Range {
    /// Whether `v` is valid, for a training set of `n` examples.
    pub fn contains(&self, v: f64, n: usize) -> bool {
        let (lo, hi) = (self.lo, self.hi);
        v.is_finite()
            && match self.ends {
                Ends::Closed => lo <= v && v <= hi,
                Ends::OpenLow => lo < v && v <= hi,
                Ends::Open => lo < v && v < hi,
                Ends::AtLeast => lo <= v,
                Ends::UpToN => lo <= v && v <= n as f64,
            }
    }

    /// The range in words, as `dpsgd --help` shows it ("0 to 100").
    pub fn words(&self) -> String {
        let (lo, hi) = (fmt_num(self.lo), fmt_num(self.hi));
        match self.ends {
            Ends::Closed => format!("{lo} to {hi}"),
            Ends::OpenLow => format!("above {lo}, up to {hi}"),
            Ends::Open => format!("strictly between {lo} and {hi}"),
            Ends::AtLeast => format!("{lo} or more"),
            Ends::UpToN => format!("{lo} to the number of training examples"),
        }
    }
}

const fn range(field: &'static str, lo: f64, hi: f64, ends: Ends) -> Range {
    Range {
        field,
        lo,
        hi,
        ends,
    }
}

/// The valid range of every numeric field that has one (`seed` and `lr_decay_epochs` take any
/// whole number ≥ 0); the rules below check against these and no other numbers.
pub const RANGES: [Range; 19] = [
    range("sigma", 0.0, MAX_SIGMA, Ends::Closed),
    range("clip", 0.0, 1e12, Ends::OpenLow),
    range("lot_size", 1.0, f64::INFINITY, Ends::UpToN),
    range("lr", 0.0, 100.0, Ends::OpenLow),
    range("epochs", 1.0, MAX_EPOCHS as f64, Ends::Closed),
    range("delta", 0.0, 1.0, Ends::Open),
    range("batch_size", 1.0, f64::INFINITY, Ends::AtLeast),
    range("hidden", 8.0, 1000.0, Ends::Closed),
    range("layer_clips", 0.0, 1e6, Ends::OpenLow),
    range("data_noise", 0.0, 1.0, Ends::Closed),
    range("pca", 1.0, f64::INFINITY, Ends::AtLeast),
    range("pca_sigma", 0.0, MAX_SIGMA, Ends::Closed),
    range("pca_sample", 0.0, 1.0, Ends::OpenLow),
    range("budget_epsilon", 0.0, 1e6, Ends::OpenLow),
    range("lr_end", 0.0, 100.0, Ends::OpenLow),
    range("clip_quantile", 0.0, 1.0, Ends::Open),
    range("clip_lr", 0.0, 10.0, Ends::OpenLow),
    range("count_noise", 0.0, 1e6, Ends::OpenLow),
    range("eval_noise", 0.0, 1e6, Ends::Closed),
];

/// How many hidden layers the MLP may have.
pub const HIDDEN_LAYERS: std::ops::RangeInclusive<usize> = 1..=2;

/// The range of `field` in [`RANGES`], if it has one.
pub fn range_of(field: &str) -> Option<&'static Range> {
    RANGES.iter().find(|r| r.field == field)
}

/// The range a rule checks against; every rule's field is in [`RANGES`].
fn limits(field: &str) -> &'static Range {
    range_of(field).unwrap_or_else(|| panic!("no range for {field} in RANGES"))
}

/// `None` when `v` (written `shown`) is in the range of `field`, else the message naming it as
/// `what`.
fn outside(field: &str, v: f64, shown: &str, what: &str) -> Option<String> {
    let r = limits(field);
    let (lo, hi) = (fmt_num(r.lo), fmt_num(r.hi));
    (!r.contains(v, usize::MAX)).then(|| match r.ends {
        Ends::Closed => format!("{what} = {shown} must be between {lo} and {hi}"),
        Ends::OpenLow => format!("{what} = {shown} must be in ({lo}, {hi}]"),
        Ends::Open => format!("{what} = {shown} must be strictly between {lo} and {hi}"),
        Ends::AtLeast | Ends::UpToN => format!("{what} must be at least {lo}"),
    })
}

/// [`outside`] for a number, written as a person would.
fn number(field: &str, v: f64, what: &str) -> Option<String> {
    outside(field, v, &fmt_num(v), what)
}

/// One rule: the field it checks and the check (`Some(message)` when the value is bad), given
/// the configuration and the number of training examples.
type Rule = (&'static str, fn(&RunConfig, usize) -> Option<String>);

const RULES: &[Rule] = &[
    ("sigma", |c, _| {
        number("sigma", c.sigma, "noise multiplier σ")
    }),
    ("clip", |c, _| number("clip", c.clip, "clipping norm C")),
    ("dataset", |_, n| {
        (n == 0).then(|| "the training set is empty".into())
    }),
    ("lot_size", |c, n| {
        let r = limits("lot_size");
        (!r.contains(c.lot_size as f64, n)).then(|| match n {
            usize::MAX => format!("lot size L must be at least {}", fmt_num(r.lo)), // N not known yet
            _ => format!(
                "lot size L = {} must be between {} and the number of training examples N = {n}",
                c.lot_size,
                fmt_num(r.lo)
            ),
        })
    }),
    ("lr", |c, _| number("lr", c.lr, "learning rate η")),
    ("epochs", |c, _| {
        outside("epochs", c.epochs as f64, &c.epochs.to_string(), "epochs")
    }),
    ("delta", |c, _| number("delta", c.delta, "δ")),
    ("batch_size", |c, _| {
        outside("batch_size", c.batch_size as f64, "", "batch size")
    }),
    ("hidden", |c, _| {
        if c.model != ModelKind::Mlp {
            return None;
        }
        if !HIDDEN_LAYERS.contains(&c.hidden.len()) {
            return Some(format!(
                "the MLP has {} or {} hidden layers, not {}",
                HIDDEN_LAYERS.start(),
                HIDDEN_LAYERS.end(),
                c.hidden.len()
            ));
        }
        let r = limits("hidden");
        c.hidden
            .iter()
            .find(|&&w| !r.contains(w as f64, 0))
            .map(|w| {
                let (lo, hi) = (fmt_num(r.lo), fmt_num(r.hi));
                format!("hidden width {w} must be between {lo} and {hi}")
            })
    }),
    ("layer_clips", |c, _| {
        let clips = c.layer_clips.as_ref()?;
        let layers = c.n_layers();
        if clips.len() != layers {
            return Some(format!(
                "{} per-layer bounds given for a model with {layers} layers",
                clips.len()
            ));
        }
        clips
            .iter()
            .find_map(|&b| number("layer_clips", b, "per-layer bound"))
    }),
    ("data_noise", |c, _| {
        number("data_noise", c.data_noise, "noise level")
    }),
    ("pca", |c, _| {
        let lo = limits("pca").lo;
        c.pca
            .filter(|&k| (k as f64) < lo)
            .map(|_| format!("PCA needs at least {} dimension", fmt_num(lo)))
    }),
    ("pca_sigma", |c, _| {
        number("pca_sigma", c.pca_sigma, "PCA noise σ_p")
    }),
    ("pca_sample", |c, _| {
        number("pca_sample", c.pca_sample, "PCA sampling rate")
    }),
    ("budget_epsilon", |c, _| {
        number("budget_epsilon", c.budget_epsilon?, "the ε budget")
    }),
    ("lr_end", |c, _| {
        number("lr_end", c.lr_end?, "final learning rate")
    }),
    ("clip_quantile", |c, _| {
        let what = "adaptive clipping's target quantile";
        number("clip_quantile", c.clip_quantile?, what)
    }),
    ("clip_lr", |c, _| {
        let what = "adaptive clipping's learning rate";
        number("clip_lr", c.clip_lr, what)
    }),
    ("count_noise", |c, _| {
        number(
            "count_noise",
            c.count_noise?,
            "the clipped count's noise σ_b",
        )
    }),
    ("eval_noise", |c, _| {
        number("eval_noise", c.eval_noise, "the evaluation's noise")
    }),
];

impl RunConfig {
    /// Checks every field against its valid range for a training set of `n_train` examples.
    pub fn validate(&self, n_train: usize) -> Result<(), ConfigError> {
        for &(field, check) in RULES {
            if let Some(message) = check(self, n_train) {
                return Err(ConfigError { field, message });
            }
        }
        Ok(())
    }
}
