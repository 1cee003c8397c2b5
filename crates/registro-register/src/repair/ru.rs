//! Russian: ты ↔ вы and твой ↔ ваш by case, and the 2sg verb ending -ешь/-ишь ↔ -ете/-ите. Going back, only a
//! verb next to вы is touched: a bare -ите is as often an imperative addressed to several people.
use super::{capitalise_if, table, Ctx, Edit};
use crate::lang::ru::is_2sg_verb;

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
    let (stem, refl) = w.strip_suffix("ся").map(|s| (s, "сь")).unwrap_or((w, ""));
    let base = stem.strip_suffix("шь").unwrap_or(stem);
    format!("{base}те{refl}")
}

fn to_2sg(w: &str) -> Option<String> {
    let (stem, refl) = w.strip_suffix("сь").map(|s| (s, "ся")).unwrap_or((w, ""));
    let base = stem.strip_suffix("те")?;
    (base.ends_with('е') || base.ends_with('ё') || base.ends_with('и')).then(|| format!("{base}шь{refl}"))
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
            } else if is_2sg_verb(w) {
                out.push(c.edit_cased(i, &to_2pl(w)));
            }
        } else if c.is_wrong(i) {
            if let Some(to) = table(PRON, w, false) {
                out.push(c.edit(i, capitalise_if(t, to)));
                if w == "вы" {
                    for j in [i.wrapping_sub(1), i + 1] {
                        if let Some(v) = c.toks.get(j).and_then(|_| to_2sg(c.norm(j))) {
                            out.push(c.edit_cased(j, &v));
                        }
                    }
                }
            }
        }
    }
    out
}
