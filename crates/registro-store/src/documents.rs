//! Documents, their segments and per-segment references. A document is written with all its segments and
//! references in one transaction, so an import is either complete or absent. Each document carries a sha256 of its
//! segments and references (`content_hash`), so code that wants "the same test set" finds it by contents, never by
//! a name or a size that two different test sets can share.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::{params, OptionalExtension, Row, Transaction};
use sha2::{Digest, Sha256};

use crate::{Document, DocumentId, NewDocument, NewSegment, ProjectId, Reference, Result, Segment, Store, StoreError};

const SELECT: &str = "SELECT d.id, d.project_id, d.name, d.source_lang, d.target_lang, d.origin, d.format,
        d.created_at, coalesce(d.content_hash, ''),
        (SELECT count(*) FROM segments s WHERE s.document_id = d.id),
        (SELECT group_concat(name, char(31)) FROM
            (SELECT DISTINCT name FROM refs r WHERE r.document_id = d.id ORDER BY name))
    FROM documents d";

/// Hashes segments in order, each with its references sorted by name. Lengths are hashed before every string so
/// no two different documents share an encoding.
fn hash_content<'a>(segments: impl Iterator<Item = (&'a str, BTreeMap<&'a str, &'a str>)>) -> String {
    let mut h = ContentHasher::new();
    for (text, refs) in segments {
        h.segment(text, &refs);
    }
    h.finish()
}

/// [`hash_content`] a segment at a time, for a document that is never all in memory.
struct ContentHasher(Sha256);

impl ContentHasher {
    fn new() -> Self {
        let mut h = Self(Sha256::new());
        h.put("registro document v1");
        h
    }

    fn put(&mut self, s: &str) {
        self.0.update((s.len() as u64).to_le_bytes());
        self.0.update(s.as_bytes());
    }

    fn segment(&mut self, text: &str, refs: &BTreeMap<&str, &str>) {
        self.put(text);
        self.put(&refs.len().to_string());
        for (name, r) in refs {
            self.put(name);
            self.put(r);
        }
    }

