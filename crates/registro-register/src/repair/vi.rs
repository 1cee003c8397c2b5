//! Vietnamese (IWSLT 2023's convention): the informal addressee `bạn`/`cậu`/`mày` becomes `quý vị` and back; the
//! polite particles go when the sentence turns informal (`ạ` and a mid-sentence `dạ` are dropped, an opening `Dạ`
//! or `Vâng` becomes the casual `Ừ`), and `thưa quý vị` ("dear all") becomes plain `bạn`. The informal "I" (`tớ`,
//! `tao`) becomes `tôi`.
//!
//! Going formal, the text's last sentence ends on `ạ`, as the references' formal side does where it addresses
//! the listener.
use super::{Ctx, Edit};

pub(super) fn edits(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = addressee_edits(c);
    if c.to_formal && !out.is_empty() {
        let body = c.text.trim_end_matches(|ch: char| ch.is_whitespace() || matches!(ch, '.' | '?' | '!' | '…'));
        let last_word = c.toks.last().map(|t| t.norm.as_str());
        if !body.is_empty() && last_word != Some("ạ") {
            let at = body.len();
            out.push(Edit { start: at, end: at, from: String::new(), to: " ạ".into() });
        }
    }
    out
}

fn addressee_edits(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = Vec::new();
    for (i, t, w) in c.wrong_tokens() {
        if c.to_formal {
            let to = match w {
                "bạn" | "cậu" | "mày" => "quý vị",
                "tớ" | "tao" => "tôi",
                _ => continue,
            };
            out.push(c.edit_cased(i, to));
            continue;
        }
        match w {
            "quý" | "quí" => {
                let Some(noun) = c.toks.get(i + 1) else { continue };
                // "thưa quý vị" is a vocative: the informal sentence simply addresses "bạn".
                let start = match i.checked_sub(1) {
                    Some(p) if c.norm(p) == "thưa" => p,
                    _ => i,
                };
                let first = &c.toks[start];
                let to = if first.capitalised() { "Bạn" } else { "bạn" };
                out.push(Edit { start: first.start, end: noun.end, from: c.text[first.start..noun.end].to_string(), to: to.into() });
            }
            "dạ" | "vâng" if t.sent_start => out.push(c.edit(i, if t.capitalised() { "Ừ" } else { "ừ" })),
            "ạ" | "dạ" => {
                // The particle goes with the space before it, so no double space is left behind.
                let start = c.text[..t.start].trim_end().len();
                out.push(Edit { start, end: t.end, from: c.text[start..t.end].to_string(), to: String::new() });
            }
            _ => {}
        }
    }
    out
}
