//! Documents in, documents out: a translator's file (XLIFF, SRT, WebVTT, PO, DOCX, Markdown, HTML) is imported through
//! `registro-formats`, its segments are split into sentences, stored as a document, translated as a run, and
//! written back in the same format, where nothing but the text changes.

use std::path::{Path, PathBuf};

use anyhow::Context;
use registro_formats::{split_sentences, Format};
use registro_store::{NewDocument, NewSegment, RunId, Store};

use crate::progress::{CancelToken, ProgressFn};
use crate::translate::{self as tr, Options, SegmentOut, Translator};

/// An imported file: its skeleton and its sentences in order.
pub struct Imported {
    pub path: PathBuf,
    pub format: Format,
    /// The file as read: stored with the document, it is the skeleton Export writes the translation into.
    original: Vec<u8>,
    doc: registro_formats::Document,
    /// What the model translates: the file's sentences that hold text (not only tags or punctuation).
    sentences: Vec<String>,
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
    Ok(Imported {
        path: path.to_path_buf(),
        format,
        original: bytes.to_vec(),
        sentences: Vec::new(),
        doc,
    }
    .with_sentences(source_lang))
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
    fn with_sentences(mut self, source_lang: &str) -> Self {
        self.sentences = self
            .split_sources()
            .iter()
            .flat_map(|source| split_sentences(source, source_lang).into_iter().map(str::trim).filter(|s| !is_untranslatable(s)).map(str::to_string).collect::<Vec<_>>())
            .collect();
        self
    }

    /// The sentences sent to the model, in order.
    pub fn sentences(&self) -> Vec<String> {
        self.sentences.clone()
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
        self.export_segments(&self.sentences(), translations)
    }

    /// The file with `translations[k]` in place of stored segment `segments[k]`. The stored segments need not be
    /// this program's own split (the user may have split or joined sentences in the grid, or another version
    /// split differently): they are found in the file's text in order, and only whitespace, tags and
    /// punctuation may lie between them.
    pub fn export_segments(&self, segments: &[String], translations: &[Option<String>]) -> anyhow::Result<Vec<u8>> {
        // Fewer translations than segments is a cancelled run: the rest keep the file's text.
        anyhow::ensure!(
            translations.len() <= segments.len(),
            "{} translations for {} segments of {}",
            translations.len(),
            segments.len(),
            self.path.display()
        );
        let mut targets = Vec::with_capacity(self.doc.segments.len());
        for parts in self.align(segments)? {
            let mut target = Some(String::new());
            for part in parts {
                match (part, target.as_mut()) {
                    (_, None) => break,
                    (Part::Keep(text), Some(t)) => t.push_str(&text),
                    (Part::Segment(k), Some(t)) => match translations.get(k).and_then(Option::as_ref) {
                        Some(x) => t.push_str(x.trim()),
                        None => target = None,
                    },
                }
            }
            targets.push(target);
        }
        Ok(self
            .doc
            .export(&targets)
            .with_context(|| format!("exporting {}", self.path.display()))?)
    }

    /// Each file segment's text as the sentence split saw it (a cue's line breaks become spaces).
    fn split_sources(&self) -> Vec<String> {
        let subtitles = matches!(self.format, Format::Srt | Format::Vtt);
        self.doc.segments.iter().map(|s| if subtitles { s.source.replace('\n', " ") } else { s.source.clone() }).collect()
    }

    /// Finds `segments` in the file's text, in order: per file segment, the stored segments it holds and the text
    /// between them that stays as it is.
    fn align(&self, segments: &[String]) -> anyhow::Result<Vec<Vec<Part>>> {
        let sources = self.split_sources();
        let mut units = Vec::with_capacity(sources.len());
        let mut next = 0;
        for (u, src) in sources.iter().enumerate() {
            let mut parts = Vec::new();
            let mut pos = 0;
            while let Some(text) = segments.get(next).map(|t| t.trim()).filter(|t| !t.is_empty()) {
                let Some(found) = src[pos..].find(text) else { break };
                let gap = &src[pos..pos + found];
                if !is_untranslatable(gap) {
                    break;
                }
                parts.push(Part::Keep(gap.to_string()));
                parts.push(Part::Segment(next));
                pos += found + text.len();
                next += 1;
            }
            let rest = &src[pos..];
            anyhow::ensure!(
                is_untranslatable(rest),
                "{}: text {:?} of part {} of the file is in no stored segment (the next stored segment is {}): the \
                 document's segments no longer match its file; import the file again",
                self.path.display(),
                excerpt(rest),
                u + 1,
                segments.get(next).map_or("none".into(), |t| format!("{} {:?}", next + 1, excerpt(t)))
            );
            parts.push(Part::Keep(rest.to_string()));
            units.push(parts);
        }
        anyhow::ensure!(
            next == segments.len(),
            "{}: stored segment {} {:?} is not in the file in this order: the document's segments no longer match its \
             file; import the file again",
            self.path.display(),
            next + 1,
            excerpt(&segments[next])
        );
        Ok(units)
    }

    /// Refuses segments that do not lie in the file in order, separated only by what stays untranslated — what
    /// [`Imported::export_segments`] needs (a split or join in the grid is checked with it before it is stored).
    pub fn check_segments(&self, segments: &[String]) -> anyhow::Result<()> {
        self.align(segments).map(drop)
    }

