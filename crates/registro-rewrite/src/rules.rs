//! The rule-based formalizer (XFORMAL Appendix C; Rao & Tetreault 2018 for English): deterministic rewrites of
//! surface informality, each recorded as an [`Edit`] with its type and span so the UI can show and undo it.
//!
//! Order matters: emoticons and laughter go first (so punctuation next to them is seen as adjacent), then each
//! word is de-elongated before it is looked up in the slang list ("plzzzz" → "plz" → "please"), then punctuation
//! and spacing, and casing/final punctuation last because they depend on what survived.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::lexicon::{abbreviations, chat_digits, en_contractions, is_dotted_abbreviation, is_known_acronym, is_laughter, needs_subject};
use crate::tokens::{tokenize, Kind, Tok};
use crate::Lang;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum EditKind {
    /// `:)`, `😂` removed.
    Emoticon,
    /// Laughter and fillers (`hahaha`, `lol`, `kkkk`) removed.
    Interjection,
    /// Letter runs of 3+ reduced to one (`soooo` → `so`).
    CharRepeat,
    /// Shouting lowered, sentence-initial letter and English `i` raised.
    Casing,
    /// Chat abbreviation or slang expanded (`vc` → `você`).
    Abbreviation,
    /// English contraction expanded (`don't` → `do not`).
    Contraction,
    /// Repeated punctuation collapsed (`!!!` → `!`).
    Punctuation,
    /// Space before punctuation removed, glued words split (`po'di` → `po' di`).
    Spacing,
    /// Missing sentence-final punctuation added.
    FinalPunctuation,
}

impl EditKind {
    pub const ALL: [EditKind; 9] = [
        EditKind::Emoticon,
        EditKind::Interjection,
        EditKind::CharRepeat,
        EditKind::Casing,
        EditKind::Abbreviation,
        EditKind::Contraction,
        EditKind::Punctuation,
        EditKind::Spacing,
        EditKind::FinalPunctuation,
    ];

    fn bit(self) -> u16 {
        1 << (self as u16)
    }

    pub fn label(self) -> &'static str {
        match self {
            EditKind::Emoticon => "emoticon",
            EditKind::Interjection => "interjection",
            EditKind::CharRepeat => "char_repeat",
            EditKind::Casing => "casing",
            EditKind::Abbreviation => "abbreviation",
            EditKind::Contraction => "contraction",
            EditKind::Punctuation => "punctuation",
            EditKind::Spacing => "spacing",
            EditKind::FinalPunctuation => "final_punctuation",
        }
    }
}

/// One change: `before` at bytes `src` of the input became `after` at bytes `dst` of the output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "RuleEdit")]
pub struct Edit {
    pub kinds: Vec<EditKind>,
    pub src: (usize, usize),
    pub dst: (usize, usize),
    pub before: String,
    pub after: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Formalized {
    pub text: String,
    pub edits: Vec<Edit>,
}

impl Formalized {
    /// The text with only the edits whose index is in `keep` applied (the UI's accept/reject).
    pub fn apply_subset(&self, input: &str, keep: impl Fn(usize) -> bool) -> String {
        let mut out = String::with_capacity(input.len());
        let mut at = 0;
        for (i, e) in self.edits.iter().enumerate() {
            out.push_str(&input[at..e.src.0]);
            out.push_str(if keep(i) { &e.after } else { &e.before });
            at = e.src.1;
        }
        out.push_str(&input[at..]);
        out
    }
}

#[derive(Clone, Debug)]
struct Piece<'a> {
    kind: Kind,
    src: (usize, usize),
    text: Cow<'a, str>,
    edits: u16,
}

impl<'a> Piece<'a> {
    fn set(&mut self, text: impl Into<Cow<'a, str>>, kind: EditKind) {
        self.text = text.into();
        self.edits |= kind.bit();
    }
    fn is_gone(&self) -> bool {
        self.text.is_empty()
    }
}

/// Reusable buffers so that the benchmark (and bulk rewriting) does not allocate a token vector per sentence.
#[derive(Default)]
pub struct Formalizer {
    toks: Vec<Tok>,
}

