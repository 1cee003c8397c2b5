//! Beam search, for one prompt or several at once. The beams of several prompts share one batch: a CPU decode
//! step reads the weights once whatever its rows, so four segments' four beams cost little more per step than
//! one segment's. Each prompt keeps its own beams, finished hypotheses and stopping rule; rows are only
//! neighbours in the cache, and every row's logits are what they would be with the prompt searched alone.
use super::*;

/// Called as each prompt of [`Model::nbest_many`] finishes, with the prompt's index and its hypotheses, best
/// first; an error stops the call and is returned from it.
pub type OnHypotheses<'a> = &'a mut dyn FnMut(usize, Vec<Hypothesis>) -> Result<()>;

/// One prompt's search: its live beams (tokens so far, summed log-probability), the cache row of each, and the
/// hypotheses already finished.
struct Search {
    prompt: usize,
    live: Vec<(Vec<u32>, f32)>,
    rows: Vec<usize>,
    done: Vec<Hypothesis>,
    limit: usize,
}

impl Model {
    /// [`Model::nbest`] for every prompt of `prompts` (each continuing `prefix` when given), their beams decoded
    /// together. `max_tokens[i]` caps prompt `i` (missing entries: `opts.max_tokens`). `on_done` sees each prompt
    /// as its search ends, in finishing order. On a cancel, every search still going is reported with the
    /// hypotheses it has, as `nbest` returns them.
    #[allow(clippy::too_many_arguments)]
    pub fn nbest_many(
        &self,
        prefix: Option<&Prefix>,
        prompts: &[Vec<u32>],
        max_tokens: &[usize],
        opts: &GenerateOptions,
        beam: usize,
        n: usize,
        proc: &mut dyn LogitsProcessor,
        on_done: OnHypotheses,
        cancel: &AtomicBool,
    ) -> Result<()> {
        if prompts.is_empty() {
            return Ok(());
        }
        let beam = beam.max(1);
        let n = n.clamp(1, beam);
        let (mut cache, mut logits) = self.start(prefix, prompts)?;
        let mut searches: Vec<Search> = (0..prompts.len())
            .map(|i| Search {
                prompt: i,
                live: vec![(Vec::new(), 0.0)],
                rows: vec![i],
                done: Vec::new(),
                limit: max_tokens.get(i).copied().unwrap_or(opts.max_tokens),
            })
            .collect();
        let eos = |t: u32| !opts.ignore_eos && (self.info.eos.contains(&t) || opts.stop_tokens.contains(&t));
        let mut step = 0;
        loop {
            let mut going = Vec::with_capacity(searches.len());
            let mut parents = Vec::new();
            for mut s in searches {
                if step >= s.limit || cancel.load(Ordering::Relaxed) {
                    self.finish(s, n, on_done)?;
                    continue;
                }
                let mut cands: Vec<(usize, u32, f32)> = Vec::new();
                for (j, (toks, lp)) in s.live.iter().enumerate() {
                    let row = &mut logits[s.rows[j]];
                    proc.process(s.rows[j], toks, row);
                    self.ban_repeats(toks, opts.no_repeat_ngram, row);
                    let ls = logits::log_softmax(row);
                    let mut idx: Vec<u32> = (0..ls.len() as u32).collect();
                    let k = (2 * beam).min(idx.len());
                    idx.select_nth_unstable_by(k - 1, |&a, &b| ls[b as usize].total_cmp(&ls[a as usize]));
                    for &t in &idx[..k] {
                        if ls[t as usize].is_finite() {
                            cands.push((j, t, lp + ls[t as usize]));
                        }
                    }
                }
                cands.sort_by(|a, b| b.2.total_cmp(&a.2));
                let mut next: Vec<(Vec<u32>, f32)> = Vec::new();
                let mut from = Vec::new();
                for (j, t, lp) in cands {
                    if next.len() >= beam {
                        break;
                    }
                    let toks = &s.live[j].0;
                    if eos(t) {
                        if !toks.is_empty() {
                            s.done.push(self.hyp(toks.clone(), lp, FinishReason::Eos)?);
                        }
                        continue;
                    }
                    let mut nt = toks.clone();
                    nt.push(t);
                    if self.codec.is_some() && (!opts.stop_strings.is_empty() || opts.stop_senseless) {
                        let text = self.decode(&nt)?;
                        if let Some(cut) = find_stop(&text, &opts.stop_strings, 0) {
                            let mut h = self.hyp(nt, lp, FinishReason::Stop)?;
                            h.text = text[..cut].to_string();
                            s.done.push(h);
                            continue;
                        }
                        // A beam that loops or left the script is finished as it stands: decoding it on only
                        // costs time, and the caller's checks see why from its text.
                        if opts.stop_senseless && crate::sense::senseless(&text).is_some() {
                            s.done.push(self.hyp(nt, lp, FinishReason::Senseless)?);
                            continue;
                        }
                    }
                    next.push((nt, lp));
                    from.push(s.rows[j]);
                }
                // Stop once n finished hypotheses score at least as well as the best live one does now (the usual
                // beam-search heuristic). The exact bound (live sum / max_tokens) almost never fires, so every beam
                // ran to max_tokens: 4 beams × 120 tokens per sentence on a CPU.
                s.done.sort_by(|a, b| b.score.total_cmp(&a.score));
                let bound = next.iter().map(|(t, lp)| lp / t.len().max(1) as f32).fold(f32::NEG_INFINITY, f32::max);
                let enough = s.done.len() >= n && s.done[n - 1].score >= bound;
                s.live = next;
                if s.live.is_empty() || enough || step + 1 == s.limit {
                    self.finish(s, n, on_done)?;
                    continue;
                }
                s.rows = (parents.len()..parents.len() + from.len()).collect();
                parents.extend(from);
                going.push(s);
            }
            if going.is_empty() {
                return Ok(());
            }
            cache = cache.select(&parents)?;
            let feed: Vec<[u32; 1]> = going.iter().flat_map(|s| s.live.iter().map(|(t, _)| [*t.last().expect("a live beam has a token")])).collect();
            let feed: Vec<&[u32]> = feed.iter().map(|r| r.as_slice()).collect();
            logits = rows_of(&self.decoder.forward(&feed, &mut cache, false)?)?;
            searches = going;
            step += 1;
        }
    }

    /// Ends a search: its live beams join the finished hypotheses, the best `n` are reported.
    fn finish(&self, s: Search, n: usize, on_done: OnHypotheses) -> Result<()> {
        let mut done = s.done;
        for (toks, lp) in s.live {
            if !toks.is_empty() {
                done.push(self.hyp(toks, lp, FinishReason::Length)?);
            }
        }
        done.sort_by(|a, b| b.score.total_cmp(&a.score));
        done.truncate(n);
        on_done(s.prompt, done)
    }
}
