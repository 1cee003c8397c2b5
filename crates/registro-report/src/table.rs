//! Comparison tables and their exports (CSV, JSON, LaTeX, Markdown). A cell is a number with an optional 95% CI
//! and significance marker, or text; exports keep the same rounding as the Dashboard shows.

use serde::{Deserialize, Serialize};

use crate::ReportError;

/// Stricter significance levels after the chosen α: a marker gets one symbol per level its p-value is below.
pub const STRICTER_LEVELS: [f64; 2] = [0.01, 0.001];

fn levels(alpha: f64) -> Vec<f64> {
    std::iter::once(alpha).chain(STRICTER_LEVELS.into_iter().filter(|l| *l < alpha)).collect()
}

/// The marker of a p-value against the baseline: nothing when `p ≥ alpha`, else `*` (better) or `†` (worse)
/// repeated once per level passed — with α = 0.05: `*` p < 0.05, `**` p < 0.01, `***` p < 0.001.
pub fn significance_marker(p: f64, better: bool, alpha: f64) -> String {
    let n = levels(alpha).iter().filter(|l| p < **l).count();
    (if better { "*" } else { "†" }).repeat(n)
}

/// What the markers mean, for table notes and chart legends: `* p < 0.05, ** p < 0.01, *** p < 0.001 (better
/// than the baseline; † … worse)`.
pub fn significance_legend(alpha: f64) -> String {
    let lv = levels(alpha);
    let star: Vec<String> = lv.iter().enumerate().map(|(i, l)| format!("{} p < {l}", "*".repeat(i + 1))).collect();
    let dagger: Vec<String> = (1..=lv.len()).map(|i| "†".repeat(i)).collect();
    format!("{} (better than the baseline; {} worse)", star.join(", "), dagger.join(" / "))
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct Cell {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// 95% confidence interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<(f64, f64)>,
    /// Significance marker against the baseline ([`significance_marker`]: "*", "**", "***" better, "†", "††",
    /// "†††" worse), or empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
    /// p-value of the significance test, when one was run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// Text cells (system names, signatures, counts shown as "12/40").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl Cell {
    pub fn num(v: f64) -> Self {
        Cell { value: Some(v), ..Default::default() }
    }
    pub fn text(s: impl Into<String>) -> Self {
        Cell { text: Some(s.into()), ..Default::default() }
    }
    pub fn empty() -> Self {
        Cell::default()
    }
    pub fn with_ci(mut self, lo: f64, hi: f64) -> Self {
        self.ci = Some((lo, hi));
        self
    }
    pub fn with_marker(mut self, m: impl Into<String>, p: Option<f64>) -> Self {
        let m = m.into();
        self.marker = (!m.is_empty()).then_some(m);
        self.p = p;
        self
    }

    /// How the cell reads in a table: `34.2 [33.1, 35.0] *`.
    pub fn display(&self, decimals: usize) -> String {
        if let Some(t) = &self.text {
            return t.clone();
        }
        let Some(v) = self.value else { return String::new() };
        let mut s = fmt(v, decimals);
        if let Some((lo, hi)) = self.ci {
            s.push_str(&format!(" [{}, {}]", fmt(lo, decimals), fmt(hi, decimals)));
        }
        if let Some(m) = &self.marker {
            s.push(' ');
            s.push_str(m);
        }
        s
    }
}

fn fmt(v: f64, decimals: usize) -> String {
    if v.is_nan() {
        "–".into()
    } else {
        format!("{v:.decimals$}")
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct Column {
    pub key: String,
    pub label: String,
    /// Sort direction that means "better" (true: higher is better, e.g. BLEU; false: TER, perplexity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub higher_is_better: Option<bool>,
    #[serde(default = "default_decimals")]
    pub decimals: usize,
}

fn default_decimals() -> usize {
    1
}

impl Column {
    pub fn new(key: impl Into<String>, label: impl Into<String>) -> Self {
        Column { key: key.into(), label: label.into(), higher_is_better: None, decimals: 1 }
    }
    pub fn metric(key: impl Into<String>, label: impl Into<String>, higher_is_better: bool, decimals: usize) -> Self {
        Column { key: key.into(), label: label.into(), higher_is_better: Some(higher_is_better), decimals }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct Row {
    /// Stable id of what the row describes (run id, category…), for the UI to link rows to drill-downs.
    pub id: String,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, ts_rs::TS)]
pub struct Table {
    pub key: String,
    pub title: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// Footnotes: metric signatures, what the markers mean.
    #[serde(default)]
    pub notes: Vec<String>,
}

impl Table {
    pub fn new(key: impl Into<String>, title: impl Into<String>, columns: Vec<Column>) -> Self {
        Table { key: key.into(), title: title.into(), columns, rows: Vec::new(), notes: Vec::new() }
    }

    pub fn push(&mut self, id: impl Into<String>, cells: Vec<Cell>) -> Result<(), ReportError> {
        if cells.len() != self.columns.len() {
            return Err(ReportError::Invalid(format!(
                "table {:?}: row has {} cells for {} columns",
                self.key,
                cells.len(),
                self.columns.len()
            )));
        }
        self.rows.push(Row { id: id.into(), cells });
        Ok(())
    }

    /// Sorts rows by a column's values, best first when the column says which way is better; text columns sort
    /// alphabetically. Rows without a value go last.
    pub fn sort_by(&mut self, key: &str) -> Result<(), ReportError> {
        let c = self
            .columns
            .iter()
            .position(|c| c.key == key)
            .ok_or_else(|| ReportError::Invalid(format!("table {:?} has no column {key:?}", self.key)))?;
        let desc = self.columns[c].higher_is_better.unwrap_or(false);
        self.rows.sort_by(|a, b| {
            let (x, y) = (&a.cells[c], &b.cells[c]);
            match (x.value, y.value) {
                (Some(x), Some(y)) => {
                    if desc {
                        y.total_cmp(&x)
                    } else {
                        x.total_cmp(&y)
                    }
                }
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => x.text.cmp(&y.text),
            }
        });
        Ok(())
    }

    pub fn to_csv(&self) -> String {
        // CSV keeps numbers machine-readable: value, ci_low, ci_high, marker as separate columns per metric.
        let mut header = Vec::new();
        for c in &self.columns {
            if c.higher_is_better.is_some() {
                header.extend([c.key.clone(), format!("{}_ci_low", c.key), format!("{}_ci_high", c.key)]);
                header.extend([format!("{}_sig", c.key), format!("{}_p", c.key)]);
            } else {
                header.push(c.key.clone());
            }
        }
        let mut out = csv_line(&header);
        for r in &self.rows {
            let mut line = Vec::new();
            for (c, cell) in self.columns.iter().zip(&r.cells) {
                if c.higher_is_better.is_some() {
                    let num = |v: Option<f64>| v.map(|v| format!("{v}")).unwrap_or_default();
                    line.push(num(cell.value));
                    line.push(num(cell.ci.map(|x| x.0)));
                    line.push(num(cell.ci.map(|x| x.1)));
                    line.push(cell.marker.clone().unwrap_or_default());
                    line.push(num(cell.p));
                } else {
                    line.push(cell.display(c.decimals));
                }
            }
            out.push_str(&csv_line(&line));
        }
        out
    }

    /// Each cell of `row` as `render` writes it, given its column.
    fn render_row(&self, row: &Row, render: impl Fn(&Column, &Cell) -> String) -> Vec<String> {
        self.columns.iter().zip(&row.cells).map(|(c, cell)| render(c, cell)).collect()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// A booktabs table ready for a paper; CIs in brackets, markers as superscripts.
    pub fn to_latex(&self) -> String {
        let mut s = String::new();
        s.push_str("% requires \\usepackage{booktabs}\n\\begin{table}[t]\n\\centering\n\\small\n");
        let spec: String =
            self.columns.iter().map(|c| if c.higher_is_better.is_some() { 'r' } else { 'l' }).collect();
        s.push_str(&format!("\\begin{{tabular}}{{{spec}}}\n\\toprule\n"));
        let head: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                let arrow = match c.higher_is_better {
                    Some(true) => " $\\uparrow$",
                    Some(false) => " $\\downarrow$",
                    None => "",
                };
                format!("{}{arrow}", latex_escape(&c.label))
            })
            .collect();
        s.push_str(&head.join(" & "));
        s.push_str(" \\\\\n\\midrule\n");
        for r in &self.rows {
            let cells = self.render_row(r, |c, cell| {
                if let Some(t) = &cell.text {
                    return latex_escape(t);
                }
                let Some(v) = cell.value else { return String::new() };
                let mut x = fmt(v, c.decimals);
                if let Some((lo, hi)) = cell.ci {
                    x.push_str(&format!(" {{\\scriptsize [{}, {}]}}", fmt(lo, c.decimals), fmt(hi, c.decimals)));
                }
                if let Some(m) = &cell.marker {
                    x.push_str(&format!("$^{{\\text{{{}}}}}$", latex_escape(m)));
                }
                x
            });
            s.push_str(&cells.join(" & "));
            s.push_str(" \\\\\n");
        }
        s.push_str("\\bottomrule\n\\end{tabular}\n");
        let mut caption = latex_escape(&self.title);
        for n in &self.notes {
            caption.push(' ');
            caption.push_str(&latex_escape(n));
        }
        s.push_str(&format!("\\caption{{{caption}}}\n\\label{{tab:{}}}\n\\end{{table}}\n", latex_escape(&self.key)));
        s
    }

    pub fn to_markdown(&self) -> String {
        let mut s = format!("**{}**\n\n", self.title);
        let head: Vec<&str> = self.columns.iter().map(|c| c.label.as_str()).collect();
        s.push_str(&format!("| {} |\n", head.join(" | ")));
        let sep: Vec<&str> =
            self.columns.iter().map(|c| if c.higher_is_better.is_some() { "---:" } else { "---" }).collect();
        s.push_str(&format!("| {} |\n", sep.join(" | ")));
        for r in &self.rows {
            let cells = self.render_row(r, |c, cell| cell.display(c.decimals).replace('|', "\\|"));
            s.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        for n in &self.notes {
            s.push_str(&format!("\n{n}\n"));
        }
        s
    }

    /// Plain-text table for terminals.
    pub fn to_text(&self) -> String {
        let mut grid: Vec<Vec<String>> = vec![self.columns.iter().map(|c| c.label.clone()).collect()];
        for r in &self.rows {
            grid.push(self.render_row(r, |c, cell| cell.display(c.decimals)));
        }
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|j| grid.iter().map(|row| row[j].chars().count()).max().unwrap_or(0))
            .collect();
        let mut s = format!("{}\n", self.title);
        for (i, row) in grid.iter().enumerate() {
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(j, v)| {
                    let pad = widths[j] - v.chars().count();
                    if self.columns[j].higher_is_better.is_some() {
                        format!("{}{v}", " ".repeat(pad))
                    } else {
                        format!("{v}{}", " ".repeat(pad))
                    }
                })
                .collect();
            s.push_str(cells.join("  ").trim_end());
            s.push('\n');
            if i == 0 {
                s.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * widths.len().saturating_sub(1)));
                s.push('\n');
            }
        }
        for n in &self.notes {
            s.push_str(&format!("  {n}\n"));
        }
        s
    }
}

