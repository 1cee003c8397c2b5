//! The per-segment checks a translator expects from a QA tool (the kind Xbench or Verifika run): nothing
//! translated, left in English, identical to the source, numbers, placeholders, length and whitespace.
//! Numbers and "left in English" come from `registro_register::meaning`, the checks the reranker already uses.
use registro_register::meaning::{self, MeaningIssue};
use registro_register::Lang;

use crate::{tags, CheckKind, Issue, Severity, Span};

/// Length ratios (target characters per source character) a translation from English stays within. Scripts
/// that pack a word into one or two characters get lower floors.
pub fn length_bounds(lang: Lang) -> (f64, f64) {
    match lang {
        Lang::Ja => (0.12, 1.5),
        Lang::Ko => (0.2, 1.6),
        _ => (0.4, 2.5),
    }
}

/// Below this many source characters the ratio says nothing ("OK" → "Einverstanden").
const LENGTH_MIN_SOURCE_CHARS: usize = 20;

fn issue(
    segment: usize,
    kind: CheckKind,
    severity: Severity,
    message: String,
    spans: Vec<Span>,
) -> Issue {
    Issue {
        segment,
        kind,
        severity,
        message,
        spans,
        count: 1,
    }
}

/// Every finding for segment `i`.
pub fn segment(lang: Lang, i: usize, source: &str, target: Option<&str>) -> Vec<Issue> {
    use Severity::{Error, Warning};
    let mut out = Vec::new();
    let Some(target) = target else {
        if !source.trim().is_empty() {
            out.push(issue(
                i,
                CheckKind::NoTarget,
                Error,
                "no translation stored for this segment".into(),
                Vec::new(),
            ));
        }
        return out;
    };
    if target.trim().is_empty() {
        if !source.trim().is_empty() {
            out.push(issue(
                i,
                CheckKind::Empty,
                Error,
                "the translation is empty".into(),
                Vec::new(),
            ));
        }
        return out;
    }
    let (src_plain, tgt_plain) = (tags::strip(source), tags::strip(target));
    let identical = source.trim() == target.trim();
    for f in meaning::check(lang, &src_plain, &tgt_plain) {
        match f.issue {
            MeaningIssue::Untranslated => out.push(issue(
                i,
                CheckKind::Untranslated,
                Error,
                format!("not translated: {}", f.detail),
                Vec::new(),
            )),
            MeaningIssue::Number => out.push(issue(
                i,
                CheckKind::Number,
                Error,
                format!("numbers differ: {}", f.detail),
                Vec::new(),
            )),
            MeaningIssue::WrongScript => out.push(issue(
                i,
                CheckKind::Untranslated,
                Error,
                format!("wrong language: {}", f.detail),
                Vec::new(),
            )),
            MeaningIssue::Refusal => out.push(issue(
                i,
                CheckKind::Refusal,
                Error,
                format!("not a translation: {}", f.detail),
                Vec::new(),
            )),
            MeaningIssue::Truncated => out.push(issue(
                i,
                CheckKind::Length,
                Error,
                format!("cut off: {}", f.detail),
                Vec::new(),
            )),
            MeaningIssue::Negation | MeaningIssue::Opposite => out.push(issue(
                i,
                CheckKind::Meaning,
                Warning,
                format!("meaning may be reversed: {}", f.detail),
                Vec::new(),
            )),
            MeaningIssue::Honorific => out.push(issue(
                i,
                CheckKind::Register,
                Warning,
                format!("honorific for the wrong person: {}", f.detail),
                Vec::new(),
            )),
            // Names and weekdays are the reranker's hints; as QA findings they misfire on names translated on purpose.
            MeaningIssue::Date | MeaningIssue::Name => {}
        }
    }
    let raw = raw_markup(source, target);
    if !raw.is_empty() {
        let names = crate::quoted(raw.iter().map(|s| s.text.as_str()), ", ");
        out.push(issue(
            i,
            CheckKind::RawMarkup,
            Error,
            format!("markup the source does not have would show as text: {names}"),
            raw,
        ));
    }
    if identical
        && !out.iter().any(|x| x.kind == CheckKind::Untranslated)
        && source.chars().any(char::is_alphabetic)
    {
        out.push(issue(
            i,
            CheckKind::Identical,
            Warning,
            "the translation is identical to the source".into(),
            Vec::new(),
        ));
    }
    let d = tags::compare(source, target);
    if !d.missing.is_empty() {
        out.push(issue(
            i,
            CheckKind::Tags,
            Error,
            format!(
                "inline tag{} {} missing",
                plural(d.missing.len()),
                d.missing.join(" ")
            ),
            Vec::new(),
        ));
    }
    let spans_of = |tags: &[tags::Tag]| tags.iter().map(|t| Span::of(target, t.start, t.end)).collect();
    if !d.extra.is_empty() {
        let names = d.extra.iter().map(|t| t.token.as_str()).collect::<Vec<_>>().join(" ");
        out.push(issue(
            i,
            CheckKind::Tags,
            Error,
            format!("inline tag{} {names} not in the source", plural(d.extra.len())),
            spans_of(&d.extra),
        ));
    }
    if !d.closes_before_open.is_empty() {
        out.push(issue(
            i,
            CheckKind::Tags,
            Error,
            "an inline tag closes before it opens".into(),
            spans_of(&d.closes_before_open),
        ));
    }
    if d.reordered {
        out.push(issue(
            i,
            CheckKind::Tags,
            Warning,
            "inline tags in another order than in the source".into(),
            Vec::new(),
        ));
    }
    let (sc, tc) = (
        src_plain.trim().chars().count(),
        tgt_plain.trim().chars().count(),
    );
    if sc >= LENGTH_MIN_SOURCE_CHARS && !identical {
        let ratio = tc as f64 / sc as f64;
        let (lo, hi) = length_bounds(lang);
        if ratio < lo || ratio > hi {
            out.push(issue(
                i,
                CheckKind::Length,
                Warning,
                format!("the translation is {:.0}% of the source's length (expected {:.0}–{:.0}% for {})", ratio * 100.0, lo * 100.0, hi * 100.0, lang.name()),
                Vec::new(),
            ));
        }
    }
    out.extend(whitespace(i, source, target));
    out
}

