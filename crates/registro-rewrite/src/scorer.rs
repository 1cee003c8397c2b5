//! Formality scorer: a ridge regressor on PT16 ratings (−3 informal … +3 formal).
//!
//! Variants (all trained by [`train`], chosen on PT16 tune by Spearman):
//! - `surface`: language-independent surface features + per-language lexicons; the zero-shot multilingual scorer.
//! - `lexical`: surface + hashed English word uni/bigrams (English only; other languages fall back to surface).
//! - `embedding`: surface + sentence embeddings computed by the caller (all-MiniLM-L6-v2 through the engine).
//!
//! Training is pure Rust: conjugate gradient on the normal equations, which only needs sparse row products, so
//! 16k hashed features train in well under a second.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::features::{Extractor, SURFACE};
use crate::Lang;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    Surface,
    Lexical,
    Embedding,
}

named_variants!(Variant, "scorer variant", { Surface => "surface", Lexical => "lexical", Embedding => "embedding" });

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Model {
    pub variant: Variant,
    pub features: Vec<String>,
    pub mean: Vec<f32>,
    pub std: Vec<f32>,
    pub w_surface: Vec<f32>,
    #[serde(default)]
    pub lexical_buckets: u32,
    #[serde(default)]
    pub w_lexical: Vec<f32>,
    /// For the embedding variant: the embedding model id and its dimension.
    #[serde(default)]
    pub embedding_model: Option<String>,
    #[serde(default)]
    pub w_embedding: Vec<f32>,
    pub bias: f32,
    pub lambda: f32,
    pub report: TrainReport,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TrainReport {
    pub train_n: usize,
    pub tune_n: usize,
    pub tune_spearman: f64,
    pub tune_pearson: f64,
    pub train_spearman: f64,
    /// Spearman on tune for each ridge strength tried.
    pub lambda_grid: Vec<(f32, f64)>,
}

#[derive(Debug, thiserror::Error)]
pub enum ScorerError {
    #[error("{path}:{line}: {msg}")]
    Data { path: String, line: usize, msg: String },
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: not a formality model: {source}")]
    Json { path: String, source: serde_json::Error },
    #[error("model expects features {expected:?} but this build computes {actual:?}; retrain it")]
    Stale { expected: Vec<String>, actual: Vec<String> },
    #[error("the {0} variant needs a sentence embedding for each sentence")]
    NeedsEmbedding(&'static str),
    #[error("{path}: field `{field}`: {msg}; this file cannot be used as a formality scorer (retrain it with `registro rewrite train-scorer`)")]
    Invalid { path: String, field: String, msg: String },
    #[error("the scorer expects {expected}-dimensional sentence embeddings but was given {got} (embedding model {model})")]
    EmbeddingSize { expected: usize, got: usize, model: String },
}

pub struct Example {
    pub text: String,
    pub label: f32,
}

/// Reads a PT16 CSV (`SID,label,sentence`, RFC 4180 quoting).
pub fn load_pt16(path: &Path) -> Result<Vec<Example>, ScorerError> {
    let p = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ScorerError::Io { path: p.clone(), source })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 || line.trim().is_empty() {
            continue;
        }
        let fields = split_csv(line);
        let err = |msg: String| ScorerError::Data { path: p.clone(), line: i + 1, msg };
        if fields.len() != 3 {
            return Err(err(format!("expected 3 fields (SID,label,sentence), found {}", fields.len())));
        }
        let label: f32 = fields[1].trim().parse().map_err(|_| err(format!("label {:?} is not a number", fields[1])))?;
        out.push(Example { text: fields[2].clone(), label });
    }
    Ok(out)
}

fn split_csv(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let cur = fields.last_mut().expect("non-empty");
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' if quoted => quoted = false,
            '"' if cur.is_empty() => quoted = true,
            ',' if !quoted => fields.push(String::new()),
            _ => cur.push(c),
        }
    }
    fields
}

/// A reusable scorer: the model plus feature scratch space.
pub struct Scorer {
    pub model: Model,
    ex: Extractor,
}

