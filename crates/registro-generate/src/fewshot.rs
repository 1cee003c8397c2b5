//! Few-shot contrastive examples from the CoCoA-MT training pool (never its held-out part), retrieved by word
//! overlap with the source — or, for each sentence's own examples when asked for (`Options::meaning_retrieval`), by
//! the meaning of its English source (EmbeddingGemma cosine; lower BLEU on the development split, so not the
//! default). Each example shows the wanted reference with its register markers in [brackets] and the reference in
//! the other register to avoid.
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

use registro_register::data::{self, Pair};
use registro_register::{analyze, Lang, Register, Verdict};

use crate::qe::MeaningCheck;
use crate::prompt::Gender;

#[derive(Clone, Debug, serde::Serialize)]
pub struct Shot {
    pub source: String,
    pub wanted: String,
    pub wanted_marked: String,
    pub avoid_marked: String,
}

pub struct Pool {
    lang: Lang,
    /// Where the pairs come from, as a run's parameters name it (`fewshot_pool`).
    origin: String,
    pairs: Vec<Pair>,
    words: Vec<HashSet<String>>,
    /// Examples for the respectful register (their `formal` side is the respectful text), where the data sets'
    /// formal references are only polite: Japanese です/ます is not sonkeigo/kenjōgo.
    respectful: Option<Box<Pool>>,
    /// Each pair's source embedded by the encoder, for [`Pool::retrieve_by_meaning`].
    meaning: Option<(Arc<MeaningCheck>, Embeddings)>,
}

/// One embedding per pool pair, shared between the translators of a process.
type Embeddings = Arc<Vec<Vec<f32>>>;

const STOP: &[&str] = &[
    "the", "a", "an", "and", "or", "to", "of", "in", "on", "is", "it", "that", "this", "i", "my", "me", "we", "for",
    "with", "was", "be", "at", "so", "but", "as", "are", "have", "just", "like", "yeah", "oh",
];

fn words(s: &str) -> HashSet<String> {
    s.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.to_lowercase())
        .filter(|w| !w.is_empty() && !STOP.contains(&w.as_str()))
        .collect()
}

/// `text` with the analyzer's markers wrapped in [brackets].
pub fn mark(lang: Lang, text: &str) -> String {
    let a = analyze(lang, text);
    let mut out = String::new();
    let mut pos = 0;
    for m in &a.markers {
        if m.start < pos {
            continue;
        }
        out.push_str(&text[pos..m.start]);
        out.push('[');
        out.push_str(&m.text);
        out.push(']');
        pos = m.end;
    }
    out.push_str(&text[pos..]);
    out
}

impl Pool {
    /// The pool part of a CoCoA-MT training folder; only pairs whose two references differ are useful.
    pub fn load(dir: &Path, lang: Lang) -> anyhow::Result<Pool> {
        let (pool, _held) = data::split(data::load_dir(dir, lang)?);
        let pool = Pool::from_pairs(lang, pool.into_iter().filter(|p| p.contrastive()).collect());
        let origin = format!("{} (pool split, {} contrastive pairs)", dir.display(), pool.len());
        Ok(Pool { origin, ..pool })
    }

