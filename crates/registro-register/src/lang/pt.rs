//! European Portuguese (CoCoA-MT's en-ptpt): tu/te/ti/contigo/teu and 2sg verbs (`tens`, `ouviste`, `pensares`) vs.
//! você/o senhor/a senhora and 3sg verbs. Possessive `seu`/`sua` and clitic `lhe` also mean his/her, so they are weak;
//! a bare 3sg verb (`sabe`, `tem`) is the same form as "he/she knows", so it is a weak formal marker.
//!
//! The plural addressee carries no register: in Portugal vocês / vos / vosso / convosco address a group in both
//! registers (CoCoA-MT's references use "vossos avós" in a formal reply and "vocês" in an informal one, and never
//! mark either), and repair leaves them alone, so the analyzer must not count them either way. Only the archaic
//! "vós", which repair replaces, still counts.
use super::{any, push};
use crate::tokens::{neighbour, Tok};
use crate::{Marker, MarkerKind::*, Register::*};

pub const TU_PRONOUNS: &[&str] = &["tu", "te", "ti", "contigo", "vós"];
pub const TU_POSSESSIVES: &[&str] = &["teu", "tua", "teus", "tuas"];
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
        if any(TU_PRONOUNS, w) {
            push(&mut out, text, t, Informal, Pronoun, true);
        } else if any(TU_POSSESSIVES, w) {
            push(&mut out, text, t, Informal, Possessive, true);
        } else if any(TU_VERBS, w) || is_personal_infinitive_2sg(w, prev) || is_unambiguous_2sg(w) {
            push(&mut out, text, t, Informal, Verb, true);
        } else if let Some(strong) = generated_tu(w, prev) {
            push(&mut out, text, t, Informal, Verb, strong);
        } else if let Some(register) = interjection_imperative(text, t) {
            // "Desculpe, mas…" / "Olha, não sei": an imperative said as an aside carries the person.
            push(&mut out, text, t, register, Verb, true);
        } else if let Some(register) = wish_closing(toks, i) {
            // "Tem um bom dia!" / "Tenha um bom dia!": the imperative of ter closing a chat.
            push(&mut out, text, t, register, Verb, true);
        } else if w == "você" {
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
        } else if (any(VOCE_VERBS, w) || w == "pensar" && prev == Some("se")) && !third_person_subject(text, toks, i)
            || generated_voce_question(text, toks, i)
        {
            push(&mut out, text, t, Formal, Verb, false);
        } else if prev.is_some_and(|p| any(VERB_CONTEXT, p))
            && w.chars().count() > 4
            && (w.ends_with("as") || w.ends_with("es"))
        {
            // "que pagas", "não comes": a finite 2sg after a word that introduces a verb.
            push(&mut out, text, t, Informal, Verb, false);
        } else if prev.is_some_and(|p| any(VERB_CONTEXT, p))
            && !enclitic_before(toks, i)
            && !any(ADVERBS_IN_A_E, w)
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

// ---- Person from morphology ----------------------------------------------------------------------------------
// A list of forms seen in training data cannot hold every verb a model may use ("ganhavas", "até me contares",
// "se fumares"): the 2sg and 3sg forms of every tense of the common verbs below are generated from their
// conjugation class. Irregular verbs stay in the lists above.

