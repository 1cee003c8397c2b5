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
    // Requests and offers, where the pronoun is always dropped ("¿Dónde deseas que envíe…?").
    "deseas", "esperas", "buscas", "sientes", "tomas", "envías", "mandas", "llevas", "pagas", "vienes", "sales",
    "empiezas", "pides", "prefieras", "desees", "necesites", "vuelves", "puedas", "quisieras", "olvidas",
    // Frequent in instructions and chat, none of them also a noun or adjective ("cuentas", "pruebas", "ganas" are).
    "cierras", "devuelves", "abres", "cancelas", "cambias", "eliges", "intentas", "consigues", "encuentras", "pones",
    "dejas", "escribes", "recibes", "comes", "aprendes", "decides", "sigues", "duermes", "viajas", "estudias",
    "terminas", "llegas", "quedas", "traes", "vendes", "subes", "compartes", "permites", "mientes", "activas",
    "accedes", "introduces", "confirmas", "verificas", "instalas", "reinicias", "seleccionas", "das",
    "pruebes", "hables", "digas", "pienses", "creas", "recomiendas", "sugieres", "imaginas",
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

/// Words after which an -as/-es (-a/-e) word is most likely a finite verb ("si fumas", "lo devuelve"). Not the
/// clitics "la"/"le": with them the repair's round trip on the CoCoA-MT pairs fell from 0.932 to 0.866.
const VERB_CONTEXT: &[&str] = &[
    "no", "lo", "me", "nos", "si", "cuando", "que", "qué", "ya", "también", "nunca", "siempre",
    "dónde", "cómo", "cuándo", "porque", "mientras", "aún", "todavía",
];
const NOT_VERB_S: &[&str] = &[
    "veces", "cosas", "personas", "más", "antes", "después", "entonces", "mientras", "además", "otras", "todas",
    "todos", "tres", "mes", "es", "pues", "menos", "muchas", "pocas", "buenas", "nuevas", "mismas", "esas", "estas",
    "unas", "días", "gracias", "casas", "ideas", "horas", "clases", "partes", "redes", "noticias", "series", "películas",
    "cuáles", "quiénes", "cuántas", "ellas", "nosotras",
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
        if w == "vaya" && t.sent_start && is_interjection(text, t) {
            // "¡Vaya, …!" is "wow", not the usted subjunctive of ir.
            continue;
        }
        let next = toks.get(i + 1).map(|n| n.norm.as_str());
        if any(TU_PRONOUNS, w) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if w == "estas" && next.is_some_and(|n| n.chars().count() > 5 && (n.ends_with("ando") || n.ends_with("iendo"))) {
            // "¿Qué estas diciendo?": estás written without its accent, which the demonstrative "estas" never
            // is before a gerund.
            push(&mut out, text, t, Informal, Verb, true);
        } else if any(TU_POSSESSIVES, w) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if any(TU_VERBS, w) && !any(TU_VERB_FALSE, w) || is_preterite_2sg(w) || is_2sg_form(w) {
            push(&mut out, text, t, Informal, Verb, true);
        } else if w.ends_with("aras") && w.chars().count() > 6 && prev.is_some_and(|p| any(SUBJUNCTIVE_CONTEXT, p)) {
            // Imperfect subjunctive 2sg of -ar verbs (si es que llevaras); 1/3sg ends in -ara. Outside a
            // subjunctive trigger -aras is a plural noun (cámaras, comecaras).
            push(&mut out, text, t, Informal, Verb, true);
        } else if is_enclitic_imperative(w, "te") {
            push(&mut out, text, t, Informal, Imperative, true);
        } else if is_enclitic_imperative(w, "se") {
            push(&mut out, text, t, Formal, Imperative, true);
        } else if let Some(register) = imperative_with_object(w) {
            push(&mut out, text, t, register, Imperative, true);
        } else if after_context && (w.ends_with("as") || w.ends_with("es")) && w.chars().count() > 3 && !any(NOT_VERB_S, w) {
            push(&mut out, text, t, Informal, Verb, false);
        } else if any(USTED_PRONOUNS, w) {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if w == "su" || w == "sus" || w == "suyo" || w == "suya" {
            push(&mut out, text, t, Formal, Possessive, false);
        } else if w == "le" || w == "les" {
            // Not "se": reflexive and impersonal "se" is far more common than the usted object.
            push(&mut out, text, t, Formal, Pronoun, false);
        } else if any(USTED_VERBS, w) && (!matches!(w, "es" | "está" | "era" | "fue" | "ha" | "sea") || in_question && (t.sent_start || w == "ha")) {
            // "es", "era", "fue" describe things far more often than the addressee, except opening a question.
            push(&mut out, text, t, Formal, Verb, false);
        } else if in_question && (t.sent_start || prev.is_some_and(|p| any(VERB_CONTEXT, p))) && (w.ends_with('a') || w.ends_with('e') || w.ends_with("ó")) && w.chars().count() > 3 {
            push(&mut out, text, t, Formal, Verb, false);
        } else if prev.is_some_and(|p| any(FINITE_CONTEXT, p)) && (w.ends_with('a') || w.ends_with('e')) && w.chars().count() > 3 && !any(NOT_VERB_AE, w) {
            // Mirror of the -as/-es rule: after a negation or a subordinator, an -a/-e word is a 3sg verb, which
            // in a reply addressed to someone is usted as often as a third person ("cuando no utiliza el teléfono").
            push(&mut out, text, t, Formal, Verb, false);
        } else if in_question && w.ends_with("aba") && w.chars().count() > 4 && prev != Some("yo") {
            // The imperfect -aba is 1sg or 3sg; asked anywhere in a question it is mostly usted ("¿De pequeño jugaba…?").
            push(&mut out, text, t, Formal, Verb, false);
        }
    }
    out
}