    fn finish(self) -> String {
        self.0.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The content hash a document gets when stored. References are keyed by name per segment, so a repeated name
/// counts once with its last text, as the insert stores it.
pub fn content_hash(doc: &NewDocument) -> String {
    hash_content(doc.segments.iter().map(|s| {
        let refs: BTreeMap<&str, &str> = s.references.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        (s.text.as_str(), refs)
    }))
}

/// The content hash of a document without references, from its segment texts in order.
pub(crate) fn hash_segment_texts(texts: &[String]) -> String {
    hash_content(texts.iter().map(|t| (t.as_str(), BTreeMap::new())))
}

/// Migration 2: the hash of every document stored before documents had one.
pub(crate) fn fill_content_hashes(tx: &Transaction) -> rusqlite::Result<()> {
    let ids: Vec<i64> = tx.prepare("SELECT id FROM documents")?.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
    let mut segs = tx.prepare("SELECT text FROM segments WHERE document_id = ?1 ORDER BY idx")?;
    let mut refs = tx.prepare("SELECT segment_idx, name, text FROM refs WHERE document_id = ?1")?;
    let mut set = tx.prepare("UPDATE documents SET content_hash = ?2 WHERE id = ?1")?;
    for id in ids {
        let texts: Vec<String> = segs.query_map([id], |r| r.get(0))?.collect::<Result<_, _>>()?;
        let rows: Vec<(i64, String, String)> =
            refs.query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<Result<_, _>>()?;
        let mut by_seg: Vec<BTreeMap<&str, &str>> = vec![BTreeMap::new(); texts.len()];
        for (i, name, text) in &rows {
            if let Some(m) = usize::try_from(*i).ok().and_then(|i| by_seg.get_mut(i)) {
                m.insert(name.as_str(), text.as_str());
            }
        }
        let hash = hash_content(texts.iter().map(String::as_str).zip(by_seg));
        set.execute(params![id, hash])?;
    }
    Ok(())
}

fn from_row(r: &Row) -> rusqlite::Result<Document> {
    let names: Option<String> = r.get(10)?;
    Ok(Document {
        id: r.get(0)?,
        project_id: r.get(1)?,
        name: r.get(2)?,
        source_lang: r.get(3)?,
        target_lang: r.get(4)?,
        origin: r.get(5)?,
        format: r.get(6)?,
        created_at: r.get(7)?,
        content_hash: r.get(8)?,
        segments: r.get(9)?,
        reference_names: names.map(|n| n.split('\u{1f}').map(str::to_string).collect()).unwrap_or_default(),
    })
}

impl Store {
    /// Stores one parsed document in `project`; returns its id.
    pub fn insert_document(&mut self, project: ProjectId, doc: &NewDocument) -> Result<DocumentId> {
        let ids = self.insert_documents(project, std::slice::from_ref(doc), None, &mut |_, _| {})?;
        Ok(ids[0])
    }

    /// Stores several parsed documents in ONE transaction. `progress(done, total)` is called after each document;
    /// if `cancel` becomes true the transaction is rolled back and `StoreError::Cancelled` returned.
    pub fn insert_documents(
        &mut self,
        project: ProjectId,
        docs: &[NewDocument],
        cancel: Option<&AtomicBool>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<DocumentId>> {
        let r = self.insert_documents_here(project, docs, cancel, progress);
        r.map_err(|e| self.located(e, None))
    }

    fn insert_documents_here(
        &mut self,
        project: ProjectId,
        docs: &[NewDocument],
        cancel: Option<&AtomicBool>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<DocumentId>> {
        self.project(project)?;
        for d in docs {
            if d.segments.is_empty() {
                return Err(StoreError::Invalid(format!("document {:?} has no segments", d.name)));
            }
            if d.source_lang.trim().is_empty() {
                return Err(StoreError::Invalid(format!("document {:?} has no source language", d.name)));
            }
        }
        let tx = self.conn.transaction()?;
        let mut ids = Vec::with_capacity(docs.len());
        {
            let mut ins_doc = tx.prepare(
                "INSERT INTO documents (project_id, name, source_lang, target_lang, origin, format, content_hash)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            let mut ins_seg = tx.prepare("INSERT INTO segments (document_id, idx, text, lang) VALUES (?1, ?2, ?3, ?4)")?;
            let mut ins_ref =
                tx.prepare("INSERT OR REPLACE INTO refs (document_id, segment_idx, name, text) VALUES (?1, ?2, ?3, ?4)")?;
            for (n, d) in docs.iter().enumerate() {
                if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
                    return Err(StoreError::Cancelled);
                }
                ins_doc.execute(params![project, d.name, d.source_lang, d.target_lang, d.origin, d.format, content_hash(d)])?;
                let id = tx.last_insert_rowid();
                for (i, s) in d.segments.iter().enumerate() {
                    ins_seg.execute(params![id, i as i64, s.text, d.source_lang])?;
                    for (name, text) in &s.references {
                        ins_ref.execute(params![id, i as i64, name, text])?;
                    }
                }
                ids.push(id);
                progress(n + 1, docs.len());
            }
        }
        if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
            return Err(StoreError::Cancelled);
        }
        tx.commit()?;
        Ok(ids)
    }

    /// [`Store::insert_document`] for a document read a segment at a time, so that its text is never all in
    /// memory: `doc` gives the name, languages and format (its `segments` are ignored) and `segments` yields them
    /// in order. One transaction, like every document; an error from `segments` rolls it back. When the project
    /// already holds a document in that format with the same contents (as [`Store::find_document_by_content`]
    /// compares them), nothing is kept and that document's id is returned.
    pub fn insert_document_streamed(
        &mut self,
        project: ProjectId,
        doc: &NewDocument,
        segments: &mut dyn Iterator<Item = Result<NewSegment>>,
    ) -> Result<DocumentId> {
        let r = self.insert_document_streamed_here(project, doc, segments);
        r.map_err(|e| self.located(e, None))
    }

    fn insert_document_streamed_here(
        &mut self,
        project: ProjectId,
        doc: &NewDocument,
        segments: &mut dyn Iterator<Item = Result<NewSegment>>,
    ) -> Result<DocumentId> {
        self.project(project)?;
        if doc.source_lang.trim().is_empty() {
            return Err(StoreError::Invalid(format!("document {:?} has no source language", doc.name)));
        }
        let tx = self.conn.transaction()?;
        let mut hasher = ContentHasher::new();
        let id = {
            tx.execute(
                "INSERT INTO documents (project_id, name, source_lang, target_lang, origin, format, content_hash)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL)",
                params![project, doc.name, doc.source_lang, doc.target_lang, doc.origin, doc.format],
            )?;
            let id = tx.last_insert_rowid();
            let mut ins_seg = tx.prepare("INSERT INTO segments (document_id, idx, text, lang) VALUES (?1, ?2, ?3, ?4)")?;
            let mut ins_ref =
                tx.prepare("INSERT OR REPLACE INTO refs (document_id, segment_idx, name, text) VALUES (?1, ?2, ?3, ?4)")?;
            let mut n = 0i64;
            for s in segments {
                let s = s?;
                ins_seg.execute(params![id, n, s.text, doc.source_lang])?;
                for (name, text) in &s.references {
                    ins_ref.execute(params![id, n, name, text])?;
                }
                let refs: BTreeMap<&str, &str> = s.references.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
                hasher.segment(&s.text, &refs);
                n += 1;
            }
            if n == 0 {
                return Err(StoreError::Invalid(format!("document {:?} has no segments", doc.name)));
            }
            id
        };
        let hash = hasher.finish();
        let existing: Option<DocumentId> = tx
            .query_row(
                "SELECT id FROM documents WHERE project_id = ?1 AND content_hash = ?2 AND format = ?3 ORDER BY id LIMIT 1",
                params![project, hash, doc.format],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(existing) = existing {
            // Dropping the transaction rolls the copy back.
            return Ok(existing);
        }
        tx.execute("UPDATE documents SET content_hash = ?2 WHERE id = ?1", params![id, hash])?;
        tx.commit()?;
        Ok(id)
    }

    /// The document of `project` in `format` with exactly the segments and references of `doc`, if one is stored
    /// (the oldest, when several are).
    pub fn find_document_by_content(&self, project: ProjectId, doc: &NewDocument) -> Result<Option<DocumentId>> {
        Ok(self
            .conn
            .query_row(
                "SELECT id FROM documents WHERE project_id = ?1 AND content_hash = ?2 AND format = ?3 ORDER BY id LIMIT 1",
                params![project, content_hash(doc), doc.format],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Documents of a project, in import order.
    pub fn list_documents(&self, project: ProjectId) -> Result<Vec<Document>> {
        self.rows(&format!("{SELECT} WHERE d.project_id = ?1 ORDER BY d.id"), [project], from_row)
    }

    pub fn document(&self, id: DocumentId) -> Result<Document> {
        self.row_by_id(&format!("{SELECT} WHERE d.id = ?1"), id, "document", from_row)
    }

    /// All segments of a document, in order.
    pub fn segments(&self, doc: DocumentId) -> Result<Vec<Segment>> {
        self.segments_page(doc, 0, i64::MAX)
    }

    /// `limit` segments starting at index `offset`, for paging long documents in the UI.
    pub fn segments_page(&self, doc: DocumentId, offset: i64, limit: i64) -> Result<Vec<Segment>> {
        self.document(doc)?;
        self.rows(
            "SELECT idx, text, lang FROM segments WHERE document_id = ?1 AND idx >= ?2 ORDER BY idx LIMIT ?3",
            params![doc, offset, limit],
            |r| Ok(Segment { index: r.get(0)?, text: r.get(1)?, lang: r.get(2)? }),
        )
    }

    /// The source texts of a document, in order (what a translation or rewrite run consumes).
    /// Keeps the original file of a document imported from a translator's format, so it can be written back in the
    /// same format later (replaces one stored before).
    pub fn put_document_file(&self, doc: DocumentId, format: &str, bytes: &[u8]) -> Result<()> {
        let r = self.put_document_file_here(doc, format, bytes);
        r.map_err(|e| self.located(e, None))
    }

    fn put_document_file_here(&self, doc: DocumentId, format: &str, bytes: &[u8]) -> Result<()> {
        self.document(doc)?;
        self.conn.execute(
            "INSERT INTO document_files (document_id, format, bytes) VALUES (?1, ?2, ?3)
             ON CONFLICT (document_id) DO UPDATE SET format = excluded.format, bytes = excluded.bytes",
            rusqlite::params![doc, format, bytes],
        )?;
        Ok(())
    }

    /// The original file of `doc` and its format, when it was imported from one.
    pub fn document_file(&self, doc: DocumentId) -> Result<Option<(String, Vec<u8>)>> {
        Ok(self
            .conn
            .query_row("SELECT format, bytes FROM document_files WHERE document_id = ?1", [doc], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?)
    }

    pub fn segment_texts(&self, doc: DocumentId) -> Result<Vec<String>> {
        Ok(self.segments(doc)?.into_iter().map(|s| s.text).collect())
    }

    /// All references of a document, ordered by segment then name.
    pub fn references(&self, doc: DocumentId) -> Result<Vec<Reference>> {
        self.document(doc)?;
        self.rows(
            "SELECT segment_idx, name, text FROM refs WHERE document_id = ?1 ORDER BY segment_idx, name",
            [doc],
            |r| Ok(Reference { segment_index: r.get(0)?, name: r.get(1)?, text: r.get(2)? }),
        )
    }

    /// The reference called `name` for every segment, aligned with the segments (`None` where a segment has none).
    /// This is the shape metric code wants: `refs[i]` belongs to segment `i`.
    pub fn reference_set(&self, doc: DocumentId, name: &str) -> Result<Vec<Option<String>>> {
        self.rows(
            "SELECT r.text FROM segments s
             LEFT JOIN refs r ON r.document_id = s.document_id AND r.segment_idx = s.idx AND r.name = ?2
             WHERE s.document_id = ?1 ORDER BY s.idx",
            params![doc, name],
            |r| r.get(0),
        )
    }

    /// Deletes a document with its segments, references and the runs over it.
    pub fn delete_document(&self, id: DocumentId) -> Result<()> {
        if self.conn.execute("DELETE FROM documents WHERE id = ?1", [id])? == 0 {
            return Err(StoreError::NotFound { what: "document", id: id.to_string() });
        }
        Ok(())
    }
}