/// Regular -ar verbs. Orthography is adjusted where the subjunctive needs it (ficar → fiques, pagar → pagues,
/// começar → comeces).
const AR_VERBS: &[&str] = &[
    "falar", "enviar", "mandar", "ligar", "contactar", "ajudar", "esperar", "olhar", "escutar", "trabalhar",
    "estudar", "jogar", "gostar", "pensar", "achar", "acreditar", "comprar", "pagar", "usar", "utilizar", "tentar",
    "precisar", "deixar", "levar", "tomar", "chegar", "começar", "acabar", "ficar", "passar", "mudar", "morar",
    "viajar", "visitar", "voltar", "entrar", "ganhar", "lembrar", "imaginar", "gastar", "cozinhar", "andar", "nadar",
    "dançar", "cantar", "tocar", "chamar", "perguntar", "explicar", "mostrar", "contar", "encontrar", "procurar",
    "guardar", "lavar", "preparar", "planear", "planejar", "experimentar", "adorar", "amar", "detestar", "reparar",
    "notar", "apanhar", "arranjar", "continuar", "parar", "tirar", "pegar", "reservar", "marcar", "cancelar",
    "confirmar", "verificar", "assinar", "anexar", "descarregar", "carregar", "apagar", "fechar", "funcionar",
    "participar", "partilhar", "compartilhar", "conversar", "desculpar", "perdoar", "aceitar", "recusar", "evitar",
    "aproveitar", "descansar", "estacionar", "votar", "apoiar", "considerar", "recomendar", "aconselhar",
    "colecionar", "fotografar", "treinar", "praticar", "apostar", "celebrar", "comemorar", "mencionar", "gravar",
    "desenhar", "pintar", "criar", "ensinar", "lidar", "tratar", "cuidar", "preocupar", "acordar", "deitar",
    "levantar", "sentar", "casar", "namorar", "publicar", "postar", "fumar", "concordar", "alugar", "agradar",
    "desfrutar", "avisar", "informar", "entregar", "pesquisar", "relaxar", "sonhar", "chorar", "brincar",
    "caminhar", "saltar", "atravessar", "juntar", "separar", "trocar", "emprestar", "poupar", "ajustar", "instalar",
    "atualizar", "actualizar", "clicar", "digitar", "copiar", "colar", "reclamar", "telefonar", "convidar",
    "acompanhar", "assustar", "interessar", "importar", "adotar", "adoptar", "educar", "salvar", "esquiar", "pescar",
];
/// Regular -er verbs; -cer verbs write ç before a/o (conheças), -ger verbs j (protejas).
const ER_VERBS: &[&str] = &[
    "comer", "beber", "aprender", "responder", "escrever", "entender", "compreender", "vender", "correr", "receber",
    "escolher", "conhecer", "parecer", "esquecer", "agradecer", "oferecer", "merecer", "mexer", "meter", "prometer",
    "devolver", "resolver", "envolver", "torcer", "crescer", "nascer", "preencher", "varrer", "bater", "sofrer",
    "temer", "proteger", "eleger", "viver", "surpreender", "acender", "defender", "depender", "descrever",
    "reconhecer", "aparecer", "desaparecer", "estabelecer", "fornecer", "obedecer", "pertencer", "enriquecer",
];
/// Regular -ir verbs. Those whose present subjunctive changes the stem (sentir → sintas) are in `IR_STEM_CHANGE`
/// and get every other tense from here.
const IR_VERBS: &[&str] = &[
    "partir", "abrir", "decidir", "assistir", "discutir", "permitir", "insistir", "desistir", "resistir", "dividir",
    "definir", "imprimir", "cumprir", "assumir", "consumir", "resumir", "unir", "admitir", "transmitir",
    "garantir", "aplaudir", "curtir", "dirigir", "exigir", "proibir", "reunir", "omitir", "iludir",
];
/// -ir verbs with a changed stem in the present subjunctive (and, for some, the present 2sg): every other tense is
/// regular. (infinitive, 2sg present, 2sg present subjunctive)
const IR_STEM_CHANGE: &[(&str, &str, &str)] = &[
    ("sentir", "sentes", "sintas"),
    ("preferir", "preferes", "prefiras"),
    ("seguir", "segues", "sigas"),
    ("conseguir", "consegues", "consigas"),
    ("vestir", "vestes", "vistas"),
    ("servir", "serves", "sirvas"),
    ("repetir", "repetes", "repitas"),
    ("mentir", "mentes", "mintas"),
    ("divertir", "divertes", "divirtas"),
    ("sugerir", "sugeres", "sugiras"),
    ("dormir", "dormes", "durmas"),
    ("descobrir", "descobres", "descubras"),
    ("cobrir", "cobres", "cubras"),
    ("subir", "sobes", "subas"),
    ("fugir", "foges", "fujas"),
    ("pedir", "pedes", "peças"),
    ("ouvir", "ouves", "ouças"),
    ("conduzir", "conduzes", "conduzas"),
    ("investir", "investes", "invistas"),
    ("competir", "competes", "compitas"),
];
/// Generated forms that are also frequent nouns or adjectives: "as compras", "as contas", "uma marca", "as
/// perguntas", "as vendas", "as escolhas". They still count after "tu", "não" or a clitic (see `markers`).
const NOUN_FORMS: &[&str] = &[
    "compras", "contas", "marcas", "trocas", "voltas", "ajudas", "esperas", "passas", "notas", "visitas", "pesquisas",
    "reservas", "entregas", "vendas", "perguntas", "escolhas", "falas", "toques", "marques", "partes", "mudas",
    "pintas", "saltas", "colas", "copias", "garantias", "apostas", "gravas", "caminhas", "juntas", "chamas", "moras",
    "andas", "tratas", "acordes", "fechas", "descansas", "sonhas", "crias", "pescas", "gastas", "cantas", "bebes",
    "sofres", "bates", "varres", "partas", "resumes", "unes", "cumpres", "conheces", "levas", "tomas", "pagas",
    "usas", "passes", "postas", "reparas", "torces", "ligas", "liga", "pares", "parte", "conta", "marca", "troca", "volta",
    "ajuda", "espera", "nota", "visita", "pesquisa", "reserva", "entrega", "venda", "pergunta", "escolha", "fala",
    "compra", "passe", "toque", "garantia", "aposta", "grava", "caminha", "junta", "chama", "mora", "trata", "acorde",
    "cria", "pesca", "canta", "copia", "cola", "muda", "pinta", "salta", "leva", "toma", "paga", "usa", "posta",
];

