//! Per-sequence attention state, separate from the weights so it can be cloned (a shared prefix computed once
//! and reused by every segment), broadcast to several rows, and re-ordered (beam search).
use anyhow::{bail, Result};
use candle_core::Tensor;

#[derive(Clone, Debug)]
pub(crate) struct RowState {
    /// RoPE position of every cache column in this row; -1 marks a padding column that nothing attends to.
    pub colpos: Vec<i32>,
    pub next_pos: usize,
    pub has_padding: bool,
}

/// Keys and values of every layer for a batch of rows; cheap to clone (tensors are reference counted).
#[derive(Clone, Debug)]
pub struct KvCache {
    layers: Vec<Option<(Tensor, Tensor)>>,
    pub(crate) rows: Vec<RowState>,
}

impl KvCache {
    pub fn new(n_layers: usize, batch: usize) -> Self {
        let row = RowState { colpos: Vec::new(), next_pos: 0, has_padding: false };
        Self { layers: vec![None; n_layers], rows: vec![row; batch] }
    }

    pub fn batch(&self) -> usize {
        self.rows.len()
    }

    /// Number of cache columns (tokens, including padding).
    pub fn len(&self) -> usize {
        self.rows.first().map_or(0, |r| r.colpos.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Tokens actually held for `row` (its next position).
    pub fn row_len(&self, row: usize) -> usize {
        self.rows[row].next_pos
    }

    pub(crate) fn push_columns(&mut self, rows: &[&[u32]], s: usize) {
        for (st, toks) in self.rows.iter_mut().zip(rows) {
            let pad = s - toks.len();
            st.colpos.extend(std::iter::repeat(-1).take(pad));
            st.colpos.extend((0..toks.len()).map(|i| (st.next_pos + i) as i32));
            st.next_pos += toks.len();
            st.has_padding |= pad > 0;
        }
    }

    pub(crate) fn append(&mut self, layer: usize, k: Tensor, v: Tensor) -> Result<(Tensor, Tensor)> {
        let kv = match &self.layers[layer] {
            None => (k, v),
            Some((pk, pv)) => (Tensor::cat(&[pk, &k], 2)?, Tensor::cat(&[pv, &v], 2)?),
        };
        self.layers[layer] = Some(kv.clone());
        Ok(kv)
    }

    /// A cache whose rows are `idx` rows of this one (repeats allowed): beam re-ordering, dropping finished
    /// rows, or broadcasting a one-row prefix to a batch.
    pub fn select(&self, idx: &[usize]) -> Result<KvCache> {
        if idx.is_empty() {
            bail!("select: no rows");
        }
        if let Some(bad) = idx.iter().find(|&&i| i >= self.batch()) {
            bail!("select: row {bad} of {}", self.batch());
        }
        let identity = idx.len() == self.batch() && idx.iter().enumerate().all(|(i, &j)| i == j);
        if identity {
            return Ok(self.clone());
        }
        let layers = self
            .layers
            .iter()
            .map(|l| match l {
                None => Ok(None),
                Some((k, v)) => {
                    let ids: Vec<u32> = idx.iter().map(|&i| i as u32).collect();
                    let ids = Tensor::new(ids.as_slice(), k.device())?;
                    Ok(Some((k.index_select(&ids, 0)?, v.index_select(&ids, 0)?)))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(KvCache { layers, rows: idx.iter().map(|&i| self.rows[i].clone()).collect() })
    }

    /// Bytes held by keys and values.
    pub fn bytes(&self) -> usize {
        self.layers
            .iter()
            .flatten()
            .map(|(k, v)| (k.elem_count() + v.elem_count()) * k.dtype().size_in_bytes())
            .sum()
    }
}
