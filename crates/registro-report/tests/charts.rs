//! Every chart kind renders to SVG and PNG files of sensible size, with its axis labels and system names in the
//! SVG. Set REGISTRO_KEEP_CHARTS=DIR to keep the files for a look.

use registro_report::charts::*;
use registro_report::{Chart, ImageFormat};

fn systems() -> Vec<String> {
    ["baseline", "umd-multi", "umd-base", "ALL-informal", "cocoa-ft"].iter().map(|s| s.to_string()).collect()
}

fn samples() -> Vec<(&'static str, Chart, Vec<&'static str>)> {
    let s = systems();
    let bars = Chart::Bars(BarChart {
        title: "Corpus BLEU with 95% CI".into(),
        x_label: "System".into(),
        y_label: "BLEU".into(),
        bars: s
            .iter()
            .enumerate()
            .map(|(i, l)| Bar {
                label: l.clone(),
                value: 30.0 + i as f64,
                ci: Some((29.0 + i as f64, 31.2 + i as f64)),
                marker: match i {
                    2 => Some("*".to_string()),
                    3 => Some("***".to_string()),
                    4 => Some("††".to_string()),
                    _ => None,
                },
                baseline: i == 0,
            })
            .collect(),
        legend: Some(registro_report::significance_legend(0.05)),
    });
    let scatter = Chart::Scatter(ScatterChart {
        title: "BLEU vs formality".into(),
        x_label: "Formality score".into(),
        y_label: "BLEU".into(),
        size_label: Some("perplexity".into()),
        points: s
            .iter()
            .enumerate()
            .map(|(i, l)| ScatterPoint { label: l.clone(), x: 0.2 * i as f64, y: 28.0 + i as f64, size: Some(40.0 + 10.0 * i as f64) })
            .collect(),
    });
    let stacked = Chart::Stacked(StackedBarChart {
        title: "M-Acc categories".into(),
        x_label: "System".into(),
        y_label: "Segments (%)".into(),
        categories: vec!["FORMAL".into(), "INFORMAL".into(), "NEUTRAL".into(), "OTHER".into()],
        bars: s.iter().map(|l| StackedBar { label: l.clone(), counts: vec![300.0, 120.0, 150.0, 30.0] }).collect(),
        percent: true,
    });
    let hist = Chart::Histogram(HistogramChart {
        title: "Levenshtein distance input→output".into(),
        x_label: "Character edit distance".into(),
        y_label: "Segments (%)".into(),
        bin_edges: HistogramChart::uniform_edges(0.0, 50.0, 10),
        series: s
            .iter()
            .take(2)
            .enumerate()
            .map(|(j, l)| HistSeries { label: l.clone(), values: (0..200).map(|i| ((i * 7 + j * 13) % 50) as f64).collect() })
            .collect(),
        percent: true,
    });
    let heat = Chart::Heatmap(HeatmapChart {
        title: "Lexical difference between systems".into(),
        row_labels: s.clone(),
        col_labels: s.clone(),
        values: (0..5).map(|i| (0..5).map(|j| (i != j).then(|| (i as f64 - j as f64).abs() * 0.1)).collect()).collect(),
        value_label: "LeD".into(),
    });
    let grouped = Chart::Grouped(GroupedBarChart {
        title: "BLEU by source length".into(),
        x_label: "Source length (tokens)".into(),
        y_label: "BLEU".into(),
        groups: vec!["<10".into(), "10-20".into(), "20-30".into(), "30+".into()],
        series: s
            .iter()
            .take(3)
            .map(|l| GroupSeries { label: l.clone(), values: vec![Some(25.0), Some(31.0), None, Some(28.0)] })
            .collect(),
    });
    vec![
        ("bars", bars, vec!["BLEU", "System", "umd-multi", "Corpus BLEU with 95% CI", "*** p &lt; 0.001", "33 ***", "34 ††"]),
        ("scatter", scatter, vec!["Formality score", "BLEU", "cocoa-ft", "perplexity"]),
        ("stacked", stacked, vec!["Segments (%)", "FORMAL", "OTHER", "ALL-informal"]),
        ("histogram", hist, vec!["Character edit distance", "Segments (%)", "umd-multi"]),
        ("heatmap", heat, vec!["LeD", "baseline", "cocoa-ft", "0.40"]),
        ("grouped", grouped, vec!["Source length (tokens)", "10-20", "umd-base"]),
    ]
}

