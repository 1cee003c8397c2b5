//! Rule-based repair: T-V conversion per language, plain↔masu for Japanese, and round trips on real CoCoA-MT
//! sentence pairs.
use registro_register::repair::convert;
use registro_register::{analyze, eval, Lang, Register};

mod common;
use common::{assert_converts, assert_left_alone, assert_repaired_reads_as_asked, training_pairs};

#[test]
fn german() {
    assert_converts(Lang::De, &[
        ("Hast du deine Schlüssel gefunden?", Register::Formal, "Haben Sie Ihre Schlüssel gefunden?"),
        ("Haben Sie Ihre Schlüssel gefunden?", Register::Informal, "Hast du deine Schlüssel gefunden?"),
        ("Also, selbst wenn Sie die DVD bestellen, müssen Sie Internet haben.", Register::Informal, "Also, selbst wenn du die DVD bestellst, musst du Internet haben."),
        ("Ich gebe dir das Buch.", Register::Formal, "Ich gebe Ihnen das Buch."),
        ("Das Wetter ist schön.", Register::Formal, "Das Wetter ist schön."),
    ]);
}

#[test]
fn spanish() {
    assert_converts(Lang::Es, &[
        ("¿Has visto tu película favorita?", Register::Formal, "¿Ha visto su película favorita?"),
        ("¿Ha visto su película favorita?", Register::Informal, "¿Has visto tu película favorita?"),
        ("¿Qué hiciste ayer?", Register::Formal, "¿Qué hizo ayer?"),
        // An imperative with its object: the stem's last vowel, once the verb's class is known.
        ("Envíame el archivo, por favor.", Register::Formal, "Envíeme el archivo, por favor."),
        ("Escríbame mañana.", Register::Informal, "Escríbeme mañana."),
    ]);
}

#[test]
fn french() {
    assert_converts(Lang::Fr, &[
        ("As-tu vu ton frère ?", Register::Formal, "Avez-vous vu votre frère ?"),
        ("Avez-vous vu votre frère ?", Register::Informal, "As-tu vu ton frère ?"),
        ("Tu aimes les chats.", Register::Formal, "Vous aimez les chats."),
        ("Profitez de votre journée.", Register::Informal, "Profite de ta journée."),
    ]);
}

#[test]
fn italian() {
    assert_converts(Lang::It, &[
        ("Hai visto il tuo film preferito?", Register::Formal, "Ha visto il suo film preferito?"),
        ("Cosa ne pensi?", Register::Formal, "Cosa ne pensa?"),
        ("Ti piace il jazz?", Register::Formal, "Le piace il jazz?"),
        ("Bello. Le piace il jazz?", Register::Informal, "Bello. Ti piace il jazz?"),
        ("Posso chiamarLa domani?", Register::Informal, "Posso chiamarti domani?"),
        ("Vorrei inviarLe il file.", Register::Informal, "Vorrei inviarti il file."),
        ("Posso chiamarti domani?", Register::Formal, "Posso chiamarLa domani?"),
    ]);
}

#[test]
fn hindi() {
    assert_converts(Lang::Hi, &[
        ("तुम कैसे हो?", Register::Formal, "आप कैसे हैं?"),
        ("आप कैसे हैं?", Register::Informal, "तुम कैसे हो?"),
        ("मुझे बताओ।", Register::Formal, "मुझे बताइए।"),
    ]);
}

#[test]
fn japanese_plain_and_masu() {
    assert_converts(Lang::Ja, &[
        ("ジャングル・ブックも好きだった。", Register::Formal, "ジャングル・ブックも好きでした。"),
        ("ジャングル・ブックも好きでした。", Register::Informal, "ジャングル・ブックも好きだった。"),
        ("どう思う？", Register::Formal, "どう思いますか？"),
        ("どう思いますか？", Register::Informal, "どう思う？"),
        ("少し負けている。", Register::Formal, "少し負けています。"),
        ("私は行かない。", Register::Formal, "私は行きません。"),
        ("本を読んだ。", Register::Formal, "本を読みました。"),
        ("本を読みました。", Register::Informal, "本を読んだ。"),
    ]);
}

#[test]
fn japanese_contractions_are_written_out_for_a_formal_text() {
    assert_converts(Lang::Ja, &[
        ("窓が開いてるんですか？", Register::Formal, "窓が開いていますか？"),
        ("窓が開いてるんです。", Register::Formal, "窓が開いているんです。"),
        // A casual question's の goes with it (the 1.5B model's "開いてるの？" was repaired to "開いていますの？").
        ("窓が開いてるの？", Register::Formal, "窓が開いていますか？"),
        ("何を食べたの？", Register::Formal, "何を食べましたか？"),
        ("それ、知ってる？", Register::Formal, "それ、知っていますか？"),
        ("本を読んでます。", Register::Formal, "本を読んでいます。"),
        ("映画を見てない。", Register::Formal, "映画を見ていません。"),
        ("宿題を忘れちゃった。", Register::Formal, "宿題を忘れてしまいました。"),
        ("ちょっと持ってて。", Register::Formal, "ちょっと持っていてください。"),
        // Copulas and one-kanji verbs before ない, which the contraction rules brought to light.
        ("それだけでない。", Register::Formal, "それだけでありません。"),
        ("外に出ない。", Register::Formal, "外に出ません。"),
    ]);
}

