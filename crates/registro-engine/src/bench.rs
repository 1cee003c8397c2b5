//! `registro bench engine`: candle vs llama.cpp (through a locally installed llama-cpp-python, in a child
//! process) on the same prompts — prefill, decode, and document throughput (shared instruction + few-shot
//! prefix, many short segments), with peak RSS. Load average is printed because the machine may be shared.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::{DeviceChoice, GenerateOptions, LoadOptions, Model, NoProcessor};

/// What `registro bench engine` measures.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    pub segments: usize,
    pub segment_tokens: usize,
    pub batch: usize,
    pub decode_tokens: usize,
    pub llama_cpp: bool,
    pub device: DeviceChoice,
    pub tokenizer: Option<PathBuf>,
}

#[derive(serde::Serialize)]
pub struct BenchReport {
    pub model: PathBuf,
    pub load_average_before: String,
    pub load_average_after: String,
    pub rows: Vec<Row>,
    pub llama_cpp_note: Option<String>,
    /// One layer's decode-step attention over a translation-shaped cache (CPU only).
    pub attention: Vec<AttentionTiming>,
}

/// Milliseconds one layer's decode-step attention took for `rows` rows over `shared` + `own` columns.
#[derive(serde::Serialize, Clone, Debug)]
pub struct AttentionTiming {
    pub rows: usize,
    pub shared: usize,
    pub own: usize,
    pub ms_per_layer: f64,
}

/// Prefill, decode and document throughput of candle on `path`, and of llama.cpp when asked and installed.
pub fn run(path: &Path, a: &BenchConfig) -> Result<BenchReport> {
    let load_before = load_average();
    let cancel = AtomicBool::new(false);
    let model = Model::load(path, &LoadOptions { device: a.device, tokenizer: a.tokenizer.clone(), keep_q5_0: false })?;
    let mut prompt = model.bos_prefix();
    prompt.extend(model.encode(BENCH_PROMPT)?);

    // Prefill: best of 3 (the machine is shared; the best run is the least disturbed one).
    model.prefix(&prompt[..8.min(prompt.len())])?; // warm-up
    let mut prefill = 0f64;
    for _ in 0..3 {
        let t = Instant::now();
        model.prefix(&prompt)?;
        prefill = prefill.max(prompt.len() as f64 / t.elapsed().as_secs_f64());
    }
    eprintln!("[bench] candle prefill {prefill:.1} tok/s");
    let opts = GenerateOptions { max_tokens: a.decode_tokens, ignore_eos: true, ..Default::default() };
    let g = model.generate(None, &prompt, &opts, &mut NoProcessor, &mut |_| {}, &cancel)?;
    let decode = (g.tokens.len() - 1) as f64 / g.decode_secs;

    eprintln!("[bench] candle decode {decode:.1} tok/s");
    // A translation's decode step: a ~600-token few-shot prefix shared by every row, ~150 columns of each row's own.
    let mut attention = Vec::new();
    for rows in [12, 64] {
        let (shared, own) = (600, 150);
        if let Some(ms_per_layer) = model.time_attention_step(rows, shared, own)? {
            attention.push(AttentionTiming { rows, shared, own, ms_per_layer });
        }
    }
    // Document: shared instruction + few-shot prefix computed once; segment i stops after `budgets[i]` tokens
    // (half to 1.5× `segment_tokens`, as translations of different sentences do). Decoded in fixed batches of
    // `batch` rows (rows dropped as they finish: the path before continuous batching) and continuously (a
    // finished row's slot goes to the next segment).
    let mut doc_prefix = model.bos_prefix();
    doc_prefix.extend(model.encode(DOC_SYSTEM)?);
    let segs: Vec<Vec<u32>> = (0..a.segments).map(|i| model.encode(&segment(i))).collect::<Result<_>>()?;
    let budgets: Vec<usize> = (0..a.segments).map(|i| budget(a.segment_tokens, i)).collect();
    let dopts = GenerateOptions { max_tokens: a.segment_tokens, ignore_eos: true, ..Default::default() };
    let rows = a.batch.max(1);
    let document = |continuous: bool| -> Result<(f64, usize, crate::BatchStats)> {
        let t = Instant::now();
        let prefix = model.prefix(&doc_prefix)?;
        let mut generated = 0;
        let mut count = |_: usize, g: Result<crate::Generation>| -> Result<()> {
            generated += g?.tokens.len();
            Ok(())
        };
        let mut stats = crate::BatchStats::default();
        if continuous {
            stats = model.generate_continuous(Some(&prefix), &segs, &budgets, &dopts, rows, &mut NoProcessor, &mut count, &cancel)?;
        } else {
            for (chunk, limits) in segs.chunks(rows).zip(budgets.chunks(rows)) {
                stats.add(&model.generate_continuous(Some(&prefix), chunk, limits, &dopts, chunk.len(), &mut NoProcessor, &mut count, &cancel)?);
            }
        }
        Ok((t.elapsed().as_secs_f64(), generated, stats))
    };
    let mut rows_out = Vec::new();
    for (continuous, how) in [(false, "fixed batches"), (true, "continuous")] {
        let (doc_secs, generated, stats) = document(continuous)?;
        eprintln!("[bench] candle document ({how}) {doc_secs:.1}s");
        // The decode rate within batches against prefill, the compute bound on a CPU: a step decodes one token
        // of every row and also pays the output layer for each, which a prefill pays once per prompt.
        eprintln!(
            "[bench] candle document ({how}) decode within batches {:.1} tok/s = {:.0}% of prefill ({} steps, {:.1}s, {:.1}% of rows computed were placeholders); admissions {} ({} prompt tokens, {:.1}s, {:.1} tok/s)",
            stats.decode_tok_s(),
            100.0 * stats.decode_tok_s() / prefill,
            stats.steps,
            stats.step_secs,
            100.0 * stats.placeholder_share(),
            stats.admissions,
            stats.admitted_tokens,
            stats.admit_secs,
            if stats.admit_secs > 0.0 { stats.admitted_tokens as f64 / stats.admit_secs } else { 0.0 }
        );
        rows_out.push(Row {
            engine: format!("registro ({}) {how}", model.info.device),
            prompt_tokens: prompt.len(),
            prefill_tok_s: prefill,
            decode_tok_s: decode,
            doc_segments: a.segments,
            doc_secs,
            doc_segments_s: a.segments as f64 / doc_secs,
            doc_tok_s: generated as f64 / doc_secs,
            peak_rss_mb: peak_rss_mb(),
            note: format!(
                "prefix {} tok once, {rows} rows, decode within batches {:.1} tok/s ({:.0}% of prefill)",
                doc_prefix.len(),
                stats.decode_tok_s(),
                100.0 * stats.decode_tok_s() / prefill
            ),
        });
    }
    let texts: Vec<String> = (0..a.segments).map(segment).collect();
    let llama = if !a.llama_cpp { Err(anyhow::anyhow!("skipped (--no-llama-cpp)")) } else { llama_cpp(path, a.decode_tokens, &texts, &budgets) };
    let load_after = load_average();
    let mut rows = rows_out;
    let llama_note = match llama {
        Ok(r) => {
            rows.push(r);
            None
        }
        Err(e) => Some(format!("llama.cpp not measured: {e:#}")),
    };
    Ok(BenchReport { model: path.to_path_buf(), load_average_before: load_before, load_average_after: load_after, rows, llama_cpp_note: llama_note, attention })
}

