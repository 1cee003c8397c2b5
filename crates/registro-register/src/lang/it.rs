//! Italian: tu/ti/te/tuo… and 2sg verbs vs. Lei/La/Le/Suo… and 3sg verbs. Lower-case suo/sua also mean
//! his/her, so they are weak; capitalised Lei/La/Le mid-sentence are the courtesy form.
use super::{any, push};
use crate::tokens::Tok;
use crate::{Marker, MarkerKind::*, Register::*};

const TU_PRONOUNS: &[&str] = &["tu", "ti", "te"];
/// The plural addressee (voi, vi, vostro) is the same in both registers today (CoCoA-MT's references use "voi" and
/// "vostra" in formal and informal replies alike and never mark them), so it counts for neither.
const TU_POSSESSIVES: &[&str] = &["tuo", "tua", "tuoi", "tue"];
const LEI_POSSESSIVES: &[&str] = &["suo", "sua", "suoi", "sue"];
pub const TU_VERBS: &[&str] = &[
    "sei", "hai", "sai", "puoi", "vuoi", "devi", "pensi", "vai", "fai", "dici", "stai", "credi", "conosci", "capisci",
    "ricordi", "vivi", "giochi", "trascorri", "guardi", "ascolti", "preferisci", "piace", "eri", "avevi", "sapevi",
    "potevi", "volevi", "facevi", "andavi", "stavi", "dai", "senti", "leggi", "abiti", "lavori", "ami", "compri",
    "usi", "provi", "vedi", "hai", "scusa", "dimmi", "fammi", "guarda", "senti", "pensaci", "goditi", "divertiti",
    "riesci", "esci",
];
const NOT_TU_VERB: &[&str] = &["piace", "vi", "senti"];
/// 2sg indicative forms that are also the Lei imperative/subjunctive ("pensi al suo iPhone").
const AMBIGUOUS_TU: &[&str] = &[
    "pensi", "guardi", "compri", "ami", "usi", "provi", "lavori", "abiti", "ascolti", "ricordi", "senti", "giochi",
    "diventi", "cerchi", "aspetti", "impari", "parli", "mangi", "passi", "trovi", "chiami", "torni", "visiti",
];
/// Words after which an -i word is a plural noun ("i suoi ricordi", "nei giochi", "questi abiti").
const PLURAL_DETERMINERS: &[&str] = &[
    "i", "gli", "dei", "degli", "nei", "negli", "ai", "agli", "sui", "sugli", "coi", "questi", "quei", "quegli", "miei",
    "tuoi", "suoi", "nostri", "vostri", "loro", "pochi", "molti", "tanti", "alcuni", "altri", "certi", "tutti", "due",
    "tre", "bei", "nuovi", "vecchi", "vari", "diversi", "tali", "quali", "dai", "delle", "nelle", "alle", "sulle",
    "dalle", "queste", "quelle", "mie", "tue", "sue", "nostre", "vostre", "poche", "molte", "tante", "alcune", "altre",
    "tutte", "nuove", "varie", "diverse",
];
/// Present subjunctives that cannot be a 2sg indicative (those end in -i): after a clitic in a main clause they are
/// the Lei imperative ("si goda la giornata", "se lo tolga dalla testa", "mi dica").
const LEI_SUBJUNCTIVES: &[&str] = &[
    "goda", "diverta", "accomodi", "rilassi", "prenda", "faccia", "metta", "tolga", "tenga", "dica", "vada", "venga",
    "legga", "scriva", "chieda", "dia", "stia", "creda", "senta", "permetta", "ricordi", "immagini", "lasci",
];
const CLITICS: &[&str] = &["si", "se", "lo", "la", "li", "le", "ne", "mi", "me", "ci", "ce", "gli", "glielo", "gliela"];
/// Words that open a subordinate clause, whose subjunctive is a third person ("che se lo tolga").
const SUBORDINATORS: &[&str] = &["che", "perché", "affinché", "purché", "prima", "sebbene", "benché", "qualunque", "comunque", "dovunque", "chiunque"];
pub const LEI_VERBS: &[&str] = &[
    "ha", "sa", "può", "vuole", "deve", "pensa", "va", "fa", "dice", "sta", "crede", "conosce", "capisce", "ricorda",
    "vive", "gioca", "trascorre", "riesce", "guarda", "ascolta", "preferisce", "dà", "sente", "legge", "abita", "lavora", "ama", "compra", "usa", "prova", "vede", "scusi",
    "mi dica", "goda", "vada", "lasci", "senta", "guardi", "pensi", "si",
];

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let w = t.norm.as_str();
        let next_lower = toks.get(i + 1).is_some_and(|n| !n.capitalised() && !n.sent_start);
        let prev = i.checked_sub(1).map(|j| toks[j].norm.as_str()).filter(|_| !t.sent_start);
        let after_preposition = prev.is_some_and(|p| matches!(p, "di" | "de" | "in" | "a" | "da" | "su" | "con" | "per" | "e"));
        let noun_position = prev.is_some_and(|p| any(PLURAL_DETERMINERS, p));
        if noun_position && w.ends_with('i') && (any(AMBIGUOUS_TU, w) || any(TU_VERBS, w) || is_generated_tu(w)) {
            continue;
        }
        if w == "dai" {
            // "dai" is mostly the preposition "from the"; the verb takes a clitic or an object article, and a
            // sentence-initial "Dai," is the interjection "come on".
            let verb = prev.is_some_and(|p| any(CLITICS, p) || matches!(p, "non" | "tu" | "te"))
                || toks.get(i + 1).is_some_and(|n| matches!(n.norm.as_str(), "un" | "una" | "uno" | "un'" | "retta" | "fastidio"));
            if verb {
                push(&mut out, text, t, Informal, Verb, true);
            }
            continue;
        }
        if w == "guarda" && !(t.sent_start || follows_pause(text, toks, i) || prev.is_some_and(|p| matches!(p, "e" | "ma" | "allora" | "poi" | "però"))) {
            // Inside a clause ("mentre guarda un film") it is the indicative 3sg, not the 2sg imperative.
            push(&mut out, text, t, Formal, Verb, false);
            continue;
        }
        // "la faccia" is "the face": with an article-like clitic only the unambiguous verbs count.
        if (any(LEI_SUBJUNCTIVES, w) || is_generated_lei_subjunctive(w)) && prev.is_some_and(|p| any(CLITICS, p) && !(matches!(p, "la" | "le" | "lo" | "li" | "gli") && w == "faccia")) && !(i >= 2 && any(SUBORDINATORS, &toks[i - 2].norm) && !toks[i - 1].sent_start) {
            push(&mut out, text, t, Formal, Imperative, true);
            continue;
        }
        if (w == "vada" && prev == Some("comunque")) || (w == "va" && toks.get(i + 1).is_some_and(|n| n.norm == "bene")) {
            continue; // "comunque vada", "va bene": impersonal
        }
        if w == "fa" && prev.is_some_and(|p| matches!(p, "anni" | "anno" | "tempo" | "giorni" | "giorno" | "mesi" | "mese" | "settimane" | "settimana" | "ore" | "minuti" | "poco" | "secoli" | "decenni")) {
            continue; // "qualche anno fa" is "ago"
        }
        if is_enclitic_te(w) {
            push(&mut out, text, t, Informal, Imperative, true);
            continue;
        }
        if courtesy_enclitic(t.text) {
            push(&mut out, text, t, Formal, Pronoun, true);
            continue;
        }
        if in_question(text, toks, i) && is_lei_perfect(w, prev, toks.get(i + 1).map(|n| n.norm.as_str())) {
            push(&mut out, text, t, Formal, Verb, false);
            continue;
        }
        if any(AMBIGUOUS_TU, w) {
            // -are verbs share the 2sg indicative with the Lei imperative/subjunctive. Asked ("Cosa ne pensi?",
            // "Non pensi che…?") it is the 2sg; opening a statement, bare or after a clitic ("Mi parli del suo
            // amico", "Cerchi di…", "Non torni"), it is the Lei imperative.
            let question = in_question(text, toks, i) || opens_question(toks, i);
            let after_clitic = prev.is_some_and(|p| matches!(p, "ne" | "non" | "ci" | "lo" | "la" | "li" | "mi" | "gli"));
            let clause_start = t.sent_start || follows_pause(text, toks, i) || prev.is_some_and(|p| matches!(p, "allora" | "e" | "ma" | "poi" | "però"));
            if prev == Some("tu") || question && after_clitic {
                push(&mut out, text, t, Informal, Verb, true);
            } else if !question && (after_clitic || clause_start) && !in_subordinate(toks, i) {
                push(&mut out, text, t, Formal, Imperative, false);
            } else {
                push(&mut out, text, t, Informal, Verb, false);
            }
        } else if any(TU_PRONOUNS, w) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(TU_POSSESSIVES, w) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if (any(TU_VERBS, w) && !any(NOT_TU_VERB, w)) || is_tu_verb_form(w) || is_imperfect_2sg(w) || is_future_2sg(w) || is_generated_tu(w) {
            push(&mut out, text, t, Informal, Verb, true);
        } else if t.text == "Lei" && !t.sent_start || matches!(t.text, "La" | "Le" | "Suo" | "Sua" | "Suoi" | "Sue" | "Glielo") && !t.sent_start && next_lower && !after_preposition {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if t.text == "Le" && toks.get(i + 1).is_some_and(|n| matches!(n.norm.as_str(), "piace" | "piacciono" | "piaceva" | "piacerebbe" | "interessa" | "sembra" | "va" | "è")) {
            push(&mut out, text, t, Formal, Pronoun, true);
        } else if t.text == "Lei" {
            push(&mut out, text, t, Formal, Pronoun, false);
        } else if any(LEI_POSSESSIVES, w) {
            push(&mut out, text, t, Formal, Possessive, false);
        } else if any(LEI_VERBS, w) && !matches!(w, "si" | "pensi" | "guardi") {
            push(&mut out, text, t, Formal, Verb, false);
        } else if in_question(text, toks, i) && (w.ends_with("rebbe") || w.ends_with("ava") || w.ends_with("eva") || w.ends_with("iva")) {
            push(&mut out, text, t, Formal, Verb, false);
        }
    }
    out
}

