//! Register consistency over a document: each segment's address form, the form that dominates, the segments
//! that deviate from the document's register (with the markers that say so), and their repair.
//!
//! A segment deviates when the analyzer's verdict against the document's register is `Wrong` (a strong marker
//! of the other side, or both sides at once); weak, ambiguous markers (ES `su`, a sentence-initial DE `Sie`)
//! never make a segment deviate, as they are as often a third person.
use registro_register::repair::{self, Edit};
use registro_register::{analyze as analyze_text, Label, Lang, Marker, Register, Verdict};
use serde::{Deserialize, Serialize};

use crate::{CheckKind, Issue, Segment, Severity, Span};

/// The address form of one segment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SegmentRegister {
    pub index: usize,
    pub label: Label,
    /// The language's name for the form (`du`, `Sie`, `tu`, `vous`, `plain`, `polite`, `respectful`, `mixed`).
    pub form: String,
    pub markers: Vec<Marker>,
    pub deviates: bool,
}

/// How many segments use one form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct FormCount {
    pub form: String,
    pub register: Register,
    pub segments: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Consistency {
    /// The forms found, most segments first (segments with no address marker are in none).
    pub forms: Vec<FormCount>,
    /// The form most segments use.
    pub dominant: Option<String>,
    /// The register the document must be in: the one the run asked for, else the dominant one.
    pub target: Option<Register>,
    /// More than one form appears (a segment mixing both counts).
    pub mixed: bool,
    /// Segments with an address marker (neutral segments are left out).
    pub segments: Vec<SegmentRegister>,
    /// Indices of the segments whose form contradicts `target`.
    pub deviating: Vec<usize>,
}

/// The names a translator uses for the two (JA: three) address forms of `lang`.
pub fn form_name(lang: Lang, label: Label, markers: &[Marker], respectful: bool) -> String {
    let informal = match lang {
        Lang::De => "du",
        Lang::Es => "tú",
        Lang::Fr => "tu",
        Lang::It => "tu",
        // तू (intimate) and तुम (familiar) are both the informal side; the name says which one the text uses.
        Lang::Hi
            if markers
                .iter()
                .any(|m| ["तू", "तुझ", "तेर"].iter().any(|p| m.text.starts_with(p))) =>
        {
            "tu"
        }
        Lang::Hi => "tum",
        Lang::Ja | Lang::Ko => "plain",
        Lang::Nl => "jij",
        Lang::Pt => "tu",
        Lang::Ru => "ты",
        Lang::Vi => "bạn",
    };
    let formal = match lang {
        Lang::De => "Sie",
        Lang::Es => "usted",
        Lang::Fr => "vous",
        Lang::It => "Lei",
        Lang::Hi => "aap",
        Lang::Ja if respectful => "respectful",
        Lang::Ja | Lang::Ko => "polite",
        Lang::Nl => "u",
        Lang::Pt => "você",
        Lang::Ru => "вы",
        Lang::Vi => "quý vị",
    };
    match label {
        Label::Formal => formal.into(),
        Label::Informal => informal.into(),
        Label::Mixed => format!("mixed {informal}/{formal}"),
        Label::Neutral => "neutral".into(),
    }
}