impl Formalizer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Formalizes `input` (one or more lines; each line is treated as one sentence-or-more unit).
    pub fn formalize(&mut self, input: &str, lang: Lang) -> Formalized {
        let mut text = String::with_capacity(input.len() + 8);
        let mut edits = Vec::new();
        let mut line_start = 0;
        for line in input.split_inclusive('\n') {
            let body = line.trim_end_matches(['\n', '\r']);
            self.formalize_line(body, line_start, lang, &mut text, &mut edits);
            text.push_str(&line[body.len()..]);
            line_start += line.len();
        }
        Formalized { text, edits }
    }

    fn formalize_line(&mut self, s: &str, offset: usize, lang: Lang, out: &mut String, edits: &mut Vec<Edit>) {
        tokenize(s, &mut self.toks);
        let mut p: Vec<Piece> = self
            .toks
            .iter()
            .map(|t| Piece { kind: t.kind, src: (t.start, t.end), text: Cow::Borrowed(&s[t.start..t.end]), edits: 0 })
            .collect();
        remove_emoticons(&mut p);
        spell_out_chat_digits(&mut p, s, lang);
        words(&mut p, lang);
        punctuation(&mut p, lang);
        spacing(&mut p, lang);
        if lang.has_case() {
            casing(&mut p, lang);
        }
        final_punctuation(&mut p, s.len(), lang);
        tidy_spaces(&mut p);
        emit(&p, s, offset, out, edits);
    }
}

/// Convenience for one-off calls; bulk callers keep a [`Formalizer`].
pub fn formalize(input: &str, lang: Lang) -> Formalized {
    Formalizer::new().formalize(input, lang)
}

fn delete_with_space(p: &mut [Piece], i: usize, kind: EditKind) {
    p[i].set("", kind);
    // Take one neighbouring space with the word so no double space is left behind: the one before, unless the
    // word starts the line.
    let before = (0..i).rev().find(|&j| !p[j].is_gone());
    match before {
        Some(j) if p[j].kind == Kind::Space => p[j].set("", kind),
        _ => {
            if let Some(j) = (i + 1..p.len()).find(|&j| !p[j].is_gone()) {
                if p[j].kind == Kind::Space {
                    p[j].set("", kind);
                }
            }
        }
    }
}

fn remove_emoticons(p: &mut [Piece]) {
    for i in 0..p.len() {
        if p[i].kind == Kind::Emoticon {
            delete_with_space(p, i, EditKind::Emoticon);
        }
    }
}

/// Reduces letter runs of 3+ to one letter. German legitimately has triple consonants (Schifffahrt), so there a
/// run of exactly three is kept; roman numerals (XIII) are left alone.
fn collapse_runs(w: &str, lang: Lang) -> Option<String> {
    if !has_run3(w) || w.chars().any(|c| c.is_ascii_digit()) || w.chars().all(|c| "IVXLCDM".contains(c)) {
        return None;
    }
    let chars: Vec<char> = w.chars().collect();
    let mut out = String::with_capacity(w.len());
    let mut changed = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let lc = c.to_lowercase().next().unwrap_or(c);
        let mut j = i + 1;
        while j < chars.len() && chars[j].to_lowercase().next() == Some(lc) {
            j += 1;
        }
        let run = j - i;
        let keep_all = run < 3 || !c.is_alphabetic() || (lang == Lang::De && run == 3 && !"aeiouäöü".contains(lc));
        if keep_all {
            out.extend(&chars[i..j]);
        } else {
            out.push(c);
            changed = true;
        }
        i = j;
    }
    changed.then_some(out)
}

/// Cheap pre-check (most words have no run): three equal chars in a row, ignoring ASCII case.
fn has_run3(w: &str) -> bool {
    let mut it = w.chars().map(|c| c.to_ascii_lowercase());
    let (Some(mut a), Some(mut b)) = (it.next(), it.next()) else { return false };
    for c in it {
        if a == b && b == c {
            return true;
        }
        a = b;
        b = c;
    }
    false
}

fn lowercase(w: &str) -> Cow<'_, str> {
    if w.chars().any(|c| c.is_uppercase()) {
        Cow::Owned(w.to_lowercase())
    } else {
        Cow::Borrowed(w)
    }
}

fn is_all_caps(w: &str) -> bool {
    let mut letters = 0;
    for c in w.chars() {
        if c.is_lowercase() {
            return false;
        }
        if c.is_alphabetic() {
            letters += 1;
        }
    }
    letters >= 2
}

