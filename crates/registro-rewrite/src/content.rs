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
    /// The flag as a writer reads it ([`ContentFlag::message`]).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
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
/// rewrite ("before", "great", "tonight", "forever") rightly has no digit, and so is a lone "4" or "2" standing
/// for a word ("thanks 4 the help", "talk 2 u", "me 2": [`crate::lexicon::chat_digit`]), while "5pm", "3rd",
/// "10k", "4 apples" and "at 4" are numbers.
fn numbers(lang: Lang, s: &str) -> Vec<String> {
    let mut s = s.to_string();
    for (r, _) in crate::lexicon::chat_digits(lang, &s.clone()) {
        s.replace_range(r, " ");
    }
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
    let (a, b) = (numbers(lang, input), numbers(lang, candidate));
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
    // A chat digit the rules spelled out ("4" → "for") that the candidate writes again as a chat digit.
    let digits_back: Vec<&str> = crate::lexicon::chat_digits(lang, candidate).into_iter().map(|(r, _)| &candidate[r]).collect();
    for e in rule_edits {
        let before = e.before.trim();
        if e.kinds.contains(&crate::rules::EditKind::Abbreviation) && digits_back.contains(&before) && !out.iter().any(|f| f.detail.starts_with(&format!("{before:?}"))) {
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

    /// Chat spellings ("4", "2", "u", "b4", "gr8", "l8r") are words, never numbers a rewrite must keep; real
    /// numbers ("4 apples", "at 4 pm", "2024") still are.
    #[test]
    fn chat_spellings_are_not_numbers_but_real_numbers_are() {
        for (input, good) in [
            ("thanks 4 the help!!", "Thanks for the help!"),
            ("thanks 4 the help!!", "Thanks 4 the help!"),
            ("talk 2 u l8r", "I will talk to you later."),
            ("me 2", "Me too."),
            ("i want 2 see u b4 u go", "I would like to see you before you leave."),
            ("gr8 job 4 real", "Great job, truly."),
            ("thx 4 coming 2nite", "Thank you for coming tonight."),
        ] {
            assert_eq!(issues(Lang::En, input, good), vec![], "{input:?} → {good:?}");
        }
        for (input, bad) in [
            ("i want 4 apples", "I want apples."),
            ("i want 4 apples", "I want some apples."),
            ("meet me at 4 pm", "Meet me in the afternoon."),
            ("see u in 2024", "See you next year."),
            ("i got 2", "I got some."),
            ("2 of them came", "Some of them came."),
            ("give me 2.5 kg", "Give me the flour."),
        ] {
            assert_eq!(issues(Lang::En, input, bad), vec![ContentIssue::Number], "{input:?} → {bad:?}");
        }
        // A number the candidate invents is still one, even where a chat "4" would be a word.
        assert_eq!(issues(Lang::En, "thanks 4 the help", "Thanks for the 4 helpers."), vec![ContentIssue::Number]);
        // Other languages have no chat digits: a lone digit is a number.
        assert_eq!(issues(Lang::Pt, "obg 4 tudo", "Obrigado por tudo."), vec![ContentIssue::Number]);
    }

    #[test]
    fn a_chat_digit_the_rules_spelled_out_is_flagged_when_it_comes_back() {
        let rules = crate::rules::formalize("thanks 4 the help!!", Lang::En);
        assert_eq!(rules.text, "Thanks for the help!");
        let f = check(Lang::En, "thanks 4 the help!!", "Thanks 4 the help!", &rules.edits, &[]);
        assert_eq!(f.iter().map(|f| f.issue).collect::<Vec<_>>(), vec![ContentIssue::UndoesRule]);
        assert_eq!(f[0].to_string(), "The informal “4” is back.");
        assert_eq!(check(Lang::En, "thanks 4 the help!!", "Thank you for your help.", &rules.edits, &[]), vec![]);
    }

    #[test]
    fn locked_words_and_undone_rule_fixes_are_flagged() {
        let f = check(Lang::En, "the API sucks", "The interface is poor.", &[], &["API".into()]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].to_string(), "The word “API” you asked to keep is missing.");
        let edit = Edit { kinds: vec![], src: (0, 5), dst: (0, 8), before: "gonna".into(), after: "going to".into() };
        let f = check(Lang::En, "gonna go", "I am gonna go.", &[edit], &[]);
        assert_eq!(f.iter().map(|f| f.issue).collect::<Vec<_>>(), vec![ContentIssue::UndoesRule]);
    }
}
