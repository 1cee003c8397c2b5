//! Bar charts: per-system bars with CI whiskers, stacked category bars, and bars grouped by bucket.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::{Deserialize, Serialize};

use super::common::{color, draw_err, draw_legend, range_of, require, short, Frame, Hover, BASELINE_GREY};
use super::labels::distinct_labels;
use crate::ReportError;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    /// 95% confidence interval (low, high), drawn as a whisker.
    #[serde(default)]
    pub ci: Option<(f64, f64)>,
    /// Significance marker against the baseline (e.g. "*", "**", "†"), drawn above the bar.
    #[serde(default)]
    pub marker: Option<String>,
    /// The baseline is drawn grey so the eye finds it.
    #[serde(default)]
    pub baseline: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct BarChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub bars: Vec<Bar>,
    /// What the markers mean (e.g. `* p < 0.05, ** p < 0.01, …`), drawn small in the bottom-left corner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legend: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct StackedBar {
    pub label: String,
    /// One count per category, in `StackedBarChart::categories` order.
    pub counts: Vec<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct StackedBarChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub bars: Vec<StackedBar>,
    /// Draw shares (percent of each bar's total) instead of raw counts.
    #[serde(default)]
    pub percent: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct GroupSeries {
    pub label: String,
    /// One value per group; `None` where the bucket is empty for this system.
    pub values: Vec<Option<f64>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct GroupedBarChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub groups: Vec<String>,
    pub series: Vec<GroupSeries>,
}

/// What hovering a category column of a bar chart says: the full name, then `detail`.
fn column_hovers<DB: DrawingBackend>(
    chart: &ChartContext<'_, DB, Cartesian2d<super::common::CategoryAxis, plotters::coord::types::RangedCoordf64>>,
    y: (f64, f64),
    label_area: u32,
    texts: impl Iterator<Item = String>,
) -> Vec<Hover> {
    texts
        .enumerate()
        .map(|(i, text)| {
            let (x0, y0) = chart.backend_coord(&(i as f64 - 0.5, y.1));
            let (x1, y1) = chart.backend_coord(&(i as f64 + 0.5, y.0));
            Hover { x0, y0, x1, y1: y1 + label_area as i32, text }
        })
        .collect()
}

pub fn draw_bars<DB: DrawingBackend>(c: &BarChart, root: &DrawingArea<DB, Shift>) -> Result<Vec<Hover>, ReportError> {
    require(!c.bars.is_empty(), "bar chart needs at least one bar")?;
    require(c.bars.iter().all(|b| b.value.is_finite()), "bar chart values must be finite numbers")?;
    let n = c.bars.len();
    let names: Vec<String> = c.bars.iter().map(|b| b.label.clone()).collect();
    let (lo, hi) = range_of(c.bars.iter().flat_map(|b| [Some(b.value), b.ci.map(|x| x.0), b.ci.map(|x| x.1)]).flatten(), true);
    // Headroom for markers above the highest whisker.
    let hi = hi + (hi - lo) * 0.06;
    // The legend wraps at its "; " parts to the chart's width (about 6 px a character at 11 px), below the axis.
    let (w, _) = root.dim_in_pixel();
    let legend = c.legend.as_deref().map_or_else(Vec::new, |l| wrap(l, (w as usize / 6).max(20)));
    // The legend gets its own strip under the chart.
    let (_, h) = root.dim_in_pixel();
    let strip = if legend.is_empty() { 0 } else { 14 * legend.len() as u32 + 4 };
    let (area, below) = root.split_vertically(h.saturating_sub(strip) as i32);
    let frame = Frame { x_label_area: if n > 8 { 60 } else { 45 }, ..Frame::new(&c.title, &c.x_label, &c.y_label) };
    let mut chart = frame.categories(&area, &names, n, lo..hi)?;

    let half = if n > 1 { 0.35 } else { 0.25 };
    chart
        .draw_series(c.bars.iter().enumerate().map(|(i, b)| {
            let fill = if b.baseline { BASELINE_GREY } else { color(i) };
            let x = i as f64;
            Rectangle::new([(x - half, 0.0), (x + half, b.value)], fill.mix(0.85).filled())
        }))
        .map_err(draw_err)?;
    chart
        .draw_series(
            c.bars
                .iter()
                .enumerate()
                .filter_map(|(i, b)| b.ci.map(|(l, h)| ErrorBar::new_vertical(i as f64, l, b.value, h, BLACK.stroke_width(2), 10))),
        )
        .map_err(draw_err)?;
    let top_style: TextStyle = ("sans-serif", 13).into_font().into();
    let top_style = top_style.pos(Pos::new(HPos::Center, VPos::Bottom));
    chart
        .draw_series(c.bars.iter().enumerate().map(|(i, b)| {
            let top = b.ci.map(|x| x.1.max(b.value)).unwrap_or(b.value).max(0.0);
            let text = match &b.marker {
                Some(m) if !m.is_empty() => format!("{} {m}", short(b.value)),
                _ => short(b.value),
            };
            Text::new(text, (i as f64, top + (hi - lo) * 0.01), top_style.clone())
        }))
        .map_err(draw_err)?;
    if !legend.is_empty() {
        let style: TextStyle = ("sans-serif", 12).into_font().color(&RGBColor(60, 60, 60)).into();
        let style = style.pos(Pos::new(HPos::Left, VPos::Top));
        for (k, line) in legend.iter().enumerate() {
            below.draw_text(line, &style, (6, 14 * k as i32)).map_err(draw_err)?;
        }
    }
    let texts = c.bars.iter().map(|b| {
        let mut t = format!("{}: {}", b.label, short(b.value));
        if let Some((l, h)) = b.ci {
            t += &format!(" [{}, {}]", short(l), short(h));
        }
        if let Some(m) = b.marker.as_deref().filter(|m| !m.is_empty()) {
            t += &format!(" {m}");
        }
        if b.baseline {
            t += " (baseline)";
        }
        t
    });
    Ok(column_hovers(&chart, (lo, hi), frame.x_label_area, texts))
}