fn is_title_case(w: &str) -> bool {
    let mut cs = w.chars();
    cs.next().is_some_and(|c| c.is_uppercase()) && !is_all_caps(w)
}

fn capitalize_first(w: &str) -> String {
    let mut cs = w.chars();
    match cs.next() {
        Some(c) => c.to_uppercase().chain(cs).collect(),
        None => String::new(),
    }
}

/// Whether piece `i` starts a sentence: nothing but spaces/opening marks before it, or a sentence end.
fn starts_sentence(p: &[Piece], i: usize) -> bool {
    let mut j = i;
    while j > 0 {
        j -= 1;
        let t = &p[j];
        if t.is_gone() || t.kind == Kind::Space {
            continue;
        }
        if t.kind == Kind::Punct {
            let c = t.text.as_ref();
            if matches!(c, "!" | "?" | "…" | "¿" | "¡") {
                return true;
            }
            if c == "." {
                // "e.g." and "Dr." do not end a sentence, nor does an ellipsis ("..." as three marks).
                let prev = (0..j).rev().find(|&k| !p[k].is_gone());
                return !prev.is_some_and(|k| {
                    (p[k].kind == Kind::Word && is_dotted_abbreviation(&p[k].text.to_lowercase())) || p[k].text == "."
                });
            }
            if matches!(c, "\"" | "(" | "«" | "“" | "'" | "-" | "*") {
                continue;
            }
            return false;
        }
        return false;
    }
    true
}

/// Lone digits that stand for words ("thanks 4 the help", "talk 2 u", "me 2"), spelled out; the same reader
/// tells the content check that they are not numbers.
fn spell_out_chat_digits(p: &mut [Piece], line: &str, lang: Lang) {
    for (r, word) in chat_digits(lang, line) {
        let Some(t) = p.iter_mut().find(|t| t.kind == Kind::Number && t.src == (r.start, r.end)) else { continue };
        t.set(word, EditKind::Abbreviation);
        t.kind = Kind::Word;
    }
}

/// Whether the word at `i` has a subject before it in its clause: some word other than a discourse marker, an
/// adverb or a conjunction ("ok so gonna be late" has none; "im so gonna win" and "tired and gonna sleep" have).
fn has_subject(p: &[Piece], i: usize) -> bool {
    const NOT_SUBJECTS: &[&str] = &[
        "ok", "okay", "k", "kk", "so", "well", "sorry", "sry", "yeah", "yes", "yep", "yup", "no", "nope", "nah", "hey",
        "hi", "hello", "oh", "ah", "um", "uh", "hmm", "anyway", "anyways", "btw", "tbh", "omg", "ugh", "damn", "welp",
        "just", "really", "probably", "prob", "prolly", "def", "definitely", "totally", "literally", "actually",
        "also", "still", "never", "not", "then", "now", "and", "but", "or", "cause", "because", "bc", "cuz",
        "by the way", "to be honest", "oh my god", "right now",
        // German and French discourse words and conjunctions.
        "also", "na", "naja", "ja", "nein", "und", "aber", "doch", "halt", "mal", "eh", "bon", "bah", "ben", "mais",
        "et", "donc", "alors", "bref", "ouais", "oui", "non",
    ];
    for j in (0..i).rev() {
        let t = &p[j];
        if t.is_gone() || t.kind == Kind::Space {
            continue;
        }
        match t.kind {
            Kind::Punct | Kind::Emoticon => return false,
            Kind::Word if NOT_SUBJECTS.contains(&t.text.to_lowercase().as_str()) => continue,
            _ => return true,
        }
    }
    false
}