    /// What lies between stored segments `index` and `index + 1` in the file (the space, or nothing after a
    /// Japanese full stop): the text a join puts between them. Refused when they are in different parts of the file
    /// (paragraphs, table cells, cues, units), which a translation cannot span.
    pub fn join_gap(&self, segments: &[String], index: usize) -> anyhow::Result<String> {
        for parts in self.align(segments)? {
            let Some(p) = parts.iter().position(|part| matches!(part, Part::Segment(k) if *k == index)) else { continue };
            return match (parts.get(p + 1), parts.get(p + 2)) {
                (Some(Part::Keep(gap)), Some(Part::Segment(k))) if *k == index + 1 => Ok(gap.clone()),
                _ => anyhow::bail!(
                    "segments {} and {} are in different parts of {} (paragraphs, table cells, cues or units): only \
                     sentences of one part can be joined",
                    index + 1,
                    index + 2,
                    self.path.display()
                ),
            };
        }
        anyhow::bail!("{} has no segment {}", self.path.display(), index + 1)
    }
}

/// A piece of a file segment on export.
enum Part {
    /// Whitespace, tags or punctuation between sentences, written back as is.
    Keep(String),
    /// The stored segment with this index (its translation goes here).
    Segment(usize),
}

/// Only whitespace, placeholders or punctuation: nothing a translator would translate.
fn is_untranslatable(s: &str) -> bool {
    !strip_placeholders(s).chars().any(char::is_alphanumeric)
}

fn excerpt(s: &str) -> String {
    let t: String = s.trim().chars().take(60).collect();
    if t.len() < s.trim().len() { format!("{t}…") } else { t }
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
    let imported = stored_file(store, doc_id)?.with_context(|| {
        format!(
            "document {:?} was imported as {}, not from a DOCX, XLIFF, PO, SRT, WebVTT, Markdown or HTML file: export it as text",
            doc.name, doc.format
        )
    })?;
    let format_name = format_name(imported.format);
    let texts = store.output_texts(run)?;
    let segments = store.segment_texts(doc_id)?;
    anyhow::ensure!(
        texts.len() == segments.len(),
        "run {run} has {} segments but its document {:?} has {}: translate the document again to export it",
        texts.len(),
        doc.name,
        segments.len()
    );
    Ok(RunExport {
        file_name: export_file_name(&doc.name, &format_name, r.target_lang.as_deref().unwrap_or("translated")),
        translated: texts.iter().filter(|t| t.is_some()).count(),
        bytes: imported.export_segments(&segments, &texts)?,
        sentences: segments.len(),
    })
}

/// The stored file of document `doc`, read back as it was imported.
pub fn stored_file(store: &Store, doc: i64) -> anyhow::Result<Option<Imported>> {
    let d = store.document(doc)?;
    let Some((format_name, bytes)) = store.document_file(doc)? else { return Ok(None) };
    let format = Format::from_name(&format_name).with_context(|| format!("document {:?}: unknown stored format {format_name:?}", d.name))?;
    Ok(Some(from_bytes(Path::new(&d.name), &bytes, format, &d.source_lang)?))
}

/// Writes next to the destination first and renames, so a failure never leaves half a file where the user's
/// file was; the source file itself is never overwritten.
pub fn write_export(source: &Path, output: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_export_unless(source, output, bytes, &crate::progress::CancelToken::new())
}

/// [`write_export`], unless `cancel` is set before the file is complete: then the temporary file is removed, the
/// destination is left as it was, and the error is a [`crate::qa::Cancelled`].
pub fn write_export_unless(source: &Path, output: &Path, bytes: &[u8], cancel: &crate::progress::CancelToken) -> anyhow::Result<()> {
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
    if cancel.is_cancelled() {
        return Err(crate::qa::Cancelled("the export").into());
    }
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    if cancel.is_cancelled() {
        let _ = std::fs::remove_file(&tmp);
        return Err(crate::qa::Cancelled("the export").into());
    }
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
    /// Segments finished (fewer than `sentences` after a cancel) and how many of them are flagged.
    pub translated: usize,
    pub flagged: usize,
    pub sentences: usize,
    pub output: PathBuf,
}

/// Import `input` → store it as a document → translate its sentences as a run → write `output` in the same format.
/// `on_segment` sees each finished segment once (in the order they finish); nothing else keeps them, so a long
/// document costs the memory of its text, not of every segment's candidates and analysis: the export reads the
/// translations back from the store.
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
    on_segment: &mut dyn FnMut(&SegmentOut),
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
    let (mut translated, mut flagged) = (0usize, 0usize);
    let mut count = |seg: &SegmentOut| {
        translated += 1;
        flagged += seg.flagged as usize;
        on_segment(seg);
    };
    let (run_id, document_id, texts) = match store {
        Some((store, project)) => {
            let doc_id = store_imported(store, project, &imported, Some(opts.lang.code()))?;
            let target = tr::RunTarget {
                project_id: project,
                document_id: Some(doc_id),
            };
            let id = tr::store_translation(
                store, &target, t, &sentences, None, opts, progress, cancel, &mut count,
            )?;
            (Some(id), Some(doc_id), store.output_texts(id)?)
        }
        None => {
            let mut texts: Vec<Option<String>> = vec![None; sentences.len()];
            t.translate_streamed(
                &sentences,
                &vec![opts.register; sentences.len()],
                opts,
                cancel.flag(),
                &mut |seg| {
                    texts[seg.index] = Some(seg.text.clone());
                    count(seg);
                    Ok(())
                },
            )?;
            (None, None, texts)
        }
    };
    let bytes = imported.export(&texts)?;
    write_export(input, output, &bytes)?;
    Ok(FileTranslation {
        run_id,
        document_id,
        translated,
        flagged,
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
