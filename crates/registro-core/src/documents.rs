//! Documents in, documents out: a translator's file (XLIFF, SRT, WebVTT, PO, DOCX, Markdown, HTML) is imported through
//! `registro-formats`, its segments are split into sentences, stored as a document, translated as a run, and
//! written back in the same format, where nothing but the text changes.

use std::path::{Path, PathBuf};

use anyhow::Context;
use registro_formats::{split_sentences, Format};
use registro_store::{NewDocument, NewSegment, RunId, Store};

use crate::progress::{CancelToken, ProgressFn};
use crate::translate::{self as tr, Options, SegmentOut, Translator};

/// One sentence of a file's segment: what the model sees, and the spacing around it that stays in the file.
#[derive(Debug, Clone)]
struct Piece {
    segment: usize,
    lead: String,
    text: String,
    trail: String,
    /// Only whitespace, placeholders or punctuation: written back as is, never sent to the model.
    keep: bool,
}

/// An imported file: its skeleton and its sentences in order.
pub struct Imported {
    pub path: PathBuf,
    pub format: Format,
    /// The file as read: stored with the document, it is the skeleton Export writes the translation into.
    original: Vec<u8>,
    doc: registro_formats::Document,
    pieces: Vec<Piece>,
}

/// The format named by `--format`, else the file's extension.
pub fn format_of(path: &Path, name: Option<&str>) -> anyhow::Result<Format> {
    match name {
        Some(n) => Format::from_name(n).with_context(|| format!("unknown format '{n}' (xliff, srt, vtt, po, docx, md, html)")),
        None => Format::from_path(path).with_context(|| {
            format!("{}: the extension names no document format (.xlf/.xliff, .srt, .vtt, .po, .docx, .md, .html); pass --format", path.display())
        }),
    }
}

/// The name a format is stored under (what [`Format::from_name`] reads back).
fn format_name(f: Format) -> String {
    format!("{f:?}").to_lowercase()
}

/// A file has a document format (as opposed to the plain one-segment-per-line input).
pub fn is_document(path: &Path, name: Option<&str>) -> bool {
    name.is_some() || Format::from_path(path).is_some()
}

pub fn open(path: &Path, format: Option<&str>, source_lang: &str) -> anyhow::Result<Imported> {
    let format = format_of(path, format)?;
    let len = std::fs::metadata(path)
        .with_context(|| format!("reading {}", path.display()))?
        .len();
    anyhow::ensure!(
        len <= registro_formats::MAX_INPUT_BYTES as u64,
        "{}: {len} bytes; documents up to {} bytes are imported (split the file)",
        path.display(),
        registro_formats::MAX_INPUT_BYTES
    );
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    from_bytes(path, &bytes, format, source_lang)
}

/// An imported file from its bytes (`path` names it in messages and as the document's origin).
pub fn from_bytes(path: &Path, bytes: &[u8], format: Format, source_lang: &str) -> anyhow::Result<Imported> {
    let doc =
        registro_formats::import(bytes, format).with_context(|| format!("{}", path.display()))?;
    let subtitles = matches!(format, Format::Srt | Format::Vtt);
    let mut pieces = Vec::new();
    for (i, seg) in doc.segments.iter().enumerate() {
        // A cue's line breaks are layout, not sentence structure: the model sees one line.
        let source = if subtitles {
            seg.source.replace('\n', " ")
        } else {
            seg.source.clone()
        };
        for s in split_sentences(&source, source_lang) {
            let core = s.trim();
            let lead = &s[..s.len() - s.trim_start().len()];
            let trail = &s[s.trim_end().len()..];
            let keep = !strip_placeholders(core).chars().any(char::is_alphanumeric);
            pieces.push(Piece {
                segment: i,
                lead: lead.into(),
                text: core.into(),
                trail: trail.into(),
                keep,
            });
        }
    }
    Ok(Imported {
        path: path.to_path_buf(),
        format,
        original: bytes.to_vec(),
        doc,
        pieces,
    })
}

