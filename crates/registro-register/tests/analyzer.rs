//! Analyzer behaviour per language, and its accuracy on the CoCoA-MT training references.
use registro_register::{analyze, data, eval, Label, Lang, Register, Verdict};

mod common;
use common::{assert_labels, assert_marked, assert_spans_slice, label, training_pairs};

#[test]
fn german_du_vs_sie() {
    assert_labels(Lang::De, &[
        ("Hast du Lieblingsbands?", Label::Informal),
        ("Haben Sie Lieblingsbands?", Label::Formal),
        ("Ich habe deine Nachricht gelesen.", Label::Informal),
        ("Ich habe Ihre Nachricht gelesen.", Label::Formal),
        ("Das Wetter ist schön.", Label::Neutral),
        ("Haben Sie gesehen, was du gemacht hast?", Label::Mixed),
        // "sie" lower-case is she/they, not the addressee.
        ("Ich glaube, sie kommen morgen.", Label::Neutral),
        // "Du meine Güte!" is an exclamation said to nobody; "du" in a sentence of its own still counts.
        ("Du meine Güte! Mögen Sie Jazz?", Label::Formal),
        ("Du lieber Himmel, das ist teuer.", Label::Neutral),
        ("Du meinst, die Güte zählt?", Label::Informal),
    ]);
}

/// The 2nd person plural ("ihr", informal to several people) and the du-imperative without its pronoun, both
/// written for this test: "ihr" is also "her" and "their", which stay neutral.
#[test]
fn german_ihr_and_the_imperative_without_du() {
    assert_labels(Lang::De, &[
        ("Habt ihr morgen Zeit?", Label::Informal),
        ("Was macht ihr heute Abend?", Label::Informal),
        ("Kommt ihr mit ins Kino?", Label::Informal),
        ("Ihr seid herzlich eingeladen.", Label::Informal),
        ("Wenn ihr wollt, können wir später telefonieren.", Label::Informal),
        ("Schick mir bitte die Datei.", Label::Informal),
        ("Ruf mich morgen an.", Label::Informal),
        // her / their / the polite possessive
        ("Ich gebe ihr das Buch.", Label::Neutral),
        ("Er hilft ihr.", Label::Neutral),
        ("Das ist ihr Auto.", Label::Neutral),
        ("Was ist Ihr Lieblingsfilm?", Label::Formal),
        ("Schicken Sie mir bitte die Datei.", Label::Formal),
        ("Auch mir gefällt das.", Label::Neutral),
        ("Mir geht es gut.", Label::Neutral),
    ]);
}

/// An imperative with an object joined to it: the stem's last vowel gives tú or usted once the verb's class is
/// known (written for this test).
#[test]
fn spanish_imperatives_with_an_object() {
    assert_labels(Lang::Es, &[
        ("Envíame el archivo, por favor.", Label::Informal),
        ("Envíeme el archivo, por favor.", Label::Formal),
        ("Escríbeme mañana.", Label::Informal),
        ("Escríbame mañana.", Label::Formal),
        ("Llámame esta tarde.", Label::Informal),
        ("Dígamelo pronto.", Label::Formal),
        ("Me encanta la película.", Label::Neutral),
        ("Compré una cámara.", Label::Neutral),
    ]);
}

#[test]
fn spanish_tu_vs_usted() {
    assert_labels(Lang::Es, &[
        ("¿Tú sabes dónde está?", Label::Informal),
        ("¿Usted sabe dónde está?", Label::Formal),
        ("Me gusta tu casa.", Label::Informal),
        ("¿Ha visto la película?", Label::Formal),
        ("¿Has visto la película?", Label::Informal),
    ]);
    // "su" alone is weak: a third person does not make a sentence wrong when informal is asked for.
    assert_eq!(analyze(Lang::Es, "Vi a su hermano ayer.").verdict(Register::Informal), Verdict::Uncertain);
}

