//! European Portuguese (CoCoA-MT's en-ptpt) tu ↔ você: pronouns (tu/você, ti/si, contigo/consigo), possessives
//! (teu/seu), the clitic `te` ↔ o/lhe/se, and 2sg ↔ 3sg verbs (irregular table, regular endings). "o senhor" /
//! "a senhora" become "tu"; going back, "você" is the form the data uses, so the title is not restored.
//!
//! The plural addressee (vocês, vos, vosso) is the same in both registers in Portugal: the analyzer does not count
//! it and repair leaves it alone.
use super::{capitalise_if, swap_ending, table, Ctx, Edit};
use crate::lang::pt::{INTERJECTION_IMPERATIVES, TU_VERBS, VOCE_VERBS};
use crate::{analyze, Label, Lang};

const WORDS: &[(&str, &str)] = &[
    ("tu", "você"),
    ("teu", "seu"),
    ("tua", "sua"),
    ("teus", "seus"),
    ("tuas", "suas"),
    ("contigo", "consigo"),
    ("ti", "si"),
];

/// 2sg ↔ 3sg forms the endings get wrong, both ways.
const VERBS: &[(&str, &str)] = &[
    ("és", "é"),
    ("estás", "está"),
    ("tens", "tem"),
    ("vens", "vem"),
    ("vais", "vai"),
    ("vês", "vê"),
    ("lês", "lê"),
    ("crês", "crê"),
    ("dás", "dá"),
    ("dês", "dê"),
    ("vás", "vá"),
    ("dizes", "diz"),
    ("fazes", "faz"),
    ("trazes", "traz"),
    ("queres", "quer"),
    ("pões", "põe"),
    ("sais", "sai"),
    ("cais", "cai"),
    ("viste", "viu"),
    ("foste", "foi"),
    ("tiveste", "teve"),
    ("fizeste", "fez"),
    ("disseste", "disse"),
    ("estiveste", "esteve"),
    ("pudeste", "pôde"),
    ("quiseste", "quis"),
    ("soubeste", "soube"),
    ("vieste", "veio"),
    ("puseste", "pôs"),
    ("trouxeste", "trouxe"),
    ("houveste", "houve"),
    ("deste", "deu"),
    ("tiveres", "tiver"),
    ("quiseres", "quiser"),
    ("puderes", "puder"),
    ("fizeres", "fizer"),
    ("disseres", "disser"),
    ("souberes", "souber"),
    ("vieres", "vier"),
    ("estiveres", "estiver"),
    ("puseres", "puser"),
    ("trouxeres", "trouxer"),
    ("fores", "for"),
    ("vires", "vir"),
    ("seres", "ser"),
    // 2pl used for the singular in the data; going back, "foi" is "foste".
    ("fostes", "foi"),
];

/// -erir verbs ("preferes", "sugeres") keep their -e where the future subjunctive ("quiseres") drops it.
const ERIR: &[&str] = &["feres", "geres"];

/// 2sg → 3sg endings, longest first.
const TO_3SG: &[(&str, &str)] = &[
    ("aste", "ou"),
    ("este", "eu"),
    ("iste", "iu"),
    ("ares", "ar"),
    ("eres", "er"),
    ("ires", "ir"),
    ("uzes", "uz"),
    ("éns", "ém"),
    ("ens", "em"),
    ("óis", "ói"),
    ("ões", "õe"),
    ("ás", "á"),
    ("ês", "ê"),
    ("as", "a"),
    ("es", "e"),
];

/// 3sg → 2sg endings, longest first.
const TO_2SG: &[(&str, &str)] = &[
    ("ou", "aste"),
    ("eu", "este"),
    ("iu", "iste"),
    ("uz", "uzes"),
    ("ém", "éns"),
    ("em", "ens"),
    ("ói", "óis"),
    ("õe", "ões"),
    ("á", "ás"),
    ("ê", "ês"),
    ("a", "as"),
    ("e", "es"),
];