/// Preterite stems of the irregular verbs (ter, fazer, querer, poder, saber, dizer, vir, ser/ir, estar, dar, ver,
/// pôr, trazer, haver, caber).
const IRREGULAR_PAST_STEMS: &[&str] = &[
    "tive", "fize", "quise", "pude", "soube", "disse", "vie", "fo", "estive", "de", "vi", "puse", "trouxe", "houve",
    "coube",
];

/// The irregular verbs' 3sg preterites, which no stem rule builds ("Já foi?", "Quando veio?").
const IRREGULAR_PRETERITE_3SG: &[&str] = &[
    "foi", "teve", "fez", "disse", "esteve", "pôde", "quis", "soube", "veio", "deu", "viu", "pôs", "trouxe", "houve",
    "coube",
];

/// The generated forms, built once.
struct Forms {
    /// 2sg forms no other person shares (ganhavas, comeste, falarás, contares, falasses).
    tu: std::collections::HashSet<String>,
    /// The 2sg present indicative and subjunctive (falas, fales, comes, comas): also plural nouns, so they count
    /// where a verb stands.
    tu_present: std::collections::HashSet<String>,
    /// The 3sg forms of every tense (falou, comia, partirá, fale, falasse): você with the pronoun dropped, or "he".
    voce: std::collections::HashSet<String>,
}

fn forms() -> &'static Forms {
    static FORMS: std::sync::OnceLock<Forms> = std::sync::OnceLock::new();
    FORMS.get_or_init(|| {
        use std::collections::HashSet;
        let (mut tu, mut tu_present, mut voce) = (HashSet::new(), HashSet::new(), HashSet::new());
        let mut add = |inf: &str, class: &str, present: Option<&str>, subj_2sg: Option<String>| {
            let stem = &inf[..inf.len() - 2];
            let (pret2, pret3, imp2, imp3, isubj) = match class {
                "ar" => ("aste", "ou", "avas", "ava", "asse"),
                "er" => ("este", "eu", "ias", "ia", "esse"),
                _ => ("iste", "iu", "ias", "ia", "isse"),
            };
            let pres2 = present.map(str::to_string).unwrap_or_else(|| format!("{stem}{}", if class == "ar" { "as" } else { "es" }));
            let subj2 = subj_2sg.unwrap_or_else(|| subjunctive_2sg(stem, class));
            tu.extend([
                format!("{stem}{pret2}"),
                format!("{stem}{imp2}"),
                format!("{inf}ás"),
                format!("{inf}ias"),
                format!("{stem}{isubj}s"),
                format!("{inf}es"),
            ]);
            tu_present.insert(pres2.clone());
            tu_present.insert(subj2.clone());
            voce.extend([
                pres2[..pres2.len() - 1].to_string(),
                format!("{stem}{pret3}"),
                format!("{stem}{imp3}"),
                format!("{inf}á"),
                format!("{inf}ia"),
                subj2[..subj2.len() - 1].to_string(),
                format!("{stem}{isubj}"),
            ]);
        };
        for v in AR_VERBS {
            add(v, "ar", None, None);
        }
        for v in ER_VERBS {
            add(v, "er", None, None);
        }
        for v in IR_VERBS {
            add(v, "ir", None, None);
        }
        for (v, pres, subj) in IR_STEM_CHANGE {
            add(v, "ir", Some(pres), Some(subj.to_string()));
        }
        // The irregular verbs' past tenses share the stem of the preterite (tive-, fize-, fo-): the 2sg preterite,
        // imperfect subjunctive and future subjunctive are built on it (tiveste, tivesses, tiveres).
        for stem in IRREGULAR_PAST_STEMS {
            tu.extend([format!("{stem}ste"), format!("{stem}sses"), format!("{stem}res")]);
            voce.extend([format!("{stem}sse"), format!("{stem}r")]);
        }
        voce.extend(IRREGULAR_PRETERITE_3SG.iter().map(|f| f.to_string()));
        // "deste ano", "desses jogos", "desse dia" are de + a demonstrative; "vir" is the infinitive, "for" also
        // English.
        for f in ["deste", "desses", "desse", "for", "vir"] {
            tu.remove(f);
            voce.remove(f);
        }
        for f in NOUN_FORMS.iter().chain(NOT_PERSONAL_INFINITIVE) {
            tu.remove(*f);
            voce.remove(*f);
        }
        Forms { tu, tu_present, voce }
    })
}