fn words(p: &mut [Piece], lang: Lang) {
    let abbr = abbreviations(lang);
    // Shouting: most words in capitals. Then every all-caps word but known acronyms is lowered; otherwise only
    // long all-caps words are (short ones like "GBA" are usually acronyms).
    let (mut caps, mut total) = (0, 0);
    for t in p.iter().filter(|t| t.kind == Kind::Word) {
        if t.text.chars().filter(|c| c.is_alphabetic()).count() >= 2 {
            total += 1;
            caps += is_all_caps(&t.text) as usize;
        }
    }
    let shouting = caps >= 2 && caps * 10 >= total * 6;

    for i in 0..p.len() {
        if p[i].kind != Kind::Word {
            continue;
        }
        let original = p[i].text.clone();
        let mut w: Cow<str> = original.clone();
        // Laughter is judged before de-elongation: "kkkkkk" would otherwise become the letter "k".
        if lang != Lang::Ja && is_laughter(&lowercase(&original)) && (!is_title_case(&original) || starts_sentence(p, i)) {
            delete_with_space(p, i, EditKind::Interjection);
            continue;
        }
        if let Some(c) = collapse_runs(&w, lang) {
            p[i].set(c.clone(), EditKind::CharRepeat);
            w = Cow::Owned(c);
        }
        let lower = lowercase(&w).into_owned();
        let title = is_title_case(&w);
        let sentence_start = (title || is_all_caps(&w)) && starts_sentence(p, i);
        // A capitalised word mid-sentence is probably a name ("Ki", "Dat"): never expand it.
        let may_expand = !title || sentence_start;
        if lang != Lang::Ja && may_expand && is_laughter(&lower) {
            delete_with_space(p, i, EditKind::Interjection);
            continue;
        }
        // A negated auxiliary with no subject before it ("can't wait", "didn't know") or opening a question
        // ("isn't it"): expanding it would read formal but lack a subject or invert badly ("Is not it"); left.
        if may_expand && needs_subject(lang).get(lower.replace('’', "'").as_str()) == Some(&None) && !has_subject(p, i) {
            continue;
        }
        if lang == Lang::En && may_expand {
            if let Some(x) = en_contraction(p, i, &lower) {
                let x = if is_title_case(&w) || sentence_start && is_all_caps(&w) { capitalize_first(x) } else { x.to_string() };
                p[i].set(x, EditKind::Contraction);
                continue;
            }
        }
        if may_expand {
            if let Some(&x) = abbr.get(lower.as_str()) {
                // A verb with no subject before it ("gonna be late"): its subjectless form if the lexicon has one
                // ("dunno" → "I do not know"), otherwise left as written for the model to supply the subject.
                let x = match needs_subject(lang).get(lower.as_str()) {
                    Some(alone) if !has_subject(p, i) => match alone {
                        Some(alone) => *alone,
                        None => continue,
                    },
                    _ => x,
                };
                if x.is_empty() {
                    delete_with_space(p, i, EditKind::Interjection);
                } else {
                    let x = if is_title_case(&w) { capitalize_first(x) } else { x.to_string() };
                    p[i].set(x, EditKind::Abbreviation);
                }
                continue;
            }
        }
        if lang.has_case() && is_all_caps(&w) && !w.chars().any(|c| c.is_ascii_digit()) {
            let upper = w.to_uppercase();
            let letters = w.chars().filter(|c| c.is_alphabetic()).count();
            if !is_known_acronym(&upper) && (shouting || letters >= 4) {
                p[i].set(lower, EditKind::Casing);
            }
        }
    }
}

/// English contractions, both glued (`don't`) and as tokenised clitics (`do n't`, `I 'm`) as in PT16/GYAFC.
fn en_contraction<'a>(p: &mut [Piece<'a>], i: usize, lower: &str) -> Option<&'static str> {
    if let Some(&x) = en_contractions().get(lower.replace('’', "'").as_str()) {
        return Some(x);
    }
    let lower = lower.replace('’', "'");
    let is_clitic = lower == "n't" || lower.starts_with('\'');
    if !is_clitic {
        return None;
    }
    let prev = (0..i).rev().find(|&j| !p[j].is_gone() && p[j].kind != Kind::Space)?;
    if p[prev].kind != Kind::Word {
        return None;
    }
    let prev_lower = p[prev].text.to_lowercase();
    match lower.as_str() {
        "n't" => {
            // "ca n't" / "wo n't" / "sha n't": the stem changes too.
            let stem = match prev_lower.as_str() {
                "ca" => Some("can"),
                "wo" => Some("will"),
                "sha" => Some("shall"),
                _ => None,
            };
            if let Some(stem) = stem {
                let stem = if is_title_case(&p[prev].text) { capitalize_first(stem) } else { stem.to_string() };
                p[prev].set(stem, EditKind::Contraction);
            }
            Some("not")
        }
        "'m" => Some("am"),
        "'re" => Some("are"),
        "'ve" => Some("have"),
        "'ll" => Some("will"),
        "'d" => Some("would"),
        // Only after pronouns is 's "is"; elsewhere it is a possessive.
        "'s" if prev_lower == "let" => Some("us"),
        "'s" if matches!(prev_lower.as_str(), "it" | "that" | "what" | "there" | "here" | "he" | "she" | "who" | "where" | "how") => {
            Some("is")
        }
        _ => None,
    }
}