#[test]
fn french_tu_vs_vous() {
    assert_labels(Lang::Fr, &[
        ("As-tu des groupes préférés ?", Label::Informal),
        ("Avez-vous des groupes préférés ?", Label::Formal),
        ("J'aime ton chien et je t'aime.", Label::Informal),
        ("Profitez bien de votre journée.", Label::Formal),
        ("Le train part à midi.", Label::Neutral),
    ]);
}

#[test]
fn italian_tu_vs_lei() {
    assert_labels(Lang::It, &[
        ("Hai visto il film?", Label::Informal),
        ("Cosa ne pensi?", Label::Informal),
        ("Sì, immagino che Lei possa venire.", Label::Formal),
        ("Bello. Le piacciono i cani?", Label::Formal),
        ("Mi è piaciuta in La bella e la bestia.", Label::Neutral),
        // Issue 43: a 2sg future no word list held (the 1.5B model's formal output, labelled neutral before).
        ("Deve solo aspettare, perché riceverai una lettera dalla banca.", Label::Informal),
        ("Domani sarai a Roma e potrai vedere il Colosseo.", Label::Informal),
        ("Il samurai arriverà domani.", Label::Neutral),
        // An informal greeting in a formal request (issue 43: labelled neutral before).
        ("Ciao, posso inviare il file il lunedì.", Label::Informal),
        ("Ciao, Lei può inviarmi il file?", Label::Formal),
    ]);
}

/// Person from morphology (issue 43): 2sg presents of -ere/-ire verbs, 2sg imperatives with an enclitic and Lei
/// imperatives after a clitic, generated from verb lists rather than seen in training data. Sentences written for
/// this test in the style of the CoCoA-MT references (never taken from its test set), with the words that look like
/// such forms but are not (nouns, months, adjectives).
#[test]
fn italian_person_comes_from_morphology() {
    assert_labels(Lang::It, &[
        ("Prendi il treno delle otto e scendi a Firenze.", Label::Informal),
        ("Se vinci la partita, offri la cena.", Label::Informal),
        ("Scrivimi quando arrivi, e mandami le foto.", Label::Informal),
        ("Rispondimi appena possibile.", Label::Informal),
        ("Finiscilo entro venerdì, per favore.", Label::Informal),
        ("Apri la finestra e accendi la luce.", Label::Informal),
        ("Chiedigli se conosce un buon ristorante.", Label::Informal),
        ("Mi risponda appena possibile, per favore.", Label::Formal),
        ("Mi scriva una e-mail con i dettagli.", Label::Formal),
        ("Ci spedisca il modulo firmato entro lunedì.", Label::Formal),
        // A group addressed: voi and vostro are plural in both registers; the singular beside them decides.
        ("Grazie a tutti, la vostra accoglienza è stata splendida.", Label::Neutral),
        ("Voi siete stati bravissimi, ma il tuo gol è stato il migliore.", Label::Informal),
        ("I vostri figli stanno bene? E Sua moglie?", Label::Formal),
        // Look-alikes that are not 2sg verbs: months, plural nouns, adjectives, a portal.
        ("Il corso inizia ad aprile e dura tre mesi.", Label::Neutral),
        ("Le parti del contratto hanno firmato ieri.", Label::Neutral),
        ("I premi e i temi del concorso sono cambiati.", Label::Neutral),
        ("Il portale è aperto a tutti gli utenti.", Label::Neutral),
        ("I legami tra le due aziende sono forti.", Label::Neutral),
        ("Nelle leggi italiane i diritti sono chiari.", Label::Neutral),
    ]);
}

