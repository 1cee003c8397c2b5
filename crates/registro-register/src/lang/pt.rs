//! European Portuguese (CoCoA-MT's en-ptpt): tu/te/ti/contigo/teu and 2sg verbs (`tens`, `ouviste`, `pensares`) vs.
//! você/o senhor/a senhora and 3sg verbs. Possessive `seu`/`sua` and clitic `lhe` also mean his/her, so they are weak;
//! a bare 3sg verb (`sabe`, `tem`) is the same form as "he/she knows", so it is a weak formal marker.
use super::{any, push};
use crate::tokens::{neighbour, Tok};
use crate::{Marker, MarkerKind::*, Register::*};

pub const TU_PRONOUNS: &[&str] = &["tu", "te", "ti", "contigo", "vós", "vos", "convosco"];
pub const TU_POSSESSIVES: &[&str] = &["teu", "tua", "teus", "tuas", "vosso", "vossa", "vossos", "vossas"];
pub const VOCE_POSSESSIVES: &[&str] = &["seu", "sua", "seus", "suas", "lhe", "lhes"];
/// 2sg forms of frequent verbs; an -as/-es ending alone is a plural noun as often.
pub const TU_VERBS: &[&str] = &[
    "és",
    "estás",
    "tens",
    "sabes",
    "podes",
    "queres",
    "vais",
    "achas",
    "gostas",
    "fazes",
    "dizes",
    "vês",
    "pensas",
    "conheces",
    "preferes",
    "costumas",
    "viste",
    "foste",
    "tiveste",
    "fizeste",
    "disseste",
    "estiveste",
    "pudeste",
    "ouviste",
    "leste",
    "jogaste",
    "gostaste",
    "pensaste",
    "achaste",
    "sabias",
    "podias",
    "querias",
    "tinhas",
    "estavas",
    "eras",
    "ias",
    "gostavas",
    "farias",
    "dirias",
    "gostarias",
    "poderias",
    "deverias",
    "terias",
    "serias",
    "estarias",
    "tenhas",
    "sejas",
    "estejas",
    "possas",
    "queiras",
    "vás",
    "saibas",
    "faças",
    "vives",
    "trabalhas",
    "usas",
    "jogas",
    "ouves",
    "lês",
    "precisas",
    "deves",
    "arranjas",
    "lembras",
    "imaginas",
    "acreditas",
    "viajas",
    "falas",
    "comes",
    "bebes",
    "escreves",
    "entendes",
    "percebes",
    "consegues",
    "segues",
];
/// 3sg forms of the same verbs: with the pronoun dropped they address the reader formally, but they are also "he
/// knows", so they are weak.
pub const VOCE_VERBS: &[&str] = &[
    "sabe", "tem", "pode", "quer", "acha", "gosta", "conhece", "percebe", "diz", "está", "faz", "vê", "pensa",
    "prefere", "costuma", "viu", "teve", "fez", "disse", "esteve", "ouviu", "leu", "gostou", "pensou", "achou",
    "sabia", "podia", "queria", "tinha", "estava", "gostava", "faria", "diria", "gostaria", "poderia", "deveria",
    "teria", "seria", "estaria", "tenha", "esteja", "possa", "queira", "saiba", "faça", "vive", "trabalha", "usa",
    "joga", "ouve", "precisa", "deve", "arranja", "lembra", "imagina", "acredita", "viaja", "fala", "entende",
    "consegue", "si", "consigo",
];
/// Words after which an -a/-e (-as/-es) word is most likely a finite verb.
const VERB_CONTEXT: &[&str] = &[
    "que", "não", "se", "quando", "porque", "nunca", "sempre", "também", "já", "ainda", "onde", "como",
];
/// Words before which a noun follows, so "o senhor" in "o senhor Silva" is still the addressee but a plural
/// "senhoras" after "as" may be a third person: only a preceding article makes senhor(a) strong.
const ARTICLES: &[&str] = &[
    "o", "a", "os", "as", "do", "da", "dos", "das", "ao", "à", "pelo", "pela", "no", "na",
];

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let w = t.norm.as_str();
        let prev = neighbour(toks, i, -1)
            .filter(|_| !t.sent_start)
            .map(|p| p.norm.as_str());
        if any(TU_PRONOUNS, w) && !(w == "vos" && prev.is_none()) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(TU_POSSESSIVES, w) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if any(TU_VERBS, w) || is_personal_infinitive_2sg(w, prev) || is_unambiguous_2sg(w) {
            push(&mut out, text, t, Informal, Verb, true);
        } else if w == "você" || w == "vocês" {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if matches!(w, "senhor" | "senhora" | "senhores" | "senhoras") {
            push(
                &mut out,
                text,
                t,
                Formal,
                Pronoun,
                prev.is_some_and(|p| any(ARTICLES, p)),
            );
        } else if let Some(register) = question_opening_verb(text, t) {
            // "Compras na Amazon?" / "Compra na Amazon?": a question opened by its verb addresses the reader.
            push(&mut out, text, t, register, Verb, false);
        } else if any(VOCE_VERBS, w) || w == "pensar" && prev == Some("se") {
            push(&mut out, text, t, Formal, Verb, false);
        } else if prev.is_some_and(|p| any(VERB_CONTEXT, p))
            && w.chars().count() > 4
            && (w.ends_with("as") || w.ends_with("es"))
        {
            // "que pagas", "não comes": a finite 2sg after a word that introduces a verb.
            push(&mut out, text, t, Informal, Verb, false);
        } else if prev.is_some_and(|p| any(VERB_CONTEXT, p))
            && w.chars().count() > 3
            && (w.ends_with('a') || w.ends_with('e'))
        {
            push(&mut out, text, t, Formal, Verb, false);
        } else if any(VOCE_POSSESSIVES, w) {
            push(&mut out, text, t, Formal, Possessive, false);
        }
    }
    out
}