    /// The shipped pool for `lang`: the CoCoA-MT (IWSLT 2023 for KO/VI) training data in Registro's data folder;
    /// for Russian, which neither data set covers, the hand-written pairs of [`RU_PAIRS`]. Japanese gets
    /// [`JA_RESPECTFUL_PAIRS`] for the respectful register. A missing or unreadable pool is an error that says
    /// what is missing and how to fix it: translating without examples is a choice (`--no-examples`), never a
    /// silent fallback.
    pub fn default_for(lang: Lang) -> anyhow::Result<Pool> {
        // A language no shipped data set covers has its pairs compiled in (Russian).
        if data::example_set(lang).is_none() {
            return Ok(Pool::hand_written(lang, "registro-ru", RU_PAIRS));
        }
        let dir = data::examples_dir(lang)?;
        let found_by = data::data_dir().map(|d| d.found_by).unwrap_or("REGISTRO_DATA");
        let mut pool = Pool::load(&dir, lang)
            .map_err(|e| anyhow::anyhow!("the {} translation examples in {} cannot be read: {e:#}. Reinstall Registro or set REGISTRO_DATA to a good copy", lang.name(), dir.display()))?;
        anyhow::ensure!(!pool.is_empty(), "the {} translation examples in {} hold no contrastive pair; reinstall Registro", lang.name(), dir.display());
        let set = data::example_set(lang).unwrap_or("examples");
        pool.origin = format!("{set}/en-{} train, pool split: {} contrastive pairs ({found_by}: {})", lang.code(), pool.len(), dir.display());
        Ok(match lang {
            l if l.has_respectful() => Pool { respectful: Some(Box::new(Pool::hand_written(lang, "registro-ja-respectful", JA_RESPECTFUL_PAIRS))), ..pool },
            _ => pool,
        })
    }

    /// The pool a run uses: the shipped one, or none when the user chose to translate without examples.
    pub fn for_run(lang: Lang, examples: bool) -> anyhow::Result<Option<Pool>> {
        if examples {
            Pool::default_for(lang).map(Some)
        } else {
            Ok(None)
        }
    }

    /// Where the pairs come from (a folder and its pair count, or the compiled-in table).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// A pool of (source, formal, informal) pairs written for Registro.
    fn hand_written(lang: Lang, domain: &str, pairs: &[(&str, &str, &str)]) -> Pool {
        let pool = Pool::from_pairs(lang, pairs.iter().enumerate().map(|(i, (s, f, inf))| Pair {
            domain: domain.into(),
            line: i,
            source: s.to_string(),
            formal: f.to_string(),
            informal: inf.to_string(),
            formal_feminine: None,
            informal_feminine: None,
            formal_annotated: None,
            informal_annotated: None,
        }).collect());
        let origin = format!("registro hand-written {} pairs ({domain}, {} pairs, compiled in)", lang.code().to_uppercase(), pool.len());
        Pool { origin, ..pool }
    }

    fn from_pairs(lang: Lang, pairs: Vec<Pair>) -> Pool {
        let words = pairs.iter().map(|p| words(&p.source)).collect();
        Pool { lang, origin: String::new(), pairs, words, respectful: None, meaning: None }
    }

