//! Shared chart helpers: the bundled font, colours, axis ranges, error mapping.

use std::sync::OnceLock;

use plotters::prelude::*;
use plotters::style::FontStyle;

use crate::ReportError;

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
static FONT_READY: OnceLock<Result<(), String>> = OnceLock::new();

/// Registers DejaVu Sans as plotters' "sans-serif" once per process.
pub fn ensure_font() -> Result<(), ReportError> {
    FONT_READY
        .get_or_init(|| {
            for style in [FontStyle::Normal, FontStyle::Bold] {
                plotters::style::register_font("sans-serif", style, FONT)
                    .map_err(|_| "bundled DejaVu Sans could not be parsed".to_string())?;
            }
            Ok(())
        })
        .clone()
        .map_err(ReportError::Chart)
}

pub fn draw_err<E: std::fmt::Display>(e: E) -> ReportError {
    ReportError::Chart(e.to_string())
}

/// Colour-blind-friendly categorical palette (Okabe & Ito), cycled for many systems.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(60, 60, 60),
];

pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

pub const BASELINE_GREY: RGBColor = RGBColor(150, 150, 150);

/// An axis range covering `values` (finite ones only) with a little headroom; `include_zero` for bars.
pub fn range_of(values: impl IntoIterator<Item = f64>, include_zero: bool) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in values.into_iter().filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if include_zero {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    let span = hi - lo;
    let pad = if span > 0.0 { span * 0.08 } else { lo.abs().max(1.0) * 0.1 };
    let lo = if include_zero && lo >= 0.0 { lo } else { lo - pad };
    let hi = if include_zero && hi <= 0.0 { hi } else { hi + pad };
    (lo, hi)
}

/// Short number for labels: no trailing noise, at most two decimals.
pub fn short(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e9 {
        format!("{}", v as i64)
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Truncates long system names for axis labels, keeping the start (which usually identifies the system).
pub fn clip_label(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

pub fn caption_style() -> TextStyle<'static> {
    ("sans-serif", 20).into_font().into()
}

pub fn require(cond: bool, what: &str) -> Result<(), ReportError> {
    if cond {
        Ok(())
    } else {
        Err(ReportError::Invalid(what.to_string()))
    }
}

/// Categorical axis over positions 0..n (range −0.5..n−0.5) whose ticks sit on the integers, so a label
/// formatter can map ticks back to system or bucket names. plotters' own key-point combinator drops the default
/// formatter the mesh needs, hence this small `Ranged`.
#[derive(Clone, Copy)]
pub struct CategoryAxis {
    n: usize,
}

pub fn category_axis(n: usize) -> CategoryAxis {
    CategoryAxis { n: n.max(1) }
}

impl plotters::coord::ranged1d::Ranged for CategoryAxis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let r = self.range();
        let t = (value - r.start) / (r.end - r.start);
        limit.0 + (t * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let max = hint.max_num_points().max(1);
        let step = self.n.div_ceil(max).max(1);
        (0..self.n).step_by(step).map(|i| i as f64).collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        -0.5..(self.n as f64 - 0.5)
    }
}

/// How many characters a category label gets on an axis of `n` categories.
pub fn category_clip(n: usize) -> usize {
    if n > 8 {
        10
    } else {
        18
    }
}

/// A rectangle of a rendered chart (pixels) and what hovering it tells: written into the SVG as a transparent
/// `<rect>` with a `<title>`, so the full system name and its value show on hover in a browser or the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Hover {
    pub x0: i32,
    pub y0: i32,
    pub x1: i32,
    pub y1: i32,
    pub text: String,
}

/// Name for an integer tick (empty between ticks or past the end), clipped to `max` characters.
pub fn category_label(names: &[String], v: f64, max: usize) -> String {
    let i = v.round();
    if (v - i).abs() > 1e-6 || i < 0.0 {
        return String::new();
    }
    names.get(i as usize).map(|s| clip_label(s, max)).unwrap_or_default()
}

/// The labelled frame every chart but the heatmap draws on: caption, axes with descriptions, light mesh.
pub struct Frame<'t> {
    pub title: &'t str,
    pub x_label: &'t str,
    pub y_label: &'t str,
    pub margin: u32,
    pub x_label_area: u32,
}

impl<'t> Frame<'t> {
    pub fn new(title: &'t str, x_label: &'t str, y_label: &'t str) -> Self {
        Frame { title, x_label, y_label, margin: 12, x_label_area: 45 }
    }

    /// A chart over continuous x and y ranges with its mesh drawn.
    pub fn continuous<'a, DB: DrawingBackend>(
        &self,
        root: &'a DrawingArea<DB, plotters::coord::Shift>,
        x: std::ops::Range<f64>,
        y: std::ops::Range<f64>,
    ) -> Result<
        ChartContext<'a, DB, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>,
        ReportError,
    > {
        let mut chart = self.builder(root).build_cartesian_2d(x, y).map_err(draw_err)?;
        chart.configure_mesh().light_line_style(WHITE).x_desc(self.x_label).y_desc(self.y_label).draw().map_err(draw_err)?;
        Ok(chart)
    }

    /// A chart whose x axis holds `slots` named categories (ticks on the integers, labelled from `names`).
    pub fn categories<'a, DB: DrawingBackend>(
        &self,
        root: &'a DrawingArea<DB, plotters::coord::Shift>,
        names: &[String],
        slots: usize,
        y: std::ops::Range<f64>,
    ) -> Result<ChartContext<'a, DB, Cartesian2d<CategoryAxis, plotters::coord::types::RangedCoordf64>>, ReportError> {
        let n = names.len();
        let clip = category_clip(n);
        let shown = super::labels::distinct_labels(names, clip);
        let fmt_x = |v: &f64| category_label(&shown, *v, clip);
        let size = if n > 12 {
            10
        } else if n > 6 {
            12
        } else {
            14
        };
        let mut chart = self.builder(root).build_cartesian_2d(category_axis(slots), y).map_err(draw_err)?;
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .disable_x_mesh()
            .x_labels(slots)
            .x_label_formatter(&fmt_x)
            .x_label_style(("sans-serif", size))
            .x_desc(self.x_label)
            .y_desc(self.y_label)
            .draw()
            .map_err(draw_err)?;
        Ok(chart)
    }

    fn builder<'a, 'b, DB: DrawingBackend>(&self, root: &'a DrawingArea<DB, plotters::coord::Shift>) -> ChartBuilder<'a, 'b, DB> {
        let mut builder = ChartBuilder::on(root);
        builder.caption(self.title, caption_style()).margin(self.margin).x_label_area_size(self.x_label_area).y_label_area_size(60);
        builder
    }
}

/// The series legend in the upper right, on a translucent box so it never hides what is under it completely.
pub fn draw_legend<'a, DB: DrawingBackend + 'a, X: plotters::coord::ranged1d::Ranged, Y: plotters::coord::ranged1d::Ranged>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    font_size: u32,
) -> Result<(), ReportError> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", font_size))
        .draw()
        .map_err(draw_err)
}