/// The word stands alone before a comma, an exclamation mark or the end of the text.
fn is_interjection(text: &str, t: &Tok<'_>) -> bool {
    text[t.end..].trim_start().chars().next().is_none_or(|c| matches!(c, ',' | '!' | '.' | '…'))
}

/// Words a finite verb follows directly (a narrower VERB_CONTEXT: "que"/"lo" precede nouns and adjectives too).
const FINITE_CONTEXT: &[&str] = &["no", "cuando", "si", "nunca", "siempre", "también", "ya", "mientras", "porque", "me", "nos"];
/// -a/-e words that follow those without being verbs.
const NOT_VERB_AE: &[&str] = &[
    "esta", "este", "una", "toda", "nada", "nunca", "ahora", "siempre", "entre", "sobre", "mientras", "ese", "esa",
    "aquella", "aquel", "cada", "nadie", "alguna", "ninguna", "otra", "otro", "mucha", "poca", "misma", "cualquiera",
    "hora", "donde", "aunque", "desde", "hasta", "hace", "mucho", "solo", "sola", "bastante", "demasiado", "gente",
    "claro", "verdad", "tanta", "tarde", "noche", "mente", "parte", "suerte", "importa", "gusta", "encanta",
    "interesa", "parece", "apetece", "molesta", "preocupa", "queda", "pasa", "ocurre", "sucede", "llueve",
    "vale", "suena", "cuesta", "basta", "falta", "sirve", "existe", "funciona",
];

/// Words that put the next verb in the subjunctive.
const SUBJUNCTIVE_CONTEXT: &[&str] = &["si", "que", "ojalá", "quizás", "quizá", "tal", "como", "cuando", "aunque", "para", "tú", "no"];

/// An imperative with an enclitic reflexive carries a written accent on the stem: cuídate/siéntate (tú) vs.
/// cuídese/manténgase (usted). Gerunds (quedándose) and -mente adverbs look alike and are not imperatives.
fn is_enclitic_imperative(w: &str, clitic: &str) -> bool {
    let Some(stem) = w.strip_suffix(clitic) else { return false };
    stem.chars().count() > 3
        && stem.chars().any(|c| matches!(c, 'á' | 'é' | 'í' | 'ó' | 'ú'))
        && !stem.ends_with("ándo")
        && !stem.ends_with("iéndo")
        && !stem.ends_with("yéndo")
        && !w.ends_with("mente")
        && !matches!(w, "límite" | "satélite" | "élite" | "escándalo" | "déficit" | "cómete" | "ábside")
}

/// Object pronouns an imperative carries at its end, longest first ("envíamelo" is envía + me + lo).
const OBJECT_CLITICS: &[&str] = &["melo", "mela", "melos", "melas", "noslo", "nosla", "me", "nos", "los", "las", "les", "lo", "la", "le"];
/// Roots of the verbs requests are made with, by class, for where the pool's vocabulary has no other form of them
/// (stem-changed roots as the imperative has them: cuent-, muestr-, recuerd-).
const AR_REQUEST_ROOTS: &[&str] = &[
    "envi", "avis", "mand", "llam", "pas", "dej", "esper", "mir", "ayud", "explic", "confirm", "indic", "inform",
    "comunic", "pregunt", "contest", "reserv", "busc", "llev", "tom", "prest", "compr", "pag", "firm", "revis",
    "cambi", "guard", "borr", "agreg", "acompañ", "disculp", "perdon", "escuch", "cuent", "muestr", "recuerd",
    "prueb", "notific", "regal", "reenvi", "contact", "deposit", "apunt", "anot",
];
const ER_IR_REQUEST_ROOTS: &[&str] = &[
    "escrib", "respond", "abr", "sub", "permit", "decid", "compart", "recib", "devuelv", "tra", "pid", "sigu",
    "elig", "consigu", "transfier", "le", "cre", "vend", "describ", "resuelv", "ofrec", "conced", "remit", "añad",
];

/// Imperatives too short to carry a written accent: tú dime/dame/hazme/ponme, usted deme.
const SHORT_TU_IMPERATIVES: &[&str] = &["dime", "dímelo", "dímela", "dame", "dámelo", "dámela", "hazme", "házmelo", "ponme", "pónmelo", "tenme", "sácame", "dinos", "danos", "hazlo", "dilo", "ponlo"];
const SHORT_USTED_IMPERATIVES: &[&str] = &["deme", "tráigame", "tráigamelo", "démelo", "dígame", "dígamelo", "hágame", "hágamelo", "póngame", "hágalo", "dígalo", "póngalo"];