/// Verbs used with "-se" (stems): `te` beside them is the reflexive, "se" in the formal.
const PRONOMINAL: &[&str] = &[
    "preocup", "lembr", "esquec", "sent", "divert", "livr", "aleij", "torn", "hosped", "foc",
    "concentr", "habitu", "acostum", "despach", "magoa", "magoo", "inscrev", "regist", "candidat",
    "arrepend", "queix", "atrev", "apaixon", "saf", "cans", "chate", "zang", "dedic", "port",
    "comport", "cuid", "afast", "aproxim", "despe", "junt", "esforç", "esforc", "aperceb", "depar",
    "deit", "levant", "vest",
];

/// Verbs (stems) with an indirect object: `te` is "lhe" in the formal.
const DATIVE: &[&str] = &[
    "diz", "dig", "diss", "dir", "pergunt", "ensin", "mostr", "envi", "mand", "desej", "parec",
    "cont", "oferec", "ped", "peç", "explic", "expliqu", "lig", "telefon", "escrev", "agradec",
    "respond", "emprest", "traz", "trag", "troux", "apresent", "recomend", "suger", "sugir",
    "garant", "promet", "cust", "acontec", "agrad", "apetec", "pag", "devolv", "entreg", "vend",
    "fal", "ganh", "irrit", "conced", "permit", "fic", "cab", "pertenc", "interess", "import",
];
/// The forms of "dar", too short to match by stem ("dei" would catch "deixar").
const DAR: &[&str] = &[
    "dar", "dá", "dás", "dou", "dei", "deu", "dava", "dão", "dê", "der", "daria", "darei", "dando",
];

/// Words after which "você" is the object of a preposition ("para ti").
const PREPOSITIONS: &[&str] = &[
    "para", "de", "a", "por", "sem", "em", "sobre", "entre", "contra", "até",
];

/// Words after which a 3sg verb still has the addressee as its dropped subject; after any other word (a noun, a name,
/// "ele") that word is the subject and the verb stays.
const ADDRESSEE_BEFORE: &[&str] = &[
    "que", "se", "e", "como", "vez", "quando", "mas", "ou", "enquanto", "então", "me", "nos",
    "lhe", "te", "o", "assim", "depois", "lol", "onde", "porque", "porquê", "bem", "tipo", "você",
    "senhor", "senhora", "si",
];

/// Words that may stand between a subject and its verb.
const ADVERBS: &[&str] = &[
    "não",
    "nem",
    "já",
    "também",
    "nunca",
    "sempre",
    "ainda",
    "só",
    "mesmo",
    "agora",
    "logo",
    "talvez",
    "hoje",
    "apenas",
    "mais",
    "provavelmente",
];

/// 3sg verbs that are impersonal far more often than addressed: "parece que", "basta", "no que toca".
const IMPERSONAL: &[&str] = &[
    "parece",
    "haja",
    "seria",
    "significa",
    "acontece",
    "toca",
    "basta",
    "permite",
    "envolve",
    "depende",
    "existe",
    "trata",
    "importa",
    "interessa",
    "vale",
    "custa",
    "falta",
    "chega",
    "houve",
    "havia",
    "haveria",
];

/// Words ending in -a/-e that the analyzer's "after que/não" rule takes for verbs.
const NOT_VERBS: &[&str] = &[
    "quase",
    "palavra",
    "essa",
    "esse",
    "esta",
    "este",
    "dessa",
    "desse",
    "nessa",
    "nesse",
    "desta",
    "deste",
    "toda",
    "cada",
    "uma",
    "alguma",
    "nenhuma",
    "outra",
    "mesma",
    "sempre",
    "onde",
    "antes",
    "sobre",
    "grande",
    "bastante",
    "nada",
    "coisa",
    "pessoa",
    "forma",
    "maneira",
    "vida",
    "parte",
    "gente",
    "ainda",
    "agora",
    "hoje",
    "aquela",
    "aquele",
    "muita",
    "pouca",
    "tanta",
    "tudo",
    "porque",
    "entre",
    "tarde",
    "noite",
    "para",
    "pela",
    "numa",
    "duma",
    "nossa",
    "minha",
    "marca",
    "nunca",
    "suficiente",
    "diferente",
    "importante",
    "interessante",
    "verdade",
    "boa",
    "nova",
    "enorme",
    "fixe",
    "longe",
    "fora",
];

