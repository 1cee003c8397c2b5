//! Vietnamese (IWSLT 2023's convention): the formal addressee is `quý vị` / `quý khách` / `anh chị`, often with the
//! polite particle `ạ` (and `dạ`, `vâng`); the informal one is `bạn`, `cậu`, `mày`, with `tớ`/`mình` for "I".
//! `bạn` also means "friend" ("bạn của quý vị", "bạn trai", "bạn bè"), so it is only the addressee when it is not
//! followed by `của` or a compound's second half, or preceded by a quantifier.
use super::push;
use crate::tokens::{neighbour, Tok};
use crate::{Marker, MarkerKind::*, Register::*};

pub fn markers(text: &str, toks: &[Tok<'_>]) -> Vec<Marker> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let w = t.norm.as_str();
        let next = neighbour(toks, i, 1).map(|n| n.norm.as_str());
        let prev = neighbour(toks, i, -1)
            .filter(|_| !t.sent_start)
            .map(|p| p.norm.as_str());
        if (w == "quý" || w == "quí") && matches!(next, Some("vị" | "khách" | "anh" | "bà" | "ông" | "cô")) {
            let n = &toks[i + 1];
            out.push(crate::marker(text, t.start, n.end, Formal, Pronoun, true));
            i += 2;
            continue;
        }
        match w {
            "ạ" | "dạ" => push(&mut out, text, t, Formal, Ending, true),
            "vâng" => push(&mut out, text, t, Formal, Ending, false),
            "bạn" if ban_is_the_addressee(prev, next) => {
                push(&mut out, text, t, Informal, Pronoun, true)
            }
            "cậu" | "mày" | "tớ" | "tao" => push(&mut out, text, t, Informal, Pronoun, true),
            _ => {}
        }
        i += 1;
    }
    out
}

/// `bạn` is "you" unless it is "friend": before `của` or as the head of a compound (bạn bè, bạn trai), after a
/// quantifier (những bạn), or as a predicate ("là bạn tôi" is "is my friend", but "vậy là bạn phải" is "so you
/// must").
fn ban_is_the_addressee(prev: Option<&str>, next: Option<&str>) -> bool {
    let compound = matches!(next, Some("của" | "bè" | "trai" | "gái" | "thân" | "học" | "đời" | "cùng" | "đồng"));
    let counted = prev.is_some_and(|p| matches!(p, "những" | "các" | "người" | "một"));
    let predicate = prev.is_some_and(|p| matches!(p, "là" | "làm"))
        && next.is_none_or(|n| matches!(n, "tôi" | "mình" | "anh" | "em" | "chị" | "với" | "tốt" | "cũ" | "lâu"));
    !(compound || counted || predicate)
}