/// French names its subject except in the imperative: there the hyphen-joined pronoun shows the verb is an
/// imperative and the ending its person. Sentences written for this test, never taken from a test set.
#[test]
fn french_imperatives_with_an_enclitic_carry_the_person() {
    assert_labels(Lang::Fr, &[
        ("Envoie-moi le fichier avant vendredi.", Label::Informal),
        ("Merci, rappelle-moi demain matin.", Label::Informal),
        ("Prends-le avec toi.", Label::Informal),
        ("Vas-y, je te suis.", Label::Informal),
        ("Donne-le-moi quand il sera prêt.", Label::Informal),
        ("Envoyez-moi le fichier avant vendredi.", Label::Formal),
        ("Merci, rappelez-moi demain matin.", Label::Formal),
        ("Dites-moi quand le colis arrivera.", Label::Formal),
        ("Faites-le dès que possible, s'il vous plaît.", Label::Formal),
        // Look-alikes: 1pl imperatives and inversions, 3rd-person questions, compounds.
        ("Allons-y tous ensemble demain.", Label::Neutral),
        ("Sommes-nous en retard pour la réunion ?", Label::Neutral),
        ("Que fait-il ce week-end ?", Label::Neutral),
        ("Il est parti sur-le-champ.", Label::Neutral),
        ("Un arc-en-ciel est apparu après la pluie.", Label::Neutral),
        ("Y a-t-il un train pour Lyon ?", Label::Neutral),
    ]);
}

#[test]
fn hindi_tum_vs_aap() {
    assert_labels(Lang::Hi, &[
        ("आपका नाम क्या है?", Label::Formal),
        ("तुम्हारा नाम क्या है?", Label::Informal),
        ("मुझे बताओ।", Label::Informal),
        ("कृपया बताइए।", Label::Formal),
    ]);
}

#[test]
fn japanese_masu_vs_plain_and_respectful() {
    assert_labels(Lang::Ja, &[
        ("私はジャングル・ブックが好きでした。", Label::Formal),
        ("私はジャングル・ブックが好きだった。", Label::Informal),
        ("正直なところ彼はおそらく少し負けているね。", Label::Informal),
        ("分かるでしょ？", Label::Informal),
    ]);
    let a = analyze(Lang::Ja, "先生はもうお帰りになりましたか。いらっしゃいますか？");
    assert_eq!(a.label, Label::Formal);
    assert!(a.respectful, "honorifics found: {:?}", a.markers);
    assert_eq!(a.verdict(Register::Respectful), Verdict::Ok);
    assert_eq!(analyze(Lang::Ja, "行きます。").verdict(Register::Respectful), Verdict::Uncertain);
    // お/ご + any verb stem + になる, in any form, and the honorific nouns.
    for s in ["今週末、車をお使いになりますか？", "昨夜はよくお休みになれましたか？", "どちらにお住まいですか？", "この計画についてどのようにお考えですか？"] {
        let a = analyze(Lang::Ja, s);
        assert!(a.respectful, "{s}: {:?}", a.markers);
        let m = a.markers.iter().find(|m| m.register == Register::Respectful).unwrap();
        assert_eq!(&s[m.start..m.end], m.text, "{s}");
    }
    // Without お/ご, になる is "become".
    assert!(!analyze(Lang::Ja, "好きになりました。").respectful);
}

#[test]
fn marker_offsets_slice_the_text() {
    for (lang, s) in [(Lang::De, "Ich weiß, dass du kommst."), (Lang::Ja, "そうですね。好きだよ。"), (Lang::Hi, "आपको क्या पसंद है?")] {
        let a = analyze(lang, s);
        assert!(!a.markers.is_empty(), "{lang:?} {s}");
        assert_spans_slice(s, &a.markers);
    }
}

#[test]
fn wrong_register_is_flagged_wrong() {
    let a = analyze(Lang::De, "Hast du Zeit?");
    assert_eq!(a.verdict(Register::Formal), Verdict::Wrong);
    assert_eq!(a.verdict(Register::Informal), Verdict::Ok);
    assert_eq!(a.wrong_markers(Register::Formal).count(), 2);
}