/// Subjunctive 3sg ↔ the informal imperative: "tenha um bom dia" is "tem um bom dia" to a friend. The imperatives
/// said as an aside ("Desculpe," ↔ "Desculpa,") are the analyzer's `INTERJECTION_IMPERATIVES`, looked up after these.
const IMPERATIVES: &[(&str, &str)] = &[
    ("tira", "tire"),
    ("volta", "volte"),
    ("escolhe", "escolha"),
    ("joga", "jogue"),
    ("abdica", "abdique"),
    ("fala", "fale"),
    ("aproveita", "aproveite"),
    ("anda", "ande"),
    ("entra", "entre"),
    ("torna", "torne"),
    ("experimenta", "experimente"),
    ("continua", "continue"),
    ("tem", "tenha"),
    ("está", "esteja"),
    ("sabe", "saiba"),
    ("faz", "faça"),
    ("diz", "diga"),
    ("fica", "fique"),
    ("vai", "vá"),
    ("vem", "venha"),
    ("dá", "dê"),
    ("põe", "ponha"),
    ("sê", "seja"),
];

fn to_3sg(w: &str) -> Option<String> {
    if let Some(v) = table(VERBS, w, true) {
        return Some(v.to_string());
    }
    if ERIR.iter().any(|e| w.ends_with(e)) {
        return Some(w[..w.len() - 1].to_string());
    }
    swap_ending(w, TO_3SG)
}

fn to_2sg(w: &str) -> Option<String> {
    table(VERBS, w, false).map(str::to_string).or_else(|| swap_ending(w, TO_2SG))
}

/// A 2sg verb ending, for the verb beside a reflexive `te` that the analyzer did not mark ("te hospedas").
fn looks_2sg(w: &str) -> bool {
    w.chars().count() > 4
        && [
            "as", "es", "aste", "este", "iste", "ares", "eres", "ires", "sses",
        ]
        .iter()
        .any(|e| w.ends_with(e))
}

fn starts_any(w: &str, stems: &[&str]) -> bool {
    stems.iter().any(|s| w.starts_with(s))
}

/// Span edit over tokens `a..=b`.
fn span(c: &Ctx<'_>, a: usize, b: usize, to: String) -> Edit {
    let (s, e) = (c.toks[a].start, c.toks[b].end);
    Edit {
        start: s,
        end: e,
        from: c.text[s..e].to_string(),
        to,
    }
}

pub(super) fn edits(c: &Ctx<'_>) -> Vec<Edit> {
    if c.to_formal {
        to_formal(c)
    } else {
        to_informal(c)
    }
}

fn to_formal(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = Vec::new();
    for (i, _, w) in c.wrong_tokens() {
        let prev = if i > 0 { c.norm(i - 1) } else { "" };
        match w {
            "te" => out.extend(clitic_to_formal(c, i)),
            "ti" if prev == "com" => {
                out.push(span(c, i - 1, i, capitalise_if(&c.toks[i - 1], "consigo")))
            }
            "tu" => {
                out.push(c.edit_cased(i, "você"));
                out.extend(verb_after_pronoun(c, i, true));
            }
            "vós" => out.push(c.edit_cased(i, "vocês")),
            _ => {
                if let Some(p) = table(WORDS, w, true) {
                    out.push(c.edit_cased(i, p));
                } else if let Some(p) = table(INTERJECTION_IMPERATIVES, w, true).filter(|_| c.toks[i].sent_start) {
                    // "Desculpa, …" → "Desculpe, …": the aside's imperative, not the 3sg "desculpa" of to_3sg.
                    out.push(c.edit_cased(i, p));
                } else if !is_plural_noun(c, i) {
                    if let Some(v) = to_3sg(w) {
                        out.push(c.edit_cased(i, &v));
                    }
                }
            }
        }
    }
    out
}

