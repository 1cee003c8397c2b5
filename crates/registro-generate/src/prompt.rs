//! Prompt templates per language and register, and chat rendering. The system prompt and the few-shot turns form
//! the prefix that the engine computes once and reuses for every segment of a document.
use registro_engine::chat::{ChatMessage, ChatTemplate};
use registro_register::{Lang, Register};
use serde::{Deserialize, Serialize};

use crate::fewshot::Shot;

/// The addressee's grammatical gender, where the target language marks it (agreement in the prompt's examples
/// and instructions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Gender {
    Masculine,
    Feminine,
}

impl std::str::FromStr for Gender {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> anyhow::Result<Self> {
        match s {
            "masculine" | "m" | "male" => Ok(Gender::Masculine),
            "feminine" | "f" | "female" => Ok(Gender::Feminine),
            _ => anyhow::bail!("unknown gender {s:?} (expected masculine or feminine)"),
        }
    }
}

/// How the target register is spelled out to the model.
fn register_instruction(lang: Lang, register: Register) -> &'static str {
    use Lang::*;
    use Register::*;
    match (lang, register) {
        (De, Informal) => "Address the reader informally with \"du\" (du, dich, dir, dein, 2nd-person singular verbs). Never use \"Sie\", \"Ihnen\" or \"Ihr\" to address the reader.",
        (De, _) => "Address the reader formally with \"Sie\" (Sie, Ihnen, Ihr, Ihre; verbs in the polite form). Never use du, dich, dir or dein.",
        (Es, Informal) => "Address the reader informally with \"tú\" (tú, te, ti, tu, contigo; 2nd-person singular verbs such as \"tienes\", \"sabes\"). Never use \"usted\".",
        (Es, _) => "Address the reader formally with \"usted\" (usted, su, le; 3rd-person singular verbs such as \"tiene\", \"sabe\"). Never use tú, te, ti, tu or 2nd-person singular verbs.",
        (Fr, Informal) => "Address the reader informally with \"tu\" (tu, te, toi, ton, ta, tes). Never use \"vous\" for the reader.",
        (Fr, _) => "Address the reader formally with \"vous\" (vous, votre, vos). Never use tu, te, toi, ton, ta or tes.",
        (It, Informal) => "Address the reader informally with \"tu\" (tu, ti, te, tuo, tua; 2nd-person singular verbs such as \"hai\", \"sai\"). Never use \"Lei\".",
        (It, _) => "Address the reader formally with \"Lei\" (Lei, La, Le, Suo, Sua; 3rd-person singular verbs such as \"ha\", \"sa\"). Never use tu, ti, te, tuo or 2nd-person singular verbs.",
        (Hi, Informal) => "Address the reader informally with \"तुम\" (तुम, तुम्हारा, तुम्हें; verbs ending in -ो/-ओ, \"हो\"). Never use \"आप\".",
        (Hi, _) => "Address the reader formally with \"आप\" (आप, आपका, आपको; verbs ending in -ें/-िए, \"हैं\"). Never use तू, तुम or तुम्हारा.",
        (Ja, Informal) => "Use casual plain style (だ, plain verb forms such as 思う, 行った, ない). Never use です, ます or ください.",
        (Ja, Formal) => "Use polite style: end every sentence with です or ます forms (です, ます, ました, ません, でしょう). Never end a sentence with a plain form.",
        (Ja, Respectful) => "Use respectful keigo: honorific verbs for the listener's actions (いらっしゃる, 召し上がる, おっしゃる, ご覧になる, お〜になる, ご存知) and です/ます endings everywhere.",
        (Nl, Informal) => "Address the reader informally with \"je\"/\"jij\" (je, jij, jou, jouw). Never use \"u\" or \"uw\".",
        (Nl, _) => "Address the reader formally with \"u\" (u, uw; verbs such as \"hebt u\", \"kunt u\"). Never use je, jij, jou or jouw.",
        (Pt, Informal) => "Write European Portuguese and address the reader informally with \"tu\" (tu, te, ti, teu, tua; 2nd-person singular verbs such as \"tens\", \"sabes\", \"ouviste\"). Never use \"você\" or \"o senhor\".",
        (Pt, _) => "Write European Portuguese and address the reader formally (\"o senhor\"/\"a senhora\" or no pronoun, \"seu\", \"lhe\"; 3rd-person singular verbs such as \"tem\", \"sabe\", \"ouviu\"). Never use tu, te, ti, teu, tua or 2nd-person singular verbs.",
        (Ru, Informal) => "Address the reader informally with \"ты\" (ты, тебя, тебе, твой; verbs in -ешь/-ишь). Never use \"вы\" or \"ваш\" for one reader.",
        (Ru, _) => "Address the reader formally with \"вы\" (вы, вас, вам, ваш; verbs in -ете/-ите). Never use ты, тебя, тебе or твой.",
        (Ko, Informal) => "Use casual banmal (반말): end every sentence with plain endings such as -어, -아, -야, -지. Never end a sentence with -요 or -습니다.",
        (Ko, _) => "Use polite speech (존댓말): end every sentence with -요 or -습니다/-ㅂ니다, and use 저/제가 for \"I\". Never use 너 or plain endings such as -어, -야.",
        (Vi, Informal) => "Address the reader informally as \"bạn\" and do not use the polite particle \"ạ\". Never use \"quý vị\".",
        (Vi, _) => "Address the reader formally as \"quý vị\" and end questions and requests politely with \"ạ\". Never use bạn, cậu or mày for the reader.",
    }
}