/// The 2sg present subjunctive: the vowel swaps (a ↔ e), with the spelling that keeps the consonant's sound.
fn subjunctive_2sg(stem: &str, class: &str) -> String {
    if class == "ar" {
        if let Some(s) = stem.strip_suffix('c') {
            return format!("{s}ques");
        }
        if let Some(s) = stem.strip_suffix('g') {
            return format!("{s}gues");
        }
        if let Some(s) = stem.strip_suffix('ç') {
            return format!("{s}ces");
        }
        return format!("{stem}es");
    }
    if let Some(s) = stem.strip_suffix('c') {
        return format!("{s}ças");
    }
    if let Some(s) = stem.strip_suffix('g') {
        return format!("{s}jas");
    }
    format!("{stem}as")
}

/// Words after which a generated present form (falas, comas) is a noun: articles, determiners, prepositions.
const BEFORE_NOUN: &[&str] = &[
    "o", "a", "os", "as", "um", "uma", "uns", "umas", "de", "do", "da", "dos", "das", "em", "no", "na", "nos", "nas",
    "para", "pelo", "pela", "pelos", "pelas", "com", "por", "ao", "aos", "às", "meu", "minha", "meus", "minhas",
    "teu", "tua", "teus", "tuas", "seu", "sua", "seus", "suas", "nosso", "nossa", "nossos", "nossas", "este", "esta",
    "estes", "estas", "esse", "essa", "esses", "essas", "aquele", "aquela", "aqueles", "aquelas", "muitos", "muitas",
    "poucos", "poucas", "vários", "várias", "alguns", "algumas", "todos", "todas", "outros", "outras", "quantos",
    "quantas", "dois", "duas", "três", "e", "ou", "sem", "entre", "sobre", "num", "numa", "novas", "boas", "mais",
];
/// Words before a finite verb: the subject "tu", negation, adverbs and conjunctions, and the object clitics.
const BEFORE_VERB: &[&str] = &[
    "tu", "não", "nunca", "já", "também", "ainda", "sempre", "só", "que", "se", "quando", "porque", "onde", "como",
    "me", "nos", "lhe", "lhes", "te", "mal", "quase", "talvez", "até",
];

/// A 2sg form of a generated verb. `Some(true)` when only a 2sg verb reads so (ganhavas, comeste, contares), or a
/// present form where a verb stands ("não compras", "se fales"); `Some(false)` for a present form elsewhere.
fn generated_tu(w: &str, prev: Option<&str>) -> Option<bool> {
    let f = forms();
    if f.tu.contains(w) {
        return Some(true);
    }
    if !f.tu_present.contains(w) {
        return None;
    }
    let at_verb = prev.is_some_and(|p| any(BEFORE_VERB, p));
    if at_verb {
        return Some(true);
    }
    if any(NOUN_FORMS, w) || prev.is_some_and(|p| any(BEFORE_NOUN, p)) {
        return None;
    }
    Some(false)
}

/// Third persons that, named before a 3sg verb in its sentence, make it "he/she", not the addressee.
const THIRD_PERSONS: &[&str] = &[
    "ele", "ela", "eles", "elas", "isso", "isto", "aquilo", "alguém", "ninguém", "quem", "tudo", "nada", "gente",
];

