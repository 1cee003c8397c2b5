//! Continuous batching: many prompts decoded greedily (or sampled) with at most `rows` of them in flight. When a
//! row finishes, its slot in the KV cache goes to the next prompt — prefilled on its own over the shared prefix,
//! then decoding beside the others — instead of the batch shrinking until its longest row is done. On a CPU one
//! decode step costs about the same for 2 rows as for 8 (the weights are read once per step), so a batch kept
//! full is where a document's throughput comes from.
use super::*;

/// Called as each prompt of [`Model::generate_continuous`] finishes, with the prompt's index; an error stops the
/// call and is returned from it.
pub type OnDone<'a> = &'a mut dyn FnMut(usize, Result<Generation>) -> Result<()>;

/// Where the time of a [`Model::generate_continuous`] call went: admissions (the prefill of new prompts over the
/// shared prefix) and decode steps. `step_tokens / step_secs` is the decode rate within batches.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BatchStats {
    pub admissions: usize,
    pub admitted_tokens: usize,
    pub admit_secs: f64,
    pub steps: usize,
    /// Tokens decoded by the steps (rows in flight; a freed row's placeholder is not counted).
    pub step_tokens: usize,
    /// Rows the steps computed, placeholders included: `step_rows - step_tokens` is arithmetic spent on nothing.
    pub step_rows: usize,
    pub step_secs: f64,
}

impl BatchStats {
    /// Tokens per second decoded within batches (0 before any step).
    pub fn decode_tok_s(&self) -> f64 {
        if self.step_secs > 0.0 { self.step_tokens as f64 / self.step_secs } else { 0.0 }
    }

    /// Share of the rows computed by decode steps that were a freed row's placeholder.
    pub fn placeholder_share(&self) -> f64 {
        if self.step_rows > 0 { 1.0 - self.step_tokens as f64 / self.step_rows as f64 } else { 0.0 }
    }

    pub fn add(&mut self, o: &BatchStats) {
        self.admissions += o.admissions;
        self.admitted_tokens += o.admitted_tokens;
        self.admit_secs += o.admit_secs;
        self.steps += o.steps;
        self.step_tokens += o.step_tokens;
        self.step_rows += o.step_rows;
        self.step_secs += o.step_secs;
    }
}

/// A cache row's prompt and where its decoding stands.
struct Slot {
    prompt: usize,
    out: Out,
    /// Logits to pick the next token from (after its prefill or a decode step), or the token to feed next.
    state: SlotState,
    started: Instant,
    prefill_secs: f64,
    rng: Rng,
}

enum SlotState {
    Logits(Vec<f32>),
    Token(u32),
}

/// Compaction runs when the cache is this much wider than its longest row (and at least `COMPACT_SLACK` columns
/// wider): the copy is paid once per many steps, and the padding attended over stays under half the columns.
const COMPACT_RATIO: usize = 2;
const COMPACT_SLACK: usize = 64;

/// What the KV cache of one continuous batch may hold. Each row's cache is bounded by compaction to
/// `COMPACT_RATIO` × its longest row (prompt + output; the shared prefix is held once beside the rows) plus
/// `COMPACT_SLACK` columns, so this caps the batch's memory whatever the document's length: 1 GiB is under a
/// tenth of a laptop's memory and, with a 1.5B model's 56 KiB per token, still allows 16 rows of 500 tokens.
const KV_BUDGET: usize = 1 << 30;
/// Rows in flight on a CPU. A decode step does keep getting cheaper per row past 16 (Qwen2.5-1.5B, 2 cores,
/// `registro bench engine --batch N`: 60% of the prefill rate at 16 rows, 75% at 32, 79-81% at 64), but a
/// translated document's time is mostly its admissions (each segment's own turn prefilled), not its steps: 48
/// French segments took 134 s at 16 rows and 137 s at 64, with 1 GB more memory.
const CPU_ROWS: usize = 16;
/// A GPU has the parallelism for more rows; memory is the budget's to bound.
const GPU_ROWS: usize = 64;
/// Freed rows are refilled `rows / ADMIT_DIVISOR` at a time (see `decode_rows`).
const ADMIT_DIVISOR: usize = 4;

