//! `registro eval --src IN --hyp OUT --metrics acc,sim,…` through the use case both faces call (`run_eval`): the
//! scorers are chosen by the outputs' language — German formality from the register analyzer, not the English
//! regressor — and the stored run keeps Acc and Sim with the signature naming what measured them.

use registro_core::eval::registro_metrics::evaluate::{EvalConfig, MetricName};
use registro_core::eval::registro_metrics::macc::Register;
use registro_core::eval::{load_files, run_eval, EvalFiles};
use registro_core::progress::CancelToken;
use registro_store::Store;

fn write(dir: &std::path::Path, name: &str, lines: &[&str]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

#[test]
fn german_acc_comes_from_the_register_analyzer_and_is_stored_with_its_signature() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "src.en", &["Do you have time tomorrow?", "The weather is nice.", "Can you help me?", "Where do you live?"]);
    // Two formal, one informal, one with no register marker (left out of Acc).
    let hyp = write(dir.path(), "out.de", &["Haben Sie morgen Zeit?", "Das Wetter ist schön.", "Kannst du mir helfen?", "Wo wohnen Sie?"]);
    let files = EvalFiles { hyps: vec![hyp], src: Some(src), register: Some(Register::Formal), ..Default::default() };
    let cfg = EvalConfig { metrics: vec![MetricName::Acc, MetricName::Sim], lang: "de".into(), ..EvalConfig::default() };
    let mut store = Store::open_in_memory().unwrap();
    let out = run_eval(Some(&mut store), "p", &load_files(&files).unwrap(), &cfg, &CancelToken::new(), &mut |_| {}).unwrap();
    let m = out.reports[0].style.as_ref().and_then(|s| s.model.as_ref()).expect("Pang & Gimpel's scores");
    assert!((m.acc.unwrap() - 2.0 / 3.0).abs() < 1e-9, "2 formal of 3 with a marker: {:?}", m.acc);
    // Sim across languages (English source, German output) where the multilingual encoder is installed (the
    // README's test command fetches it), else chrF to the input.
    if registro_core::translate::qe::MeaningCheck::installed().unwrap().is_some() {
        assert!(m.signature.starts_with("acc:register-analyzer(de)|sim:embeddinggemma-300m-cosine"), "{}", m.signature);
        assert!(m.sim.unwrap() > 0.8, "faithful translations are close to their sources: {:?}", m.sim);
    } else {
        assert!(m.signature.starts_with("acc:register-analyzer(de)|sim:chrF"), "{}", m.signature);
    }
    assert!(m.pp.is_none() && m.gm.is_none(), "no language model was asked for");
    let stored = store.corpus_metrics(out.run_ids[0]).unwrap();
    let acc = stored.iter().find(|r| r.metric == "Acc").expect("Acc stored");
    assert!((acc.value - 2.0 / 3.0).abs() < 1e-9);
    assert_eq!(acc.signature.as_deref(), Some(m.signature.as_str()));
    assert!(stored.iter().any(|r| r.metric == "Sim-chrF"));

    // GM without a source cannot have Sim: the error says what is missing instead of a score of 0.
    let no_src = EvalFiles { src: None, ..files };
    let gm = EvalConfig { metrics: vec![MetricName::Gm], lang: "de".into(), ..EvalConfig::default() };
    let e = run_eval(None, "p", &load_files(&no_src).unwrap(), &gm, &CancelToken::new(), &mut |_| {});
    let e = format!("{:#}", e.err().expect("an error"));
    assert!(e.contains("--src") || e.contains("source"), "{e}");
}

#[test]
fn english_acc_uses_the_pt16_regressor() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "src.en", &["gonna grab food, u want some??", "lol thats so dumb"]);
    let hyp = write(dir.path(), "out.en", &["I am going to get some food; would you like some?", "I consider that rather unwise."]);
    let files = EvalFiles { hyps: vec![hyp], src: Some(src), register: Some(Register::Formal), ..Default::default() };
    let cfg = EvalConfig { metrics: vec![MetricName::Acc], lang: "en".into(), ..EvalConfig::default() };
    let out = run_eval(None, "p", &load_files(&files).unwrap(), &cfg, &CancelToken::new(), &mut |_| {}).unwrap();
    let m = out.reports[0].style.as_ref().and_then(|s| s.model.as_ref()).unwrap();
    assert_eq!(m.acc, Some(1.0), "{m:?}");
    assert!(m.signature.starts_with("acc:pt16-lexical(en)"), "{}", m.signature);
}
