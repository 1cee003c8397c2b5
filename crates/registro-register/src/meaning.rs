//! Meaning checks on a translation candidate, independent of register: a refusal or apology from the model
//! instead of a translation, a text left in English, numbers changed or dropped, weekday/month names lost, and
//! (for Latin-script targets) a person or place name dropped. The reranker never prefers a flagged candidate to an
//! unflagged one, and the run stores the reasons so the user sees why a segment needs a look.
use serde::{Deserialize, Serialize};

use crate::Lang;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum MeaningIssue {
    Refusal,
    Untranslated,
    Number,
    Date,
    Name,
    /// The output stops short: no final punctuation where the source has it, and a last word of one letter or under
    /// half the expected length (a model that ran out of tokens: "…तो क्या उन्होंने क").
    Truncated,
    /// Japanese honorifics for the wrong person: sonkeigo (raising the one who acts) on the speaker's own action,
    /// or kenjōgo (lowering the one who acts) on the listener's ("私が召し上がります", "お客様が参ります").
    Honorific,
    /// The source says "not"/"never"/"no" and the translation has no negation at all: its meaning may be reversed
    /// ("I can't send it" → "Ich kann es senden"). A second opinion beside the embedding check, which scores a
    /// reversed sentence as close to its source.
    Negation,
    /// Part of the translation is written in another language's script: Chinese characters in a Japanese
    /// translation (Qwen models slip into Chinese mid-sentence: "荷兰" for オランダ), or Chinese, Japanese, Korean,
    /// Cyrillic, Devanagari or Arabic letters in a target that does not write them.
    WrongScript,
    /// The translation says the opposite of a word of the source: "close" → "open", "yesterday" → "tomorrow",
    /// "buy" → "sell" (the 1.5B model asked "can you open it?" for "Can you shut it?"). The embedding check scores
    /// an antonym as close to its word.
    Opposite,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct MeaningFlag {
    pub issue: MeaningIssue,
    /// What was lost or what gave it away, e.g. `"3 missing"` or `"starts with \"I'm sorry, but\""`.
    pub detail: String,
}

/// Openings of a model's refusal or meta-answer, lower-cased. Only counted when the source itself apologises for
/// nothing: "I'm sorry, but I can't come" translates to a legitimate "Lo siento, pero…".
const REFUSALS: &[&str] = &[
    "i'm sorry, but",
    "i am sorry, but",
    "i'm sorry, i",
    "as an ai",
    "as a language model",
    "i cannot translate",
    "i can't translate",
    "i can't help",
    "i cannot help",
    "here is the translation",
    "here's the translation",
    "translation:",
    "申し訳ありませんが",
    "申し訳ございませんが",
    "aiとして",
    "言語モデルとして",
    "como modelo de lenguaje",
    "como un modelo de lenguaje",
    "como ia",
    "lo siento, pero no puedo",
    "en tant que modèle",
    "en tant qu'ia",
    "je suis désolé, mais je ne peux",
    "als ki",
    "als sprachmodell",
    "es tut mir leid, aber ich kann",
    "come modello linguistico",
    "come ia",
    "mi dispiace, ma non posso",
    "como modelo de linguagem",
    "desculpe, mas não posso",
    "lamento, mas não posso",
    "als taalmodel",
    "als ai",
    "het spijt me, maar ik kan",
    "как языковая модель",
    "как ии",
    "извините, но я не могу",
    "죄송하지만",
    "언어 모델로서",
    "là một mô hình ngôn ngữ",
    "xin lỗi, nhưng tôi không thể",
    "एक भाषा मॉडल के रूप में",
    "मुझे खेद है, लेकिन मैं",
];
const SOURCE_APOLOGY: &[&str] = &[
    "sorry",
    "apolog",
    "language model",
    " ai ",
    "translat",
    "afraid",
    "can't",
    "cannot",
];

/// Frequent English function words: a "translation" made of them is still English.
const ENGLISH: &[&str] = &[
    "the", "and", "you", "your", "is", "are", "to", "of", "what", "do", "have", "that", "with", "for", "this", "it",
    "was", "would", "like", "about", "know", "think", "did", "don't", "i'm", "it's", "they", "there", "were", "be",
];

/// English apologies and thanks a model writes into a Romance or Vietnamese translation in place of the language's
/// own (German and Dutch say "sorry" themselves; a reference that keeps "Yeah." is the translator's choice).
const ENGLISH_COURTESY: &[&str] = &["sorry", "please", "thanks", "bye"];
const COURTESY_IS_ENGLISH_IN: [Lang; 5] = [Lang::It, Lang::Fr, Lang::Es, Lang::Pt, Lang::Vi];

/// Weekday and month names per target language as lower-case stems, indexed like `EN_DATES`.
const EN_DATES: [&str; 19] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

fn date_stems(lang: Lang) -> Option<[&'static str; 19]> {
    Some(match lang {
        Lang::De => [
            "montag",
            "dienstag",
            "mittwoch",
            "donnerstag",
            "freitag",
            "samstag",
            "sonntag",
            "januar",
            "februar",
            "märz",
            "april",
            "mai",
            "juni",
            "juli",
            "august",
            "september",
            "oktober",
            "november",
            "dezember",
        ],
        Lang::Es => [
            "lunes",
            "martes",
            "miércoles",
            "jueves",
            "viernes",
            "sábado",
            "domingo",
            "enero",
            "febrero",
            "marzo",
            "abril",
            "mayo",
            "junio",
            "julio",
            "agosto",
            "septiembre",
            "octubre",
            "noviembre",
            "diciembre",
        ],
        Lang::Fr => [
            "lundi",
            "mardi",
            "mercredi",
            "jeudi",
            "vendredi",
            "samedi",
            "dimanche",
            "janvier",
            "février",
            "mars",
            "avril",
            "mai",
            "juin",
            "juillet",
            "août",
            "septembre",
            "octobre",
            "novembre",
            "décembre",
        ],
        Lang::It => [
            "lunedì",
            "martedì",
            "mercoledì",
            "giovedì",
            "venerdì",
            "sabato",
            "domenica",
            "gennaio",
            "febbraio",
            "marzo",
            "aprile",
            "maggio",
            "giugno",
            "luglio",
            "agosto",
            "settembre",
            "ottobre",
            "novembre",
            "dicembre",
        ],
        Lang::Pt => [
            "segunda",
            "terça",
            "quarta",
            "quinta",
            "sexta",
            "sábado",
            "domingo",
            "janeiro",
            "fevereiro",
            "março",
            "abril",
            "maio",
            "junho",
            "julho",
            "agosto",
            "setembro",
            "outubro",
            "novembro",
            "dezembro",
        ],
        Lang::Nl => [
            "maandag",
            "dinsdag",
            "woensdag",
            "donderdag",
            "vrijdag",
            "zaterdag",
            "zondag",
            "januari",
            "februari",
            "maart",
            "april",
            "mei",
            "juni",
            "juli",
            "augustus",
            "september",
            "oktober",
            "november",
            "december",
        ],
        Lang::Ru => [
            "понедельник",
            "вторник",
            "сред",
            "четверг",
            "пятниц",
            "суббот",
            "воскресень",
            "январ",
            "феврал",
            "март",
            "апрел",
            "ма",
            "июн",
            "июл",
            "август",
            "сентябр",
            "октябр",
            "ноябр",
            "декабр",
        ],
        Lang::Ja => [
            "月曜", "火曜", "水曜", "木曜", "金曜", "土曜", "日曜", "1月", "2月", "3月", "4月", "5月", "6月", "7月",
            "8月", "9月", "10月", "11月", "12月",
        ],
        Lang::Ko => [
            "월요일",
            "화요일",
            "수요일",
            "목요일",
            "금요일",
            "토요일",
            "일요일",
            "1월",
            "2월",
            "3월",
            "4월",
            "5월",
            "6월",
            "7월",
            "8월",
            "9월",
            "10월",
            "11월",
            "12월",
        ],
        Lang::Vi => [
            "thứ hai",
            "thứ ba",
            "thứ tư",
            "thứ năm",
            "thứ sáu",
            "thứ bảy",
            "chủ nhật",
            "tháng một",
            "tháng hai",
            "tháng ba",
            "tháng tư",
            "tháng năm",
            "tháng sáu",
            "tháng bảy",
            "tháng tám",
            "tháng chín",
            "tháng mười",
            "tháng mười một",
            "tháng mười hai",
        ],
        Lang::Hi => [
            "सोमवार",
            "मंगलवार",
            "बुधवार",
            "गुरुवार",
            "शुक्रवार",
            "शनिवार",
            "रविवार",
            "जनवरी",
            "फ़रवरी",
            "मार्च",
            "अप्रैल",
            "मई",
            "जून",
            "जुलाई",
            "अगस्त",
            "सितंबर",
            "अक्टूबर",
            "नवंबर",
            "दिसंबर",
        ],
    })
}

/// Capitalised English words that are not names a translation must copy: interjections and titles; the common nouns
/// English capitalises in an institution's or a country's name, which a translator translates ("your House member"
/// → "votre membre de la Chambre", "out of the States" → "à l'étranger"/"hors des États-Unis", "the Senate" → "le
/// Sénat"); kinship words used as a name ("Mom" → "maman"); and acronyms a language replaces with its own words
/// ("ZIP code" → "code postal", "ATM" → "distributeur"). A person's, a brand's or a place's own name stays checked.
const NOT_NAMES: &[&str] = &[
    "I", "I'm", "I've", "I'll", "I'd", "OK", "Okay", "Mr", "Mrs", "Ms", "Dr", "God", "TV", "Oh", "Yeah", "Hey", "Hi",
    "Hello", "Well", "Yes", "No", "LOL", "Lol", "LMAO", "OMG", "BTW", "Haha", "Wow",
    // Institutions and countries by their common nouns.
    "House", "Senate", "Congress", "Parliament", "Court", "Government", "Army", "Navy", "Church", "Union", "Kingdom",
    "Republic", "State", "States", "City", "President", "Queen", "King", "Prince", "Princess", "Pope",
    // Kinship words as names.
    "Mom", "Mum", "Mommy", "Dad", "Daddy", "Mother", "Father", "Grandma", "Grandpa",
    // Acronyms translated by their meaning.
    "ZIP", "ATM",
];

/// Every meaning problem of `candidate` as a translation of the English `source` into `lang`.
pub fn check(lang: Lang, source: &str, candidate: &str) -> Vec<MeaningFlag> {
    let mut out = Vec::new();
    let flag = |issue, detail: String| MeaningFlag { issue, detail };
    let cand = candidate.trim().to_lowercase();
    let src = format!(" {} ", source.to_lowercase());
    if !SOURCE_APOLOGY.iter().any(|a| src.contains(a)) {
        if let Some(r) = REFUSALS
            .iter()
            .find(|r| cand.starts_with(*r) || cand.contains(&format!(". {r}")) || (r.len() > 12 && cand.contains(*r)))
        {
            out.push(flag(
                MeaningIssue::Refusal,
                format!("contains {r:?}, a refusal or comment instead of a translation"),
            ));
        }
    }
    if let Some(d) = untranslated(lang, source, candidate).or_else(|| english_left(lang, source, candidate)) {
        out.push(flag(MeaningIssue::Untranslated, d));
    }
    let (sn, cn) = (numbers(source), numbers(candidate));
    let missing: Vec<&String> = sn.iter().filter(|n| !cn.contains(n) && !small_number_in_words(lang, n, candidate)).collect();
    let added: Vec<&String> = cn.iter().filter(|n| !sn.contains(n)).collect();
    if !missing.is_empty() || !added.is_empty() && !sn.is_empty() {
        let mut d = Vec::new();
        if !missing.is_empty() {
            d.push(format!("{} missing", join(&missing)));
        }
        if !added.is_empty() {
            d.push(format!("{} not in the source", join(&added)));
        }
        out.push(flag(MeaningIssue::Number, d.join("; ")));
    }
    if let Some(stems) = date_stems(lang) {
        let words: Vec<String> = source
            .split(|c: char| !c.is_alphabetic())
            .map(str::to_lowercase)
            .collect();
        for (i, en) in EN_DATES.iter().enumerate() {
            // "may" is a verb far more often than a month: only the capitalised month counts, and not the modal
            // opening a sentence ("Nice chatting with you! May your winter end soon.").
            let present = if *en == "may" {
                the_month_may(source)
            } else {
                words.iter().any(|w| w == en)
            };
            if present && !cand.contains(stems[i]) {
                out.push(flag(
                    MeaningIssue::Date,
                    format!("\"{en}\" not translated (expected \"{}\")", stems[i]),
                ));
            }
        }
    }
    if let Some(d) = relative_day_changed(lang, source, candidate) {
        out.push(flag(MeaningIssue::Date, d));
    }
    if let Some(d) = truncated(lang, source, candidate) {
        out.push(flag(MeaningIssue::Truncated, d));
    }
    if let Some(d) = negation_lost(lang, source, candidate) {
        out.push(flag(MeaningIssue::Negation, d));
    }
    if let Some(d) = foreign_script(lang, source, candidate) {
        out.push(flag(MeaningIssue::WrongScript, d));
    }
    if let Some(d) = crate::opposites::opposite(lang, source, candidate) {
        out.push(flag(MeaningIssue::Opposite, d));
    }
    if lang == Lang::Ja {
        if let Some(d) = honorific_for_the_wrong_person(candidate) {
            out.push(flag(MeaningIssue::Honorific, d));
        }
    }
    if latin_script(lang) {
        for (group, title) in name_groups(source) {
            // A multi-word name is often a title or an institution that is translated ("North Korea" → "Corée du
            // Nord"): one of its words kept is enough. One joined by "the" ("Beauty and the Beast", "Lord of the
            // Rings") is a title, which a translator gives its published name ("La Belle et la Bête"): a
            // capitalised word inside the translation is enough.
            let title_kept = title && capitalised_inside(candidate);
            if !title_kept && !group.iter().any(|name| name_kept(name, candidate)) {
                for name in group {
                    out.push(flag(MeaningIssue::Name, format!("name {name:?} missing")));
                }
            }
        }
    }
    out
}

/// Whether `name` is in `candidate`: as written in any case ("LOL" → "lol"), or as the language's own form of a
/// place that shares its first four letters ("China" → "Chine", "Crimea" → "Crimée", "London" → "Londres").
fn name_kept(name: &str, candidate: &str) -> bool {
    let fold = |c: char| match c {
        'à' | 'á' | 'â' | 'ä' | 'ã' | 'å' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' => 'o',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'ç' => 'c',
        'ñ' => 'n',
        c => c,
    };
    let folded = |s: &str| s.chars().flat_map(char::to_lowercase).map(fold).collect::<String>();
    let (name, candidate) = (folded(name), folded(candidate));
    if candidate.contains(&name) {
        return true;
    }
    let head: String = name.chars().take(4).collect();
    name.chars().count() >= 5 && words(&candidate).iter().any(|w| w.chars().count() >= 4 && w.starts_with(&head))
}

/// The source's names ([`names`]) grouped into multi-word names: neighbours, or joined by "of", "the" or "and the"
/// (not "and" alone: "Peter and Mary" are two people).
fn name_groups(source: &str) -> Vec<(Vec<&str>, bool)> {
    let names = names(source);
    let mut groups: Vec<(Vec<&str>, bool)> = Vec::new();
    let mut joined_by_the = false;
    let mut open = false;
    let ws: Vec<&str> = source.split_whitespace().collect();
    for (k, &w) in ws.iter().enumerate() {
        let word = w.trim_matches(|c: char| !c.is_alphanumeric());
        // "Beauty and the Beast" is one title; "Peter and Mary" two people.
        let next_is_the = ws.get(k + 1).is_some_and(|n| n.eq_ignore_ascii_case("the"));
        if names.contains(&word) {
            if !groups.iter().any(|(g, _)| g.contains(&word)) {
                match groups.last_mut() {
                    Some((g, title)) if open => {
                        g.push(word);
                        *title |= joined_by_the;
                    }
                    _ => groups.push((vec![word], false)),
                }
            }
            open = true;
            joined_by_the = false;
        } else if !(open && (matches!(word, "of" | "the" | "de") || word == "and" && next_is_the)) {
            open = false;
        } else {
            joined_by_the |= word == "the";
        }
        // Punctuation after a word ends the name ("Syria, Crimea").
        if w.ends_with(|c: char| !c.is_alphanumeric()) {
            open = false;
        }
    }
    groups
}

/// The lower-case words of an English source, split at anything not a letter or digit ("tomorrow's" holds
/// "tomorrow").
pub(crate) fn english_words(source: &str) -> Vec<String> {
    source.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect()
}

/// Yesterday, today and tomorrow: English words, then each target's (lower case; matched inside the translation, so
/// German "morgen" is also "Morgen", morning — a translation of "today" that has "heute Morgen" still has "heute").
const RELATIVE_DAYS: [&[&str]; 3] = [&["yesterday"], &["today", "tonight"], &["tomorrow"]];

fn relative_day_words(lang: Lang) -> [&'static [&'static str]; 3] {
    match lang {
        Lang::De => [&["gestern"], &["heute"], &["morgen"]],
        Lang::Es => [&["ayer"], &["hoy", "esta noche"], &["mañana"]],
        Lang::Fr => [&["hier"], &["aujourd'hui", "aujourd’hui", "ce soir"], &["demain"]],
        Lang::It => [&["ieri"], &["oggi", "stasera", "stanotte"], &["domani"]],
        Lang::Pt => [&["ontem"], &["hoje", "esta noite"], &["amanhã"]],
        Lang::Nl => [&["gisteren"], &["vandaag", "vanavond", "vannacht"], &["morgen"]],
        Lang::Ru => [&["вчера"], &["сегодня"], &["завтра"]],
        // Hindi's कल is both yesterday and tomorrow: only today against either counts.
        Lang::Hi => [&["कल"], &["आज"], &["कल"]],
        Lang::Ja => [&["昨日", "きのう", "昨晩", "昨夜"], &["今日", "きょう", "今夜", "今晩"], &["明日", "あした", "あす"]],
        Lang::Ko => [&["어제"], &["오늘"], &["내일"]],
        Lang::Vi => [&["hôm qua"], &["hôm nay", "tối nay"], &["ngày mai"]],
    }
}

