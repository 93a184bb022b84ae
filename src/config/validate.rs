//! Checks of a run's configuration: one table of rules, each naming its field and saying in
//! words what a valid value is, and readable messages for JSON that does not fit.

use super::{ModelKind, RunConfig};
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

/// A number as a person would write it: plain when moderate, with an exponent when huge or
/// tiny (1e300, not three hundred digits).
pub fn fmt_num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e7).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// Every field of the configuration, by its JSON name.
const FIELDS: [&str; 29] = [
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
];

impl ConfigError {
    /// A message for JSON that does not make a configuration: names the field when one is at
    /// fault, and says what it should be without serde's line and column.
    pub(super) fn from_json(e: &serde_json::Error) -> ConfigError {
        let text = e.to_string();
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
                        format!("{key} = {} is too large", fmt_num(v))
                    } else {
                        format!("{key} = {} is not a whole number ≥ 0", fmt_num(v))
                    };
                }
                match field {
                    Some(f) => err.field = f,
                    None => {
                        let shown: String = key.chars().take(40).collect();
                        err.message = format!("unknown setting '{shown}'");
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
fn humanise(text: &str) -> String {
    text.replace("expected usize", "expected a whole number ≥ 0")
        .replace("expected u64", "expected a whole number ≥ 0")
        .replace("expected u32", "expected a whole number ≥ 0")
        .replace("expected f64", "expected a number")
        .replace("invalid type: ", "")
        .replace("invalid value: ", "")
}

/// `None` when `v` is a finite number in [lo, hi], else the message.
fn within(v: f64, lo: f64, hi: f64, what: &str) -> Option<String> {
    (!(v.is_finite() && (lo..=hi).contains(&v))).then(|| {
        format!(
            "{what} = {} must be between {} and {}",
            fmt_num(v),
            fmt_num(lo),
            fmt_num(hi)
        )
    })
}

/// `None` when `v` is a finite number in (0, hi], else the message.
fn positive(v: f64, hi: f64, what: &str) -> Option<String> {
    (!(v.is_finite() && v > 0.0 && v <= hi))
        .then(|| format!("{what} = {} must be in (0, {}]", fmt_num(v), fmt_num(hi)))
}

/// One rule: the field it checks and the check (`Some(message)` when the value is bad), given
/// the configuration and the number of training examples.
type Rule = (&'static str, fn(&RunConfig, usize) -> Option<String>);

const RULES: &[Rule] = &[
    ("sigma", |c, _| {
        within(c.sigma, 0.0, MAX_SIGMA, "noise multiplier σ")
    }),
    ("clip", |c, _| positive(c.clip, 1e12, "clipping norm C")),
    ("dataset", |_, n| {
        (n == 0).then(|| "the training set is empty".into())
    }),
    ("lot_size", |c, n| {
        (c.lot_size == 0 || c.lot_size > n).then(|| match n {
            usize::MAX => "lot size L must be at least 1".to_string(), // N not known yet
            _ => format!(
                "lot size L = {} must be between 1 and the number of training examples N = {n}",
                c.lot_size
            ),
        })
    }),
    ("lr", |c, _| positive(c.lr, 100.0, "learning rate η")),
    ("epochs", |c, _| {
        (c.epochs == 0 || c.epochs > MAX_EPOCHS)
            .then(|| format!("epochs = {} must be between 1 and {MAX_EPOCHS}", c.epochs))
    }),
    ("delta", |c, _| {
        (!(c.delta > 0.0 && c.delta < 1.0))
            .then(|| format!("δ = {} must be strictly between 0 and 1", fmt_num(c.delta)))
    }),
    ("batch_size", |c, _| {
        (c.batch_size == 0).then(|| "batch size must be at least 1".into())
    }),
    ("hidden", |c, _| {
        if c.model != ModelKind::Mlp {
            return None;
        }
        if !(1..=2).contains(&c.hidden.len()) {
            return Some(format!(
                "the MLP has 1 or 2 hidden layers, not {}",
                c.hidden.len()
            ));
        }
        c.hidden
            .iter()
            .find(|w| !(8..=1000).contains(*w))
            .map(|w| format!("hidden width {w} must be between 8 and 1000"))
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
            .find_map(|&b| positive(b, 1e6, "per-layer bound"))
    }),
    ("data_noise", |c, _| {
        within(c.data_noise, 0.0, 1.0, "noise level")
    }),
    ("pca", |c, _| {
        (c.pca == Some(0)).then(|| "PCA needs at least 1 dimension".into())
    }),
    ("pca_sigma", |c, _| {
        within(c.pca_sigma, 0.0, MAX_SIGMA, "PCA noise σ_p")
    }),
    ("pca_sample", |c, _| {
        positive(c.pca_sample, 1.0, "PCA sampling rate")
    }),
    ("budget_epsilon", |c, _| {
        positive(c.budget_epsilon?, 1e6, "the ε budget")
    }),
    ("lr_end", |c, _| {
        positive(c.lr_end?, 100.0, "final learning rate")
    }),
    ("clip_quantile", |c, _| {
        let q = c.clip_quantile?;
        (!(q > 0.0 && q < 1.0)).then(|| {
            format!(
                "adaptive clipping's target quantile = {} must be strictly between 0 and 1",
                fmt_num(q)
            )
        })
    }),
    ("clip_lr", |c, _| {
        positive(c.clip_lr, 10.0, "adaptive clipping's learning rate")
    }),
    ("count_noise", |c, _| {
        positive(c.count_noise?, 1e6, "the clipped count's noise σ_b")
    }),
    ("eval_noise", |c, _| {
        within(c.eval_noise, 0.0, 1e6, "the evaluation's noise")
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
