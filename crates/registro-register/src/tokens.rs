//! Word tokens with byte offsets, for the space-separated languages. Hyphens and apostrophes split words so that
//! French inversions (`as-tu`) and elisions (`t'aime`) expose their pronoun.

#[derive(Clone, Debug)]
pub struct Tok<'a> {
    pub start: usize,
    pub end: usize,
    pub text: &'a str,
    /// Lower-cased, with zero-width joiners removed (they appear inside some Hindi words).
    pub norm: String,
    /// First word of a sentence (capitalisation carries no information there).
    pub sent_start: bool,
    /// The word was joined to the previous one by a hyphen (`as-tu`).
    pub hyphen_before: bool,
}

impl Tok<'_> {
    pub fn capitalised(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_uppercase)
    }
}

pub fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
        || (('\u{0900}'..='\u{097F}').contains(&c) && c != '\u{0964}' && c != '\u{0965}')
        || c == '\u{200C}'
        || c == '\u{200D}'
        || c == '\u{00B7}'
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '’'
}

pub fn tokenize(text: &str) -> Vec<Tok<'_>> {
    let mut out: Vec<Tok<'_>> = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut sent_start = true;
    let mut hyphen_before = false;
    while let Some((i, c)) = chars.next() {
        if is_word_char(c) {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if is_word_char(d) {
                    end = j + d.len_utf8();
                    chars.next();
                } else if is_apostrophe(d) {
                    // Elided French/Italian clitics end at the apostrophe ("t'", "l'"); English-style
                    // contractions inside longer words are kept whole.
                    end = j + d.len_utf8();
                    chars.next();
                    break;
                } else {
                    break;
                }
            }
            let t = &text[i..end];
            let norm: String = t.chars().filter(|c| *c != '\u{200C}' && *c != '\u{200D}').flat_map(char::to_lowercase).collect();
            let norm = norm.replace('’', "'");
            out.push(Tok { start: i, end, text: t, norm, sent_start, hyphen_before });
            sent_start = false;
            hyphen_before = false;
        } else {
            match c {
                '.' | '!' | '?' | '…' | ':' | ';' | '¿' | '¡' | '"' | '“' | '”' | '„' | '«' | '»' | '\n' | '।' | '|' => {
                    sent_start = true;
                    hyphen_before = false
                }
                '-' => hyphen_before = true,
                _ if c.is_whitespace() => hyphen_before = false,
                _ => {}
            }
        }
    }
    out
}

/// Index of the previous/next token, if any.
pub fn neighbour<'a>(toks: &'a [Tok<'a>], i: usize, delta: isize) -> Option<&'a Tok<'a>> {
    let j = i as isize + delta;
    (j >= 0).then(|| toks.get(j as usize)).flatten()
}