    /// Embeds the pool's sources (once per process and pool: a window translates many documents) so each sentence's
    /// own examples are the pairs nearest it in meaning.
    pub fn add_meaning_retrieval(&mut self, check: Arc<MeaningCheck>) -> anyhow::Result<()> {
        static EMBEDDED: Mutex<Option<HashMap<u64, Embeddings>>> = Mutex::new(None);
        let sources: Vec<&str> = self.pairs.iter().map(|p| p.source.as_str()).collect();
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            sources.hash(&mut h);
            h.finish()
        };
        let mut cache = EMBEDDED.lock().unwrap_or_else(|p| p.into_inner());
        let vectors = match cache.get_or_insert_with(HashMap::new).get(&key) {
            Some(v) => v.clone(),
            None => {
                let v = Arc::new(check.embed(&sources)?);
                cache.get_or_insert_with(HashMap::new).insert(key, v.clone());
                v
            }
        };
        self.meaning = Some((check, vectors));
        Ok(())
    }

    /// Whether [`Pool::retrieve_by_meaning`] uses embeddings (else it falls back to word overlap).
    pub fn retrieves_by_meaning(&self) -> bool {
        self.meaning.is_some()
    }

    /// The query embeddings of `sentences` for [`Pool::retrieve_by_meaning`], when the pool has an encoder.
    pub fn embed_queries(&self, sentences: &[String]) -> anyhow::Result<Option<Vec<Vec<f32>>>> {
        let Some((check, _)) = &self.meaning else { return Ok(None) };
        let texts: Vec<&str> = sentences.iter().map(String::as_str).collect();
        Ok(Some(check.embed(&texts)?))
    }

    /// The `k` pairs whose sources are nearest `query` in meaning (`query_vec`, from [`Pool::embed_queries`]);
    /// word overlap where the pool has no embeddings or the register has a pool of its own.
    pub fn retrieve_by_meaning(&self, query: &str, query_vec: Option<&[f32]>, k: usize, register: Register, gender: Option<Gender>) -> Vec<Shot> {
        match (&self.meaning, query_vec) {
            (Some((_, vectors)), Some(q)) if !(register == Register::Respectful && self.respectful.is_some()) => {
                let scores = vectors.iter().map(|v| registro_engine::bert::cosine(v, q)).collect();
                self.best(scores, k, register, gender)
            }
            _ => self.retrieve(query, k, register, gender),
        }
    }

    /// Whether the respectful register has examples of its own (else it is shown the formal ones).
    pub fn has_respectful(&self) -> bool {
        self.respectful.is_some()
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// (source, reference) for up to `n` pairs spread over the pool, formal and informal references alternating.
    pub fn reference_pairs(&self, n: usize) -> impl Iterator<Item = (&str, &str)> + '_ {
        let step = (self.pairs.len() / n.max(1)).max(1);
        self.pairs.iter().step_by(step).take(n).enumerate().map(|(i, p)| {
            (p.source.as_str(), if i % 2 == 0 { p.formal.as_str() } else { p.informal.as_str() })
        })
    }

    /// The `k` pool pairs most similar to `query` (Jaccard overlap of content words), shortest first on ties so
    /// the prefix stays small.
    pub fn retrieve(&self, query: &str, k: usize, register: Register, gender: Option<Gender>) -> Vec<Shot> {
        if let (Register::Respectful, Some(r)) = (register, &self.respectful) {
            return r.retrieve(query, k, Register::Formal, gender);
        }
        let q = words(query);
        let scores = self
            .words
            .iter()
            .map(|w| {
                let inter = w.intersection(&q).count() as f64;
                let union = (w.len() + q.len()) as f64 - inter;
                if union > 0.0 { inter / union } else { 0.0 }
            })
            .collect();
        self.best(scores, k, register, gender)
    }

    /// `k` examples that are the same for every document of this language and register, so the prefix they form
    /// with the system text is computed once per model and reused by every later document: retrieved examples
    /// differ per document, and each new document prefills its prefix anew (several seconds for the 1.5B model
    /// on two cores, before its first segment). Each one shows the contrast — the analyzer reads its wanted side
    /// in the wanted register and its other side in the other — and is short, to keep the prefix small; they are
    /// taken from the pool's domains in turn, in pool order.
    pub fn fixed(&self, k: usize, register: Register, gender: Option<Gender>) -> Vec<Shot> {
        if let (Register::Respectful, Some(r)) = (register, &self.respectful) {
            return r.fixed(k, Register::Formal, gender);
        }
        let contrastive: Vec<usize> = (0..self.pairs.len())
            .filter(|&i| (30..=140).contains(&self.pairs[i].source.len()))
            .filter(|&i| {
                let (wanted, avoid) = self.sides(i, register, gender);
                let reads = |text: &str, r: Register| analyze(self.lang, text).verdict(r) == Verdict::Ok;
                reads(wanted, register) && reads(avoid, register.opposite())
            })
            .collect();
        let mut domains: Vec<&str> = Vec::new();
        for &i in &contrastive {
            if !domains.contains(&self.pairs[i].domain.as_str()) {
                domains.push(&self.pairs[i].domain);
            }
        }
        let mut queues: Vec<std::collections::VecDeque<usize>> =
            domains.iter().map(|d| contrastive.iter().copied().filter(|&i| self.pairs[i].domain == *d).collect()).collect();
        let mut chosen = Vec::with_capacity(k);
        while chosen.len() < k && queues.iter().any(|q| !q.is_empty()) {
            for q in queues.iter_mut() {
                if let Some(i) = q.pop_front().filter(|_| chosen.len() < k) {
                    chosen.push(i);
                }
            }
        }
        chosen.into_iter().map(|i| self.shot(i, register, gender)).collect()
    }

    /// The `k` best-scoring pairs (one score per pair) as shots in `register`; long sources are never shown.
    fn best(&self, scores: Vec<f64>, k: usize, register: Register, gender: Option<Gender>) -> Vec<Shot> {
        let mut scored: Vec<(f64, usize)> =
            scores.into_iter().enumerate().filter(|(i, _)| self.pairs[*i].source.len() < 220).map(|(i, s)| (s, i)).collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(self.pairs[a.1].source.len().cmp(&self.pairs[b.1].source.len())));
        scored.into_iter().take(k).map(|(_, i)| self.shot(i, register, gender)).collect()
    }

    /// Pair `i` as an example of `register`, in the feminine forms where the data has them and they are asked for.
    fn shot(&self, i: usize, register: Register, gender: Option<Gender>) -> Shot {
        let (wanted, avoid) = self.sides(i, register, gender);
        Shot { source: self.pairs[i].source.clone(), wanted: wanted.to_string(), wanted_marked: mark(self.lang, wanted), avoid_marked: mark(self.lang, avoid) }
    }

    /// Pair `i`'s reference in `register` and the one in the other register.
    fn sides(&self, i: usize, register: Register, gender: Option<Gender>) -> (&str, &str) {
        let p = &self.pairs[i];
        let fem = gender == Some(Gender::Feminine);
        let formal = if fem { p.formal_feminine.as_ref().unwrap_or(&p.formal) } else { &p.formal };
        let informal = if fem { p.informal_feminine.as_ref().unwrap_or(&p.informal) } else { &p.informal };
        if register.is_formal_side() { (formal, informal) } else { (informal, formal) }
    }
}

