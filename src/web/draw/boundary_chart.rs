//! The decision boundary of a model on 2-D data, with the points the page may show on it.

use super::chart_frame::{
    builder, draw_header, frame, keyed, labeller, record_plot, Fonts, Header,
};
use super::chart_kit::{open_canvas, BLUE, ORANGE};
use crate::charts::{layout, AxisSpec, Format, Scale};
use crate::web::js::js_err;
use plotters::prelude::*;
use wasm_bindgen::prelude::*;

/// The decision boundary of a model on 2-D data: a `res` × `res` heatmap of P(class 1)
/// (`probs`, row by row from the bottom) over `bounds` = [x_min, x_max, y_min, y_max], with the
/// training points (`points` = [x, y, label, …]) on top.
#[wasm_bindgen]
pub fn draw_boundary(
    canvas_id: &str,
    bounds: &[f32],
    res: u32,
    probs: &[f32],
    points: &[f32],
    scale: f64,
) -> Result<(), JsError> {
    let (root, px) = open_canvas(canvas_id, scale)?;
    if bounds.len() != 4 || probs.len() != (res * res) as usize {
        return Err(JsError::new(
            "boundary: bounds need 4 numbers and probs res × res",
        ));
    }
    let (x0, x1, y0, y1) = (
        bounds[0] as f64,
        bounds[1] as f64,
        bounds[2] as f64,
        bounds[3] as f64,
    );
    let mut fonts = Fonts::new(scale);
    let title = "Decision boundary: the model's P(blue) over the plane";
    let top = draw_header(&root, &mut fonts, &Header::titled(title))?;
    let frame = frame(&root, &fonts, top, 0.0, 0.0);
    let x = AxisSpec::new(x0, x1, Scale::Linear, Format::Decimal, "");
    let y = AxisSpec::new(y0, y1, Scale::Linear, Format::Decimal, "");
    let lay = layout(&frame, &x, &y, None);
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            keyed(x0..x1, &lay.x, x0, x1, Scale::Linear),
            keyed(y0..y1, &lay.y, y0, y1, Scale::Linear),
        )
        .map_err(js_err)?;
    let (xf, yf) = (labeller(&lay.x), labeller(&lay.y));
    chart
        .configure_mesh()
        .disable_mesh()
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(fonts.tick_style())
        .set_all_tick_mark_size(frame.tick_len.round() as u32)
        .draw()
        .map_err(js_err)?;
    let res_u = res as usize;
    let (dx, dy) = ((x1 - x0) / res as f64, (y1 - y0) / res as f64);
    // Orange (P = 0) through white (0.5) to blue (P = 1).
    let shade = |p: f32| {
        let t = (p.clamp(0.0, 1.0) as f64 - 0.5) * 2.0;
        let (c, a) = if t < 0.0 { (ORANGE, -t) } else { (BLUE, t) };
        let mix = |ch: u8| (255.0 + (ch as f64 - 255.0) * a * 0.6) as u8;
        RGBColor(mix(c.0), mix(c.1), mix(c.2))
    };
    chart
        .draw_series(probs.iter().enumerate().map(|(k, &p)| {
            let (i, j) = ((k % res_u) as f64, (k / res_u) as f64);
            Rectangle::new(
                [
                    (x0 + i * dx, y0 + j * dy),
                    (x0 + (i + 1.0) * dx, y0 + (j + 1.0) * dy),
                ],
                shade(p).filled(),
            )
        }))
        .map_err(js_err)?;
    chart
        .draw_series(points.chunks_exact(3).map(|p| {
            let color = if p[2] > 0.5 { BLUE } else { ORANGE };
            Circle::new((p[0] as f64, p[1] as f64), px(3.0), color.filled())
        }))
        .map_err(js_err)?;
    record_plot(canvas_id, &root, chart.plotting_area(), fonts);
    root.present().map_err(js_err)
}
