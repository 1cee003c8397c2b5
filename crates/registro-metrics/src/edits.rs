//! Word-level diff with XFORMAL edit types (Briakou et al. 2021, after Rao & Tetreault 2018): capitalisation,
//! lowercase, punctuation, spelling (small character edit distance), normalisation (per-language abbreviation and
//! slang lists), repetition, split sentences, and paraphrase (everything else; at sentence level, a token edit
//! distance above 3). The UI shows [`diff`] side by side; [`edit_types`] gives the sentence-level categories that
//! the XFORMAL statistics count.

use std::collections::BTreeSet;
use std::ops::Range;

use serde::Serialize;

use std::borrow::Cow;

use crate::distance::{levenshtein_exceeds, token_levenshtein_exceeds};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EditType {
    Capitalization,
    Lowercase,
    Punctuation,
    Spelling,
    Normalization,
    Repetition,
    SplitSentences,
    Paraphrase,
}

impl EditType {
    pub const ALL: [EditType; 8] = [
        Self::Capitalization,
        Self::Lowercase,
        Self::Punctuation,
        Self::Spelling,
        Self::Normalization,
        Self::Repetition,
        Self::SplitSentences,
        Self::Paraphrase,
    ];
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Capitalization => "capitalization",
            Self::Lowercase => "lowercase",
            Self::Punctuation => "punctuation",
            Self::Spelling => "spelling",
            Self::Normalization => "normalization",
            Self::Repetition => "repetition",
            Self::SplitSentences => "split_sentences",
            Self::Paraphrase => "paraphrase",
        }
    }
}

/// One piece of the side-by-side view: unchanged text (`kind == None`) or a labelled edit. Ranges are byte
/// offsets into the old and new strings; text between tokens (spaces) belongs to the surrounding pieces only when
/// it lies inside the span.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DiffOp {
    pub kind: Option<EditType>,
    pub old: String,
    pub new: String,
    pub old_range: Range<usize>,
    pub new_range: Range<usize>,
}

impl DiffOp {
    pub fn is_equal(&self) -> bool {
        self.kind.is_none()
    }
}

/// A token and its byte span in the text.
#[derive(Clone, Debug)]
struct Tok<'a> {
    text: &'a str,
    span: Range<usize>,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '\'' || c == '’' || c == '-' || c == '_' || is_mark(c)
}

fn is_mark(c: char) -> bool {
    // Combining marks (Devanagari vowel signs, accents in NFD text) stay inside their word.
    matches!(c as u32, 0x0300..=0x036F | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963)
}

/// Words (letters, digits, inner apostrophes and hyphens) and punctuation runs of one repeated character.
fn tokens(s: &str) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c.is_whitespace() {
            continue;
        }
        let mut end = i + c.len_utf8();
        if is_word_char(c) {
            while let Some(&(j, d)) = it.peek() {
                if is_word_char(d) {
                    end = j + d.len_utf8();
                    it.next();
                } else {
                    break;
                }
            }
        } else {
            while let Some(&(j, d)) = it.peek() {
                if d == c {
                    end = j + d.len_utf8();
                    it.next();
                } else {
                    break;
                }
            }
        }
        out.push(Tok {
            text: &s[i..end],
            span: i..end,
        });
    }
    out
}

fn is_punct_token(t: &str) -> bool {
    !t.is_empty()
        && t.chars()
            .all(|c| !c.is_alphanumeric() && !c.is_whitespace())
}

fn is_sentence_end(t: &str) -> bool {
    is_punct_token(t)
        && t.chars()
            .any(|c| matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '।'))
}

fn starts_upper(t: &str) -> bool {
    t.chars().next().is_some_and(|c| c.is_uppercase())
}

/// Collapses runs of 3+ identical characters to one ("sooo" → "so", "!!!" → "!").
fn collapse_runs(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let mut j = i;
        while j < chars.len() && chars[j] == chars[i] {
            j += 1;
        }
        let run = j - i;
        let keep = if run >= 3 { 1 } else { run };
        out.extend(std::iter::repeat_n(chars[i], keep));
        i = j;
    }
    out
}

/// `collapse_runs(s) == t` over character streams, without building the collapsed string.
fn collapses_to(s: impl Iterator<Item = char>, t: impl Iterator<Item = char>) -> bool {
    let mut s = s.peekable();
    let mut t = t.peekable();
    while let Some(c) = s.next() {
        let mut run = 1;
        while s.next_if_eq(&c).is_some() {
            run += 1;
        }
        let keep = if run >= 3 { 1 } else { run };
        for _ in 0..keep {
            if t.next() != Some(c) {
                return false;
            }
        }
    }
    t.peek().is_none()
}