/// Accuracy reached on all CoCoA-MT training references (both the pool and the held-out part), measured with
/// `cargo run -p registro-register --example analyzer_accuracy`; the floor sits 0.01 below it. The held-out part
/// (never used to write rules or the learned lexicon) must stay at the 0.97 goal on its own: with ~95 pairs a
/// language it can lose at most two.
#[test]
fn accuracy_on_cocoa_mt_training_references() {
    let measured = [(Lang::De, 0.9947), (Lang::Es, 0.9858), (Lang::Fr, 0.9858), (Lang::Hi, 0.9940), (Lang::It, 0.9943), (Lang::Ja, 0.9908)];
    for (lang, reached) in measured {
        let Some(pairs) = training_pairs(lang) else { continue };
        let a = eval::accuracy(lang, &pairs);
        let (_, held) = data::split(pairs);
        let h = eval::accuracy(lang, &held);
        println!("{}: {:.4} ({}/{}), held-out {:.4} ({}/{})", lang.code(), a.accuracy(), a.correct, a.pairs, h.accuracy(), h.correct, h.pairs);
        assert!(a.pairs > 300, "{}: only {} contrastive pairs loaded", lang.code(), a.pairs);
        assert!(a.accuracy() >= reached - 0.01, "{}: accuracy {:.4} fell below {:.4}", lang.code(), a.accuracy(), reached - 0.01);
        assert!(h.accuracy() >= 0.97, "{}: held-out accuracy {:.4} below 0.97", lang.code(), h.accuracy());
    }
}

#[test]
fn held_out_split_is_the_last_50_per_domain() {
    let Some(pairs) = training_pairs(Lang::De) else { return };
    let (pool, held) = data::split(pairs);
    assert_eq!(held.len(), 100);
    assert_eq!(pool.len(), 300);
    assert!(held.iter().all(|p| p.line >= 150));
}

