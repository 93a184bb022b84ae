//! ε against epochs for each accountant: the whole run's curve (from the preview, before
//! training) thin, the epochs trained so far thick, pinned runs in their looks, each curve
//! named at its end — or, in the log-log view, with its growth exponent.

use super::chart_frame::{
    builder, draw_header, draw_mesh, frame, keyed, message, plot_rect, record, with_points, Fonts,
    Header,
};
use super::chart_kit::{colour, line, open_canvas, Dash, GREY, PIN_LOOKS, VERMILLION};
use super::epsilon_names::pin_moments;
use super::legend::{laid_out_clear, name_curves, names_span, naming, LegendEntry};
use super::run_view::{EpsilonPoint, RunView};
use crate::charts::ticks::light_points;
use crate::charts::{layout, AxisSpec, Format, Scale, Tick};
use crate::privacy::accountant::AccountantName;
use crate::text::format_eps;
use crate::web::js::js_err;
use plotters::prelude::*;
use wasm_bindgen::prelude::*;

/// Draws ε (log scale) against epochs for each accountant: the whole run's curve (the run's
/// preview, with the PLD curve once the accounting worker has computed it) thin, and the epochs
/// trained so far (the run's reports) thick with markers; the pinned runs' moments ε in their
/// looks. Naive and strong are starred when the run uses the paper's or the classical
/// convention, the chart's badge saying what the star means. When every ε is ∞ it says "∞ — no privacy" and why, as far as
/// the chart knows ([`no_privacy`]); before anything is computed, that it is computing.
/// A run its ε budget stopped has its whole-run curves end, and its curves named, where it
/// stopped. `log_log`: x on a log scale too, each curve named with its growth exponent. Returns
/// the ε = ∞ sentence when it drew that instead of curves (then the chart's caption has nothing
/// to describe), else nothing.
#[wasm_bindgen]
pub fn draw_epsilon_chart(
    canvas_id: &str,
    run: &RunView,
    log_log: bool,
    scale: f64,
) -> Result<Option<String>, JsError> {
    let (pinned, epochs) = (&run.pinned, run.epochs);
    let badge = run.convention_badge();
    let preview = run.whole_run();
    // Log-log view: x is log10(epoch) on a linear axis, labelled in epochs, so each accountant's
    // growth shows as a slope (naive 1, strong about ½, the moments accountant much flatter).
    let ex = |e: f64| if log_log { e.max(1.0).log10() } else { e };
    let done: Vec<EpsilonPoint> = run
        .points
        .iter()
        .map(|p| EpsilonPoint::new(p.epoch, &p.epsilon))
        .collect();
    let (root, _) = open_canvas(canvas_id, scale)?;
    let mut fonts = Fonts::new(scale);
    let all = (preview.iter().copied())
        .chain(&done)
        .flat_map(|p| p.eps.iter().filter_map(|(_, v)| *v).collect::<Vec<_>>());
    let positive: Vec<f64> = all.filter(|v| v.is_finite() && *v > 0.0).collect();
    // The pins' moments ε in their looks (a pin of this run is its moments curve already).
    let pins: Vec<_> = pinned
        .iter()
        .zip(PIN_LOOKS)
        .filter(|(pin, _)| !run.is_this_run(pin))
        .map(|(pin, look)| {
            let pts: Vec<(f64, f64)> = (pin_moments(pin).into_iter())
                .map(|(e, v)| (ex(e), v))
                .collect();
            let text = pts.last().map(|&(_, y)| run.pin_epsilon_name(pin, y));
            (look, pts, text)
        })
        .collect();

    if preview.is_empty() && done.is_empty() {
        // Nothing computed yet (the page is loading its data): no ε to claim, least of all ∞.
        message(&root, "ε: computing…", 18.0 * scale, GREY)?;
        record(canvas_id, &root, None, fonts, 0.0);
        return root.present().map(|_| None).map_err(js_err);
    }
    if positive.is_empty() {
        let said = no_privacy(run);
        message(&root, &said, 22.0 * scale, VERMILLION)?;
        record(canvas_id, &root, None, fonts, 0.0);
        return root.present().map(|_| Some(said)).map_err(js_err);
    }
    // The y range takes in the pins' curves too (plotters would move a point past it onto
    // the plot's edge: a pin at σ = 4 behind a run at σ = 0.5 lay flat on the x axis).
    let pinned_eps = pins.iter().flat_map(|(_, pts, _)| pts.iter().map(|p| p.1));
    let drawn: Vec<f64> = positive.iter().copied().chain(pinned_eps).collect();
    let lo = drawn.iter().cloned().fold(f64::INFINITY, f64::min) * 0.8;
    let hi = drawn.iter().cloned().fold(0.0, f64::max) * 1.5;
    let name = |a: AccountantName| a.label_under(run.amplification);
    let at_x = |pts: Vec<(f64, f64)>| -> Vec<(f64, f64)> {
        pts.into_iter().map(|(e, v)| (ex(e), v)).collect()
    };
    // Each accountant's curves and the name at their end: "moments 1.699", with the growth
    // exponent over the second half of the run in the log-log view (d ln ε / d ln E).
    let mut curves = Vec::new();
    for a in AccountantName::ALL {
        let (whole, trained) = run.epsilon_series(a);
        let end = run.named_at(&whole, &trained).map(|(e, v)| (ex(e), v));
        let (whole, trained) = (at_x(whole), at_x(trained));
        let text = end.map(|(x, y)| {
            let slope = match whole.len() {
                n if log_log && n >= 4 => {
                    let (x0, y0) = whole[n / 2];
                    let s = (y.ln() - y0.ln()) / ((x - x0) * std::f64::consts::LN_10);
                    format!(" (slope {s:.2})")
                }
                _ => String::new(),
            };
            format!("{} {}{slope}", name(a), format_eps(y))
        });
        curves.push((colour(a), whole, trained, end.zip(text)));
    }
    let mut legend: Vec<LegendEntry> = Vec::new();
    for (color, _, _, end) in &curves {
        legend.extend(
            end.as_ref()
                .map(|e| (e.1.clone(), *color, Dash::Solid.into())),
        );
    }
    for ((color, dash), _, text) in &pins {
        legend.extend(text.as_ref().map(|t| (t.clone(), *color, (*dash).into())));
    }

    let title = run.epsilon_title();
    let header = Header {
        title: &title,
        badge: badge.as_deref(),
        note: None,
    };
    let top = draw_header(&root, &mut fonts, &header)?;
    let (width, height) = root.dim_in_pixel();
    let (width, height) = (width as f64, height as f64);
    let samples = !pins.is_empty();
    let names = legend.len();
    let naming = naming(&legend, fonts.legend, samples, (width, height));
    let x_end = (epochs.max(if log_log { 2 } else { 1 }) as f64).max(run.pins_last_epoch());
    let x = if log_log {
        AxisSpec::new(1.0, x_end, Scale::Log, Format::Log, "epoch (log scale)")
    } else {
        AxisSpec::new(0.0, x_end, Scale::Integer, Format::Decimal, "epoch")
    };
    let y = AxisSpec::new(lo, hi, Scale::Log, Format::Log, "ε (log scale)");
    let (naming, frame, lay) = laid_out_clear(naming, height, fonts.legend, |right, bottom| {
        let frame = frame(&root, &fonts, top, right, bottom);
        let lay = layout(&frame, &x, &y, None);
        (frame, lay)
    });
    // The x ticks where they are drawn: at log10(epoch) in the log-log view.
    let x_ticks: Vec<Tick> = lay
        .x
        .iter()
        .map(|t| Tick {
            value: ex(t.value),
            label: t.label.clone(),
        })
        .collect();
    let light: Vec<f64> = light_points(&lay.x, x.lo, x.hi, x.scale)
        .into_iter()
        .map(ex)
        .collect();
    let x_range = with_points(
        0.0..ex(x_end),
        x_ticks.iter().map(|t| t.value).collect(),
        light,
    );
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            x_range,
            keyed((lo..hi).log_scale(), &lay.y, lo, hi, Scale::Log),
        )
        .map_err(js_err)?;
    draw_mesh(&mut chart, &lay, &x_ticks, &lay.y, &fonts, &frame)?;
    let unit = scale;
    let mut labels = Vec::new();
    for (color, whole, trained, end) in curves {
        line(
            &mut chart,
            whole,
            (color.mix(0.45), Dash::Solid),
            1.5 * unit,
            unit,
        )?;
        line(
            &mut chart,
            trained.clone(),
            (color, Dash::Solid),
            3.0 * unit,
            unit,
        )?;
        let dots = trained
            .iter()
            .map(|&p| Circle::new(p, (3.0 * unit) as u32, color.filled()));
        chart.draw_series(dots).map_err(js_err)?;
        if let Some(((x, y), text)) = end {
            labels.push((
                (text, color, Dash::Solid.into()),
                chart.backend_coord(&(x, y)),
            ));
        }
    }
    for ((color, dash), pts, text) in pins {
        line(&mut chart, pts.clone(), (color, dash), 2.5 * unit, unit)?;
        if let (Some(&(x, y)), Some(text)) = (pts.last(), text) {
            let at = chart.backend_coord(&(x, y));
            labels.push(((text, color, dash.into()), at));
        }
    }
    let plot = plot_rect(chart.plotting_area());
    let span = names_span(&lay, &plot, height, fonts.legend);
    name_curves(&root, naming, labels, samples, fonts.legend, span)?;
    let needs = naming.plot_needs(names, fonts.legend);
    record(canvas_id, &root, Some(plot), fonts, needs);
    root.present().map(|_| None).map_err(js_err)
}

/// The ε chart's sentence when no ε is finite, naming σ = 0 only when σ is 0: a run with noise
/// on its steps has ε = ∞ too when another release has none (DP-PCA at σ_p = 0), or when the
/// sanitizer adds none or does not clip (the page's "Not covered" list says which).
fn no_privacy(run: &RunView) -> String {
    let why = if run.sigma == Some(0.0) {
        "σ = 0"
    } else if run.mode.is_some_and(|m| !m.adds_noise()) {
        "no noise added"
    } else {
        "see “Not covered”"
    };
    format!("ε = ∞ — no privacy ({why})")
}
