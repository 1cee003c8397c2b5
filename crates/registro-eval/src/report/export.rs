//! Writing a comparison to a folder: every table as CSV, JSON, LaTeX and Markdown, every chart as SVG and PNG,
//! `comparison.json` with everything, and a one-file `report.html`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use registro_report::html::{HtmlReport, Section};
use registro_report::ImageFormat;
use serde::Serialize;

use super::compare::Comparison;
use super::human::HumanSummary;

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ReportFiles {
    pub dir: PathBuf,
    pub files: Vec<PathBuf>,
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>, files: &mut Vec<PathBuf>) -> Result<()> {
    let p = dir.join(name);
    std::fs::write(&p, bytes).with_context(|| format!("writing {}", p.display()))?;
    files.push(p);
    Ok(())
}

/// Writes tables, charts and the HTML report of `cmp` (and the human evaluation, when given) into `dir`.
pub fn write_report(cmp: &Comparison, human: Option<&HumanSummary>, dir: &Path, chart_formats: &[ImageFormat]) -> Result<ReportFiles> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut files = Vec::new();
    let tables: Vec<&registro_report::Table> = cmp.tables.iter().chain(human.into_iter().flat_map(|h| h.tables.iter())).collect();
    for t in &tables {
        write(dir, &format!("{}.csv", t.key), t.to_csv(), &mut files)?;
        write(dir, &format!("{}.json", t.key), t.to_json(), &mut files)?;
        write(dir, &format!("{}.tex", t.key), t.to_latex(), &mut files)?;
        write(dir, &format!("{}.md", t.key), t.to_markdown(), &mut files)?;
    }
    for c in &cmp.charts {
        for f in chart_formats {
            let p = c.chart.save(dir, &c.key, *f, registro_report::charts::DEFAULT_SIZE).with_context(|| format!("chart {}", c.key))?;
            files.push(p);
        }
    }
    let mut everything = serde_json::to_value(cmp)?;
    if let Some(obj) = everything.as_object_mut() {
        // The SVGs are in their own files; keep the JSON readable.
        if let Some(charts) = obj.get_mut("charts").and_then(|c| c.as_array_mut()) {
            for c in charts {
                if let Some(o) = c.as_object_mut() {
                    o.remove("svg");
                }
            }
        }
        if let Some(h) = human {
            obj.insert("human".into(), serde_json::to_value(h)?);
        }
    }
    write(dir, "comparison.json", serde_json::to_string_pretty(&everything)?, &mut files)?;

    let mut sections: Vec<Section> = tables.iter().map(|t| Section::Table((*t).clone())).collect();
    for c in &cmp.charts {
        sections.push(match &c.svg {
            Some(svg) => Section::Svg { title: c.title.clone(), svg: svg.clone() },
            None => Section::Chart(c.chart.clone()),
        });
    }
    let report = HtmlReport {
        title: format!("Registro comparison: {}", cmp.document),
        meta: vec![
            ("Test set".into(), format!("{} ({} segments, {}→{})", cmp.document, cmp.segments, cmp.source_lang, cmp.target_lang)),
            ("Systems".into(), cmp.systems.iter().map(|s| format!("{} [run {}]", s.label, s.run_id)).collect::<Vec<_>>().join(", ")),
            ("Baseline".into(), cmp.systems.iter().find(|s| s.baseline).map(|s| s.label.clone()).unwrap_or_default()),
            ("Tool".into(), format!("registro {}", env!("CARGO_PKG_VERSION"))),
        ],
        sections,
    };
    write(dir, "report.html", report.render()?, &mut files)?;
    Ok(ReportFiles { dir: dir.to_path_buf(), files })
}