/// `str::to_lowercase` maps each character on its own except final-sigma handling of 'Σ'; without it, the
/// lower-cased text is this stream and comparisons need not allocate.
fn lower_stream(s: &str) -> Option<impl Iterator<Item = char> + '_> {
    (!s.contains('Σ')).then(|| s.chars().flat_map(char::to_lowercase))
}

/// `a.to_lowercase() == b.to_lowercase()`.
fn lower_eq(a: &str, b: &str) -> bool {
    match (lower_stream(a), lower_stream(b)) {
        (Some(x), Some(y)) => x.eq(y),
        _ => a.to_lowercase() == b.to_lowercase(),
    }
}

/// `collapse_runs(&a.to_lowercase()) == b.to_lowercase()`.
fn lower_collapses_to(a: &str, b: &str) -> bool {
    match (lower_stream(a), lower_stream(b)) {
        (Some(x), Some(y)) => collapses_to(x, y),
        _ => collapse_runs(&a.to_lowercase()) == b.to_lowercase(),
    }
}

/// Informal abbreviations and their formal expansions, per language (lower case). Used for the normalisation
/// type: the old span holds an entry and the new span its expansion.
pub fn abbreviations(lang: &str) -> &'static [(&'static str, &'static str)] {
    match lang {
        "en" => &[
            ("u", "you"),
            ("ur", "your"),
            ("ur", "you are"),
            ("r", "are"),
            ("y", "why"),
            ("b4", "before"),
            ("pls", "please"),
            ("plz", "please"),
            ("thx", "thanks"),
            ("thx", "thank you"),
            ("ty", "thank you"),
            ("cuz", "because"),
            ("coz", "because"),
            ("bc", "because"),
            ("idk", "i do not know"),
            ("idk", "i don't know"),
            ("btw", "by the way"),
            ("imo", "in my opinion"),
            ("imho", "in my humble opinion"),
            ("tbh", "to be honest"),
            ("gonna", "going to"),
            ("wanna", "want to"),
            ("gotta", "have to"),
            ("gotta", "got to"),
            ("kinda", "kind of"),
            ("sorta", "sort of"),
            ("dunno", "do not know"),
            ("dunno", "don't know"),
            ("lemme", "let me"),
            ("gimme", "give me"),
            ("ya", "you"),
            ("yeah", "yes"),
            ("yep", "yes"),
            ("nope", "no"),
            ("ok", "okay"),
            ("k", "okay"),
            ("tho", "though"),
            ("thru", "through"),
            ("prob", "probably"),
            ("probs", "probably"),
            ("def", "definitely"),
            ("msg", "message"),
            ("pic", "picture"),
            ("pics", "pictures"),
            ("info", "information"),
            ("2", "to"),
            ("4", "for"),
            ("n", "and"),
            ("w/", "with"),
            ("w/o", "without"),
            ("asap", "as soon as possible"),
            ("omg", "oh my god"),
            ("jk", "just kidding"),
            ("bf", "boyfriend"),
            ("gf", "girlfriend"),
            ("im", "i am"),
            ("im", "i'm"),
            ("dont", "do not"),
            ("dont", "don't"),
            ("cant", "cannot"),
            ("cant", "can't"),
            ("wont", "will not"),
            ("didnt", "did not"),
            ("doesnt", "does not"),
            ("isnt", "is not"),
            ("thats", "that is"),
            ("whats", "what is"),
            ("ppl", "people"),
            ("b/c", "because"),
        ],
        "de" => &[
            ("hab", "habe"),
            ("nen", "einen"),
            ("ne", "eine"),
            ("n", "ein"),
            ("gibts", "gibt es"),
            ("nix", "nichts"),
            ("nich", "nicht"),
            ("net", "nicht"),
            ("is", "ist"),
            ("isses", "ist es"),
            ("hast'e", "hast du"),
            ("haste", "hast du"),
            ("kannste", "kannst du"),
            ("willste", "willst du"),
            ("biste", "bist du"),
            ("mal", "einmal"),
            ("grad", "gerade"),
            ("lg", "liebe grüße"),
            ("mfg", "mit freundlichen grüßen"),
            ("vllt", "vielleicht"),
            ("vlt", "vielleicht"),
            ("evtl", "eventuell"),
            ("bzw", "beziehungsweise"),
            ("usw", "und so weiter"),
            ("z.b", "zum beispiel"),
            ("zb", "zum beispiel"),
            ("ok", "okay"),
            ("jo", "ja"),
            ("jup", "ja"),
            ("nö", "nein"),
            ("ne", "nein"),
            ("wg", "wegen"),
            ("gern", "gerne"),
            ("heut", "heute"),
            ("würd", "würde"),
            ("geht's", "geht es"),
            ("gehts", "geht es"),
        ],
        "es" => &[
            ("q", "que"),
            ("k", "que"),
            ("xq", "porque"),
            ("pq", "porque"),
            ("porq", "porque"),
            ("tb", "también"),
            ("tmb", "también"),
            ("d", "de"),
            ("x", "por"),
            ("pa", "para"),
            ("pa'", "para"),
            ("toy", "estoy"),
            ("ta", "está"),
            ("tas", "estás"),
            ("bn", "bien"),
            ("msj", "mensaje"),
            ("xfa", "por favor"),
            ("porfa", "por favor"),
            ("salu2", "saludos"),
            ("ntp", "no te preocupes"),
            ("tqm", "te quiero mucho"),
            ("ok", "vale"),
            ("vdd", "verdad"),
            ("nd", "nada"),
            ("dnd", "donde"),
            ("xa", "para"),
            ("cmo", "como"),
            ("sq", "es que"),
        ],
        "fr" => &[
            ("slt", "salut"),
            ("stp", "s'il te plaît"),
            ("svp", "s'il vous plaît"),
            ("pk", "pourquoi"),
            ("pq", "pourquoi"),
            ("bcp", "beaucoup"),
            ("tkt", "ne t'inquiète pas"),
            ("jsp", "je ne sais pas"),
            ("chai pas", "je ne sais pas"),
            ("c", "c'est"),
            ("g", "j'ai"),
            ("jsuis", "je suis"),
            ("chuis", "je suis"),
            ("ya", "il y a"),
            ("y'a", "il y a"),
            ("t", "tu es"),
            ("t'es", "tu es"),
            ("mdr", "mort de rire"),
            ("dsl", "désolé"),
            ("dac", "d'accord"),
            ("ok", "d'accord"),
            ("qd", "quand"),
            ("tjr", "toujours"),
            ("tjrs", "toujours"),
            ("pr", "pour"),
            ("ds", "dans"),
            ("koi", "quoi"),
            ("ke", "que"),
            ("kan", "quand"),
            ("keske", "qu'est-ce que"),
            ("mm", "même"),
            ("rdv", "rendez-vous"),
        ],
        "it" => &[
            ("cmq", "comunque"),
            ("nn", "non"),
            ("xké", "perché"),
            ("xche", "perché"),
            ("perche", "perché"),
            ("ke", "che"),
            ("k", "che"),
            ("x", "per"),
            ("tvb", "ti voglio bene"),
            ("qlc", "qualche"),
            ("qlcs", "qualcosa"),
            ("qls", "qualcosa"),
            ("sn", "sono"),
            ("dv", "dove"),
            ("grz", "grazie"),
            ("cm", "come"),
            ("tt", "tutto"),
            ("msg", "messaggio"),
            ("nessun", "nessuno"),
            ("ok", "va bene"),
            ("cioe", "cioè"),
            ("xo", "però"),
            ("pero", "però"),
        ],
        "pt" => &[
            ("vc", "você"),
            ("vcs", "vocês"),
            ("tb", "também"),
            ("tbm", "também"),
            ("q", "que"),
            ("pq", "porque"),
            ("n", "não"),
            ("nao", "não"),
            ("td", "tudo"),
            ("blz", "beleza"),
            ("msm", "mesmo"),
            ("cmg", "comigo"),
            ("ctg", "contigo"),
            ("pra", "para"),
            ("pro", "para o"),
            ("ta", "está"),
            ("tá", "está"),
            ("to", "estou"),
            ("tô", "estou"),
            ("obg", "obrigado"),
            ("vlw", "valeu"),
            ("hj", "hoje"),
            ("kd", "cadê"),
            ("mto", "muito"),
        ],
        "hi" => &[
            ("h", "है"),
            ("hai", "है"),
            ("nhi", "नहीं"),
            ("plz", "कृपया"),
            ("thx", "धन्यवाद"),
        ],
        _ => &[],
    }
}