const BUILTIN_SURFACE: &str = include_str!("../data/scorer/surface.json");
const BUILTIN_LEXICAL: &str = include_str!("../data/scorer/lexical.json");
const BUILTIN_EMBEDDING: &str = include_str!("../data/scorer/embedding.json");

/// The largest weights file read (the shipped lexical model is ~400 KB); a device or a huge file is refused before
/// it is read.
const MAX_MODEL_BYTES: u64 = 64 << 20;
/// A bound no trained weight comes near (ridge on standardised features gives |w| < 2 on PT16's ±3 scale): a
/// larger one would pin every score at the ±3.5 clamp, so the file is damaged or not a trained model.
const MAX_ABS_WEIGHT: f32 = 100.0;
/// Standard deviations under this (training floors them at 1e-3) would blow one feature up past every other.
const MIN_STD: f32 = 1e-6;
/// The most lexical hash buckets / embedding dimensions a model may declare (training uses 2^14 and 384).
const MAX_BUCKETS: u32 = 1 << 24;
const MAX_EMBEDDING_DIM: usize = 1 << 16;

/// Checks a deserialised model against the feature layout this build computes, so that a damaged or hand-edited
/// file is refused at load with the field to fix, instead of panicking mid-document or scoring nonsense.
pub fn validate(model: &Model, path: &str) -> Result<(), ScorerError> {
    let bad = |field: &str, msg: String| Err(ScorerError::Invalid { path: path.to_string(), field: field.to_string(), msg });
    let actual: Vec<String> = SURFACE.iter().map(|s| s.to_string()).collect();
    if model.features != actual {
        return Err(ScorerError::Stale { expected: model.features.clone(), actual });
    }
    let ns = SURFACE.len();
    for (field, v) in [("mean", &model.mean), ("std", &model.std), ("w_surface", &model.w_surface)] {
        if v.len() != ns {
            return bad(field, format!("has {} values but the model has {ns} surface features", v.len()));
        }
    }
    let finite = |field: &str, v: &[f32], max: f32| -> Result<(), ScorerError> {
        match v.iter().position(|x| !x.is_finite() || x.abs() > max) {
            Some(i) if !v[i].is_finite() => bad(&format!("{field}[{i}]"), format!("{} is not a finite number", v[i])),
            Some(i) => bad(&format!("{field}[{i}]"), format!("{} is beyond ±{max}", v[i])),
            None => Ok(()),
        }
    };
    finite("mean", &model.mean, 1e6)?;
    finite("std", &model.std, 1e6)?;
    if let Some(i) = model.std.iter().position(|&x| x < MIN_STD) {
        return bad(&format!("std[{i}]"), format!("{} must be a positive standard deviation (at least {MIN_STD})", model.std[i]));
    }
    finite("w_surface", &model.w_surface, MAX_ABS_WEIGHT)?;
    finite("bias", &[model.bias], MAX_ABS_WEIGHT)?;
    match model.variant {
        Variant::Lexical => {
            if model.lexical_buckets == 0 || model.lexical_buckets > MAX_BUCKETS {
                return bad("lexical_buckets", format!("{} must be between 1 and {MAX_BUCKETS}", model.lexical_buckets));
            }
            if model.w_lexical.len() != model.lexical_buckets as usize {
                return bad(
                    "w_lexical",
                    format!("has {} weights but lexical_buckets is {}", model.w_lexical.len(), model.lexical_buckets),
                );
            }
            finite("w_lexical", &model.w_lexical, MAX_ABS_WEIGHT)?;
        }
        Variant::Embedding => {
            if model.w_embedding.is_empty() || model.w_embedding.len() > MAX_EMBEDDING_DIM {
                return bad(
                    "w_embedding",
                    format!("has {} weights; the embedding variant needs one per embedding dimension (1 to {MAX_EMBEDDING_DIM})", model.w_embedding.len()),
                );
            }
            finite("w_embedding", &model.w_embedding, MAX_ABS_WEIGHT)?;
        }
        Variant::Surface => {}
    }
    Ok(())
}