fn is_sentence_punct(s: &str) -> bool {
    matches!(s, "!" | "?" | "." | "," | ";" | ":" | "！" | "？" | "。" | "、" | "।")
}

fn punctuation(p: &mut [Piece], lang: Lang) {
    let mut i = 0;
    while i < p.len() {
        if p[i].kind != Kind::Punct || !is_sentence_punct(&p[i].text) {
            i += 1;
            continue;
        }
        // A run: punctuation marks, possibly separated by spaces (tokenised text writes "! !").
        let mut marks = vec![i];
        let mut j = i + 1;
        let mut k = i + 1;
        while k < p.len() {
            match p[k].kind {
                Kind::Space if !p[k].text.contains('\n') => k += 1,
                Kind::Punct if is_sentence_punct(&p[k].text) => {
                    marks.push(k);
                    k += 1;
                    j = k;
                }
                _ => break,
            }
        }
        if marks.len() >= 2 {
            let all: String = marks.iter().map(|&m| p[m].text.as_ref()).collect();
            let at_end = p[j..].iter().all(|t| t.kind == Kind::Space || t.is_gone());
            let dots_only = all.chars().all(|c| c == '.');
            // "..." written as such mid-sentence is an ellipsis, not an informality.
            let plain_ellipsis = dots_only && marks.len() == 3 && marks[2] == marks[0] + 2 && !at_end;
            if !plain_ellipsis {
                let repl = if all.contains(['?', '？']) {
                    if lang == Lang::Ja { "？" } else { "?" }
                } else if all.contains(['!', '！']) {
                    if lang == Lang::Ja { "！" } else { "!" }
                } else if dots_only {
                    if at_end || marks.len() == 2 { "." } else { "..." }
                } else {
                    // Mixed ",." etc.: keep the strongest boundary.
                    ["।", "。", ".", ";", ":", "、", ","].into_iter().find(|m| all.contains(m)).unwrap_or(".")
                };
                p[i].set(repl, EditKind::Punctuation);
                for t in &mut p[i + 1..j] {
                    t.set("", EditKind::Punctuation);
                }
            }
        }
        i = j.max(i + 1);
    }
}

fn spacing(p: &mut [Piece], lang: Lang) {
    for i in 0..p.len() {
        // Italian "po'di" → "po' di".
        if lang == Lang::It && p[i].kind == Kind::Word {
            let t = p[i].text.as_ref();
            if t.len() > 3 && (t.starts_with("po'") || t.starts_with("Po'")) {
                let s = format!("{} {}", &t[..3], &t[3..]);
                p[i].set(s, EditKind::Spacing);
            }
        }
    }
    if lang.keeps_punctuation_spacing() {
        return;
    }
    for i in 1..p.len() {
        if p[i].kind != Kind::Space || p[i].is_gone() || p[i].text.contains('\n') {
            continue;
        }
        let next = (i + 1..p.len()).find(|&j| !p[j].is_gone());
        let prev = (0..i).rev().find(|&j| !p[j].is_gone());
        let (Some(n), Some(b)) = (next, prev) else { continue };
        let closes = p[n].kind == Kind::Punct && matches!(p[n].text.as_ref(), "," | "." | "!" | "?" | ";" | ":" | ")" | "।");
        if closes && matches!(p[b].kind, Kind::Word | Kind::Number | Kind::Link | Kind::Punct) && p[b].text != "(" {
            // Keep ". . ." style separators between marks untouched unless the punctuation rule merged them.
            if p[b].kind == Kind::Punct && !matches!(p[b].text.as_ref(), ")" | "\"") {
                continue;
            }
            p[i].set("", EditKind::Spacing);
        }
    }
}

