//! Features for the formality scorer. Surface features are language-independent in form (casing, punctuation,
//! repetition, length, emoticons) and use the per-language lexicons for slang, contractions and pronouns, so a
//! model trained on English PT16 applies zero-shot to the other languages. Lexical features (hashed word uni- and
//! bigrams) are language-specific and only used by the English lexical variant.

use crate::lexicon::{abbreviations, en_contractions, is_laughter};
use crate::rules::{EditKind, Formalizer};
use crate::tokens::{tokenize, Kind, Tok};
use crate::Lang;

/// Names of the surface features, in vector order (stored in the weights file so a stale file is detected).
pub const SURFACE: &[&str] = &[
    "log_tokens",
    "mean_word_len",
    "upper_char_ratio",
    "allcaps_word_ratio",
    "first_lower",
    "lower_i",
    "no_final_punct",
    "exclamations",
    "questions",
    "repeated_punct",
    "ellipses",
    "char_runs",
    "contractions",
    "slang_hits",
    "laughter",
    "emoticons",
    "first_person",
    "second_person",
    "digit_ratio",
    "links",
    "short_words_ratio",
    "long_words_ratio",
    "punct_ratio",
    "edits_per_token",
    "edit_abbreviation",
    "edit_casing",
    "edit_punctuation",
    "edit_final",
    "quote_or_paren",
    "commas",
    "type_token_ratio",
    "title_word_ratio",
];

fn first_person(lang: Lang, w: &str) -> bool {
    match lang {
        Lang::En => matches!(w, "i" | "me" | "my" | "mine" | "myself" | "i'm" | "im"),
        Lang::Pt => matches!(w, "eu" | "me" | "meu" | "minha" | "mim" | "comigo"),
        Lang::Fr => matches!(w, "je" | "j'" | "moi" | "me" | "mon" | "ma" | "mes" | "chui" | "jsuis"),
        Lang::It => matches!(w, "io" | "me" | "mi" | "mio" | "mia" | "miei"),
        Lang::De => matches!(w, "ich" | "mich" | "mir" | "mein" | "meine"),
        Lang::Es => matches!(w, "yo" | "me" | "mi" | "mis" | "conmigo"),
        Lang::Hi => matches!(w, "मैं" | "मुझे" | "मेरा" | "मेरी"),
        Lang::Ja => matches!(w, "俺" | "僕" | "あたし"),
    }
}

/// Informal second person (T forms) and English "you": direct address is a strong informality cue in PT16.
fn second_person(lang: Lang, w: &str) -> bool {
    match lang {
        Lang::En => matches!(w, "you" | "your" | "u" | "ur" | "ya" | "yourself" | "you're"),
        Lang::Pt => matches!(w, "você" | "vc" | "tu" | "te" | "teu" | "tua" | "contigo" | "vcs" | "cê"),
        Lang::Fr => matches!(w, "tu" | "toi" | "te" | "ton" | "ta" | "tes" | "t'"),
        Lang::It => matches!(w, "tu" | "ti" | "te" | "tuo" | "tua" | "tuoi"),
        Lang::De => matches!(w, "du" | "dich" | "dir" | "dein" | "deine" | "euch"),
        Lang::Es => matches!(w, "tú" | "tu" | "te" | "ti" | "contigo" | "vos"),
        Lang::Hi => matches!(w, "तू" | "तुम" | "तेरा" | "तुम्हारा"),
        Lang::Ja => matches!(w, "お前" | "君" | "あんた"),
    }
}

/// Scratch buffers reused across sentences.
#[derive(Default)]
pub struct Extractor {
    toks: Vec<Tok>,
    formalizer: Formalizer,
    lower: Vec<String>,
}

