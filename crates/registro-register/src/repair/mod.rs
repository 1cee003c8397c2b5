//! Rule-based register repair: rewrites the addressee markers of a sentence into the requested register — T-V
//! conversion with conjugation tables for DE/ES/FR/IT and HI (pronouns, possessives, verb person/number,
//! imperatives), NL and RU pronouns with the verb beside them, PT tu↔você with 2sg↔3sg verbs, plain↔です/ます for JA
//! (conjugation rules on verb endings: no Japanese morphological dictionary can be fetched offline) and a respectful
//! (sonkeigo) level for JA, 반말↔해요체/합쇼체 for KO (a conjugator on Hangul jamo), and bạn↔quý vị with the polite
//! particles for VI.
//!
//! Repair only touches tokens the analyzer marked (plus the verb next to a converted pronoun), so a sentence with
//! no addressee comes back unchanged.

mod de;
mod es;
mod fr;
mod hi;
mod it;
mod ja;
mod ko;
mod nl;
mod pt;
mod ru;
mod vi;

use crate::tokens::{tokenize, Tok};
use crate::{analyze, Lang, Register};

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[ts(rename = "RepairEdit")]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub from: String,
    pub to: String,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Repair {
    pub text: String,
    pub edits: Vec<Edit>,
}

impl Repair {
    pub fn changed(&self) -> bool {
        !self.edits.is_empty()
    }
}

/// Rewrites `text` into `target`. Returns the text unchanged (no edits) when nothing needs converting.
pub fn convert(lang: Lang, text: &str, target: Register) -> Repair {
    let mut edits = match lang {
        Lang::Ja => ja::edits(text, target),
        _ => {
            let toks = tokenize(text);
            let a = analyze(lang, text);
            // Tokens the analyzer marked as the other register; weak ones too, since a repair is only asked for
            // when the sentence as a whole came out in the wrong register.
            let wrong: Vec<usize> = toks
                .iter()
                .enumerate()
                .filter(|(_, t)| a.wrong_markers(target).any(|m| m.start <= t.start && t.end <= m.end))
                .map(|(i, _)| i)
                .collect();
            let ctx = Ctx { text, toks: &toks, wrong: &wrong, markers: &a.markers, to_formal: target.is_formal_side() };
            match lang {
                Lang::De => de::edits(&ctx),
                Lang::Es => es::edits(&ctx),
                Lang::Fr => fr::edits(&ctx),
                Lang::It => it::edits(&ctx),
                Lang::Hi => hi::edits(&ctx),
                Lang::Nl => nl::edits(&ctx),
                Lang::Ru => ru::edits(&ctx),
                Lang::Ko => ko::edits(&ctx),
                Lang::Pt => pt::edits(&ctx),
                Lang::Vi => vi::edits(&ctx),
                Lang::Ja => unreachable!(),
            }
        }
    };
    apply(text, &mut edits)
}

pub(crate) struct Ctx<'a> {
    pub text: &'a str,
    pub toks: &'a [Tok<'a>],
    /// Indices of the tokens marked with the other register.
    pub wrong: &'a [usize],
    /// Every marker the analyzer found, for rules that need a marker's kind (a Korean word can be a pronoun or an
    /// ending).
    pub markers: &'a [crate::Marker],
    pub to_formal: bool,
}

impl<'a> Ctx<'a> {
    pub fn is_wrong(&self, i: usize) -> bool {
        self.wrong.contains(&i)
    }
    /// The tokens marked with the other register, with their index and normalised form: what most languages'
    /// repairs walk.
    pub fn wrong_tokens(&self) -> impl Iterator<Item = (usize, &'a Tok<'a>, &'a str)> + 'a {
        let (toks, wrong) = (self.toks, self.wrong);
        toks.iter().enumerate().filter(move |(i, _)| wrong.contains(i)).map(|(i, t)| (i, t, t.norm.as_str()))
    }
    pub fn norm(&self, i: usize) -> &str {
        self.toks.get(i).map(|t| t.norm.as_str()).unwrap_or("")
    }
    pub fn edit(&self, i: usize, to: impl Into<String>) -> Edit {
        let t = &self.toks[i];
        Edit { start: t.start, end: t.end, from: t.text.to_string(), to: to.into() }
    }
    /// Replacement with the original's initial capital carried over.
    pub fn edit_cased(&self, i: usize, to: &str) -> Edit {
        let t = &self.toks[i];
        self.edit(i, if t.capitalised() { capitalise(to) } else { to.to_string() })
    }
}

pub(crate) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Looks `w` up in a two-column table, in the direction asked.
pub(crate) fn table<'a>(pairs: &'a [(&'a str, &'a str)], w: &str, forward: bool) -> Option<&'a str> {
    pairs.iter().find(|(a, b)| if forward { *a == w } else { *b == w }).map(|(a, b)| if forward { *b } else { *a })
}

/// `w` with the first of `endings` it ends in replaced by its partner (so the longer endings go first), when a stem
/// of at least two letters stays: a shorter one is a word of its own, not a conjugated verb.
pub(crate) fn swap_ending(w: &str, endings: &[(&str, &str)]) -> Option<String> {
    endings.iter().find_map(|(a, b)| w.strip_suffix(a).filter(|s| s.chars().count() >= 2).map(|s| format!("{s}{b}")))
}

fn apply(text: &str, edits: &mut Vec<Edit>) -> Repair {
    edits.sort_by_key(|e| (e.start, e.end));
    edits.dedup_by(|b, a| b.start < a.end);
    edits.retain(|e| e.from != e.to);
    let mut out = String::with_capacity(text.len() + 16);
    let mut pos = 0;
    for e in edits.iter() {
        out.push_str(&text[pos..e.start]);
        out.push_str(&e.to);
        pos = e.end;
    }
    out.push_str(&text[pos..]);
    Repair { text: out, edits: edits.clone() }
}

/// `to` with `t`'s initial capital.
pub(crate) fn capitalise_if(t: &Tok<'_>, to: &str) -> String {
    if t.capitalised() {
        capitalise(to)
    } else {
        to.to_string()
    }
}
