//! Per-segment statistics kept so the Dashboard never recomputes what cannot have changed: a run's BLEU/chrF/TER
//! sufficient statistics, M-Acc labels, formality and edit distances depend only on its outputs, its references
//! and the metric's parameters. Each table is stored under a key naming the metric and its parameters (the
//! sacrebleu-style signature) with a fingerprint of the texts it was computed from; a different fingerprint is a
//! miss, so an edited output, a resumed run or a changed reference set is recomputed once and stored again.
//!
//! The database is untrusted: a blob whose length does not match its width reads as a miss, never a panic.

use rusqlite::params;
use sha2::{Digest, Sha256};

use crate::{Result, RunId, Store};

/// `width` numbers per segment, segment after segment.
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentTable {
    pub width: usize,
    pub values: Vec<f64>,
}

/// A fingerprint of everything a statistic was computed from (length-prefixed, so part boundaries count).
pub fn fingerprint<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Counts and labels (nearly every value) are exact in 4 bytes; anything else keeps all 8.
fn encode(values: &[f64]) -> Vec<u8> {
    let narrow = values.iter().all(|v| v.is_nan() || (*v as f32) as f64 == *v);
    let size = if narrow { 4 } else { 8 };
    let mut out = Vec::with_capacity(1 + values.len() * size);
    out.push(size as u8);
    for v in values {
        if narrow {
            out.extend_from_slice(&(*v as f32).to_le_bytes());
        } else {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

fn decode(blob: &[u8], width: usize) -> Option<Vec<f64>> {
    let (&size, body) = blob.split_first()?;
    let values: Vec<f64> = match size {
        4 if body.len() % 4 == 0 => body.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap_or_default()) as f64).collect(),
        8 if body.len() % 8 == 0 => body.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap_or_default())).collect(),
        _ => return None,
    };
    (width > 0 && values.len() % width == 0).then_some(values)
}

impl Store {
    /// Every table cached for `run`, by key: (fingerprint, table). One query instead of one per table, for callers
    /// that look up many (a comparison of many runs reads thousands).
    pub fn segment_tables_of(&self, run: RunId) -> Result<std::collections::HashMap<String, (String, SegmentTable)>> {
        let mut stmt = self.conn.prepare_cached("SELECT key, fingerprint, width, data FROM segment_stats WHERE run_id = ?1")?;
        let rows = stmt.query_map([run], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?, r.get::<_, Vec<u8>>(3)?)))?;
        let mut out = std::collections::HashMap::new();
        for row in rows {
            let (key, fp, width, blob) = row?;
            let Ok(width) = usize::try_from(width) else { continue };
            if let Some(values) = decode(&blob, width) {
                out.insert(key, (fp, SegmentTable { width, values }));
            }
        }
        Ok(out)
    }

    /// Stores many tables in one transaction (one write for a whole comparison, not one per table).
    pub fn put_segment_tables(&mut self, tables: &[(RunId, String, String, SegmentTable)]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut ins = tx.prepare(
                "INSERT OR REPLACE INTO segment_stats (run_id, key, fingerprint, width, data) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (run, key, fingerprint, table) in tables {
                ins.execute(params![run, key, fingerprint, table.width as i64, encode(&table.values)])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// How many tables are cached (for one run, or all).
    pub fn segment_table_count(&self, run: Option<RunId>) -> Result<i64> {
        Ok(match run {
            Some(r) => self.conn.query_row("SELECT count(*) FROM segment_stats WHERE run_id = ?1", [r], |r| r.get(0))?,
            None => self.conn.query_row("SELECT count(*) FROM segment_stats", [], |r| r.get(0))?,
        })
    }

}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_stored_narrow_and_fractions_wide_both_exactly() {
        let counts = vec![3.0, 0.0, 17.0, f64::NAN];
        let blob = encode(&counts);
        assert_eq!(blob.len(), 1 + 4 * 4);
        let back = decode(&blob, 2).unwrap();
        assert_eq!(&back[..3], &counts[..3]);
        assert!(back[3].is_nan());
        let fractions = vec![0.1, 2.5];
        let blob = encode(&fractions);
        assert_eq!(blob.len(), 1 + 2 * 8);
        assert_eq!(decode(&blob, 1).unwrap(), fractions);
    }

    #[test]
    fn a_damaged_blob_is_a_miss() {
        assert_eq!(decode(&[], 1), None);
        assert_eq!(decode(&[4, 1, 2, 3], 1), None);
        assert_eq!(decode(&[7, 0, 0, 0, 0], 1), None);
        // Three values do not fill rows of two.
        assert_eq!(decode(&encode(&[1.0, 2.0, 3.0]), 2), None);
        assert_eq!(decode(&encode(&[1.0]), 0), None);
    }

    #[test]
    fn fingerprints_see_part_boundaries() {
        assert_ne!(fingerprint(["ab", "c"]), fingerprint(["a", "bc"]));
        assert_eq!(fingerprint(["x"]), fingerprint(["x"]));
    }
}