#[test]
fn bad_folder_gives_a_clear_error() {
    let dir = std::env::temp_dir().join("registro-register-empty-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let err = data::load_dir(&dir, Lang::De).unwrap_err().to_string();
    assert!(err.contains("no English source file"), "{err}");
}

#[test]
fn spanish_subjunctive_and_vosotros_endings() {
    // Imperfect subjunctive 2sg -aras after a subjunctive trigger; vosotros -ís.
    assert_marked(Lang::Es, "¿Quizás para mantener la corbata en su sitio, si es que llevaras corbata? Simplemente no me gusta cómo se ve ja, ja.", Label::Informal, &["llevaras"]);
    assert_marked(Lang::Es, "Así que dije: ¿qué decís? Vamos a coger algunas fotos de su Facebook.", Label::Informal, &["decís"]);
    // -aras outside a trigger is a plural noun; -aste of an -astar verb is its subjunctive, not a preterite.
    assert_marked(Lang::Es, "Internet está plagado de peligros. Manténgase a salvo, Dr. Leary. No tema a los monos comecaras.", Label::Formal, &["Manténgase"]);
    assert_marked(Lang::Es, "cuando mezcla culturas, espera que la cultura más fuerte no aplaste a la más débil y yo vería a su amigo como la cultura más tranquila.", Label::Formal, &["su"]);
}

#[test]
fn spanish_enclitic_imperatives() {
    assert_marked(Lang::Es, "Cuídese mucho y manténgase a salvo.", Label::Formal, &["Cuídese", "manténgase"]);
    assert_marked(Lang::Es, "Cuídate mucho y diviértete.", Label::Informal, &["Cuídate", "diviértete"]);
    // Gerunds and -mente adverbs carry the same accent.
    assert_eq!(label(Lang::Es, "Se fue quedándose callado, lógicamente."), Label::Neutral);
}

#[test]
fn spanish_nouns_and_interjections_that_look_like_verbs() {
    // -ería nouns are not a 2sg conditional; "cuáles" is not an -es verb.
    assert_marked(Lang::Es, "¿Cuál es su favorito? ¿Le gusta Starbucks, le gusta Dunkin's, qué hay de esas cadenas rollo cafeterías?", Label::Formal, &["su", "Le"]);
    assert_marked(Lang::Es, "Definitivamente, me lo imagino. ¿Cuáles eran sus videojuegos favoritos?", Label::Formal, &["sus"]);
    // "Vaya," is "wow", not the usted subjunctive.
    assert_marked(Lang::Es, "Vaya, la verdad quiero intentarlo. Unicef dona agua limpia cuando no utilizas el teléfono.", Label::Informal, &["utilizas"]);
}

#[test]
fn spanish_third_person_verbs_after_negation_and_in_questions() {
    assert_marked(Lang::Es, "Vaya, la verdad quiero intentarlo. Unicef dona agua limpia cuando no utiliza el teléfono.", Label::Formal, &["utiliza"]);
    assert_marked(Lang::Es, "¿De pequeño jugaba con piezas de Lego?", Label::Formal, &["jugaba"]);
    assert_marked(Lang::Es, "¿De pequeño jugabas con piezas de Lego?", Label::Informal, &["jugabas"]);
    // Impersonal verbs after "no" stay unmarked.
    assert_eq!(label(Lang::Es, "No vale la pena."), Label::Neutral);
}

#[test]
fn italian_plural_nouns_and_prepositions_are_not_verbs() {
    assert_marked(Lang::It, "No, ha una bella voce! Sa che Stephen Fry è anche un narratore nei giochi, è la voce narrante in alcuni giochi", Label::Formal, &["Sa"]);
    assert_marked(Lang::It, "è stato un viaggio divertente, quali sono i suoi ricordi più belli di quel viaggio?", Label::Formal, &["suoi"]);
    // "dai" as "from the" is no verb; "mi dai" is.
    assert_marked(Lang::It, "Se Lei potesse pensare alla cosa migliore, come è stato allevato dai suoi genitori.", Label::Formal, &["Lei"]);
    assert_marked(Lang::It, "Mi dai una mano?", Label::Informal, &["dai"]);
}

#[test]
fn italian_are_verbs_shared_by_tu_indicative_and_lei_imperative() {
    // Opening a statement, bare or after a clitic: Lei imperative.
    assert_marked(Lang::It, "Allora mi parli del suo migliore amico d'infanzia.", Label::Formal, &["parli", "suo"]);
    assert_marked(Lang::It, "Idem. Cerchi di rendere perfetta questa giornata, comunque vada.", Label::Formal, &["Cerchi"]);
    // Asked, or inside an if-clause: 2sg.
    assert_marked(Lang::It, "D'accordo. Pensi di vedere l'ultima puntata: M. I - Fallout?", Label::Informal, &["Pensi"]);
    assert_marked(Lang::It, "I blue jeans erano la strada da seguire. Cosa ne pensi dei negozi al dettaglio", Label::Informal, &["pensi"]);
    assert_marked(Lang::It, "Interessante. Se ci pensi, molta energia viene dall'acqua.", Label::Informal, &["pensi"]);
}

#[test]
fn italian_lei_imperatives_with_clitics_and_tu_enclitics() {
    assert_marked(Lang::It, "Grazie, e si goda la giornata. Giochi a Gran Turismo e diventi famoso!", Label::Formal, &["goda"]);
    assert_marked(Lang::It, "Da giovane avevo un pappagallo, la nostra casa non è affatto così, se lo tolga dalla testa.", Label::Formal, &["tolga"]);
    assert_marked(Lang::It, "Da giovane avevo un pappagallo, la nostra casa non è affatto così, toglitelo dalla testa.", Label::Informal, &["toglitelo"]);
    // The courtesy pronoun joined to an infinitive or gerund, capitalised (the 0.5B model's "chiamarLa" in the
    // Windows package check read as neutral); lower case it is "call her".
    assert_marked(Lang::It, "Grazie per l'aiuto, La richiamo domani per ringraziarLa ancora.", Label::Formal, &["ringraziarLa"]);
    assert_marked(Lang::It, "Vorrei inviarLe il file, mandandoGlielo entro venerdì.", Label::Formal, &["inviarLe", "mandandoGlielo"]);
    assert_marked(Lang::It, "Posso chiamarla domani?", Label::Neutral, &[]);
    // "la faccia" is the face.
    assert_marked(Lang::It, "Si dice che questa è la faccia che fai quando scopri che la tua vita normale viene descritta da altri", Label::Informal, &["fai", "tua"]);
}

#[test]
fn italian_third_person_readings() {
    // "mentre guarda" is indicative, "comunque vada" and "anni fa" impersonal, "che diventa" a relative clause.
    assert_marked(Lang::It, "Sì, immagino che Lei possa aggiungere del burro extra sui popcorn mentre guarda un film horror.", Label::Formal, &["Lei"]);
    assert_marked(Lang::It, "Idem. Cerca di rendere perfetta questa giornata, comunque vada.", Label::Informal, &["Cerca"]);
    assert_marked(Lang::It, "Sì, l'ho scoperto qualche anno fa. Riesci a immaginare cosa c'è lì dentro?", Label::Informal, &["Riesci"]);
    assert_marked(Lang::It, "Qual è il suo film preferito? Smallville parlava di Bruce Wayne che diventa Batman.", Label::Formal, &["suo"]);
    // A Lei question in the perfect with a participle.
    assert_marked(Lang::It, "È interessato ai cani? Sono molto intelligenti.", Label::Formal, &["È"]);
    assert_marked(Lang::It, "Solo una nota a caso, si è reso conto che Bruce Lee era un ballerino così bravo?", Label::Formal, &["è"]);
}

#[test]
fn japanese_kudasai_and_sonkeigo_count_as_formal() {
    assert_marked(Lang::Ja, "では、子供の頃の親友について教えてください。", Label::Formal, &["ください"]);
    assert_marked(Lang::Ja, "安全に気をつけ、性感染症などから身を守ってください。", Label::Formal, &["ください"]);
    assert_marked(Lang::Ja, "ご存知のように、ホテルでこれまでにないユニークな体験が。生涯で初めてのような", Label::Formal, &["ご存知"]);
    // A parenthetical UI note keeps its own politeness out of the conversation.
    assert_marked(Lang::Ja, "セレナは約319週間、仲間のトップに立っていると思うよ。 （ボタンが機能しないため、[完了]をクリックしてください）。", Label::Informal, &["思う"]);
}

#[test]
fn japanese_copula_after_katakana_and_comparative_you() {
    assert_marked(Lang::Ja, "悪役が好きなら、彼らはあなたのスーパーヒーローだね。", Label::Informal, &["ーだ"]);
    assert_marked(Lang::Ja, "ええ、私もです。これは現在インターネット上で2番目に大きい検索エンジンだ", Label::Informal, &["です", "ンだ"]);
    // ような compares; it is no volitional.
    assert_marked(Lang::Ja, "相手の女の子がドラマクラスで一緒でしたので、とても気まずい状況になってしまい、「私はあなたを傷つけるつもりはありませんでした」のような", Label::Formal, &["でした"]);
}

#[test]
fn japanese_particles_before_commas_close_an_utterance() {
    assert_marked(Lang::Ja, "それはすごいね、あなたは", Label::Informal, &["ごい"]);
    assert_marked(Lang::Ja, "いや、男性はそれについて何も言うべきではないよ、すみません。それはあなたの体ではないから。", Label::Informal, &["ない"]);
    assert_marked(Lang::Ja, "公園に連れて行って走り回って疲れさせて、分かるかな、彼らが眠るように", Label::Informal, &["かる"]);
    assert_marked(Lang::Ja, "そうだね、考えてみれば時間はかからないし、習慣として取り入れればいいのだから。", Label::Informal, &["うだ"]);
    // から closes a clause without hiding its predicate.
    assert_marked(Lang::Ja, "私はそこに行ったことがある、私は馬アレルギーなのでひどいものだったよ（笑）", Label::Informal, &["だった"]);
}

#[test]
fn japanese_weak_plain_forms_inside_the_sentence() {
    assert_marked(Lang::Ja, "まあ、書類は常にあなたのように記入しなければならない、連絡可能時間、何をすべきか", Label::Informal, &["ならない"]);
    assert_marked(Lang::Ja, "そのベッドはとても寝心地が悪く、古いベッドなので新しいものはなく、背中が痛くなってしまった、私はとても若いため", Label::Informal, &["った"]);
    assert_marked(Lang::Ja, "まあ、プロフィールには、この人はあなたの都市を頻繁に訪問しているって書いてあったから、会う機会を設けることになって、", Label::Informal, &["るって"]);
    // Weak: a polite ending outweighs them, and the polite form before 、 is left alone.
    assert_marked(Lang::Ja, "まあ、書類は常にあなたのように記入しなければなりません、連絡可能時間、何をすべきか", Label::Formal, &["ません"]);
    assert_marked(Lang::Ja, "強盗犯はすごく足が速いから、靴の紐を縛る時には「油断しない」ことさ。", Label::Informal, &["さ"]);
}

#[test]
fn japanese_spoken_contractions_are_casual_even_before_a_polite_ending() {
    use registro_register::{Register, Verdict};
    // The 1.5B model's formal translation of "Is your window open by the way?" (development split): polite です,
    // casual 開いてる. A formal text with it is flagged, an informal one keeps it.
    for (s, contraction) in [
        ("窓が開いてるんですか？", "てる"),
        ("私はそれは見てないと思います。", "てない"),
        ("毎日通勤してたって信じられますか?", "てた"),
        ("本を読んでます。", "でます"),
        ("宿題を忘れちゃったんです。", "ちゃった"),
        ("もう行かなきゃいけません。", "なきゃ"),
    ] {
        let a = analyze(Lang::Ja, s);
        assert!(a.markers.iter().any(|m| m.text == contraction && m.strong && !m.register.is_formal_side()), "{s}: {:?}", a.markers);
        assert_eq!(a.verdict(Register::Formal), Verdict::Wrong, "{s}");
        assert!(a.wrong_markers(Register::Informal).all(|m| m.text != contraction), "{s}: the contraction is right in an informal text");
    }
    // て belonging to a verb's own stem, particles, and the written にて are not contractions.
    for s in ["ゴミを捨てます。", "それだけでない問題です。", "外へでます。", "会場にて行われました。", "子供を育てています。", "お茶を飲みます。"] {
        let a = analyze(Lang::Ja, s);
        assert_ne!(a.verdict(Register::Formal), Verdict::Wrong, "{s}: {:?}", a.markers);
    }
}

#[test]
fn japanese_short_exclamations_are_interjections() {
    assert_marked(Lang::Ja, "笑:)私の犬は、寒いのが大好きなので、実際に自分でベッドから降ります:)良かった！ :)", Label::Formal, &["ます"]);
    assert_marked(Lang::Ja, "笑:)私の犬は、寒いのが大好きなので、実際に自分でベッドから降りる:)良かった！ :)", Label::Informal, &["った"]);
}

#[test]
fn odd_inputs_do_not_panic() {
    let odd = ["", " ", "?", "¿", "、", ",", "（", "）", "って", "るって", "ね、", "よ、、", "かな、", "！", "笑！", ":)", "だ", "ような", "ことさ", "M.", "M. I?",
        "dai", "Dai,", "si goda", "se lo", "È", "è?", "Vaya", "vaya", "cuídate", "ís", "aras", "te", "toglitelo", "guarda", "Cosa"];
    for s in odd {
        registro_register::fuzz::analyze_and_repair(s.as_bytes());
    }
}
