//! Italian tu ↔ Lei.
use super::{swap_ending, table, Ctx, Edit};

const POSSESSIVES: &[(&str, &str)] = &[("tuo", "suo"), ("tua", "sua"), ("tuoi", "suoi"), ("tue", "sue")];
/// 2sg ↔ 3sg irregular verbs, and informal imperative ↔ formal (subjunctive) imperative.
const VERBS: &[(&str, &str)] = &[
    ("sei", "è"), ("hai", "ha"), ("sai", "sa"), ("puoi", "può"), ("vuoi", "vuole"), ("devi", "deve"), ("vai", "va"),
    ("fai", "fa"), ("dici", "dice"), ("stai", "sta"), ("dai", "dà"), ("eri", "era"), ("esci", "esce"),
    ("vieni", "viene"), ("tieni", "tiene"), ("conosci", "conosce"), ("credi", "crede"), ("vedi", "vede"),
    ("senti", "sente"), ("leggi", "legge"), ("vivi", "vive"), ("capisci", "capisce"), ("preferisci", "preferisce"),
    ("trascorri", "trascorre"), ("scrivi", "scrive"), ("prendi", "prende"), ("metti", "mette"), ("perdi", "perde"),
    ("scusa", "scusi"), ("guarda", "guardi"), ("dimmi", "mi dica"), ("fammi", "mi faccia"), ("goditi", "si goda"),
    ("divertiti", "si diverta"), ("ascolta", "ascolti"), ("senti!", "senta"), ("immagina", "immagini"),
    ("pensa", "pensi"), ("aspetta", "aspetti"), ("vai!", "vada"), ("abbi", "abbia"), ("sii", "sia"),
];
const PREPOSITIONS: &[&str] = &["a", "per", "con", "di", "da", "su", "tra", "fra", "che", "come", "e", "anche", "senza"];

fn to_3sg(w: &str) -> Option<String> {
    const E: &[(&str, &str)] = &[
        ("resti", "rebbe"), ("avi", "ava"), ("evi", "eva"), ("ivi", "iva"), ("asti", "ò"), ("isti", "ì"),
        ("arti", "arLa"), ("erti", "erLa"), ("irti", "irLa"), ("i", "a"),
    ];
    table(VERBS, w, true).map(str::to_string).or_else(|| swap_ending(w, E))
}

fn to_2sg(w: &str) -> Option<String> {
    const E: &[(&str, &str)] = &[
        ("rebbe", "resti"), ("ava", "avi"), ("eva", "evi"), ("iva", "ivi"), ("ò", "asti"), ("ì", "isti"),
        ("arla", "arti"), ("erla", "erti"), ("irla", "irti"), ("arle", "arti"), ("erle", "erti"), ("irle", "irti"),
        ("a", "i"), ("e", "i"),
    ];
    table(VERBS, w, false).map(str::to_string).or_else(|| swap_ending(w, E))
}

pub(super) fn edits(c: &Ctx<'_>) -> Vec<Edit> {
    let mut out = Vec::new();
    for (i, t, w) in c.wrong_tokens() {
        let prev = i.checked_sub(1).map(|j| c.norm(j)).unwrap_or("");
        let next = c.norm(i + 1);
        if c.to_formal {
            match w {
                // Courtesy "Lei" is capitalised wherever it stands, subject ("tu") or stressed object ("te").
                "tu" | "te" => out.push(c.edit(i, "Lei")),
                "ti" => {
                    // Dative with piacere & co. ("ti piace" → "Le piace"), reflexive before the addressee's verb
                    // ("ti ricordi" → "si ricorda"), accusative otherwise ("ti ringrazio" → "La ringrazio").
                    let dative = matches!(next, "piace" | "piacciono" | "piaceva" | "piacerebbe" | "interessa" | "sembra" | "va" | "è" | "sono" | "serve");
                    let to = if dative { "Le" } else if c.is_wrong(i + 1) { "si" } else { "La" };
                    out.push(c.edit(i, if to == "si" && t.capitalised() { "Si" } else { to }));
                }
                _ => {
                    if let Some(p) = table(POSSESSIVES, w, true) {
                        out.push(c.edit_cased(i, p));
                    } else if let Some(v) = to_3sg(w) {
                        out.push(c.edit_cased(i, &v));
                    }
                }
            }
        } else {
            match t.text {
                "Lei" | "lei" => out.push(c.edit(i, if PREPOSITIONS.contains(&prev) { "te" } else if t.sent_start { "Tu" } else { "tu" })),
                "La" | "Le" if !t.sent_start || t.text == "Le" => out.push(c.edit(i, if t.sent_start { "Ti" } else { "ti" })),
                _ => {
                    if let Some(p) = table(POSSESSIVES, w, false) {
                        out.push(c.edit_cased(i, p));
                    } else if w == "si" {
                        out.push(c.edit_cased(i, "ti"));
                    } else if let Some(v) = to_2sg(w) {
                        out.push(c.edit_cased(i, &v));
                    }
                }
            }
        }
    }
    // "si ricorda" → "ti ricordi": the reflexive before a converted verb follows it.
    if !c.to_formal {
        for (i, t) in c.toks.iter().enumerate() {
            if t.norm == "si" && c.is_wrong(i + 1) && !out.iter().any(|e| e.start == t.start) {
                out.push(c.edit_cased(i, "ti"));
            }
        }
    }
    out
}
