//! Charts of a comparison, drawn by plotters from plain data. One renderer per chart kind; each draws onto any
//! plotters backend so the SVG the UI shows and the PNG a user exports come from the same code.
//!
//! PNG text: plotters' bitmap backend needs real glyphs. Instead of fontconfig / system fonts (absent on CI and
//! on many desktops) the crate bundles DejaVu Sans and draws it with ab_glyph, so PNGs look the same everywhere.
//! SVGs carry text as `<text font-family="sans-serif">`, rendered by the viewer.

mod bars;
mod common;
mod heatmap;
mod histogram;
mod labels;
mod scatter;

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use crate::ReportError;

pub use heatmap::HeatmapChart;
pub use histogram::{HistSeries, HistogramChart};
pub use scatter::{ScatterChart, ScatterPoint};
pub use bars::{Bar, BarChart, GroupSeries, GroupedBarChart, StackedBar, StackedBarChart};
pub use common::Hover;
pub use labels::distinct_labels;

/// Default pixel size of a rendered chart.
pub const DEFAULT_SIZE: (u32, u32) = (800, 500);

/// Any chart the Dashboard can show; tagged by `kind` in JSON so the UI can tell them apart.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Chart {
    /// One bar per system with a 95% CI whisker and a significance marker (corpus BLEU, chrF, …).
    Bars(BarChart),
    /// Trade-off scatter (BLEU × formality, marker size = perplexity; Acc × Sim).
    Scatter(ScatterChart),
    /// Stacked category counts per system (M-Acc FORMAL/INFORMAL/NEUTRAL/OTHER).
    Stacked(StackedBarChart),
    /// Overlaid distributions (Levenshtein distance; formality of inputs vs outputs).
    Histogram(HistogramChart),
    /// Matrix between systems (lexical difference, LeD).
    Heatmap(HeatmapChart),
    /// Bars grouped by bucket, one colour per system (length-bucketed BLEU).
    Grouped(GroupedBarChart),
}

/// Image formats a chart can be exported to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    Svg,
    Png,
}

impl ImageFormat {
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Svg => "svg",
            ImageFormat::Png => "png",
        }
    }

    pub fn parse(s: &str) -> Result<Self, ReportError> {
        match s.to_ascii_lowercase().as_str() {
            "svg" => Ok(ImageFormat::Svg),
            "png" => Ok(ImageFormat::Png),
            other => Err(ReportError::Invalid(format!("unknown image format {other:?} (expected svg or png)"))),
        }
    }
}

impl Chart {
    pub fn title(&self) -> &str {
        match self {
            Chart::Bars(c) => &c.title,
            Chart::Scatter(c) => &c.title,
            Chart::Stacked(c) => &c.title,
            Chart::Histogram(c) => &c.title,
            Chart::Heatmap(c) => &c.title,
            Chart::Grouped(c) => &c.title,
        }
    }

