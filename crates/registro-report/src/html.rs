//! One-file HTML report of a comparison: tables and inline SVG charts, no external assets, so it can be mailed
//! or attached to a paper review as is.

use crate::charts::Chart;
use crate::table::Table;
use crate::ReportError;

pub enum Section {
    Table(Table),
    /// A chart rendered inline as SVG.
    Chart(Chart),
    /// Pre-rendered SVG with a heading.
    Svg { title: String, svg: String },
    Text { title: String, body: String },
}

pub struct HtmlReport {
    pub title: String,
    /// Key/value lines under the title (runs, baseline, date, tool version).
    pub meta: Vec<(String, String)>,
    pub sections: Vec<Section>,
}

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222}\
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}\
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}th,td{padding:.25rem .6rem;border-bottom:1px solid #eee}\
th{text-align:left;background:#f6f6f6}td.num{text-align:right;font-variant-numeric:tabular-nums}\
.ci{color:#777;font-size:.8em}.sig{color:#0a7a3a;font-weight:bold}.note{color:#666;font-size:.8rem}\
dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}dt{font-weight:bold}\
figure{margin:1rem 0}figure svg{max-width:100%;height:auto}";

impl HtmlReport {
    pub fn render(&self) -> Result<String, ReportError> {
        let mut h = String::new();
        h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
        h.push_str(&format!("<title>{}</title><style>{STYLE}</style></head><body>\n", escape(&self.title)));
        h.push_str(&format!("<h1>{}</h1>\n<dl>", escape(&self.title)));
        for (k, v) in &self.meta {
            h.push_str(&format!("<dt>{}</dt><dd>{}</dd>", escape(k), escape(v)));
        }
        h.push_str("</dl>\n");
        for s in &self.sections {
            match s {
                Section::Table(t) => h.push_str(&table_html(t)),
                Section::Chart(c) => {
                    let svg = c.to_svg(crate::charts::DEFAULT_SIZE)?;
                    h.push_str(&figure(c.title(), &svg));
                }
                Section::Svg { title, svg } => h.push_str(&figure(title, svg)),
                Section::Text { title, body } => {
                    h.push_str(&format!("<h2>{}</h2><p>{}</p>\n", escape(title), escape(body)));
                }
            }
        }
        h.push_str("</body></html>\n");
        Ok(h)
    }
}

fn figure(title: &str, svg: &str) -> String {
    // plotters writes an XML declaration first; inline SVG in HTML must start at <svg.
    let body = svg.find("<svg").map(|i| &svg[i..]).unwrap_or(svg);
    format!("<h2>{}</h2><figure>{body}</figure>\n", escape(title))
}

pub fn table_html(t: &Table) -> String {
    let mut h = format!("<h2>{}</h2><table data-key=\"{}\"><thead><tr>", escape(&t.title), escape(&t.key));
    for c in &t.columns {
        h.push_str(&format!("<th>{}</th>", escape(&c.label)));
    }
    h.push_str("</tr></thead><tbody>");
    for r in &t.rows {
        h.push_str(&format!("<tr data-id=\"{}\">", escape(&r.id)));
        for (c, cell) in t.columns.iter().zip(&r.cells) {
            if let Some(text) = &cell.text {
                h.push_str(&format!("<td>{}</td>", escape(text)));
                continue;
            }
            let Some(v) = cell.value else {
                h.push_str("<td></td>");
                continue;
            };
            let d = c.decimals;
            h.push_str(&format!("<td class=\"num\">{v:.d$}"));
            if let Some((lo, hi)) = cell.ci {
                h.push_str(&format!(" <span class=\"ci\">[{lo:.d$}, {hi:.d$}]</span>"));
            }
            if let Some(m) = &cell.marker {
                h.push_str(&format!(" <span class=\"sig\">{}</span>", escape(m)));
            }
            h.push_str("</td>");
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table>");
    for n in &t.notes {
        h.push_str(&format!("<p class=\"note\">{}</p>", escape(n)));
    }
    h.push('\n');
    h
}
