//! Per-language word lists, kept as TSV data files in `data/lexicons/` so linguists can edit them without Rust.
//! They are compiled in (include_str!) so the formalizer needs no files at run time; each is parsed once.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::Lang;

const EN: &str = include_str!("../data/lexicons/en.tsv");
const EN_CONTRACTIONS: &str = include_str!("../data/lexicons/en_contractions.tsv");
const PT: &str = include_str!("../data/lexicons/pt.tsv");
const FR: &str = include_str!("../data/lexicons/fr.tsv");
const IT: &str = include_str!("../data/lexicons/it.tsv");
const DE: &str = include_str!("../data/lexicons/de.tsv");
const ES: &str = include_str!("../data/lexicons/es.tsv");
const HI: &str = include_str!("../data/lexicons/hi.tsv");
const JA: &str = include_str!("../data/lexicons/ja.tsv");

pub type WordMap = HashMap<&'static str, &'static str>;

/// Parses `key<TAB>expansion[<TAB>without subject]` lines; `#` starts a comment line; an empty expansion means
/// "delete the word". The data is compiled in, so a malformed line is a build-time bug caught by the tests, not a
/// user error.
pub fn parse_tsv(text: &'static str) -> WordMap {
    lines(text).map(|(k, v, _)| (k, v)).collect()
}

fn lines(text: &'static str) -> impl Iterator<Item = (&'static str, &'static str, Option<&'static str>)> {
    text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).map(|line| {
        let mut f = line.split('\t');
        let k = f.next().unwrap_or(line).trim();
        (k, f.next().unwrap_or("").trim(), f.next().map(str::trim))
    })
}

/// The expansions of [`abbreviations`] that are verbs needing a subject ("gonna" → "going to"): for each, what
/// to write when the writer left the subject out ("dunno" → "I do not know"), or `None` to leave the word as
/// written then — expanding it would make a sentence that reads as formal but has no subject ("Going to be
/// late."), which the model's candidates, knowing the context, can fix.
pub fn needs_subject(lang: Lang) -> &'static HashMap<&'static str, Option<&'static str>> {
    static MAPS: OnceLock<Vec<HashMap<&'static str, Option<&'static str>>>> = OnceLock::new();
    let maps = MAPS.get_or_init(|| {
        Lang::ALL
            .iter()
            .map(|&l| {
                // English contractions ("can't wait") are looked up here too.
                let extra = if l == Lang::En { EN_CONTRACTIONS } else { "" };
                lines(source(l)).chain(lines(extra)).filter_map(|(k, _, s)| s.map(|s| (k, (s != "-").then_some(s)))).collect()
            })
            .collect()
    });
    &maps[Lang::ALL.iter().position(|&l| l == lang).unwrap_or(0)]
}

fn source(lang: Lang) -> &'static str {
    match lang {
        Lang::En => EN,
        Lang::Pt => PT,
        Lang::Fr => FR,
        Lang::It => IT,
        Lang::De => DE,
        Lang::Es => ES,
        Lang::Hi => HI,
        Lang::Ja => JA,
    }
}

/// Abbreviations and slang of a language (lowercase keys) with their formal expansion; "" = remove.
pub fn abbreviations(lang: Lang) -> &'static WordMap {
    static MAPS: OnceLock<Vec<WordMap>> = OnceLock::new();
    let maps = MAPS.get_or_init(|| Lang::ALL.iter().map(|&l| parse_tsv(source(l))).collect());
    &maps[Lang::ALL.iter().position(|&l| l == lang).unwrap_or(0)]
}

/// English contractions written as one word (`don't`), lowercase keys.
pub fn en_contractions() -> &'static WordMap {
    static MAP: OnceLock<WordMap> = OnceLock::new();
    MAP.get_or_init(|| parse_tsv(EN_CONTRACTIONS))
}

/// All-caps words that are acronyms, not shouting: they keep their case.
pub fn is_known_acronym(upper: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        [
            "USA",  "UK", "EU", "UN", "NATO", "NASA", "FBI", "CIA", "NBA", "NFL", "MLB", "NHL", "TV", "DVD", "CD",
            "PC", "PDF", "HTML", "CSS", "URL", "HTTP", "HTTPS", "API", "CEO", "CFO", "CTO", "HR",  "AI", "GPS", "ID",
            "USB", "RAM", "CPU", "GPU", "SMS", "MP3", "DJ", "MTV", "BBC", "CNN", "ABC", "NBC", "CBS", "HBO", "IBM",
            "AIDS", "HIV", "DNA", "RNA", "NYC",  "DC", "OK",     "PHD", "MBA",  
            "BSC", "MSC", "ISBN", "UNESCO", "OTAN", "ONU", "UE", "EUA", "SUS", "CPF", "CNPJ", "BRD", "DDR", "GMBH",
             "SPD", "CDU", "FDP", "ARD", "ZDF", "PSOE",  "RAI", "TGV", "SNCF", "RATP", "SIDA", "IVA", "TVA",
            "GB", "MB", "KB", "TB", "XML", "JSON", "SQL", "IOS", "VIP", "FAQ", "ASAP", "RSVP", "ATM", "UFO", "ESPN",
            "WWE", "NCAA", "FIFA", "UEFA", "IRS", "DMV",  "GPA",  "ICU", "EMT", "MRI", "NY", "SF", 
        ]
        .into_iter()
        .collect()
    })
    .contains(upper)
}

