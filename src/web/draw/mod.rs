//! The page's charts, drawn with plotters on its canvases: one file per chart, on the toolkit in
//! [`chart_kit`] (colours, canvases, series) and the frame in [`chart_frame`] (header, axes laid
//! out by [`crate::charts`], the layouts recorded by [`chart_record`] for the tests);
//! [`run_view`] is what a chart is given of the runs (the run, its pins, its previews). A chart
//! reads only what it is handed and the rooms below `web` — never the wasm entry points beside
//! it (`tests/layers.rs`: `web::draw` is a room under `web`).

pub(super) mod accuracy_chart;
pub(super) mod alice_chart;
pub(super) mod audit_chart;
pub(super) mod boundary_chart;
pub(super) mod chart_frame;
pub(super) mod chart_kit;
pub(super) mod chart_record;
pub(super) mod clipping_chart;
pub(super) mod curve_names;
pub(super) mod epsilon_chart;
pub(super) mod epsilon_names;
pub(super) mod groups_chart;
pub(super) mod legend;
pub(super) mod legend_sample;
pub(super) mod noise_chart;
pub(super) mod run_view;
pub(super) mod sigma_chart;