#[test]
fn every_chart_renders_svg_and_png_files_with_labels() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::env::var_os("REGISTRO_KEEP_CHARTS").map(std::path::PathBuf::from).unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&dir).unwrap();
    for (stem, chart, labels) in samples() {
        let svg_path = chart.save(&dir, stem, ImageFormat::Svg, DEFAULT_SIZE).unwrap();
        let png_path = chart.save(&dir, stem, ImageFormat::Png, DEFAULT_SIZE).unwrap();
        let svg = std::fs::read_to_string(&svg_path).unwrap();
        assert!(svg.contains("<svg") && svg.contains("width=\"800\"") && svg.contains("height=\"500\""), "{stem}");
        assert!(svg.len() > 2_000, "{stem}: svg only {} bytes", svg.len());
        for l in labels {
            assert!(svg.contains(l), "{stem}: label {l:?} missing from SVG");
        }
        let png = std::fs::read(&png_path).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{stem}: not a PNG");
        // IHDR: width and height as big-endian u32 at bytes 16..24.
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 800);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 500);
        assert!(png.len() > 5_000, "{stem}: png only {} bytes — text or shapes missing?", png.len());
    }
}

/// Text drawn into the PNG: the same chart with and without a long title must differ in ink, which fails if
/// the bundled font were not registered (plotters would error or draw nothing).
#[test]
fn png_text_is_drawn_with_bundled_font() {
    let mk = |title: &str| {
        Chart::Bars(BarChart {
            title: title.into(),
            x_label: String::new(),
            y_label: String::new(),
            bars: vec![Bar { label: "a".into(), value: 1.0, ci: None, marker: None, baseline: false }],
            legend: None,
        })
    };
    let plain = mk("").to_png((400, 300)).unwrap();
    let titled = mk("A long title that needs many glyphs").to_png((400, 300)).unwrap();
    assert!(titled.len() > plain.len() + 300, "title added no ink: {} vs {}", titled.len(), plain.len());
}

#[test]
fn json_round_trip_keeps_kind_tag() {
    for (_, chart, _) in samples() {
        let json = serde_json::to_string(&chart).unwrap();
        assert!(json.starts_with("{\"kind\":"), "{json}");
        let back: Chart = serde_json::from_str(&json).unwrap();
        assert_eq!(back, chart);
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let empty = Chart::Bars(BarChart { title: "t".into(), x_label: "x".into(), y_label: "y".into(), bars: vec![], legend: None });
    assert!(empty.to_svg(DEFAULT_SIZE).unwrap_err().to_string().contains("at least one bar"));
    let ragged = Chart::Heatmap(HeatmapChart {
        title: "t".into(),
        row_labels: vec!["a".into(), "b".into()],
        col_labels: vec!["a".into(), "b".into()],
        values: vec![vec![Some(1.0)]],
        value_label: String::new(),
    });
    assert!(ragged.to_png(DEFAULT_SIZE).unwrap_err().to_string().contains("2 rows × 2 columns"));
    let nan = Chart::Scatter(ScatterChart {
        title: "t".into(),
        x_label: "x".into(),
        y_label: "y".into(),
        size_label: None,
        points: vec![ScatterPoint { label: "a".into(), x: f64::NAN, y: 1.0, size: None }],
    });
    assert!(nan.to_svg(DEFAULT_SIZE).is_err());
    assert!(ImageFormat::parse("gif").is_err());
    assert!(empty.to_png((0, 10)).is_err());
}

#[test]
fn histogram_binning_includes_last_edge_and_drops_outside() {
    let c = HistogramChart {
        title: String::new(),
        x_label: String::new(),
        y_label: String::new(),
        bin_edges: vec![0.0, 1.0, 2.0],
        series: vec![],
        percent: false,
    };
    let counts = c.counts(&HistSeries { label: String::new(), values: vec![0.0, 0.5, 1.0, 2.0, 2.5, -1.0, f64::NAN] });
    assert_eq!(counts, vec![2.0, 2.0]);
}
