//! European Portuguese repair (tu ↔ você): hand-written sentences in both directions, and floors on the CoCoA-MT
//! en-ptpt training pairs.
use registro_register::{eval, Label, Lang, Register};

mod common;
use common::{assert_converts, assert_left_alone, assert_repaired_reads_as_asked, label, training_pairs};

const TO_FORMAL: &[(&str, &str)] = &[
    // Capitalised first word, regular and irregular 2sg verbs, possessive.
    ("Tens um carro?", "Tem um carro?"),
    ("Viste o teu irmão ontem?", "Viu o seu irmão ontem?"),
    ("Estás bem? Fizeste o que te pedi?", "Está bem? Fez o que lhe pedi?"),
    ("Se quiseres, podes ligar amanhã.", "Se quiser, pode ligar amanhã."),
    ("Tu és muito simpático.", "Você é muito simpático."),
    // Clitics: reflexive, direct object after an infinitive, indirect object.
    ("Não te preocupes, eu trato disso.", "Não se preocupe, eu trato disso."),
    ("Lembras-te do teu primeiro carro?", "Lembra-se do seu primeiro carro?"),
    ("Posso ajudar-te com o teu pedido?", "Posso ajudá-lo com o seu pedido?"),
    ("Vou dar-te o meu número.", "Vou dar-lhe o meu número."),
    ("Foi um prazer falar contigo.", "Foi um prazer falar consigo."),
    ("Isto é para ti.", "Isto é para si."),
];

const TO_INFORMAL: &[(&str, &str)] = &[
    ("Sabe onde fica a estação?", "Sabes onde fica a estação?"),
    ("Você viu o filme?", "Tu viste o filme?"),
    ("Qual é o seu prato favorito?", "Qual é o teu prato favorito?"),
    ("Gosta de ler?", "Gostas de ler?"),
    ("Vou dar-lhe o meu número.", "Vou dar-te o meu número."),
    ("Lembra-se do seu primeiro carro?", "Lembras-te do teu primeiro carro?"),
    ("Foi ótimo falar consigo!", "Foi ótimo falar contigo!"),
    ("O senhor é muito simpático.", "Tu és muito simpático."),
    ("Não se preocupe com isso, está bem?", "Não te preocupes com isso, estás bem?"),
];

#[test]
fn converts_both_ways_and_reads_as_asked() {
    let cases: Vec<(&str, Register, &str)> = TO_FORMAL
        .iter()
        .map(|&(i, f)| (i, Register::Formal, f))
        .chain(TO_INFORMAL.iter().map(|&(f, i)| (f, Register::Informal, i)))
        .collect();
    assert_converts(Lang::Pt, &cases);
    for (s, register, _) in cases {
        assert_repaired_reads_as_asked(Lang::Pt, s, register);
    }
}

#[test]
fn neutral_and_unmarked_words_stay() {
    for s in ["O comboio chega às dez.", "Eles foram ao cinema ontem."] {
        assert_eq!(label(Lang::Pt, s), Label::Neutral, "{s}");
        assert_left_alone(Lang::Pt, s);
    }
    // "consigo" before an infinitive is "I manage", not "with you"; the plural addressee is the same in both registers.
    assert_converts(Lang::Pt, &[
        ("Não consigo ver nada.", Register::Informal, "Não consigo ver nada."),
        ("Cuidem das vossas crianças, tens razão.", Register::Formal, "Cuidem das vossas crianças, tem razão."),
    ]);
}

/// Measured with `cargo run -p registro-register --example repair_eval -- --lang pt` on all 400 contrastive en-ptpt
/// training pairs (rules tuned on the pool split only); the floors sit 0.02 below.
#[test]
fn floors_on_cocoa_mt_pairs() {
    let Some(pairs) = training_pairs(Lang::Pt) else { return };
    let s = eval::repair_stats(Lang::Pt, &pairs);
    let f = |n: usize| n as f64 / s.pairs as f64;
    let measured = [
        ("round trip F→I→F", f(s.round_trip_formal), 0.955),
        // Since the analyzer reads -aste as 2sg, "andaste" is repaired to the reference's "andou", which no rule
        // may read as formal outside a question (it is as often "he walked"), so the way back stops there. Since
        // every tense's 2sg form is generated from the verb's class (ganhavas, contares), more of them are
        // repaired: I→F→I 0.718 → 0.735, informal reference hit 0.620 → 0.668, formal 0.825 → 0.865.
        ("round trip I→F→I", f(s.round_trip_informal), 0.735),
        ("equals informal reference", f(s.exact_to_informal), 0.668),
        ("equals formal reference", f(s.exact_to_formal), 0.865),
        ("→informal labelled", f(s.label_to_informal), 0.975),
        ("→formal labelled", f(s.label_to_formal), 0.970),
    ];
    for (what, got, was) in measured {
        println!("pt {what}: {got:.3} (measured {was})");
        assert!(got >= was - 0.02, "pt {what}: {got:.3} below {was} - 0.02");
    }
}
