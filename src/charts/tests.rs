//! The layout over many canvas sizes, text scales and data ranges: no two tick labels or axis
//! titles overlap, all of them lie on the canvas, every axis keeps a label, and no label
//! reads "-0".

use super::*;

/// An axis of the charts' kinds: epochs, accuracies, tiny, huge, signed and log ranges.
fn axes() -> Vec<AxisSpec> {
    let a = |lo, hi, scale, format, title: &str| AxisSpec::new(lo, hi, scale, format, title);
    let mut out = vec![
        a(0.89, 0.98, Scale::Linear, Format::Percent, "accuracy"),
        a(0.0, 1.0, Scale::Linear, Format::Decimal, "fraction clipped"),
        a(0.0001, 0.0003, Scale::Linear, Format::Decimal, "tiny"),
        a(-1e-5, 1e-5, Scale::Linear, Format::Decimal, ""),
        a(0.0, 5e8, Scale::Linear, Format::Decimal, "huge"),
        a(-3.2, 2.7, Scale::Linear, Format::Decimal, ""),
        a(1e-4, 1e9, Scale::Log, Format::Log, "ε (log scale)"),
        a(0.5, 3.0, Scale::Log, Format::Log, "σ (log scale)"),
        a(1.2, 1.8, Scale::Log, Format::Log, "norm (log scale)"),
        a(1.0, 100.0, Scale::Log, Format::Log, "epoch (log scale)"),
    ];
    for epochs in [1.0, 2.0, 3.0, 7.0, 10.0, 16.0, 30.0, 64.0, 100.0] {
        out.push(a(0.0, epochs, Scale::Integer, Format::Decimal, "epoch"));
    }
    out
}

/// A label that reads as minus zero ("-0", "-0.00", "-0%").
fn minus_zero(label: &str) -> bool {
    label.starts_with('-') && label[1..].chars().all(|c| matches!(c, '0' | '.' | '%'))
}