impl BenchReport {
    pub fn print(&self) {
        let prompt = self.rows.first().map_or(0, |r| r.prompt_tokens);
        println!("model {} · {} prompt tokens · load average {} → {}", self.model.display(), prompt, self.load_average_before, self.load_average_after);
        println!("{:<26} {:>10} {:>10} {:>14} {:>10} {:>10}", "engine", "prefill/s", "decode/s", "doc seg/s", "doc tok/s", "peak MB");
        for r in &self.rows {
            println!(
                "{:<26} {:>10.1} {:>10.1} {:>14.2} {:>10.1} {:>10.0}   {}",
                r.engine, r.prefill_tok_s, r.decode_tok_s, r.doc_segments_s, r.doc_tok_s, r.peak_rss_mb, r.note
            );
        }
        if let (Some(c), Some(l)) = (self.rows.iter().rev().find(|r| r.engine.starts_with("registro")), self.rows.iter().find(|r| r.engine.starts_with("llama.cpp"))) {
            println!(
                "registro / llama.cpp: prefill {:.2}x, decode {:.2}x, document {:.2}x",
                c.prefill_tok_s / l.prefill_tok_s,
                c.decode_tok_s / l.decode_tok_s,
                c.doc_segments_s / l.doc_segments_s
            );
        }
        if let Some(n) = &self.llama_cpp_note {
            println!("{n}");
        }
        for a in &self.attention {
            println!("decode-step attention, {} rows over {} shared + {} own columns: {:.3} ms a layer", a.rows, a.shared, a.own, a.ms_per_layer);
        }
    }
}

