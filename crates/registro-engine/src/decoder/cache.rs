//! Per-sequence attention state, separate from the weights so it can be cloned (a shared prefix computed once
//! and reused by every segment), broadcast to several rows, and re-ordered (beam search).
use std::sync::Arc;

use anyhow::{bail, Result};
use candle_core::Tensor;

#[derive(Clone, Debug)]
pub(crate) struct RowState {
    /// RoPE position of every cache column in this row; -1 marks a padding column that nothing attends to.
    pub colpos: Vec<i32>,
    pub next_pos: usize,
    pub has_padding: bool,
}

/// One layer's keys and values, `(rows, kv_heads, capacity, head_dim)` buffers of which the first `len`
/// columns are filled. Appending writes in place while this cache is the buffer's only holder; a clone shares
/// the buffers (`owner` counts the holders) and the first append to either copies them. Concatenating
/// instead copied the whole cache for every decoded token, quadratic in the context length.
#[derive(Clone, Debug)]
struct LayerKv {
    k: Tensor,
    v: Tensor,
    len: usize,
    owner: Arc<()>,
}

impl LayerKv {
    /// Makes the buffers this cache's alone before an in-place write that is not an append.
    fn own(&mut self) -> Result<()> {
        if Arc::strong_count(&self.owner) > 1 {
            self.k = self.k.copy()?;
            self.v = self.v.copy()?;
            self.owner = Arc::new(());
        }
        Ok(())
    }
}

/// Keys and values of a prompt prefix, computed once and attended by every row of the caches made from it
/// ([`KvCache::into_shared`]): per layer one `(1, kv_heads, len, head_dim)` pair, never written again. Copied
/// into each row, a 600-token few-shot prefix took 34 MB per row of a 1.5B model and was read again by every
/// row at every decode step; shared, it is held and read once.
#[derive(Debug)]
pub(crate) struct SharedKv {
    layers: Vec<(Tensor, Tensor)>,
    len: usize,
}

/// Keys and values of every layer for a batch of rows; cheap to clone (buffers are shared, copy-on-write).
/// Every row attends to the shared prefix's columns (if any) first, then to its own.
#[derive(Clone, Debug)]
pub struct KvCache {
    layers: Vec<Option<LayerKv>>,
    pub(crate) rows: Vec<RowState>,
    shared: Option<Arc<SharedKv>>,
}

impl KvCache {
    pub fn new(n_layers: usize, batch: usize) -> Self {
        let row = RowState { colpos: Vec::new(), next_pos: 0, has_padding: false };
        Self { layers: vec![None; n_layers], rows: vec![row; batch], shared: None }
    }

    /// This one-row cache as a shared prefix: a cache of one row with no columns of its own, whose `select`
    /// gives any number of rows that all attend to these columns without a copy each.
    pub fn into_shared(self) -> Result<KvCache> {
        if self.batch() != 1 || self.shared.is_some() || self.rows[0].has_padding {
            bail!("into_shared: only an unpadded one-row cache of its own columns can be shared");
        }
        let mut layers = Vec::with_capacity(self.layers.len());
        let mut len = 0;
        for l in &self.layers {
            let Some(e) = l else { bail!("into_shared: a layer holds no keys yet") };
            layers.push((e.k.narrow(2, 0, e.len)?.contiguous()?, e.v.narrow(2, 0, e.len)?.contiguous()?));
            len = e.len;
        }
        let row = RowState { colpos: Vec::new(), next_pos: self.rows[0].next_pos, has_padding: false };
        Ok(KvCache { layers: vec![None; layers.len()], rows: vec![row], shared: Some(Arc::new(SharedKv { layers, len })) })
    }

    /// A shared prefix rebuilt from its per-layer keys and values, `(1, kv_heads, len, head_dim)` each (read back
    /// from disk by the prefix store): the same cache [`KvCache::into_shared`] made when they were computed.
    pub(crate) fn from_shared_layers(layers: Vec<(Tensor, Tensor)>, len: usize) -> KvCache {
        let row = RowState { colpos: Vec::new(), next_pos: len, has_padding: false };
        KvCache { layers: vec![None; layers.len()], rows: vec![row], shared: Some(Arc::new(SharedKv { layers, len })) }
    }