/// Russian few-shot pairs (source, formal вы, informal ты), written for Registro by its developers (no data set has
/// EN→RU formality references); conversational like CoCoA-MT's telephony and topical-chat domains.
pub const RU_PAIRS: &[(&str, &str, &str)] = &[
    ("Do you have time tomorrow?", "У вас есть время завтра?", "У тебя есть время завтра?"),
    ("What is your favourite movie?", "Какой ваш любимый фильм?", "Какой твой любимый фильм?"),
    ("Have you ever been to Moscow?", "Вы когда-нибудь были в Москве?", "Ты когда-нибудь был в Москве?"),
    ("Can you send me the documents by Friday?", "Не могли бы вы прислать мне документы до пятницы?", "Можешь прислать мне документы до пятницы?"),
    ("Thank you for your help, I really appreciate it.", "Спасибо вам за помощь, я очень это ценю.", "Спасибо тебе за помощь, я очень это ценю."),
    ("Do you know where the station is?", "Вы знаете, где вокзал?", "Ты знаешь, где вокзал?"),
    ("What do you think about this book?", "Что вы думаете об этой книге?", "Что ты думаешь об этой книге?"),
    ("Please call me when you arrive.", "Пожалуйста, позвоните мне, когда приедете.", "Пожалуйста, позвони мне, когда приедешь."),
    ("I heard you like to play football.", "Я слышал, что вы любите играть в футбол.", "Я слышал, что ты любишь играть в футбол."),
    ("Where do you want me to send the package?", "Куда вам отправить посылку?", "Куда тебе отправить посылку?"),
];