#[test]
fn japanese_respectful_level() {
    let r = convert(Lang::Ja, "明日は家にいる？", Register::Respectful).text;
    assert_eq!(r, "明日は家にいらっしゃいますか？");
    assert!(analyze(Lang::Ja, &r).respectful);
}

#[test]
fn korean_speech_level() {
    assert_converts(Lang::Ko, &[
        ("제일 좋아하는 영화가 뭐야?", Register::Formal, "제일 좋아하는 영화가 뭐예요?"),
        ("그냥 저기에 놔둬.", Register::Formal, "그냥 저기에 놔둬요."),
        ("너는 어디에 살아?", Register::Formal, "당신은 어디에 살아요?"),
        ("내가 했다.", Register::Formal, "제가 했어요."),
        ("모두 새 것이야.", Register::Formal, "모두 새 것이에요."),
        ("무슨 말인지 알지?", Register::Formal, "무슨 말인지 알죠?"),
        ("올해 영화 중에 좋았던 것 또 있으세요?", Register::Informal, "올해 영화 중에 좋았던 것 또 있어?"),
        ("그냥 저기에 놔두세요.", Register::Informal, "그냥 저기에 놔둬."),
        ("도와주셔서 감사합니다.", Register::Informal, "도와주셔서 감사해."),
        ("저는 학생입니다.", Register::Informal, "나는 학생이야."),
        ("당신이 정할 수 없어요.", Register::Informal, "네가 정할 수 없어."),
        ("무슨 말인지 알 거예요.", Register::Informal, "무슨 말인지 알 거야."),
    ]);
    for (s, register) in [("제일 좋아하는 영화가 뭐야?", Register::Formal), ("도와주셔서 감사합니다.", Register::Informal)] {
        assert_repaired_reads_as_asked(Lang::Ko, s, register);
    }
}

#[test]
fn vietnamese_address_terms_and_particles() {
    assert_converts(Lang::Vi, &[
        ("Bạn thích làm nghề gì?", Register::Formal, "Quý vị thích làm nghề gì ạ?"),
        ("Rồi bạn có thể đút vào túi.", Register::Formal, "Rồi quý vị có thể đút vào túi ạ."),
        ("Nghề nghiệp lý tưởng của quý vị là gì ạ?", Register::Informal, "Nghề nghiệp lý tưởng của bạn là gì?"),
        ("Dạ, quý vị hiểu điều tôi đang nói.", Register::Informal, "Ừ, bạn hiểu điều tôi đang nói."),
        ("Cảm ơn thưa quý vị.", Register::Informal, "Cảm ơn bạn."),
        // "bạn bè" (friends) is not the addressee and stays.
        ("Quý vị có nhiều bạn bè không ạ?", Register::Informal, "Bạn có nhiều bạn bè không?"),
    ]);
}

#[test]
fn neutral_sentences_are_left_alone() {
    for (lang, s) in [
        (Lang::Es, "El tren sale a las ocho."),
        (Lang::Fr, "Le train part à huit heures."),
        (Lang::It, "Il treno parte alle otto."),
        (Lang::Vi, "Tàu khởi hành lúc tám giờ."),
    ] {
        assert_left_alone(lang, s);
    }
}

/// Measured with `cargo run -p registro-register --example repair_eval`: share of contrastive CoCoA-MT training
/// pairs whose formal reference survives formal→informal→formal unchanged, and share of repairs that come out with
/// the requested label; the floors sit 0.02 below.
#[test]
fn round_trips_on_cocoa_mt_pairs() {
    let measured = [
        (Lang::De, 0.931, 0.995, 0.997),
        (Lang::Es, 0.932, 0.983, 0.972),
        (Lang::Fr, 0.974, 1.0, 1.0),
        (Lang::Hi, 0.849, 0.997, 0.997),
        (Lang::It, 0.881, 0.980, 0.969),
        (Lang::Ja, 0.509, 0.993, 0.979),
        // IWSLT 2023's Korean and Vietnamese: the round trip is low by design (honorific -시- and the polite
        // particle ạ are not restored), the labels are what repair is for.
        (Lang::Ko, 0.515, 1.0, 0.998),
        (Lang::Vi, 0.300, 0.980, 0.998),
    ];
    for (lang, rt, li, lf) in measured {
        let Some(pairs) = training_pairs(lang) else { continue };
        let s = eval::repair_stats(lang, &pairs);
        let f = |n: usize| n as f64 / s.pairs as f64;
        println!("{}: round trip {:.3}, →I labelled {:.3}, →F labelled {:.3}", lang.code(), f(s.round_trip_formal), f(s.label_to_informal), f(s.label_to_formal));
        assert!(f(s.round_trip_formal) >= rt - 0.02, "{}: round trip {:.3}", lang.code(), f(s.round_trip_formal));
        assert!(f(s.label_to_informal) >= li - 0.02, "{}: →informal labelled {:.3}", lang.code(), f(s.label_to_informal));
        assert!(f(s.label_to_formal) >= lf - 0.02, "{}: →formal labelled {:.3}", lang.code(), f(s.label_to_formal));
    }
}

#[test]
fn repaired_formal_reference_is_labelled_informal() {
    assert_repaired_reads_as_asked(Lang::De, "Haben Sie Lieblingsbands?", Register::Informal);
}
