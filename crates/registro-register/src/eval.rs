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

/// How repair fares on contrastive reference pairs.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct RepairStats {
    pub pairs: usize,
    /// formal → informal → formal gives the formal reference back.
    pub round_trip_formal: usize,
    /// informal → formal → informal gives the informal reference back.
    pub round_trip_informal: usize,
    /// Repairing the formal reference gives exactly the informal one.
    pub exact_to_informal: usize,
    /// Repairing the informal reference gives exactly the formal one.
    pub exact_to_formal: usize,
    /// The repaired sentence is labelled with the requested register.
    pub label_to_informal: usize,
    pub label_to_formal: usize,
    pub examples: Vec<(String, String, String)>,
}

pub fn repair_stats(lang: Lang, pairs: &[Pair]) -> RepairStats {
    use crate::repair::convert;
    use crate::Register;
    let mut s = RepairStats::default();
    for p in pairs.iter().filter(|p| p.contrastive()) {
        s.pairs += 1;
        let to_inf = convert(lang, &p.formal, Register::Informal).text;
        let to_f = convert(lang, &p.informal, Register::Formal).text;
        s.round_trip_formal += (convert(lang, &to_inf, Register::Formal).text == p.formal) as usize;
        s.round_trip_informal += (convert(lang, &to_f, Register::Informal).text == p.informal) as usize;
        s.exact_to_informal += (to_inf == p.informal) as usize;
        s.exact_to_formal += (to_f == p.formal) as usize;
        s.label_to_informal += (analyze(lang, &to_inf).label == Label::Informal) as usize;
        s.label_to_formal += (analyze(lang, &to_f).label == Label::Formal) as usize;
        if to_f != p.formal && s.examples.len() < 12 {
            s.examples.push((p.informal.clone(), to_f, p.formal.clone()));
        }
    }
    s
}