/// Markup in `target` that is no placeholder and is not in the source either: an HTML/XML tag (`<b>`, `</span>`),
/// a damaged placeholder (`< 1>`, `</ 2 >`) or escaped markup (`&lt;1&gt;`). In the exported file it would show as
/// text.
pub fn raw_markup(source: &str, target: &str) -> Vec<Span> {
    let placeholders: Vec<(usize, usize)> = tags::find(target).iter().map(|t| (t.start, t.end)).collect();
    let b = target.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (open, close): (&[u8], &[u8]) = if b[i] == b'<' {
            (b"<", b">")
        } else if b[i..].starts_with(b"&lt;") {
            (b"&lt;", b"&gt;")
        } else {
            i += 1;
            continue;
        };
        if placeholders.iter().any(|p| p.0 == i) {
            i += 1;
            continue;
        }
        let body_start = i + open.len();
        let limit = (body_start + 64).min(b.len());
        let end = (body_start..limit).find(|&j| b[j..].starts_with(close) || b[j] == b'<' || b[j] == b'\n');
        let Some(end) = end.filter(|&j| b[j..].starts_with(close)) else {
            i += 1;
            continue;
        };
        let raw = &target[body_start..end];
        let inner = raw.trim().trim_start_matches('/').trim().trim_end_matches('/').trim();
        // A placeholder damaged by spaces: `< 1>`, `</ 2 >`, `<3 />`.
        let damaged_placeholder = !inner.is_empty() && inner.chars().all(|c| c.is_ascii_digit());
        // A tag: its name right after `<` or `</`, then nothing or attributes (`<b>`, `<br/>`, `<a href="x">`).
        let name = raw.strip_prefix('/').unwrap_or(raw);
        let tag = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && name.split([' ', '/']).next().is_some_and(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == ':' || c == '-'))
            && (!name.trim_end_matches('/').contains(' ') || name.contains('='));
        let looks_like_markup = damaged_placeholder || tag;
        let whole = &target[i..end + close.len()];
        if looks_like_markup && !source.contains(whole) {
            out.push(Span::of(target, i, end + close.len()));
            i = end + close.len();
        } else {
            i += 1;
        }
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// What can be checked without the source: a translation is there, is not empty, has no double spaces.
pub fn target_only(i: usize, target: Option<&str>) -> Vec<Issue> {
    match target {
        None => vec![issue(
            i,
            CheckKind::NoTarget,
            Severity::Error,
            "no translation stored for this segment".into(),
            Vec::new(),
        )],
        Some(t) if t.trim().is_empty() => vec![issue(
            i,
            CheckKind::Empty,
            Severity::Error,
            "the translation is empty".into(),
            Vec::new(),
        )],
        Some(t) => doubles(i, "", t).into_iter().collect(),
    }
}

