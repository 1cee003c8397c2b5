//! German du ↔ Sie.
use super::{table, Ctx, Edit};

const PRONOUNS: &[(&str, &str)] = &[("du", "Sie"), ("dir", "Ihnen")];
const POSSESSIVES: &[(&str, &str)] = &[
    ("dein", "Ihr"), ("deine", "Ihre"), ("deinem", "Ihrem"), ("deinen", "Ihren"), ("deiner", "Ihrer"), ("deines", "Ihres"),
];
/// 2sg ↔ 3pl for the irregular verbs; the rest follow -st ↔ -en.
const VERBS: &[(&str, &str)] = &[
    ("bist", "sind"), ("hast", "haben"), ("weißt", "wissen"), ("kannst", "können"), ("musst", "müssen"),
    ("willst", "wollen"), ("sollst", "sollen"), ("darfst", "dürfen"), ("magst", "mögen"), ("wirst", "werden"),
    ("warst", "waren"), ("tust", "tun"), ("isst", "essen"), ("liest", "lesen"), ("siehst", "sehen"),
    ("fährst", "fahren"), ("gibst", "geben"), ("nimmst", "nehmen"), ("sprichst", "sprechen"), ("hilfst", "helfen"),
    ("triffst", "treffen"), ("läufst", "laufen"), ("schläfst", "schlafen"), ("trägst", "tragen"),
    ("vergisst", "vergessen"), ("wärst", "wären"), ("hältst", "halten"), ("lässt", "lassen"), ("isst", "essen"),
    ("wirfst", "werfen"), ("stirbst", "sterben"), ("empfiehlst", "empfehlen"), ("brätst", "braten"),
    ("heißt", "heißen"), ("weisst", "wissen"), ("gefällt", "gefallen"), ("erinnerst", "erinnern"),
    ("wanderst", "wandern"), ("änderst", "ändern"), ("sammelst", "sammeln"),
];
/// Imperative (du) ↔ "… Sie" imperative.
const IMPERATIVES: &[(&str, &str)] = &[("sei", "seien"), ("hab", "haben"), ("komm", "kommen"), ("nimm", "nehmen"), ("gib", "geben"), ("sieh", "sehen"), ("lies", "lesen"), ("iss", "essen"), ("hilf", "helfen"), ("vergiss", "vergessen")];

fn to_3pl(w: &str) -> Option<String> {
    if let Some(v) = table(VERBS, w, true) {
        return Some(v.to_string());
    }
    let stem = w.strip_suffix("est").or_else(|| w.strip_suffix("st"))?;
    Some(format!("{stem}en"))
}

fn to_2sg(w: &str) -> Option<String> {
    if let Some(v) = table(VERBS, w, false) {
        return Some(v.to_string());
    }
    let stem = w.strip_suffix("en").or_else(|| w.strip_suffix('n').filter(|s| s.ends_with("er") || s.ends_with("el")))?;
    let needs_e = stem.ends_with('t') || stem.ends_with('d') || stem.ends_with("chn") || stem.ends_with("ffn") || stem.ends_with("gn");
    Some(format!("{stem}{}st", if needs_e { "e" } else { "" }))
}

const SUBORDINATORS: &[&str] = &[
    "wenn", "dass", "ob", "weil", "als", "wie", "was", "welche", "welcher", "welches", "wo", "warum", "wann", "obwohl",
    "damit", "falls", "bevor", "nachdem", "während", "sobald", "seit", "bis", "wer", "wohin", "woher", "worüber",
    "womit", "wofür", "sodass", "solange",
];
const NOT_VERBS: &[&str] = &[
    "den", "denn", "einen", "keinen", "meinen", "seinen", "ihnen", "dann", "wann", "schon", "ihren", "diesen",
    "jeden", "allen", "vielen", "anderen", "wenn", "man", "kein", "ein", "mein", "sein", "von", "in", "an",
];

fn verbish(c: &Ctx<'_>, j: usize) -> bool {
    let w = c.norm(j);
    (w.ends_with('n') || table(VERBS, w, false).is_some()) && !NOT_VERBS.contains(&w)
}

