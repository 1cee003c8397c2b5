//! What a rewrite must not change: the content of the sentence. A formal rewrite that drops a number, invents a
//! time, loses a name, flips a negation, loses a word the writer locked or undoes a spelling fix the rules made is
//! wrong however formal it reads, so the chooser demotes it and the writer sees why. Same-language checks only
//! (translation candidates are checked by `registro_register::meaning`, whose number reader this reuses).

use serde::{Deserialize, Serialize};

use crate::rules::Edit;
use crate::Lang;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ContentIssue {
    /// A number of the input is missing, or the candidate has one the input does not.
    Number,
    /// A name of the input is missing.
    Name,
    /// The input says no and the candidate does not, or the other way round.
    Negation,
    /// A word the writer locked is missing.
    Locked,
    /// The candidate brings back an informal form the rules had fixed ("gonna", "u").
    UndoesRule,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ContentFlag {
    pub issue: ContentIssue,
    /// What was lost or added, for the writer: `3 missing`, `"Anna" missing`, `"gonna" is back`.
    pub detail: String,
}

impl std::fmt::Display for ContentFlag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.issue {
            ContentIssue::Number => "number",
            ContentIssue::Name => "name",
            ContentIssue::Negation => "negation",
            ContentIssue::Locked => "locked word",
            ContentIssue::UndoesRule => "informal form",
        };
        write!(f, "{what}: {}", self.detail)
    }
}

/// Words that make a clause negative, lower-cased. Informal spellings count too ("dont", "nn", "pas" without "ne"),
/// since the input is informal; any one of them marks the sentence as negated.
fn negators(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::En => &[
            "not", "no", "never", "nothing", "nobody", "none", "nowhere", "neither", "nor", "cannot", "cant", "dont",
            "doesnt", "didnt", "wont", "isnt", "arent", "wasnt", "werent", "havent", "hasnt", "shouldnt", "wouldnt",
            "couldnt", "hadnt", "mustnt", "neednt", "aint", "nope", "without",
        ],
        Lang::Pt => &["não", "nao", "n", "nunca", "nada", "ninguém", "ninguem", "nem", "nenhum", "nenhuma", "jamais", "sem"],
        Lang::Fr => &["pas", "jamais", "rien", "aucun", "aucune", "ni", "nul", "nulle", "sans", "guère"],
        Lang::It => &["non", "nn", "mai", "niente", "nulla", "nessuno", "nessuna", "né", "senza", "neanche", "nemmeno", "neppure"],
        Lang::De => &["nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals", "nichts", "niemand", "ohne"],
        Lang::Es => &["no", "nunca", "nada", "nadie", "ningún", "ninguno", "ninguna", "jamás", "tampoco", "ni", "sin"],
        Lang::Hi => &["नहीं", "न", "मत", "बिना"],
        Lang::Ja => &[],
    }
}

fn words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace(['\'', '’'], ""))
}

fn negated(lang: Lang, s: &str) -> bool {
    let neg = negators(lang);
    words(s).any(|w| neg.contains(&w.as_str()))
}

/// Capitalised words that are not at a sentence start and not common capitalised words: probably names. Informal
/// input often writes names in lower case; those cannot be told from words and are not checked.
fn names(s: &str) -> Vec<String> {
    const NOT_NAMES: &[&str] = &[
        "I", "I'm", "I've", "I'll", "I'd", "OK", "Ok", "Okay", "God", "TV", "Oh", "Yeah", "Hey", "Hi", "Hello", "Mr", "Mrs", "Ms", "Dr",
        "LOL", "OMG", "Lol", "Omg",
    ];
    let mut out = Vec::new();
    let mut start = true;
    for w in s.split_whitespace() {
        let word = w.trim_matches(|c: char| !c.is_alphanumeric());
        if !start && word.chars().count() >= 2 && word.chars().next().is_some_and(char::is_uppercase) && !NOT_NAMES.contains(&word)
            // An all-caps word in a draft is as often shouting ("it was SOOO good") as an acronym; the writer locks
            // the acronyms that matter.
            && word.chars().any(char::is_lowercase)
        {
            out.push(word.to_string());
        }
        start = w.ends_with(['.', '!', '?', ':']);
    }
    out.sort();
    out.dedup();
    out
}

/// The numbers of a text, without the digits of chat spellings: "b4", "gr8", "2nite" and "4ever" are words whose
/// rewrite ("before", "great", "tonight", "forever") rightly has no digit, while "5pm", "3rd" and "10k" are numbers.
fn numbers(s: &str) -> Vec<String> {
    const UNITS: &[&str] = &["am", "pm", "st", "nd", "rd", "th", "k", "m", "h", "hr", "hrs", "min", "mins", "s", "kg", "km", "g", "mb", "gb", "x", "ish"];
    let kept: Vec<&str> = s
        .split(|c: char| c.is_whitespace() || (c.is_ascii_punctuation() && !matches!(c, '.' | ',' | ':' | '%' | '$' | '€' | '£')))
        .filter(|w| {
            let letters_at = w.find(char::is_alphabetic);
            let digits_at = w.find(|c: char| c.is_ascii_digit());
            match (letters_at, digits_at) {
                (Some(l), Some(d)) if l < d => false,
                (Some(l), Some(_)) => UNITS.contains(&w[l..].trim_end_matches(['.', ',', ':']).to_lowercase().as_str()),
                _ => true,
            }
        })
        .collect();
    registro_register::meaning::numbers(&kept.join(" "))
}