/// Japanese respectful-register pairs (source, sonkeigo/kenjōgo, casual), written for Registro by its developers:
/// CoCoA-MT's formal Japanese references are polite です/ます without honorific verbs, so they cannot show the
/// respectful level. Each respectful side raises the listener (いらっしゃる, 召し上がる, ご覧になる, おっしゃる,
/// お〜になる, ご存知) or lowers the speaker (お送りする, 伺う, いたす); the tests check that the analyzer reads
/// each as respectful and its casual side as informal.
pub const JA_RESPECTFUL_PAIRS: &[(&str, &str, &str)] = &[
    ("Did you see the email I sent yesterday?", "昨日お送りしたメールをご覧になりましたか？", "昨日送ったメール、見た？"),
    ("What time will you come to the office tomorrow?", "明日は何時に事務所にいらっしゃいますか？", "明日、何時に事務所に来る？"),
    ("Have you already eaten lunch?", "もう昼食を召し上がりましたか？", "もう昼ご飯食べた？"),
    ("Do you know the manager of this store?", "この店の店長をご存知ですか？", "この店の店長、知ってる？"),
    ("What did you say?", "何とおっしゃいましたか？", "何て言った？"),
    ("Where do you live?", "どちらにお住まいですか？", "どこに住んでるの？"),
    ("Are you going to the meeting on Friday?", "金曜日の会議にいらっしゃいますか？", "金曜日の会議に行く？"),
    ("May I ask your name?", "お名前を伺ってもよろしいでしょうか？", "名前、聞いてもいい？"),
    ("Please wait here for a moment.", "こちらで少々お待ちになってください。", "ここでちょっと待ってて。"),
    ("Did you sleep well last night?", "昨夜はよくお休みになれましたか？", "昨日の夜はよく寝れた？"),
    ("What do you think about this plan?", "この計画についてどのようにお考えですか？", "この計画、どう思う？"),
    ("Will you use the car this weekend?", "今週末、車をお使いになりますか？", "今週末、車使う？"),
];

#[cfg(test)]
mod tests {
    use registro_register::Label;

    use super::*;

