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
    let doc =
        registro_formats::import(&bytes, format).with_context(|| format!("{}", path.display()))?;
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
    pub fn to_new_document(&self, target_lang: &str) -> NewDocument {
        NewDocument {
            name: self
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            source_lang: "en".into(),
            target_lang: Some(target_lang.into()),
            origin: Some(self.path.display().to_string()),
            format: format!("{:?}", self.format).to_lowercase(),
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

    /// The file with `translations` (one per sentence of [`Imported::sentences`]) in place; a segment whose
    /// sentences are not all translated (a cancelled run) keeps its original target.
    pub fn export(&self, translations: &[String]) -> anyhow::Result<Vec<u8>> {
        let mut targets: Vec<Option<String>> = vec![Some(String::new()); self.doc.segments.len()];
        let mut next = translations.iter();
        for p in &self.pieces {
            let Some(t) = targets[p.segment].as_mut() else {
                continue;
            };
            let text = if p.keep { Some(&p.text) } else { next.next() };
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
            let doc_id =
                store.insert_document(project, &imported.to_new_document(opts.lang.code()))?;
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
    let texts: Vec<String> = segs.iter().map(|s| s.text.clone()).collect();
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
        let out = String::from_utf8(im.export(&["Hallo.".into(), "Wie geht's?".into()]).unwrap())
            .unwrap();
        assert_eq!(out, "1\n00:00:01,000 --> 00:00:02,000\nHallo. Wie geht's?\n\n2\n00:00:03,000 --> 00:00:04,000\n...\n");
        // A cancelled run: the unfinished segment keeps its text.
        let out = String::from_utf8(im.export(&["Hallo.".into()]).unwrap()).unwrap();
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