fn csv_line(fields: &[String]) -> String {
    let mut out: Vec<String> = Vec::with_capacity(fields.len());
    for f in fields {
        if f.contains([',', '"', '\n', '\r']) {
            out.push(format!("\"{}\"", f.replace('"', "\"\"")));
        } else {
            out.push(f.clone());
        }
    }
    let mut line = out.join(",");
    line.push('\n');
    line
}

pub fn latex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(ch);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '†' => out.push_str("\\dag{}"),
            _ => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new(
            "corpus",
            "Corpus metrics",
            vec![Column::new("system", "System"), Column::metric("bleu", "BLEU", true, 1), Column::metric("ter", "TER", false, 1)],
        );
        t.push("1", vec![Cell::text("base_line"), Cell::num(30.04).with_ci(29.0, 31.1), Cell::num(55.0)]).unwrap();
        t.push("2", vec![Cell::text("sys, \"B\""), Cell::num(32.46).with_ci(31.2, 33.5).with_marker("*", Some(0.01)), Cell::num(52.0)])
            .unwrap();
        t.notes.push("BLEU signature: nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0".into());
        t
    }

    #[test]
    fn csv_splits_ci_and_quotes_text() {
        let csv = sample().to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "system,bleu,bleu_ci_low,bleu_ci_high,bleu_sig,bleu_p,ter,ter_ci_low,ter_ci_high,ter_sig,ter_p");
        assert_eq!(lines[2], "\"sys, \"\"B\"\"\",32.46,31.2,33.5,*,0.01,52,,,,");
    }

    #[test]
    fn latex_escapes_and_marks_significance() {
        let tex = sample().to_latex();
        assert!(tex.contains("base\\_line"), "{tex}");
        assert!(tex.contains("32.5 {\\scriptsize [31.2, 33.5]}$^{\\text{*}}$"), "{tex}");
        assert!(tex.contains("BLEU $\\uparrow$ & TER $\\downarrow$"), "{tex}");
        assert!(tex.contains("\\begin{tabular}{lrr}"));
    }

    #[test]
    fn json_round_trips() {
        let t = sample();
        let back: Table = serde_json::from_str(&t.to_json()).unwrap();
        assert_eq!(back, t);
    }

    #[test]
    fn sort_puts_best_first_by_direction() {
        let mut t = sample();
        t.sort_by("bleu").unwrap();
        assert_eq!(t.rows[0].id, "2");
        t.sort_by("ter").unwrap();
        assert_eq!(t.rows[0].id, "2", "lower TER is better");
        assert!(t.sort_by("nope").unwrap_err().to_string().contains("nope"));
    }

    #[test]
    fn push_rejects_wrong_width() {
        let mut t = sample();
        assert!(t.push("x", vec![Cell::num(1.0)]).is_err());
    }

    #[test]
    fn markers_show_significance_levels() {
        assert_eq!(significance_marker(0.2, true, 0.05), "");
        assert_eq!(significance_marker(0.05, true, 0.05), "");
        assert_eq!(significance_marker(0.03, true, 0.05), "*");
        assert_eq!(significance_marker(0.005, true, 0.05), "**");
        assert_eq!(significance_marker(1.0 / 1001.0, true, 0.05), "***");
        assert_eq!(significance_marker(0.005, false, 0.05), "††");
        // A stricter α starts the scale there.
        assert_eq!(significance_marker(0.03, true, 0.01), "");
        assert_eq!(significance_marker(0.005, true, 0.01), "*");
        assert_eq!(significance_marker(0.0005, true, 0.01), "**");
        assert_eq!(
            significance_legend(0.05),
            "* p < 0.05, ** p < 0.01, *** p < 0.001 (better than the baseline; † / †† / ††† worse)"
        );
    }

    #[test]
    fn display_shows_ci_and_marker() {
        assert_eq!(Cell::num(32.46).with_ci(31.2, 33.5).with_marker("*", None).display(1), "32.5 [31.2, 33.5] *");
        assert!(sample().to_text().contains("32.5 [31.2, 33.5] *"));
    }
}