pub struct Prompt {
    /// System prompt + few-shot turns (shared by the segments of a document).
    pub prefix: String,
    /// The segment's own turn, ending where the model starts writing.
    pub turn: String,
}

/// How a prompt becomes model input.
#[derive(Clone, Debug)]
pub enum ChatFormat {
    /// The model's own chat template (the GGUF's `tokenizer.chat_template`): the system text and the few-shot
    /// examples become real system/user/assistant turns, rendered exactly as the model was trained to see them.
    Template(ChatTemplate),
    /// Plain "English: … / German: …" lines for base models without a chat template.
    Plain,
}

impl ChatFormat {
    /// The template a model file carries, else plain lines (a base model).
    pub fn for_model(info: &registro_engine::ModelInfo) -> Self {
        match info.chat_template {
            Some(_) => ChatFormat::Template(info.chat.clone()),
            None => ChatFormat::Plain,
        }
    }

    /// Stop strings for a one-segment answer.
    pub fn stops(&self) -> Vec<String> {
        // Small chat models like to add alternatives ("… Or: …"); the first rendering is the translation.
        let mut v = vec!["\n".to_string(), " Or:".to_string(), " or:".to_string(), " (Or".to_string(), " Alternatively".to_string()];
        match self {
            ChatFormat::Template(t) => {
                v.extend(end_of_turn(t));
                if !t.eos_token.is_empty() {
                    v.push(t.eos_token.clone());
                }
            }
            ChatFormat::Plain => v.push("English:".into()),
        }
        v.dedup();
        v
    }
}

/// The marker a template closes an assistant turn with (`<|im_end|>`, `<end_of_turn>`, `<|eot_id|>`…), read off a
/// rendering rather than known per family, so a model with its own template stops where it means to.
fn end_of_turn(t: &ChatTemplate) -> Option<String> {
    const ANSWER: &str = "\u{2}answer\u{2}";
    let text = t.render(&[ChatMessage::user("\u{1}question\u{1}"), ChatMessage::assistant(ANSWER)], false).ok()?;
    let after = &text[text.find(ANSWER)? + ANSWER.len()..];
    let marker = after.split('\n').next().unwrap_or("").trim();
    (!marker.is_empty()).then(|| marker.to_string())
}

pub struct PromptSpec<'a> {
    pub lang: Lang,
    pub register: Register,
    /// Spell out the register (the `prompt` control); without it the prompt is the generic translation request.
    pub instruct: bool,
    pub gender: Option<Gender>,
    pub shots: &'a [Shot],
}

