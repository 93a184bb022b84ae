//! User strings in messages: a column name, a file name, a flag's value or a bound is echoed
//! through [`shown`] — on one line, and short whatever its length (a 900 KB column name once
//! made a 1.8-million-character message). The page's JavaScript does the same with
//! `www/core/shown.js`, to the same rule.

/// Characters of a user string a message keeps.
pub const SHOWN_CHARS: usize = 60;

/// A user string for a message: control characters escaped (a newline as `\n`), and when it
/// is longer than [`SHOWN_CHARS`] characters, its first ones, then "…" and how many characters
/// the whole has ("abc… (900,000 characters)").
pub fn shown(v: &str) -> String {
    shown_up_to(v, SHOWN_CHARS)
}

/// [`shown`] with `max` characters kept instead of [`SHOWN_CHARS`] (a whole message's bound).
pub fn shown_up_to(v: &str, max: usize) -> String {
    let mut out = String::new();
    let mut chars = v.chars();
    for c in chars.by_ref().take(max) {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    let rest = chars.count();
    if rest > 0 {
        out.push_str(&format!("… ({} characters)", thousands(max + rest)));
    }
    out
}

/// A whole number `v` in all its digits up to 1e21 (a seed of 2^64 is 18446744073709551616,
/// not 1.8446744073709552e19), with an exponent past that (1e300).
pub fn whole(v: f64) -> String {
    if v.abs() < 1e21 {
        format!("{v:.0}")
    } else {
        format!("{v:e}")
    }
}

/// `n` and its noun, singular for one: "1 epoch", "3 epochs" (`many` is the plural).
pub fn counted<N: std::fmt::Display + PartialEq + From<u8>>(n: N, one: &str, many: &str) -> String {
    let noun = if n == N::from(1) { one } else { many };
    format!("{n} {noun}")
}

/// `v` to three significant digits, as a person would write it (η·C = 1e-4 is not "0"; 2618,
/// not 2.62e3).
pub fn three_digits(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return fmt_num(v);
    }
    let digits = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let rounded: f64 = format!("{v:.digits$}").parse().unwrap_or(v);
    fmt_num(rounded)
}

/// `n` with a comma between thousands (900,000).
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// A number as a person would write it: plain when moderate, with an exponent when huge or
/// tiny (1e300, not three hundred digits).
pub fn fmt_num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e7).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A δ as a person writes it: 1e-5, 2.5e-7 (three significant digits at most), whatever float
/// noise the page's slider left in it (10 ** -5 is 9.999999999999999e-6 in JavaScript).
pub fn delta_in_words(d: f64) -> String {
    if !d.is_finite() || d <= 0.0 {
        return format!("{d}");
    }
    let text = format!("{d:.2e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
    format!("{mantissa}e{exponent}")
}

/// Whether two δ are the same but for float noise.
pub fn same_delta(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// A noise multiplier to three significant digits, rounded down (never more noise than used).
pub fn noise_in_words(v: f64) -> String {
    three_digits_rounded(v, f64::floor)
}

/// A sampling rate to three significant digits, rounded up (never a smaller sample).
pub fn rate_in_words(v: f64) -> String {
    three_digits_rounded(v, f64::ceil)
}

/// `v` to three significant digits, rounded by `round`; integers, 0 and non-finite values as
/// they are. A value with at most three significant digits is printed as it is (0.7, not 0.700,
/// and never 0.699: 0.7 / 0.001 is 699.999… in floating point, which `floor` would take down).
fn three_digits_rounded(v: f64, round: fn(f64) -> f64) -> String {
    if !v.is_finite() || v == 0.0 || v.fract() == 0.0 {
        return format!("{v}");
    }
    let unit = 10f64.powi(v.abs().log10().floor() as i32 - 2);
    let x = v / unit;
    let exact = (x - x.round()).abs() < 1e-9 * x.abs();
    let r = if exact { x.round() } else { round(x) } * unit;
    let decimals = (2 - r.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{r:.decimals$}");
    if exact && text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// ε for people: three decimals below 10, one below 100, none above, always rounded up — a
/// shown ε is never below the true one (the page's `format_epsilon`, the charts' labels).
pub fn format_eps(e: f64) -> String {
    let up = |digits: i32| {
        let s = 10f64.powi(digits);
        (e * s).ceil() / s
    };
    if e < 10.0 {
        format!("{:.3}", up(3))
    } else if e < 100.0 {
        format!("{:.1}", up(1))
    } else if e < 1e6 {
        format!("{:.0}", e.ceil())
    } else {
        // Three figures, rounded up like the rest: 50,555,480,321 is "5.06e10" (its eleven
        // digits would run off a chart's edge and say nothing more).
        let mut exponent = e.log10().floor() as i32;
        let mut mantissa = (e / 10f64.powi(exponent) * 100.0).ceil() / 100.0;
        if mantissa >= 10.0 {
            mantissa /= 10.0;
            exponent += 1;
        }
        format!("{mantissa:.2}e{exponent}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_is_shown_on_one_line_and_short() {
        assert_eq!(shown("a\nb"), "a\\nb");
        assert_eq!(shown(&"x".repeat(60)), "x".repeat(60));
        assert_eq!(
            shown(&"x".repeat(61)),
            format!("{}… (61 characters)", "x".repeat(60))
        );
        let huge = shown(&"é".repeat(900_000));
        assert!(huge.ends_with("… (900,000 characters)"), "{huge}");
        assert!(huge.chars().count() < 100, "{huge}");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn a_delta_is_written_as_a_person_would_whatever_float_noise_it_carries() {
        // 10 ** -5 in JavaScript, the page's δ slider at 1e-5.
        assert_eq!(delta_in_words(0.000009999999999999999), "1e-5");
        assert_eq!(delta_in_words(1e-5), "1e-5");
        assert_eq!(delta_in_words(2.5e-7), "2.5e-7");
        assert_eq!(delta_in_words(1e-3 * (1.0 + 1e-15)), "1e-3");
        assert!(same_delta(0.000009999999999999999, 1e-5));
        assert!(!same_delta(1e-5, 1e-6));
    }
}
