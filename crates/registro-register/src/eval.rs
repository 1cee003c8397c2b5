//! Analyzer accuracy on contrastive reference pairs: a pair counts as correct when its formal reference is
//! labelled FORMAL and its informal reference INFORMAL. Pairs whose two references are identical carry no
//! register and are counted apart (they should come out NEUTRAL).
use crate::data::Pair;
use crate::{analyze, Label, Lang};

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Accuracy {
    pub pairs: usize,
    pub correct: usize,
    pub formal_ok: usize,
    pub informal_ok: usize,
    pub identical: usize,
    pub identical_neutral: usize,
    /// Up to 20 misses: (formal or informal side, label given, text).
    pub misses: Vec<(String, String, String)>,
}

impl Accuracy {
    pub fn accuracy(&self) -> f64 {
        if self.pairs == 0 { 0.0 } else { self.correct as f64 / self.pairs as f64 }
    }
}

pub fn accuracy(lang: Lang, pairs: &[Pair]) -> Accuracy {
    let mut a = Accuracy::default();
    for p in pairs {
        if !p.contrastive() {
            a.identical += 1;
            if analyze(lang, &p.formal).label == Label::Neutral {
                a.identical_neutral += 1;
            }
            continue;
        }
        a.pairs += 1;
        let f = analyze(lang, &p.formal).label;
        let i = analyze(lang, &p.informal).label;
        a.formal_ok += (f == Label::Formal) as usize;
        a.informal_ok += (i == Label::Informal) as usize;
        a.correct += (f == Label::Formal && i == Label::Informal) as usize;
        for (side, l, t, want) in [("formal", f, &p.formal, Label::Formal), ("informal", i, &p.informal, Label::Informal)] {
            if l != want && a.misses.len() < 40 {
                a.misses.push((side.into(), l.as_str().into(), t.clone()));
            }
        }
    }
    a
}
