//! TMX 1.4 export of approved segments, the translation memory format every CAT tool imports.

#[derive(Debug, Clone)]
pub struct TmxUnit {
    pub source: String,
    pub target: String,
}

fn esc(s: &str) -> String {
    // XML 1.0 has no way to write most control characters, not even escaped: a TM with one would not load.
    s.chars()
        .filter(|&c| !c.is_control() || matches!(c, '\t' | '\n' | '\r'))
        .collect::<String>()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A TMX 1.4b document with one `<tu>` per unit.
pub fn tmx(units: &[TmxUnit], src_lang: &str, tgt_lang: &str) -> String {
    let mut out =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tmx version=\"1.4\">\n");
    out.push_str(&format!(
        "  <header creationtool=\"Registro\" creationtoolversion=\"{}\" segtype=\"sentence\" o-tmf=\"registro\" adminlang=\"en\" srclang=\"{}\" datatype=\"plaintext\"/>\n  <body>\n",
        env!("CARGO_PKG_VERSION"),
        esc(src_lang)
    ));
    for u in units {
        out.push_str(&format!(
            "    <tu>\n      <tuv xml:lang=\"{}\"><seg>{}</seg></tuv>\n      <tuv xml:lang=\"{}\"><seg>{}</seg></tuv>\n    </tu>\n",
            esc(src_lang),
            esc(&u.source),
            esc(tgt_lang),
            esc(&u.target)
        ));
    }
    out.push_str("  </body>\n</tmx>\n");
    out
}