fn contains_word(hay: &str, needle: &str) -> bool {
    let n = needle.to_lowercase();
    let h = hay.to_lowercase();
    h.match_indices(&n).any(|(i, _)| {
        let before = h[..i].chars().next_back();
        let after = h[i + n.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Every content problem of `candidate` as a rewrite of `input`. `rule_edits` are the formalizer's edits on the
/// input (an informal form they removed must not come back); `locked` the words the writer locked.
pub fn check(lang: Lang, input: &str, candidate: &str, rule_edits: &[Edit], locked: &[String]) -> Vec<ContentFlag> {
    let mut out = Vec::new();
    let flag = |issue, detail: String| ContentFlag { issue, detail };
    let (a, b) = (numbers(input), numbers(candidate));
    let missing: Vec<&str> = a.iter().filter(|n| !b.contains(n)).map(String::as_str).collect();
    let added: Vec<&str> = b.iter().filter(|n| !a.contains(n)).map(String::as_str).collect();
    if !missing.is_empty() {
        out.push(flag(ContentIssue::Number, format!("{} missing", missing.join(", "))));
    }
    if !added.is_empty() {
        out.push(flag(ContentIssue::Number, format!("{} not in the input", added.join(", "))));
    }
    for n in names(input) {
        if !contains_word(candidate, &n) {
            out.push(flag(ContentIssue::Name, format!("{n:?} missing")));
        }
    }
    let (neg_in, neg_out) = (negated(lang, input), negated(lang, candidate));
    if neg_in != neg_out && !negators(lang).is_empty() {
        out.push(flag(ContentIssue::Negation, if neg_in { "the input's negation is gone".into() } else { "a negation the input does not have".into() }));
    }
    for w in locked.iter().map(|w| w.trim()).filter(|w| !w.is_empty()) {
        if contains_word(input, w) && !contains_word(candidate, w) {
            out.push(flag(ContentIssue::Locked, format!("{w:?} missing")));
        }
    }
    for e in rule_edits {
        let before = e.before.trim();
        // Only word replacements (not casing or punctuation) are worth guarding, and only when the word is gone
        // from the rules' output.
        if before.chars().filter(|c| c.is_alphabetic()).count() >= 2
            && !before.eq_ignore_ascii_case(e.after.trim())
            && !contains_word(&e.after, before)
            && candidate.split(|c: char| !c.is_alphanumeric() && c != '\'').any(|w| w == before)
        {
            out.push(flag(ContentIssue::UndoesRule, format!("{before:?} is back")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn issues(lang: Lang, a: &str, b: &str) -> Vec<ContentIssue> {
        check(lang, a, b, &[], &[]).into_iter().map(|f| f.issue).collect()
    }

    #[test]
    fn numbers_names_and_negation_are_content() {
        assert_eq!(issues(Lang::En, "meet me at 5pm with Anna", "Please meet me at 5 p.m. with Anna."), vec![]);
        assert_eq!(issues(Lang::En, "meet me at 5pm with Anna", "Please meet me this evening with Anna."), vec![ContentIssue::Number]);
        assert_eq!(issues(Lang::En, "gonna see it tonight", "I am going to see it tonight at 8."), vec![ContentIssue::Number]);
        // Chat spellings with digits are words, not numbers; units stuck to a number are still numbers.
        assert_eq!(issues(Lang::En, "ill send it b4 friday, gr8 c u 2nite", "I will send it before Friday; see you tonight."), vec![]);
        assert_eq!(issues(Lang::En, "the 3rd one costs 10k", "The third one costs 10,000."), vec![ContentIssue::Number, ContentIssue::Number]);
        assert_eq!(issues(Lang::En, "call me at 10am", "Please call me at 10 a.m."), vec![]);
        assert_eq!(issues(Lang::En, "i went with Mike and Sarah", "I went with Mike."), vec![ContentIssue::Name]);
        assert_eq!(issues(Lang::En, "i dont think so", "I think so."), vec![ContentIssue::Negation]);
        assert_eq!(issues(Lang::En, "i don't think so", "I do not believe so."), vec![]);
        assert_eq!(issues(Lang::En, "i want it", "I do not want it."), vec![ContentIssue::Negation]);
        assert_eq!(issues(Lang::Fr, "jsp trop", "Je ne sais pas vraiment."), vec![ContentIssue::Negation]);
        assert_eq!(issues(Lang::Fr, "je sais pas", "Je ne sais pas."), vec![]);
        assert_eq!(issues(Lang::It, "nn lo so", "Non lo so."), vec![]);
        assert_eq!(issues(Lang::Pt, "n sei", "Eu sei."), vec![ContentIssue::Negation]);
        // Shouting is not a name.
        assert_eq!(issues(Lang::En, "it was SOOO good", "It was very good."), vec![]);
    }

    #[test]
    fn locked_words_and_undone_rule_fixes_are_flagged() {
        let f = check(Lang::En, "the API sucks", "The interface is poor.", &[], &["API".into()]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].to_string(), "locked word: \"API\" missing");
        let edit = Edit { kinds: vec![], src: (0, 5), dst: (0, 8), before: "gonna".into(), after: "going to".into() };
        let f = check(Lang::En, "gonna go", "I am gonna go.", &[edit], &[]);
        assert_eq!(f.iter().map(|f| f.issue).collect::<Vec<_>>(), vec![ContentIssue::UndoesRule]);
    }
}