impl Extractor {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn surface(&mut self, s: &str, lang: Lang) -> Vec<f32> {
        let mut f = vec![0f32; SURFACE.len()];
        tokenize(s, &mut self.toks);
        let abbr = abbreviations(lang);
        let (mut words, mut word_chars, mut upper, mut letters, mut allcaps, mut titles) = (0usize, 0usize, 0, 0, 0, 0);
        let (mut short, mut long, mut punct, mut digits, mut chars) = (0, 0, 0, 0, 0);
        let (mut contractions, mut slang, mut laughs, mut emos, mut p1, mut p2, mut lower_i, mut links) = (0, 0, 0, 0, 0, 0, 0, 0);
        let (mut excl, mut quest, mut ell, mut runs, mut quotes, mut commas) = (0, 0, 0, 0, 0, 0);
        self.lower.clear();
        let mut prev_punct: Option<char> = None;
        for t in &self.toks {
            let w = &s[t.start..t.end];
            if t.kind != Kind::Space {
                chars += w.chars().count();
            }
            match t.kind {
                Kind::Word | Kind::Number => {
                    prev_punct = None;
                    words += 1;
                    let n = w.chars().count();
                    word_chars += n;
                    short += (n <= 2) as usize;
                    long += (n >= 8) as usize;
                    let mut caps_here = 0;
                    let mut letters_here = 0;
                    let mut last = ' ';
                    let mut run = 1;
                    let mut has_run = false;
                    for c in w.chars() {
                        if c.is_alphabetic() {
                            letters_here += 1;
                            caps_here += c.is_uppercase() as usize;
                        }
                        digits += c.is_ascii_digit() as usize;
                        run = if c == last { run + 1 } else { 1 };
                        has_run |= run >= 3 && c.is_alphabetic();
                        last = c;
                    }
                    runs += has_run as usize;
                    letters += letters_here;
                    upper += caps_here;
                    if letters_here >= 2 && caps_here == letters_here {
                        allcaps += 1;
                    } else if caps_here >= 1 && w.chars().next().is_some_and(|c| c.is_uppercase()) {
                        titles += 1;
                    }
                    if w == "i" {
                        lower_i += 1;
                    }
                    let lw = w.to_lowercase().replace('’', "'");
                    if lang == Lang::En && (lw.contains('\'') && (en_contractions().contains_key(lw.as_str()) || lw.starts_with('\'') || lw == "n't")) {
                        contractions += 1;
                    }
                    if abbr.contains_key(lw.as_str()) {
                        slang += 1;
                    }
                    if is_laughter(&lw) {
                        laughs += 1;
                    }
                    p1 += first_person(lang, &lw) as usize;
                    p2 += second_person(lang, &lw) as usize;
                    self.lower.push(lw);
                }
                Kind::Emoticon => emos += 1,
                Kind::Link => links += 1,
                Kind::Punct => {
                    punct += 1;
                    let c = w.chars().next().unwrap_or(' ');
                    match c {
                        '!' | '！' => excl += 1,
                        '?' | '？' => quest += 1,
                        '…' => ell += 1,
                        '"' | '(' | ')' | '“' | '”' | '«' | '»' => quotes += 1,
                        ',' | '、' => commas += 1,
                        _ => {}
                    }
                    if prev_punct == Some(c) && c == '.' {
                        ell += 1;
                    }
                    prev_punct = Some(c);
                }
                Kind::Space => {}
            }
        }
        let r = self.formalizer.formalize(s, lang);
        let mut by_kind = [0f32; 9];
        for e in &r.edits {
            for k in &e.kinds {
                by_kind[*k as usize] += 1.0;
            }
        }
        let wn = words.max(1) as f32;
        let first_word = self.toks.iter().find(|t| t.kind == Kind::Word).map(|t| &s[t.start..t.end]);
        let types: std::collections::HashSet<&str> = self.lower.iter().map(String::as_str).collect();
        f[0] = (1.0 + words as f32).ln();
        f[1] = word_chars as f32 / wn;
        f[2] = upper as f32 / letters.max(1) as f32;
        f[3] = allcaps as f32 / wn;
        f[4] = first_word.is_some_and(|w| w.chars().next().is_some_and(|c| c.is_lowercase())) as u8 as f32;
        f[5] = (lower_i as f32).min(3.0);
        f[6] = (by_kind[EditKind::FinalPunctuation as usize] > 0.0) as u8 as f32;
        f[7] = (excl as f32).min(5.0);
        f[8] = (quest as f32).min(5.0);
        f[9] = (by_kind[EditKind::Punctuation as usize]).min(5.0);
        f[10] = (ell as f32).min(5.0);
        f[11] = (runs as f32).min(3.0);
        f[12] = (contractions as f32).min(5.0);
        f[13] = (slang as f32).min(5.0);
        f[14] = (laughs as f32).min(3.0);
        f[15] = (emos as f32).min(3.0);
        f[16] = p1 as f32 / wn;
        f[17] = p2 as f32 / wn;
        f[18] = digits as f32 / chars.max(1) as f32;
        f[19] = (links as f32).min(2.0);
        f[20] = short as f32 / wn;
        f[21] = long as f32 / wn;
        f[22] = punct as f32 / (punct + words).max(1) as f32;
        f[23] = r.edits.len() as f32 / wn;
        f[24] = (by_kind[EditKind::Abbreviation as usize] + by_kind[EditKind::Contraction as usize]).min(5.0);
        f[25] = (by_kind[EditKind::Casing as usize]).min(5.0);
        f[26] = (by_kind[EditKind::Punctuation as usize] + by_kind[EditKind::CharRepeat as usize]).min(5.0);
        f[27] = (by_kind[EditKind::FinalPunctuation as usize]).min(1.0);
        f[28] = (quotes as f32).min(4.0);
        f[29] = commas as f32 / wn;
        f[30] = types.len() as f32 / wn;
        f[31] = titles as f32 / wn;
        f
    }

    /// Hashed lowercase word uni- and bigrams as (bucket, value) pairs, L2-normalised. Uses the words of the last
    /// [`Extractor::surface`] call, so call that first.
    pub fn lexical(&self, buckets: u32) -> Vec<(u32, f32)> {
        let mut v: Vec<(u32, f32)> = Vec::with_capacity(self.lower.len() * 2);
        let mut prev = "<s>";
        for w in &self.lower {
            v.push((hash(w.as_bytes(), 0) % buckets, 1.0));
            v.push((hash(w.as_bytes(), hash(prev.as_bytes(), 7)) % buckets, 1.0));
            prev = w;
        }
        v.sort_unstable_by_key(|x| x.0);
        v.dedup_by(|a, b| {
            if a.0 == b.0 {
                b.1 += a.1;
                true
            } else {
                false
            }
        });
        let norm = v.iter().map(|x| x.1 * x.1).sum::<f32>().sqrt().max(1.0);
        for x in &mut v {
            x.1 /= norm;
        }
        v
    }
}

/// FNV-1a, stable across platforms and Rust versions (the weights file depends on it).
fn hash(b: &[u8], seed: u32) -> u32 {
    let mut h: u32 = 0x811c9dc5 ^ seed.wrapping_mul(0x9e3779b9);
    for &x in b {
        h ^= x as u32;
        h = h.wrapping_mul(0x01000193);
    }
    h
}