const BENCH_PROMPT: &str = "You are a careful translator. Rewrite the following customer message in a polite, formal register, keeping every fact and the original meaning: hey, the package you sent me last week never showed up, can you check what happened and send it again asap?";
const DOC_SYSTEM: &str = "You are a professional translator. Translate each English sentence into German using the formal register (Sie, Ihnen, Ihr). Answer with the translation only.\n\nEnglish: Can you send me the report?\nGerman: Können Sie mir den Bericht schicken?\n\nEnglish: Thank you for your help yesterday.\nGerman: Vielen Dank für Ihre Hilfe gestern.\n\nEnglish: Did you get my email about the meeting?\nGerman: Haben Sie meine E-Mail zum Treffen erhalten?\n\n";
const DOC_SEGMENTS: &[&str] = &[
    "Where did you park your car this morning?",
    "I would like to invite you to dinner on Friday.",
    "Have you already read the new contract?",
    "Please call me when you arrive at the station.",
    "Your presentation was very convincing.",
    "Could you explain the second point again?",
    "We are looking forward to your visit next week.",
    "Do you need anything else for the trip?",
    "I forgot to bring your book back.",
    "How long have you been working here?",
];

/// Tokens segment `i` of the document run decodes: from half to 1.5× `mean`, spread evenly.
fn budget(mean: usize, i: usize) -> usize {
    (mean / 2 + (i * 7) % (mean + 1)).max(1)
}

fn segment(i: usize) -> String {
    format!("English: {}\nGerman:", DOC_SEGMENTS[i % DOC_SEGMENTS.len()])
}

fn peak_rss_mb() -> f64 {
    process_memory_mib("VmHWM").map_or(f64::NAN, |m| m as f64)
}

/// A memory field of this process's `/proc/self/status` in MiB: `VmRSS` resident now, `VmHWM` the peak (not
/// ru_maxrss, which carries a forking parent's peak across exec). `None` where there is no such file (not Linux).
pub fn process_memory_mib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status.lines().find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_default()
}

#[derive(serde::Serialize, Default, Clone, Debug)]
pub struct Row {
    pub engine: String,
    pub prompt_tokens: usize,
    pub prefill_tok_s: f64,
    pub decode_tok_s: f64,
    pub doc_segments: usize,
    pub doc_secs: f64,
    pub doc_segments_s: f64,
    pub doc_tok_s: f64,
    pub peak_rss_mb: f64,
    pub note: String,
}

/// llama.cpp through llama-cpp-python, in a child process (its own peak RSS). Same prompt text, greedy,
/// segments one at a time (llama-cpp-python reuses the KV cache of the common prompt prefix between calls).
fn llama_cpp(path: &Path, decode_tokens: usize, segments: &[String], budgets: &[usize]) -> Result<Row> {
    let script = r#"
import json, sys, time, resource
try:
    from llama_cpp import Llama
except Exception as e:
    print(json.dumps({"error": "llama-cpp-python is not installed (pip install llama-cpp-python): %s" % e})); sys.exit(0)
a = json.loads(sys.stdin.read())
llm = Llama(model_path=a["path"], n_ctx=2048, n_threads=a["threads"], n_batch=512, verbose=False, logits_all=False)
bos = llm.tokenize(b"", add_bos=True)
p = llm.tokenize(a["prompt"].encode(), add_bos=True)
best = 0.0
for _ in range(3):
    llm.reset(); t = time.time(); llm.eval(p); best = max(best, len(p) / (time.time() - t))
llm.reset(); llm.eval(p)
t = time.time(); n = 0
for _ in range(a["decode"] - 1):
    tok = llm.sample(temp=0.0); llm.eval([tok]); n += 1
decode = n / (time.time() - t)
llm.reset()
t = time.time(); gen = 0
for s, limit in zip(a["segments"], a["budgets"]):
    toks = llm.tokenize((a["system"] + s).encode(), add_bos=True)
    for i, tok in enumerate(llm.generate(toks, temp=0.0, reset=True)):
        gen += 1
        if i + 1 >= limit: break
doc = time.time() - t
# VmHWM, not ru_maxrss: Linux carries the parent's peak (this process is forked from a 4 GB one) across exec.
rss = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")) / 1024.0
print(json.dumps({"prompt_tokens": len(p), "prefill": best, "decode": decode, "doc_secs": doc, "generated": gen, "rss": rss}))
"#;
    let threads = candle_core_threads();
    let input = serde_json::json!({
        "path": path, "threads": threads, "prompt": BENCH_PROMPT, "decode": decode_tokens,
        "system": DOC_SYSTEM, "segments": segments, "budgets": budgets,
    });
    let v = run_python(script, &input)?;
    let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    Ok(Row {
        engine: format!("llama.cpp ({threads} threads)"),
        prompt_tokens: f("prompt_tokens") as usize,
        prefill_tok_s: f("prefill"),
        decode_tok_s: f("decode"),
        doc_segments: segments.len(),
        doc_secs: f("doc_secs"),
        doc_segments_s: segments.len() as f64 / f("doc_secs"),
        doc_tok_s: f("generated") / f("doc_secs"),
        peak_rss_mb: f("rss"),
        note: "one segment at a time (prompt-prefix KV reuse)".into(),
    })
}