/// Leading/trailing whitespace that differs from the source's, and double spaces the source does not have.
fn whitespace(i: usize, source: &str, target: &str) -> Vec<Issue> {
    let mut out = Vec::new();
    let lead = |s: &str| s.len() - s.trim_start().len();
    let trail = |s: &str| s.len() - s.trim_end().len();
    // (which end, its width in the source, its width in the target, where it starts in the target)
    for (end, in_source, in_target, at) in [
        ("leading", lead(source), lead(target), 0),
        ("trailing", trail(source), trail(target), target.len() - trail(target)),
    ] {
        if (in_source > 0) == (in_target > 0) {
            continue;
        }
        let (spans, what) = if in_target > 0 {
            (vec![Span::of(target, at, at + in_target)], format!("{end} whitespace the source does not have"))
        } else {
            (Vec::new(), format!("{end} whitespace of the source is missing"))
        };
        out.push(issue(i, CheckKind::Whitespace, Severity::Warning, what, spans));
    }
    out.extend(doubles(i, source, target));
    out
}

/// Double spaces inside the target that the source does not have.
fn doubles(i: usize, source: &str, target: &str) -> Option<Issue> {
    let lead = |s: &str| s.len() - s.trim_start().len();
    let doubles = |s: &str| s.trim().match_indices("  ").count();
    (doubles(target) > doubles(source)).then(|| {
        let off = lead(target);
        let spans: Vec<Span> = target
            .trim()
            .match_indices("  ")
            .map(|(p, _)| Span::of(target, off + p, off + p + 2))
            .collect();
        Issue {
            segment: i,
            kind: CheckKind::Whitespace,
            severity: Severity::Warning,
            message: format!("{} double space{}", spans.len(), plural(spans.len())),
            count: spans.len(),
            spans,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(lang: Lang, s: &str, t: Option<&str>) -> Vec<(CheckKind, Severity)> {
        segment(lang, 0, s, t)
            .into_iter()
            .map(|i| (i.kind, i.severity))
            .collect()
    }

    #[test]
    fn a_good_translation_passes() {
        assert!(kinds(
            Lang::De,
            "Please send the <1>3 forms</1> by Friday.",
            Some("Bitte senden Sie die <1>3 Formulare</1> bis Freitag.")
        )
        .is_empty());
        assert!(kinds(
            Lang::Ja,
            "Please send the three forms by Friday.",
            Some("金曜日までに3つの書類を送ってください。")
        )
        .is_empty());
    }

    #[test]
    fn each_problem_is_found_with_its_severity() {
        use CheckKind::*;
        use Severity::*;
        assert_eq!(
            kinds(Lang::De, "Hello there, my friend.", None),
            [(NoTarget, Error)]
        );
        assert_eq!(
            kinds(Lang::De, "Hello there, my friend.", Some("  ")),
            [(Empty, Error)]
        );
        assert_eq!(
            kinds(
                Lang::De,
                "Can you send it to me?",
                Some("Can you send it to me?")
            ),
            [(Untranslated, Error)]
        );
        assert_eq!(
            kinds(Lang::De, "Anna", Some("Anna")),
            [(Identical, Warning)]
        );
        assert_eq!(
            kinds(Lang::De, "It costs 25 euros.", Some("Es kostet 52 Euro.")),
            [(Number, Error)]
        );
        assert_eq!(
            kinds(
                Lang::De,
                "Press <1>OK</1> now.",
                Some("Drücken Sie jetzt OK</1>.")
            ),
            [(Tags, Error)]
        );
        assert_eq!(
            kinds(
                Lang::De,
                "This is a reasonably long sentence for the ratio check.",
                Some("Ja.")
            ),
            [(Length, Warning)]
        );
        assert_eq!(
            kinds(Lang::De, "Please close the door.", Some("Bitte öffnen Sie die Tür.")),
            [(Meaning, Warning)]
        );
        let ws = segment(Lang::De, 0, "Thanks a lot.", Some("Vielen  Dank. "));
        assert_eq!(
            ws.iter().map(|i| i.kind).collect::<Vec<_>>(),
            [Whitespace, Whitespace]
        );
        assert_eq!(ws[1].spans[0].start, 6);
    }

    #[test]
    fn markup_the_source_lacks_is_raw_text_in_the_export() {
        let marked = |s: &str, t: &str| raw_markup(s, t).into_iter().map(|x| x.text).collect::<Vec<_>>();
        assert_eq!(marked("Thank you for your help.", "Danke für Ihre <b>Hilfe</b>."), ["<b>", "</b>"]);
        assert_eq!(marked("Press <1>OK</1>.", "Drücken Sie < 1>OK</ 1 >."), ["< 1>", "</ 1 >"]);
        assert_eq!(marked("Press <1>OK</1>.", "Drücken Sie &lt;1&gt;OK&lt;/1&gt;."), ["&lt;1&gt;", "&lt;/1&gt;"]);
        assert!(marked("Press <1>OK</1> <2/>.", "Drücken Sie <1>OK</1> <2/>.").is_empty(), "placeholders are not raw");
        assert!(marked("Use <br> here.", "Verwenden Sie hier <br>.").is_empty(), "markup of the source is kept as it is");
        assert!(marked("If x < 3 and y > 2, stop.", "Wenn x < 3 und y > 2, anhalten.").is_empty(), "comparisons are not tags");
        assert!(kinds(Lang::De, "Thank you for your help.", Some("Danke für Ihre <b>Hilfe</b>.")).contains(&(CheckKind::RawMarkup, Severity::Error)));
    }

    #[test]
    fn whitespace_at_either_end_names_the_end_and_marks_what_the_target_added() {
        let added = whitespace(0, "Hallo.", " Hallo.\t");
        let got: Vec<_> = added
            .iter()
            .map(|i| (i.message.as_str(), i.spans.iter().map(|s| (s.start, s.end, s.text.as_str())).collect::<Vec<_>>()))
            .collect();
        assert_eq!(
            got,
            [
                ("leading whitespace the source does not have", vec![(0, 1, " ")]),
                ("trailing whitespace the source does not have", vec![(7, 8, "\t")]),
            ]
        );
        let missing = whitespace(0, " Hi ", "Hi");
        let got: Vec<_> = missing.iter().map(|i| (i.message.as_str(), i.spans.len(), i.kind, i.severity)).collect();
        assert_eq!(
            got,
            [
                ("leading whitespace of the source is missing", 0, CheckKind::Whitespace, Severity::Warning),
                ("trailing whitespace of the source is missing", 0, CheckKind::Whitespace, Severity::Warning),
            ]
        );
    }
}