/// Plural nouns the analyzer's "after que/não" rule takes for 2sg verbs: "que coisas", "como áreas diferentes têm",
/// "que surpresas vão".
fn is_plural_noun(c: &Ctx<'_>, i: usize) -> bool {
    let w = c.norm(i);
    if TU_VERBS.contains(&w) {
        return false;
    }
    let next = if i + 1 < c.toks.len() && !after_punct(c, i + 1) {
        c.norm(i + 1)
    } else {
        ""
    };
    let agreeing = next.chars().count() > 3
        && next.ends_with('s')
        && !matches!(
            next,
            "mais"
                | "menos"
                | "muitos"
                | "muitas"
                | "todos"
                | "todas"
                | "pelos"
                | "pelas"
                | "vezes"
        )
        && table(WORDS, next, true).is_none()
        && table(WORDS, next, false).is_none();
    let plural_verb = ["am", "ão", "êm", "em"].iter().any(|e| next.ends_with(e))
        && !matches!(
            next,
            "em" | "bem"
                | "tem"
                | "vem"
                | "sem"
                | "nem"
                | "quem"
                | "também"
                | "porém"
                | "além"
                | "alguém"
                | "ninguém"
                | "cem"
                | "não"
        );
    w.ends_with("mente")
        || w.strip_suffix('s').is_some_and(|s| NOT_VERBS.contains(&s))
        || agreeing
        || plural_verb
}

/// `te` → "se" (reflexive), "lhe" (indirect object) or "o" (direct object), by the verb it leans on.
fn clitic_to_formal(c: &Ctx<'_>, i: usize) -> Vec<Edit> {
    let t = &c.toks[i];
    let enclitic = t.hyphen_before && i > 0;
    let host = if enclitic { i - 1 } else { i + 1 };
    let hw = c.norm(host);
    let host_wrong = c.is_wrong(host) && is_verb_token(c, host);
    // With a 2sg verb the clitic can only be the addressee's own: "te preocupes" → "se preocupe"; so with an
    // infinitive that such a verb governs: "precisas dizer-te", "tens de te preocupar".
    let first = if enclitic { host } else { i };
    let governed = is_infinitive(hw)
        && (first.saturating_sub(3)..first).any(|j| c.is_wrong(j) && is_verb_token(c, j));
    // A 2sg-looking verb the analyzer missed after a proclitic `te` ("te hospedas") is the same case, and changes too.
    let missed = !enclitic && !host_wrong && looks_2sg(hw);
    if host_wrong || governed || missed || starts_any(hw, PRONOMINAL) {
        let mut out = vec![c.edit_cased(i, "se")];
        if let Some(v) = to_3sg(hw).filter(|_| missed) {
            out.push(c.edit_cased(host, &v));
        }
        return out;
    }
    if host >= c.toks.len() {
        return vec![c.edit_cased(i, "o")];
    }
    // A modal or "ir" before the infinitive that carries the meaning: "te vou dizer".
    let lexical = if !enclitic && is_aux(hw) {
        c.norm(host + 1)
    } else {
        hw
    };
    if DAR.contains(&lexical) || starts_any(lexical, DATIVE) {
        return vec![c.edit_cased(i, "lhe")];
    }
    if enclitic {
        let h = &c.toks[host];
        // "ajudar-te" → "ajudá-lo": the infinitive's -r drops and the vowel takes an accent.
        if let Some(stem) = h.text.strip_suffix('r') {
            let accented = match stem.chars().last() {
                Some('a') => format!("{}á", &stem[..stem.len() - 1]),
                Some('e') => format!("{}ê", &stem[..stem.len() - 1]),
                Some('ô') | Some('o') => format!("{}ô", &stem[..stem.len() - 1]),
                _ => stem.to_string(),
            };
            let sep = &c.text[h.end..t.start];
            return vec![span(c, host, i, format!("{accented}{sep}lo"))];
        }
        if hw.ends_with('m') || hw.ends_with("ão") || hw.ends_with("õe") {
            return vec![c.edit(i, "no")];
        }
    }
    vec![c.edit_cased(i, "o")]
}

/// A marked token that is a verb rather than a pronoun or possessive.
fn is_verb_token(c: &Ctx<'_>, j: usize) -> bool {
    let w = c.norm(j);
    table(WORDS, w, true).is_none()
        && table(WORDS, w, false).is_none()
        && !matches!(w, "te" | "lhe" | "você" | "si")
}