/// Nouns that end like a 2sg preterite (-aste) or future (-rás).
const NOT_2SG: &[&str] = &["contraste", "desgaste", "haste", "traste", "engaste", "gaste", "baste", "atrás", "trás", "detrás"];

/// Endings only a 2sg verb has, whatever the word before: the preterite -aste (andaste, publicaste) and the future
/// -arás/-erás/-irás (estarás, farás). The -este/-iste preterites are left to the list: este, teste, triste, existe.
fn is_unambiguous_2sg(w: &str) -> bool {
    w.chars().count() > 5 && (w.ends_with("aste") || w.ends_with("rás")) && !any(NOT_2SG, w)
}

/// Nouns and adjectives in -ares/-eres/-ires, which follow "de" as often as a personal infinitive does ("3 milhões
/// de dólares", "cheio de lugares").
const NOT_PERSONAL_INFINITIVE: &[&str] = &[
    "dólares", "lugares", "milhares", "mares", "bares", "colares", "pares", "altares", "olhares", "militares",
    "populares", "familiares", "particulares", "similares", "escolares", "solares", "lares", "mulheres", "prazeres",
    "deveres", "poderes", "saberes", "talheres", "colheres", "afazeres", "seres", "celulares", "regulares",
    "vulgares", "exemplares", "titulares", "auxiliares", "circulares", "singulares", "espetaculares", "espectaculares",
];

/// Words that open a question without being its verb ("Essas são…?", "Alguma vez…?", "Quantas…?").
const NOT_QUESTION_VERB: &[&str] = &[
    "estas", "essas", "aquelas", "todas", "muitas", "poucas", "quantas", "outras", "algumas", "nenhumas", "umas",
    "esta", "essa", "aquela", "toda", "muita", "pouca", "quanta", "outra", "alguma", "nenhuma", "uma", "cada",
    "este", "esse", "aquele", "onde", "quase", "agora", "sempre", "nunca", "ainda", "apenas", "talvez", "ontem",
    "hoje", "tarde", "noite", "verdade", "sabe", "gente", "nome", "parte", "sorte", "coisa", "pessoa", "ela", "ele",
    "elas", "eles", "você", "vocês", "tu", "isso", "isto", "aquilo", "nada", "tudo", "porque", "desde", "entre",
    "sobre", "como", "qualquer", "mesmas", "mesma", "vezes", "coisas", "pessoas", "horas", "notícias", "ideias",
    "sabes",
];

/// The verb opening a question ("Compras na Amazon?", "Planeja ver o episódio?"): a 2sg ending in -as/-es is tu,
/// an -a/-e ending the 3sg that addresses the reader as você. Weak: a third person can be asked about too.
fn question_opening_verb(text: &str, t: &Tok<'_>) -> Option<crate::Register> {
    let w = t.norm.as_str();
    if !t.sent_start || w.chars().count() < 5 || any(NOT_QUESTION_VERB, w) || !w.chars().all(char::is_alphabetic) {
        return None;
    }
    let rest = &text[t.end..];
    let end = rest.find(['.', '!', '?'])?;
    if !rest[end..].starts_with('?') {
        return None;
    }
    if w.ends_with("as") || w.ends_with("es") {
        Some(Informal)
    } else if w.ends_with('a') || w.ends_with('e') {
        Some(Formal)
    } else {
        None
    }
}

/// "se pensares", "para fazeres": the personal infinitive's 2sg after a conjunction or preposition.
fn is_personal_infinitive_2sg(w: &str, prev: Option<&str>) -> bool {
    (w.ends_with("ares") || w.ends_with("eres") || w.ends_with("ires"))
        && w.chars().count() > 5
        && !any(NOT_PERSONAL_INFINITIVE, w)
        && prev.is_some_and(|p| {
            matches!(
                p,
                "se" | "para" | "quando" | "até" | "sem" | "de" | "antes" | "depois" | "ao"
            )
        })
}
