//! The LLM rewrite prompts. Both start from the rule output (as in XFORMAL, so the model sees text already cleaned
//! of surface noise). The minimal-edit prompt asks for the smallest change that makes the sentence formal, with
//! demonstrations that change only what must change; the paraphrase prompt lets the model rephrase. None of the
//! demonstrations comes from the development set in `data/rewrite-dev`.

use crate::Lang;

/// Few-shot pairs (informal, formal). Short and varied on purpose: long demonstrations cost prefill time on CPU.
pub fn few_shot(lang: Lang) -> &'static [(&'static str, &'static str)] {
    match lang {
        Lang::En => &[
            ("Gotta say, that movie was awesome, you should totally see it.", "I must say that the film was excellent; I recommend that you see it."),
            ("I do not know, ask your mom I guess.", "I am not certain; perhaps you could ask your mother."),
            ("Your funny. I love that show!", "You are amusing. I enjoy that programme very much."),
        ],
        Lang::Pt => &[
            ("Você vai na festa hoje?", "Você irá à festa hoje?"),
            ("Não sei o que fazer, também estou cansada.", "Não sei o que fazer; além disso, estou cansada."),
            ("Beleza, tudo certo para amanhã.", "Combinado, está tudo certo para amanhã."),
        ],
        Lang::Fr => &[
            ("Salut ça va ? Je ne sais pas si je peux venir désolé.", "Bonjour, comment allez-vous ? Je ne sais pas si je pourrai venir, je suis désolé."),
            ("C'est trop cool ton truc !", "Votre projet est vraiment remarquable."),
        ],
        Lang::It => &[
            ("Comunque non lo so perché non mi ha detto niente.", "In ogni caso, non lo so, poiché non mi ha detto nulla."),
            ("Un po' di raffreddore ma tutto ok!", "Ho un leggero raffreddore, ma per il resto sto bene."),
        ],
        Lang::De => &[
            ("Habe gerade keine Zeit, vielleicht morgen!", "Ich habe im Moment leider keine Zeit, vielleicht morgen."),
            ("Kannst du mir sagen, wie es geht?", "Könnten Sie mir bitte sagen, wie es funktioniert?"),
        ],
        Lang::Es => &[
            ("Que tal? Porque no vienes al fin de semana.", "¿Qué tal? ¿Por qué no viene usted el fin de semana?"),
            ("También estoy cansado.", "Yo también me encuentro cansado."),
        ],
        Lang::Hi => &[("तुम कल आओगे क्या?", "क्या आप कल आएँगे?"), ("मैं ठीक हूँ, तू बता!", "मैं ठीक हूँ, आप बताइए।")],
        Lang::Ja => &[("ありがとう！", "ありがとうございます。"), ("明日行く？", "明日いらっしゃいますか。")],
    }
}

/// Minimal-edit pairs (rule output, formal): the left side is already cleaned by the rules, the right side changes
/// only slang, fillers, informal grammar and address, so the model learns to keep everything else.
pub fn minimal_shots(lang: Lang) -> &'static [(&'static str, &'static str)] {
    match lang {
        Lang::En => &[
            ("Honestly that game was sick, best one I have played all year lol.", "Honestly, that game was excellent; it is the best one I have played all year."),
            ("My sis says its not a big deal but I am kinda worried about it.", "My sister says it is not a big deal, but I am somewhat worried about it."),
            ("Just tell him you are busy, guys like that never get the hint.", "Just tell him that you are busy; men like that never take the hint."),
            ("Can you send me the pics from saturday when you get a chance?", "Could you send me the pictures from Saturday when you have a chance?"),
            ("I do not know, ask your mom I guess.", "I do not know; perhaps you could ask your mother."),
        ],
        Lang::Pt => &[
            ("Você viu o jogo ontem? Foi muito massa, o time jogou demais.", "Você viu o jogo ontem? Foi excelente; o time jogou muito bem."),
            ("A gente vai chegar tipo umas oito, tá bom pra você?", "Nós chegaremos por volta das oito; está bom para você?"),
            ("Não sei cara, acho que ele tá meio chateado com isso.", "Não sei; acho que ele está um pouco chateado com isso."),
        ],
        Lang::Fr => &[
            ("Je sais pas trop, c'est un peu bizarre ton truc.", "Je ne sais pas vraiment, votre idée est un peu étrange."),
            ("T'as reçu mon mail d'hier ? Faut que tu me répondes vite.", "Avez-vous reçu mon courriel d'hier ? Il faut que vous me répondiez rapidement."),
            ("Franchement le film était trop bien, je te le conseille.", "Franchement, le film était excellent ; je vous le conseille."),
        ],
        Lang::It => &[
            ("Comunque non lo so, mi sa che è tipo un casino.", "Comunque non lo so; credo che sia piuttosto complicato."),
            ("Ci vediamo domani alle nove, ok? Porta la roba per la riunione.", "Ci vediamo domani alle nove, d'accordo? Porti il materiale per la riunione."),
            ("Il concerto è stato troppo figo, dovevi esserci!", "Il concerto è stato bellissimo; avrebbe dovuto esserci anche Lei!"),
        ],
        other => few_shot(other),
    }
}

