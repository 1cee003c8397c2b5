//! Throughput of the rule formalizer, shared by `registro bench rules` and the crate example.

use std::time::{Duration, Instant};

use crate::{Formalizer, Lang};

#[derive(Clone, Debug, serde::Serialize)]
pub struct Throughput {
    pub lang: Lang,
    pub sentences: u64,
    pub bytes: u64,
    pub edits: u64,
    pub seconds: f64,
    pub sentences_per_s: f64,
    pub mb_per_s: f64,
}

/// Formalizes `corpus` round after round on one thread for at least `min_time`.
pub fn throughput(corpus: &[String], lang: Lang, min_time: Duration) -> Throughput {
    let mut f = Formalizer::new();
    let (mut n, mut bytes, mut edits) = (0u64, 0u64, 0u64);
    let t0 = Instant::now();
    while t0.elapsed() < min_time || n == 0 {
        for s in corpus {
            let r = f.formalize(s, lang);
            edits += r.edits.len() as u64;
            bytes += s.len() as u64;
            n += 1;
        }
        if corpus.is_empty() {
            break;
        }
    }
    let seconds = t0.elapsed().as_secs_f64();
    Throughput {
        lang,
        sentences: n,
        bytes,
        edits,
        seconds,
        sentences_per_s: n as f64 / seconds,
        mb_per_s: bytes as f64 / seconds / 1e6,
    }
}

/// Informal chat sentences per language for the benchmark when no corpus file is given (PT16 is English only).
pub fn sample_corpus(lang: Lang) -> Vec<String> {
    let s: &[&str] = match lang {
        Lang::En => &["idk why u didn't call me, i'm sooooo mad!!!", "that 's whats here in Chicago .", "THIS IS SO UNFAIR lol", "gonna check www.example.com at 10:30 w/ Bob"],
        Lang::Pt => &["n preciso pedir pois sei q ela vai vir atras!!", "vc vai na festa hj?? kkkkkk", "naum sei oq fazer, tb to cansadaaaa"],
        Lang::Fr => &["drôle heinnnnnnnnn s étais ma femme de ménage!", "slt ça va ?? jsp si je peux venir dsl mdr"],
        Lang::It => &["un po'di raffreddore ma tutto ok!!!", "cmq nn lo so xké nn mi ha detto niente"],
        Lang::De => &["hab grad keine zeit, vllt morgen!!", "kannste mir sagen wies geht?? :)"],
        Lang::Es => &["q tal?? xq no vienes al finde jajaja", "tb toy cansado"],
        Lang::Hi => &["मैं ठीक हूँ!!", "मैं कल आऊँगा"],
        Lang::Ja => &["ありがとう！！www", "明日行きます"],
    };
    s.iter().map(|x| x.to_string()).collect()
}
