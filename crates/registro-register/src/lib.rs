//! registro-register: finds register markers (T-V pronouns, possessives, 2nd-person verb forms, imperatives,
//! Japanese and Korean politeness endings, honorifics, Vietnamese address terms) in DE/ES/FR/HI/IT/JA/KO/NL/PT/RU/VI
//! text, labels a sentence FORMAL / INFORMAL /
//! NEUTRAL / MIXED, and repairs a sentence into the other register with rules (see [`repair`]).
//!
//! Markers are *strong* when they can only mean the addressee in that register (DE `du`, mid-sentence `Sie`; ES
//! `tú`, `usted`; JA `ます`) and *weak* when they are ambiguous with a third person (ES `su`, IT `suo`, a
//! sentence-initial DE `Sie`). Weak markers only decide the label when no strong marker is present, and a weak
//! marker alone never makes a translation "wrong" (see [`Analysis::verdict`]) so repair never rewrites a "his".
#![forbid(unsafe_code)]

pub mod data;
pub mod eval;
pub mod fuzz;
pub mod back_translation;
pub mod meaning;
mod opposites;
pub mod repair;
pub(crate) mod lang;

mod tokens;

use serde::{Deserialize, Serialize};

/// A target language: every language a translation can go into, with what it can do (its registers and the
/// capability methods below). Faces list languages from [`Lang::ALL`] (the window through core's generated
/// `LANGUAGES`), never from a list of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    De,
    Es,
    Fr,
    Hi,
    It,
    Ja,
    Ko,
    Nl,
    Pt,
    Ru,
    Vi,
}

impl Lang {
    pub const ALL: [Lang; 11] = [
        Lang::De, Lang::Es, Lang::Fr, Lang::Hi, Lang::It, Lang::Ja, Lang::Ko, Lang::Nl, Lang::Pt, Lang::Ru, Lang::Vi,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Lang::De => "de",
            Lang::Es => "es",
            Lang::Fr => "fr",
            Lang::Hi => "hi",
            Lang::It => "it",
            Lang::Ja => "ja",
            Lang::Ko => "ko",
            Lang::Nl => "nl",
            Lang::Pt => "pt",
            Lang::Ru => "ru",
            Lang::Vi => "vi",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::De => "German",
            Lang::Es => "Spanish",
            Lang::Fr => "French",
            Lang::Hi => "Hindi",
            Lang::It => "Italian",
            Lang::Ja => "Japanese",
            Lang::Ko => "Korean",
            Lang::Nl => "Dutch",
            Lang::Pt => "Portuguese (European)",
            Lang::Ru => "Russian",
            Lang::Vi => "Vietnamese",
        }
    }

    /// Whether a feminine addressee changes the wording (CoCoA-MT ships `.feminine` references for these).
    pub fn marks_addressee_gender(self) -> bool {
        !matches!(self, Lang::Ja | Lang::Ko | Lang::Nl | Lang::Vi)
    }

    /// The language part of the data sets' file names: CoCoA-MT names its European Portuguese `en-ptpt`.
    pub fn data_code(self) -> &'static str {
        match self {
            Lang::Pt => "ptpt",
            l => l.code(),
        }
    }

    /// Languages whose register lives in sentence endings rather than in T-V pronouns.
    pub fn marks_endings(self) -> bool {
        matches!(self, Lang::Ja | Lang::Ko)
    }

    /// Whether the language has a respectful register beside the formal one (Japanese sonkeigo/kenjōgo): the only
    /// place a request for `respectful` is accepted.
    pub fn has_respectful(self) -> bool {
        matches!(self, Lang::Ja)
    }

    /// The registers a translation into the language can ask for, formal first.
    pub fn registers(self) -> Vec<Register> {
        let mut r = vec![Register::Formal, Register::Informal];
        if self.has_respectful() {
            r.push(Register::Respectful);
        }
        r
    }

    /// Scripts that pack many letters into a word or write no spaces (kana/kanji, Hangul blocks): length checks
    /// count letters, not words.
    pub fn dense_script(self) -> bool {
        matches!(self, Lang::Ja | Lang::Ko)
    }
}