/// Abbreviations after which a full stop does not end the sentence (so the next word keeps its case).
pub fn is_dotted_abbreviation(lower: &str) -> bool {
    matches!(
        lower,
        "e.g" | "i.e" | "etc" | "vs" | "mr" | "mrs" | "ms" | "dr" | "prof" | "sr" | "sra" | "jr" | "st" | "vol"
            | "pp" | "cf" | "approx" | "fig" | "z.b" | "d.h" | "u.a" | "bzw" | "ca" | "sig"
    )
}

/// Whether a word is laughter ("hahaha", "kkkkk", "rsrsrs", "jajaja", "ahahah", "hehe") in any language.
/// Such tokens carry no content, so the formal rewrite drops them.
pub fn is_laughter(lower: &str) -> bool {
    let n = lower.chars().count();
    if n < 3 {
        return false;
    }
    // Single-letter runs: kkk (pt), www (ja net slang).
    let first = lower.chars().next().unwrap_or(' ');
    if matches!(first, 'k' | 'w') && lower.chars().all(|c| c == first) {
        return true;
    }
    // Two-letter units repeated: ha, ah, he, eh, hi, ja, je, rs, hu, lo(l)
    let b = lower.as_bytes();
    if !lower.is_ascii() || n < 4 {
        return matches!(lower, "lol" | "kkk" | "rsrs");
    }
    let unit = &b[..2];
    let units: [&[u8]; 10] = [b"ha", b"ah", b"he", b"eh", b"hi", b"ja", b"je", b"rs", b"hu", b"ks"];
    if !units.contains(&unit) {
        return false;
    }
    // Allow a dangling final letter ("hahah", "ahaha").
    b.chunks(2).all(|c| c == unit || (c.len() == 1 && c[0] == unit[0]))
}

/// ASCII emoticons (at word boundaries). Longer ones first so `:-)` wins over `:-`.
pub const EMOTICONS: &[&str] = &[
    ">:(", ":'-(", ":'(", ":-)", ":-(", ":-D", ":-P", ":-p", ":-/", ":-O", ":-o", ":-*", ";-)", "^_^", "^-^", "-_-",
    "o_O", "O_o", "o.O", "T_T", ":)", ":(", ":D", ":P", ":p", ":/", ":O", ":o", ":*", ":|", ":]", ":[", ";)", ";D",
    ";P", "=)", "=(", "=D", "xD", "XD", "xP", "<3", "^^", ":3",
];

/// Pictographic emoji and their joiners/modifiers.
pub fn is_emoji(c: char) -> bool {
    matches!(c as u32,
        0x1F300..=0x1FAFF | 0x2600..=0x27BF | 0x1F000..=0x1F2FF | 0xFE0F | 0x200D | 0x2B50 | 0x2B55)
}

