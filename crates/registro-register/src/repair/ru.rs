//! Russian: ты ↔ вы and твой ↔ ваш by case, the 2sg verb ending -ешь/-ишь ↔ -ете/-ите, the singular imperative ↔
//! its -те form (`подожди` ↔ `подождите`, `садись` ↔ `садитесь`), and the agreement the pronoun governs: a past
//! tense or short adjective right after it takes the plural with вы (`ты был` ↔ `вы были`, `ты уверен` ↔ `вы
//! уверены`). Going back, only a verb next to вы is touched, and an -те imperative only when its singular is a
//! known one: a bare -ите is as often addressed to several people. The singular past is masculine: the source
//! gives no gender.
use super::{capitalise_if, table, Ctx, Edit};
use crate::lang::ru::{is_2sg_verb, TY_IMPERATIVES};

const PRON: &[(&str, &str)] = &[
    ("ты", "вы"),
    ("тебя", "вас"),
    ("тебе", "вам"),
    ("тобой", "вами"),
    ("тобою", "вами"),
    ("твой", "ваш"),
    ("твоя", "ваша"),
    ("твоё", "ваше"),
    ("твое", "ваше"),
    ("твои", "ваши"),
    ("твоего", "вашего"),
    ("твоей", "вашей"),
    ("твоему", "вашему"),
    ("твоим", "вашим"),
    ("твоих", "ваших"),
    ("твою", "вашу"),
    ("твоими", "вашими"),
    ("твоем", "вашем"),
    ("твоём", "вашем"),
];

fn to_2pl(w: &str) -> String {
    if let Some(to) = table(IRREGULAR_PRESENT, w, true) {
        return to.to_string();
    }
    let (stem, refl) = w.strip_suffix("ся").map(|s| (s, "сь")).unwrap_or((w, ""));
    let base = stem.strip_suffix("шь").unwrap_or(stem);
    format!("{base}те{refl}")
}

fn to_2sg(w: &str) -> Option<String> {
    if let Some(to) = table(IRREGULAR_PRESENT, w, false) {
        return Some(to.to_string());
    }
    let (stem, refl) = w.strip_suffix("сь").map(|s| (s, "ся")).unwrap_or((w, ""));
    let base = stem.strip_suffix("те")?;
    (base.ends_with('е') || base.ends_with('ё') || base.ends_with('и')).then(|| format!("{base}шь{refl}"))
}

/// Short adjectives that agree with the addressee (singular masculine, plural).
const SHORT_ADJECTIVES: &[(&str, &str)] = &[
    ("уверен", "уверены"),
    ("уверена", "уверены"),
    ("рад", "рады"),
    ("рада", "рады"),
    ("согласен", "согласны"),
    ("согласна", "согласны"),
    ("готов", "готовы"),
    ("готова", "готовы"),
    ("занят", "заняты"),
    ("занята", "заняты"),
    ("прав", "правы"),
    ("права", "правы"),
    ("должен", "должны"),
    ("должна", "должны"),
    ("свободен", "свободны"),
    ("свободна", "свободны"),
];

/// `подожди` → `подождите`, `садись` → `садитесь`.
fn imperative_to_plural(w: &str) -> String {
    match w.strip_suffix("сь").or_else(|| w.strip_suffix("ся")) {
        Some(stem) => format!("{stem}тесь"),
        None => format!("{w}те"),
    }
}

fn imperative_to_singular(w: &str) -> Option<&'static str> {
    TY_IMPERATIVES.iter().copied().find(|s| imperative_to_plural(s) == w)
}

/// A past tense (-л, -ла, -ло) or short adjective that agrees with ты, and its вы form.
fn singular_to_plural(w: &str) -> Option<String> {
    if let Some(to) = table(SHORT_ADJECTIVES, w, true) {
        return Some(to.to_string());
    }
    if let Some(to) = table(IRREGULAR_PAST, w, true) {
        return Some(to.to_string());
    }
    let (stem, refl) = w.strip_suffix("ся").or_else(|| w.strip_suffix("сь")).map(|s| (s, "сь")).unwrap_or((w, ""));
    let base = stem.strip_suffix('л').or_else(|| stem.strip_suffix("ла")).or_else(|| stem.strip_suffix("ло"))?;
    // провёл → провели: the stressed ё of the masculine is an е in the plural.
    (base.chars().count() >= 2 && base.ends_with(['а', 'е', 'и', 'о', 'у', 'я', 'ы', 'ё']))
        .then(|| format!("{}ли{refl}", base.replace('ё', "е")))
}