impl Model {
    /// Bytes one token takes in the KV cache of one row (keys and values of every layer, f32).
    pub fn kv_bytes_per_token(&self) -> usize {
        let c = &self.decoder.cfg.dims;
        2 * c.n_layer * c.n_kv_head * c.head_dim * std::mem::size_of::<f32>()
    }

    /// Rows for [`Model::generate_continuous`] when a row reaches `columns` tokens of its own (prompt + output;
    /// the shared prefix is held once, not per row): as many as the device makes worthwhile, and no more than
    /// keep the batch's KV cache within `KV_BUDGET`.
    pub fn batch_rows(&self, columns: usize) -> usize {
        let per_row = self.kv_bytes_per_token() * (COMPACT_RATIO * columns + COMPACT_SLACK);
        let cap = if self.device().is_cpu() { CPU_ROWS } else { GPU_ROWS };
        (KV_BUDGET / per_row.max(1)).clamp(1, cap)
    }

    /// Decodes every prompt (each continuing `prefix` when given) with at most `rows` prompts in one batch;
    /// a finished row's slot is refilled by the next prompt. `max_tokens[i]` caps prompt `i` (missing entries:
    /// `opts.max_tokens`). `on_done` sees each prompt as it finishes, in finishing order. A prompt that does
    /// not fit the context gets its own error and the others go on. On a cancel the rows in flight are reported
    /// with [`FinishReason::Cancelled`] and prompts not started are not reported. Greedy outputs are those of
    /// [`Model::generate`] on each prompt alone.
    #[allow(clippy::too_many_arguments)]
    pub fn generate_continuous(
        &self,
        prefix: Option<&Prefix>,
        prompts: &[Vec<u32>],
        max_tokens: &[usize],
        opts: &GenerateOptions,
        rows: usize,
        proc: &mut dyn LogitsProcessor,
        on_done: OnDone,
        cancel: &AtomicBool,
    ) -> Result<BatchStats> {
        self.decode_rows(prefix, prompts, max_tokens, opts, rows, proc, &mut |_| {}, on_done, cancel)
    }