/// Whether `old` lower-cased is the informal side of some entry [`is_normalization`] consults.
fn is_abbreviation(old: &str, lang: &str) -> bool {
    // ASCII text lower-cases byte by byte: compare without building the lower-cased copy.
    let o = if old.is_ascii() { Cow::Borrowed(old) } else { Cow::Owned(old.to_lowercase()) };
    let ascii = old.is_ascii();
    let hit = |l: &[(&str, &str)]| {
        l.iter().any(|(a, _)| {
            if ascii {
                a.len() == o.len() && a.bytes().eq(o.bytes().map(|c| c.to_ascii_lowercase()))
            } else {
                *a == o
            }
        })
    };
    if lang.is_empty() {
        hit(abbreviations("en"))
    } else {
        hit(abbreviations(lang)) || hit(abbreviations("en"))
    }
}

fn is_normalization(old: &str, new: &str, lang: &str) -> bool {
    let in_list = |l: &[(&str, &str)]| {
        // Most spans are no abbreviation at all: look the old side up before lower-casing the new one.
        let o = old.to_lowercase();
        if !l.iter().any(|(a, _)| *a == o) {
            return false;
        }
        let n = new.to_lowercase();
        l.iter().any(|(a, e)| *a == o && *e == n)
    };
    if lang.is_empty() {
        in_list(abbreviations("en"))
    } else {
        in_list(abbreviations(lang)) || in_list(abbreviations("en"))
    }
}

