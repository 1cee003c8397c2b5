//! Constrained decoding: marker strings of the other register to ban, and of the requested one to nudge towards.
//! The engine adapter turns each string into token sequences (with and without a leading space, capitalised).
use registro_register::{Lang, Register};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Constraints {
    pub ban: Vec<String>,
    /// (marker, logit bias) pairs; a small positive bias only, so fluency still decides.
    pub boost: Vec<(String, f32)>,
    /// The boosted strings that are a termbase's required terms (each also in `boost`, with its bias). A register
    /// marker is a nudge on a single token; a term is asked for whole: the engine boosts its first token until the
    /// term is written and completes a term once started, however many tokens it takes. A backend that can only
    /// bias single tokens (a server's `logit_bias`) treats it as any boost.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub terms: Vec<String>,
}

impl Constraints {
    pub fn is_empty(&self) -> bool {
        self.ban.is_empty() && self.boost.is_empty()
    }

    /// Adds a termbase's terms for one segment: forbidden targets banned, required ones boosted harder than a
    /// register marker (the client asked for that word).
    pub fn with_terms(mut self, terms: &registro_qa::termbase::GenerationTerms) -> Self {
        self.ban.extend(terms.ban.iter().cloned());
        for t in &terms.require {
            self.boost.push((t.clone(), TERM_BOOST));
            self.terms.push(t.clone());
        }
        self
    }
}

pub const TERM_BOOST: f32 = 3.0;

const BOOST: f32 = 1.5;

/// Space-separated words are banned/boosted as whole words after a space or at a sentence start; Japanese
/// endings are matched anywhere.
pub fn for_register(lang: Lang, register: Register) -> Constraints {
    let informal: &[&str] = match lang {
        Lang::De => &["du", "dich", "dir", "dein", "deine", "deinen", "deinem", "deiner", "deines", "Du", "Dich", "Dir", "Dein", "Deine"],
        Lang::Es => &["tú", "Tú", "ti", "contigo", "tu", "Tu", "tus", "Tus", "te", "Te", "tienes", "sabes", "puedes", "quieres", "eres", "estás", "has", "Has"],
        Lang::Fr => &["tu", "Tu", "te", "toi", "ton", "Ton", "ta", "Ta", "tes", "Tes", "-tu", "t'"],
        Lang::It => &["tu", "Tu", "ti", "Ti", "te", "tuo", "tua", "tuoi", "tue", "Tuo", "Tua", "hai", "Hai", "sai", "Sai", "puoi", "vuoi", "sei", "Sei"],
        Lang::Hi => &["तू", "तुम", "तुम्हारा", "तुम्हारी", "तुम्हारे", "तुम्हें", "तुमने", "तुमसे", "तुझे", "तेरा", "तेरी", "तेरे"],
        Lang::Ja => &[],
        Lang::Nl => &["jij", "Jij", "je", "Je", "jou", "jouw", "Jouw", "jullie"],
        Lang::Pt => &["tu", "Tu", "te", "ti", "contigo", "teu", "Teu", "tua", "Tua", "teus", "tuas", "tens", "Tens", "estás", "podes", "queres", "sabes"],
        Lang::Ru => &["ты", "Ты", "тебя", "тебе", "Тебе", "тобой", "твой", "Твой", "твоя", "Твоя", "твоё", "твои", "твоего", "твоей", "твою"],
        // Plain endings are too many to ban; the informal pronoun is not.
        Lang::Ko => &["너", "너는", "네가", "너를", "너의"],
        Lang::Vi => &["bạn", "Bạn", "cậu", "Cậu", "mày", "tớ"],
    };
    let formal: &[&str] = match lang {
        Lang::De => &["Sie", "Ihnen", "Ihr", "Ihre", "Ihren", "Ihrem", "Ihrer"],
        Lang::Es => &["usted", "Usted"],
        Lang::Fr => &["vous", "Vous", "votre", "Votre", "vos", "Vos", "-vous"],
        Lang::It => &["Lei", "Suo", "Sua", "Suoi"],
        Lang::Hi => &["आप", "आपका", "आपकी", "आपके", "आपको", "आपने", "आपसे"],
        Lang::Ja => &["です", "ます", "ました", "ません", "でした", "でしょう", "ください"],
        Lang::Nl => &["u", "U", "uw", "Uw"],
        Lang::Pt => &["o senhor", "a senhora", "você", "Você"],
        Lang::Ru => &["Вы", "вы", "вас", "Вас", "вам", "Вам", "ваш", "Ваш", "ваша", "ваши", "вашей"],
        Lang::Ko => &["요", "니다", "세요", "습니다", "니까"],
        Lang::Vi => &["quý vị", "Quý vị", "ạ"],
    };
    let (ban, boost) = if register.is_formal_side() { (informal, formal) } else { (formal, informal) };
    let boost: &[&str] = match (lang, register) {
        // "Sie"/"vous" are also "they"/plural; banning them for informal requests is right, boosting for formal
        // ones is enough. Japanese plain forms are too many to boost.
        (Lang::Ja, Register::Informal) => &[],
        // Korean plain endings are too many to boost; "bạn" is also "friend".
        (Lang::Ko | Lang::Vi, Register::Informal) => &[],
        _ => boost,
    };
    let ban: Vec<String> = match (lang, register) {
        // "Sie" is also "she/they" and "Ihr" "her/their": only the unambiguous dative "Ihnen" is banned.
        (Lang::De, Register::Informal) => vec!["Ihnen".into()],
        // Korean polite endings are parts of words, "ạ" and "quý vị" are safe to ban but "u" is also the letter;
        // Dutch informal requests ban only "uw", Korean ones nothing (the reranker and the flags decide there).
        (Lang::Nl, Register::Informal) => vec!["uw".into(), "Uw".into()],
        (Lang::Ko, Register::Informal) => Vec::new(),
        (Lang::Vi, Register::Formal) => vec!["cậu".into(), "Cậu".into(), "mày".into(), "tớ".into()],
        _ => ban.iter().map(|s| s.to_string()).collect(),
    };
    Constraints { ban, boost: boost.iter().map(|s| (s.to_string(), BOOST)).collect(), terms: Vec::new() }
}