/// A comma, colon or dash separates the token from the previous one.
fn follows_pause(text: &str, toks: &[Tok<'_>], i: usize) -> bool {
    i > 0 && text[toks[i - 1].end..toks[i].start].chars().any(|c| matches!(c, ',' | ':' | '-' | '–'))
}

/// The courtesy pronoun joined to an infinitive or a gerund, capitalised as courtesy writes it: "chiamarLa",
/// "inviarLe", "ringraziandoLa", "mandarGlielo" (CoCoA-MT's formal training references have 5, the informal ones
/// none). Lower case, "chiamarla" is mostly "call her".
fn courtesy_enclitic(word: &str) -> bool {
    ["La", "Le", "Glielo", "Gliela", "Glieli", "Gliele", "Gliene"].iter().any(|suffix| {
        word.strip_suffix(suffix).is_some_and(|stem| {
            stem.chars().count() >= 4 && stem.chars().all(char::is_lowercase) && (stem.ends_with('r') || stem.ends_with("ndo"))
        })
    })
}

/// Imperative with an enclitic "te" + pronoun: toglitelo, ricordatelo, mettiteli.
fn is_enclitic_te(w: &str) -> bool {
    ["telo", "tela", "teli", "tele", "tene"].iter().any(|e| {
        w.strip_suffix(e).is_some_and(|stem| stem.chars().count() > 2 && (stem.ends_with('i') || stem.ends_with('a') || stem.ends_with('e')))
    })
}

/// In a question, "è"/"era" + a past participle ("È interessato ai cani?", "È aggiornato…?") or "si è" asks the
/// addressee in the Lei form as often as about a third person; "è stato" describes a thing.
fn is_lei_perfect(w: &str, prev: Option<&str>, next: Option<&str>) -> bool {
    if !matches!(w, "è" | "era") {
        return false;
    }
    prev == Some("si")
        || next.is_some_and(|n| {
            n.chars().count() > 5
                && ["ato", "ata", "ito", "ita", "uto", "uta"].iter().any(|e| n.ends_with(e))
                && !matches!(n, "stato" | "stata" | "capitato" | "capitata" | "successo" | "finito" | "finita" | "piaciuto" | "piaciuta" | "cambiato" | "cambiata" | "partito" | "uscito" | "uscita")
        })
}

/// Imperfect 2sg (-avi/-evi) outside a few nouns.
fn is_imperfect_2sg(w: &str) -> bool {
    (w.ends_with("avi") || w.ends_with("evi")) && w.chars().count() > 4 && !matches!(w, "chiavi" | "navi" | "gravi" | "bravi" | "schiavi" | "brevi" | "lievi" | "nevi" | "allievi")
}

/// Future 2sg: every verb's tu form ends in -rai (riceverai, sarai, potrai, andrai) and hardly any other word does;
/// a word list cannot hold every verb's future, the ending can.
fn is_future_2sg(w: &str) -> bool {
    w.ends_with("rai") && w.chars().count() >= 5 && !matches!(w, "samurai" | "bonsai")
}

/// Conditional 2sg (-resti) and infinitive + ti (divertirti, chiederti) are unambiguous enough.
fn is_tu_verb_form(w: &str) -> bool {
    let n = w.chars().count();
    (w.ends_with("resti") && n > 6 && !matches!(w, "interesti" | "foresti"))
        || ((w.ends_with("arti") || w.ends_with("irti") || w.ends_with("erti")) && n > 6
            && !matches!(w, "aperti" | "esperti" | "coperti" | "offerti" | "certi" | "inerti" | "scoperti" | "deserti" | "concerti" | "quarti" | "scarti" | "sofferti" | "sorti"))
}

/// The token's sentence ends with a question mark. A period after a lone capital ("M. I - Fallout?") is an
/// initial, not the end of the sentence.
fn in_question(text: &str, toks: &[Tok<'_>], i: usize) -> bool {
    let rest = &text[toks[i].end..];
    let mut prev: [Option<char>; 2] = [None, None];
    for c in rest.chars() {
        match c {
            '?' => return true,
            '!' | '\n' | '…' => return false,
            '.' if !(prev[0].is_some_and(char::is_uppercase) && !prev[1].is_some_and(char::is_alphanumeric)) => return false,
            _ => {}
        }
        prev = [Some(c), prev[0]];
    }
    false
}

/// The sentence opens with a question word, so it asks even without its "?" ("Cosa ne pensi dei negozi").
fn opens_question(toks: &[Tok<'_>], i: usize) -> bool {
    let start = toks[..=i].iter().rposition(|t| t.sent_start).unwrap_or(0);
    toks.get(start).is_some_and(|t| matches!(t.norm.as_str(), "cosa" | "che" | "come" | "quale" | "quali" | "dove" | "quando" | "perché" | "chi" | "quanto" | "quanti" | "quante"))
}

/// The verb sits in a clause opened by "se", "che", "quando"… (one or two words back), so it is indicative or a
/// third-person subjunctive rather than an imperative.
fn in_subordinate(toks: &[Tok<'_>], i: usize) -> bool {
    (1..=2).filter_map(|d| i.checked_sub(d)).take_while(|&j| j == i - 1 || !toks[j + 1].sent_start).any(|j| {
        let w = toks[j].norm.as_str();
        any(SUBORDINATORS, w) || matches!(w, "se" | "quando" | "mentre" | "come" | "dove" | "finché" | "appena")
    }) && !toks[i].sent_start
}

/// Common verbs whose 2sg forms and Lei imperatives are generated below (regular conjugation; the irregular ones
/// are in the word lists above). Person comes from morphology: a list of forms seen in training data cannot hold
/// every verb a model may use ("prendi", "scrivimi", "mi risponda").
const ARE_VERBS: &[&str] = &[
    "mandare", "inviare", "chiamare", "aiutare", "aspettare", "ascoltare", "guardare", "portare", "lasciare", "mostrare",
    "spiegare", "contattare", "avvisare", "informare", "ricordare", "scusare", "perdonare", "prenotare", "pagare",
    "comprare", "cercare", "trovare", "provare", "usare", "controllare", "confermare", "compilare", "firmare",
    "raccontare", "passare", "girare", "inoltrare", "allegare", "scaricare",
    "caricare", "salvare", "cancellare", "annullare", "cambiare", "lavare", "preparare", "accompagnare", "ringraziare",
    "seguire", "telefonare", "parlare", "lavorare", "studiare", "mangiare", "giocare", "viaggiare", "visitare",
    "tornare", "arrivare", "entrare", "restare", "pensare", "sperare", "amare", "abitare", "imparare", "insegnare",
    "ordinare", "consigliare", "immaginare", "considerare", "notare", "segnalare", "indicare",
    "toccare", "tagliare", "spostare", "fermare", "continuare", "iniziare", "cominciare", "terminare", "completare",
    "aggiornare", "registrare", "verificare", "modificare", "organizzare", "sistemare", "riparare", "dimenticare",
    "invitare", "incontrare", "salutare", "baciare", "abbracciare", "accettare", "rifiutare", "evitare",
];
const ERE_VERBS: &[&str] = &[
    "prendere", "mettere", "scrivere", "leggere", "chiedere", "rispondere", "ricevere", "vendere", "credere", "vedere",
    "perdere", "spendere", "decidere", "vincere", "chiudere", "correre", "ridere", "piangere", "scendere", "accendere",
    "spegnere", "attendere", "rendere", "conoscere", "riconoscere", "crescere", "nascondere", "descrivere",
    "iscrivere", "permettere", "promettere", "ripetere", "risolvere", "succedere", "discutere", "condividere",
    "dividere", "difendere", "offendere", "dipendere", "comprendere", "sorprendere", "riprendere", "trasmettere",
    "godere", "battere", "combattere", "cedere", "concedere", "procedere", "esprimere",
    "stringere", "raggiungere", "aggiungere", "giungere", "dirigere", "correggere", "proteggere",
];
/// -ire verbs with the -isc- infix in the 2sg present (finisci) and the Lei subjunctive (finisca).
const ISC_VERBS: &[&str] = &[
    "capire", "finire", "preferire", "pulire", "spedire", "gestire", "costruire", "suggerire", "restituire", "inserire",
    "trasferire", "garantire", "fornire", "definire", "contribuire", "distribuire", "sostituire", "impedire",
    "proibire", "reagire", "agire", "colpire", "stupire", "tradire", "chiarire", "condire", "favorire", "ferire",
    "guarire", "obbedire", "riunire", "unire", "sparire", "approfondire", "arricchire", "ingrandire", "abolire",
];
const IRE_VERBS: &[&str] = &[
    "aprire", "offrire", "soffrire", "coprire", "scoprire", "dormire", "partire", "sentire", "seguire", "servire",
    "vestire", "fuggire", "divertire", "avvertire", "convertire", "investire", "consentire", "acconsentire",
];
/// Clitics a 2sg imperative takes at its end (mandami, scrivigli, prendilo). Not "ti"/"vi": "-ati"/"-iti" forms are
/// mostly participles ("risultati", "vestiti").
const ENCLITICS: &[&str] = &[
    "mi", "ci", "lo", "la", "li", "le", "ne", "gli", "melo", "mela", "meli", "mele", "mene", "celo", "cela", "cene",
    "glielo", "gliela", "glieli", "gliele", "gliene",
];
/// Generated forms that are also common words of another kind ("i legami", "il portale", "aprile", "le parti", "la
/// stringa"), and "senti", which the word lists leave out on purpose.
const NOT_VERB_FORMS: &[&str] = &[
    "legami", "salami", "velami", "calami", "pelami", "portale", "portali", "ordinali", "cambiali", "cambiale", "aprile",
    "servili", "vesti", "servi", "parti", "partili", "stringa", "serva", "senti",
];

/// The generated 2sg and Lei forms, built once.
struct Forms {
    /// 2sg present of -ere/-ire verbs (prendi, finisci: never a Lei form) and every 2sg imperative with a clitic.
    tu: std::collections::HashSet<String>,
    /// Lei present subjunctive of -ere/-ire verbs (prenda, finisca), the Lei imperative after a clitic.
    lei_subjunctive: std::collections::HashSet<String>,
}

fn forms() -> &'static Forms {
    static FORMS: std::sync::OnceLock<Forms> = std::sync::OnceLock::new();
    FORMS.get_or_init(|| {
        let mut tu = std::collections::HashSet::new();
        let mut lei_subjunctive = std::collections::HashSet::new();
        let imperative = |stem_form: String, tu: &mut std::collections::HashSet<String>| {
            for c in ENCLITICS {
                tu.insert(format!("{stem_form}{c}"));
            }
        };
        for v in ARE_VERBS.iter().filter(|v| v.ends_with("are")) {
            let stem = &v[..v.len() - 3];
            // "mandami", "chiamalo", "scusami"; the bare -a imperative is also the 3sg, so it is not listed.
            imperative(format!("{stem}a"), &mut tu);
        }
        for (v, isc) in ERE_VERBS.iter().map(|v| (v, false)).chain(IRE_VERBS.iter().map(|v| (v, false))).chain(ISC_VERBS.iter().map(|v| (v, true))) {
            let stem = &v[..v.len() - 3];
            let stem = if isc { format!("{stem}isc") } else { stem.to_string() };
            let second = format!("{stem}i");
            tu.insert(second.clone());
            imperative(second, &mut tu);
            // The -isc- subjunctive is spelled -isca ("finisca"), like the regular "prenda", "apra".
            lei_subjunctive.insert(format!("{stem}a"));
        }
        for f in NOT_VERB_FORMS {
            tu.remove(*f);
            lei_subjunctive.remove(*f);
        }
        Forms { tu, lei_subjunctive }
    })
}

/// A generated 2sg form: the present of an -ere/-ire verb or an imperative with an enclitic.
fn is_generated_tu(w: &str) -> bool {
    w.chars().count() > 4 && forms().tu.contains(w)
}

/// A generated Lei present subjunctive ("risponda", "finisca"): the Lei imperative after a clitic.
fn is_generated_lei_subjunctive(w: &str) -> bool {
    forms().lei_subjunctive.contains(w)
}