fn is_aux(w: &str) -> bool {
    matches!(
        w,
        "vou"
            | "vai"
            | "vais"
            | "vamos"
            | "vão"
            | "ia"
            | "iam"
            | "íamos"
            | "posso"
            | "pode"
            | "podes"
            | "podemos"
            | "podem"
            | "podia"
            | "podias"
            | "poderia"
            | "quero"
            | "quer"
            | "queres"
            | "queria"
            | "quis"
            | "devo"
            | "deve"
            | "deves"
            | "devemos"
            | "devia"
            | "tenho"
            | "temos"
            | "têm"
            | "estou"
            | "está"
            | "estamos"
    )
}

fn to_informal(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = informal_edits(c, true);
    // The sentence as a whole reads formal, so some marker is the addressee's: where the careful pass (verbs after a
    // noun, the imperfect outside questions left alone) still reads formal, convert those verbs as well.
    let repaired = super::apply(c.text, &mut out.clone()).text;
    if analyze(Lang::Pt, &repaired).label != Label::Informal {
        out = informal_edits(c, false);
    }
    out
}

fn informal_edits(c: &Ctx<'_>, strict: bool) -> Vec<Edit> {
    let mut out = Vec::new();
    for (i, t, w) in c.wrong_tokens() {
        let prev = if i > 0 && !t.sent_start {
            c.norm(i - 1)
        } else {
            ""
        };
        match w {
            "você" => {
                if prev == "com" {
                    out.push(span(c, i - 1, i, capitalise_if(&c.toks[i - 1], "contigo")));
                } else if PREPOSITIONS.contains(&prev) {
                    out.push(c.edit_cased(i, "ti"));
                } else {
                    out.push(c.edit_cased(i, "tu"));
                    out.extend(verb_after_pronoun(c, i, false));
                }
            }
            "senhor" | "senhora" => {
                if let Some(e) = title_to_informal(c, i) {
                    if e.to.eq_ignore_ascii_case("tu") {
                        out.extend(verb_after_pronoun(c, i, false));
                    }
                    out.push(e);
                }
            }
            "si" => out.push(c.edit_cased(i, "ti")),
            "consigo" => {
                if !is_conseguir(c, i) {
                    out.push(c.edit_cased(i, "contigo"));
                }
            }
            "lhe" => out.push(c.edit_cased(i, "te")),
            "lhes" | "senhores" | "senhoras" => {}
            _ => {
                if let Some(p) = table(WORDS, w, false) {
                    out.push(c.edit_cased(i, p));
                } else if let Some(v) = verb_to_informal(c, i, strict) {
                    out.push(c.edit_cased(i, &v));
                    out.extend(reflexive_to_informal(c, i));
                }
            }
        }
    }
    out
}

/// The reflexive that belongs to a converted verb follows it into the 2sg: "lembra-se" → "lembras-te", "não se
/// preocupe" → "não te preocupes", "tem de se preocupar" → "tens de te preocupar".
fn reflexive_to_informal(c: &Ctx<'_>, i: usize) -> Option<Edit> {
    let w = c.norm(i);
    let is_se = |j: usize| c.norm(j) == "se";
    let infinitive = |j: usize| {
        c.toks
            .get(j)
            .is_some_and(|t| !t.hyphen_before && is_infinitive(&t.norm))
    };
    if c.toks.get(i + 1).is_some_and(|n| n.hyphen_before) && is_se(i + 1) {
        return Some(c.edit(i + 1, "te"));
    }
    if i > 0
        && is_se(i - 1)
        && !c.toks[i].sent_start
        && (starts_any(w, PRONOMINAL) || i > 1 && is_se(i - 2))
    {
        return Some(c.edit_cased(i - 1, "te"));
    }
    // The verb governs an infinitive with its own reflexive: "pode livrar-se", "tem de se preocupar".
    let mut j = i + 1;
    if matches!(c.norm(j), "de" | "a") {
        j += 1;
    }
    if is_se(j) && !c.toks[j].hyphen_before && infinitive(j + 1) {
        return Some(c.edit(j, "te"));
    }
    if infinitive(j) && c.toks.get(j + 1).is_some_and(|n| n.hyphen_before) && is_se(j + 1) {
        return Some(c.edit(j + 1, "te"));
    }
    None
}