impl Scorer {
    pub fn new(model: Model) -> Result<Self, ScorerError> {
        Self::new_from(model, "scorer model")
    }

    fn new_from(model: Model, path: &str) -> Result<Self, ScorerError> {
        validate(&model, path)?;
        Ok(Self { model, ex: Extractor::new() })
    }

    /// A scorer from the text of a weights file; `path` names it in errors.
    pub fn from_json(text: &str, path: &str) -> Result<Self, ScorerError> {
        let model = serde_json::from_str(text).map_err(|source| ScorerError::Json { path: path.to_string(), source })?;
        Self::new_from(model, path)
    }

    /// The weights shipped in the crate (`data/scorer/<variant>.json`, written by `registro rewrite train-scorer`).
    pub fn builtin(variant: Variant) -> Result<Self, ScorerError> {
        let (src, name) = match variant {
            Variant::Surface => (BUILTIN_SURFACE, "surface.json"),
            Variant::Lexical => (BUILTIN_LEXICAL, "lexical.json"),
            // Scoring with it still needs each sentence's all-MiniLM-L6-v2 embedding from the caller.
            Variant::Embedding => (BUILTIN_EMBEDDING, "embedding.json"),
        };
        Self::from_json(src, &format!("builtin {name}"))
    }

    /// Loads and validates a weights file written by `registro rewrite train-scorer`.
    pub fn load(path: &Path) -> Result<Self, ScorerError> {
        use std::io::Read;
        let p = path.display().to_string();
        let io = |source| ScorerError::Io { path: p.clone(), source };
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(ScorerError::Invalid { path: p, field: "(file)".into(), msg: "not a regular file".into() });
        }
        let mut text = String::new();
        std::fs::File::open(path).map_err(io)?.take(MAX_MODEL_BYTES + 1).read_to_string(&mut text).map_err(io)?;
        if text.len() as u64 > MAX_MODEL_BYTES {
            return Err(ScorerError::Invalid {
                path: p,
                field: "(file)".into(),
                msg: format!("larger than {} MiB; a formality model is well under 1 MiB", MAX_MODEL_BYTES >> 20),
            });
        }
        Self::from_json(&text, &p)
    }

    /// Formality on PT16's scale (about −3 … 3; higher is more formal). `embedding` is required by the embedding
    /// variant and ignored by the others.
    pub fn score(&mut self, text: &str, lang: Lang, embedding: Option<&[f32]>) -> Result<f32, ScorerError> {
        let m = &self.model;
        let f = self.ex.surface(text, lang);
        let mut y = m.bias;
        for (i, x) in f.iter().enumerate() {
            y += m.w_surface[i] * (x - m.mean[i]) / m.std[i];
        }
        // Lexical weights are English n-grams: applying them to another language would be noise.
        if m.variant == Variant::Lexical && lang == Lang::En {
            for (b, v) in self.ex.lexical(m.lexical_buckets) {
                y += m.w_lexical[b as usize] * v;
            }
        }
        if m.variant == Variant::Embedding {
            let e = embedding.ok_or(ScorerError::NeedsEmbedding("embedding"))?;
            // A different embedding model would be silently truncated by the dot product below.
            if e.len() != m.w_embedding.len() {
                return Err(ScorerError::EmbeddingSize {
                    expected: m.w_embedding.len(),
                    got: e.len(),
                    model: m.embedding_model.clone().unwrap_or_else(|| "unknown".into()),
                });
            }
            y += e.iter().zip(&m.w_embedding).map(|(a, b)| a * b).sum::<f32>();
        }
        Ok(y.clamp(-3.5, 3.5))
    }
}

/// One training row in sparse form: (column, value).
type Row = Vec<(u32, f32)>;

struct Design {
    rows: Vec<Row>,
    dim: usize,
}