/// The source says yesterday, today or tomorrow (one of them) and the translation another of them instead: the
/// 0.5B model wrote "ich werde Ihnen heute anrufen" for "I will call you tomorrow". Latin- and Cyrillic-script words
/// are matched as whole words, so "hier" is not inside "hierarchie".
fn relative_day_changed(lang: Lang, source: &str, candidate: &str) -> Option<String> {
    let words = english_words(source);
    let said: Vec<usize> = (0..3).filter(|&k| RELATIVE_DAYS[k].iter().any(|w| words.iter().any(|x| x == w))).collect();
    let [day] = said[..] else { return None };
    let text = candidate.to_lowercase();
    let has = |w: &str| match lang {
        Lang::Ja | Lang::Ko => text.contains(w),
        _ => text.match_indices(w).any(|(i, _)| crate::opposites::stands_alone(&text, i, i + w.len())),
    };
    let table = relative_day_words(lang);
    if table[day].iter().any(|w| has(w)) {
        return None;
    }
    let (k, other) = (0..3).filter(|&k| k != day).find_map(|k| table[k].iter().find(|w| has(w)).map(|w| (k, *w)))?;
    Some(format!("\"{}\" became \"{other}\" ({})", RELATIVE_DAYS[day][0], RELATIVE_DAYS[k][0]))
}