fn casing(p: &mut [Piece], lang: Lang) {
    for i in 0..p.len() {
        if p[i].kind != Kind::Word || p[i].is_gone() {
            continue;
        }
        let t = p[i].text.as_ref();
        if lang == Lang::En && t == "i" {
            p[i].set("I", EditKind::Casing);
            continue;
        }
        let first = t.chars().next().unwrap_or(' ');
        // Words with inner capitals ("iPhone", "eBay") are brand names: leave them.
        let camel = t.chars().skip(1).any(|c| c.is_uppercase());
        if first.is_lowercase() && !camel && starts_sentence(p, i) {
            let c = capitalize_first(&p[i].text);
            p[i].set(c, EditKind::Casing);
        }
    }
}

fn final_punctuation(p: &mut Vec<Piece>, line_len: usize, lang: Lang) {
    let Some(last) = (0..p.len()).rev().find(|&j| !p[j].is_gone() && p[j].kind != Kind::Space) else { return };
    let t = p[last].text.as_ref();
    if p[last].kind == Kind::Punct {
        if matches!(t, "." | "!" | "?" | "…" | "。" | "！" | "？" | "।") {
            return;
        }
        if matches!(t, "," | ";" | "、") {
            p[last].set(lang.full_stop(), EditKind::FinalPunctuation);
            return;
        }
        // A closing quote or bracket after a sentence end: `he said "yes."`.
        if matches!(t, "\"" | ")" | "”" | "»" | "'" | "」") {
            let before = (0..last).rev().find(|&j| !p[j].is_gone() && p[j].kind != Kind::Space);
            if before.is_some_and(|b| matches!(p[b].text.as_ref(), "." | "!" | "?" | "。")) {
                return;
            }
        }
        if matches!(t, ":" | "-") {
            return;
        }
    }
    // Inside a quotation or bracket that wraps the sentence, the stop goes before the closing mark.
    let first = (0..p.len()).find(|&j| !p[j].is_gone() && p[j].kind != Kind::Space);
    let wraps = |open: &str, close: &str| t == close && first.is_some_and(|f| f != last && p[f].text == open);
    let last = if wraps("\"", "\"") || wraps("“", "”") || wraps("«", "»") || wraps("(", ")") {
        match (0..last).rev().find(|&j| !p[j].is_gone() && p[j].kind != Kind::Space) {
            Some(b) if matches!(p[b].text.as_ref(), "." | "!" | "?" | "…") => return,
            Some(b) => b,
            None => return,
        }
    } else {
        last
    };
    let end = p[last].src.1;
    let _ = line_len;
    p.insert(last + 1, Piece { kind: Kind::Punct, src: (end, end), text: Cow::Borrowed(lang.full_stop()), edits: EditKind::FinalPunctuation.bit() });
}

/// Deletions can leave a line starting with a space or two spaces meeting; the emitted text must not.
fn tidy_spaces(p: &mut [Piece]) {
    let mut prev_space_or_start = true;
    for i in 0..p.len() {
        if p[i].is_gone() {
            continue;
        }
        if p[i].kind == Kind::Space {
            if prev_space_or_start && p[i].edits != 0 {
                p[i].text = Cow::Borrowed("");
            }
            prev_space_or_start = true;
        } else {
            prev_space_or_start = false;
        }
    }
}

fn emit(p: &[Piece], s: &str, offset: usize, out: &mut String, edits: &mut Vec<Edit>) {
    let mut i = 0;
    while i < p.len() {
        if p[i].edits == 0 {
            out.push_str(&p[i].text);
            i += 1;
            continue;
        }
        // Neighbouring changed pieces form one edit (e.g. " ! !" → "!").
        let mut j = i;
        let mut kinds = 0u16;
        let dst0 = out.len();
        while j < p.len() && p[j].edits != 0 {
            kinds |= p[j].edits;
            out.push_str(&p[j].text);
            j += 1;
        }
        let src = (p[i].src.0, p[j - 1].src.1);
        edits.push(Edit {
            kinds: EditKind::ALL.into_iter().filter(|k| kinds & k.bit() != 0).collect(),
            src: (src.0 + offset, src.1 + offset),
            dst: (dst0, out.len()),
            before: s[src.0..src.1].to_string(),
            after: out[dst0..].to_string(),
        });
        i = j;
    }
}