    /// The shared prefix's keys and values per layer, when this cache is a shared prefix with no columns of its
    /// own (what [`KvCache::into_shared`] returns).
    pub(crate) fn shared_layers(&self) -> Option<&[(Tensor, Tensor)]> {
        let own = self.layers.iter().any(Option::is_some);
        self.shared.as_ref().filter(|_| !own && self.batch() == 1).map(|s| s.layers.as_slice())
    }

    /// Columns of the shared prefix every row attends to before its own.
    pub fn shared_len(&self) -> usize {
        self.shared.as_ref().map_or(0, |s| s.len)
    }

    /// Layer `layer`'s shared keys and values, `(1, kv_heads, shared_len, head_dim)`.
    pub(crate) fn shared_layer(&self, layer: usize) -> Option<(&Tensor, &Tensor)> {
        self.shared.as_ref().and_then(|s| s.layers.get(layer)).map(|(k, v)| (k, v))
    }

    fn same_shared(&self, other: &KvCache) -> bool {
        match (&self.shared, &other.shared) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    pub fn batch(&self) -> usize {
        self.rows.len()
    }

    /// Number of the rows' own cache columns (tokens, including padding; the shared prefix not counted).
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
        let s = k.dim(2)?;
        let entry = match self.layers[layer].take() {
            // A first block is kept as it is: one-shot scoring never appends again.
            None => LayerKv { k: k.contiguous()?, v: v.contiguous()?, len: s, owner: Arc::new(()) },
            Some(mut e) => {
                let needed = e.len + s;
                let cap = e.k.dim(2)?;
                if needed > cap || Arc::strong_count(&e.owner) > 1 {
                    // Half again the length on growth keeps the copies amortized O(1) per token.
                    let new_cap = if needed > cap { needed + (needed / 2).max(16) } else { cap };
                    let len = e.len;
                    let grow = |buf: &Tensor| -> Result<Tensor> {
                        let mut dims = buf.dims().to_vec();
                        dims[2] = new_cap;
                        let fresh = Tensor::zeros(dims, buf.dtype(), buf.device())?;
                        fresh.slice_set(&buf.narrow(2, 0, len)?.contiguous()?, 2, 0)?;
                        Ok(fresh)
                    };
                    e = LayerKv { k: grow(&e.k)?, v: grow(&e.v)?, len, owner: Arc::new(()) };
                }
                e.k.slice_set(&k.contiguous()?, 2, e.len)?;
                e.v.slice_set(&v.contiguous()?, 2, e.len)?;
                e.len = needed;
                e
            }
        };
        let filled = (entry.k.narrow(2, 0, entry.len)?, entry.v.narrow(2, 0, entry.len)?);
        self.layers[layer] = Some(entry);
        Ok(filled)
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
        let shared = self.shared.clone();
        if identity {
            return Ok(self.clone());
        }
        let layers = self
            .layers
            .iter()
            .map(|l| match l {
                None => Ok(None),
                Some(e) => {
                    let ids: Vec<u32> = idx.iter().map(|&i| i as u32).collect();
                    let ids = Tensor::new(ids.as_slice(), e.k.device())?;
                    Ok(Some(LayerKv {
                        k: e.k.index_select(&ids, 0)?,
                        v: e.v.index_select(&ids, 0)?,
                        len: e.len,
                        owner: Arc::new(()),
                    }))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(KvCache { layers, rows: idx.iter().map(|&i| self.rows[i].clone()).collect(), shared })
    }

    /// Columns `row` attends to (its tokens; padding excluded).
    pub fn row_columns(&self, row: usize) -> usize {
        self.rows[row].colpos.iter().filter(|&&p| p >= 0).count()
    }

    /// Puts row `src_row` of `src` into slot `row` of this cache, in place: continuous batching hands a finished
    /// row's slot to the next prompt, prefilled on its own. A decode step attends to every unmasked column, in
    /// any order (each key already carries its RoPE position), so the new row's tokens go to the front of the
    /// slot and the old row's columns after them become padding; a source wider than this cache first widens
    /// every row with padding columns.
    pub fn set_row(&mut self, row: usize, src: &KvCache, src_row: usize) -> Result<()> {
        if row >= self.batch() || src_row >= src.batch() {
            bail!("set_row: row {row} of {} from row {src_row} of {}", self.batch(), src.batch());
        }
        if src.layers.len() != self.layers.len() {
            bail!("set_row: {} layers into {}", src.layers.len(), self.layers.len());
        }
        if !self.same_shared(src) {
            bail!("set_row: the two caches continue different shared prefixes");
        }
        let cols = src.visible(src_row);
        if cols.len() > self.len() {
            self.pad_columns(cols.len() - self.len())?;
        }
        let (batch, width) = (self.batch(), self.len());
        let dev_ids = |t: &Tensor| Tensor::new(cols.as_slice(), t.device());
        // A row with no columns of its own (an empty prompt over the shared prefix) has no keys to copy.
        let copied = if cols.is_empty() { &[][..] } else { &src.layers[..] };
        for (dst, from) in self.layers.iter_mut().zip(copied) {
            let Some(f) = from.as_ref() else { bail!("set_row: a layer holds no keys yet") };
            // This cache has no columns of its own yet (its rows were all empty prompts): start its buffers.
            let d = match dst {
                Some(d) => d,
                None => {
                    let (_, heads, _, dim) = f.k.dims4()?;
                    let zeros = || Tensor::zeros((batch, heads, width, dim), f.k.dtype(), f.k.device());
                    dst.insert(LayerKv { k: zeros()?, v: zeros()?, len: width, owner: Arc::new(()) })
                }
            };
            d.own()?;
            let ids = dev_ids(&f.k)?;
            for (buf, from) in [(&d.k, &f.k), (&d.v, &f.v)] {
                let block = from.narrow(0, src_row, 1)?.index_select(&ids, 2)?.contiguous()?;
                buf.narrow(0, row, 1)?.slice_set(&block, 2, 0)?;
            }
        }
        let st = &src.rows[src_row];
        let pad = self.len() - cols.len();
        let mut colpos: Vec<i32> = cols.iter().map(|&c| st.colpos[c as usize]).collect();
        colpos.extend(std::iter::repeat(-1).take(pad));
        self.rows[row] = RowState { colpos, next_pos: st.next_pos, has_padding: pad > 0 };
        Ok(())
    }

    /// Moves every row's tokens to the front of its slot and drops the columns no row attends to, so the cache
    /// is as wide as its longest row. Continuous batching calls it when padding has piled up (every decode step
    /// adds a column to every row, and a refilled slot leaves its old columns behind): without it a long document
    /// would grow the cache, and each step's attention, without bound.
    pub fn compact(&mut self) -> Result<()> {
        let width = (0..self.batch()).map(|r| self.row_columns(r)).max().unwrap_or(0);
        if width == self.len() {
            return Ok(());
        }
        let visible: Vec<Vec<u32>> = (0..self.batch()).map(|r| self.visible(r)).collect();
        for l in self.layers.iter_mut().flatten() {
            let (b, heads, _, dim) = l.k.dims4()?;
            let cap = width + (width / 2).max(16);
            let (k, v) = (Tensor::zeros((b, heads, cap, dim), l.k.dtype(), l.k.device())?, Tensor::zeros((b, heads, cap, dim), l.v.dtype(), l.v.device())?);
            for (r, cols) in visible.iter().enumerate().filter(|(_, c)| !c.is_empty()) {
                let ids = Tensor::new(cols.as_slice(), l.k.device())?;
                k.narrow(0, r, 1)?.slice_set(&l.k.narrow(0, r, 1)?.index_select(&ids, 2)?.contiguous()?, 2, 0)?;
                v.narrow(0, r, 1)?.slice_set(&l.v.narrow(0, r, 1)?.index_select(&ids, 2)?.contiguous()?, 2, 0)?;
            }
            *l = LayerKv { k, v, len: width, owner: Arc::new(()) };
        }
        for (st, cols) in self.rows.iter_mut().zip(&visible) {
            let mut colpos: Vec<i32> = cols.iter().map(|&c| st.colpos[c as usize]).collect();
            colpos.extend(std::iter::repeat(-1).take(width - cols.len()));
            st.has_padding = cols.len() < width;
            st.colpos = colpos;
        }
        Ok(())
    }

    /// This cache's rows followed by rows `rows` of `other` (a batch that grows while it decodes).
    pub fn stack(&self, other: &KvCache, rows: &[usize]) -> Result<KvCache> {
        let n = self.batch();
        // Placeholder copies of row 0, overwritten below: `select` gives buffers of the final height.
        let idx: Vec<usize> = (0..n).chain(std::iter::repeat(0).take(rows.len())).collect();
        let mut out = self.select(&idx)?;
        for (k, &r) in rows.iter().enumerate() {
            out.set_row(n + k, other, r)?;
        }
        Ok(out)
    }

    /// Indices of the columns `row` attends to, in order.
    fn visible(&self, row: usize) -> Vec<u32> {
        self.rows[row].colpos.iter().enumerate().filter(|(_, &p)| p >= 0).map(|(c, _)| c as u32).collect()
    }

    /// Appends `n` padding columns to every row.
    fn pad_columns(&mut self, n: usize) -> Result<()> {
        for layer in 0..self.layers.len() {
            let Some(e) = &self.layers[layer] else { continue };
            let (b, heads, _, dim) = e.k.dims4()?;
            let zeros = Tensor::zeros((b, heads, n, dim), e.k.dtype(), e.k.device())?;
            self.append(layer, zeros.clone(), zeros)?;
        }
        for st in &mut self.rows {
            st.colpos.extend(std::iter::repeat(-1).take(n));
            st.has_padding = true;
        }
        Ok(())
    }

    /// Bytes held by keys and values (allocated capacity, shared buffers counted in every holder).
    pub fn bytes(&self) -> usize {
        let own: usize = self.layers.iter().flatten().map(|e| (e.k.elem_count() + e.v.elem_count()) * e.k.dtype().size_in_bytes()).sum();
        let shared: usize = self.shared.iter().flat_map(|s| &s.layers).map(|(k, v)| (k.elem_count() + v.elem_count()) * k.dtype().size_in_bytes()).sum();
        own + shared
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Tensor};

    fn block(value: f32, s: usize) -> Tensor {
        Tensor::full(value, (1, 1, s, 2), &Device::Cpu).unwrap()
    }

    fn column_values(t: &Tensor) -> Vec<f32> {
        t.narrow(3, 0, 1).unwrap().flatten_all().unwrap().to_vec1().unwrap()
    }

    #[test]
    fn appends_in_place_and_clones_never_see_each_others_tokens() {
        let mut a = KvCache::new(1, 1);
        a.append(0, block(1.0, 3), block(-1.0, 3)).unwrap();
        let mut b = a.clone();
        for step in 0..40 {
            a.append(0, block(2.0, 1), block(-2.0, 1)).unwrap();
            let (k, _) = b.append(0, block(3.0, 1), block(-3.0, 1)).unwrap();
            assert_eq!(k.dim(2).unwrap(), 4 + step);
        }
        let (ka, va) = a.append(0, block(4.0, 1), block(-4.0, 1)).unwrap();
        let (kb, _) = b.append(0, block(5.0, 1), block(-5.0, 1)).unwrap();
        let want_a: Vec<f32> = [1.0; 3].into_iter().chain([2.0; 40]).chain([4.0]).collect();
        let want_b: Vec<f32> = [1.0; 3].into_iter().chain([3.0; 40]).chain([5.0]).collect();
        assert_eq!(column_values(&ka), want_a);
        assert_eq!(column_values(&va), want_a.iter().map(|x| -x).collect::<Vec<_>>());
        assert_eq!(column_values(&kb), want_b);
        // Rows selected from a grown buffer keep only the filled columns visible.
        let sel = a.select(&[0, 0]).unwrap();
        let mut sel2 = sel.clone();
        let two = |v: f32| Tensor::full(v, (2, 1, 1, 2), &Device::Cpu).unwrap();
        let (ks, _) = sel2.append(0, two(6.0), two(-6.0)).unwrap();
        assert_eq!(ks.dims(), &[2, 1, 45, 2]);
        assert_eq!(column_values(&ks.narrow(0, 1, 1).unwrap()), [want_a.clone(), vec![6.0]].concat());
    }
}