/// "May" the month: capitalised, not opening a sentence, and not the modal before its subject ("May I…").
fn the_month_may(source: &str) -> bool {
    source.match_indices("May").any(|(i, _)| {
        let rest = &source[i + 3..];
        let word_ends = !rest.starts_with(|c: char| c.is_alphanumeric());
        let before = source[..i].trim_end();
        let opens = before.is_empty() || before.ends_with(['.', '!', '?', ':', '"', '“', ')']);
        // Part of a longer word ("DisMay") rather than the month after a bracket ("(May 2024)").
        let glued = source[..i].chars().next_back().is_some_and(char::is_alphanumeric);
        let modal = rest.split_whitespace().next().is_some_and(|n| {
            matches!(n.trim_matches(|c: char| !c.is_alphanumeric()), "I" | "we" | "you" | "your" | "he" | "she" | "it" | "they" | "the" | "God")
        });
        word_ends && !glued && !opens && !modal
    })
}

/// A capitalised word that does not open a sentence: where a translated title shows.
fn capitalised_inside(candidate: &str) -> bool {
    let mut sent_start = true;
    for w in candidate.split_whitespace() {
        let word = w.trim_matches(|c: char| !c.is_alphanumeric());
        if !sent_start && word.chars().next().is_some_and(char::is_uppercase) {
            return true;
        }
        sent_start = w.ends_with(['.', '!', '?', ':']);
    }
    false
}

/// Adds the meaning problems of `candidate` to a register flag `(flagged, reason)`, reasons joined with "; ".
pub fn add_flags(
    register_flag: (bool, Option<String>),
    lang: Lang,
    source: &str,
    candidate: &str,
) -> (bool, Option<String>) {
    let found = check(lang, source, candidate);
    if found.is_empty() {
        return register_flag;
    }
    let mut reasons: Vec<String> = register_flag.1.into_iter().collect();
    reasons.extend(found.iter().map(|f| format!("{}: {}", f.issue.as_str(), f.detail)));
    (true, Some(reasons.join("; ")))
}

impl MeaningIssue {
    pub fn as_str(self) -> &'static str {
        match self {
            MeaningIssue::Refusal => "refusal",
            MeaningIssue::Untranslated => "untranslated",
            MeaningIssue::Number => "number changed",
            MeaningIssue::Date => "date changed",
            MeaningIssue::Name => "name dropped",
            MeaningIssue::Truncated => "cut off",
            MeaningIssue::Honorific => "honorific for the wrong person",
            MeaningIssue::Negation => "negation lost",
            MeaningIssue::WrongScript => "wrong language",
            MeaningIssue::Opposite => "opposite meaning",
        }
    }
}

fn join(v: &[&String]) -> String {
    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

/// The target languages written in the Latin script, like English: leftover English in them is found word by word
/// against the language's vocabulary ([`english_left`]), not by script.
pub const LATIN_TARGETS: [Lang; 7] = [Lang::De, Lang::Es, Lang::Fr, Lang::It, Lang::Nl, Lang::Pt, Lang::Vi];

fn latin_script(lang: Lang) -> bool {
    LATIN_TARGETS.contains(&lang)
}

/// The writing systems [`foreign_script`] tells apart; Latin is [`english_left`]'s, and Greek letters are left
/// alone (π, α and µ are written in every language).
#[derive(Clone, Copy, PartialEq)]
enum Script {
    Han,
    Kana,
    Hangul,
    Cyrillic,
    Devanagari,
    Arabic,
}

impl Script {
    fn of(c: char) -> Option<Script> {
        Some(match c {
            '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3134F}' => Script::Han,
            '\u{3041}'..='\u{309F}' | '\u{30A0}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9D}' => Script::Kana,
            '\u{1100}'..='\u{11FF}' | '\u{3131}'..='\u{318E}' | '\u{AC00}'..='\u{D7A3}' => Script::Hangul,
            '\u{0400}'..='\u{04FF}' => Script::Cyrillic,
            '\u{0900}'..='\u{097F}' => Script::Devanagari,
            '\u{0600}'..='\u{06FF}' => Script::Arabic,
            _ => return None,
        })
    }

    /// The scripts `lang` is written in, for the languages not written in Latin letters (empty for those).
    fn of_language(lang: Lang) -> &'static [Script] {
        match lang {
            Lang::Ja => &[Script::Han, Script::Kana],
            Lang::Ko => &[Script::Hangul],
            Lang::Hi => &[Script::Devanagari],
            Lang::Ru => &[Script::Cyrillic],
            _ => &[],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Script::Han => "Chinese characters",
            Script::Kana => "Japanese kana",
            Script::Hangul => "Korean letters",
            Script::Cyrillic => "Cyrillic letters",
            Script::Devanagari => "Devanagari letters",
            Script::Arabic => "Arabic letters",
        }
    }
}

/// Whether a Japanese reader reads `c`: kanji are the Han characters of JIS X 0208 as Shift_JIS (Windows-31J)
/// encodes them, which holds every jōyō and jinmeiyō kanji and no simplified Chinese form that differs from
/// Japanese (兰 for 蘭, 这, 们, 说, 对 for 対).
fn japanese_kanji(c: char) -> bool {
    let mut buf = [0u8; 4];
    let (_, _, unmappable) = encoding_rs::SHIFT_JIS.encode(c.encode_utf8(&mut buf));
    !unmappable
}