/// Where the verb agreeing with "Sie" at `i` stands: before it (question / inversion), at the end of a subordinate
/// clause ("wenn Sie … bestellen"), or right after it.
fn finite_verb_of_sie(c: &Ctx<'_>, i: usize) -> Option<usize> {
    let prev = i.checked_sub(1).filter(|_| !c.toks[i].sent_start);
    if let Some(p) = prev {
        if SUBORDINATORS.contains(&c.norm(p)) {
            let mut j = i + 1;
            let mut last = None;
            while j < c.toks.len() && !c.toks[j].sent_start && !c.text[c.toks[j - 1].end..c.toks[j].start].contains(',') {
                if verbish(c, j) && !c.toks[j].capitalised() {
                    last = Some(j);
                }
                j += 1;
            }
            // "… haben müssten": the finite verb is the last one.
            return last;
        }
        if verbish(c, p) && !c.text[c.toks[p].end..c.toks[i].start].contains(',') {
            return Some(p);
        }
    }
    let n = i + 1;
    (n < c.toks.len() && !c.toks[n].sent_start && verbish(c, n) && !c.toks[n].capitalised()).then_some(n)
}

pub(super) fn edits(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = Vec::new();
    let sentence_is_question = |i: usize| {
        let end = c.toks[i + 1..].iter().find(|t| t.sent_start).map(|t| t.start).unwrap_or(c.text.len());
        c.text[c.toks[i].end..end].contains('?')
    };
    for (i, t) in c.toks.iter().enumerate() {
        let w = t.norm.as_str();
        if c.to_formal {
            if !c.is_wrong(i) && !(w == "dich" && i > 0 && c.is_wrong(i - 1)) {
                continue;
            }
            if w == "du" {
                out.push(c.edit(i, "Sie"));
            } else if w == "dich" {
                // Right after the subject pair ("freust du dich", "du freust dich") it is reflexive.
                let reflexive = (i >= 2 && (c.norm(i - 1) == "du" || c.norm(i - 2) == "du")) && c.norm(i - 1) != "für";
                out.push(c.edit(i, if reflexive { "sich" } else { "Sie" }));
            } else if let Some(p) = table(PRONOUNS, w, true).or_else(|| table(POSSESSIVES, w, true)) {
                out.push(c.edit(i, p));
            } else if let Some(v) = to_3pl(w) {
                let v = if t.capitalised() { super::capitalise(&v) } else { v };
                out.push(c.edit(i, v));
            }
        } else {
            if t.text == "Sie" && (c.is_wrong(i) || i > 0 && c.is_wrong(i - 1)) {
                // "Schauen Sie mal" (polite imperative, not a question) → "Schau mal".
                if i == 1 && c.toks[0].sent_start && !sentence_is_question(i) && c.norm(0).ends_with('n') {
                    let v = c.norm(0);
                    let imp = table(IMPERATIVES, v, false).map(str::to_string).unwrap_or_else(|| v.trim_end_matches("en").trim_end_matches('n').to_string());
                    out.push(c.edit(0, super::capitalise(&imp)));
                    out.push(Edit { start: c.toks[0].end, end: t.end, from: c.text[c.toks[0].end..t.end].to_string(), to: String::new() });
                    continue;
                }
                out.push(c.edit(i, if t.sent_start { "Du" } else { "du" }));
                if let Some(j) = finite_verb_of_sie(c, i) {
                    if let Some(f) = to_2sg(c.norm(j)) {
                        out.push(c.edit_cased(j, &f));
                    }
                }
                // A reflexive "sich" after the verb belongs to the addressee.
                if let Some(s) = (i + 1..(i + 3).min(c.toks.len())).find(|&j| c.norm(j) == "sich") {
                    out.push(c.edit(s, "dich"));
                }
            } else if c.is_wrong(i) && t.text == "Ihnen" {
                out.push(c.edit(i, "dir"));
            } else if c.is_wrong(i) && t.capitalised() {
                if let Some(p) = table(POSSESSIVES, t.text, false) {
                    out.push(c.edit_cased(i, p).with_case(t.sent_start));
                }
            }
        }
    }
    out
}

trait SentenceCase {
    fn with_case(self, sentence_start: bool) -> Self;
}

impl SentenceCase for Edit {
    /// German possessives are lower-case unless they open a sentence.
    fn with_case(mut self, sentence_start: bool) -> Self {
        if !sentence_start {
            self.to = self.to.to_lowercase();
        }
        self
    }
}
