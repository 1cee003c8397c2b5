//! Back-translation for the second opinion on meaning: the chosen translation, translated back into English by the
//! model that wrote it, so `registro_register::back_translation` can compare it with the source on polarity and on
//! who acts on whom, where the embedding check ([`crate::qe`]) is weak. Greedy, no constraints, no examples: the
//! prompt's prefix is the same for every segment of a language, so its KV cache is computed once.
use registro_engine::chat::ChatMessage;
use registro_register::Lang;

use crate::backend::GenRequest;
use crate::constrain::Constraints;
use crate::prompt::{split_rendering, ChatFormat, Prompt};

fn system_text(lang: Lang) -> String {
    format!(
        "You are a professional translator. Translate the user's {} text into English, literally: keep every negation \
         and who does what to whom. Output only the translation, on one line.",
        lang.name()
    )
}

/// Whether a back-translation can be compared with its source: not a comment about the task ("Sure, here is the
/// translation:") and not the instruction repeated (small models do both on a fragment). One that cannot is no
/// second opinion, and says nothing.
pub fn usable(lang: Lang, back: &str) -> bool {
    let b = back.trim().to_lowercase();
    if b.is_empty() || is_comment(&b) {
        return false;
    }
    // Five words in a row of the instruction are the instruction, not the text.
    let instruction = system_text(lang).to_lowercase();
    let iw: Vec<&str> = instruction.split_whitespace().collect();
    let bw: Vec<&str> = b.split_whitespace().collect();
    !bw.windows(5).any(|w| iw.windows(5).any(|x| x == w))
}

/// A comment on the task rather than a reading: "Sure, here is the translation:", "I'm sorry, but I can't assist
/// with that." A reading that merely opens like one is kept: "Desculpe, mas não recebi o ficheiro" is "I'm sorry,
/// but I didn't get the file", "Claro, posso ajudar" is "Sure, I can help".
fn is_comment(b: &str) -> bool {
    const ALWAYS: &[&str] = &["here is", "here's", "as an ai", "please provide", "translation"];
    const REFUSING: &[&str] = &[
        "can't assist", "cannot assist", "unable to assist", "can't help with that", "cannot help with that",
        "unable to help with", "can't translate", "cannot translate", "unable to translate", "can't provide",
        "cannot provide", "unable to provide", "can't fulfill", "cannot fulfill", "unable to fulfill", "unable to comply",
    ];
    let head: String = b.split_whitespace().take(8).collect::<Vec<_>>().join(" ");
    ALWAYS.iter().any(|m| b.starts_with(m))
        || b.contains("translation:")
        || b.contains("translated text")
        || ["sure", "certainly", "of course"].iter().any(|m| b.starts_with(m)) && (head.contains("here") || head.contains("translat"))
        || ["i'm sorry", "i am sorry", "sorry"].iter().any(|m| b.starts_with(m)) && REFUSING.iter().any(|r| b.contains(r))
}

/// The prompt that translates `text`, written in `lang`, back into English.
pub fn prompt(format: &ChatFormat, lang: Lang, text: &str) -> anyhow::Result<Prompt> {
    Ok(match format {
        ChatFormat::Template(t) => split_rendering(t, &[ChatMessage::system(&system_text(lang)), ChatMessage::user(text)], 1)?,
        ChatFormat::Plain => Prompt { prefix: format!("{}\n\n", system_text(lang)), turn: format!("{}: {text}\nEnglish:", lang.name()) },
    })
}

/// One greedy request for [`prompt`], with room for an English sentence somewhat longer than `text`.
pub fn request(format: &ChatFormat, lang: Lang, text: &str, max_tokens: usize) -> anyhow::Result<GenRequest> {
    let p = prompt(format, lang, text)?;
    Ok(GenRequest { prefix: p.prefix, turn: p.turn, n: 1, max_tokens, constraints: Constraints::default() })
}

#[cfg(test)]
mod tests {
    use registro_engine::chat::ChatTemplate;

    use super::*;

    /// The prefix is the same for every text of a language (one KV cache), and prefix + turn is the template's own
    /// rendering of the request, ending where the model writes English.
    #[test]
    fn the_back_translation_prompt_shares_its_prefix_and_renders_as_the_template_does() {
        for family in ["qwen2", "gemma3", "llama"] {
            let t = ChatTemplate::builtin(family);
            let format = ChatFormat::Template(t.clone());
            let a = prompt(&format, Lang::De, "Können Sie mir den Bericht schicken?").unwrap();
            let b = prompt(&format, Lang::De, "Danke!").unwrap();
            assert_eq!(a.prefix, b.prefix, "{family}");
            let whole = t.render(&[ChatMessage::system(&system_text(Lang::De)), ChatMessage::user("Danke!")], true).unwrap();
            let whole = whole.strip_prefix(t.bos_token.as_str()).filter(|_| !t.bos_token.is_empty()).unwrap_or(&whole);
            assert_eq!(format!("{}{}", b.prefix, b.turn), whole, "{family}");
            assert!(whole.contains("German text into English"), "{family}");
        }
        let plain = prompt(&ChatFormat::Plain, Lang::It, "Grazie!").unwrap();
        assert!(usable(Lang::De, "Can I send you the report?"));
        assert!(!usable(Lang::De, "Sure, here is the English translation:"));
        assert!(!usable(Lang::De, "Keep every negation and who does what to whom."));
        assert!(!usable(Lang::Pt, "I'm sorry, but I can't assist with that."));
        assert!(!usable(Lang::Pt, "Certainly! Here it is: I didn't get the file."));
        // Faithful readings that open like a comment (a translation opening with "Desculpe," or "Claro,").
        assert!(usable(Lang::Pt, "I'm sorry, but I didn't get the file you sent last week."));
        assert!(usable(Lang::Pt, "Sure, I can send you the file tomorrow."));
        // The 1.5B model's reading of "Desculpa, mas não consegui o arquivo que enviou a semana passada."
        assert!(usable(Lang::Pt, "I'm sorry, but I was unable to retrieve the file sent last week."));
        assert!(!usable(Lang::Pt, "I'm sorry, but I am unable to translate this text."));
        assert!(plain.turn.ends_with("Italian: Grazie!\nEnglish:"), "{}", plain.turn);
    }
}