pub fn system_text(spec: &PromptSpec<'_>) -> String {
    let mut s = format!(
        "You are a professional translator. Translate the user's English text into {}. Output only the translation, on one line.",
        spec.lang.name()
    );
    if spec.instruct {
        s.push(' ');
        s.push_str(register_instruction(spec.lang, spec.register));
        if spec.gender == Some(Gender::Feminine) && spec.lang.marks_addressee_gender() {
            s.push_str(" The person addressed is a woman: use feminine forms for words that refer to her.");
        }
    }
    if !spec.shots.is_empty() {
        // Contrastive examples: the wanted rendering with its markers, and the one to avoid.
        s.push_str("\nExamples (markers in [brackets]):");
        for shot in spec.shots {
            s.push_str(&format!("\nEnglish: {}\n{} (use): {}\n{} (avoid): {}", shot.source, spec.register.as_str(), shot.wanted_marked, spec.register.opposite().as_str(), shot.avoid_marked));
        }
    }
    s
}

/// The prompt for one segment. With a chat template, the shared part (system text + few-shot turns) is the
/// rendering of the conversation without the segment's turn, so that `prefix + turn` is byte-identical to the
/// template's rendering of the whole conversation and the prefix's KV cache can be reused for every segment.
pub fn build(format: &ChatFormat, spec: &PromptSpec<'_>, source: &str) -> anyhow::Result<Prompt> {
    build_with(format, spec, &[], source)
}

/// An approved (source, target) pair of the project's translation memory shown to the model as one exchange
/// right before the segment it matches.
#[derive(Clone, Copy, Debug)]
pub struct MemoryExample<'a> {
    pub source: &'a str,
    pub target: &'a str,
}

/// [`build`] with examples of the segment's own (a translation-memory match, examples retrieved for this
/// sentence): one more user/assistant exchange each in the segment's own turn, after the shared prefix, so the
/// prefix (and its KV cache) stays the same for every segment of the document whatever its examples;
/// `prefix + turn` is still the template's rendering of the whole conversation.
pub fn build_with(format: &ChatFormat, spec: &PromptSpec<'_>, examples: &[MemoryExample<'_>], source: &str) -> anyhow::Result<Prompt> {
    let system = system_text(spec);
    let lang = spec.lang.name();
    Ok(match format {
        ChatFormat::Template(t) => {
            let mut messages = vec![ChatMessage::system(&system)];
            for shot in spec.shots {
                messages.push(ChatMessage::user(&shot.source));
                messages.push(ChatMessage::assistant(&shot.wanted));
            }
            let shared = messages.len();
            for ex in examples {
                messages.push(ChatMessage::user(ex.source));
                messages.push(ChatMessage::assistant(ex.target));
            }
            messages.push(ChatMessage::user(source));
            split_rendering(t, &messages, shared)?
        }
        ChatFormat::Plain => {
            let mut prefix = format!("{system}\n\n");
            for shot in spec.shots {
                prefix.push_str(&format!("English: {}\n{lang}: {}\n\n", shot.source, shot.wanted));
            }
            let mut turn = String::new();
            for ex in examples {
                turn.push_str(&format!("English: {}\n{lang}: {}\n\n", ex.source, ex.target));
            }
            turn.push_str(&format!("English: {source}\n{lang}:"));
            Prompt { prefix, turn }
        }
    })
}

/// The template's rendering of `messages`, cut after the first `shared` of them: the prefix (its KV cache reused by
/// every prompt that shares those messages) and the turn, so that `prefix + turn` is the rendering of the whole.
pub(crate) fn split_rendering(t: &ChatTemplate, messages: &[ChatMessage], shared: usize) -> anyhow::Result<Prompt> {
    let full = t.render(messages, true)?;
    let head = t.render(&messages[..shared], false)?;
    // The generator puts the model's BOS token first itself.
    let strip_bos = |s: &str| -> String { s.strip_prefix(t.bos_token.as_str()).filter(|_| !t.bos_token.is_empty()).unwrap_or(s).to_string() };
    Ok(match full.strip_prefix(head.as_str()) {
        // A template that rewrites earlier turns (Gemma folds the system text into the first user turn)
        // may render the head as a mere BOS: then nothing is shared, which is still correct.
        Some(turn) => Prompt { prefix: strip_bos(&head), turn: turn.to_string() },
        None => Prompt { prefix: String::new(), turn: strip_bos(&full) },
    })
}