/// A generated 3sg verb asked about with no third person before it in its sentence ("Alguma vez andou a cavalo?",
/// "Que jogos jogou?"): the dropped subject is the reader. Weak: "Quando chegou?" may ask about someone named before.
fn generated_voce_question(text: &str, toks: &[Tok<'_>], i: usize) -> bool {
    let t = &toks[i];
    if !forms().voce.contains(t.norm.as_str()) {
        return false;
    }
    let rest = &text[t.end..];
    let asked = rest.find(['.', '!', '?']).is_some_and(|e| rest[e..].starts_with('?'));
    let ever = i >= 2 && toks[i - 2].norm == "alguma" && toks[i - 1].norm == "vez";
    if !asked && !ever {
        return false;
    }
    // The clause: back to the sentence start or a comma ("…fazer nada, alguma vez andou…").
    let start = (0..=i).rev().find(|&j| toks[j].sent_start || j > 0 && text[toks[j - 1].end..toks[j].start].contains(',')).unwrap_or(0);
    let third = toks[start..i].iter().any(|p| any(THIRD_PERSONS, &p.norm) || (p.capitalised() && !p.sent_start));
    let noun = i > 0 && !t.sent_start && any(BEFORE_NOUN, &toks[i - 1].norm);
    !third && !noun
}

/// "Tem um bom dia", "Tenha uma boa noite": the imperative of ter opening a wish is tu (tem) or você (tenha).
fn wish_closing(toks: &[Tok<'_>], i: usize) -> Option<crate::Register> {
    let register = match toks[i].norm.as_str() {
        "tem" => Informal,
        "tenha" => Formal,
        _ => return None,
    };
    let next: Vec<&str> = toks.get(i + 1..i + 3)?.iter().map(|t| t.norm.as_str()).collect();
    (toks[i].sent_start && matches!(next[0], "um" | "uma") && matches!(next[1], "bom" | "boa" | "óptimo" | "ótimo" | "ótima" | "óptima" | "excelente" | "resto"))
        .then_some(register)
}

/// "ele deveria", "ela sabe": a third-person pronoun right before the verb is its subject.
fn third_person_subject(text: &str, toks: &[Tok<'_>], i: usize) -> bool {
    i > 0
        && matches!(toks[i - 1].norm.as_str(), "ele" | "ela" | "eles" | "elas")
        && text[toks[i - 1].end..toks[i].start].trim().is_empty()
}

/// Imperatives said as an aside, tu and você: "Desculpa," / "Desculpe,", "Olha," / "Olhe,".
pub const INTERJECTION_IMPERATIVES: &[(&str, &str)] = &[
    ("desculpa", "desculpe"),
    ("olha", "olhe"),
    ("espera", "espere"),
    ("imagina", "imagine"),
    ("repara", "repare"),
    ("escuta", "escute"),
    ("perdoa", "perdoe"),
    ("ouve", "ouça"),
    ("ouve", "oiça"),
    ("vê", "veja"),
];

/// An imperative of [`INTERJECTION_IMPERATIVES`] opening a sentence and closed by a comma or a stop: tu for the
/// indicative-looking form, você for the subjunctive one.
fn interjection_imperative(text: &str, t: &Tok<'_>) -> Option<crate::Register> {
    if !t.sent_start || !text[t.end..].starts_with([',', '!', '.']) {
        return None;
    }
    INTERJECTION_IMPERATIVES.iter().find_map(|&(tu, voce)| {
        if t.norm == tu {
            Some(Informal)
        } else if t.norm == voce {
            Some(Formal)
        } else {
            None
        }
    })
}

/// Adverbs and prepositions ending like a 3sg verb that follow "se"/"que"/"não" ("desculpa-se sempre", "que
/// tarde").
const ADVERBS_IN_A_E: &[&str] = &["sempre", "tarde", "longe", "antes", "sobre", "sequer", "fora", "agora", "nunca", "quase", "onde", "contra", "para", "desde"];

/// The word before is an enclitic joined to its verb by a hyphen ("desculpa-se"): "se" there is no conjunction.
fn enclitic_before(toks: &[Tok<'_>], i: usize) -> bool {
    i > 0 && toks[i - 1].hyphen_before
}


#[cfg(test)]
mod tests {
    /// A verb filed under the wrong class would be conjugated wrongly, without a word.
    #[test]
    fn every_listed_verb_has_its_class_ending() {
        for (list, ending) in [(super::AR_VERBS, "ar"), (super::ER_VERBS, "er"), (super::IR_VERBS, "ir")] {
            for v in list {
                assert!(v.ends_with(ending) && v.len() > 3, "{v} is listed as an -{ending} verb");
            }
        }
        assert!(super::IR_STEM_CHANGE.iter().all(|(v, _, _)| v.ends_with("ir")));
    }
}