/// Runs of `candidate` written in a script the target language does not use (see [`MeaningIssue::WrongScript`]),
/// named by script: Chinese characters a Japanese reader cannot read (the whole run of Han characters they stand in,
/// "荷兰"), and any Chinese, Japanese, Korean, Cyrillic, Devanagari or Arabic letters in a target that does not
/// write them. Korean keeps its hanja, which some writers still put in brackets. A run that is also in the source
/// (a name quoted in its own script) is not counted.
fn foreign_script(lang: Lang, source: &str, candidate: &str) -> Option<String> {
    let native = |s: Script| Script::of_language(lang).contains(&s) || (lang == Lang::Ko && s == Script::Han);
    // Each character's script when the target does not read it, else None.
    let foreign = |c: char| -> Option<Script> {
        let s = Script::of(c)?;
        if !native(s) {
            return Some(s);
        }
        (lang == Lang::Ja && s == Script::Han && !japanese_kanji(c)).then_some(s)
    };
    // A letter inside a word of the target's script is a look-alike ("escolа" with a Cyrillic а): the word is named
    // too, or the flag would point at a letter that reads like any other. Japanese has no spaces to end a word, so
    // there the run stands alone.
    let word_char = |c: char| lang != Lang::Ja && (c.is_alphanumeric() || matches!(c, '\u{0900}'..='\u{097F}'));
    let chars: Vec<char> = candidate.chars().collect();
    let mut found: Vec<(Script, String)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let Some(s) = foreign(chars[i]) else {
            i += 1;
            continue;
        };
        // The run: neighbours of the same script, so "荷兰" is shown whole though only 兰 is Chinese.
        let (mut a, mut b) = (i, i + 1);
        while a > 0 && Script::of(chars[a - 1]) == Some(s) {
            a -= 1;
        }
        while b < chars.len() && Script::of(chars[b]) == Some(s) {
            b += 1;
        }
        let run: String = chars[a..b].iter().collect();
        let (mut wa, mut wb) = (a, b);
        while wa > 0 && word_char(chars[wa - 1]) {
            wa -= 1;
        }
        while wb < chars.len() && word_char(chars[wb]) {
            wb += 1;
        }
        let shown = if (wa, wb) == (a, b) {
            format!("{run:?}")
        } else {
            format!("{run:?} inside {:?}", chars[wa..wb].iter().collect::<String>())
        };
        if !source.contains(&run) && !found.iter().any(|(_, r)| *r == shown) {
            found.push((s, shown));
        }
        i = b;
    }
    let first = found.first()?.0;
    let runs: Vec<&str> = found.iter().filter(|(s, _)| *s == first).take(5).map(|(_, r)| r.as_str()).collect();
    Some(format!("{} in the {} translation: {}", first.name(), lang.name(), runs.join(", ")))
}

/// Cyrillic letters drawn like Latin ones, and their Latin twins.
const LOOKALIKES: &[(char, char)] = &[
    ('а', 'a'), ('е', 'e'), ('о', 'o'), ('р', 'p'), ('с', 'c'), ('у', 'y'), ('х', 'x'), ('і', 'i'), ('ј', 'j'),
    ('ѕ', 's'), ('ԁ', 'd'), ('А', 'A'), ('В', 'B'), ('Е', 'E'), ('К', 'K'), ('М', 'M'), ('Н', 'H'), ('О', 'O'),
    ('Р', 'P'), ('С', 'C'), ('Т', 'T'), ('Х', 'X'), ('І', 'I'), ('Ј', 'J'), ('Ѕ', 'S'),
];

/// `text` with look-alike letters of the wrong alphabet inside a word put right, or `None` when there are none: a
/// Cyrillic "а" inside a Latin word of a Latin-script target ("escolа", which the 0.5B model wrote), or a Latin "c"
/// inside a Cyrillic word of a Russian one. A model's slip between two alphabets that draw the letter alike, which a
/// reader cannot see and a spell checker or a search then trips on; a word of the other alphabet throughout, or one
/// holding a letter with no twin, is left for [`check`] to flag.
pub fn fix_lookalikes(lang: Lang, text: &str) -> Option<String> {
    let (to_target, target_letter): (fn(char) -> Option<char>, fn(char) -> bool) = if latin_script(lang) {
        (|c| LOOKALIKES.iter().find(|p| p.0 == c).map(|p| p.1), |c| c.is_alphabetic() && Script::of(c).is_none() && !('\u{0370}'..='\u{03FF}').contains(&c))
    } else if lang == Lang::Ru {
        (|c| LOOKALIKES.iter().find(|p| p.1 == c).map(|p| p.0), |c| Script::of(c) == Some(Script::Cyrillic))
    } else {
        return None;
    };
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String, changed: &mut bool| {
        let native = word.chars().any(|c| target_letter(c) && to_target(c).is_none());
        let strays: Vec<char> = word.chars().filter(|&c| c.is_alphabetic() && !target_letter(c)).collect();
        if native && !strays.is_empty() && strays.iter().all(|&c| to_target(c).is_some()) {
            out.extend(word.chars().map(|c| if target_letter(c) { c } else { to_target(c).unwrap_or(c) }));
            *changed = true;
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out, &mut changed);
            out.push(c);
        }
    }
    flush(&mut word, &mut out, &mut changed);
    changed.then_some(out)
}

/// Whether `candidate` stops short of a whole translation of `source` (see [`MeaningIssue::Truncated`]): the source
/// ends a sentence and the candidate does not, and either its last word is a single letter (cut mid-word) or it holds
/// under half the letters a translation of the source has (a fifth for Japanese and Korean, whose scripts are dense).
fn truncated(lang: Lang, source: &str, candidate: &str) -> Option<String> {
    let (s, c) = (source.trim(), candidate.trim());
    const ENDS: &[char] = &[
        '.', '!', '?', '。', '！', '？', '।', '…', '"', '\'', '»', '”', '’', ')', ']', '」', '』', '~', '～', ':', ';',
    ];
    if !s.ends_with(['.', '!', '?']) || c.is_empty() || c.ends_with(ENDS) {
        return None;
    }
    let letters = |t: &str| t.chars().filter(|ch| ch.is_alphabetic()).count();
    let dense = lang.dense_script();
    let last = words(c).last().map(|w| w.chars().filter(|ch| ch.is_alphabetic()).count()).unwrap_or(0);
    if !dense && last == 1 && letters(s) >= 12 {
        let w = words(c).last().copied().unwrap_or_default();
        return Some(format!("ends in the middle of a word (\"{w}\"), without the source's final punctuation"));
    }
    let expected = if dense { letters(s) / 5 } else { letters(s) / 2 };
    (letters(s) >= 12 && letters(c) < expected).then(|| {
        format!(
            "ends without the source's final punctuation at {} of the source's {} letters: the translation may be cut off",
            letters(c),
            letters(s)
        )
    })
}

/// The words of `s`: runs of letters, with the apostrophes and hyphens inside a word ("l'ho", "e-mail").
pub fn words(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let inner = matches!(c, '\'' | '’' | '-')
            && start.is_some()
            && chars.get(k + 1).is_some_and(|(_, n)| n.is_alphabetic());
        if c.is_alphabetic() || inner {
            start.get_or_insert(i);
        } else if let Some(b) = start.take() {
            out.push(&s[b..i]);
        }
    }
    if let Some(b) = start {
        out.push(&s[b..]);
    }
    out
}

/// Word sets per Latin-script target language, one word per line of each compiled-in file.
type WordSets = std::collections::HashMap<Lang, std::collections::HashSet<&'static str>>;

