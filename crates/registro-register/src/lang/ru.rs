//! Russian: ты/тебя/твой and 2sg verbs (`знаешь`, `хочешь`) vs. вы/вас/ваш. Вы is also the plural "you", which
//! still is not the T form, so it counts as formal. Polite imperatives in -ите/-йте/-ьте are plural too: weak.
//! A singular imperative (`подожди`, `проверь`) is the T form, but an -и/-й/-ь ending alone is as often a noun
//! or an adverb, so only the frequent imperatives of [`TY_IMPERATIVES`] count.
use super::{any, push};
use crate::tokens::Tok;
use crate::{Marker, MarkerKind::*, Register::*};

pub const TY_PRONOUNS: &[&str] = &["ты", "тебя", "тебе", "тобой", "тобою", "тебе"];
pub const TY_POSSESSIVES: &[&str] = &[
    "твой",
    "твоя",
    "твоё",
    "твое",
    "твои",
    "твоего",
    "твоей",
    "твоему",
    "твоим",
    "твоих",
    "твою",
    "твоими",
    "твоем",
    "твоём",
];
pub const VY_PRONOUNS: &[&str] = &["вы", "вас", "вам", "вами"];
pub const VY_POSSESSIVES: &[&str] = &[
    "ваш",
    "ваша",
    "ваше",
    "ваши",
    "вашего",
    "вашей",
    "вашему",
    "вашим",
    "ваших",
    "вашу",
    "вашими",
    "вашем",
];
/// Frequent singular imperatives (the ты form) of requests a translation addresses to its reader.
pub const TY_IMPERATIVES: &[&str] = &[
    "подожди", "расскажи", "скажи", "пришли", "позвони", "перезвони", "проверь", "забудь", "напиши", "отправь",
    "посмотри", "возьми", "дай", "сделай", "приходи", "иди", "помоги", "покажи", "открой", "закрой", "купи",
    "попробуй", "послушай", "слушай", "смотри", "звони", "пиши", "извини", "прости", "представь", "оставь",
    "держи", "жди", "выбери", "нажми", "введи", "перезагрузи", "зайди", "включи", "выключи", "подумай", "найди",
    "сообщи", "уточни", "волнуйся", "беспокойся", "садись", "будь", "заходи", "приезжай", "расслабься",
    "обрати", "обращайся", "передай", "объясни", "назови", "повтори", "подтверди", "укажи", "заполни",
    "убедись", "загрузи", "скачай", "установи", "запомни", "учти", "пойми", "поверь", "прочитай", "прочти",
];
/// Words in -шь that are not 2sg verbs.
const NOT_VERB_SH: &[&str] = &[
    "лишь",
    "уж",
    "мышь",
    "тишь",
    "глушь",
    "вошь",
    "рожь",
    "ложь",
    "вишь",
    "финишь",
];

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for t in toks {
        let w = t.norm.as_str();
        if any(TY_PRONOUNS, w) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(TY_POSSESSIVES, w) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if is_2sg_verb(w) || any(TY_IMPERATIVES, w) {
            push(&mut out, text, t, Informal, Verb, true);
        } else if any(VY_PRONOUNS, w) {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if any(VY_POSSESSIVES, w) {
            push(&mut out, text, t, Formal, Possessive, true);
        } else if is_2pl_verb(w) {
            push(&mut out, text, t, Formal, Verb, false);
        }
    }
    out
}

/// Present/future 2sg: -ешь/-ёшь/-ишь (with the reflexive -ся).
pub fn is_2sg_verb(w: &str) -> bool {
    let w = w.strip_suffix("ся").unwrap_or(w);
    (w.ends_with("ешь") || w.ends_with("ёшь") || w.ends_with("ишь")) && w.chars().count() > 3 && !any(NOT_VERB_SH, w)
}

/// Present/future 2pl or polite imperative: -ете/-ёте/-ите/-йте/-ьте (with -сь).
fn is_2pl_verb(w: &str) -> bool {
    let w = w.strip_suffix("сь").unwrap_or(w);
    ["ете", "ёте", "ите", "йте", "ьте"].iter().any(|e| w.ends_with(e)) && w.chars().count() > 4
}