pub fn draw_stacked<DB: DrawingBackend>(c: &StackedBarChart, root: &DrawingArea<DB, Shift>) -> Result<Vec<Hover>, ReportError> {
    require(!c.bars.is_empty(), "stacked bar chart needs at least one bar")?;
    require(!c.categories.is_empty(), "stacked bar chart needs categories")?;
    for b in &c.bars {
        if b.counts.len() != c.categories.len() {
            return Err(ReportError::Invalid(format!(
                "stacked bar {:?} has {} counts for {} categories",
                b.label,
                b.counts.len(),
                c.categories.len()
            )));
        }
        require(b.counts.iter().all(|v| v.is_finite() && *v >= 0.0), "stacked counts must be finite and ≥ 0")?;
    }
    let n = c.bars.len();
    let names: Vec<String> = c.bars.iter().map(|b| b.label.clone()).collect();
    let heights: Vec<Vec<f64>> = c
        .bars
        .iter()
        .map(|b| {
            let total: f64 = b.counts.iter().sum();
            if c.percent && total > 0.0 {
                b.counts.iter().map(|v| v / total * 100.0).collect()
            } else {
                b.counts.clone()
            }
        })
        .collect();
    let max_total = heights.iter().map(|h| h.iter().sum::<f64>()).fold(0.0, f64::max);
    let hi = if c.percent { 100.0 } else { (max_total * 1.08).max(1.0) };
    // One spare slot on the right for the category legend so it never covers a bar.
    let frame = Frame { x_label_area: if n > 8 { 60 } else { 45 }, ..Frame::new(&c.title, &c.x_label, &c.y_label) };
    let mut chart = frame.categories(root, &names, n + 1, 0.0..hi)?;
    for (k, cat) in c.categories.iter().enumerate() {
        let fill = color(k);
        chart
            .draw_series(heights.iter().enumerate().map(|(i, h)| {
                let base: f64 = h[..k].iter().sum();
                let x = i as f64;
                Rectangle::new([(x - 0.35, base), (x + 0.35, base + h[k])], fill.mix(0.9).filled())
            }))
            .map_err(draw_err)?
            .label(cat.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], fill.filled()));
    }
    draw_legend(&mut chart, 13)?;
    let unit = if c.percent { "%" } else { "" };
    let texts = c.bars.iter().zip(&heights).map(|(b, h)| {
        let parts: Vec<String> = c.categories.iter().zip(h).map(|(cat, v)| format!("{cat} {}{unit}", short(*v))).collect();
        format!("{}: {}", b.label, parts.join(", "))
    });
    Ok(column_hovers(&chart, (0.0, hi), frame.x_label_area, texts))
}

pub fn draw_grouped<DB: DrawingBackend>(c: &GroupedBarChart, root: &DrawingArea<DB, Shift>) -> Result<(), ReportError> {
    require(!c.groups.is_empty(), "grouped bar chart needs at least one group")?;
    require(!c.series.is_empty(), "grouped bar chart needs at least one series")?;
    for s in &c.series {
        if s.values.len() != c.groups.len() {
            return Err(ReportError::Invalid(format!("series {:?} has {} values for {} groups", s.label, s.values.len(), c.groups.len())));
        }
    }
    let n = c.groups.len();
    let k = c.series.len();
    let (lo, hi) = range_of(c.series.iter().flat_map(|s| s.values.iter().flatten().copied()), true);
    // Headroom for the legend above the tallest group.
    let hi = hi + (hi - lo) * 0.25;
    let mut chart = Frame::new(&c.title, &c.x_label, &c.y_label).categories(root, &c.groups, n, lo..hi)?;
    let width = 0.8 / k as f64;
    let names = distinct_labels(&c.series.iter().map(|s| s.label.clone()).collect::<Vec<_>>(), 24);
    for (j, (s, name)) in c.series.iter().zip(names).enumerate() {
        let fill = color(j);
        chart
            .draw_series(s.values.iter().enumerate().filter_map(|(i, v)| {
                let v = (*v)?;
                let x0 = i as f64 - 0.4 + j as f64 * width;
                Some(Rectangle::new([(x0, 0.0), (x0 + width * 0.92, v)], fill.mix(0.9).filled()))
            }))
            .map_err(draw_err)?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], fill.filled()));
    }
    draw_legend(&mut chart, 12)
}

/// `text` in lines of at most `width` characters, broken after "; " (else ", ", else anywhere).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for part in text.split_inclusive("; ") {
        if !cur.is_empty() && cur.chars().count() + part.chars().count() > width {
            lines.push(std::mem::take(&mut cur).trim_end().to_string());
        }
        cur.push_str(part);
    }
    if !cur.trim().is_empty() {
        lines.push(cur.trim_end().to_string());
    }
    lines
}