/// `v.join(" ")`, borrowed for a single token.
fn joined<'a>(v: &[&'a str]) -> Cow<'a, str> {
    match v {
        [one] => Cow::Borrowed(one),
        _ => Cow::Owned(v.join(" ")),
    }
}

/// Type of one changed hunk (tokens `a` replaced by `b`); `next_new` is the token after the hunk in the new text.
fn classify_hunk(a: &[&str], b: &[&str], next_new: Option<&str>, lang: &str) -> EditType {
    let (old, new) = (joined(a), joined(b));
    let (old, new) = (old.as_ref(), new.as_ref());
    if !a.is_empty() && !b.is_empty() && old != new && lower_eq(old, new) {
        return if new == old.to_lowercase() {
            EditType::Lowercase
        } else {
            EditType::Capitalization
        };
    }
    let all_punct = |v: &[&str]| v.iter().all(|t| is_punct_token(t));
    if all_punct(a) && all_punct(b) {
        // "," → "." followed by a capitalised word, or a full stop inserted before one: the sentence was split.
        let ends = b.iter().any(|t| is_sentence_end(t)) && !a.iter().any(|t| is_sentence_end(t));
        if ends && next_new.is_some_and(starts_upper) {
            return EditType::SplitSentences;
        }
        if !a.is_empty() && !b.is_empty() && collapses_to(old.chars(), new.chars()) {
            return EditType::Repetition;
        }
        return EditType::Punctuation;
    }
    if !a.is_empty() && !b.is_empty() {
        if collapses_to(old.chars(), new.chars()) || lower_collapses_to(old, new) {
            return EditType::Repetition;
        }
        if is_normalization(old, new, lang) {
            return EditType::Normalization;
        }
    }
    // A duplicated word removed ("very very" → "very").
    if b.is_empty() && a.len() == 1 {
        return EditType::Paraphrase;
    }
    if a.len() == 1 && b.len() == 1 {
        let lower_chars = |t: &str| -> Vec<char> {
            match lower_stream(t) {
                Some(l) => l.collect(),
                None => t.to_lowercase().chars().collect(),
            }
        };
        if spelling(&lower_chars(a[0]), &lower_chars(b[0])) {
            return EditType::Spelling;
        }
    }
    EditType::Paraphrase
}

/// A hunk token with what [`related`] asks of it, computed once per token instead of once per pair.
struct Word<'a> {
    text: &'a str,
    punct: bool,
    /// Lower-cased `text` is the informal side of an abbreviation entry ([`is_abbreviation`]).
    abbrev: bool,
    /// `text.to_lowercase()` as characters (the spelling distance's input).
    lower: Vec<char>,
}

impl<'a> Word<'a> {
    fn new(text: &'a str, lang: &str) -> Self {
        let lower = match lower_stream(text) {
            Some(l) => l.collect(),
            None => text.to_lowercase().chars().collect(),
        };
        Word { text, punct: is_punct_token(text), abbrev: is_abbreviation(text, lang), lower }
    }
}