    /// The hand-written examples say what they are meant to show, as the analyzer reads them.
    #[test]
    fn hand_written_examples_are_in_their_registers() {
        let mut wrong = Vec::new();
        for (source, respectful, casual) in JA_RESPECTFUL_PAIRS {
            let a = analyze(Lang::Ja, respectful);
            if !(a.respectful && a.label == Label::Formal) {
                wrong.push(format!("{source}: {respectful} read as {:?}, respectful {}", a.label, a.respectful));
            }
            if analyze(Lang::Ja, casual).label != Label::Informal {
                wrong.push(format!("{source}: {casual} not informal"));
            }
        }
        for (source, formal, informal) in RU_PAIRS {
            if analyze(Lang::Ru, formal).label != Label::Formal || analyze(Lang::Ru, informal).label != Label::Informal {
                wrong.push(format!("{source}: {formal} / {informal}"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// By meaning, a sentence finds the example that says the same thing in other words, which shares no content
    /// word with it; word overlap picks one that shares a word and means something else. (Needs the real
    /// EmbeddingGemma; skipped with a message without it.)
    #[test]
    fn retrieval_by_meaning_finds_a_paraphrase_that_word_overlap_misses() {
        let Some(check) = crate::qe::MeaningCheck::installed().expect("an installed encoder loads") else {
            return eprintln!("skipped: {} is not installed", crate::qe::MODEL);
        };
        let mut pool = Pool::hand_written(
            Lang::De,
            "test",
            &[
                ("Could you post me the invoice?", "Könnten Sie mir die Rechnung schicken?", "Könntest du mir die Rechnung schicken?"),
                ("Do you like the mail carrier in your street?", "Mögen Sie den Briefträger in Ihrer Straße?", "Magst du den Briefträger in deiner Straße?"),
            ],
        );
        let query = "Please send me the bill by mail.";
        assert_eq!(pool.retrieve(query, 1, Register::Formal, None)[0].source, "Do you like the mail carrier in your street?");
        pool.add_meaning_retrieval(check).unwrap();
        let vecs = pool.embed_queries(&[query.to_string()]).unwrap().expect("the pool has the encoder");
        let got = pool.retrieve_by_meaning(query, Some(&vecs[0]), 1, Register::Formal, None);
        assert_eq!(got[0].source, "Could you post me the invoice?");
        assert_eq!(got[0].wanted, "Könnten Sie mir die Rechnung schicken?", "the example is shown in the requested register");
    }

    /// Fixed examples are one set per language and register whatever the document, each showing the contrast,
    /// short, and taken from the domains in turn; a pair the analyzer cannot tell apart is never one of them.
    #[test]
    fn fixed_examples_show_the_contrast_and_alternate_domains() {
        let mut pairs: Vec<Pair> = Vec::new();
        let mut add = |domain: &str, source: &str, formal: &str, informal: &str| {
            let line = pairs.len();
            let pair = Pair { domain: domain.into(), line, source: source.into(), formal: formal.into(), informal: informal.into(), formal_feminine: None, informal_feminine: None, formal_annotated: None, informal_annotated: None };
            pairs.push(pair);
        };
        add("chat", "The weather was lovely all weekend long.", "Das Wetter war das ganze Wochenende schön.", "Das Wetter war das ganze Wochenende schön.");
        add("chat", "Do you have time to talk tomorrow morning?", "Haben Sie morgen früh Zeit zu reden?", "Hast du morgen früh Zeit zu reden?");
        add("chat", "Have you seen the new film at the cinema?", "Haben Sie den neuen Film im Kino gesehen?", "Hast du den neuen Film im Kino gesehen?");
        add("phone", "Can you tell me your account number, please?", "Können Sie mir bitte Ihre Kontonummer sagen?", "Kannst du mir bitte deine Kontonummer sagen?");
        add("phone", "Yes?", "Ja?", "Ja?");
        let pool = Pool::from_pairs(Lang::De, pairs);

        let formal = pool.fixed(3, Register::Formal, None);
        let sources: Vec<&str> = formal.iter().map(|s| s.source.as_str()).collect();
        assert_eq!(
            sources,
            ["Do you have time to talk tomorrow morning?", "Can you tell me your account number, please?", "Have you seen the new film at the cinema?"],
            "contrastive pairs only, the domains in turn"
        );
        assert_eq!(formal[0].wanted, "Haben Sie morgen früh Zeit zu reden?");
        assert_eq!(formal[0].avoid_marked, mark(Lang::De, "Hast du morgen früh Zeit zu reden?"));
        let informal = pool.fixed(2, Register::Informal, None);
        assert_eq!(informal[0].wanted, "Hast du morgen früh Zeit zu reden?", "the same pairs, the other side wanted");
        assert_eq!(pool.fixed(3, Register::Formal, None).len(), 3, "the same set on every call");
        assert_eq!(pool.fixed(10, Register::Formal, None).len(), 3, "never more than the pool can show");
    }

    #[test]
    fn the_respectful_register_is_shown_respectful_examples() {
        let mut pool = Pool::hand_written(Lang::Ja, "polite", &[("Did you eat lunch?", "昼食を食べましたか？", "昼ご飯食べた？")]);
        let polite = pool.retrieve("Did you eat lunch already?", 1, Register::Respectful, None);
        assert_eq!(polite[0].wanted, "昼食を食べましたか？", "without respectful examples the formal ones stand in");
        pool.respectful = Some(Box::new(Pool::hand_written(Lang::Ja, "respectful", JA_RESPECTFUL_PAIRS)));
        let shots = pool.retrieve("Have you eaten lunch yet?", 1, Register::Respectful, None);
        assert_eq!(shots[0].wanted, "もう昼食を召し上がりましたか？");
        assert_eq!(shots[0].avoid_marked, mark(Lang::Ja, "もう昼ご飯食べた？"));
        let formal = pool.retrieve("Have you eaten lunch yet?", 1, Register::Formal, None);
        assert_eq!(formal[0].wanted, "昼食を食べましたか？", "the formal register keeps the polite pool");
    }
}