/// The Python that has llama-cpp-python: `REGISTRO_PYTHON`, else the virtual environment `scripts/test.sh` builds
/// it into (`~/.cache/registro/venv-llama`), else `python3`.
fn python() -> std::path::PathBuf {
    if let Ok(p) = std::env::var("REGISTRO_PYTHON") {
        return p.into();
    }
    let venv = std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/registro/venv-llama/bin/python"));
    venv.filter(|p| p.exists()).unwrap_or_else(|| "python3".into())
}

/// Runs `script` with `input` as JSON on stdin and returns the JSON object it prints; a printed `{"error": …}`
/// becomes the error.
fn run_python(script: &str, input: &serde_json::Value) -> Result<serde_json::Value> {
    let py = python();
    let mut child = std::process::Command::new(&py)
        .arg("-c")
        .arg(script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {}", py.display()))?;
    child.stdin.take().context("no stdin")?.write_all(input.to_string().as_bytes())?;
    let out = child.wait_with_output()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).context("llama.cpp script printed no result")?;
    if let Some(e) = v["error"].as_str() {
        bail!("{e}");
    }
    Ok(v)
}

/// What [`llama_cpp_chat`] measured: the outputs of each job, and the whole child process's seconds (interpreter
/// start and model load included) beside the load alone.
#[derive(Clone, Debug)]
pub struct ChatLoop {
    pub outputs: Vec<Vec<String>>,
    pub process_secs: f64,
    pub load_secs: f64,
    pub peak_rss_mb: f64,
}

/// The plain baseline a user would write: llama.cpp (llama-cpp-python, in a child process) answering each
/// source in turn through the model's own chat template, greedy, one system message per job. `jobs` are
/// (system message, user messages).
pub fn llama_cpp_chat(path: &Path, jobs: &[(String, Vec<String>)], max_tokens: usize) -> Result<ChatLoop> {
    let script = r#"
import json, sys, time
t0 = time.time()
try:
    from llama_cpp import Llama
except Exception as e:
    print(json.dumps({"error": "llama-cpp-python is not installed (pip install llama-cpp-python): %s" % e})); sys.exit(0)
a = json.loads(sys.stdin.read())
llm = Llama(model_path=a["path"], n_ctx=4096, n_threads=a["threads"], n_batch=512, verbose=False)
load = time.time() - t0
outs = []
for system, users in a["jobs"]:
    o = []
    for u in users:
        r = llm.create_chat_completion(messages=[{"role": "system", "content": system}, {"role": "user", "content": u}],
                                       temperature=0.0, top_k=1, max_tokens=a["max_tokens"])
        o.append(r["choices"][0]["message"]["content"] or "")
    outs.append(o)
rss = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")) / 1024.0
print(json.dumps({"outputs": outs, "load": load, "rss": rss}))
"#;
    let input = serde_json::json!({ "path": path, "threads": candle_core_threads(), "jobs": jobs, "max_tokens": max_tokens });
    let t = Instant::now();
    let v = run_python(script, &input)?;
    let process_secs = t.elapsed().as_secs_f64();
    let outputs: Vec<Vec<String>> = serde_json::from_value(v["outputs"].clone()).context("llama.cpp script: no outputs")?;
    anyhow::ensure!(
        outputs.len() == jobs.len() && outputs.iter().zip(jobs).all(|(o, j)| o.len() == j.1.len()),
        "llama.cpp script returned {} jobs for {}",
        outputs.len(),
        jobs.len()
    );
    Ok(ChatLoop { outputs, process_secs, load_secs: v["load"].as_f64().unwrap_or(f64::NAN), peak_rss_mb: v["rss"].as_f64().unwrap_or(f64::NAN) })
}

fn candle_core_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}


#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The memory figures the benchmarks print are this process's: resident now, and a peak no lower; a field
    /// name that only starts another (`VmRSS` vs a hypothetical `VmRSSx`) or is missing gives nothing.
    #[test]
    fn process_memory_reads_resident_and_peak() {
        let (rss, peak) = (super::process_memory_mib("VmRSS").unwrap(), super::process_memory_mib("VmHWM").unwrap());
        assert!(rss > 0 && peak >= rss, "resident {rss} MiB, peak {peak} MiB");
        assert_eq!(super::process_memory_mib("Vm"), None);
        assert_eq!(super::process_memory_mib("NoSuchField"), None);
    }
}
