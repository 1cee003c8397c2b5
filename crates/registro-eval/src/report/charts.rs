//! The Dashboard's charts of one comparison, built from prepared data and the corpus rows.

use anyhow::Result;
use registro_report::charts::*;
use registro_report::Chart;

use super::compare::{finite_mean, label_counts, MetricRow};
use super::prepare::Prepared;

/// Source-length buckets (whitespace tokens) for length-bucketed BLEU, compare-mt style.
const LENGTH_BUCKETS: [(usize, usize, &str); 5] = [(0, 9, "<10"), (10, 19, "10–19"), (20, 29, "20–29"), (30, 39, "30–39"), (40, usize::MAX, "40+")];

/// At most this many systems are overlaid in one histogram; more would be unreadable.
const MAX_OVERLAID: usize = 5;

/// At most this many systems in the LeD heatmap: a readable grid, and 190 pairs to compute instead of 19,900 for
/// 200 systems.
const MAX_HEATMAP: usize = 20;

/// `alpha`: significance level of the bar markers (the same markers and levels as the corpus table).
pub(super) fn build(prep: &Prepared, rows: &[MetricRow], extra: &[String], alpha: f64) -> Result<Vec<(String, Chart)>> {
    let data = &prep.data;
    let base = data.baseline;
    let labels: Vec<String> = data.systems.iter().map(|s| s.label.clone()).collect();
    let mut charts: Vec<(String, Chart)> = Vec::new();

    let value = |key: &str, i: usize| rows.iter().find(|r| r.key == key).and_then(|r| r.values[i].as_ref()).map(|v| v.0);
    let formality_axis = prep.systems.first().map_or("PT16 scale −3 informal … 3 formal", |s| s.formality_source.as_str());

    // One bar chart per row of the corpus table (every metric the table puts on the Dashboard): `bars_<key>`.
    for row in rows {
        let (key, label, values) = (row.key, row.label.as_str(), &row.values);
        let chart_key = format!("bars_{key}");
        let bars: Vec<Bar> = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let (val, res) = v.as_ref()?;
                let base_v = values[base].as_ref().map(|x| x.0);
                let marker = if i == base { None } else { Some(super::compare::marker(res, *val, base_v, row.direction.higher_is_better, alpha).0) };
                let marker = marker.filter(|m| !m.is_empty());
                Some(Bar { label: labels[i].clone(), value: *val, ci: res.map(|r| r.ci), marker, baseline: i == base })
            })
            .collect();
        if bars.is_empty() {
            continue;
        }
        let legend = values.iter().any(|v| v.as_ref().is_some_and(|(_, r)| r.is_some_and(|r| r.p.is_some())));
        let ci = if values.iter().any(|v| v.as_ref().is_some_and(|(_, r)| r.is_some())) { " with 95% bootstrap CI" } else { "" };
        let marks = match row.direction.higher_is_better {
            Some(_) => registro_report::significance_legend(alpha),
            None => "no better side, so no marks".to_string(),
        };
        charts.push((
            chart_key,
            Chart::Bars(BarChart {
                title: format!("{label}{ci} ({})", row.direction.label()),
                x_label: "System".into(),
                y_label: if key == "formality" { format!("Formality ({})", short_axis(formality_axis)) } else { label.to_string() },
                bars,
                legend: legend.then(|| format!("vs baseline {}: {marks}; 95% CI: bootstrap percentile width, clipped to the metric's range", labels[base])),
            }),
        ));
    }

    // XFORMAL Fig. 4: BLEU × formality, marker size = perplexity where stored for every system.
    let ppl_key = extra.iter().find(|e| matches!(e.to_lowercase().as_str(), "perplexity" | "ppl"));
    let ppl: Option<Vec<f64>> = ppl_key.and_then(|k| data.systems.iter().map(|s| s.stored.get(k).and_then(|m| m.corpus)).collect());
    let points: Vec<ScatterPoint> = (0..data.systems.len())
        .filter_map(|i| {
            Some(ScatterPoint {
                label: labels[i].clone(),
                x: value("formality", i)?,
                y: value("bleu", i)?,
                size: ppl.as_ref().map(|p| p[i]),
            })
        })
        .collect();
    if !points.is_empty() {
        charts.push((
            "scatter_bleu_formality".to_string(),
            Chart::Scatter(ScatterChart {
                title: "BLEU × formality".into(),
                x_label: match rows.iter().find(|r| r.key == "formality").and_then(|r| r.direction.higher_is_better) {
                    Some(h) => format!("Mean formality of outputs ({formality_axis}) — {} is better", if h { "higher" } else { "lower" }),
                    None => format!("Mean formality of outputs ({formality_axis})"),
                },
                y_label: "BLEU".into(),
                size_label: ppl.as_ref().map(|_| "perplexity".to_string()),
                points,
            }),
        ));
    }

    // Pang & Gimpel: transfer accuracy × similarity. Accuracy is M-Acc where every system has it, else the share
    // of outputs the formality scorer puts on the requested side; similarity is a stored similarity metric, else
    // chrF against the references.
    let sim_key = extra.iter().find(|e| matches!(e.to_lowercase().as_str(), "similarity" | "sim"));
    let all_macc = (0..data.systems.len()).all(|i| value("macc", i).is_some());
    let points: Vec<ScatterPoint> = (0..data.systems.len())
        .filter_map(|i| {
            let acc = if all_macc {
                value("macc", i)?
            } else {
                let want_formal = super::direction::register_side(data.systems[i].run.register.as_deref()).unwrap_or(true);
                let f = &prep.systems[i].formality;
                let ok = f.iter().filter(|v| v.is_finite() && ((**v > 0.0) == want_formal)).count();
                100.0 * ok as f64 / f.len().max(1) as f64
            };
            let sim = match sim_key {
                Some(k) => data.systems[i].stored.get(k).and_then(|m| m.corpus)?,
                None => value("chrf", i)?,
            };
            Some(ScatterPoint { label: labels[i].clone(), x: sim, y: acc, size: None })
        })
        .collect();
    if !points.is_empty() {
        charts.push((
            "scatter_acc_sim".to_string(),
            Chart::Scatter(ScatterChart {
                title: "Accuracy × similarity".into(),
                x_label: match sim_key {
                    Some(k) => k.clone(),
                    None => "Similarity: chrF2 to references".into(),
                },
                y_label: if all_macc { "M-Acc (%)".into() } else { "Outputs on the requested side of the formality scorer (%)".into() },
                size_label: None,
                points,
            }),
        ));
    }

    // Stacked M-Acc labels.
    let stacked: Vec<StackedBar> = prep
        .systems
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.macc.as_ref().map(|(_, l)| StackedBar { label: labels[i].clone(), counts: label_counts(l).to_vec() }))
        .collect();
    if !stacked.is_empty() {
        charts.push((
            "stacked_macc".to_string(),
            Chart::Stacked(StackedBarChart {
                title: "M-Acc labels per system".into(),
                x_label: "System".into(),
                y_label: "Segments (%)".into(),
                categories: vec!["FORMAL".into(), "INFORMAL".into(), "NEUTRAL".into(), "OTHER".into()],
                bars: stacked,
                percent: true,
            }),
        ));
    }

    // Levenshtein histogram (XFORMAL Fig. 1).
    let shown = shown_systems(prep);
    let max_lev = shown.iter().flat_map(|&i| prep.systems[i].levenshtein.iter().copied()).fold(0.0, f64::max);
    let hi = (max_lev.min(200.0) / 10.0).ceil().max(1.0) * 10.0;
    charts.push((
        "hist_levenshtein".to_string(),
        Chart::Histogram(HistogramChart {
            title: if prep.levenshtein_from_input {
                "Character edit distance input → output".into()
            } else {
                "Character edit distance output ↔ reference".into()
            },
            x_label: "Levenshtein distance (characters)".into(),
            y_label: "Segments (%)".into(),
            bin_edges: HistogramChart::uniform_edges(0.0, hi, 20),
            series: shown
                .iter()
                .map(|&i| HistSeries { label: labels[i].clone(), values: prep.systems[i].levenshtein.clone() })
                .collect(),
            percent: true,
        }),
    ));

    // Formality of inputs vs outputs (XFORMAL Fig. 2).
    // Inputs in another language are measured on another scale (PT16 for English sources): not drawn beside.
    let same_scale = prep.levenshtein_from_input;
    if (same_scale && finite_mean(&prep.source_formality).is_some()) || shown.iter().any(|&i| finite_mean(&prep.systems[i].formality).is_some()) {
        let mut series = Vec::new();
        if same_scale {
            series.push(HistSeries { label: "inputs".into(), values: prep.source_formality.clone() });
        }
        series.extend(shown.iter().map(|&i| HistSeries { label: labels[i].clone(), values: prep.systems[i].formality.clone() }));
        // The outputs' scale (the analyzer's −1, 0, +1 outside English: one bin each).
        let (edges, axis) = match prep.systems.first().and_then(|s| s.formality_range) {
            Some((lo, hi)) if hi <= 1.0 => (HistogramChart::uniform_edges(lo - 0.5, hi + 0.5, 3), "−1 informal, 0 neither, +1 formal".to_string()),
            _ => (HistogramChart::uniform_edges(-3.5, 3.5, 14), "−3 informal … 3 formal".to_string()),
        };
        charts.push((
            "hist_formality".to_string(),
            Chart::Histogram(HistogramChart {
                title: if same_scale { "Formality of inputs and outputs".into() } else { "Formality of outputs".into() },
                x_label: format!("Formality score ({axis})"),
                y_label: "Segments (%)".into(),
                bin_edges: edges,
                series,
                percent: true,
            }),
        ));
    }

    // Lexical difference between systems (XFORMAL Fig. 3): the baseline and the systems after it, up to
    // MAX_HEATMAP; only their pairs are computed.
    if data.systems.len() > 1 {
        let shown = heatmap_systems(prep);
        let shown_labels: Vec<String> = shown.iter().map(|&i| labels[i].clone()).collect();
        let title = if shown.len() < data.systems.len() {
            format!("Lexical difference between systems (the baseline and the next {} of {})", shown.len() - 1, data.systems.len())
        } else {
            "Lexical difference between systems".into()
        };
        charts.push((
            "heatmap_led".to_string(),
            Chart::Heatmap(HeatmapChart {
                title,
                row_labels: shown_labels.clone(),
                col_labels: shown_labels,
                values: prep.led_matrix(&shown),
                value_label: "LeD %, 1 − word overlap".into(),
            }),
        ));
    }

    // BLEU by source length (MTFC Fig. 3).
    let groups: Vec<(&str, Vec<usize>)> = LENGTH_BUCKETS
        .iter()
        .map(|(lo, hi, name)| (*name, (0..data.segments()).filter(|&j| (*lo..=*hi).contains(&prep.source_len[j])).collect()))
        .filter(|(_, idx): &(&str, Vec<usize>)| !idx.is_empty())
        .collect();
    if !groups.is_empty() {
        let series = shown
            .iter()
            .map(|&i| {
                let st = &prep.systems[i].bleu.stats;
                GroupSeries {
                    label: labels[i].clone(),
                    values: groups
                        .iter()
                        .map(|(_, idx)| {
                            let mut sum = vec![0.0; st.width];
                            for &j in idx {
                                for (t, v) in sum.iter_mut().zip(st.row(j)) {
                                    *t += v;
                                }
                            }
                            Some(prep.bleu_metric.compute(&sum).score)
                        })
                        .collect(),
                }
            })
            .collect();
        charts.push((
            "grouped_length_bleu".to_string(),
            Chart::Grouped(GroupedBarChart {
                title: "BLEU by source length".into(),
                x_label: "Source length (words)".into(),
                y_label: "BLEU".into(),
                groups: groups.iter().map(|(name, idx)| format!("{name} (n={})", idx.len())).collect(),
                series,
            }),
        ));
    }
    Ok(charts)
}

/// The baseline first, then the other systems in order, up to [`MAX_OVERLAID`].
fn shown_systems(prep: &Prepared) -> Vec<usize> {
    baseline_first(prep, MAX_OVERLAID)
}

/// The baseline first, then the other systems in order, up to [`MAX_HEATMAP`].
fn heatmap_systems(prep: &Prepared) -> Vec<usize> {
    baseline_first(prep, MAX_HEATMAP)
}

fn baseline_first(prep: &Prepared, max: usize) -> Vec<usize> {
    let base = prep.data.baseline;
    let mut v = vec![base];
    v.extend((0..prep.data.systems.len()).filter(|&i| i != base));
    v.truncate(max);
    v
}

/// The scale part of a formality description ("register analyzer (de): +1 formal, …" → "+1 formal, …").
fn short_axis(source: &str) -> &str {
    source.split_once(": ").map_or(source, |(_, scale)| scale)
}
