//! Spanish: tú/te/ti/contigo/tu(s) and 2sg verbs vs. usted(es)/su(s)/le and 3rd-person verbs. Possessive `su`
//! and clitic `le` also mean his/her, so they are weak.
use super::{any, push};
use crate::tokens::Tok;
use crate::{Marker, MarkerKind::*, Register::*};

const TU_PRONOUNS: &[&str] = &["tú", "ti", "contigo", "te", "vosotros", "vosotras", "os"];
const TU_POSSESSIVES: &[&str] = &["tu", "tus", "tuyo", "tuya", "tuyos", "tuyas", "vuestro", "vuestra", "vuestros", "vuestras"];
const USTED_PRONOUNS: &[&str] = &["usted", "ustedes", "ud", "uds", "vd"];
/// 2sg present/preterite/conditional forms of frequent verbs (an -s ending alone is a plural noun as often).
pub const TU_VERBS: &[&str] = &[
    "eres", "estás", "tienes", "has", "sabes", "puedes", "quieres", "vas", "crees", "piensas", "debes", "necesitas",
    "ves", "haces", "conoces", "dices", "opinas", "entiendes", "te", "estabas", "tenías", "sabías", "podías", "querías",
    "ibas", "eras", "hacías", "podrías", "querrías", "harías", "deberías", "tendrías", "serías", "estarías", "gustaría",
    "tengas", "seas", "estés", "puedas", "quieras", "vayas", "sepas", "hagas", "disfrutes", "pases", "juegas", "miras",
    "escuchas", "prefieres", "recuerdas", "viviste", "fuiste", "viste", "hiciste", "tuviste", "dijiste", "estuviste",
    "pudiste", "oíste", "leíste", "escuchaste", "jugaste", "probaste", "pensaste", "compraste", "visitaste", "gustan",
    "vives", "trabajas", "sueles", "llamas", "usas", "compras", "lees", "juegas", "ganas", "te",
];
const TU_VERB_FALSE: &[&str] = &["gustaría", "gustan", "te"];
pub const USTED_VERBS: &[&str] = &[
    "es", "está", "tiene", "ha", "sabe", "puede", "quiere", "va", "cree", "piensa", "debe", "necesita", "ve", "hace",
    "conoce", "dice", "opina", "entiende", "estaba", "tenía", "sabía", "podía", "quería", "iba", "era", "hacía",
    "podría", "querría", "haría", "debería", "tendría", "sería", "estaría", "tenga", "sea", "esté", "pueda", "quiera",
    "vaya", "sepa", "haga", "disfrute", "pase", "juega", "mira", "escucha", "prefiere", "recuerda", "vivió", "fue",
    "vio", "hizo", "tuvo", "dijo", "estuvo", "pudo", "oyó", "leyó", "escuchó", "jugó", "probó", "pensó", "compró",
    "visitó", "vive", "trabaja", "suele", "llama", "usa", "compra", "lee", "gana",
];

/// Words after which an -as/-es (-a/-e) word is most likely a finite verb ("si fumas", "lo devuelve").
const VERB_CONTEXT: &[&str] = &[
    "no", "lo", "me", "nos", "si", "cuando", "que", "qué", "ya", "también", "nunca", "siempre",
    "dónde", "cómo", "cuándo", "porque", "mientras", "aún", "todavía",
];
const NOT_VERB_S: &[&str] = &[
    "veces", "cosas", "personas", "más", "antes", "después", "entonces", "mientras", "además", "otras", "todas",
    "todos", "tres", "mes", "es", "pues", "menos", "muchas", "pocas", "buenas", "nuevas", "mismas", "esas", "estas",
    "unas", "días", "gracias", "casas", "ideas", "horas", "clases", "partes", "redes", "noticias", "series", "películas",
];

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    let mut in_question = false;
    for (i, t) in toks.iter().enumerate() {
        let w = t.norm.as_str();
        if t.sent_start {
            in_question = text[..t.start].trim_end().ends_with('¿');
        }
        let prev = i.checked_sub(1).map(|j| toks[j].norm.as_str()).filter(|_| !t.sent_start);
        let after_context = prev.is_some_and(|p| any(VERB_CONTEXT, p)) || in_question && (t.sent_start || prev.is_none());
        if any(TU_PRONOUNS, w) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(TU_POSSESSIVES, w) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if any(TU_VERBS, w) && !any(TU_VERB_FALSE, w) || is_preterite_2sg(w) || is_2sg_form(w) {
            push(&mut out, text, t, Informal, Verb, true);
        } else if after_context && (w.ends_with("as") || w.ends_with("es")) && w.chars().count() > 3 && !any(NOT_VERB_S, w) {
            push(&mut out, text, t, Informal, Verb, false);
        } else if any(USTED_PRONOUNS, w) {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if w == "su" || w == "sus" || w == "suyo" || w == "suya" {
            push(&mut out, text, t, Formal, Possessive, false);
        } else if w == "le" || w == "les" || w == "se" && false {
            push(&mut out, text, t, Formal, Pronoun, false);
        } else if any(USTED_VERBS, w) && (!matches!(w, "es" | "está" | "era" | "fue" | "ha" | "sea") || in_question && (t.sent_start || w == "ha")) {
            // "es", "era", "fue" describe things far more often than the addressee, except opening a question.
            push(&mut out, text, t, Formal, Verb, false);
        } else if in_question && (t.sent_start || prev.is_some_and(|p| any(VERB_CONTEXT, p))) && (w.ends_with('a') || w.ends_with('e') || w.ends_with("ó")) && w.chars().count() > 3 {
            push(&mut out, text, t, Formal, Verb, false);
        }
    }
    out
}

/// Endings that only a 2nd-person form has: future -rás, conditional/imperfect subjunctive -rías/-ieras/-ases,
/// imperfect -abas, vosotros -áis/-éis, and infinitive/gerund + te (preguntarte, convirtiéndote).
fn is_2sg_form(w: &str) -> bool {
    let n = w.chars().count();
    n > 4
        && ((w.ends_with("rás") && !matches!(w, "atrás" | "detrás"))
            || w.ends_with("rías")
            || w.ends_with("ieras")
            || w.ends_with("ieses")
            || (w.ends_with("abas") && !matches!(w, "babas"))
            || w.ends_with("áis")
            || w.ends_with("éis")
            || ((w.ends_with("arte") || w.ends_with("erte") || w.ends_with("irte")) && n > 5
                && !matches!(w, "aparte" | "suerte" | "muerte" | "fuerte" | "inerte" | "baluarte" | "estandarte" | "deporte"))
            || w.ends_with("ándote")
            || w.ends_with("iéndote"))
}

/// Preterite 2sg (-aste/-iste) is unambiguous apart from a few nouns/adjectives.
fn is_preterite_2sg(w: &str) -> bool {
    (w.ends_with("aste") || w.ends_with("iste"))
        && w.chars().count() > 5
        && !matches!(
            w,
            "triste" | "existe" | "insiste" | "consiste" | "resiste" | "chiste" | "despiste" | "contraste" | "desgaste"
                | "subsiste" | "persiste" | "asiste" | "quiste" | "desiste" | "coexiste" | "embiste" | "reviste"
                | "inviste" | "baste" | "gaste" | "traste" | "caste"
        )
}