/// An imperative with an object pronoun joined to it: tú "envíame", "escríbeme", "dímelo" or usted "envíeme",
/// "escríbame", "dígamelo". The written accent on the stem marks the joined imperative; its last vowel gives the
/// person once the verb's class is known — tú ends in -a for an -ar verb and in -e for an -er/-ir verb, usted the
/// other way round. The class comes from other forms of the verb in the language's vocabulary (infinitive,
/// participle, gerund, imperfect, preterite); a verb found in both classes, or in neither, says nothing.
fn imperative_with_object(w: &str) -> Option<crate::Register> {
    if any(SHORT_TU_IMPERATIVES, w) {
        return Some(Informal);
    }
    if any(SHORT_USTED_IMPERATIVES, w) {
        return Some(Formal);
    }
    let (root, last, _) = joined_object(w)?;
    if root.chars().count() < 3 || !root.chars().any(|c| matches!(c, 'á' | 'é' | 'í' | 'ó' | 'ú')) {
        return None;
    }
    // Only the stress mark the joined object added comes off (envíame → envi-); ñ and ü are letters of the root.
    let unaccent = |c: char| match c {
        'á' => 'a',
        'é' => 'e',
        'í' => 'i',
        'ó' => 'o',
        'ú' => 'u',
        c => c,
    };
    let root: String = root.chars().map(unaccent).collect();
    let vocab = crate::meaning::vocabulary(crate::Lang::Es)?;
    let has = |endings: &[&str]| endings.iter().any(|e| vocab.contains(format!("{root}{e}").as_str()));
    let ar = any(AR_REQUEST_ROOTS, &root) || has(&["ar", "ado", "ada", "ando", "aba", "aron", "aste", "ó"]);
    let er_ir = any(ER_IR_REQUEST_ROOTS, &root) || has(&["er", "ir", "ido", "ida", "iendo", "ieron", "iste", "ió"]);
    match (ar, er_ir) {
        (true, false) => Some(if last == 'a' { Informal } else { Formal }),
        (false, true) => Some(if last == 'e' { Informal } else { Formal }),
        _ => None,
    }
}

/// The same imperative with its object for the other person ("envíame" ↔ "envíeme", "escríbeme" ↔ "escríbame"),
/// where the verb's class is known and the swap of the stem's last vowel is the whole change; verbs whose spelling
/// changes with it (búscame → búsqueme, sígueme → sígame, elígeme → elíjame) are left alone, and stay flagged.
pub(crate) fn imperative_other_person(w: &str) -> Option<String> {
    imperative_with_object(w)?;
    let (root, last, clitic) = joined_object(w)?;
    if root.ends_with(['c', 'g', 'z', 'u']) {
        return None;
    }
    Some(format!("{root}{}{clitic}", if last == 'a' { 'e' } else { 'a' }))
}

/// `w` read as a verb with an object joined to it: the stem without its last vowel (as written), that vowel (a or
/// e, the one that tells tú from usted) and the object ("envíame" → "enví", 'a', "me").
fn joined_object(w: &str) -> Option<(&str, char, &'static str)> {
    let clitic = OBJECT_CLITICS.iter().find(|c| w.ends_with(**c))?;
    let stem = &w[..w.len() - clitic.len()];
    let last = stem.chars().next_back().filter(|c| matches!(c, 'a' | 'e'))?;
    Some((&stem[..stem.len() - last.len_utf8()], last, clitic))
}

/// -ería nouns (shops, abstract nouns) that look like a 2sg conditional.
const ERIA_NOUNS: &[&str] = &[
    "cafeterías", "tonterías", "librerías", "galerías", "baterías", "loterías", "panaderías", "pizzerías", "joyerías",
    "zapaterías", "peluquerías", "carnicerías", "pastelerías", "ingenierías", "porquerías", "cervecerías", "heladerías",
    "consejerías", "mensajerías", "lavanderías", "fruterías", "papelerías", "categorías",
];

/// Endings that only a 2nd-person form has: future -rás, conditional/imperfect subjunctive -rías/-ieras/-ases,
/// imperfect -abas, vosotros -áis/-éis, and infinitive/gerund + te (preguntarte, convirtiéndote).
fn is_2sg_form(w: &str) -> bool {
    let n = w.chars().count();
    n > 4
        && ((w.ends_with("rás") && !matches!(w, "atrás" | "detrás"))
            || (w.ends_with("rías") && !w.ends_with("orías") && !any(ERIA_NOUNS, w) && w != "frías")
            || w.ends_with("ieras")
            // vosotros present of -ir verbs (decís, vivís).
            || (w.ends_with("ís") && !matches!(w, "país" | "parís" | "anís" | "maís"))
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
                // Present subjunctive of -astar verbs (que no aplaste).
                | "aplaste" | "devaste" | "engaste"
        )
}
