//! The clipping histogram's words (drawn by `web::draw::clipping_chart`).

/// The histogram's title: the C its line is at and the share of the last lot's gradients above
/// it (`clipped`; `None` before the first lot). `adapted`: C is the run's own, as adaptive
/// clipping (Andrew et al. 2021) left it, not the slider's starting value.
pub fn histogram_title(clipped: Option<f64>, clip: f64, adapted: bool) -> String {
    match clipped {
        None => "Per-example gradient norms (no lot yet)".to_string(),
        Some(share) => format!(
            "Gradient norms of the last lot: {}C = {clip:.3} clips {:.0}%",
            if adapted { "adapted " } else { "" },
            100.0 * share
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_title_names_an_adapted_c_as_such() {
        assert_eq!(
            histogram_title(Some(0.14), 1.0, false),
            "Gradient norms of the last lot: C = 1.000 clips 14%"
        );
        assert_eq!(
            histogram_title(Some(0.5), 0.2449, true),
            "Gradient norms of the last lot: adapted C = 0.245 clips 50%"
        );
        assert_eq!(
            histogram_title(None, 1.0, true),
            "Per-example gradient norms (no lot yet)"
        );
    }
}