/// Whether one old token and a short new span form a self-contained edit of a known kind (case, normalisation,
/// repetition, spelling, or punctuation replaced by punctuation): `classify_hunk(&[a], b, …)` answering one of
/// those, decided without its allocations.
fn related(a: &Word, b: &[Word], lang: &str) -> bool {
    if a.punct || b.iter().any(|t| t.punct) {
        return b.len() == 1 && a.punct && b[0].punct;
    }
    if b.len() > 1 {
        // One word against several: the joined new side holds a space that neither a case change nor a collapsed
        // repetition of one token can produce, and spelling needs one token on each side, so only a
        // normalisation is possible.
        let joined: Vec<&str> = b.iter().map(|w| w.text).collect();
        return a.abbrev && is_normalization(a.text, &joined.join(" "), lang);
    }
    // One word each, neither punctuation: `classify_hunk`'s checks in its order.
    let (x, y) = (a.text, b[0].text);
    if x != y && lower_eq(x, y) {
        return true; // capitalisation or lowercase
    }
    if collapses_to(x.chars(), y.chars()) || lower_collapses_to(x, y) {
        return true; // repetition
    }
    if a.abbrev && is_normalization(x, y, lang) {
        return true;
    }
    spelling(&a.lower, &b[0].lower)
}

/// `classify_hunk`'s spelling rule on lower-cased characters: 0 < d ≤ 2 and d ≤ longest / 3, with a distance
/// that stops as soon as it is over the bound.
fn spelling(x: &[char], y: &[char]) -> bool {
    let longest = x.len().max(y.len());
    longest >= 3 && x != y && !levenshtein_exceeds(x, y, 2.min(longest / 3))
}

/// Splits a changed hunk into smaller edits: an alignment where each old token either maps to a related new span
/// of up to 4 tokens ("dont" → "do not", "omg" → "Oh my god") at no cost, or is substituted, deleted or
/// inserted at cost 1; unrelated neighbours stay together as one piece. Ranges are relative to the hunk.
fn split_hunk(a: &[&str], b: &[&str], lang: &str) -> Vec<(Range<usize>, Range<usize>)> {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 || n * m > 400 {
        return vec![(0..n, 0..m)];
    }
    const INF: u32 = u32::MAX / 2;
    let wa: Vec<Word> = a.iter().map(|t| Word::new(t, lang)).collect();
    let wb: Vec<Word> = b.iter().map(|t| Word::new(t, lang)).collect();
    // choice: 0 = delete, 1 = insert, 2 = substitute, 3 + L = related pair with a new span of L tokens
    let mut cost = vec![vec![INF; m + 1]; n + 1];
    let mut choice = vec![vec![0u8; m + 1]; n + 1];
    cost[n][m] = 0;
    for i in (0..=n).rev() {
        for j in (0..=m).rev() {
            if i == n && j == m {
                continue;
            }
            let mut best = (INF, 0u8);
            if i < n && j < m {
                for l in 1..=4.min(m - j) {
                    if cost[i + 1][j + l] < best.0 && related(&wa[i], &wb[j..j + l], lang) {
                        best = (cost[i + 1][j + l], 3 + l as u8);
                    }
                }
                if 1 + cost[i + 1][j + 1] < best.0 {
                    best = (1 + cost[i + 1][j + 1], 2);
                }
            }
            if i < n && 1 + cost[i + 1][j] < best.0 {
                best = (1 + cost[i + 1][j], 0);
            }
            if j < m && 1 + cost[i][j + 1] < best.0 {
                best = (1 + cost[i][j + 1], 1);
            }
            cost[i][j] = best.0;
            choice[i][j] = best.1;
        }
    }
    let mut out: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let mut plain: Option<(Range<usize>, Range<usize>)> = None;
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        let c = choice[i][j];
        let (di, dj) = match c {
            0 => (1, 0),
            1 => (0, 1),
            2 => (1, 1),
            l => (1, (l - 3) as usize),
        };
        if c >= 3 {
            if let Some(p) = plain.take() {
                out.push(p);
            }
            out.push((i..i + 1, j..j + dj));
        } else {
            let p = plain.get_or_insert((i..i, j..j));
            p.0.end = i + di;
            p.1.end = j + dj;
        }
        i += di;
        j += dj;
    }
    if let Some(p) = plain {
        out.push(p);
    }
    out
}

