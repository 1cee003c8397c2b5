//! The inline placeholders `registro-formats` puts in a segment for markup it must put back (`<1>`, `</1>`,
//! `<2/>`): a translation must carry each exactly once, opening before closing.

/// One placeholder and where it is (bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    pub token: String,
    pub start: usize,
    pub end: usize,
}

/// Every placeholder in `s`, in order. Anything else that looks like markup (`<b>`, `< 1>`) is text.
pub fn find(s: &str) -> Vec<Tag> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'<' {
            let mut j = i + 1;
            if b.get(j) == Some(&b'/') {
                j += 1;
            }
            let digits = j;
            while j < b.len() && b[j].is_ascii_digit() && j - digits < 6 {
                j += 1;
            }
            if j > digits {
                let closing_slash = b[i + 1] == b'/';
                if !closing_slash && b.get(j) == Some(&b'/') {
                    j += 1;
                }
                if b.get(j) == Some(&b'>') {
                    out.push(Tag {
                        token: s[i..=j].to_string(),
                        start: i,
                        end: j + 1,
                    });
                    i = j + 1;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// `s` with its placeholders replaced by spaces, so their digits are never read as numbers.
pub fn strip(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pos = 0;
    for t in find(s) {
        out.push_str(&s[pos..t.start]);
        out.push(' ');
        pos = t.end;
    }
    out.push_str(&s[pos..]);
    out
}

/// What is wrong with the target's placeholders compared with the source's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TagDiff {
    pub missing: Vec<String>,
    pub extra: Vec<Tag>,
    /// Same placeholders in another order (languages reorder phrases, so this is only a warning).
    pub reordered: bool,
    /// A closing placeholder before its opening one: the markup cannot be rebuilt.
    pub closes_before_open: Vec<Tag>,
}

impl TagDiff {
    pub fn is_empty(&self) -> bool {
        self.missing.is_empty()
            && self.extra.is_empty()
            && !self.reordered
            && self.closes_before_open.is_empty()
    }
}

pub fn compare(source: &str, target: &str) -> TagDiff {
    let (s, t) = (find(source), find(target));
    let mut left: Vec<&str> = s.iter().map(|x| x.token.as_str()).collect();
    let mut extra = Vec::new();
    for tag in &t {
        match left.iter().position(|x| *x == tag.token) {
            Some(p) => {
                left.remove(p);
            }
            None => extra.push(tag.clone()),
        }
    }
    let missing: Vec<String> = left.into_iter().map(str::to_string).collect();
    let order = |v: &[Tag]| v.iter().map(|x| x.token.clone()).collect::<Vec<_>>();
    let reordered = missing.is_empty() && extra.is_empty() && order(&s) != order(&t);
    let mut closes_before_open = Vec::new();
    for (k, tag) in t.iter().enumerate() {
        if let Some(n) = tag.token.strip_prefix("</") {
            let open = format!("<{n}");
            if !t[..k].iter().any(|x| x.token == open) && t[k..].iter().any(|x| x.token == open) {
                closes_before_open.push(tag.clone());
            }
        }
    }
    TagDiff {
        missing,
        extra,
        reordered,
        closes_before_open,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_found_and_other_markup_is_text() {
        let toks: Vec<String> = find("a <1>b</1> <2/> <b> < 3> <12345678> x<4>")
            .into_iter()
            .map(|t| t.token)
            .collect();
        assert_eq!(toks, ["<1>", "</1>", "<2/>", "<4>"]);
        assert_eq!(strip("room <1>12</1>"), "room  12 ");
    }

    #[test]
    fn missing_extra_reordered_and_inverted_tags() {
        let src = "Click <1>Save</1> and <2/> then <3>Exit</3>.";
        assert!(compare(
            src,
            "Klicken Sie auf <1>Speichern</1> und <2/> dann <3>Beenden</3>."
        )
        .is_empty());
        let d = compare(
            src,
            "Klicken Sie auf Speichern</1> und <2/> <2/> dann <3>Beenden</3>.",
        );
        assert_eq!(d.missing, ["<1>"]);
        assert_eq!(
            d.extra.iter().map(|t| t.token.as_str()).collect::<Vec<_>>(),
            ["<2/>"]
        );
        let d = compare(src, "<3>Beenden</3>, <2/> und <1>Speichern</1>.");
        assert!(d.reordered && d.missing.is_empty() && d.extra.is_empty());
        let d = compare("<1>a</1>", "</1>a<1>");
        assert_eq!(d.closes_before_open.len(), 1);
    }
}