fn strip_placeholders(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        match tail.find('>') {
            Some(j)
                if tail[1..j]
                    .trim_start_matches('/')
                    .trim_end_matches('/')
                    .chars()
                    .all(|c| c.is_ascii_digit()) =>
            {
                rest = &tail[j + 1..]
            }
            _ => {
                out.push('<');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

impl Imported {
    /// The sentences sent to the model, in order.
    pub fn sentences(&self) -> Vec<String> {
        self.pieces
            .iter()
            .filter(|p| !p.keep)
            .map(|p| p.text.clone())
            .collect()
    }

    pub fn segments(&self) -> &[registro_formats::Segment] {
        &self.doc.segments
    }

    /// The stored form: one stored segment per sentence, so runs, metrics and the grid see sentences.
    pub fn to_new_document(&self, target_lang: Option<&str>) -> NewDocument {
        NewDocument {
            name: self
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            source_lang: "en".into(),
            target_lang: target_lang.map(str::to_string),
            origin: Some(self.path.display().to_string()),
            format: format_name(self.format),
            segments: self
                .sentences()
                .into_iter()
                .map(|text| NewSegment {
                    text,
                    references: Vec::new(),
                })
                .collect(),
        }
    }

    /// The file with `translations` (one per sentence of [`Imported::sentences`], `None` where there is none) in
    /// place; a segment whose sentences are not all translated (a cancelled run) keeps its original target.
    pub fn export(&self, translations: &[Option<String>]) -> anyhow::Result<Vec<u8>> {
        let mut targets: Vec<Option<String>> = vec![Some(String::new()); self.doc.segments.len()];
        let mut next = translations.iter();
        for p in &self.pieces {
            let Some(t) = targets[p.segment].as_mut() else {
                continue;
            };
            let text = if p.keep { Some(&p.text) } else { next.next().and_then(Option::as_ref) };
            match text {
                Some(x) => {
                    t.push_str(&p.lead);
                    t.push_str(x.trim());
                    t.push_str(&p.trail);
                }
                None => targets[p.segment] = None,
            }
        }
        Ok(self
            .doc
            .export(&targets)
            .with_context(|| format!("exporting {}", self.path.display()))?)
    }
}

/// Stores an imported file as a document of `project` (one segment per sentence) together with the file itself, so
/// Export can write the translation back into the same format later, wherever the file has gone since.
pub fn store_imported(store: &mut Store, project: i64, imported: &Imported, target_lang: Option<&str>) -> anyhow::Result<i64> {
    anyhow::ensure!(!imported.sentences().is_empty(), "{}: no text to translate", imported.path.display());
    let id = store.insert_document(project, &imported.to_new_document(target_lang))?;
    if let Err(e) = store.put_document_file(id, &format_name(imported.format), &imported.original) {
        // A document that cannot be exported back would only look imported.
        let _ = store.delete_document(id);
        return Err(e).with_context(|| format!("storing {}", imported.path.display()));
    }
    Ok(id)
}

/// A translation run written back into its document's own format.
#[derive(Debug)]
pub struct RunExport {
    /// `<stem>.<target lang>.<ext>`: what the save dialog proposes.
    pub file_name: String,
    pub bytes: Vec<u8>,
    /// Sentences with a translation; the others keep the file's original text.
    pub translated: usize,
    pub sentences: usize,
}

/// `contract.docx` translated into German is saved as `contract.de.docx`.
pub fn export_file_name(document_name: &str, format_name: &str, lang: &str) -> String {
    let name = Path::new(document_name);
    let stem = name.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "document".into());
    let ext = name.extension().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| format_name.to_string());
    format!("{stem}.{lang}.{ext}")
}

/// The document of translate run `run`, in its original format, with the run's outputs (as edited in the grid) in
/// place of the source sentences.
pub fn export_run(store: &Store, run: RunId) -> anyhow::Result<RunExport> {
    let r = store.run(run)?;
    let doc_id = r
        .document_id
        .with_context(|| format!("run {run} translated pasted text, not a document file: export it as text"))?;
    let doc = store.document(doc_id)?;
    let (format_name, bytes) = store.document_file(doc_id)?.with_context(|| {
        format!(
            "document {:?} was imported as {}, not from a DOCX, XLIFF, PO, SRT, WebVTT, Markdown or HTML file: export it as text",
            doc.name, doc.format
        )
    })?;
    let format = Format::from_name(&format_name)
        .with_context(|| format!("document {:?}: unknown stored format {format_name:?}", doc.name))?;
    let imported = from_bytes(Path::new(&doc.name), &bytes, format, &doc.source_lang)?;
    let texts = store.output_texts(run)?;
    let sentences = imported.sentences().len();
    // The sentence split is part of the program: if a later version splits the file differently, writing the run's
    // outputs into it would put each translation next to the wrong sentence.
    anyhow::ensure!(
        texts.len() == sentences,
        "run {run} has {} segments but {:?} now splits into {sentences} sentences (imported by another Registro \
         version?): translate the document again to export it",
        texts.len(),
        doc.name
    );
    Ok(RunExport {
        file_name: export_file_name(&doc.name, &format_name, r.target_lang.as_deref().unwrap_or("translated")),
        translated: texts.iter().filter(|t| t.is_some()).count(),
        bytes: imported.export(&texts)?,
        sentences,
    })
}

/// Writes next to the destination first and renames, so a failure never leaves half a file where the user's
/// file was; the source file itself is never overwritten.
pub fn write_export(source: &Path, output: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    refuse_overwrite(source, output)?;
    let dir = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.registro-tmp",
        output
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    ));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, output).with_context(|| format!("writing {}", output.display()))
}