/// Longest-common-subsequence alignment of token texts: pairs of equal token indices, in order.
fn lcs_pairs<T: PartialEq>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    // Strip the common prefix and suffix first: sentences under rewriting mostly share them.
    let mut pre = 0;
    while pre < n && pre < m && a[pre] == b[pre] {
        pre += 1;
    }
    let mut suf = 0;
    while suf < n - pre && suf < m - pre && a[n - 1 - suf] == b[m - 1 - suf] {
        suf += 1;
    }
    let (ai, bi) = (&a[pre..n - suf], &b[pre..m - suf]);
    let (p, q) = (ai.len(), bi.len());
    let mut pairs: Vec<(usize, usize)> = (0..pre).map(|i| (i, i)).collect();
    if p > 0 && q > 0 && p.saturating_mul(q) <= 25_000_000 {
        let mut t = vec![0u32; (p + 1) * (q + 1)];
        let w = q + 1;
        for i in (0..p).rev() {
            for j in (0..q).rev() {
                t[i * w + j] = if ai[i] == bi[j] {
                    t[(i + 1) * w + j + 1] + 1
                } else {
                    t[(i + 1) * w + j].max(t[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < p && j < q {
            if ai[i] == bi[j] {
                pairs.push((pre + i, pre + j));
                i += 1;
                j += 1;
            } else if t[(i + 1) * w + j] >= t[i * w + j + 1] {
                i += 1;
            } else {
                j += 1;
            }
        }
    }
    pairs.extend((0..suf).map(|k| (n - suf + k, m - suf + k)));
    pairs
}

/// Word-level diff of `old` → `new` with every changed span labelled. Equal-length replacements are split into
/// per-token edits so that, e.g., "u r" → "you are" shows two normalisations.
pub fn diff(old: &str, new: &str, lang: &str) -> Vec<DiffOp> {
    let mut ops: Vec<DiffOp> = Vec::new();
    diff_spans(old, new, lang, |kind, sa, sb| {
        ops.push(DiffOp {
            kind,
            old: old[sa.clone()].into(),
            new: new[sb.clone()].into(),
            old_range: sa,
            new_range: sb,
        })
    });
    ops
}

/// [`diff`]'s pieces as (kind, old byte range, new byte range), in order, without copying their text.
fn diff_spans(
    old: &str,
    new: &str,
    lang: &str,
    mut emit: impl FnMut(Option<EditType>, Range<usize>, Range<usize>),
) {
    let ta = tokens(old);
    let tb = tokens(new);
    let a: Vec<&str> = ta.iter().map(|t| t.text).collect();
    let b: Vec<&str> = tb.iter().map(|t| t.text).collect();
    // Token ids: the alignment then compares integers, not strings.
    let mut vocab: crate::fxhash::FxMap<&str, u32> = crate::fxhash::map_with_capacity(a.len() + b.len());
    let (mut ia, mut ib) = (Vec::with_capacity(a.len()), Vec::with_capacity(b.len()));
    for (toks, out) in [(&a, &mut ia), (&b, &mut ib)] {
        for &t in toks.iter() {
            let next = vocab.len() as u32;
            out.push(*vocab.entry(t).or_insert(next));
        }
    }
    let pairs = lcs_pairs(&ia, &ib);
    let span = |toks: &[Tok], r: Range<usize>, text_len: usize| -> Range<usize> {
        if r.is_empty() {
            // Insertion point: before the token at `r.start` (or the end of the text).
            let p = toks.get(r.start).map_or(text_len, |t| t.span.start);
            p..p
        } else {
            toks[r.start].span.start..toks[r.end - 1].span.end
        }
    };
    let push_edit = |emit: &mut dyn FnMut(Option<EditType>, Range<usize>, Range<usize>),
                     ra: Range<usize>,
                     rb: Range<usize>| {
        let pieces: Vec<(Range<usize>, Range<usize>)> =
            split_hunk(&a[ra.clone()], &b[rb.clone()], lang)
                .into_iter()
                .map(|(x, y)| {
                    (
                        ra.start + x.start..ra.start + x.end,
                        rb.start + y.start..rb.start + y.end,
                    )
                })
                .collect();
        for (ra, rb) in pieces {
            if ra.len() == 1 && rb.len() == 1 && a[ra.start] == b[rb.start] {
                emit(None, ta[ra.start].span.clone(), tb[rb.start].span.clone());
                continue;
            }
            let kind = classify_hunk(&a[ra.clone()], &b[rb.clone()], b.get(rb.end).copied(), lang);
            let sa = span(&ta, ra, old.len());
            let sb = span(&tb, rb, new.len());
            emit(Some(kind), sa, sb);
        }
    };
    let (mut i, mut j) = (0, 0);
    let mut k = 0;
    while k <= pairs.len() {
        let (pi, pj) = pairs.get(k).copied().unwrap_or((a.len(), b.len()));
        if i < pi || j < pj {
            push_edit(&mut emit, i..pi, j..pj);
        }
        if k == pairs.len() {
            break;
        }
        // Extend a run of equal tokens.
        let (si, sj) = (pi, pj);
        let mut e = k;
        while e + 1 < pairs.len() && pairs[e + 1] == (pairs[e].0 + 1, pairs[e].1 + 1) {
            e += 1;
        }
        let (ei, ej) = (pairs[e].0 + 1, pairs[e].1 + 1);
        let sa = ta[si].span.start..ta[ei - 1].span.end;
        let sb = tb[sj].span.start..tb[ej - 1].span.end;
        emit(None, sa, sb);
        i = ei;
        j = ej;
        k = e + 1;
    }
}

/// Sentence-level XFORMAL edit categories of a rewrite: the types of all changed spans, and `paraphrase` whenever
/// the whitespace-token edit distance exceeds 3.
pub fn edit_types(old: &str, new: &str, lang: &str) -> BTreeSet<EditType> {
    let mut set: BTreeSet<EditType> = BTreeSet::new();
    if old == new {
        // No changed span, distance 0: nothing to count (what the full diff below finds too).
        return set;
    }
    diff_spans(old, new, lang, |kind, _, _| {
        if let Some(k) = kind {
            set.insert(k);
        }
    });
    set.remove(&EditType::Paraphrase);
    if token_levenshtein_exceeds(old, new, 3) {
        set.insert(EditType::Paraphrase);
    } else if set.is_empty() && old != new {
        // Small rewordings still need a name.
        set.insert(EditType::Paraphrase);
    }
    set
}

/// How many sentence pairs show each edit type (XFORMAL Table 3 style), in [`EditType::ALL`] order.
pub fn edit_type_counts(pairs: &[(String, String)], lang: &str) -> Vec<(EditType, usize)> {
    let mut counts = [0usize; 8];
    // Pairs are independent: classify them on every core, count here.
    for types in crate::metric::par_map(pairs.len(), |i| edit_types(&pairs[i].0, &pairs[i].1, lang)) {
        for t in types {
            counts[EditType::ALL.iter().position(|x| *x == t).unwrap_or(7)] += 1;
        }
    }
    EditType::ALL.iter().copied().zip(counts).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(old: &str, new: &str, lang: &str) -> Vec<(String, String, EditType)> {
        diff(old, new, lang)
            .into_iter()
            .filter_map(|d| d.kind.map(|k| (d.old, d.new, k)))
            .collect()
    }

    #[test]
    fn labels_each_kind_of_edit() {
        use EditType::*;
        // Every labelled edit of the pair, in order: (before, after, kind).
        type Edits = &'static [(&'static str, &'static str, EditType)];
        let every: &[(&str, &str, &str, Edits)] = &[
            ("i think so", "I think so", "en", &[("i", "I", Capitalization)]),
            ("ok, fine", "ok; fine", "en", &[(",", ";", Punctuation)]),
            ("it is realy good", "it is really good", "en", &[("realy", "really", Spelling)]),
            ("u r right", "you are right", "en", &[("u", "you", Normalization), ("r", "are", Normalization)]),
            ("great!!!", "great!", "en", &[("!!!", "!", Repetition)]),
            // Mixed hunks are split into their parts.
            (
                "omg thats sooo cool",
                "Oh my god, that is so cool",
                "en",
                &[
                    ("omg", "Oh my god", Normalization),
                    ("", ",", Punctuation),
                    ("thats", "that is", Normalization),
                    ("sooo", "so", Repetition),
                ],
            ),
        ];
        for &(old, new, lang, want) in every {
            let want: Vec<(String, String, EditType)> = want.iter().map(|&(o, n, k)| (o.into(), n.into(), k)).collect();
            assert_eq!(kinds(old, new, lang), want, "{old:?} → {new:?}");
        }
        // The kind of the first labelled edit.
        for (old, new, lang, first) in [
            ("THANKS FOR that", "thanks for that", "en", Lowercase),
            ("it is sooo nice", "it is so nice", "en", Repetition),
            ("I came, we talked", "I came. We talked", "en", SplitSentences),
            ("hab keine Zeit", "habe keine Zeit", "de", Normalization),
            ("the cat sat", "a dog was sitting", "en", Paraphrase),
        ] {
            assert_eq!(kinds(old, new, lang)[0].2, first, "{old:?} → {new:?}");
        }
        assert_eq!(kinds("i dont care", "I do not care", "en")[0], ("i".into(), "I".into(), Capitalization));
    }

    #[test]
    fn streamed_comparisons_equal_the_allocating_ones() {
        let words = [
            "", "so", "sooo", "soo", "So", "SOOO", "!!!", "!", "aaab", "ab", "İstanbul", "istanbul", "i̇stanbul",
            "ΣΟΦΟΣ", "σοφος", "σοφοσ", "σοφος", "Straße", "STRASSE", "ǅ", "ǆ", "日本", "x y",
        ];
        for a in words {
            for b in words {
                assert_eq!(collapses_to(a.chars(), b.chars()), collapse_runs(a) == b, "{a:?} {b:?}");
                assert_eq!(lower_eq(a, b), a.to_lowercase() == b.to_lowercase(), "{a:?} {b:?}");
                assert_eq!(
                    lower_collapses_to(a, b),
                    collapse_runs(&a.to_lowercase()) == b.to_lowercase(),
                    "{a:?} {b:?}"
                );
            }
        }
    }

    #[test]
    fn related_shortcuts_agree_with_classify_hunk() {
        let toks = [
            "dont", "do", "not", "omg", "Oh", "my", "god", "u", "you", "sooo", "so", "realy", "really", "I", "i",
            "thats", "that", "is", ",", ".", "!!!", "!", "hab", "habe", "kannste", "kannst", "du", "cat", "dog",
        ];
        for lang in ["en", "de", ""] {
            for a in toks {
                for l in 1..=3 {
                    for w in toks.windows(l) {
                        let reference = if is_punct_token(a) || w.iter().any(|t| is_punct_token(t)) {
                            w.len() == 1 && is_punct_token(a) && is_punct_token(w[0])
                        } else {
                            matches!(
                                classify_hunk(&[a], w, None, lang),
                                EditType::Capitalization
                                    | EditType::Lowercase
                                    | EditType::Normalization
                                    | EditType::Repetition
                                    | EditType::Spelling
                            )
                        };
                        let ws: Vec<Word> = w.iter().map(|t| Word::new(t, lang)).collect();
                        assert_eq!(related(&Word::new(a, lang), &ws, lang), reference, "{a:?} {w:?} {lang}");
                    }
                }
            }
        }
        // The multi-token case is reached: "dont" → "do not" is related.
        assert!(related(&Word::new("dont", "en"), &[Word::new("do", "en"), Word::new("not", "en")], "en"));
    }

    #[test]
    fn diff_spans_point_into_both_texts() {
        let old = "wanna go   2 the  mall?";
        let new = "Do you want to go to the mall?";
        for d in diff(old, new, "en") {
            assert_eq!(&old[d.old_range.clone()], d.old);
            assert_eq!(&new[d.new_range.clone()], d.new);
        }
        let eq: Vec<String> = diff(old, new, "en")
            .into_iter()
            .filter(|d| d.is_equal())
            .map(|d| d.old)
            .collect();
        assert_eq!(eq, vec!["go".to_string(), "the  mall?".to_string()]);
    }

    #[test]
    fn sentence_level_types() {
        use EditType::*;
        assert_eq!(edit_types("same", "same", "en"), BTreeSet::new());
        assert!(edit_types(
            "i dunno what u mean lol",
            "I do not know what you mean.",
            "en"
        )
        .contains(&Paraphrase));
        assert_eq!(
            edit_types("i think so", "I think so.", "en"),
            BTreeSet::from([Capitalization, Punctuation])
        );
        assert_eq!(edit_types("", "Hello.", "en"), BTreeSet::from([Paraphrase]));
        assert_eq!(
            edit_types("日本語です", "日本語でございます", "ja"),
            BTreeSet::from([Paraphrase])
        );
    }
}
