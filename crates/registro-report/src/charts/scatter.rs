//! Trade-off scatter: one labelled point per system; an optional third metric sets the marker size
//! (XFORMAL Fig. 4: BLEU × formality, size = perplexity; Pang & Gimpel: Acc × Sim).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::{Deserialize, Serialize};

use super::common::{color, draw_err, range_of, require, short, Frame, Hover};
use super::labels::distinct_labels;
use crate::ReportError;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct ScatterPoint {
    pub label: String,
    pub x: f64,
    pub y: f64,
    /// Third metric, mapped to the marker radius (bigger value = bigger marker).
    #[serde(default)]
    pub size: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct ScatterChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// What the marker size shows (e.g. "perplexity"); printed under the title.
    #[serde(default)]
    pub size_label: Option<String>,
    pub points: Vec<ScatterPoint>,
}

const R_MIN: f64 = 5.0;
const R_MAX: f64 = 18.0;

pub fn draw<DB: DrawingBackend>(c: &ScatterChart, root: &DrawingArea<DB, Shift>) -> Result<Vec<Hover>, ReportError> {
    require(!c.points.is_empty(), "scatter chart needs at least one point")?;
    require(c.points.iter().all(|p| p.x.is_finite() && p.y.is_finite()), "scatter chart coordinates must be finite numbers")?;
    let (x0, x1) = range_of(c.points.iter().map(|p| p.x), false);
    let (y0, y1) = range_of(c.points.iter().map(|p| p.y), false);
    let sizes: Vec<f64> = c.points.iter().filter_map(|p| p.size).filter(|s| s.is_finite()).collect();
    let (smin, smax) = (sizes.iter().copied().fold(f64::INFINITY, f64::min), sizes.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    let radius = |s: Option<f64>| -> i32 {
        match s {
            Some(s) if s.is_finite() && smax > smin => (R_MIN + (s - smin) / (smax - smin) * (R_MAX - R_MIN)) as i32,
            Some(_) if !sizes.is_empty() => ((R_MIN + R_MAX) / 2.0) as i32,
            _ => 6,
        }
    };

    let title = match &c.size_label {
        Some(s) if !sizes.is_empty() => {
            format!("{} (marker size: {s}, {}–{})", c.title, short(smin), short(smax))
        }
        _ => c.title.clone(),
    };
    let frame = Frame { margin: 16, ..Frame::new(&title, &c.x_label, &c.y_label) };
    let mut chart = frame.continuous(root, x0..x1, y0..y1)?;
    chart
        .draw_series(c.points.iter().enumerate().map(|(i, p)| Circle::new((p.x, p.y), radius(p.size), color(i).mix(0.6).filled())))
        .map_err(draw_err)?;
    let label_style: TextStyle = ("sans-serif", 12).into_font().into();
    let max = if c.points.len() > 8 { 14 } else { 24 };
    let names = distinct_labels(&c.points.iter().map(|p| p.label.clone()).collect::<Vec<_>>(), max);
    chart
        .draw_series(c.points.iter().zip(&names).map(|(p, name)| {
            let dx = (x1 - x0) * 0.012;
            // A point in the right third is labelled on its left, so the label is not cut at the plot's edge.
            let (anchor, x) = if p.x > x0 + (x1 - x0) * 0.67 { (HPos::Right, p.x - dx) } else { (HPos::Left, p.x + dx) };
            Text::new(name.clone(), (x, p.y), label_style.pos(Pos::new(anchor, VPos::Bottom)))
        }))
        .map_err(draw_err)?;
    Ok(c
        .points
        .iter()
        .map(|p| {
            let (x, y) = chart.backend_coord(&(p.x, p.y));
            let r = radius(p.size).max(6);
            let mut text = format!("{}: {} {}, {} {}", p.label, c.x_label, short(p.x), c.y_label, short(p.y));
            if let (Some(s), Some(l)) = (p.size, &c.size_label) {
                text += &format!(", {l} {}", short(s));
            }
            Hover { x0: x - r, y0: y - r, x1: x + r, y1: y + r, text }
        })
        .collect())
}