fn is_infinitive(w: &str) -> bool {
    w.chars().count() > 2
        && (w.ends_with("ar") || w.ends_with("er") || w.ends_with("ir") || w == "pôr")
}

/// The verb right after a converted subject pronoun agrees with it ("você é" → "tu és", "tu viste" → "você viu"),
/// whether or not the analyzer marked it.
fn verb_after_pronoun(c: &Ctx<'_>, i: usize, to_formal: bool) -> Option<Edit> {
    let n = c.toks.get(i + 1)?;
    if c.is_wrong(i + 1)
        || c.text[c.toks[i].end..n.start]
            .chars()
            .any(|ch| !ch.is_whitespace())
    {
        return None;
    }
    let w = n.norm.as_str();
    let v = if to_formal {
        if !looks_2sg(w) && table(VERBS, w, true).is_none() {
            return None;
        }
        to_3sg(w)?
    } else {
        if w == "é" {
            "és".to_string()
        } else if table(VERBS, w, false).is_some() || is_3sg_form(w) {
            to_2sg(w)?
        } else {
            return None;
        }
    };
    Some(c.edit_cased(i + 1, &v))
}

/// A 3sg form beside "você": a preterite, imperfect or future ending, or an -a/-e word that is not an adverb or
/// "mesma"/"própria".
fn is_3sg_form(w: &str) -> bool {
    let n = w.chars().count();
    n > 2 && ["ou", "eu", "iu", "á", "ê"].iter().any(|e| w.ends_with(e))
        || n > 3
            && (w.ends_with('a') || w.ends_with('e'))
            && !NOT_VERBS.contains(&w)
            && !ADVERBS.contains(&w)
            && !matches!(
                w,
                "mesma"
                    | "própria"
                    | "sozinha"
                    | "sempre"
                    | "nunca"
                    | "agora"
                    | "ainda"
                    | "este"
                    | "esse"
            )
}

/// "o senhor" → "tu", "ao senhor" → "a ti", "com o senhor" → "contigo"; a bare "senhor" is a vocative or a title.
fn title_to_informal(c: &Ctx<'_>, i: usize) -> Option<Edit> {
    if i == 0 || c.toks[i].sent_start {
        return None;
    }
    let art = i - 1;
    let with = art > 0 && c.norm(art - 1) == "com" && !c.toks[art].sent_start;
    let to = match c.norm(art) {
        "o" | "a" if with => {
            return Some(span(
                c,
                art - 1,
                i,
                capitalise_if(&c.toks[art - 1], "contigo"),
            ))
        }
        "o" | "a"
            if art > 0 && PREPOSITIONS.contains(&c.norm(art - 1)) && !c.toks[art].sent_start =>
        {
            "ti"
        }
        "o" | "a" => "tu",
        "ao" | "à" => "a ti",
        "do" | "da" => "de ti",
        "pelo" | "pela" => "por ti",
        "no" | "na" => "em ti",
        _ => return None,
    };
    Some(span(c, art, i, capitalise_if(&c.toks[art], to)))
}

/// "consigo" as "I manage" (before an infinitive, after a subject or negation) rather than "with you".
fn is_conseguir(c: &Ctx<'_>, i: usize) -> bool {
    let prev = if i > 0 && !c.toks[i].sent_start {
        c.norm(i - 1)
    } else {
        ""
    };
    let next = c.norm(i + 1);
    c.toks[i].sent_start
        || matches!(
            prev,
            "eu" | "não"
                | "já"
                | "sim"
                | "nunca"
                | "mal"
                | "também"
                | "ainda"
                | "só"
                | "que"
                | "se"
        )
        || next.ends_with("ar")
        || next.ends_with("er")
        || next.ends_with("ir")
        || next == "pôr"
}