/// Chat messages for the minimal-edit rewrite of one sentence (the rule output).
pub fn minimal_messages(lang: Lang, input: &str) -> Vec<(&'static str, String)> {
    let name = lang.name();
    let system = format!(
        "You edit informal {name} sentences into formal {name} with as few changes as possible: replace slang, \
         abbreviations and informal words with standard ones, fix grammar, casing and punctuation, drop fillers \
         and emoticons, and use the polite form of address. Keep every other word, the word order, the meaning and \
         every fact (names, numbers, times, negation). Add nothing. Answer with the edited sentence only, in \
         {name}, on one line."
    );
    conversation(system, minimal_shots(lang), input)
}

fn conversation(system: String, shots: &[(&str, &str)], input: &str) -> Vec<(&'static str, String)> {
    let mut m = vec![("system", system)];
    for (i, f) in shots {
        m.push(("user", i.to_string()));
        m.push(("assistant", f.to_string()));
    }
    m.push(("user", input.to_string()));
    m
}

/// Chat messages (role, content) for the paraphrasing rewrite of one sentence.
pub fn messages(lang: Lang, input: &str) -> Vec<(&'static str, String)> {
    let name = lang.name();
    let system = format!(
        "You rewrite informal {name} text into formal {name}. Keep the meaning and every fact, names and numbers; \
         change only the register (vocabulary, grammar, politeness, punctuation). Answer with the rewritten \
         text only, in {name}, on one line."
    );
    conversation(system, few_shot(lang), input)
}

/// Chat messages for the round trip's translation of `text` from `from` into `to` (one prompt whatever the model
/// runs on: the local engine or a server).
pub fn translation_messages(text: &str, from: Lang, to: Lang) -> Vec<(&'static str, String)> {
    vec![
        (
            "system",
            format!("You are a translator. Translate the user's {} text into {}. Answer with the translation only, on one line.", from.name(), to.name()),
        ),
        ("user", text.to_string()),
    ]
}

/// Cleans a model answer: the first non-empty line, without quotes or a "Formal:" label the model may add.
pub fn clean_answer(raw: &str) -> String {
    let line = raw.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let mut s = line;
    for prefix in ["Formal:", "Formal version:", "Rewritten:", "Answer:", "Output:"] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.trim();
        }
    }
    let s = s.trim_matches(|c| c == '"' || c == '“' || c == '”' || c == '«' || c == '»').trim();
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_ends_with_the_input_and_answers_are_cleaned() {
        let m = messages(Lang::Pt, "Não preciso pedir.");
        assert_eq!(m.last().unwrap(), &("user", "Não preciso pedir.".to_string()));
        assert!(m[0].1.contains("Portuguese"));
        assert_eq!(clean_answer("\n Formal: \"Não é necessário pedir.\"\nExtra"), "Não é necessário pedir.");
    }
}