#[test]
fn tick_labels_never_collide() {
    let axes = axes();
    let mut checked = 0;
    // Canvases 300–2000 × 150–1200 CSS px at device pixel ratios 1–3, with the page's text
    // scale 1 or the presenter's 1.3: fonts of 13 to 51 canvas px.
    for width in (300..=2000).step_by(100) {
        for height in (150..=1200).step_by(75) {
            for (dpr, text) in [1.0, 2.0, 3.0]
                .into_iter()
                .flat_map(|d| [(d, 1.0), (d, 1.3)])
            {
                let scale = dpr * text;
                let frame = Frame {
                    width: width as f64 * dpr,
                    height: height as f64 * dpr,
                    top: 40.0 * scale,
                    right: 10.0 * scale,
                    bottom: 10.0 * scale,
                    left: 10.0 * scale,
                    tick_font: 13.0 * scale,
                    title_font: 13.0 * scale,
                    tick_len: 5.0 * scale,
                };
                let canvas = Rect {
                    x: 0.0,
                    y: 0.0,
                    w: frame.width,
                    h: frame.height,
                };
                for (i, x) in axes.iter().enumerate() {
                    for k in [1, 4, 7] {
                        let y = &axes[(i + k) % axes.len()];
                        let y2 = (k == 4).then(|| &axes[1]);
                        let lay = layout(&frame, x, y, y2);
                        let what = format!("{width}×{height} at ×{scale}, x {x:?}, y {y:?}");
                        check(&lay, &canvas, &what);
                        assert!(!lay.x.is_empty() && !lay.y.is_empty(), "{what}: no ticks");
                        for t in lay.x.iter().filter(|_| x.scale == Scale::Integer) {
                            assert_eq!(t.value.fract(), 0.0, "{what}: epoch tick {t:?}");
                        }
                        for (axis, spec) in [(&lay.x, x), (&lay.y, y)] {
                            assert!(evenly_spaced(axis, spec), "{what}: {axis:?}");
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 20_000, "{checked} layouts");
}

/// Whether a linear axis's ticks are evenly spaced (a log axis's 1, 2, 5 are not meant to be).
fn evenly_spaced(ticks: &[Tick], spec: &AxisSpec) -> bool {
    let steps: Vec<f64> = ticks.windows(2).map(|w| w[1].value - w[0].value).collect();
    spec.scale == Scale::Log
        || steps
            .windows(2)
            .all(|d| (d[1] - d[0]).abs() <= 1e-9 * d[0].abs().max(1e-300))
}

/// No two boxes overlap, each is on the canvas, no label is "-0".
fn check(lay: &Layout, canvas: &Rect, what: &str) {
    let boxes = lay.label_boxes();
    for (i, (a, text)) in boxes.iter().enumerate() {
        assert!(!minus_zero(text), "{what}: label {text}");
        assert!(
            a.inside(canvas),
            "{what}: {text:?} at {a:?} is off the canvas"
        );
        for (b, other) in &boxes[i + 1..] {
            assert!(
                !a.overlaps(b),
                "{what}: {text:?} at {a:?} overlaps {other:?} at {b:?}"
            );
        }
    }
}

#[test]
fn epochs_on_a_tablet_are_spaced_out() {
    // The ε chart's x axis on a 768 px tablet (two columns of 362 px): 16 epochs once read
    // "10121416".
    let t = ticks(
        0.0,
        16.0,
        Scale::Integer,
        Format::Decimal,
        200.0,
        true,
        13.0,
    );
    let labels: Vec<&str> = t.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(labels, ["0", "5", "10", "15"]);
    let wide = ticks(
        0.0,
        16.0,
        Scale::Integer,
        Format::Decimal,
        900.0,
        true,
        13.0,
    );
    assert_eq!(wide.len(), 9, "{wide:?}");
}

#[test]
fn labels_are_written_without_minus_zero_and_with_the_digits_the_spacing_needs() {
    assert_eq!(ticks::write(-1e-17, 0.5, Format::Decimal), "0");
    assert_eq!(ticks::write(-0.0001, 0.5, Format::Decimal), "0.0");
    assert_eq!(ticks::write(-0.0001, 0.01, Format::Percent), "0%");
    assert_eq!(ticks::write(0.925, 0.005, Format::Percent), "92.5%");
    assert_eq!(ticks::write(2.5e8, 5e7, Format::Decimal), "2.5e8");
    assert_eq!(ticks::write(1.5, 0.5, Format::Log), "1.5");
    assert_eq!(ticks::write(5e-4, 1.0, Format::Log), "5e-4");
    // The boundary chart's axes from -3.2 to 2.7: a tick at 0 reads "0", never "-0.0".
    let t = ticks(-3.2, 2.7, Scale::Linear, Format::Decimal, 300.0, true, 12.0);
    assert!(t.iter().any(|t| t.label == "0"), "{t:?}");
}

#[test]
fn a_narrow_log_range_still_gets_labels() {
    let t = ticks(1.2, 1.8, Scale::Log, Format::Log, 200.0, false, 13.0);
    assert!(t.len() >= 2, "{t:?}");
    let many = ticks(1e-4, 1e9, Scale::Log, Format::Log, 300.0, false, 13.0);
    assert!(many.len() >= 3 && many.len() <= 11, "{many:?}");
}

#[test]
fn titles_fit_the_width_by_shrinking_then_wrapping() {
    let title = "Signal ‖Σ clipped g_i‖, noise, fraction clipped";
    let (lines, font) = fit_title(title, 2000.0, 18.0, 16.0);
    assert_eq!((lines.len(), font), (1, 18.0));
    let (lines, font) = fit_title(title, text_width(title, 17.0), 18.0, 16.0);
    assert!(lines.len() == 1 && (font - 17.0).abs() < 1e-9);
    let (lines, font) = fit_title(title, 300.0, 18.0, 16.0);
    assert!(lines.len() >= 2 && font == 16.0, "{lines:?}");
    for l in &lines {
        assert!(text_width(l, font) <= 300.0, "{l}");
    }
    assert_eq!(lines.join(" "), title);
    assert!(text_width(&fit_text(title, 100.0, 13.0), 13.0) <= 100.0);
}

/// The tick labels' size on a projector's chart under large type (canvas px).
const PROJECTOR_FONT: f64 = 24.4;

/// A projector's chart of `width` × `height` under large type: its labels at
/// [`PROJECTOR_FONT`], a 62 px header.
fn projector_frame(width: f64, height: f64) -> Frame {
    Frame {
        width,
        height,
        top: 62.0,
        right: 10.0,
        bottom: 16.0,
        left: 11.0,
        tick_font: PROJECTOR_FONT,
        title_font: PROJECTOR_FONT,
        tick_len: 9.4,
    }
}

#[test]
fn a_low_chart_folds_its_x_title_onto_the_tick_row_and_keeps_its_plot() {
    // A projector's chart under large type: 604 × 240 CSS px, 24.4 px labels, a 62 px header.
    let font = PROJECTOR_FONT;
    let frame = |height: f64| projector_frame(604.0, height);
    let x = AxisSpec::new(0.0, 10.0, Scale::Integer, Format::Decimal, "epoch");
    let y = AxisSpec::new(0.75, 0.86, Scale::Linear, Format::Percent, "accuracy");
    let low = layout(&frame(240.0), &x, &y, None);
    assert_eq!(low.titles[0], "", "no title under the tick row");
    let last = low.x.last().expect("an x tick");
    assert!(last.label.ends_with(" epoch"), "{:?}", low.x);
    assert!(low.plot.h >= 0.4 * 240.0, "plot {:?}", low.plot);
    let canvas = Rect {
        x: 0.0,
        y: 0.0,
        w: 604.0,
        h: 240.0,
    };
    check(&low, &canvas, "folded");
    // Unfolded it would have kept less than 40%: the fold is what keeps the plot.
    let under = 9.4 * 2.0 + 1.2 * font + font / 4.0 + 1.2 * font;
    assert!(240.0 - 62.0 - 16.0 - under < 0.4 * 240.0);
    // A tall chart keeps its title under the labels, and every tick.
    let tall = layout(&frame(600.0), &x, &y, None);
    assert_eq!(tall.titles[0], "epoch");
    assert!(tall.x.iter().all(|t| !t.label.contains("epoch")));
}

#[test]
fn an_axis_keeps_two_evenly_spaced_labels_where_they_fit() {
    // Who pays at Text: largest: 5–85% on a low plot. The 20% step does not fit, the 50% one
    // holds "50%" alone, which says nothing of the scale: every other 20% label does fit.
    let t = ticks(
        0.05,
        0.85,
        Scale::Linear,
        Format::Percent,
        150.0,
        false,
        24.0,
    );
    let labels: Vec<&str> = t.iter().map(|t| t.label.as_str()).collect();
    assert!(labels.len() >= 2, "{labels:?}");
    let spec = AxisSpec::new(0.05, 0.85, Scale::Linear, Format::Percent, "accuracy");
    assert!(evenly_spaced(&t, &spec), "{labels:?}");
}

#[test]
fn a_folded_title_keeps_the_labels_before_it_evenly_spaced() {
    // Who pays, step 2, at 1280 × 720: "0 1 2 3 5 epoch" once (the 4 alone dropped), and
    // Alice's loss axis "1.41 loss on Alice" alone.
    let frame = |width: f64| projector_frame(width, 240.0);
    let y = AxisSpec::new(0.75, 0.86, Scale::Linear, Format::Percent, "accuracy");
    for (x, width) in [
        (
            AxisSpec::new(0.0, 5.0, Scale::Integer, Format::Decimal, "epoch"),
            420.0,
        ),
        (
            AxisSpec::new(
                1.398,
                1.412,
                Scale::Linear,
                Format::Decimal,
                "loss on Alice",
            ),
            520.0,
        ),
    ] {
        let lay = layout(&frame(width), &x, &y, None);
        assert_eq!(lay.titles[0], "", "folded: {:?}", lay.x);
        assert!(lay.x.len() >= 2, "{:?}", lay.x);
        assert!(evenly_spaced(&lay.x, &x), "{:?}", lay.x);
        check(
            &lay,
            &Rect {
                x: 0.0,
                y: 0.0,
                w: width,
                h: 240.0,
            },
            "folded",
        );
    }
}

/// A log axis's title too long for a low plot even at 3/4 of its size says "(log)" rather than
/// being cut ("ε (log scal…" on the moments lesson's ε chart at 1280 × 720); one that fits
/// keeps "(log scale)".
#[test]
fn a_log_axis_title_shortens_before_it_is_cut() {
    let y = |h: f64| {
        let frame = projector_frame(604.0, h);
        let x = AxisSpec::new(1.0, 100.0, Scale::Log, Format::Log, "epoch (log scale)");
        let eps = AxisSpec::new(0.1, 10.0, Scale::Log, Format::Log, "ε (log scale)");
        layout(&frame, &x, &eps, None).titles[1].clone()
    };
    assert_eq!(y(190.0), "ε (log)");
    assert_eq!(y(600.0), "ε (log scale)");
    // Too low for even "ε (log)" at 3/4 of the size: no title, never a cut one.
    let low = y(132.0);
    assert!(low.is_empty(), "{low}");
    for h in (120..600).step_by(7) {
        assert!(!y(f64::from(h)).contains('…'), "{h}: {}", y(f64::from(h)));
    }
}

/// A histogram's counts (the Alice chart's runs): whole numbers from 0, at most six, spaced a
/// label and its gap apart however short the axis — six labels of 24 px once stood on one
/// another on a 100 px plot — and 0 always kept.
#[test]
fn whole_ticks_are_whole_few_and_apart() {
    for top in [1u64, 3, 7, 10, 37, 100, 300, 1000, 12_345] {
        let hi = top as f64 * 1.1;
        for (length, font) in [(400.0, 13.0), (100.0, 24.0), (60.0, 39.0), (1000.0, 13.0)] {
            let t = ticks::whole_ticks(top, hi, length, font);
            let what = format!("top {top}, {length} px, {font} px: {t:?}");
            assert!(!t.is_empty() && t[0].value == 0.0 && t.len() <= 6, "{what}");
            assert!(t
                .iter()
                .all(|k| k.value.fract() == 0.0 && k.value <= top as f64));
            let apart = 1.2 * font + 0.6 * font;
            for w in t.windows(2) {
                assert!((w[1].value - w[0].value) / hi * length >= apart, "{what}");
            }
            // As many as fit: the next step down would crowd them or make more than six.
            if t.len() == 1 {
                assert!(top as f64 / hi * length < apart, "{what}");
            }
        }
    }
    let labels = |t: Vec<Tick>| t.into_iter().map(|k| k.label).collect::<Vec<_>>();
    assert_eq!(
        labels(ticks::whole_ticks(100, 110.0, 400.0, 13.0)),
        ["0", "20", "40", "60", "80", "100"]
    );
    assert_eq!(
        labels(ticks::whole_ticks(100, 110.0, 100.0, 24.0)),
        ["0", "50", "100"]
    );
}

/// A text shrunk to exactly its room (the font = room ÷ its width at 1 px, as the axis titles
/// are) is not cut: the product may round a hair over the room, and the moments lesson's ε
/// axis at 1280 × 720 read "ε (log scal…" where "ε (log scale)" fitted.
#[test]
fn a_text_shrunk_to_its_room_is_whole() {
    for title in ["ε (log scale)", "norm (log)", "examples", "accuracy"] {
        let mut cut = Vec::new();
        for k in 0..2000 {
            let room = 40.0 + k as f64 * 0.173;
            let font = room / text_width(title, 1.0);
            if fit_text(title, room, font) != title {
                cut.push(room);
            }
        }
        assert!(
            cut.is_empty(),
            "{title}: cut at {} rooms, e.g. {:?}",
            cut.len(),
            cut.first()
        );
    }
}