    /// The loop behind [`Model::generate_continuous`] and [`Model::generate_batch`] (which is one admission of
    /// every prompt, rows dropped as they finish).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn decode_rows(
        &self,
        prefix: Option<&Prefix>,
        prompts: &[Vec<u32>],
        max_tokens: &[usize],
        opts: &GenerateOptions,
        rows: usize,
        proc: &mut dyn LogitsProcessor,
        on_token: OnToken,
        on_done: OnDone,
        cancel: &AtomicBool,
    ) -> Result<BatchStats> {
        let rows = rows.max(1);
        let mut stats = BatchStats::default();
        let base = prefix.map_or(0, |p| p.tokens.len());
        let seed = match opts.sampling {
            Sampling::Sample { seed, .. } => seed,
            Sampling::Greedy => 0,
        };
        let limit = |i: usize| max_tokens.get(i).copied().unwrap_or(opts.max_tokens);
        let report = |s: Slot, finish: FinishReason, on_done: &mut dyn FnMut(usize, Result<Generation>) -> Result<()>| {
            let o = s.out;
            let g = Generation {
                tokens: o.tokens,
                text: o.text,
                finish: o.finish.unwrap_or(finish),
                logprob: o.logprob,
                prompt_tokens: base + prompts[s.prompt].len(),
                prefill_secs: s.prefill_secs,
                decode_secs: (s.started.elapsed().as_secs_f64() - s.prefill_secs).max(0.0),
            };
            on_done(s.prompt, Ok(g))
        };
        let mut next = 0;
        let mut cache: Option<KvCache> = None;
        // `slots[j]` is cache row j; `None` is a finished row whose slot waits for the next prompt.
        let mut slots: Vec<Option<Slot>> = Vec::new();
        loop {
            // Admit prompts into free slots (and, until the batch has `rows` rows, new ones).
            let free: Vec<usize> = (0..slots.len()).filter(|&j| slots[j].is_none()).collect();
            let room = free.len() + rows.saturating_sub(slots.len());
            // Every admission is a prefill that reads all the weights once, as a decode step does: admitting a
            // quarter of the rows at a time, not each row as it frees, saves most of those reads. A freed row
            // decodes a placeholder token meanwhile (`BatchStats::placeholder_share`: ~5% of the rows computed for
            // 1.5B, `registro bench engine --batch 64 --segments 128`). Refilling each row at once on a CPU, where
            // admitted prompts are prefilled one at a time anyway, took those to 0% but no measurable time off that
            // benchmark on a 2-core VM whose runs spread ±10%, for three times the admissions.
            let group_min = (rows / ADMIT_DIVISOR).clamp(1, prompts.len().saturating_sub(next).max(1));
            if room >= group_min && next < prompts.len() && !cancel.load(Ordering::Relaxed) {
                let mut group = Vec::new();
                while group.len() < room && next < prompts.len() {
                    let i = next;
                    // An empty prompt continues the prefix's own last logits: it cannot share a prefill with
                    // prompts that have tokens, so a group is all empty or none.
                    if group.first().is_some_and(|&g: &usize| prompts[g].is_empty() != prompts[i].is_empty()) {
                        break;
                    }
                    next += 1;
                    let needed = base + prompts[i].len();
                    if needed > self.info.context_len {
                        on_done(i, Err(anyhow::anyhow!("sequence of {needed} tokens exceeds the context length {}", self.info.context_len)))?;
                        continue;
                    }
                    group.push(i);
                }
                if !group.is_empty() {
                    let t = Instant::now();
                    let ps: Vec<Vec<u32>> = group.iter().map(|&i| prompts[i].clone()).collect();
                    let (c, logits) = self.start(prefix, &ps)?;
                    let prefill_secs = t.elapsed().as_secs_f64();
                    stats.admissions += 1;
                    stats.admitted_tokens += ps.iter().map(Vec::len).sum::<usize>();
                    stats.admit_secs += prefill_secs;
                    let fresh: Vec<Slot> = group
                        .iter()
                        .zip(logits)
                        .map(|(&i, l)| Slot {
                            prompt: i,
                            out: Out::default(),
                            state: SlotState::Logits(l),
                            started: t,
                            prefill_secs,
                            rng: Rng::new(seed.wrapping_add(i as u64)),
                        })
                        .collect();
                    cache = Some(match cache.take() {
                        None => {
                            slots = fresh.into_iter().map(Some).collect();
                            c
                        }
                        Some(mut batch) => {
                            let mut fresh = fresh.into_iter().enumerate();
                            for &j in &free {
                                let Some((r, s)) = fresh.next() else { break };
                                batch.set_row(j, &c, r)?;
                                slots[j] = Some(s);
                            }
                            let extra: Vec<(usize, Slot)> = fresh.collect();
                            if !extra.is_empty() {
                                batch = batch.stack(&c, &extra.iter().map(|(r, _)| *r).collect::<Vec<_>>())?;
                                slots.extend(extra.into_iter().map(|(_, s)| Some(s)));
                            }
                            batch
                        }
                    });
                }
            }
            if cancel.load(Ordering::Relaxed) {
                for s in slots.into_iter().flatten() {
                    report(s, FinishReason::Cancelled, &mut *on_done)?;
                }
                return Ok(stats);
            }
            // Pick each row's next token where logits wait; a row that finishes frees its slot.
            let mut freed = false;
            for j in 0..slots.len() {
                let Some(s) = slots[j].as_mut() else { continue };
                let SlotState::Logits(row) = &mut s.state else { continue };
                let i = s.prompt;
                let tok = self.pick(&mut s.out, i, row, opts, limit(i), proc, &mut s.rng, on_token)?;
                let at = cache.as_ref().map_or(0, |c| c.row_len(j));
                match tok {
                    Some(t) if at < self.info.context_len => s.state = SlotState::Token(t),
                    Some(_) => {
                        let s = slots[j].take().expect("slot checked above");
                        on_done(s.prompt, Err(anyhow::anyhow!("sequence of {} tokens exceeds the context length {}", at + 1, self.info.context_len)))?;
                        freed = true;
                    }
                    None => {
                        let s = slots[j].take().expect("slot checked above");
                        report(s, FinishReason::Length, &mut *on_done)?;
                        freed = true;
                    }
                }
            }
            if freed && next < prompts.len() && !cancel.load(Ordering::Relaxed) {
                continue;
            }
            let live: Vec<usize> = (0..slots.len()).filter(|&j| slots[j].is_some()).collect();
            if live.is_empty() {
                return Ok(stats);
            }
            let Some(mut batch) = cache.take() else { bail!("rows in flight without a cache") };
            // A freed row waits for the next admission in its slot unless no prompt is left to take it, or its
            // placeholder tokens would run past the context.
            let wait = next < prompts.len()
                && !cancel.load(Ordering::Relaxed)
                && (0..slots.len()).all(|j| slots[j].is_some() || batch.row_len(j) + 1 < self.info.context_len);
            if live.len() != slots.len() && !wait {
                batch = batch.select(&live)?;
                let kept: Vec<Option<Slot>> = live.iter().map(|&j| slots[j].take()).collect();
                slots = kept;
            }
            let widest = (0..batch.batch()).map(|r| batch.row_columns(r)).max().unwrap_or(0);
            if batch.len() > COMPACT_RATIO * widest + COMPACT_SLACK {
                batch.compact()?;
            }
            let toks: Vec<[u32; 1]> = slots
                .iter()
                .map(|s| match s.as_ref().map(|s| &s.state) {
                    Some(SlotState::Token(t)) => Ok([*t]),
                    None => Ok([0]),
                    Some(SlotState::Logits(_)) => Err(anyhow::anyhow!("a row in flight has no token to feed")),
                })
                .collect::<Result<_>>()?;
            let feed: Vec<&[u32]> = toks.iter().map(|t| t.as_slice()).collect();
            let t = Instant::now();
            let l = self.decoder.forward(&feed, &mut batch, false)?;
            stats.steps += 1;
            stats.step_tokens += slots.iter().filter(|s| s.is_some()).count();
            stats.step_rows += slots.len();
            stats.step_secs += t.elapsed().as_secs_f64();
            for (s, row) in slots.iter_mut().zip(rows_of(&l)?) {
                if let Some(s) = s.as_mut() {
                    s.state = SlotState::Logits(row);
                }
            }
            cache = Some(batch);
        }
    }

    /// One decoding step of one row: processors, the n-gram guard, the choice of token, stop tokens and stop
    /// strings, streaming. `Some(token)` to feed next, `None` when the row is finished (`o.finish` says why).
    #[allow(clippy::too_many_arguments)]
    fn pick(
        &self,
        o: &mut Out,
        i: usize,
        row: &mut [f32],
        opts: &GenerateOptions,
        max_tokens: usize,
        proc: &mut dyn LogitsProcessor,
        rng: &mut Rng,
        on_token: OnToken,
    ) -> Result<Option<u32>> {
        if max_tokens == 0 {
            o.finish = Some(FinishReason::Length);
            return Ok(None);
        }
        proc.process(i, &o.tokens, row);
        self.ban_repeats(&o.tokens, opts.no_repeat_ngram, row);
        let tok = logits::sample(row, &opts.sampling, rng);
        let lp = logits::log_prob(row, tok);
        if !opts.ignore_eos && (self.info.eos.contains(&tok) || opts.stop_tokens.contains(&tok)) {
            o.finish = Some(FinishReason::Eos);
            return Ok(None);
        }
        o.tokens.push(tok);
        o.logprob += lp;
        if self.codec.is_some() {
            let text = self.decode(&o.tokens)?;
            if let Some(cut) = find_stop(&text, &opts.stop_strings, o.emitted) {
                let delta = text[o.emitted.min(cut)..cut].to_string();
                on_token(&TokenEvent { row: i, token: tok, text: &delta });
                o.text = text[..cut].to_string();
                o.finish = Some(FinishReason::Stop);
                return Ok(None);
            }
            // Hold back a trailing replacement char: the next token may complete the character, and hold back a
            // possible stop-string start so it is never streamed.
            let safe = stream_safe_len(&text, &opts.stop_strings);
            let delta = if safe > o.emitted { text[o.emitted..safe].to_string() } else { String::new() };
            o.emitted = o.emitted.max(safe);
            on_token(&TokenEvent { row: i, token: tok, text: &delta });
            o.text = text;
            if opts.stop_senseless && crate::sense::senseless(&o.text).is_some() {
                o.finish = Some(FinishReason::Senseless);
                return Ok(None);
            }
        } else {
            on_token(&TokenEvent { row: i, token: tok, text: "" });
        }
        if o.tokens.len() >= max_tokens {
            o.finish = Some(FinishReason::Length);
            return Ok(None);
        }
        Ok(Some(tok))
    }
}
