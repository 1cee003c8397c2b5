//! Matrix between systems, each cell coloured (viridis) and annotated with its value — the lexical difference
//! (LeD) between every pair of systems (XFORMAL Fig. 3).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::{Deserialize, Serialize};

use super::common::{caption_style, category_axis, category_label, draw_err, require, short, Hover};
use super::labels::distinct_labels;
use crate::ReportError;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct HeatmapChart {
    pub title: String,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// `values[row][col]`; `None` draws an empty cell (e.g. the diagonal).
    pub values: Vec<Vec<Option<f64>>>,
    /// What the cells measure, printed under the title.
    #[serde(default)]
    pub value_label: String,
}

pub fn draw<DB: DrawingBackend>(c: &HeatmapChart, root: &DrawingArea<DB, Shift>) -> Result<Vec<Hover>, ReportError> {
    let (nr, nc) = (c.row_labels.len(), c.col_labels.len());
    require(nr > 0 && nc > 0, "heatmap needs at least one row and one column")?;
    if c.values.len() != nr || c.values.iter().any(|r| r.len() != nc) {
        return Err(ReportError::Invalid(format!("heatmap values must be {nr} rows × {nc} columns")));
    }
    let finite: Vec<f64> = c.values.iter().flatten().flatten().copied().filter(|v| v.is_finite()).collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if finite.is_empty() { (0.0, 1.0) } else if hi > lo { (lo, hi) } else { (lo - 0.5, hi + 0.5) };

    let title = if c.value_label.is_empty() { c.title.clone() } else { format!("{} ({})", c.title, c.value_label) };
    let max = if nc > 8 { 10 } else { 16 };
    let cols = distinct_labels(&c.col_labels, max);
    let rows = distinct_labels(&c.row_labels, max);
    let col_fmt = |v: &f64| category_label(&cols, *v, max);
    // Row 0 is drawn at the top: rows are laid out at y = nr-1-i.
    let row_fmt = |v: &f64| {
        let i = v.round();
        if (v - i).abs() > 1e-6 || i < 0.0 || i as usize >= nr {
            String::new()
        } else {
            rows[nr - 1 - i as usize].clone()
        }
    };
    let mut chart = ChartBuilder::on(root)
        .caption(title, caption_style())
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(110)
        .build_cartesian_2d(category_axis(nc), category_axis(nr))
        .map_err(draw_err)?;
    let font_size = if nc > 12 { 9 } else if nc > 6 { 11 } else { 13 };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(nc)
        .y_labels(nr)
        .x_label_formatter(&col_fmt)
        .y_label_formatter(&row_fmt)
        .label_style(("sans-serif", font_size))
        .draw()
        .map_err(draw_err)?;

    let cells = c.values.iter().enumerate().flat_map(|(i, row)| {
        row.iter().enumerate().map(move |(j, v)| (nr - 1 - i, j, *v))
    });
    chart
        .draw_series(cells.clone().map(|(y, x, v)| {
            let fill = match v {
                Some(v) if v.is_finite() => ViridisRGB::get_color_normalized(v, lo, hi).filled(),
                _ => RGBColor(235, 235, 235).filled(),
            };
            Rectangle::new([(x as f64 - 0.5, y as f64 - 0.5), (x as f64 + 0.5, y as f64 + 0.5)], fill)
        }))
        .map_err(draw_err)?;
    let style: TextStyle = ("sans-serif", font_size).into_font().into();
    let style = style.pos(Pos::new(HPos::Center, VPos::Center));
    chart
        .draw_series(cells.filter_map(|(y, x, v)| {
            let v = v.filter(|v| v.is_finite())?;
            // Viridis is dark at the low end: white text there, black on the light end.
            let dark = (v - lo) / (hi - lo) < 0.6;
            let s = style.clone().color(if dark { &WHITE } else { &BLACK });
            Some(Text::new(short(v), (x as f64, y as f64), s))
        }))
        .map_err(draw_err)?;
    let mut hovers = Vec::with_capacity(nr * nc);
    for (i, row) in c.values.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let y = (nr - 1 - i) as f64;
            let (x0, y0) = chart.backend_coord(&(j as f64 - 0.5, y + 0.5));
            let (x1, y1) = chart.backend_coord(&(j as f64 + 0.5, y - 0.5));
            let value = v.filter(|v| v.is_finite()).map_or("–".to_string(), short);
            hovers.push(Hover { x0, y0, x1, y1, text: format!("{} ↔ {}: {value}", c.row_labels[i], c.col_labels[j]) });
        }
    }
    Ok(hovers)
}
