//! Loading the runs of a comparison from the store, aligned segment by segment.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use registro_store::{Document, Run, RunId, Store};
use serde::{Deserialize, Serialize};

/// Which runs to compare.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct CompareRequest {
    pub runs: Vec<RunId>,
    /// Defaults to the first run.
    #[serde(default)]
    pub baseline: Option<RunId>,
    /// Reference set to score against (e.g. `formal`, `ref0`); by default each run uses the reference named
    /// after its register when the document has one, else every plain (non-annotated) reference.
    #[serde(default)]
    pub reference: Option<String>,
}

/// One compared system: its run, its outputs aligned to the document's segments, and the references it is
/// scored against.
#[derive(Debug, Clone)]
pub struct SystemData {
    pub run: Run,
    /// What tables and charts call it: the system name, plus the register when systems differ only by it.
    pub label: String,
    /// One per segment; a segment the run has no output for is empty (and counted in `missing`).
    pub outputs: Vec<String>,
    pub missing: usize,
    pub ref_names: Vec<String>,
    /// Reference streams (one per reference name), one line per segment.
    pub refs: Vec<Vec<String>>,
    /// CoCoA-MT style `[F]…[/F]` annotated references (formal, informal), when the run's document has both.
    pub annotated: Option<(Vec<String>, Vec<String>)>,
    /// Metrics stored for this run by other tools (formality from a model, perplexity, similarity…):
    /// metric name → (corpus value, per-segment values by index).
    pub stored: BTreeMap<String, StoredMetric>,
}

#[derive(Debug, Clone, Default)]
pub struct StoredMetric {
    pub corpus: Option<f64>,
    pub segments: BTreeMap<i64, f64>,
}

#[derive(Debug, Clone)]
pub struct ComparisonData {
    pub document: Document,
    pub source_lang: String,
    pub target_lang: String,
    pub sources: Vec<String>,
    pub systems: Vec<SystemData>,
    pub baseline: usize,
}

impl ComparisonData {
    pub fn segments(&self) -> usize {
        self.sources.len()
    }
}

fn ref_stream(store: &Store, doc: i64, name: &str, n: usize) -> Result<Vec<String>> {
    let set = store.reference_set(doc, name).with_context(|| format!("reading reference {name:?} of document {doc}"))?;
    let mut out: Vec<String> = set.into_iter().map(|r| r.unwrap_or_default()).collect();
    out.resize(n, String::new());
    Ok(out)
}

struct DocInfo {
    document: Document,
    sources: Vec<String>,
}

impl DocInfo {
    fn read(store: &Store, id: i64) -> Result<Self> {
        Ok(DocInfo { document: store.document(id)?, sources: store.segment_texts(id)? })
    }
}