fn refuse_overwrite(source: &Path, output: &Path) -> anyhow::Result<()> {
    if let (Ok(a), Ok(b)) = (source.canonicalize(), output.canonicalize()) {
        anyhow::ensure!(
            a != b,
            "{}: the output would overwrite the input; choose another --output",
            output.display()
        );
    }
    Ok(())
}

pub struct FileTranslation {
    pub run_id: Option<RunId>,
    pub document_id: Option<i64>,
    pub segments: Vec<SegmentOut>,
    pub sentences: usize,
    pub output: PathBuf,
}

/// Import `input` → store it as a document → translate its sentences as a run → write `output` in the same format.
#[allow(clippy::too_many_arguments)]
pub fn translate_file(
    store: Option<(&mut Store, i64)>,
    t: &mut Translator<'_>,
    input: &Path,
    output: &Path,
    format: Option<&str>,
    opts: &Options,
    progress: ProgressFn<'_>,
    cancel: &CancelToken,
) -> anyhow::Result<FileTranslation> {
    // Checked before the model runs, so a mistake costs no translation time.
    refuse_overwrite(input, output)?;
    let imported = open(input, format, "en")?;
    let sentences = imported.sentences();
    anyhow::ensure!(
        !sentences.is_empty(),
        "{}: no text to translate",
        input.display()
    );
    let (run_id, document_id, segs) = match store {
        Some((store, project)) => {
            let doc_id = store_imported(store, project, &imported, Some(opts.lang.code()))?;
            let target = tr::RunTarget {
                project_id: project,
                document_id: Some(doc_id),
            };
            let (id, segs) = tr::translate_and_store(
                store, &target, t, &sentences, None, opts, progress, cancel,
            )?;
            (Some(id), Some(doc_id), segs)
        }
        None => (
            None,
            None,
            t.translate(&sentences, opts, cancel.flag(), &mut |_| Ok(()))?,
        ),
    };
    let texts: Vec<Option<String>> = segs.iter().map(|s| Some(s.text.clone())).collect();
    let bytes = imported.export(&texts)?;
    write_export(input, output, &bytes)?;
    Ok(FileTranslation {
        run_id,
        document_id,
        segments: segs,
        sentences: sentences.len(),
        output: output.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_join_back_into_their_segment() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.srt");
        std::fs::write(&p, "1\n00:00:01,000 --> 00:00:02,000\nHello there. How are\nyou?\n\n2\n00:00:03,000 --> 00:00:04,000\n...\n").unwrap();
        let im = open(&p, None, "en").unwrap();
        assert_eq!(im.sentences(), ["Hello there.", "How are you?"]);
        let out = String::from_utf8(im.export(&[Some("Hallo.".into()), Some("Wie geht's?".into())]).unwrap())
            .unwrap();
        assert_eq!(out, "1\n00:00:01,000 --> 00:00:02,000\nHallo. Wie geht's?\n\n2\n00:00:03,000 --> 00:00:04,000\n...\n");
        // A cancelled run: the unfinished segment keeps its text.
        let out = String::from_utf8(im.export(&[Some("Hallo.".into())]).unwrap()).unwrap();
        assert!(out.contains("Hello there. How are\nyou?"));
        assert!(write_export(&p, &p, b"x")
            .unwrap_err()
            .to_string()
            .contains("overwrite the input"));
        assert!(format_of(Path::new("x.pdf"), None)
            .unwrap_err()
            .to_string()
            .contains("--format"));
    }
}