fn verb_to_informal(c: &Ctx<'_>, i: usize, strict: bool) -> Option<String> {
    let t = &c.toks[i];
    let w = t.norm.as_str();
    let prev = if i > 0 && !t.sent_start {
        c.norm(i - 1)
    } else {
        ""
    };
    let next = c.norm(i + 1);
    if NOT_VERBS.contains(&w) || w.ends_with("mente") || w.ends_with("ste") {
        return None;
    }
    // Impersonal: "parece que", "deve ser", "quer dizer" ("I mean"), "qualquer que seja".
    if IMPERSONAL.contains(&w)
        || matches!(w, "deve" | "pode") && matches!(next, "ser" | "haver")
        || w == "quer" && next == "dizer"
        || w == "seja"
            && prev == "que"
            && i > 1
            && matches!(c.norm(i - 2), "qualquer" | "quer" | "seja")
    {
        return None;
    }
    if strict && has_other_subject(c, i) {
        return None;
    }
    let clause_start =
        prev.is_empty() || matches!(prev, "e" | "mas" | "favor") || after_punct(c, i);
    // "onde fica" asks where something is, with or without a question mark.
    if strict && prev == "onde" && !VOCE_VERBS.contains(&w) {
        return None;
    }
    if strict && !in_question(c, i) {
        // The imperfect and conditional are the speaker's own as often ("não sabia", "gostava de"): only a question
        // points them at the addressee.
        if ["ia", "ava"].iter().any(|e| w.ends_with(e)) && !matches!(w, "ia") {
            return None;
        }
        // A verb the analyzer guessed from "que"/"se" before it (not one of its addressee verbs) is a relative
        // clause's or an impersonal "se" verb as often: "que conta uma história", "se trata"; "deve" is mostly "it
        // must".
        let reflexive =
            prev == "se" && (starts_any(w, PRONOMINAL) || i > 1 && c.norm(i - 2) == "se");
        if !VOCE_VERBS.contains(&w) && matches!(prev, "que" | "se") && !reflexive || w == "deve" {
            return None;
        }
        // "está bem" is "OK"; "diz-me", "tem um bom dia" are already the informal imperative.
        if w == "está" && matches!(next, "bem" | "tudo")
            || c.toks
                .get(i + 1)
                .is_some_and(|n| n.hyphen_before && matches!(n.norm.as_str(), "me" | "nos"))
            || w == "tem" && matches!((next, c.norm(i + 2)), ("um", "bom") | ("uma", "boa"))
        {
            return None;
        }
    }
    // A subjunctive opening a clause is the formal imperative.
    if clause_start {
        if let Some(v) = table(IMPERATIVES, w, false).or_else(|| table(INTERJECTION_IMPERATIVES, w, false)) {
            return Some(v.to_string());
        }
    }
    // The personal infinitive after "se"/"para" takes -es: "se pensar" → "se pensares".
    if is_infinitive(w) {
        return Some(format!("{w}es"));
    }
    to_2sg(w)
}

/// Whether the sentence holding token `i` ends with a question mark.
fn in_question(c: &Ctx<'_>, i: usize) -> bool {
    let rest = &c.text[c.toks[i].end..];
    rest.find(['.', '!', '?', '\n'])
        .is_some_and(|k| rest[k..].starts_with('?'))
}

fn after_punct(c: &Ctx<'_>, i: usize) -> bool {
    i > 0
        && c.text[c.toks[i - 1].end..c.toks[i].start]
            .chars()
            .any(|ch| !ch.is_whitespace() && ch != '-')
}

/// Whether the word before the verb (past adverbs like "não") is its subject: a noun, a name or "ele" rather than a
/// conjunction or the start of a clause, after which the subject dropped is the addressee.
fn has_other_subject(c: &Ctx<'_>, i: usize) -> bool {
    let mut j = i;
    while j > 0 && !c.toks[j].sent_start && !after_punct(c, j) {
        let p = c.norm(j - 1);
        if ADVERBS.contains(&p) || p.ends_with("mente") {
            j -= 1;
            continue;
        }
        // "quem é que rouba": the subject is "quem".
        if p == "que" && j >= 3 && c.norm(j - 2) == "é" && c.norm(j - 3) == "quem" {
            return true;
        }
        return !(ADDRESSEE_BEFORE.contains(&p) || is_infinitive(p));
    }
    false
}
