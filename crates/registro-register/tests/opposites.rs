//! A word turned into its opposite (issue 43's "meaning reversed"): "Can you shut it?" translated as "can you open
//! it?", "buy" as "sell". The embedding check scores an antonym as close to its word; this rule does not.
mod common;

use registro_register::meaning::{check, MeaningIssue};
use registro_register::Lang;

fn opposite(lang: Lang, source: &str, output: &str) -> Option<String> {
    check(lang, source, output).into_iter().find(|f| f.issue == MeaningIssue::Opposite).map(|f| f.detail)
}

#[test]
fn a_word_turned_into_its_opposite_is_flagged_and_the_right_one_is_not() {
    // (language, source, right translation, the same with one word turned into its opposite, the opposite word)
    let cases = [
        (Lang::Ja, "Is your window open? Can you shut it?", "窓が開いているんですか？閉めていただけますか。", "窓が開いているんですか？開けていただけますか。", "開け"),
        (Lang::De, "Can you close the door, please?", "Können Sie bitte die Tür schließen?", "Können Sie bitte die Tür öffnen?", "öffnen"),
        (Lang::De, "I sold my car yesterday.", "Ich habe gestern mein Auto verkauft.", "Ich habe gestern mein Auto gekauft.", "gekauft"),
        (Lang::Es, "We won the game!", "¡Ganamos el partido!", "¡Perdimos el partido!", "perdimos"),
        (Lang::Es, "Please remember to call me.", "Por favor, recuerde llamarme.", "Por favor, olvide llamarme.", "olvide"),
        (Lang::Fr, "The test was easy.", "Le test était facile.", "Le test était difficile.", "difficile"),
        (Lang::Fr, "It is cold outside.", "Il fait froid dehors.", "Il fait chaud dehors.", "chaud"),
        (Lang::It, "I love this song.", "Amo questa canzone.", "Odio questa canzone.", "odio"),
        (Lang::It, "This one is better.", "Questo è migliore.", "Questo è peggiore.", "peggiore"),
        (Lang::Pt, "She accepted the offer.", "Ela aceitou a oferta.", "Ela recusou a oferta.", "recusou"),
        (Lang::Nl, "I am so happy for you!", "Ik ben zo blij voor je!", "Ik ben zo verdrietig voor je!", "verdrietig"),
        (Lang::Ru, "Please open the window.", "Пожалуйста, откройте окно.", "Пожалуйста, закройте окно.", "закройте"),
        (Lang::Hi, "I bought a new phone.", "मैंने एक नया फ़ोन खरीदा।", "मैंने एक नया फ़ोन बेचा।", "बेचा"),
        (Lang::Ko, "Is it hot outside?", "밖이 더워요?", "밖이 추워요?", "추워"),
        (Lang::Vi, "The exam was difficult.", "Bài thi rất khó.", "Bài thi rất dễ.", "dễ"),
    ];
    for (lang, src, right, wrong, word) in cases {
        assert_eq!(opposite(lang, src, right), None, "{lang:?}: {right}");
        let d = opposite(lang, src, wrong).unwrap_or_else(|| panic!("{lang:?}: not flagged: {wrong}"));
        assert!(d.contains(&format!("\"{word}\"")) && d.contains("opposite"), "{lang:?}: {d}");
    }
}

#[test]
fn a_negated_opposite_a_word_on_both_sides_and_lookalike_words_are_not_flagged() {
    // "Not difficult" is "easy"; a negation the source lacks makes the opposite a paraphrase.
    assert_eq!(opposite(Lang::De, "The test was easy.", "Der Test war nicht schwer."), None);
    assert_eq!(opposite(Lang::Ja, "I hate it.", "好きではありません。"), None);
    // ...but only in its own sentence: "might" (かもしれません) elsewhere negates nothing (the 1.5B model's reranked
    // translation of the development source below).
    assert!(opposite(
        Lang::Ja,
        "Is your window open by the way? Can you shut it? Yeah, it's really annoying. and hopefully",
        "窓が開いていますか？開けますか？はい、それは大変です。そして、おそらく役立つかもしれません。"
    )
    .is_some());
    assert!(opposite(Lang::De, "Can you close it? It is cold.", "Können Sie es öffnen? Es ist nicht warm.").is_some());
    // The source says both sides: nothing to reverse.
    assert_eq!(opposite(Lang::Es, "Is it open or closed?", "¿Está abierto o cerrado?"), None);
    // Words that only start like a stem: "vielleicht" (maybe), "abril" (April), "Freund" (friend), "souvent"
    // (often), "失礼" (excuse me), "vui lòng" (please), "любой" (any).
    assert_eq!(opposite(Lang::De, "It is difficult.", "Es ist vielleicht schwierig."), None);
    assert_eq!(opposite(Lang::Es, "The shop closes in April.", "La tienda cierra en abril."), None);
    assert_eq!(opposite(Lang::De, "I am sad.", "Ich bin traurig, mein Freund."), None);
    assert_eq!(opposite(Lang::Fr, "I often forget it.", "Je l'oublie souvent."), None);
    assert_eq!(opposite(Lang::Ja, "Excuse me, I won the lottery.", "失礼ですが、宝くじに当たりました。"), None);
    assert_eq!(opposite(Lang::Vi, "Please tell me why you are sad.", "Vui lòng cho tôi biết vì sao bạn buồn."), None);
    assert_eq!(opposite(Lang::Ru, "I love any music.", "Я люблю любую музыку."), None);
    // German "verkaufen" holds "kauf": the longer stem decides.
    assert!(opposite(Lang::De, "I want to buy it.", "Ich möchte es verkaufen.").is_some());
    assert_eq!(opposite(Lang::De, "I want to sell it.", "Ich möchte es verkaufen."), None);
}

/// The held-out references of every shipped pool are good translations: the rule flags almost none of them.
/// Prints the rate per language (run with --nocapture).
#[test]
fn held_out_references_are_rarely_called_opposite() {
    let worst = common::worst_held_out_flag_rate("an opposite", opposite);
    assert!(worst.0 < 0.01, "{:?}: {:.1}% of good references flagged as saying the opposite", worst.1, worst.0 * 100.0);
}
