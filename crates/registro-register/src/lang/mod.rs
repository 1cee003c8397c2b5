//! Marker rules, one module per language.
pub mod de;
pub mod es;
pub mod fr;
pub mod hi;
pub mod it;
pub mod ja;
pub mod ko;
pub mod learned;
pub mod nl;
pub mod pt;
pub mod ru;
pub mod vi;

use crate::tokens::Tok;
use crate::{marker, Marker, MarkerKind, Register};

pub(crate) fn push(out: &mut Vec<Marker>, text: &str, t: &Tok<'_>, r: Register, k: MarkerKind, strong: bool) {
    out.push(marker(text, t.start, t.end, r, k, strong));
}

pub(crate) fn any(words: &[&str], w: &str) -> bool {
    words.contains(&w)
}

/// Greetings and leave-takings a formal text never opens or closes with: "Ciao, posso inviare il file…" asked for
/// formally reads as a note to a friend even where no verb or pronoun shows the person. Weak, as a formal verb or
/// pronoun beside one makes the text mixed rather than informal.
pub(crate) fn informal_greetings(lang: crate::Lang) -> &'static [&'static str] {
    use crate::Lang::*;
    match lang {
        It => &["ciao"],
        Fr => &["salut", "coucou"],
        Pt => &["oi", "tchau"],
        De => &["tschüss", "tschüs", "ciao", "servus"],
        Nl => &["hoi", "doei"],
        Es => &["chao", "chau"],
        _ => &[],
    }
}

/// The informal greetings of `lang` in `toks`, as weak informal markers.
pub(crate) fn greeting_markers(lang: crate::Lang, text: &str, toks: &[Tok<'_>], out: &mut Vec<Marker>) {
    let words = informal_greetings(lang);
    for t in toks.iter().filter(|t| any(words, &t.norm)) {
        push(out, text, t, Register::Informal, MarkerKind::Greeting, false);
    }
}
