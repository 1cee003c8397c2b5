//! Scoring many texts together: the perplexity of each of a batch of texts from one forward pass over all of them
//! (rows of different lengths, left-padded and masked as in batched generation) instead of one pass per text. A
//! CPU reads each weight matrix once per pass whatever the number of rows, so a rewrite's dozens of short
//! candidates cost a few passes.
use super::*;

/// Positions (rows × longest row) one pass may hold. The logits of every position are kept until read — a
/// vocabulary of f32 each, ~80 MB for Qwen's 152k tokens at this size — so this bounds memory, not the text count.
const PASS_POSITIONS: usize = 128;

impl Model {
    /// [`Model::perplexity`] of each text, several texts per forward pass. A text longer than one scoring chunk is
    /// scored on its own, as `perplexity` scores it (bounded memory); a text that fails gets its own error and the
    /// others go on. Results in the order of `texts`.
    pub fn perplexity_many(&self, texts: &[&str]) -> Result<Vec<Result<f64>>> {
        let bos = self.bos_prefix();
        // As `score_text("", text)`: a token is scored after the BOS, and never the first one of a row.
        let first = bos.len().max(1);
        let rows = texts
            .iter()
            .map(|t| {
                let mut r = bos.clone();
                r.extend(self.encode(t)?);
                Ok(r)
            })
            .collect::<Result<Vec<Vec<u32>>>>()?;
        let mut out: Vec<Option<Result<f64>>> = (0..texts.len()).map(|_| None).collect();
        // Longest first, so a pass holds rows of similar length and computes little padding.
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(rows[i].len()));
        let mut pass: Vec<usize> = Vec::new();
        for i in order {
            if rows[i].len() <= first {
                out[i] = Some(Ok(f64::INFINITY));
                continue;
            }
            if rows[i].len() > SCORE_CHUNK {
                out[i] = Some(self.perplexity(texts[i]));
                continue;
            }
            let width = pass.first().map_or(rows[i].len(), |&j| rows[j].len());
            if !pass.is_empty() && (pass.len() + 1) * width > PASS_POSITIONS {
                self.score_pass(&rows, &std::mem::take(&mut pass), first, texts, &mut out);
            }
            pass.push(i);
        }
        self.score_pass(&rows, &pass, first, texts, &mut out);
        out.into_iter().enumerate().map(|(i, r)| r.with_context(|| format!("text {i} was never scored"))).collect()
    }

    /// One forward pass over `rows[idx]`; when it fails, each row is scored alone so the error lands on its text.
    fn score_pass(&self, rows: &[Vec<u32>], idx: &[usize], first: usize, texts: &[&str], out: &mut [Option<Result<f64>>]) {
        if idx.is_empty() {
            return;
        }
        let batch: Vec<&[u32]> = idx.iter().map(|&i| rows[i].as_slice()).collect();
        match self.perplexities(&batch, first) {
            Ok(p) => idx.iter().zip(p).for_each(|(&i, p)| out[i] = Some(Ok(p))),
            Err(_) if idx.len() > 1 => idx.iter().for_each(|&i| out[i] = Some(self.perplexity(texts[i]))),
            Err(e) => out[idx[0]] = Some(Err(e)),
        }
    }

    fn perplexities(&self, rows: &[&[u32]], first: usize) -> Result<Vec<f64>> {
        let mut cache = self.decoder.new_cache(rows.len());
        let l = self.decoder.forward(rows, &mut cache, true)?;
        let (_, s, v) = l.dims3()?;
        let flat = l.flatten_all()?.to_vec1::<f32>()?;
        Ok(rows
            .iter()
            .enumerate()
            .map(|(r, toks)| {
                // Padding comes first in a row: token p sits at column s - len + p, predicted by the column before.
                let pad = s - toks.len();
                let logprobs = (first..toks.len())
                    .map(|p| {
                        let at = (r * s + pad + p - 1) * v;
                        logits::log_prob(&flat[at..at + v], toks[p])
                    })
                    .collect();
                TokenScores { tokens: toks[first..].to_vec(), logprobs }.perplexity()
            })
            .collect())
    }
}