/// Collects each segment's form and finds the deviating ones.
pub fn analyze(lang: Lang, requested: Option<Register>, segments: &[Segment<'_>]) -> Consistency {
    analyze_with(lang, requested, segments, &mut |_| true).expect("never stopped")
}

/// [`analyze`], telling `step` how many segments were analysed every 256 segments and stopping with `None` as soon
/// as it returns false.
pub fn analyze_with(
    lang: Lang,
    requested: Option<Register>,
    segments: &[Segment<'_>],
    step: &mut dyn FnMut(usize) -> bool,
) -> Option<Consistency> {
    let mut segs = Vec::new();
    let mut forms: Vec<FormCount> = Vec::new();
    for (index, s) in segments.iter().enumerate() {
        if index % 256 == 255 && !step(index + 1) {
            return None;
        }
        let Some(text) = s.target else { continue };
        let a = analyze_text(lang, text);
        if a.label == Label::Neutral {
            continue;
        }
        let form = form_name(lang, a.label, &a.markers, a.respectful);
        if a.label != Label::Mixed {
            let register = match a.label {
                Label::Informal => Register::Informal,
                _ if a.respectful => Register::Respectful,
                _ => Register::Formal,
            };
            match forms.iter_mut().find(|f| f.form == form) {
                Some(f) => f.segments.push(index),
                None => forms.push(FormCount {
                    form: form.clone(),
                    register,
                    segments: vec![index],
                }),
            }
        }
        segs.push((
            SegmentRegister {
                index,
                label: a.label,
                form,
                markers: a.markers.clone(),
                deviates: false,
            },
            a,
        ));
    }
    // Most segments first; a tie keeps the order of first appearance.
    forms.sort_by(|a, b| b.segments.len().cmp(&a.segments.len()));
    let dominant = forms.first().map(|f| f.form.clone());
    // Without a request the side with more segments sets the target (polite and respectful are one side).
    let target = requested.or_else(|| {
        let side = |formal: bool| {
            forms
                .iter()
                .filter(|f| f.register.is_formal_side() == formal)
                .map(|f| f.segments.len())
                .sum::<usize>()
        };
        let (f, i) = (side(true), side(false));
        (f + i > 0).then(|| {
            if i > f {
                Register::Informal
            } else {
                forms
                    .iter()
                    .find(|x| x.register.is_formal_side())
                    .map_or(Register::Formal, |x| x.register)
            }
        })
    });
    let sides = forms
        .iter()
        .map(|f| f.register.is_formal_side())
        .collect::<std::collections::HashSet<_>>();
    let mixed = sides.len() > 1 || segs.iter().any(|(s, _)| s.label == Label::Mixed);
    let mut deviating = Vec::new();
    let segments = segs
        .into_iter()
        .map(|(mut s, a)| {
            // A segment the user asked for in another register is measured against that one.
            let want = segments[s.index].register.or(target);
            s.deviates = want.is_some_and(|t| a.verdict(t) == Verdict::Wrong);
            if s.deviates {
                deviating.push(s.index);
            }
            s
        })
        .collect();
    Some(Consistency {
        forms,
        dominant,
        target,
        mixed,
        segments,
        deviating,
    })
}

/// One `register` error per deviating segment, pointing at the markers of the other form.
pub fn issues(c: &Consistency, segments: &[Segment<'_>]) -> Vec<Issue> {
    let Some(target) = c.target else {
        return Vec::new();
    };
    c.segments
        .iter()
        .filter(|s| s.deviates)
        .map(|s| {
            let text = segments[s.index].target.unwrap_or_default();
            let target = segments[s.index].register.unwrap_or(target);
            let wrong: Vec<&Marker> = s
                .markers
                .iter()
                .filter(|m| m.strong && m.register.is_formal_side() != target.is_formal_side())
                .collect();
            let words = crate::quoted(wrong.iter().map(|m| &m.text), ", ");
            let expected = c
                .forms
                .iter()
                .find(|f| f.register.is_formal_side() == target.is_formal_side())
                .map_or(target.as_str().to_string(), |f| f.form.clone());
            Issue {
                segment: s.index,
                kind: CheckKind::Register,
                severity: Severity::Error,
                message: format!(
                    "{} in a {} document ({expected}): {words}",
                    s.form,
                    target.as_str()
                ),
                spans: wrong
                    .iter()
                    .filter_map(|m| {
                        text.get(m.start..m.end)
                            .map(|_| Span::of(text, m.start, m.end))
                    })
                    .collect(),
                count: wrong.len(),
            }
        })
        .collect()
}

/// What repairing one deviating segment gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "QaFix")]
pub struct Fix {
    pub segment: usize,
    pub before: String,
    /// The repaired text; `None` when no rule could make the segment consistent.
    pub after: Option<String>,
    pub edits: Vec<Edit>,
    /// Why the segment could not be repaired (what the user should do instead).
    pub reason: Option<String>,
}

/// Repairs every deviating segment into `target` with the language's rules. A repair is kept only when the
/// analyzer no longer finds the other form; otherwise the segment is reported as not repairable.
pub fn fixes(lang: Lang, c: &Consistency, segments: &[Segment<'_>]) -> Vec<Fix> {
    let Some(target) = c.target else {
        return Vec::new();
    };
    c.deviating
        .iter()
        .filter_map(|&i| segments.get(i).and_then(|s| s.target).map(|t| (i, t)))
        .map(|(segment, text)| {
            let target = segments[segment].register.unwrap_or(target);
            let r = repair::convert(lang, text, target);
            let verdict = analyze_text(lang, &r.text).verdict(target);
            if r.changed() && verdict != Verdict::Wrong {
                Fix {
                    segment,
                    before: text.to_string(),
                    after: Some(r.text),
                    edits: r.edits,
                    reason: None,
                }
            } else {
                let reason = if r.changed() {
                    "the repair left markers of the other form: edit the segment by hand"
                        .to_string()
                } else {
                    "no rule applies to these markers: edit the segment by hand".to_string()
                };
                Fix {
                    segment,
                    before: text.to_string(),
                    after: None,
                    edits: Vec::new(),
                    reason: Some(reason),
                }
            }
        })
        .collect()
}