fn build_rows(
    ex: &mut Extractor,
    data: &[Example],
    variant: Variant,
    buckets: u32,
    emb: Option<&[Vec<f32>]>,
    mean: &[f32],
    std: &[f32],
) -> Vec<Row> {
    let ns = SURFACE.len() as u32;
    data.iter()
        .enumerate()
        .map(|(k, e)| {
            let f = ex.surface(&e.text, Lang::En);
            let mut row: Row = f.iter().enumerate().map(|(i, x)| (i as u32, (x - mean[i]) / std[i])).collect();
            match variant {
                Variant::Surface => {}
                Variant::Lexical => row.extend(ex.lexical(buckets).into_iter().map(|(b, v)| (ns + b, v))),
                Variant::Embedding => {
                    if let Some(emb) = emb {
                        row.extend(emb[k].iter().enumerate().map(|(i, &v)| (ns + i as u32, v)));
                    }
                }
            }
            row
        })
        .collect()
}

/// Solves (XᵀX + λI) w = Xᵀy (y centred, no penalty on the bias) by conjugate gradient.
fn ridge(d: &Design, y: &[f32], lambda: f32) -> Vec<f32> {
    let n = d.rows.len();
    let ymean = y.iter().sum::<f32>() / n as f32;
    let mut b = vec![0f64; d.dim];
    for (r, &yi) in d.rows.iter().zip(y) {
        for &(j, v) in r {
            b[j as usize] += v as f64 * (yi - ymean) as f64;
        }
    }
    let apply = |x: &[f64], out: &mut [f64]| {
        for (o, xi) in out.iter_mut().zip(x) {
            *o = lambda as f64 * xi;
        }
        for r in &d.rows {
            let dot: f64 = r.iter().map(|&(j, v)| v as f64 * x[j as usize]).sum();
            for &(j, v) in r {
                out[j as usize] += v as f64 * dot;
            }
        }
    };
    let mut x = vec![0f64; d.dim];
    let mut r = b.clone();
    let mut p = r.clone();
    let mut ap = vec![0f64; d.dim];
    let mut rs: f64 = r.iter().map(|v| v * v).sum();
    let tol = rs * 1e-12;
    for _ in 0..500 {
        if rs <= tol {
            break;
        }
        apply(&p, &mut ap);
        let alpha = rs / p.iter().zip(&ap).map(|(a, b)| a * b).sum::<f64>();
        for i in 0..d.dim {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        let rs_new: f64 = r.iter().map(|v| v * v).sum();
        for i in 0..d.dim {
            p[i] = r[i] + rs_new / rs * p[i];
        }
        rs = rs_new;
    }
    x.into_iter().map(|v| v as f32).collect()
}

fn predict(rows: &[Row], w: &[f32], bias: f32) -> Vec<f32> {
    rows.iter().map(|r| bias + r.iter().map(|&(j, v)| w[j as usize] * v).sum::<f32>()).collect()
}

/// Trains one variant on `train`, picks λ by Spearman on `tune`. Embedding rows, when given, are aligned with
/// `train` / `tune` (the caller computes them with the engine).
pub fn train(
    train: &[Example],
    tune: &[Example],
    variant: Variant,
    embeddings: Option<(&[Vec<f32>], &[Vec<f32>], String)>,
) -> Result<Model, ScorerError> {
    if variant == Variant::Embedding && embeddings.is_none() {
        return Err(ScorerError::NeedsEmbedding("embedding"));
    }
    let mut ex = Extractor::new();
    let ns = SURFACE.len();
    let raw: Vec<Vec<f32>> = train.iter().map(|e| ex.surface(&e.text, Lang::En)).collect();
    let n = raw.len().max(1) as f32;
    let mean: Vec<f32> = (0..ns).map(|i| raw.iter().map(|r| r[i]).sum::<f32>() / n).collect();
    let std: Vec<f32> = (0..ns)
        .map(|i| (raw.iter().map(|r| (r[i] - mean[i]).powi(2)).sum::<f32>() / n).sqrt().max(1e-3))
        .collect();
    let buckets: u32 = if variant == Variant::Lexical { 1 << 14 } else { 0 };
    let (emb_train, emb_tune, emb_model) = match &embeddings {
        Some((a, b, m)) => (Some(*a), Some(*b), Some(m.clone())),
        None => (None, None, None),
    };
    let emb_dim = emb_train.and_then(|e| e.first()).map_or(0, |v| v.len());
    let dim = ns + buckets as usize + if variant == Variant::Embedding { emb_dim } else { 0 };
    let design = Design { rows: build_rows(&mut ex, train, variant, buckets, emb_train, &mean, &std), dim };
    let tune_rows = build_rows(&mut ex, tune, variant, buckets, emb_tune, &mean, &std);
    let y: Vec<f32> = train.iter().map(|e| e.label).collect();
    let y_tune: Vec<f32> = tune.iter().map(|e| e.label).collect();
    let bias = y.iter().sum::<f32>() / n;

    let mut best: Option<(f32, f64, Vec<f32>)> = None;
    let mut grid = Vec::new();
    for lambda in [0.3f32, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0] {
        let w = ridge(&design, &y, lambda);
        let rho = spearman(&predict(&tune_rows, &w, bias), &y_tune);
        grid.push((lambda, rho));
        if best.as_ref().is_none_or(|b| rho > b.1) {
            best = Some((lambda, rho, w));
        }
    }
    let (lambda, rho, w) = best.expect("grid is not empty");
    let tune_pred = predict(&tune_rows, &w, bias);
    let train_pred = predict(&design.rows, &w, bias);
    let report = TrainReport {
        train_n: train.len(),
        tune_n: tune.len(),
        tune_spearman: rho,
        tune_pearson: pearson(&tune_pred, &y_tune),
        train_spearman: spearman(&train_pred, &y),
        lambda_grid: grid,
    };
    Ok(Model {
        variant,
        features: SURFACE.iter().map(|s| s.to_string()).collect(),
        mean,
        std,
        w_surface: w[..ns].to_vec(),
        lexical_buckets: buckets,
        w_lexical: if variant == Variant::Lexical { w[ns..].to_vec() } else { Vec::new() },
        embedding_model: emb_model.filter(|_| variant == Variant::Embedding),
        w_embedding: if variant == Variant::Embedding { w[ns..].to_vec() } else { Vec::new() },
        bias,
        lambda,
        report,
    })
}

pub fn pearson(a: &[f32], b: &[f32]) -> f64 {
    let a: Vec<f64> = a.iter().map(|&v| v as f64).collect();
    let b: Vec<f64> = b.iter().map(|&v| v as f64).collect();
    pearson64(&a, &b)
}

/// 0 where the correlation is undefined (fewer than two points, a constant series).
fn pearson64(a: &[f64], b: &[f64]) -> f64 {
    registro_metrics::correlation::pearson(a, b).unwrap_or(0.0)
}

/// Ranks of f32 scores, via the shared implementation (ties share the mean rank, as in scipy.stats.spearmanr).
fn ranks(x: &[f32]) -> Vec<f64> {
    registro_metrics::correlation::ranks(&x.iter().map(|&v| v as f64).collect::<Vec<_>>())
}

/// Spearman's ρ with average ranks for ties.
pub fn spearman(a: &[f32], b: &[f32]) -> f64 {
    pearson64(&ranks(a), &ranks(b))
}

pub fn save(model: &Model, path: &Path) -> Result<(), ScorerError> {
    let p = path.display().to_string();
    let json = serde_json::to_string(model).map_err(|source| ScorerError::Json { path: p.clone(), source })?;
    std::fs::write(path, json).map_err(|source| ScorerError::Io { path: p, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_matches_scipy_with_ties() {
        // scipy.stats.spearmanr([1,2,2,3],[1,3,2,4]) = 0.9486832980505138
        let r = spearman(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 4.0]);
        assert!((r - 0.9486832980505138).abs() < 1e-9, "{r}");
    }

    #[test]
    fn csv_quotes_and_commas() {
        assert_eq!(split_csv(r#"6,-0.8,"of , pertaining to , ""x"" .""#), vec!["6", "-0.8", r#"of , pertaining to , "x" ."#]);
    }
}
