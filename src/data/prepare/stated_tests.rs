//! Stated ranges: the text field's syntax (quoted names included), the form's, and every
//! refusal said in words that fit the case and stay short.

use super::*;
use crate::data::prepare::written_name;

#[test]
fn stated_bounds_parse_and_bad_ones_say_why() {
    let b = parse_stated("age=17:90, capital gain = 0 : 1e5\nx=-1:1").unwrap();
    assert_eq!(b.len(), 3);
    assert_eq!(b[1], ("capital gain".into(), Range { lo: 0.0, hi: 1e5 }));
    assert!(parse_stated("age=90:17")
        .unwrap_err()
        .message
        .contains("below"));
    assert!(parse_stated("age")
        .unwrap_err()
        .message
        .contains("name=min:max"));
    assert!(parse_stated("a=0:1,a=0:2")
        .unwrap_err()
        .message
        .contains("twice"));
    // A name with '=' in it still reads as before, unquoted.
    assert_eq!(parse_stated("a=b=0:1").unwrap()[0].0, "a=b");
}

/// #40, 3.5: a column named `e,f` (or holding a quote) could not be given bounds; quoted as
/// in a CSV file it can, and the suggestion a message makes is written that way.
#[test]
fn quoted_names_hold_separators_and_quotes() {
    let b =
        parse_stated("\"e,f\"=0:1; \"say \"\"hi\"\"\" = -1 : 1\n\"a;b\nc\"=2:3, x=4:5").unwrap();
    let names: Vec<&str> = b.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["e,f", "say \"hi\"", "a;b\nc", "x"]);
    assert_eq!(b[0].1, Range { lo: 0.0, hi: 1.0 });
    assert_eq!(b[1].1, Range { lo: -1.0, hi: 1.0 });
    for name in ["e,f", "say \"hi\"", "a;b", "=", "plain", "\"", "x=1:2"] {
        let text = format!("{}=0:1", written_name(name));
        assert_eq!(parse_stated(&text).unwrap()[0].0, name, "{text}");
    }
    assert_eq!(written_name("age"), "age");
    assert_eq!(written_name("e,f"), "\"e,f\"");
    let e = parse_stated("\"e,f=0:1").unwrap_err().message;
    assert!(
        e.contains("never closed") && e.contains("\"e,f\"=0:1"),
        "{e}"
    );
    let e = parse_stated("\"e,f\"x=0:1").unwrap_err().message;
    assert!(e.contains("in double quotes"), "{e}");
}

/// #40, 3.8: `0:1e39` was refused as "not finite"; the limit is the lab's 32-bit numbers.
#[test]
fn a_bound_beyond_f32_is_named_as_such() {
    let e = parse_stated("a=0:1e39").unwrap_err().message;
    assert!(
        e.contains("max = 1e39 is beyond the range of the lab's numbers (32-bit floats: ±3.4e38)")
            && !e.contains("finite"),
        "{e}"
    );
    let e = parse_stated("a=-1e300:0").unwrap_err().message;
    assert!(e.contains("min = -1e300 is beyond"), "{e}");
    let e = parse_stated("a=0:inf").unwrap_err().message;
    assert!(e.contains("finite numbers"), "{e}");
    assert!(parse_stated("a=-3e38:3e38").is_ok());
}

/// #40, 3.8: a header written decomposed (NFD, `a` + U+0302) and a bound composed (NFC) name
/// the same column, from the text field and from the form.
#[test]
fn names_compare_composed() {
    let (nfd, nfc) = ("a\u{302}ge", "\u{e2}ge");
    assert_eq!(column_name(nfd), nfc);
    assert_eq!(parse_stated(&format!("{nfd}=0:1")).unwrap()[0].0, nfc);
    let e = stated_with(&format!("{nfc}=0:1"), &[(nfd.into(), 0.0, 2.0)]).unwrap();
    assert_eq!(e, [(nfc.to_string(), Range { lo: 0.0, hi: 2.0 })]);
    let twice = [(nfd.to_string(), 0.0, 1.0), (nfc.to_string(), 0.0, 1.0)];
    assert!(stated_with("", &twice)
        .unwrap_err()
        .message
        .contains("twice"));
}

/// #40, 3.6: a 900 KB name is shown cut, with its length, in every refusal that names it.
#[test]
fn a_huge_name_is_shown_short() {
    let huge = "n".repeat(900_000);
    for e in [
        parse_stated(&format!("{huge}=0:1,{huge}=0:1"))
            .unwrap_err()
            .message,
        parse_stated(&format!("{huge}=1:0")).unwrap_err().message,
        parse_stated(&format!("{huge}:0")).unwrap_err().message,
        parse_stated(&format!("\"{huge}")).unwrap_err().message,
        stated_with("", &[(huge.clone(), 0.0, 1e39)])
            .unwrap_err()
            .message,
    ] {
        assert!(
            e.len() < 400 && e.contains("characters)"),
            "{}",
            &e[..400.min(e.len())]
        );
    }
}

/// #40, 3.5: the private estimate's refusal suggests bounds written as they parse back.
#[test]
fn the_estimates_suggestion_parses_back() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let e = crate::data::prepare::bounds::estimate(&[("e,f", Vec::new())], 5.0, &mut rng)
        .unwrap_err()
        .error
        .message;
    let example = e.split("e.g. ").nth(1).unwrap_or_default();
    assert_eq!(parse_stated(example).unwrap()[0].0, "e,f", "{e}");
}