    /// Draws the chart onto a plotters drawing area of any backend.
    pub fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, plotters::coord::Shift>) -> Result<(), ReportError> {
        self.draw_hovers(root).map(|_| ())
    }

    /// [`Chart::draw`], returning the regions a pointer can hover (system columns, points, cells) with the full
    /// names and values.
    fn draw_hovers<DB: DrawingBackend>(&self, root: &DrawingArea<DB, plotters::coord::Shift>) -> Result<Vec<Hover>, ReportError> {
        common::ensure_font()?;
        root.fill(&WHITE).map_err(common::draw_err)?;
        let hovers = match self {
            Chart::Bars(c) => bars::draw_bars(c, root),
            Chart::Scatter(c) => scatter::draw(c, root),
            Chart::Stacked(c) => bars::draw_stacked(c, root),
            Chart::Histogram(c) => histogram::draw(c, root).map(|_| Vec::new()),
            Chart::Heatmap(c) => heatmap::draw(c, root),
            Chart::Grouped(c) => bars::draw_grouped(c, root).map(|_| Vec::new()),
        }?;
        root.present().map_err(common::draw_err)?;
        Ok(hovers)
    }

    /// The system (or series) names the chart draws, each with the short label it is drawn under
    /// ([`distinct_labels`]): the page lists them beside the chart, the SVG puts them in its `<title>`s.
    pub fn label_key(&self) -> Vec<(String, String)> {
        let (names, max): (Vec<String>, usize) = match self {
            Chart::Bars(c) => (c.bars.iter().map(|b| b.label.clone()).collect(), common::category_clip(c.bars.len())),
            Chart::Stacked(c) => (c.bars.iter().map(|b| b.label.clone()).collect(), common::category_clip(c.bars.len())),
            Chart::Scatter(c) => (c.points.iter().map(|p| p.label.clone()).collect(), if c.points.len() > 8 { 14 } else { 24 }),
            Chart::Histogram(c) => (c.series.iter().map(|s| s.label.clone()).collect(), 28),
            Chart::Grouped(c) => (c.series.iter().map(|s| s.label.clone()).collect(), 24),
            Chart::Heatmap(c) => (c.row_labels.clone(), if c.col_labels.len() > 8 { 10 } else { 16 }),
        };
        let short = distinct_labels(&names, max);
        short.into_iter().zip(names).collect()
    }

    /// Renders to an SVG document (what the Dashboard embeds). Hovering a system's column, point or cell shows its
    /// full name and value (`<title>`); the whole chart's title lists every shortened name in full.
    pub fn to_svg(&self, size: (u32, u32)) -> Result<String, ReportError> {
        let mut out = String::new();
        let hovers = {
            let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
            self.draw_hovers(&root)?
        };
        let key: Vec<String> = self.label_key().into_iter().filter(|(s, f)| s != f).map(|(s, f)| format!("{s} = {f}")).collect();
        // The document's own title must be its first child.
        if !key.is_empty() {
            let title = format!("\n<title>{}: {}</title>", xml_escape(self.title()), xml_escape(&key.join("; ")));
            if let Some(open) = out.find("<svg").and_then(|i| out[i..].find('>').map(|j| i + j + 1)) {
                out.insert_str(open, &title);
            }
        }
        let mut extra = String::new();
        if !hovers.is_empty() {
            extra += "<g class=\"hover\">\n";
            for h in &hovers {
                let (x, y) = (h.x0.min(h.x1), h.y0.min(h.y1));
                let (w, hh) = ((h.x1 - h.x0).abs(), (h.y1 - h.y0).abs());
                extra += &format!(
                    "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{hh}\" fill=\"#000\" fill-opacity=\"0\"><title>{}</title></rect>\n",
                    xml_escape(&h.text)
                );
            }
            extra += "</g>\n";
        }
        if let Some(at) = out.rfind("</svg>") {
            out.insert_str(at, &extra);
        }
        Ok(out)
    }

    /// Renders to PNG bytes (RGB, 8 bit).
    pub fn to_png(&self, size: (u32, u32)) -> Result<Vec<u8>, ReportError> {
        let (w, h) = size;
        if w == 0 || h == 0 || w > 8000 || h > 8000 {
            return Err(ReportError::Invalid(format!("chart size {w}x{h} out of range (1..=8000 per side)")));
        }
        let mut rgb = vec![0u8; (w as usize) * (h as usize) * 3];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
            self.draw(&root)?;
        }
        encode_png(&rgb, w, h)
    }

    pub fn render(&self, format: ImageFormat, size: (u32, u32)) -> Result<Vec<u8>, ReportError> {
        match format {
            ImageFormat::Svg => Ok(self.to_svg(size)?.into_bytes()),
            ImageFormat::Png => self.to_png(size),
        }
    }

    /// Writes the chart to `dir/stem.{svg,png}` and returns the path written.
    pub fn save(&self, dir: &Path, stem: &str, format: ImageFormat, size: (u32, u32)) -> Result<PathBuf, ReportError> {
        let path = dir.join(format!("{stem}.{}", format.extension()));
        let bytes = self.render(format, size)?;
        std::fs::write(&path, bytes).map_err(|source| ReportError::Io { path: path.clone(), source })?;
        Ok(path)
    }
}

fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, ReportError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| ReportError::Chart(format!("png header: {e}")))?;
        writer.write_image_data(rgb).map_err(|e| ReportError::Chart(format!("png data: {e}")))?;
    }
    Ok(out)
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