/// What a lone digit stands for when it is an English chat spelling of a word — "thanks 4 the help" (for),
/// "want 2 go" / "talk 2 u" (to), "me 2" (too) — judged by its neighbours in the clause (`prev`, `next`:
/// lower-cased words, `None` at a clause boundary); `None` when it is a number ("4 apples", "at 4 pm", "2 of
/// them", "I got 2"). Glued spellings ("b4", "gr8", "2nite") are words in the lexicon, not lone digits.
pub fn chat_digit(lang: Lang, prev: Option<&str>, digit: &str, next: Option<&str>) -> Option<&'static str> {
    if lang != Lang::En {
        return None;
    }
    // Words after which a digit is a quantity, a time or a position whatever follows.
    const NUMERIC_BEFORE: &[&str] = &[
        "at", "by", "around", "about", "before", "after", "until", "till", "til", "from", "than", "past", "since", "of",
        "the", "page", "room", "no", "number", "only", "just", "maybe", "or", "and", "between", "under", "over", "every",
        "each", "first", "last", "top", "gate", "platform", "level", "step", "chapter", "part", "version", "v", "x",
    ];
    // Words a preposition takes (pronouns, determiners) after "for" and "to".
    const OBJECTS: &[&str] = &[
        "the", "a", "an", "u", "you", "ya", "me", "him", "her", "us", "them", "it", "this", "that", "these", "those",
        "my", "your", "ur", "his", "our", "their", "everyone", "everybody", "someone", "somebody", "anyone", "all",
        "everything", "anything", "something", "nothing",
    ];
    // After "for" only ("4 sure", "4 real", "4 now", "4 ever").
    const AFTER_FOR: &[&str] = &["sure", "real", "now", "ever", "free", "good", "once", "example", "instance", "what", "how", "long", "ages", "being", "coming", "helping", "sharing", "asking"];
    // After "to" only: verbs in the bare infinitive and places one goes to.
    const AFTER_TO: &[&str] = &[
        "be", "go", "get", "see", "do", "have", "make", "say", "come", "know", "talk", "tell", "meet", "send", "call",
        "help", "hear", "eat", "try", "take", "give", "let", "ask", "find", "keep", "bring", "buy", "pay", "play",
        "watch", "work", "stay", "sleep", "leave", "visit", "check", "show", "read", "write", "learn", "start", "stop",
        "finish", "join", "wait", "think", "use", "look", "hang", "chill", "pick", "catch", "text", "email", "sign",
        "fix", "move", "grab", "share", "speak", "drive", "walk", "win", "lose", "listen", "school", "bed", "class",
        "town", "church", "dinner", "lunch", "bring", "hear", "say", "pass", "reply", "respond", "answer",
    ];
    const THANKS: &[&str] = &["thanks", "thx", "thanx", "thnx", "tnx", "ty", "thank", "thnks"];
    // "me 2", "love u 2": "too" at the end of a clause.
    const TOO_AFTER: &[&str] = &["me", "u", "you", "ya", "us", "we", "i", "it", "this", "that", "them", "him", "her"];
    if prev.is_some_and(|p| NUMERIC_BEFORE.contains(&p) || p.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let next_in = |list: &[&str]| next.is_some_and(|n| list.contains(&n));
    match digit {
        "4" if next_in(OBJECTS) || next_in(AFTER_FOR) || prev.is_some_and(|p| THANKS.contains(&p)) => Some("for"),
        "2" if next_in(OBJECTS) || next_in(AFTER_TO) => Some("to"),
        "2" if next.is_none() && prev.is_some_and(|p| TOO_AFTER.contains(&p)) => Some("too"),
        _ => None,
    }
}

/// The lone digits of `text` that are chat spellings of words ([`chat_digit`]): byte range and the word.
pub fn chat_digits(lang: Lang, text: &str) -> Vec<(std::ops::Range<usize>, &'static str)> {
    if lang != Lang::En {
        return Vec::new();
    }
    // Words with their byte range and whether a clause boundary (punctuation) follows / precedes them.
    let mut words: Vec<(std::ops::Range<usize>, String, bool, bool)> = Vec::new();
    let mut boundary = true;
    let mut start = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        let word_char = c.is_alphanumeric() || c == '\'' || c == '’';
        match (start, word_char) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                words.push((s..i, text[s..i].to_lowercase(), boundary, false));
                start = None;
                boundary = false;
            }
            _ => {}
        }
        if !word_char && !c.is_whitespace() && !matches!(c, '"' | '“' | '”' | '*') {
            boundary = true;
            if let Some(w) = words.last_mut() {
                w.3 = true;
            }
        }
    }
    let mut out = Vec::new();
    for k in 0..words.len() {
        let (range, w, after_boundary, before_boundary) = &words[k];
        // "2.5", "4:30", "2-3", "1/2": one number written with a separator.
        let digit_at = |s: &str, from_end: bool| {
            let mut cs = s.chars();
            let (sep, d) = if from_end { (cs.next_back(), cs.next_back()) } else { (cs.next(), cs.next()) };
            sep.is_some_and(|c| matches!(c, '.' | ',' | ':' | '-' | '/' | '–')) && d.is_some_and(|c| c.is_ascii_digit())
        };
        if (w != "2" && w != "4") || digit_at(&text[range.end..], false) || digit_at(&text[..range.start], true) {
            continue;
        }
        let prev = (!after_boundary && k > 0).then(|| words[k - 1].1.as_str());
        let next = (!before_boundary && k + 1 < words.len()).then(|| words[k + 1].1.as_str());
        if let Some(word) = chat_digit(lang, prev, w, next) {
            out.push((range.clone(), word));
        }
    }
    out
}
