//! `registro eval` over files of any length in bounded memory: every file of a test set is read in lockstep, a
//! chunk of lines at a time, each chunk becomes statistics in a [`GroupScorer`] and its text is dropped. Storing
//! reads the files again, in batches. Only the style and model-based metrics, which need every line at once, read
//! whole files ([`read_inputs`]).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use registro_metrics::evaluate::{is_segmentwise, Chunk, EvalConfig, GroupScorer, SystemInput, SystemReport, TestSet, CHUNK_SEGMENTS};
use registro_metrics::text::py_rstrip;
use registro_store::import::lines::{cap_exceeded, open_capped, MAX_LINE_BYTES};

use super::{EvalSystem, EvalTestSet, LoadedEval, MetricName};
use crate::progress::CancelToken;

/// Lines of a UTF-8 text file as sacrebleu's CLI reads them (split on `\n` only, each right-stripped), one at a
/// time. The file must be regular and under the input cap (checked at open and again while reading, since it may
/// grow); a line over [`MAX_LINE_BYTES`] is refused instead of buffered.
pub struct LineReader {
    path: PathBuf,
    reader: BufReader<File>,
    cap: u64,
    offset: u64,
    line: usize,
    buf: Vec<u8>,
    ended: bool,
}

impl LineReader {
    pub fn open(path: &Path, max_mb: Option<u64>) -> Result<Self> {
        let (file, cap) = open_capped(path, max_mb)?;
        Ok(Self {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(1 << 16, file),
            cap,
            offset: 0,
            line: 0,
            buf: Vec::new(),
            ended: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next line, `None` after the last one (a final `\n` does not start another line).
    pub fn next_line(&mut self) -> Result<Option<String>> {
        if self.ended {
            return Ok(None);
        }
        self.buf.clear();
        let start = self.offset;
        loop {
            let avail = self.reader.fill_buf().with_context(|| format!("cannot read {}", self.path.display()))?;
            if avail.is_empty() {
                self.ended = true;
                if self.buf.is_empty() {
                    return Ok(None);
                }
                break;
            }
            let (take, newline) = match avail.iter().position(|&b| b == b'\n') {
                Some(p) => (p + 1, true),
                None => (avail.len(), false),
            };
            if self.buf.len() + take > MAX_LINE_BYTES + usize::from(newline) {
                bail!(
                    "{}: line {} is longer than {} MiB; a test set has one segment per line — is this the right file?",
                    self.path.display(),
                    self.line + 1,
                    MAX_LINE_BYTES >> 20
                );
            }
            self.buf.extend_from_slice(&avail[..take]);
            self.reader.consume(take);
            self.offset += take as u64;
            if self.offset > self.cap {
                return Err(cap_exceeded(&self.path, self.cap).into());
            }
            if newline {
                self.buf.pop();
                break;
            }
        }
        self.line += 1;
        let text = std::str::from_utf8(&self.buf).map_err(|e| {
            anyhow!(
                "{}: not valid UTF-8 (line {}, byte {})",
                self.path.display(),
                self.line,
                start + e.valid_up_to() as u64
            )
        })?;
        Ok(Some(py_rstrip(text).to_string()))
    }

    /// How many lines the file has in all (reading what is left).
    fn count_all(&mut self) -> Result<usize> {
        while self.next_line()?.is_some() {}
        Ok(self.line)
    }
}

/// Every line of a file ([`LineReader`] to the end).
pub fn read_all_lines(path: &Path, max_mb: Option<u64>) -> Result<Vec<String>> {
    let mut r = LineReader::open(path, max_mb)?;
    let mut lines = Vec::new();
    while let Some(l) = r.next_line()? {
        lines.push(l);
    }
    Ok(lines)
}

/// Whether `cfg` can be scored while the files stream by: every metric reduces a segment to statistics and no
/// model-based scorer wants the whole text.
pub fn streams(cfg: &EvalConfig, model_scorers: bool) -> bool {
    !model_scorers && !cfg.metrics.is_empty() && cfg.metrics.iter().all(|&m| is_segmentwise(m))
}

/// Systems grouped by test set (the same `Arc`), in order of first appearance: the systems of a group are compared
/// with its first.
pub(super) fn groups(systems: &[EvalSystem]) -> Vec<(Arc<EvalTestSet>, Vec<usize>)> {
    let mut groups: Vec<(Arc<EvalTestSet>, Vec<usize>)> = Vec::new();
    for (i, s) in systems.iter().enumerate() {
        match groups.iter_mut().find(|(t, _)| Arc::ptr_eq(t, &s.test_set)) {
            Some(g) => g.1.push(i),
            None => groups.push((s.test_set.clone(), vec![i])),
        }
    }
    groups
}

/// The most text one chunk holds, over all files of a test set: 4096 segments of a few hundred bytes each, or
/// fewer when lines are long.
const CHUNK_BYTES: usize = 16 << 20;

/// What a file is to its test set, for error messages.
enum Role<'a> {
    Reference,
    Annotated,
    Source,
    System(&'a str),
}

/// Scores every system, reading each test set's files in lockstep: memory holds one chunk of lines per file and
/// the statistics, never a whole file.
pub fn score(loaded: &LoadedEval, cfg: &EvalConfig, cancel: &CancelToken) -> Result<Vec<SystemReport>> {
    let mut reports: Vec<Option<SystemReport>> = vec![None; loaded.systems.len()];
    for (ts, idx) in groups(&loaded.systems) {
        let members: Vec<&EvalSystem> = idx.iter().map(|&i| &loaded.systems[i]).collect();
        let annotated = ts.formal_annotated.as_ref().zip(ts.informal_annotated.as_ref());
        let mut scorer = GroupScorer::new(
            cfg,
            &ts.key,
            ts.refs.iter().map(|(n, _)| n.clone()).collect(),
            members.iter().map(|s| (s.name.clone(), s.register)).collect(),
            annotated.is_some(),
        )?;
        let open = |p: &Path| LineReader::open(p, loaded.max_input_mb);
        let mut files: Vec<(Role, LineReader)> = Vec::new();
        for (_, p) in &ts.refs {
            files.push((Role::Reference, open(p)?));
        }
        let with_annotated = cfg.metrics.contains(&MetricName::MAcc) && annotated.is_some();
        if let Some((f, i)) = annotated.filter(|_| with_annotated) {
            files.push((Role::Annotated, open(f)?));
            files.push((Role::Annotated, open(i)?));
        }
        if let Some(s) = &ts.source {
            files.push((Role::Source, open(s)?));
        }
        for s in &members {
            files.push((Role::System(&s.name), open(&s.hyp)?));
        }
        let n_refs = ts.refs.len();
        let first_hyp = files.len() - members.len();
        let mut bufs: Vec<Vec<String>> = vec![Vec::new(); files.len()];
        loop {
            if cancel.is_cancelled() {
                bail!("cancelled after {} segments of test set {}", scorer.segments(), ts.key);
            }
            bufs.iter_mut().for_each(Vec::clear);
            let mut bytes = 0;
            // A segment (one line of every file) at a time, so that the files stay in lockstep and a chunk of long
            // lines is cut short by its size.
            while bufs[0].len() < CHUNK_SEGMENTS && bytes < CHUNK_BYTES {
                let mut ended = 0;
                for ((_, f), b) in files.iter_mut().zip(&mut bufs) {
                    match f.next_line()? {
                        Some(l) => {
                            bytes += l.len();
                            b.push(l);
                        }
                        None => ended += 1,
                    }
                }
                if ended == files.len() {
                    break;
                }
                if ended > 0 {
                    return Err(line_count_mismatch(&mut files));
                }
            }
            if bufs[0].is_empty() {
                break;
            }
            scorer.push(&Chunk {
                refs: bufs[..n_refs].iter().map(Vec::as_slice).collect(),
                annotated: with_annotated.then(|| (bufs[n_refs].as_slice(), bufs[n_refs + 1].as_slice())),
                hyps: bufs[first_hyp..].iter().map(Vec::as_slice).collect(),
            })?;
        }
        for (&i, rep) in idx.iter().zip(scorer.finish()?) {
            reports[i] = Some(rep);
        }
    }
    Ok(reports.into_iter().map(|r| r.expect("every system belongs to a group")).collect())
}

/// The error for files of one test set with different line counts, naming both files and their counts.
fn line_count_mismatch(files: &mut [(Role, LineReader)]) -> anyhow::Error {
    let mut counts = Vec::with_capacity(files.len());
    for (_, f) in files.iter_mut() {
        match f.count_all() {
            Ok(n) => counts.push(n),
            Err(e) => return e,
        }
    }
    let (expected, first) = (counts[0], files[0].1.path().display());
    let Some(k) = counts.iter().position(|&c| c != expected) else {
        return anyhow!("the files of test set {first} changed while they were read");
    };
    let (got, path) = (counts[k], files[k].1.path().display());
    match files[k].0 {
        Role::System(name) => anyhow!(
            "system {name} vs references: expected {expected} lines, got {got} ({path} has {got}, {first} has {expected})"
        ),
        Role::Reference | Role::Annotated | Role::Source => {
            let what = match files[k].0 {
                Role::Reference => "reference",
                Role::Annotated => "annotated reference",
                _ => "source",
            };
            anyhow!("{what} {path} has {got} lines but {first} has {expected}: every file of a test set needs one line per segment")
        }
    }
}

/// The whole files, for the metrics that need every line at once; each test set is read once and shared by its
/// systems.
pub fn read_inputs(loaded: &LoadedEval) -> Result<Vec<SystemInput>> {
    let read = |p: &Path| read_all_lines(p, loaded.max_input_mb);
    let read_opt = |p: &Option<PathBuf>| p.as_deref().map(read).transpose();
    let mut sets: Vec<(Arc<EvalTestSet>, Arc<TestSet>)> = Vec::new();
    let mut systems = Vec::with_capacity(loaded.systems.len());
    for s in &loaded.systems {
        let ts = match sets.iter().find(|(k, _)| Arc::ptr_eq(k, &s.test_set)) {
            Some((_, t)) => t.clone(),
            None => {
                let e = &s.test_set;
                let t = Arc::new(TestSet {
                    key: e.key.clone(),
                    refs: e.refs.iter().map(|(n, p)| Ok((n.clone(), read(p)?))).collect::<Result<_>>()?,
                    source: read_opt(&e.source)?,
                    formal_annotated: read_opt(&e.formal_annotated)?,
                    informal_annotated: read_opt(&e.informal_annotated)?,
                });
                sets.push((s.test_set.clone(), t.clone()));
                t
            }
        };
        systems.push(SystemInput { name: s.name.clone(), lines: read(&s.hyp)?, register: s.register, test_set: ts });
    }
    Ok(systems)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `bytes` read back through a file of their own: tests run in parallel, so each call has its own folder.
    fn lines_of(bytes: &[u8]) -> Result<Vec<String>> {
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("registro-linereader-{}-{call}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("lines");
        std::fs::write(&p, bytes).unwrap();
        let r = read_all_lines(&p, None);
        std::fs::remove_dir_all(&dir).ok();
        r
    }

    #[test]
    fn lines_split_like_sacrebleu_reads_them() {
        for text in ["", "\n", "a", "a\n", "a \nb\r\n", "a\n\nb", "a\n\n", "x\u{1f}\ny\u{3000}"] {
            let want = registro_metrics::text::read_lines_like_sacrebleu(text);
            assert_eq!(lines_of(text.as_bytes()).unwrap(), want, "{text:?}");
        }
    }

    #[test]
    fn bad_lines_are_refused_with_file_and_line() {
        let err = lines_of(b"ok\nfine\n\xff\xfe\n").unwrap_err().to_string();
        assert!(err.contains("not valid UTF-8 (line 3, byte 8)"), "{err}");
        let mut long = b"short\n".to_vec();
        long.extend(std::iter::repeat_n(b'a', MAX_LINE_BYTES + 1));
        let err = lines_of(&long).unwrap_err().to_string();
        assert!(err.contains("line 2 is longer than 1 MiB"), "{err}");
        // Exactly the limit, with or without its newline, is still a line.
        let mut edge = std::iter::repeat_n(b'b', MAX_LINE_BYTES).collect::<Vec<u8>>();
        assert_eq!(lines_of(&edge).unwrap()[0].len(), MAX_LINE_BYTES);
        edge.push(b'\n');
        assert_eq!(lines_of(&edge).unwrap().len(), 1);
    }
}
