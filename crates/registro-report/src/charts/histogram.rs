//! Overlaid histograms over shared bins: Levenshtein distance between input and output (XFORMAL Fig. 1),
//! formality scores of inputs vs outputs (Fig. 2).

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use super::common::{color, draw_err, draw_legend, require, Frame, BASELINE_GREY};
use super::labels::distinct_labels;
use crate::ReportError;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct HistSeries {
    pub label: String,
    /// Raw observations; binned at draw time.
    pub values: Vec<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct HistogramChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Increasing bin edges; `n + 1` edges make `n` bins. The last bin includes its right edge.
    pub bin_edges: Vec<f64>,
    pub series: Vec<HistSeries>,
    /// Plot each series as percent of its observations so systems with different counts compare.
    #[serde(default)]
    pub percent: bool,
}

impl HistogramChart {
    /// `n` equal bins spanning `[lo, hi]`.
    pub fn uniform_edges(lo: f64, hi: f64, n: usize) -> Vec<f64> {
        let n = n.max(1);
        (0..=n).map(|i| lo + (hi - lo) * i as f64 / n as f64).collect()
    }

    /// Bin counts of one series (values outside the edges are dropped; NaN ignored).
    pub fn counts(&self, series: &HistSeries) -> Vec<f64> {
        bin(&self.bin_edges, &series.values)
    }
}

pub fn bin(edges: &[f64], values: &[f64]) -> Vec<f64> {
    let nb = edges.len().saturating_sub(1);
    let mut out = vec![0.0; nb];
    if nb == 0 {
        return out;
    }
    let last = edges[nb];
    for &v in values {
        if !v.is_finite() || v < edges[0] || v > last {
            continue;
        }
        // First edge greater than v, minus one; v == last falls into the final bin.
        let idx = edges.partition_point(|e| *e <= v).saturating_sub(1).min(nb - 1);
        out[idx] += 1.0;
    }
    out
}

pub fn draw<DB: DrawingBackend>(c: &HistogramChart, root: &DrawingArea<DB, Shift>) -> Result<(), ReportError> {
    require(c.bin_edges.len() >= 2, "histogram needs at least two bin edges")?;
    require(
        c.bin_edges.windows(2).all(|w| w[0] < w[1] && w[1].is_finite()) && c.bin_edges[0].is_finite(),
        "histogram bin edges must be finite and strictly increasing",
    )?;
    require(!c.series.is_empty(), "histogram needs at least one series")?;
    let heights: Vec<Vec<f64>> = c
        .series
        .iter()
        .map(|s| {
            let counts = c.counts(s);
            let total: f64 = counts.iter().sum();
            if c.percent && total > 0.0 {
                counts.iter().map(|v| v / total * 100.0).collect()
            } else {
                counts
            }
        })
        .collect();
    let top = heights.iter().flatten().copied().fold(0.0, f64::max).max(1e-9) * 1.25;
    let (x0, x1) = (c.bin_edges[0], *c.bin_edges.last().unwrap_or(&1.0));
    let mut chart = Frame::new(&c.title, &c.x_label, &c.y_label).continuous(root, x0..x1, 0.0..top)?;
    let single = c.series.len() == 1;
    let names = distinct_labels(&c.series.iter().map(|s| s.label.clone()).collect::<Vec<_>>(), 28);
    for (j, ((_, h), name)) in c.series.iter().zip(&heights).zip(names).enumerate() {
        let col = if single { BASELINE_GREY.mix(1.0).to_rgba() } else { color(j).to_rgba() };
        let col = RGBColor(col.0, col.1, col.2);
        let alpha = if single { 0.8 } else { 0.35 };
        chart
            .draw_series(
                h.iter()
                    .enumerate()
                    .map(|(i, v)| Rectangle::new([(c.bin_edges[i], 0.0), (c.bin_edges[i + 1], *v)], col.mix(alpha).filled())),
            )
            .map_err(draw_err)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], col.filled()));
        // An outline per series keeps overlapping distributions readable.
        let mut outline = Vec::with_capacity(h.len() * 2 + 2);
        outline.push((c.bin_edges[0], 0.0));
        for (i, v) in h.iter().enumerate() {
            outline.push((c.bin_edges[i], *v));
            outline.push((c.bin_edges[i + 1], *v));
        }
        outline.push((x1, 0.0));
        chart.draw_series(LineSeries::new(outline, col.stroke_width(2))).map_err(draw_err)?;
    }
    draw_legend(&mut chart, 12)
}