fn word_sets(files: [(Lang, &'static str); 7]) -> WordSets {
    files.into_iter().map(|(l, f)| (l, f.lines().collect())).collect()
}

/// Every word of the language's references in the pool part of the shipped example data (`--example vocabgen`).
pub(crate) fn vocabulary(lang: Lang) -> Option<&'static std::collections::HashSet<&'static str>> {
    static V: std::sync::OnceLock<WordSets> = std::sync::OnceLock::new();
    V.get_or_init(|| {
        word_sets([
            (Lang::De, include_str!("vocab/de.txt")),
            (Lang::Es, include_str!("vocab/es.txt")),
            (Lang::Fr, include_str!("vocab/fr.txt")),
            (Lang::It, include_str!("vocab/it.txt")),
            (Lang::Nl, include_str!("vocab/nl.txt")),
            (Lang::Pt, include_str!("vocab/pt.txt")),
            (Lang::Vi, include_str!("vocab/vi.txt")),
        ])
    })
    .get(&lang)
}

/// Common English words that are clearly not words of `lang` (rare in it, or about 30 times more frequent in
/// English): generated from wordfreq's frequencies by scripts/gen-english-lists.py (src/vocab/README.md).
fn clearly_english(lang: Lang) -> Option<&'static std::collections::HashSet<&'static str>> {
    static E: std::sync::OnceLock<WordSets> = std::sync::OnceLock::new();
    E.get_or_init(|| {
        word_sets([
            (Lang::De, include_str!("vocab/english-not-de.txt")),
            (Lang::Es, include_str!("vocab/english-not-es.txt")),
            (Lang::Fr, include_str!("vocab/english-not-fr.txt")),
            (Lang::It, include_str!("vocab/english-not-it.txt")),
            (Lang::Nl, include_str!("vocab/english-not-nl.txt")),
            (Lang::Pt, include_str!("vocab/english-not-pt.txt")),
            (Lang::Vi, include_str!("vocab/english-not-vi.txt")),
        ])
    })
    .get(&lang)
}

/// A common English word: one of the generated "clearly English" lists of any Latin-script language (each holds
/// frequent English words minus that language's own), for targets in another script where any of them is English.
fn common_english(w: &str) -> bool {
    [Lang::De, Lang::Es, Lang::Fr, Lang::It, Lang::Nl, Lang::Pt, Lang::Vi]
        .into_iter()
        .any(|l| clearly_english(l).is_some_and(|e| e.contains(w)))
}

/// English words the Latin-script target languages use as their own (a copied "file" or "weekend" is a translation).
const LOANWORDS: &[&str] = &[
    "app", "apps", "bar", "blog", "box", "budget", "burger", "business", "chat", "check", "club", "computer",
    "cookie", "cookies", "design", "download", "email", "e-mail", "fan", "fans", "feedback", "file", "files", "film",
    "films", "football", "freelancer", "golf", "hamburger", "hamster", "hardware", "hobby", "hockey", "hotel", "internet",
    "jazz", "laptop", "link", "manager", "marketing", "media", "meeting", "menu", "office", "offline", "okay", "online",
    "password", "pizza", "podcast", "pop", "post", "radio", "rap", "rock", "sandwich", "selfie", "shopping", "show",
    "smartphone", "snack", "social", "software", "sport", "sports", "star", "startup", "stress", "streaming", "tablet",
    "taxi", "team", "tennis", "trend", "upload", "video", "videos", "web", "website", "weekend", "wifi",
];

/// Lower-case Latin words a Japanese, Korean, Hindi or Russian text may carry: units, web addresses' parts.
const LATIN_IN_OTHER_SCRIPTS: &[&str] = &[
    "app", "com", "email", "e-mail", "etc", "html", "http", "https", "kg", "km", "cm", "mm", "ml", "mg", "net", "okay",
    "online", "org", "pdf", "vs", "wifi", "www",
];

/// English left inside a translation that is otherwise in the target language: "Grazie per il suo aiuto yesterday!",
/// "しかし、それは crazyです。". In a Latin-script target, a lower-case word copied from the English source that is
/// clearly English ([`clearly_english`]), that the language's example references never use and that is not an
/// international loanword; in another script, any lower-case
/// Latin word (names, brands and acronyms are capitalised and stay). Web addresses, e-mail addresses and paths are
/// skipped. Names come from the source as [`names`] sees them.
fn english_left(lang: Lang, source: &str, candidate: &str) -> Option<String> {
    let address = |tok: &str| {
        tok.contains('@')
            || tok.contains('/')
            || tok.contains('_')
            || tok.char_indices().any(|(i, c)| {
                c == '.'
                    && tok[..i].chars().next_back().is_some_and(char::is_alphanumeric)
                    && tok[i + 1..].chars().next().is_some_and(char::is_alphanumeric)
            })
    };
    let lower = |w: &str| w.chars().all(|c| !c.is_uppercase());
    let mut left: Vec<&str> = Vec::new();
    let source_names = names(source);
    let source_words: std::collections::HashSet<String> = words(source)
        .into_iter()
        .filter(|w| !source_names.contains(w))
        .map(str::to_lowercase)
        .collect();
    let source_words_as_written: std::collections::HashSet<&str> = words(source).into_iter().collect();
    let source_lower: std::collections::HashSet<String> = source_words_as_written.iter().map(|w| w.to_lowercase()).collect();
    let latin = |c: char| c.is_ascii_alphabetic() || matches!(c, '\'' | '’' | '-');
    // The candidate's words in order, each with whether it opens a sentence (a capitalised word elsewhere is part
    // of a name or a title) and whether it follows the word before with only a space between ("Parks and
    // Recreation", not "Aunt、Uncle" or "Shakespeare... since"): only such neighbours make a title.
    let mut seq: Vec<(&str, bool, bool)> = Vec::new();
    let mut sent_start = true;
    let mut prev_open = false;
    for tok in candidate.split_whitespace() {
        if !address(tok) {
            // In another script the Latin part of a word counts on its own: "crazyです" holds "crazy" (the rest
            // stays in the sequence, so "Aunt や Uncle" are not neighbours).
            let runs: Vec<&str> = if latin_script(lang) {
                words(tok)
            } else {
                words(tok).into_iter().flat_map(|w| script_runs(w, latin)).collect()
            };
            for (k, w) in runs.into_iter().enumerate() {
                seq.push((w, sent_start && k == 0, k == 0 && prev_open && tok.starts_with(w)));
            }
        }
        sent_start = tok.ends_with(['.', '!', '?', ':', '。', '！', '？', '…']);
        prev_open = tok.ends_with(char::is_alphanumeric);
    }
    let in_title = |k: usize| {
        // A capitalised word copied from the source: German capitalises its own nouns and "Sie", which make no
        // title ("die Sie just so probieren" still holds English).
        let capitalised_inside = |j: usize| {
            seq.get(j).is_some_and(|&(w, start, _)| {
                !start && w.chars().next().is_some_and(char::is_uppercase) && source_lower.contains(&w.to_lowercase())
            })
        };
        let joined = |j: usize| seq.get(j).is_some_and(|&(_, _, joined)| joined);
        (joined(k) && k.checked_sub(1).is_some_and(capitalised_inside)) || (joined(k + 1) && capitalised_inside(k + 1))
    };
    // Two-letter English function words are Vietnamese syllables too ("do" because, "to" big).
    let two_letter_words = lang != Lang::Vi;
    for (k, &(w, _, _)) in seq.iter().enumerate() {
        // Words of a title copied from the source are part of it ("Parks and Recreation", "Send me to Heaven",
        // "Fireplace for your Home").
        if in_title(k) {
            continue;
        }
        let lw = w.to_lowercase();
        // English function words are never names and some have two letters: "Do vous ?" is English left.
        let function_word = ENGLISH.contains(&lw.as_str());
        let short = w.chars().count() < if function_word && two_letter_words { 2 } else { 3 };
        if short || left.contains(&w) {
            continue;
        }
        let english = if latin_script(lang) {
            // English courtesy words are English wherever they come from: "…abuso di sostanze, sorry." translated
            // "excuse me", a word the source does not have.
            let courtesy = COURTESY_IS_ENGLISH_IN.contains(&lang) && ENGLISH_COURTESY.contains(&lw.as_str());
            (lower(w) || function_word || courtesy)
                && (source_words.contains(&lw) || courtesy)
                && (function_word || courtesy || clearly_english(lang).is_some_and(|e| e.contains(lw.as_str())))
                && !vocabulary(lang).is_some_and(|v| v.contains(lw.as_str()))
                && !LOANWORDS.contains(&lw.as_str())
        } else if !w.chars().all(latin) || LATIN_IN_OTHER_SCRIPTS.contains(&lw.as_str()) {
            false
        } else if lower(w) {
            true
        } else {
            // Capitalised: a name or a brand ("Netflix", "Kylo Ren") when the source writes it so, even first in a
            // sentence ("Apple makes…"), or an acronym; otherwise a common English word is English
            // ("何か Aunt、Uncle、 Cousin？" for "what about all aunts, uncles, cousins?").
            // Interjections and -ly adverbs open English sentences but are never names ("Wow、", "Hopefully、").
            let acronym = w.chars().filter(|c| c.is_alphabetic()).all(char::is_uppercase);
            let as_a_name = source_words_as_written.contains(w) && !NOT_NAMES.contains(&w) && !lw.ends_with("ly");
            !acronym && !as_a_name && (function_word || common_english(&lw))
        };
        if english {
            left.push(w);
        }
    }
    (!left.is_empty()).then(|| {
        let shown: Vec<String> = left.iter().take(5).map(|w| format!("{w:?}")).collect();
        let more = if left.len() > 5 { format!(" and {} more", left.len() - 5) } else { String::new() };
        format!("English left in the translation: {}{more}", shown.join(", "))
    })
}

/// `w` cut where it changes between `latin` characters and others: "crazyです" → "crazy", "です".
fn script_runs(w: &str, latin: impl Fn(char) -> bool) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev: Option<bool> = None;
    for (i, c) in w.char_indices() {
        let l = latin(c);
        if prev.is_some_and(|p| p != l) {
            out.push(&w[start..i]);
            start = i;
        }
        prev = Some(l);
    }
    if start < w.len() {
        out.push(&w[start..]);
    }
    out
}

/// Whether `candidate` is still (mostly) English, with the evidence.
fn untranslated(lang: Lang, source: &str, candidate: &str) -> Option<String> {
    let letters = |s: &str| s.chars().filter(|c| c.is_alphabetic()).count();
    if letters(source) < 8 || letters(candidate) == 0 {
        return None;
    }
    if candidate.trim().eq_ignore_ascii_case(source.trim()) {
        return Some("identical to the English source".into());
    }
    let script = |c: char| {
        if latin_script(lang) {
            c.is_alphabetic()
        } else {
            Script::of(c).is_some_and(|s| Script::of_language(lang).contains(&s))
        }
    };
    let native = candidate.chars().filter(|c| script(*c)).count();
    if !latin_script(lang) && native * 4 < letters(candidate) {
        return Some(format!(
            "only {native} of {} letters are in the {} script",
            letters(candidate),
            lang.name()
        ));
    }
    let words: Vec<String> = candidate
        .split(|c: char| !c.is_alphabetic() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let english = words.iter().filter(|w| ENGLISH.contains(&w.as_str())).count();
    (words.len() >= 4 && english >= 3 && english * 4 >= words.len())
        .then(|| format!("{english} of {} words are English function words", words.len()))
}

/// Whether the number `n` (as [`numbers`] writes it) is in `candidate` as a Japanese word: small numbers are often
/// written in kanji (三冊) or, in titles, in katakana ("Big Hero 6" → ビッグ・ヒーロー・シックス).
fn small_number_in_words(lang: Lang, n: &str, candidate: &str) -> bool {
    const KANJI: [&str; 11] = ["〇", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十"];
    const KATAKANA: [&str; 11] = ["ゼロ", "ワン", "ツー", "スリー", "フォー", "ファイブ", "シックス", "セブン", "エイト", "ナイン", "テン"];
    lang == Lang::Ja
        && n.parse::<usize>().ok().filter(|&i| i <= 10).is_some_and(|i| candidate.contains(KANJI[i]) || candidate.contains(KATAKANA[i]))
}

/// The numbers written with digits (ASCII, full-width or Devanagari), thousands and decimal separators removed so
/// "1,000" and "1.000" compare equal.
pub fn numbers(s: &str) -> Vec<String> {
    let digit = |c: char| match c {
        '0'..='9' => Some(c),
        '\u{FF10}'..='\u{FF19}' => char::from_u32(c as u32 - 0xFF10 + '0' as u32),
        '\u{0966}'..='\u{096F}' => char::from_u32(c as u32 - 0x0966 + '0' as u32),
        _ => None,
    };
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if let Some(d) = digit(c) {
            cur.push(d);
        } else if matches!(c, ',' | '.' | ' ' | '\u{202F}' | '\u{00A0}')
            && !cur.is_empty()
            && chars.get(i + 1).and_then(|n| digit(*n)).is_some()
            && c != ' '
        {
            continue;
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.sort();
    out
}

/// Capitalised words inside a sentence that look like names (a sentence's first word carries no information).
fn names(source: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut sent_start = true;
    for w in source.split_inclusive(|c: char| c.is_whitespace()) {
        let word = w.trim().trim_matches(|c: char| !c.is_alphanumeric());
        let ends = w.trim_end().ends_with(['.', '!', '?', ':', '"']);
        if !sent_start
            && word.chars().count() >= 3
            && word.chars().next().is_some_and(char::is_uppercase)
            && word.chars().all(|c| c.is_ascii_alphabetic())
            && !NOT_NAMES.contains(&word)
            && !EN_DATES.contains(&word.to_lowercase().as_str())
        {
            out.push(word);
        }
        if !w.trim().is_empty() {
            sent_start = ends;
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issues(lang: Lang, s: &str, c: &str) -> Vec<MeaningIssue> {
        check(lang, s, c).into_iter().map(|f| f.issue).collect()
    }

    /// The 1.5B model wrote 荷兰 (simplified Chinese) for オランダ in a Japanese translation on the development
    /// split; the other sentences are written for this test.
    #[test]
    fn another_languages_script_is_flagged_and_the_targets_own_is_not() {
        let s = "The Dutch are building a commuter bus that runs at 160 km/h.";
        let flagged = |lang, c: &str| foreign_script(lang, s, c);
        let d = flagged(Lang::Ja, "現在、荷兰は時速160キロで走る通勤バスを作っています。").unwrap();
        assert_eq!(d, "Chinese characters in the Japanese translation: \"荷兰\"");
        assert!(flagged(Lang::Ja, "这个バスは時速160キロで走ります。").unwrap().contains("这个"));
        assert_eq!(issues(Lang::Ja, s, "現在、荷兰は時速160キロで走る通勤バスを作っています。"), [MeaningIssue::WrongScript]);
        // Japanese of every kind: kanji (jōyō, jinmeiyō, old forms in names), hiragana, katakana, the long-vowel mark.
        for ok in ["オランダ人は時速160キロで走る通勤バスを作っています。", "髙橋さんと齋藤さんは龍ヶ崎に住んでいます。", "ラーメンを食べに行こうよ！"] {
            assert_eq!(flagged(Lang::Ja, ok), None, "{ok}");
        }
        assert!(flagged(Lang::Ja, "오늘은 バスで行きます。").unwrap().starts_with("Korean letters"));
        assert!(flagged(Lang::De, "Die Niederländer bauen einen 很快的 Bus.").unwrap().starts_with("Chinese characters in the German"));
        assert!(flagged(Lang::Ko, "네덜란드 사람들은 バス를 만들고 있어요.").unwrap().starts_with("Japanese kana"));
        assert!(flagged(Lang::Hi, "डच लोग автобус बना रहे हैं।").unwrap().starts_with("Cyrillic letters"));
        assert!(flagged(Lang::Ru, "Голландцы строят बस.").unwrap().starts_with("Devanagari"));
        // A look-alike letter inside a word is named with its word (the 0.5B model wrote "escolа" with a Cyrillic а).
        assert_eq!(
            flagged(Lang::Pt, "Tens de ir para a escolа."),
            Some("Cyrillic letters in the Portuguese (European) translation: \"а\" inside \"escolа\"".into())
        );
        // Look-alikes are put right where the word around them says which alphabet it is in.
        assert_eq!(fix_lookalikes(Lang::Pt, "Tens de ir para a escolа."), Some("Tens de ir para a escola.".into()));
        assert_eq!(fix_lookalikes(Lang::De, "Das Hаus (und Москва)."), Some("Das Haus (und Москва).".into()));
        assert_eq!(fix_lookalikes(Lang::Ru, "Это мой cтол."), Some("Это мой стол.".into()));
        for (lang, untouched) in [(Lang::Pt, "Tens de ir para a escola."), (Lang::Pt, "Москва é bonita."), (Lang::Ja, "escolа"), (Lang::Ru, "Это мой iPhone.")] {
            assert_eq!(fix_lookalikes(lang, untouched), None, "{untouched}");
        }
        // Korean keeps its hanja; a name the source itself writes in its own script is not a slip.
        assert_eq!(flagged(Lang::Ko, "한국(韓國)의 버스는 빠릅니다."), None);
        assert_eq!(foreign_script(Lang::De, "Have you been to 東京?", "Waren Sie schon in 東京?"), None);
        assert_eq!(flagged(Lang::Fr, "Les Néerlandais construisent un bus (π ≈ 3,14)."), None);
    }

    #[test]
    fn refusals_are_caught_but_a_translated_apology_is_not() {
        assert_eq!(
            issues(
                Lang::Ja,
                "Where do you want me to send it?",
                "申し訳ありませんが、その翻訳はできません。"
            ),
            [MeaningIssue::Refusal]
        );
        assert!(issues(
            Lang::Es,
            "Where do you want me to send it?",
            "Como modelo de lenguaje, no puedo ayudar."
        )
        .contains(&MeaningIssue::Refusal));
        assert!(issues(
            Lang::De,
            "Where do you want me to send it?",
            "I'm sorry, but I cannot translate this."
        )
        .contains(&MeaningIssue::Refusal));
        assert!(issues(
            Lang::Es,
            "I'm sorry, but I can't come tomorrow.",
            "Lo siento, pero no puedo ir mañana."
        )
        .is_empty());
    }

    #[test]
    fn english_left_in_place_is_untranslated() {
        let s = "What do you think about the new movie?";
        assert_eq!(issues(Lang::Fr, s, s), [MeaningIssue::Untranslated]);
        assert_eq!(
            issues(Lang::Ru, s, "What do you think about the new фильм?"),
            [MeaningIssue::Untranslated]
        );
        assert!(issues(Lang::Ru, s, "Что ты думаешь о новом фильме?").is_empty());
        assert!(issues(Lang::Nl, s, "Wat vind je van de nieuwe film?").is_empty());
    }

    /// Seen on the development split with the 1.5B model: good French translations flagged for names a translator
    /// rightly translates (places, institutions) or writes in lower case.
    #[test]
    fn translated_places_and_titles_are_kept_names_and_a_dropped_person_is_not() {
        let kept = [
            ("It is available everywhere except China, Syria, Italy and Crimea.", "Il est disponible partout sauf en Chine, en Syrie, en Italie et en Crimée."),
            ("Can I watch your member of the House of Representatives?", "Puis-je voir votre membre de la Chambre des représentants ?"),
            ("I would use a rocket launcher LOL. Do you watch football?", "J'utiliserais un lance-roquettes lol. Regardez-vous le football ?"),
            ("We flew to London on Monday.", "Nous avons pris l'avion pour Londres lundi."),
            // An institution, a country and an acronym by their meaning (the development split, 1.5B model).
            ("Can you see your average House member doing long division?", "Pouvez-vous imaginer un membre moyen de la Chambre faire une longue division ?"),
            ("My extended family is out of States.", "Ma famille élargie vit hors des États-Unis."),
            ("May I also get your ZIP code and street name, please?", "Puis-je aussi avoir votre code postal et le nom de votre rue ?"),
            ("Did you ask Mom about it?", "As-tu demandé à maman ?"),
            // A title joined by "the" under its published name (seen in the French and Italian development runs).
            ("Have you seen Beauty and the Beast yet?", "Avez-vous déjà vu La Belle et la Bête ?"),
            ("Have you seen Beauty and the Beast yet?", "Ha già visto La Bella e la Bestia?"),
        ];
        for (source, output) in kept {
            assert!(!issues(Lang::Fr, source, output).contains(&MeaningIssue::Name), "{output:?}: {:?}", check(Lang::Fr, source, output));
        }
        let dropped = [
            ("Did you see Peter and Mary at the party?", "Avez-vous vu Peter à la fête ?", "Mary"),
            ("My friend Giorgio lives in Brooklyn.", "Mon ami habite à New York.", "Giorgio"),
            // A brand is not an institution: dropping it is still caught.
            ("Lego replaced Ferrari as the most powerful brand.", "Lego a remplacé la marque la plus puissante.", "Ferrari"),
            // A title left out altogether is still caught.
            ("Have you seen Beauty and the Beast yet?", "Avez-vous déjà vu le film ?", "Beauty"),
        ];
        for (source, output, name) in dropped {
            let flags = check(Lang::Fr, source, output);
            assert!(flags.iter().any(|f| f.issue == MeaningIssue::Name && f.detail.contains(name)), "{output:?}: {flags:?}");
        }
    }

    #[test]
    fn yesterday_today_and_tomorrow_are_kept() {
        let day = |lang, src, out| check(lang, src, out).into_iter().find(|f| f.issue == MeaningIssue::Date).map(|f| f.detail);
        // The 0.5B model's German in the Windows package check (scripts/test-windows.sh), 2026-11-29.
        let src = "Thank you for your help, I will call you tomorrow.";
        assert_eq!(
            day(Lang::De, src, "Vielen Dank für Ihre Hilfe, ich werde Ihnen heute anrufen.").as_deref(),
            Some("\"tomorrow\" became \"heute\" (today)")
        );
        assert_eq!(day(Lang::De, src, "Vielen Dank für Ihre Hilfe, ich rufe Sie morgen an."), None);
        assert!(day(Lang::Fr, "I saw it yesterday.", "Je l'ai vu aujourd'hui.").is_some());
        assert!(day(Lang::Ja, "See you tomorrow!", "また今日会いましょう！").is_some());
        assert!(day(Lang::Hi, "I will call you tomorrow.", "मैं आज आपको फ़ोन करूँगा।").is_some());
        assert_eq!(day(Lang::Hi, "I will call you tomorrow.", "मैं कल आपको फ़ोन करूँगा।"), None);
        // "heute Morgen" (this morning) still says today; "hierarchie" holds no "hier"; two days in the source are
        // left alone.
        assert_eq!(day(Lang::De, "I saw him today.", "Ich habe ihn heute Morgen gesehen."), None);
        assert_eq!(day(Lang::Fr, "Today we discuss the hierarchy.", "Aujourd'hui, nous parlons de la hiérarchie."), None);
        assert_eq!(day(Lang::De, "Not today, tomorrow.", "Nicht heute, sondern übermorgen."), None);
    }

    #[test]
    fn small_numbers_written_as_japanese_words_are_kept() {
        assert!(!issues(Lang::Ja, "Have you ever seen Big Hero 6?", "ビッグ・ヒーロー・シックスを見たことはありますか？").contains(&MeaningIssue::Number));
        assert!(!issues(Lang::Ja, "I bought 3 books.", "本を三冊買いました。").contains(&MeaningIssue::Number));
        assert!(issues(Lang::Ja, "I bought 3 books.", "本を四冊買いました。").contains(&MeaningIssue::Number));
        assert!(issues(Lang::Ja, "I bought 12 books.", "本を十冊買いました。").contains(&MeaningIssue::Number));
    }

    #[test]
    fn changed_or_dropped_numbers_dates_and_names_are_flagged() {
        let s = "Can you meet Anna on Friday at 3, in room 1,204?";
        assert!(issues(Lang::Es, s, "¿Puedes ver a Anna el viernes a las 3, en la sala 1.204?").is_empty());
        let bad = issues(Lang::Es, s, "¿Puedes ver a Ana el jueves a las 4, en la sala 1.204?");
        assert!(
            bad.contains(&MeaningIssue::Number)
                && bad.contains(&MeaningIssue::Date)
                && bad.contains(&MeaningIssue::Name),
            "{bad:?}"
        );
        assert_eq!(
            issues(Lang::Hi, "I have 25 books.", "मेरे पास २५ किताबें हैं।"),
            Vec::<MeaningIssue>::new()
        );
        assert_eq!(
            issues(Lang::Ja, "I have 25 books.", "本が２５冊あります。"),
            Vec::<MeaningIssue>::new()
        );
        assert_eq!(
            issues(Lang::Ko, "See you on Monday.", "화요일에 봐요."),
            [MeaningIssue::Date]
        );
        assert!(
            issues(Lang::De, "You may go.", "Sie dürfen gehen.").is_empty(),
            "the verb may is no month"
        );
        // The modal opening a later sentence is no month either (the Portuguese development run, 1.5B model).
        assert!(issues(Lang::Pt, "Nice chatting with you as well! May your winter end soon. :)", "Também foi bom falar consigo! Espero que o seu inverno termine em breve. :)").is_empty());
        assert!(issues(Lang::Fr, "Thanks. May I ask you something?", "Merci. Puis-je vous demander quelque chose ?").is_empty());
        assert_eq!(issues(Lang::Fr, "We last met in May.", "Nous nous sommes vus pour la dernière fois en juin."), [MeaningIssue::Date]);
        assert_eq!(issues(Lang::Pt, "The shop opens on 3 May.", "A loja abre a 3 de junho."), [MeaningIssue::Date]);
        assert_eq!(issues(Lang::Fr, "The offer ends soon (May 31).", "L'offre se termine bientôt (31 juin)."), [MeaningIssue::Date]);
    }
}

/// Sonkeigo verbs: they raise whoever does the action, so never the speaker ("いらっしゃる", "召し上がる").
const SONKEIGO: &[&str] = &["いらっしゃ", "召し上が", "おっしゃ", "ご覧にな", "なさいま", "なさる", "なさった", "お越しにな", "ご存知", "ご存じ", "お見えにな"];
/// Kenjōgo verbs: they lower whoever does the action, so never the listener or a customer ("参ります", "申します").
const KENJOGO: &[&str] = &["参り", "参る", "申し上げ", "申しま", "申す", "伺", "拝見", "拝読", "いたしま", "致しま", "いたす", "差し上げ", "存じま", "お目にかか", "おります"];
/// Not kenjōgo although they start like it: 申し込む (apply), 申し訳 (apology), 参加/参考 never match 参り/参る.
const KENJOGO_LOOKALIKES: &[&str] = &["申し込", "申し訳", "申し出", "申請"];
/// Subjects that are the speaker (or the speaker's side) and the listener (or a customer, a teacher: someone the
/// text raises), each followed by は or が.
const SPEAKER: &[&str] = &["私", "わたし", "わたくし", "僕", "ぼく", "俺", "弊社", "当社", "我々", "私たち", "私ども", "わたしたち"];
const LISTENER: &[&str] = &["あなた", "お客様", "お客さま", "皆様", "皆さま", "皆さん", "先生", "貴社", "御社", "貴方", "社長"];

/// The honorific of a Japanese sentence used for the wrong person: per sentence, the subject nearest before each
/// sonkeigo or kenjōgo verb (a word of [`SPEAKER`] or [`LISTENER`] followed by は/が) decides who acts.
fn honorific_for_the_wrong_person(candidate: &str) -> Option<String> {
    for sentence in candidate.split_inclusive(['。', '！', '？', '!', '?', '\n']) {
        // (byte position, the subject's text, whether it is the speaker's side), each followed by は or が.
        let mut subjects: Vec<(usize, &str, bool)> = Vec::new();
        for (list, speaker) in [(SPEAKER, true), (LISTENER, false)] {
            for w in list {
                for p in ["は", "が"] {
                    for (i, _) in sentence.match_indices(&format!("{w}{p}")) {
                        subjects.push((i, &sentence[i..i + w.len()], speaker));
                    }
                }
            }
        }
        // The speaker's side too: "弊社の担当者が", "私の母は" (a short noun after の, then は/が).
        for w in SPEAKER {
            let pat = format!("{w}の");
            for (i, _) in sentence.match_indices(&pat) {
                let rest = &sentence[i + pat.len()..];
                for (k, c) in rest.char_indices().take(8) {
                    match c {
                        'が' | 'は' if k > 0 => {
                            subjects.push((i, &sentence[i..i + pat.len() + k], true));
                            break;
                        }
                        'を' | 'に' | 'で' | 'と' | 'も' | 'の' | '、' | '。' => break,
                        _ => {}
                    }
                }
            }
        }
        let nearest = |at: usize| -> Option<(&str, bool)> {
            subjects
                .iter()
                .filter(|(i, w, _)| i + w.len() <= at)
                .max_by_key(|(i, w, _)| (*i + w.len(), w.len()))
                .map(|&(_, w, speaker)| (w, speaker))
        };
        for verb in SONKEIGO {
            for (at, _) in sentence.match_indices(verb) {
                // "ご存知の通り" (as you know) is about the listener whoever the sentence's subject is.
                let after = &sentence[at + verb.len()..];
                if verb.starts_with('ご') && ["の通り", "のとおり", "のように", "の方"].iter().any(|p| after.starts_with(p)) {
                    continue;
                }
                if let Some((who, true)) = nearest(at) {
                    return Some(format!("sonkeigo {verb:?} raises the speaker's own action (subject {who:?}): use a humble (kenjōgo) or plain polite verb"));
                }
            }
        }
        for verb in KENJOGO {
            for (at, _) in sentence.match_indices(verb) {
                if KENJOGO_LOOKALIKES.iter().any(|l| sentence[at..].starts_with(l)) || (*verb == "存じま" && sentence[..at].ends_with('ご')) {
                    continue;
                }
                if let Some((who, false)) = nearest(at) {
                    return Some(format!("kenjōgo {verb:?} lowers the listener's action (subject {who:?}): use a respectful (sonkeigo) verb"));
                }
            }
        }
    }
    None
}

/// English negations, as whole lower-case words ("don't" is split at the apostrophe into "don" + "t").
const EN_NEGATIONS: &[&str] = &[
    "not", "no", "never", "nothing", "nobody", "none", "nowhere", "neither", "nor", "cannot", "t", "without",
    // Chat spelling without the apostrophe.
    "dont", "doesnt", "didnt", "cant", "isnt", "arent", "wasnt", "werent", "havent", "hasnt", "hadnt", "wouldnt",
    "couldnt", "shouldnt", "aint",
];
/// English negations that are set phrases rather than a negated statement ("no problem", "not only…but").
/// Tag questions ask for agreement ("…, don't you think?" → "…ですよね"), and "or not", "can't believe", "not any
/// more" are mostly rendered without a negation by good translators (measured on the held-out references).
const EN_NOT_NEGATING: &[&str] = &[
    "no problem", "not only", "no matter", "no doubt", "no longer", "can't wait", "cannot wait", "no one else", "or not",
    "can't believe", "cannot believe", "not any more", "not anymore", "don't you think", "isn't it", "isn't that",
    "wasn't it", "doesn't it", "don't they", "aren't they", "aren't you", "don't you agree", "why not",
    "nothing but", "no worries",
];

/// Negation in each target language: whole words for the ones written with spaces, substrings for Japanese (ない,
/// ません, ず…) and Korean (않, 안, 못, 없…).
fn negations(lang: Lang) -> (&'static [&'static str], &'static [&'static str]) {
    match lang {
        Lang::De => (&["nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals", "nichts", "niemand", "nirgends", "weder", "ohne", "kaum"], &[]),
        Lang::Es => (&["no", "nunca", "nada", "nadie", "ningún", "ninguna", "ninguno", "ni", "jamás", "tampoco", "sin"], &[]),
        Lang::Fr => (&["ne", "n", "pas", "jamais", "rien", "personne", "aucun", "aucune", "ni", "sans", "non", "guère"], &[]),
        Lang::It => (&["non", "no", "mai", "niente", "nulla", "nessuno", "nessuna", "nessun", "né", "senza", "neanche", "nemmeno", "neppure"], &[]),
        Lang::Pt => (&["não", "nunca", "nada", "ninguém", "nenhum", "nenhuma", "nem", "sem", "jamais"], &[]),
        Lang::Nl => (&["niet", "geen", "nooit", "niets", "niemand", "nergens", "zonder", "noch", "nee"], &[]),
        Lang::Ru => (&["не", "нет", "никогда", "ничего", "ничто", "никто", "нигде", "ни", "без", "нельзя"], &[]),
        Lang::Hi => (&["नहीं", "न", "मत", "बिना", "कभी", "कोई"], &[]),
        Lang::Vi => (&["không", "chưa", "đừng", "chẳng", "chả", "chớ", "thiếu"], &[]),
        Lang::Ja => (&[], &["ない", "なく", "ません", "ず", "ぬ", "無", "なし", "なかっ", "じゃな", "ではな", "いいえ", "いや、", "いえ、", "不", "未", "非"]),
        Lang::Ko => (&[], &["않", "안 ", "못", "없", "말", "마세요", "마십시오", "지 마", "아니", "아뇨", "불", "미", "비"]),
    }
}

/// The English negation `text` states, as its user reads it ("n't", "never"), or `None`: set phrases such as "no
/// problem" and tag questions do not count (see `EN_NOT_NEGATING`).
pub fn english_negation(text: &str) -> Option<&'static str> {
    let src = text.to_lowercase().replace('’', "'");
    if EN_NOT_NEGATING.iter().any(|p| src.contains(p)) {
        return None;
    }
    first_negation_word(&src)
}

/// The first English negation word of the lower-case `src`, set phrases included.
pub(crate) fn first_negation_word(src: &str) -> Option<&'static str> {
    let words: Vec<&str> = src.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    // "t" counts only after "n" ("don't", "can't", "isn't"); "no" as a determiner or an answer.
    let i = (0..words.len()).find(|&i| EN_NEGATIONS.contains(&words[i]) && (words[i] != "t" || i > 0 && words[i - 1].ends_with('n')))?;
    EN_NEGATIONS.iter().find(|n| **n == words[i]).map(|n| if *n == "t" { "n't" } else { *n })
}

/// Whether `text`, written in `lang`, has a negation word anywhere (a rough test: Japanese and Korean by the
/// substrings that negate, which also occur elsewhere).
pub fn has_negation(lang: Lang, text: &str) -> bool {
    let mut t = text.to_lowercase();
    if lang == Lang::Ja {
        // "かもしれません" (might) and "すみません" (excuse me) end in ません and negate nothing: counted, they hid a
        // lost negation and an opposite word in the same translation.
        t = t.replace("かもしれません", "かもしれる").replace("すみません", "すみます");
    }
    let (whole, parts) = negations(lang);
    t.split(|c: char| !c.is_alphanumeric() && !matches!(c, '\u{0900}'..='\u{097F}')).any(|w| whole.contains(&w)) || parts.iter().any(|p| t.contains(p))
}

/// The source is negated and the candidate has no negation anywhere (see [`MeaningIssue::Negation`]).
fn negation_lost(lang: Lang, source: &str, candidate: &str) -> Option<String> {
    let word = english_negation(source)?;
    if has_negation(lang, candidate) || candidate.trim().is_empty() {
        return None;
    }
    Some(format!("the source says {word:?} and the translation has no negation: its meaning may be reversed"))
}