impl std::str::FromStr for Lang {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Lang::ALL
            .into_iter()
            .find(|l| l.code().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| Error::UnknownLang(s.to_string()))
    }
}

/// The register a user asks for, or that a marker signals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Register {
    #[cfg_attr(feature = "clap", value(alias = "f"))]
    Formal,
    #[cfg_attr(feature = "clap", value(alias = "i"))]
    Informal,
    /// Japanese sonkeigo/kenjōgo; also counts as formal.
    #[cfg_attr(feature = "clap", value(alias = "honorific"))]
    Respectful,
}

impl Register {
    pub fn as_str(self) -> &'static str {
        match self {
            Register::Formal => "formal",
            Register::Informal => "informal",
            Register::Respectful => "respectful",
        }
    }
    /// Formal and respectful are the same side of the T-V distinction.
    pub fn is_formal_side(self) -> bool {
        !matches!(self, Register::Informal)
    }
    pub fn opposite(self) -> Register {
        if self.is_formal_side() {
            Register::Informal
        } else {
            Register::Formal
        }
    }
}

impl std::str::FromStr for Register {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim().to_ascii_lowercase().as_str() {
            "formal" | "f" => Ok(Register::Formal),
            "informal" | "i" => Ok(Register::Informal),
            "respectful" | "honorific" => Ok(Register::Respectful),
            _ => Err(Error::UnknownRegister(s.to_string())),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "UPPERCASE")]
pub enum Label {
    Formal,
    Informal,
    Neutral,
    Mixed,
}

