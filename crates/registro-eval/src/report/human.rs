//! Human evaluation on XFORMAL's scales: blind, randomised rating items (the same segments for every rater, in
//! a rater-specific order, with the systems shuffled behind letters), ratings stored as judgments, and a summary
//! with per-system means, inter-rater agreement and the Spearman correlation of each automatic metric with the
//! human scores.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use anyhow::{bail, Context, Result};
use registro_report::agreement::{icc, ranking_agreement, simulated_annotator_kappa, spearman, KappaWeights, SplitMix64};
use registro_report::{Cell, Column, Table};
use registro_store::{JudgmentFilter, NewJudgment, RunId, Scale, Store};
use serde::{Deserialize, Serialize};

use super::prepare::Prepared;

/// XFORMAL's formality scale: −3 very informal … 3 very formal.
pub const FORMALITY_SCALE: (i32, i32) = (-3, 3);
/// Fluency: 1 incomprehensible … 5 perfect.
pub const FLUENCY_SCALE: (i32, i32) = (1, 5);
/// Meaning preservation: 1 completely different … 6 equivalent.
pub const MEANING_SCALE: (i32, i32) = (1, 6);

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct RatingOutput {
    /// What the rater sees instead of the system name ("A", "B", …).
    pub slot: String,
    pub run_id: RunId,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct RatingItem {
    pub segment_index: i64,
    pub source: String,
    pub outputs: Vec<RatingOutput>,
    /// Whether this rater already stored judgments for every output of this item.
    pub rated: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct Rating {
    pub run_id: RunId,
    pub segment_index: i64,
    pub scale: Scale,
    pub value: f64,
}

fn hash_str(s: &str) -> u64 {
    // FNV-1a: stable across runs and platforms, unlike std's hasher.
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// `count` segments (the same for every rater, drawn with `seed`) where all runs have an output; the item order
/// and the systems' order within each item are shuffled per rater.
pub fn rating_items(store: &Store, runs: &[RunId], count: usize, seed: u64, rater: &str) -> Result<Vec<RatingItem>> {
    if runs.is_empty() {
        bail!("pick at least one run to rate");
    }
    if rater.trim().is_empty() {
        bail!("enter a rater name so ratings from different people can be told apart");
    }
    let data = super::data::load(store, &super::data::CompareRequest { runs: runs.to_vec(), baseline: None, reference: None })?;
    let n = data.segments();
    let texts: Vec<Vec<Option<String>>> = runs.iter().map(|&r| store.output_texts(r)).collect::<Result<_, _>>()?;
    let mut candidates: Vec<usize> = (0..n).filter(|&i| texts.iter().all(|t| t.get(i).is_some_and(|o| o.is_some()))).collect();
    if candidates.is_empty() {
        bail!("the selected runs have no segment that all of them translated");
    }
    let mut rng = SplitMix64(seed);
    rng.shuffle(&mut candidates);
    candidates.truncate(count.max(1));
    let mut rater_rng = SplitMix64(seed ^ hash_str(rater));
    rater_rng.shuffle(&mut candidates);

    let mut done: HashMap<(RunId, i64), usize> = HashMap::new();
    for &r in runs {
        for j in store.judgments(&JudgmentFilter { run_id: Some(r), rater: Some(rater.to_string()), ..Default::default() })? {
            *done.entry((j.run_id, j.segment_index)).or_default() += 1;
        }
    }
    Ok(candidates
        .into_iter()
        .map(|i| {
            let mut order: Vec<usize> = (0..runs.len()).collect();
            rater_rng.shuffle(&mut order);
            let outputs = order
                .iter()
                .enumerate()
                .map(|(slot, &s)| RatingOutput {
                    slot: ((b'A' + (slot % 26) as u8) as char).to_string(),
                    run_id: runs[s],
                    text: data.systems[s].outputs[i].clone(),
                })
                .collect();
            RatingItem {
                segment_index: i as i64,
                source: data.sources[i].clone(),
                rated: runs.iter().all(|r| done.contains_key(&(*r, i as i64))),
                outputs,
            }
        })
        .collect())
}

/// Stores one rater's ratings, replacing that rater's earlier rating of the same output on the same scale.
pub fn save_ratings(store: &mut Store, rater: &str, ratings: &[Rating]) -> Result<usize> {
    let rater = rater.trim();
    if rater.is_empty() {
        bail!("ratings need a rater name");
    }
    for r in ratings {
        let (lo, hi) = match r.scale {
            Scale::Formality => FORMALITY_SCALE,
            Scale::Fluency => FLUENCY_SCALE,
            Scale::Meaning => MEANING_SCALE,
            Scale::Rank => (1, 26),
        };
        if !(r.value.is_finite() && r.value >= lo as f64 && r.value <= hi as f64 && r.value.fract() == 0.0) {
            bail!("{} rating {} of run {} segment {} is outside the scale {lo}..{hi}", r.scale, r.value, r.run_id, r.segment_index);
        }
    }
    let runs: BTreeSet<RunId> = ratings.iter().map(|r| r.run_id).collect();
    for run in runs {
        let existing = store.judgments(&JudgmentFilter { run_id: Some(run), rater: Some(rater.to_string()), ..Default::default() })?;
        for j in existing {
            if ratings.iter().any(|r| r.run_id == j.run_id && r.segment_index == j.segment_index && r.scale == j.scale) {
                store.delete_judgment(j.id)?;
            }
        }
    }
    let new: Vec<NewJudgment> = ratings
        .iter()
        .map(|r| NewJudgment {
            rater: rater.to_string(),
            run_id: r.run_id,
            segment_index: r.segment_index,
            scale: r.scale,
            value: r.value,
            note: None,
        })
        .collect();
    let ids = store.add_judgments(&new).context("storing ratings")?;
    Ok(ids.len())
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct ScaleSummary {
    pub scale: Scale,
    pub statistic: String,
    pub value: Option<f64>,
    pub items: usize,
    pub raters: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, ts_rs::TS)]
pub struct HumanSummary {
    pub judgments: usize,
    pub raters: Vec<String>,
    pub agreement: Vec<ScaleSummary>,
    pub tables: Vec<Table>,
}

const SCALES: [Scale; 4] = [Scale::Formality, Scale::Fluency, Scale::Meaning, Scale::Rank];

/// Means per system, agreement per scale and metric–human correlations for the runs of a prepared comparison.
pub fn human_summary(store: &Store, prep: &Prepared) -> Result<HumanSummary> {
    let data = &prep.data;
    let mut all = Vec::new();
    for s in &data.systems {
        all.extend(store.judgments(&JudgmentFilter { run_id: Some(s.run.id), ..Default::default() })?);
    }
    let raters: Vec<String> = all.iter().map(|j| j.rater.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    // (scale, run, segment) → rater → value
    let mut by_item: BTreeMap<(&'static str, RunId, i64), BTreeMap<String, f64>> = BTreeMap::new();
    for j in &all {
        by_item.entry((j.scale.as_str(), j.run_id, j.segment_index)).or_default().insert(j.rater.clone(), j.value);
    }

    // ---- means per system
    let mut means = Table::new(
        "human_means",
        "Human evaluation: mean ratings",
        vec![
            Column::new("system", "System"),
            // Rated formality is better on the side the runs asked for (lower for informal runs).
            Column {
                higher_is_better: super::direction::formality_direction(data.systems.iter().map(|s| s.run.register.as_deref())).higher_is_better,
                ..Column::metric("formality", "Formality (−3…3)", true, 2)
            },
            Column::metric("fluency", "Fluency (1…5)", true, 2),
            Column::metric("meaning", "Meaning (1…6)", true, 2),
            Column::metric("rank", "Mean rank", false, 2),
            Column::metric("n", "Ratings", true, 0),
        ],
    );
    for s in &data.systems {
        let mut cells = vec![Cell::text(s.label.clone())];
        let mut count = 0usize;
        for scale in SCALES {
            let vals: Vec<f64> = by_item
                .iter()
                .filter(|((sc, run, _), _)| *sc == scale.as_str() && *run == s.run.id)
                .flat_map(|(_, r)| r.values().copied())
                .collect();
            count += vals.len();
            cells.push(if vals.is_empty() { Cell::empty() } else { Cell::num(vals.iter().sum::<f64>() / vals.len() as f64) });
        }
        cells.push(Cell::num(count as f64));
        means.push(s.run.id.to_string(), cells)?;
    }
    means.notes.push("Blind, randomised ratings on XFORMAL's scales; rank 1 = best among the outputs shown together.".into());

    // ---- agreement
    let mut agreement = Vec::new();
    {
        // Formality: ICC(2,1) over the outputs every formality rater rated.
        let items: Vec<&BTreeMap<String, f64>> = by_item.iter().filter(|((sc, _, _), _)| *sc == Scale::Formality.as_str()).map(|(_, r)| r).collect();
        let fr: BTreeSet<&String> = items.iter().flat_map(|r| r.keys()).collect();
        let rows: Vec<Vec<f64>> = items.iter().filter(|r| fr.iter().all(|x| r.contains_key(*x))).map(|r| fr.iter().map(|x| r[*x]).collect()).collect();
        let value = if fr.len() >= 2 && rows.len() >= 2 { icc(&rows).ok().map(|i| i.icc2_1).filter(|v| v.is_finite()) } else { None };
        agreement.push(ScaleSummary { scale: Scale::Formality, statistic: "ICC(2,1)".into(), value, items: rows.len(), raters: fr.len() });
    }
    for (scale, (lo, hi)) in [(Scale::Fluency, FLUENCY_SCALE), (Scale::Meaning, MEANING_SCALE), (Scale::Formality, FORMALITY_SCALE)] {
        let items: Vec<Vec<i32>> = by_item
            .iter()
            .filter(|((sc, _, _), r)| *sc == scale.as_str() && r.len() >= 2)
            .map(|(_, r)| r.values().map(|v| v.round() as i32).collect())
            .collect();
        let raters_n = by_item.iter().filter(|((sc, _, _), _)| *sc == scale.as_str()).flat_map(|(_, r)| r.keys()).collect::<BTreeSet<_>>().len();
        let value = simulated_annotator_kappa(&items, lo, hi, KappaWeights::Linear, 1000, 12345);
        agreement.push(ScaleSummary {
            scale,
            statistic: "weighted κ (linear, simulated annotators)".into(),
            value,
            items: items.len(),
            raters: raters_n,
        });
    }
    {
        // Rankings: per segment, every rater's ranks over the runs they all ranked.
        let mut per_seg: BTreeMap<i64, BTreeMap<String, BTreeMap<RunId, f64>>> = BTreeMap::new();
        for ((sc, run, seg), r) in &by_item {
            if *sc == Scale::Rank.as_str() {
                for (rater, v) in r {
                    per_seg.entry(*seg).or_default().entry(rater.clone()).or_default().insert(*run, *v);
                }
            }
        }
        let mut items: Vec<Vec<Vec<f64>>> = Vec::new();
        for raters in per_seg.values() {
            if raters.len() < 2 {
                continue;
            }
            let common: Vec<RunId> = data.systems.iter().map(|s| s.run.id).filter(|r| raters.values().all(|m| m.contains_key(r))).collect();
            if common.len() >= 2 {
                items.push(raters.values().map(|m| common.iter().map(|r| m[r]).collect()).collect());
            }
        }
        let raters_n = per_seg.values().flat_map(|r| r.keys()).collect::<BTreeSet<_>>().len();
        agreement.push(ScaleSummary {
            scale: Scale::Rank,
            statistic: "Kendall τ-b (mean over rater pairs)".into(),
            value: ranking_agreement(&items),
            items: items.len(),
            raters: raters_n,
        });
    }
    let mut agree_t = Table::new(
        "human_agreement",
        "Inter-rater agreement",
        vec![
            Column::new("scale", "Scale"),
            Column::new("statistic", "Statistic"),
            Column::metric("value", "Value", true, 3),
            Column::metric("items", "Items", true, 0),
            Column::metric("raters", "Raters", true, 0),
        ],
    );
    for a in &agreement {
        agree_t.push(
            format!("{}:{}", a.scale, a.statistic),
            vec![
                Cell::text(a.scale.to_string()),
                Cell::text(a.statistic.clone()),
                a.value.map(Cell::num).unwrap_or_else(|| Cell::text("n/a (needs ≥ 2 raters on shared items)")),
                Cell::num(a.items as f64),
                Cell::num(a.raters as f64),
            ],
        )?;
    }

    // ---- automatic metrics vs humans (segment level, mean over raters)
    // Every sentence score the comparison holds, from the metric table.
    let metrics = prep.sentence_metrics();
    let mut corr = Table::new(
        "human_correlation",
        "Spearman ρ between automatic metrics and human ratings (segment level)",
        std::iter::once(Column::new("metric", "Metric"))
            .chain(SCALES.iter().map(|s| Column::metric(s.as_str(), s.as_str(), true, 3)))
            .collect(),
    );
    for m in metrics {
        let mut cells = vec![Cell::text(m.label())];
        for scale in SCALES {
            let (mut auto, mut human) = (Vec::new(), Vec::new());
            for ((sc, run, seg), r) in &by_item {
                if *sc != scale.as_str() {
                    continue;
                }
                let Some(i) = data.systems.iter().position(|s| s.run.id == *run) else { continue };
                let Some(v) = prep.systems[i].sentence.get(&m).and_then(|v| v.get(*seg as usize)).copied() else { continue };
                if v.is_finite() {
                    auto.push(v);
                    human.push(r.values().sum::<f64>() / r.len() as f64);
                }
            }
            let rho = if auto.len() >= 3 { spearman(&auto, &human) } else { None };
            cells.push(match rho {
                Some(r) => Cell::num(r).with_marker(format!("n={}", auto.len()), None),
                None => Cell::empty(),
            });
        }
        corr.push(m.label(), cells)?;
    }
    corr.notes.push("Each human value is the mean over raters of one output on one scale; blank = fewer than 3 rated outputs.".into());

    Ok(HumanSummary { judgments: all.len(), raters, agreement, tables: vec![means, agree_t, corr] })
}
