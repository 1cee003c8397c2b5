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

/// Parses `key<TAB>expansion` lines; `#` starts a comment line; an empty expansion means "delete the word".
/// The data is compiled in, so a malformed line is a build-time bug caught by the tests, not a user error.
pub fn parse_tsv(text: &'static str) -> WordMap {
    let mut map = HashMap::new();
    for line in text.lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (k, v) = line.split_once('\t').unwrap_or((line, ""));
        map.insert(k.trim(), v.trim());
    }
    map
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
