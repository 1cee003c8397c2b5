//! The LLM rewrite prompt: the rule output is the input (as in XFORMAL, so the model starts from text that is
//! already cleaned of surface noise), with a few informal → formal pairs per language as demonstrations.

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

/// Chat messages (role, content) for one sentence.
pub fn messages(lang: Lang, input: &str) -> Vec<(&'static str, String)> {
    let name = lang.name();
    let mut m = vec![(
        "system",
        format!(
            "You rewrite informal {name} text into formal {name}. Keep the meaning and every fact, names and numbers; \
             change only the register (vocabulary, grammar, politeness, punctuation). Answer with the rewritten \
             text only, in {name}, on one line."
        ),
    )];
    for (i, f) in few_shot(lang) {
        m.push(("user", i.to_string()));
        m.push(("assistant", f.to_string()));
    }
    m.push(("user", input.to_string()));
    m
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