impl Label {
    /// Where a sentence stands: +1 formal, −1 informal, None when it cannot tell (no marker, or markers of both).
    pub fn formality_sign(self) -> Option<f64> {
        match self {
            Label::Formal => Some(1.0),
            Label::Informal => Some(-1.0),
            Label::Neutral | Label::Mixed => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Label::Formal => "FORMAL",
            Label::Informal => "INFORMAL",
            Label::Neutral => "NEUTRAL",
            Label::Mixed => "MIXED",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum MarkerKind {
    Pronoun,
    Possessive,
    Verb,
    Imperative,
    /// Japanese predicate ending (です/ます vs plain form).
    Ending,
    /// Japanese honorific (sonkeigo/kenjōgo) expression.
    Honorific,
    /// A greeting of one register ("ciao", "salut").
    Greeting,
}

/// One register marker. Offsets are given both in bytes (Rust slicing) and in Unicode scalar values (for the UI,
/// which indexes `Array.from(text)`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Marker {
    pub start: usize,
    pub end: usize,
    pub char_start: usize,
    pub char_end: usize,
    pub text: String,
    pub register: Register,
    pub kind: MarkerKind,
    pub strong: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Analysis {
    pub label: Label,
    pub markers: Vec<Marker>,
    /// Japanese only: honorific expressions present (the respectful level).
    pub respectful: bool,
}

/// Whether a text satisfies a requested register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The markers agree with the request.
    Ok,
    /// No addressee marker at all: nothing to get wrong (e.g. a sentence about a third person).
    Neutral,
    /// Only weak (ambiguous) markers of the other register: not flagged as wrong, but not proof of success.
    Uncertain,
    /// Strong markers of the other register (or a mix): must be repaired or flagged.
    Wrong,
}

impl Analysis {
    pub fn verdict(&self, requested: Register) -> Verdict {
        let want_formal = requested.is_formal_side();
        let (mut good, mut bad, mut weak_bad) = (0, 0, 0);
        for m in &self.markers {
            let same = m.register.is_formal_side() == want_formal;
            match (same, m.strong) {
                (true, _) => good += 1,
                (false, true) => bad += 1,
                (false, false) => weak_bad += 1,
            }
        }
        if bad > 0 {
            return Verdict::Wrong;
        }
        if requested == Register::Respectful && !self.respectful {
            return Verdict::Uncertain;
        }
        if good > 0 {
            Verdict::Ok
        } else if weak_bad > 0 {
            Verdict::Uncertain
        } else {
            Verdict::Neutral
        }
    }

    /// Markers that contradict `requested` (shown in red by the UI).
    pub fn wrong_markers(&self, requested: Register) -> impl Iterator<Item = &Marker> {
        let want_formal = requested.is_formal_side();
        self.markers.iter().filter(move |m| m.register.is_formal_side() != want_formal)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("unknown target language {0:?} (expected one of de, es, fr, hi, it, ja, ko, nl, pt, ru, vi)")]
    UnknownLang(String),
    #[error("unknown register {0:?} (expected formal, informal or respectful)")]
    UnknownRegister(String),
    #[error("{path}: {message}")]
    Data { path: String, message: String },
}

/// Finds the register markers of `text` in language `lang` and labels it.
pub fn analyze(lang: Lang, text: &str) -> Analysis {
    let mut raw = match lang {
        Lang::Ja => lang::ja::markers(text),
        _ => {
            let toks = tokens::tokenize(text);
            let mut m = match lang {
                Lang::De => lang::de::markers(text, &toks),
                Lang::Es => lang::es::markers(text, &toks),
                Lang::Fr => lang::fr::markers(text, &toks),
                Lang::It => lang::it::markers(text, &toks),
                Lang::Hi => lang::hi::markers(text, &toks),
                Lang::Ko => lang::ko::markers(text, &toks),
                Lang::Nl => lang::nl::markers(text, &toks),
                Lang::Pt => lang::pt::markers(text, &toks),
                Lang::Ru => lang::ru::markers(text, &toks),
                Lang::Vi => lang::vi::markers(text, &toks),
                Lang::Ja => unreachable!(),
            };
            lang::learned::add_markers(lang, text, &toks, &mut m);
            lang::greeting_markers(lang, text, &toks, &mut m);
            m
        }
    };
    raw.sort_by_key(|m| (m.start, m.end));
    raw.dedup_by(|b, a| a.start <= b.start && b.end <= a.end);
    label(lang, raw)
}

fn label(lang: Lang, markers: Vec<Marker>) -> Analysis {
    let count = |strong: bool, formal: bool| {
        markers.iter().filter(|m| m.strong == strong && m.register.is_formal_side() == formal).count()
    };
    let (sf, si) = (count(true, true), count(true, false));
    let (wf, wi) = (count(false, true), count(false, false));
    let label = match (sf > 0, si > 0) {
        // Japanese speakers drift between styles inside one utterance (CoCoA-MT's informal references keep a
        // polite すみません or a です here and there), so the predominant style decides there.
        (true, true) if lang.marks_endings() && sf > si => Label::Formal,
        (true, true) if lang.marks_endings() && si > sf => Label::Informal,
        // A tie goes to the closing clause, which sets the tone the listener is left with.
        (true, true) if lang.marks_endings() => {
            let last = markers.iter().filter(|m| m.strong).max_by_key(|m| m.end).expect("strong marker");
            if last.register.is_formal_side() { Label::Formal } else { Label::Informal }
        }
        (true, true) => Label::Mixed,
        (true, false) => Label::Formal,
        (false, true) => Label::Informal,
        (false, false) => match (wf > 0, wi > 0) {
            (true, false) => Label::Formal,
            (false, true) => Label::Informal,
            (true, true) if wf > wi => Label::Formal,
            (true, true) if wi > wf => Label::Informal,
            (true, true) => Label::Mixed,
            (false, false) => Label::Neutral,
        },
    };
    // Weak markers that a strong marker contradicts are third persons, not the addressee: hide them so the UI
    // does not paint "his" red in a correct sentence.
    let markers = markers
        .into_iter()
        .filter(|m| {
            m.strong
                || match label {
                    Label::Formal => m.register.is_formal_side(),
                    Label::Informal => !m.register.is_formal_side(),
                    _ => true,
                }
        })
        .collect::<Vec<_>>();
    let respectful = markers.iter().any(|m| m.register == Register::Respectful);
    Analysis { label, markers, respectful }
}

/// Builds a marker for `text[start..end]`.
pub(crate) fn marker(text: &str, start: usize, end: usize, register: Register, kind: MarkerKind, strong: bool) -> Marker {
    let char_start = text[..start].chars().count();
    let char_end = char_start + text[start..end].chars().count();
    Marker { start, end, char_start, char_end, text: text[start..end].to_string(), register, kind, strong }
}
