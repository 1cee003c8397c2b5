//! The shipped formality scorers: they must order formal above informal text in every language (the surface one
//! zero-shot) and reproduce their PT16 tune correlation when the shared data is present.

use std::path::PathBuf;

use registro_rewrite::scorer::{load_pt16, spearman, Scorer, Variant};
use registro_rewrite::Lang;

fn shared_data() -> Option<PathBuf> {
    let p = std::env::var_os("REGISTRO_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(format!("{}/../../../shared/data", std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))));
    p.join("pt16/tune.csv").exists().then_some(p)
}

#[test]
fn surface_scorer_orders_formal_above_informal_in_all_languages() {
    let mut s = Scorer::builtin(Variant::Surface).expect("built-in surface model");
    let pairs = [
        (Lang::En, "idk why u didnt call me lol!!!", "I do not know why you did not call me."),
        (Lang::Pt, "vc vai na festa hj?? kkkkkk", "Você vai à festa hoje?"),
        (Lang::Fr, "slt ça va ?? jsp si je peux venir dsl mdr", "Je ne sais pas si je pourrai venir, désolé."),
        (Lang::It, "cmq nn lo so xké nn mi ha risp!!!", "Comunque non so perché non mi abbia risposto."),
        (Lang::De, "hab grad keine zeit, vllt morgen!! :)", "Ich habe gerade keine Zeit, vielleicht morgen."),
        (Lang::Es, "q tal?? xq no vienes al finde jajaja", "¿Por qué no viene usted el fin de semana?"),
    ];
    for (lang, informal, formal) in pairs {
        let a = s.score(informal, lang, None).unwrap();
        let b = s.score(formal, lang, None).unwrap();
        assert!(b > a + 0.5, "{lang}: formal {b:.2} should beat informal {a:.2}");
        assert!(a < 0.0, "{lang}: {informal:?} scored {a:.2}");
    }
}

#[test]
fn shipped_models_reach_their_pt16_tune_spearman() {
    let Some(dir) = shared_data() else {
        println!("skipped: PT16 not found (set REGISTRO_SHARED_DATA)");
        return;
    };
    let tune = load_pt16(&dir.join("pt16/tune.csv")).unwrap();
    let gold: Vec<f32> = tune.iter().map(|e| e.label).collect();
    for (v, min) in [(Variant::Surface, 0.65), (Variant::Lexical, 0.68)] {
        let mut s = Scorer::builtin(v).unwrap();
        let pred: Vec<f32> = tune.iter().map(|e| s.score(&e.text, Lang::En, None).unwrap()).collect();
        let rho = spearman(&pred, &gold);
        println!("{} Spearman on PT16 tune: {rho:.4}", v.name());
        assert!(rho >= min, "{}: ρ {rho:.3} < {min}", v.name());
        assert!((rho - s.model.report.tune_spearman).abs() < 1e-3, "weights file report disagrees with a rescore");
    }
}

#[test]
fn bad_csv_reports_file_and_line() {
    let dir = std::env::temp_dir().join(format!("registro-rw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.csv");
    std::fs::write(&p, "SID,label,sentence\n1,0.5,fine\n2,abc,broken\n").unwrap();
    let err = load_pt16(&p).err().expect("must fail").to_string();
    assert!(err.contains("bad.csv:3") && err.contains("abc"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