fn plural_to_singular(w: &str) -> Option<String> {
    if let Some(to) = table(SHORT_ADJECTIVES, w, false) {
        return Some(to.to_string());
    }
    if let Some(to) = table(IRREGULAR_PAST, w, false) {
        return Some(to.to_string());
    }
    let (stem, refl) = w.strip_suffix("сь").map(|s| (s, "ся")).unwrap_or((w, ""));
    let base = stem.strip_suffix("ли")?;
    (base.chars().count() >= 2 && base.ends_with(['а', 'е', 'и', 'о', 'у', 'я', 'ы', 'ё'])).then(|| format!("{base}л{refl}"))
}

/// Words that stand between a subject pronoun and its verb ("ты когда-нибудь был", "вы меня сейчас слышите").
const BETWEEN: &[&str] = &[
    "когда", "нибудь", "уже", "ещё", "еще", "тоже", "также", "всегда", "никогда", "хорошо", "там", "здесь", "тут",
    "сейчас", "действительно", "точно", "правда", "не", "меня", "мне", "нам", "нас", "его", "её", "ее", "их", "им",
    "это", "так", "очень", "долго", "часто", "просто", "вчера", "сегодня", "завтра",
];

/// The word the subject pronoun governs: the next one that is not an adverb or object pronoun, if `convert` takes it.
fn governed(c: &Ctx<'_>, pronoun: usize, convert: impl Fn(&str) -> Option<String>) -> Option<(usize, String)> {
    let j = (pronoun + 1..(pronoun + 5).min(c.toks.len())).find(|&j| !BETWEEN.contains(&c.norm(j)))?;
    convert(c.norm(j)).map(|v| (j, v))
}

/// Past tenses without -л: the verb before "бы ты" in "не мог бы ты…".
const IRREGULAR_PAST: &[(&str, &str)] = &[("мог", "могли"), ("могла", "могли"), ("смог", "смогли"), ("смогла", "смогли")];
/// 2sg ↔ 2pl present forms the ending rules get wrong.
const IRREGULAR_PRESENT: &[(&str, &str)] = &[("хочешь", "хотите"), ("ешь", "едите"), ("бежишь", "бежите")];

/// The verb of "(не) мог бы ты…", two words before the pronoun.
fn past_before_by<'a>(c: &'a Ctx<'_>, pronoun: usize) -> Option<&'a str> {
    (pronoun >= 2 && c.norm(pronoun - 1) == "бы").then(|| c.norm(pronoun - 2))
}

pub(super) fn edits(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = Vec::new();
    for (i, t) in c.toks.iter().enumerate() {
        let w = t.norm.as_str();
        if c.to_formal {
            if !c.is_wrong(i) {
                continue;
            }
            if let Some(to) = table(PRON, w, true) {
                out.push(c.edit(i, capitalise_if(t, to)));
                if w == "ты" {
                    if let Some((j, v)) = governed(c, i, singular_to_plural) {
                        out.push(c.edit_cased(j, &v));
                    }
                    if let Some(v) = past_before_by(c, i).and_then(singular_to_plural) {
                        out.push(c.edit_cased(i - 2, &v));
                    }
                }
            } else if is_2sg_verb(w) {
                out.push(c.edit_cased(i, &to_2pl(w)));
            } else if TY_IMPERATIVES.contains(&w) {
                out.push(c.edit_cased(i, &imperative_to_plural(w)));
            }
        } else if c.is_wrong(i) {
            if let Some(to) = table(PRON, w, false) {
                out.push(c.edit(i, capitalise_if(t, to)));
                if w == "вы" {
                    if let Some(v) = i.checked_sub(1).and_then(|j| to_2sg(c.norm(j))) {
                        out.push(c.edit_cased(i - 1, &v));
                    }
                    if let Some((j, v)) = governed(c, i, |v| to_2sg(v).or_else(|| plural_to_singular(v))) {
                        out.push(c.edit_cased(j, &v));
                    }
                    if let Some(v) = past_before_by(c, i).and_then(plural_to_singular) {
                        out.push(c.edit_cased(i - 2, &v));
                    }
                }
            } else if let Some(to) = imperative_to_singular(w) {
                out.push(c.edit_cased(i, to));
            } else if let Some(v) = to_2sg(w) {
                // A bare 2pl present ("Хотите пойти с нами?"): the sentence was asked for informal as a whole.
                out.push(c.edit_cased(i, &v));
            }
        }
    }
    out
}
