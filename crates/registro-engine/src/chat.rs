//! Chat templates: the Jinja template a GGUF file carries in `tokenizer.chat_template`, rendered the way Hugging
//! Face renders it (trim_blocks + lstrip_blocks, Python string methods, `raise_exception`), with a built-in
//! template per family for files that carry none (base models, older conversions).
use anyhow::{anyhow, Context, Result};
use candle_core::quantized::gguf_file;
use minijinja::{Environment, Error, ErrorKind, Value};
use serde::{Deserialize, Serialize};

use crate::gguf_meta::meta_string;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: &str, content: &str) -> Self {
        Self { role: role.to_string(), content: content.to_string() }
    }
    pub fn system(content: &str) -> Self {
        Self::new("system", content)
    }
    pub fn user(content: &str) -> Self {
        Self::new("user", content)
    }
    pub fn assistant(content: &str) -> Self {
        Self::new("assistant", content)
    }
}

/// Qwen2.5's template exactly as its GGUF files carry it (tools branch included).
pub const QWEN2_TEMPLATE: &str = include_str!("chat_templates/qwen2.5.jinja");
/// Gemma 3 instruction-tuned template from Google's tokenizer_config.json.
pub const GEMMA3_TEMPLATE: &str = include_str!("chat_templates/gemma3.jinja");
/// Meta Llama 3 Instruct template.
pub const LLAMA3_TEMPLATE: &str = include_str!("chat_templates/llama3.jinja");
/// Plain ChatML for families with no template of their own.
pub const CHATML_TEMPLATE: &str = include_str!("chat_templates/chatml.jinja");

/// Where a template came from, shown to users so a surprising prompt can be traced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum TemplateOrigin {
    /// `tokenizer.chat_template` of the model file.
    ModelFile,
    /// Registro's built-in template for this family.
    BuiltIn(String),
}

#[derive(Clone, Debug)]
pub struct ChatTemplate {
    pub source: String,
    pub origin: TemplateOrigin,
    pub bos_token: String,
    pub eos_token: String,
}

impl ChatTemplate {
    /// The built-in template for an architecture or family name (`qwen2`, `qwen2.5`, `qwen3`, `gemma3`,
    /// `gemma`, `llama`, `llama3`); ChatML for anything else.
    pub fn builtin(family: &str) -> Self {
        let f = family.to_ascii_lowercase();
        let (source, bos, eos) = if f.starts_with("qwen") {
            (QWEN2_TEMPLATE, "", "<|im_end|>")
        } else if f.starts_with("gemma") {
            (GEMMA3_TEMPLATE, "<bos>", "<eos>")
        } else if f.starts_with("llama") {
            (LLAMA3_TEMPLATE, "<|begin_of_text|>", "<|eot_id|>")
        } else {
            (CHATML_TEMPLATE, "", "<|im_end|>")
        };
        Self { source: source.to_string(), origin: TemplateOrigin::BuiltIn(f), bos_token: bos.into(), eos_token: eos.into() }
    }

    /// The template of a GGUF file, or the built-in one for its architecture when it carries none.
    pub fn from_gguf(content: &gguf_file::Content) -> Self {
        let arch = meta_string(content, "general.architecture").unwrap_or_default();
        let token = |key: &str| {
            let id = crate::gguf_meta::meta_u64(content, key)? as usize;
            let tokens = content.metadata.get("tokenizer.ggml.tokens")?.to_vec().ok()?;
            tokens.get(id)?.to_string().ok().cloned()
        };
        let mut t = match meta_string(content, "tokenizer.chat_template") {
            Some(source) => Self { source, origin: TemplateOrigin::ModelFile, bos_token: String::new(), eos_token: String::new() },
            None => Self::builtin(&arch),
        };
        if let Some(b) = token("tokenizer.ggml.bos_token_id") {
            t.bos_token = b;
        }
        if let Some(e) = token("tokenizer.ggml.eos_token_id") {
            t.eos_token = e;
        }
        t
    }

    /// Renders a conversation; `add_generation_prompt` appends the header of the assistant's next turn.
    pub fn render(&self, messages: &[ChatMessage], add_generation_prompt: bool) -> Result<String> {
        render(&self.source, messages, add_generation_prompt, &self.bos_token, &self.eos_token)
    }
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // Hugging Face renders chat templates with trim_blocks and lstrip_blocks; templates are written for that.
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    minijinja_contrib::add_to_environment(&mut env);
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    env.add_function("raise_exception", |msg: String| -> Result<Value, Error> {
        Err(Error::new(ErrorKind::InvalidOperation, format!("chat template raised: {msg}")))
    });
    env.add_function("strftime_now", |fmt: String| -> Result<Value, Error> { Ok(Value::from(strftime_now(&fmt))) });
    // Python's json.dumps(ensure_ascii=False): minijinja's own tojson escapes <, > and & for HTML, which would
    // change the prompt a model was trained on.
    env.add_filter("tojson", |v: Value, indent: Option<usize>| -> Result<String, Error> {
        let json: serde_json::Value =
            serde_json::to_value(&v).map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?;
        let out = match indent {
            Some(n) => {
                let mut buf = Vec::new();
                let ind = vec![b' '; n];
                let fmt = serde_json::ser::PrettyFormatter::with_indent(&ind);
                let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
                json.serialize(&mut ser).map_err(|e| Error::new(ErrorKind::InvalidOperation, e.to_string()))?;
                String::from_utf8(buf).unwrap_or_default()
            }
            None => python_json_dumps(&json),
        };
        Ok(out)
    });
    env
}

/// `json.dumps` default separators are ", " and ": ", unlike serde_json's compact form.
fn python_json_dumps(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Array(a) => format!("[{}]", a.iter().map(python_json_dumps).collect::<Vec<_>>().join(", ")),
        serde_json::Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}: {}", serde_json::Value::String(k.clone()), python_json_dumps(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// Only the formats chat templates use (`%d %b %Y`, `%Y-%m-%d`), from the system clock in UTC.
fn strftime_now(fmt: &str) -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let (y, m, d) = civil_from_days(days);
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    fmt.replace("%Y", &y.to_string())
        .replace("%m", &format!("{m:02}"))
        .replace("%d", &format!("{d:02}"))
        .replace("%b", MONTHS[(m - 1) as usize])
        .replace("%B", MONTHS[(m - 1) as usize])
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Renders any chat template source.
pub fn render(source: &str, messages: &[ChatMessage], add_generation_prompt: bool, bos: &str, eos: &str) -> Result<String> {
    let mut env = environment();
    env.add_template_owned("chat", source.to_string()).map_err(|e| anyhow!("chat template does not parse: {e}"))?;
    let tmpl = env.get_template("chat")?;
    tmpl.render(minijinja::context! {
        messages => messages,
        add_generation_prompt => add_generation_prompt,
        bos_token => bos,
        eos_token => eos,
    })
    .map_err(|e| anyhow!("{e}"))
    .context("rendering the chat template")
}
