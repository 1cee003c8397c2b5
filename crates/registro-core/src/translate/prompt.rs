//! Prompt templates per language and register, and chat rendering. The system prompt and the few-shot turns form
//! the prefix that the engine computes once and reuses for every segment of a document.
use registro_register::{Lang, Register};

use super::fewshot::Shot;
use super::Gender;

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
    }
}

pub struct Prompt {
    /// System prompt + few-shot turns (shared by the segments of a document).
    pub prefix: String,
    /// The segment's own turn, ending where the model starts writing.
    pub turn: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatFormat {
    /// `<|im_start|>role … <|im_end|>` (Qwen).
    ChatMl,
    /// `<start_of_turn>user … <end_of_turn>` (Gemma).
    Gemma,
    /// Plain "English: … / German: …" lines for base models without a chat template.
    Plain,
}

impl ChatFormat {
    pub fn detect(template: Option<&str>) -> Self {
        match template {
            Some(t) if t.contains("<|im_start|>") => ChatFormat::ChatMl,
            Some(t) if t.contains("<start_of_turn>") => ChatFormat::Gemma,
            _ => ChatFormat::Plain,
        }
    }
    /// Stop strings for a one-segment answer.
    pub fn stops(self) -> Vec<String> {
        // Small chat models like to add alternatives ("… Or: …"); the first rendering is the translation.
        let mut v = vec!["\n".to_string(), " Or:".to_string(), " or:".to_string(), " (Or".to_string(), " Alternatively".to_string()];
        match self {
            ChatFormat::ChatMl => v.push("<|im_end|>".into()),
            ChatFormat::Gemma => v.push("<end_of_turn>".into()),
            ChatFormat::Plain => v.push("English:".into()),
        }
        v
    }
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

pub fn build(format: ChatFormat, spec: &PromptSpec<'_>, source: &str) -> Prompt {
    let system = system_text(spec);
    let lang = spec.lang.name();
    match format {
        ChatFormat::ChatMl => {
            let mut prefix = format!("<|im_start|>system\n{system}<|im_end|>\n");
            for shot in spec.shots {
                prefix.push_str(&format!("<|im_start|>user\n{}<|im_end|>\n<|im_start|>assistant\n{}<|im_end|>\n", shot.source, shot.wanted));
            }
            Prompt { prefix, turn: format!("<|im_start|>user\n{source}<|im_end|>\n<|im_start|>assistant\n") }
        }
        ChatFormat::Gemma => {
            // Gemma has no system role: the instructions open the first user turn.
            let mut prefix = format!("<start_of_turn>user\n{system}\n");
            for shot in spec.shots {
                prefix.push_str(&format!("{}<end_of_turn>\n<start_of_turn>model\n{}<end_of_turn>\n<start_of_turn>user\n", shot.source, shot.wanted));
            }
            Prompt { prefix, turn: format!("{source}<end_of_turn>\n<start_of_turn>model\n") }
        }
        ChatFormat::Plain => {
            let mut prefix = format!("{system}\n\n");
            for shot in spec.shots {
                prefix.push_str(&format!("English: {}\n{lang}: {}\n\n", shot.source, shot.wanted));
            }
            Prompt { prefix, turn: format!("English: {source}\n{lang}:") }
        }
    }
}