/// Reads the requested runs; they must all be over the same source segments (the same test set), since every
/// table pairs systems segment by segment.
pub fn load(store: &Store, req: &CompareRequest) -> Result<ComparisonData> {
    if req.runs.is_empty() {
        bail!("pick at least one run to compare");
    }
    let mut seen = std::collections::HashSet::new();
    let mut runs = Vec::new();
    for &id in &req.runs {
        if !seen.insert(id) {
            bail!("run {id} is listed twice");
        }
        runs.push(store.run(id).with_context(|| format!("loading run {id}"))?);
    }
    // Runs may sit on different documents (an IWSLT folder stores its formal and informal test sets apart) as
    // long as the source segments are the same: they are then one test set with per-register references.
    let mut docs: BTreeMap<i64, DocInfo> = BTreeMap::new();
    for r in &runs {
        let d = r.document_id.with_context(|| {
            format!("run {} ({}) has no document: only runs over a stored document can be compared", r.id, r.system)
        })?;
        if !docs.contains_key(&d) {
            docs.insert(d, DocInfo::read(store, d)?);
        }
    }
    let first_doc = runs[0].document_id.unwrap_or_default();
    // A references-only document (`registro eval` without --src) has empty segments, so equal sources prove
    // nothing: its runs are one test set only when they share the document, i.e. the very same references.
    if let Some(other) = runs.iter().find(|r| r.document_id != Some(first_doc)) {
        let refs_only = |id: i64| docs[&id].document.format == crate::eval::REFERENCES_ONLY;
        let other_doc = other.document_id.unwrap_or_default();
        if refs_only(first_doc) || refs_only(other_doc) {
            bail!(
                "runs {} ({}) and {} ({}) were scored against different references ({} and {}), and without a \
                 source text nothing says they are one test set: compare runs scored against the same references, \
                 or evaluate with --src",
                runs[0].id,
                runs[0].system,
                other.id,
                other.system,
                format!("document {first_doc}: {}", docs[&first_doc].document.name),
                format!("document {other_doc}: {}", docs[&other_doc].document.name)
            );
        }
    }
    let sources = docs[&first_doc].sources.clone();
    let n = sources.len();
    for (id, info) in &docs {
        if info.sources != sources {
            bail!(
                "documents {:?} (id {first_doc}) and {:?} (id {id}) have different source segments: compare runs of one test set",
                docs[&first_doc].document.name,
                info.document.name
            );
        }
    }
    let document = {
        let mut d = docs[&first_doc].document.clone();
        if docs.len() > 1 {
            d.name = docs.values().map(|i| i.document.name.as_str()).collect::<Vec<_>>().join(" + ");
        }
        d
    };

    let baseline = match req.baseline {
        None => 0,
        Some(b) => req.runs.iter().position(|r| *r == b).with_context(|| format!("baseline run {b} is not among the compared runs"))?,
    };

    // Submission files are named `<system>.<register>.<lang>`; the language adds nothing in a table. The
    // register is added only when needed to tell systems apart.
    let names: Vec<String> = runs
        .iter()
        .map(|r| match r.target_lang.as_deref().and_then(|l| r.system.strip_suffix(&format!(".{l}"))) {
            Some(stem) => stem.to_string(),
            None => r.system.clone(),
        })
        .collect();
    let mut name_count: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &names {
        *name_count.entry(n.as_str()).or_default() += 1;
    }
    let labels: Vec<String> = runs
        .iter()
        .zip(&names)
        .map(|(r, name)| match (&r.register, name_count[name.as_str()] > 1) {
            (Some(reg), true) => format!("{name} ({reg})"),
            (None, true) => format!("{name} #{}", r.id),
            _ => name.clone(),
        })
        .collect();

    let mut systems = Vec::with_capacity(runs.len());
    // Runs of one test set share its reference streams: each is read once, not once per run.
    let mut streams: BTreeMap<(i64, String), Vec<String>> = BTreeMap::new();
    let mut stream = |doc: i64, name: &str| -> Result<Vec<String>> {
        if let Some(s) = streams.get(&(doc, name.to_string())) {
            return Ok(s.clone());
        }
        let s = ref_stream(store, doc, name, n)?;
        streams.insert((doc, name.to_string()), s.clone());
        Ok(s)
    };
    for (run, label) in runs.into_iter().zip(labels) {
        let texts = store.output_texts(run.id).with_context(|| format!("reading outputs of run {}", run.id))?;
        let mut outputs: Vec<String> = Vec::with_capacity(n);
        let mut missing = 0;
        for i in 0..n {
            match texts.get(i).cloned().flatten() {
                Some(t) => outputs.push(t),
                None => {
                    missing += 1;
                    outputs.push(String::new());
                }
            }
        }
        if missing == n {
            bail!("run {} ({}) has no outputs to compare", run.id, run.system);
        }
        let doc_id = run.document_id.unwrap_or_default();
        let info = &docs[&doc_id];
        let names = &info.document.reference_names;
        let plain: Vec<String> = names.iter().filter(|r| !r.contains(".annotated")).cloned().collect();
        let ref_names: Vec<String> = match (&req.reference, &run.register) {
            (Some(r), _) => {
                if !names.contains(r) {
                    bail!("document {:?} has no reference {r:?} (it has: {})", info.document.name, names.join(", "));
                }
                vec![r.clone()]
            }
            (None, Some(reg)) if plain.contains(reg) => vec![reg.clone()],
            _ => plain,
        };
        let refs = ref_names.iter().map(|r| stream(doc_id, r)).collect::<Result<Vec<_>>>()?;
        let annotated = if names.iter().any(|r| r == "formal.annotated") && names.iter().any(|r| r == "informal.annotated") {
            Some((stream(doc_id, "formal.annotated")?, stream(doc_id, "informal.annotated")?))
        } else {
            None
        };
        let mut stored: BTreeMap<String, StoredMetric> = BTreeMap::new();
        for m in store.metric_results(run.id)? {
            let e = stored.entry(m.metric.clone()).or_default();
            match m.segment_index {
                None => e.corpus = Some(m.value),
                Some(i) => {
                    e.segments.insert(i, m.value);
                }
            }
        }
        systems.push(SystemData { run, label, outputs, missing, ref_names, refs, annotated, stored });
    }
    let target_lang = systems[0]
        .run
        .target_lang
        .clone()
        .or_else(|| document.target_lang.clone())
        .unwrap_or_else(|| document.source_lang.clone());
    Ok(ComparisonData { source_lang: document.source_lang.clone(), target_lang, document, sources, systems, baseline })
}