#[cfg(test)]
mod tests {
    use registro_engine::chat::{ChatMessage, ChatTemplate};

    use super::*;

    fn shots() -> Vec<Shot> {
        vec![Shot { source: "Are you coming?".into(), wanted: "Kommen Sie?".into(), wanted_marked: "Kommen [Sie]?".into(), avoid_marked: "Kommst [du]?".into() }]
    }

    const EXAMPLE: MemoryExample<'static> = MemoryExample { source: "Please sign the last page.", target: "Bitte unterschreiben Sie die letzte Seite." };
    /// An example retrieved for the sentence from the pool.
    const SENTENCE_EXAMPLE: MemoryExample<'static> = MemoryExample { source: "Did you sign it?", target: "Haben Sie es unterschrieben?" };

    /// A sentence's own examples (retrieved for it, a translation-memory match) go into the segment's turn: the
    /// prefix is the one every other segment of the document continues (its KV cache is shared), and prefix + turn
    /// is still the template's own rendering of the whole conversation, example exchanges included, in order.
    #[test]
    fn a_memory_example_is_rendered_in_the_turn_after_the_shared_prefix() {
        for shots in [shots(), Vec::new()] {
            let spec = PromptSpec { lang: Lang::De, register: Register::Formal, instruct: true, gender: None, shots: &shots };
            for family in ["qwen2", "gemma3", "llama"] {
                let t = ChatTemplate::builtin(family);
                let format = ChatFormat::Template(t.clone());
                let plain = build(&format, &spec, "Please sign the first page.").unwrap();
                let with = build_with(&format, &spec, &[SENTENCE_EXAMPLE, EXAMPLE], "Please sign the first page.").unwrap();
                assert_eq!(with.prefix, plain.prefix, "{family}: the shared prefix does not depend on the examples");
                let mut messages = vec![ChatMessage::system(&system_text(&spec))];
                for s in &shots {
                    messages.push(ChatMessage::user(&s.source));
                    messages.push(ChatMessage::assistant(&s.wanted));
                }
                messages.push(ChatMessage::user(SENTENCE_EXAMPLE.source));
                messages.push(ChatMessage::assistant(SENTENCE_EXAMPLE.target));
                messages.push(ChatMessage::user(EXAMPLE.source));
                messages.push(ChatMessage::assistant(EXAMPLE.target));
                messages.push(ChatMessage::user("Please sign the first page."));
                let whole = t.render(&messages, true).unwrap();
                assert_eq!(format!("{}{}{}", t.bos_token, with.prefix, with.turn), whole, "{family}");
                assert!(with.turn.contains(EXAMPLE.target) && !with.prefix.contains(EXAMPLE.target), "{family}");
                let example_at = with.turn.find(EXAMPLE.source).unwrap();
                assert!(with.turn.find(SENTENCE_EXAMPLE.target).unwrap() < example_at, "{family}: in the order given");
                assert!(example_at < with.turn.find("Please sign the first page.").unwrap(), "{family}: the example comes first");
            }
        }
    }

    #[test]
    fn plain_prompts_show_the_memory_example_as_one_more_pair_of_lines() {
        let shots = shots();
        let spec = PromptSpec { lang: Lang::De, register: Register::Formal, instruct: true, gender: None, shots: &shots };
        let plain = build(&ChatFormat::Plain, &spec, "Please sign the first page.").unwrap();
        let with = build_with(&ChatFormat::Plain, &spec, &[EXAMPLE], "Please sign the first page.").unwrap();
        assert_eq!(with.prefix, plain.prefix);
        assert_eq!(
            with.turn,
            "English: Please sign the last page.\nGerman: Bitte unterschreiben Sie die letzte Seite.\n\nEnglish: Please sign the first page.\nGerman:"
        );
        assert_eq!(plain.turn, "English: Please sign the first page.\nGerman:");
    }
}
