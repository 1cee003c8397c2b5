//! The UI's TypeScript types (`ui/src/bindings/`) are generated from the Rust types that cross the IPC, so a field
//! renamed, retyped or removed on one side breaks `tsc` on the other instead of a click in the window.
//!
//! `cargo test -p registro-app --test ts_bindings` rewrites `ui/src/bindings/`. With `REGISTRO_TS_CHECK=1` (set by
//! `scripts/test.sh`, so in CI) it writes nothing and fails when a checked-in file differs from what the Rust
//! types give, naming the file and the command that regenerates it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ts_rs::{Config, TypeVisitor, TS};

const REGENERATE: &str = "cargo test -p registro-app --test ts_bindings";

/// Every type a command in `src-tauri/src/commands/*.rs` takes or returns (and the `Progress` its channel carries);
/// what they contain is found by following their fields. `every_command_type_is_exported` keeps this list
/// complete.
fn visit_roots(v: &mut Generator) {
    use registro_app::commands::{dashboard, projects, translate, AppInfo};
    use registro_app::files::{Chosen, Purpose};
    use registro_app::startup::Problem;
    use registro_core::progress::Progress;
    use registro_core::projects::{ImportOptions, ImportSummary, RunDetail, SegmentRow};
    use registro_core::report::{
        CompareOptions, CompareRequest, Comparison, DrillOptions, DrillPage, HumanSummary, Rating, RatingItem,
        ReportFiles, RunPage, RunQuery, RunSummary,
    };
    use registro_core::rewrite::{RewriteOutcome, SentenceResult, Weights};
    use registro_core::review::ReviewRun;
    use registro_core::translate::{SegmentCheck, SegmentOut};
    use registro_core::qa::QaOutcome;
    use registro_store::{Document, Project, Run};

    // The shell and projects.
    v.root::<AppInfo>();
    v.root::<registro_core::languages::Language>();
    v.root::<registro_app::commands::about::AboutReport>();
    v.root::<Problem>();
    v.root::<Purpose>();
    v.root::<Chosen>();
    v.root::<Progress>();
    v.root::<Project>();
    v.root::<Document>();
    v.root::<SegmentRow>();
    v.root::<ImportOptions>();
    v.root::<ImportSummary>();
    v.root::<projects::RunQuery>();
    v.root::<Run>();
    v.root::<RunDetail>();
    v.root::<registro_core::resume::ResumeOutcome>();
    v.root::<registro_core::run_state::RunState>();
    v.root::<registro_core::run_state::RunRow>();
    v.root::<registro_app::commands::backends::BackendStatus>();
    // Dashboard.
    v.root::<RunQuery>();
    v.root::<RunSummary>();
    v.root::<RunPage>();
    v.root::<dashboard::ImportOutcome>();
    v.root::<CompareRequest>();
    v.root::<CompareOptions>();
    v.root::<Comparison>();
    v.root::<registro_core::report::Table>();
    v.root::<DrillOptions>();
    v.root::<DrillPage>();
    v.root::<RatingItem>();
    v.root::<Rating>();
    v.root::<HumanSummary>();
    v.root::<ReportFiles>();
    v.root::<registro_core::eval::EvalRequest>();
    v.root::<dashboard::DashboardDefaults>();
    // Rewrite.
    v.root::<registro_core::rewrite::RewriteRequest>();
    v.root::<registro_core::rewrite::RewriteSource>();
    v.root::<Weights>();
    v.root::<RewriteOutcome>();
    v.root::<SentenceResult>();
    v.root::<registro_core::rewrite::StoredRewrite>();
    v.root::<registro_core::rewrite::RewriteChoice>();
    // Translate.
    v.root::<registro_core::translate::TranslateRequest>();
    v.root::<registro_core::translate::TranslateSource>();
    v.root::<translate::TranslateOutcome>();
    v.root::<SegmentOut>();
    v.root::<SegmentCheck>();
    v.root::<ReviewRun>();
    v.root::<registro_core::review::RepairOutcome>();
    v.root::<registro_store::ReviewOverride>();
    v.root::<registro_core::resegment::Resegmented>();
    v.root::<QaOutcome>();
    // Models: the setup card and Settings → Models.
    v.root::<registro_core::models::FirstStart>();
    v.root::<registro_core::models::ModelSummary>();
    v.root::<registro_core::models::DownloadProgress>();
    v.root::<registro_core::models::Downloaded>();
    v.root::<registro_core::models::Verified>();
    v.root::<registro_core::models::Removed>();
}

/// Collects one file per type (its path under `ui/src/bindings/` → contents), following dependencies.
struct Generator {
    cfg: Config,
    files: BTreeMap<PathBuf, Generated>,
    /// Rust names of the root types, for the completeness check.
    roots: BTreeSet<String>,
    errors: Vec<String>,
}

struct Generated {
    rust_name: &'static str,
    ts_name: String,
    text: String,
}

impl Generator {
    fn new() -> Self {
        // i64 ids and counts cross the IPC as JSON numbers, which JavaScript reads as `number`, not `bigint`.
        let cfg = Config::new().with_large_int("number");
        Generator { cfg, files: BTreeMap::new(), roots: BTreeSet::new(), errors: Vec::new() }
    }

    fn root<T: TS + 'static>(&mut self) {
        let name = std::any::type_name::<T>();
        self.roots.insert(name.rsplit("::").next().unwrap_or(name).to_string());
        self.visit::<T>();
    }

    /// Every file, plus `index.ts` re-exporting every type so views import from one place.
    fn finish(mut self) -> Result<BTreeMap<PathBuf, String>, String> {
        if !self.errors.is_empty() {
            return Err(self.errors.join("\n"));
        }
        let mut index = String::from(
            "// Generated by src-tauri/tests/ts_bindings.rs from the Rust types that cross the IPC. Do not edit: \
             run `cargo test -p registro-app --test ts_bindings`.\n",
        );
        for (path, g) in &self.files {
            let module = path.with_extension("");
            index.push_str(&format!("export type {{ {} }} from './{}';\n", g.ts_name, module.display()));
        }
        let mut out: BTreeMap<PathBuf, String> =
            std::mem::take(&mut self.files).into_iter().map(|(p, g)| (p, g.text)).collect();
        // Data as well as types: every language with its registers and capabilities, from core's one list, so the
        // views hold no language list of their own.
        index.push_str("export { LANGUAGES } from './all-languages';\n");
        out.insert(PathBuf::from("all-languages.ts"), languages_module());
        out.insert(PathBuf::from("index.ts"), index);
        Ok(out)
    }
}

impl TypeVisitor for Generator {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        let Some(path) = T::output_path() else { return };
        let rust_name = std::any::type_name::<T>();
        let text = match T::export_to_string(&self.cfg) {
            Ok(t) => t,
            Err(e) => {
                self.errors.push(format!("{rust_name}: {e}"));
                return;
            }
        };
        if let Some(seen) = self.files.get(&path) {
            // Two Rust types with one TypeScript name would share a file and one of them would be lost. (Aliases
            // such as serde_json's `Value` and ts-rs's stand-in for it give the same text: no clash.)
            if seen.text != text {
                self.errors.push(format!(
                    "{} and {} are both exported as {}: give one a #[ts(rename = \"…\")]",
                    seen.rust_name,
                    rust_name,
                    path.display()
                ));
            }
            return;
        }
        self.files.insert(path, Generated { rust_name, ts_name: T::ident(&self.cfg), text });
        T::visit_dependencies(self);
    }
}

/// `LANGUAGES`: core's `languages()` as a constant of the generated `Language` type.
fn languages_module() -> String {
    let list = serde_json::to_string_pretty(&registro_core::languages::languages()).expect("languages serialise");
    format!(
        "// Generated by src-tauri/tests/ts_bindings.rs from registro_core::languages::languages(). Do not edit: run \
         `{REGENERATE}`.\nimport type {{ Language }} from './Language';\n\n/** Every language, English first, with its \
         registers and what Registro can do with it. */\nexport const LANGUAGES: readonly Language[] = {list};\n"
    )
}

fn generate() -> Result<BTreeMap<PathBuf, String>, String> {
    let mut g = Generator::new();
    visit_roots(&mut g);
    g.finish()
}

fn bindings_dir() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("../ui/src/bindings")
}

/// Every `.ts` file under `dir`, relative to it.
fn ts_files(dir: &Path) -> BTreeSet<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.extension().is_some_and(|x| x == "ts") {
                out.insert(p.strip_prefix(root).expect("under root").to_path_buf());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

/// What differs between the files in `dir` and `generated`, one line per file.
fn differences(dir: &Path, generated: &BTreeMap<PathBuf, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, text) in generated {
        let path = dir.join(rel);
        match std::fs::read_to_string(&path) {
            Ok(old) if old == *text => {}
            Ok(_) => out.push(format!("{} is stale (its Rust type changed)", path.display())),
            Err(_) => out.push(format!("{} is missing (a new type crosses the IPC)", path.display())),
        }
    }
    for rel in ts_files(dir) {
        if !generated.contains_key(&rel) {
            out.push(format!("{} is left over (no Rust type gives it any more)", dir.join(rel).display()));
        }
    }
    out
}

/// Makes `dir` hold exactly `generated` (leftover files of types that no longer cross the IPC are removed).
fn write(dir: &Path, generated: &BTreeMap<PathBuf, String>) -> std::io::Result<()> {
    for rel in ts_files(dir) {
        if !generated.contains_key(&rel) {
            std::fs::remove_file(dir.join(rel))?;
        }
    }
    for (rel, text) in generated {
        let path = dir.join(rel);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::create_dir_all(path.parent().expect("a file in a folder"))?;
            std::fs::write(&path, text)?;
        }
    }
    Ok(())
}

#[test]
fn bindings_are_current() {
    let generated = generate().unwrap_or_else(|e| panic!("{e}"));
    let dir = bindings_dir();
    if std::env::var("REGISTRO_TS_CHECK").is_ok_and(|v| v == "1") {
        let diff = differences(&dir, &generated);
        assert!(
            diff.is_empty(),
            "the UI's TypeScript bindings disagree with the Rust types:\n  {}\nregenerate them with `{REGENERATE}`, \
             fix what `cd ui && npx tsc --noEmit` then reports, and commit ui/src/bindings/",
            diff.join("\n  ")
        );
    } else {
        write(&dir, &generated).unwrap_or_else(|e| panic!("writing {}: {e}", dir.display()));
        assert!(differences(&dir, &generated).is_empty());
    }
}

#[test]
fn check_mode_names_every_stale_missing_and_leftover_file() {
    let generated = generate().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), &generated).unwrap();
    assert!(differences(tmp.path(), &generated).is_empty());

    let run = tmp.path().join("Run.ts");
    let old = std::fs::read_to_string(&run).unwrap();
    std::fs::write(&run, old.replace("status: RunStatus", "status: string")).unwrap();
    std::fs::remove_file(tmp.path().join("Project.ts")).unwrap();
    std::fs::write(tmp.path().join("Gone.ts"), "export type Gone = number;\n").unwrap();
    let diff = differences(tmp.path(), &generated).join("\n");
    assert!(diff.contains("Run.ts is stale"), "{diff}");
    assert!(diff.contains("Project.ts is missing"), "{diff}");
    assert!(diff.contains("Gone.ts is left over"), "{diff}");

    write(tmp.path(), &generated).unwrap();
    assert!(differences(tmp.path(), &generated).is_empty(), "writing again repairs the folder");
    assert!(!tmp.path().join("Gone.ts").exists());
}

/// The serde attributes that decide the JSON shape are the ones the TypeScript declares: spot checks of the
/// shapes the views depend on.
#[test]
fn bindings_follow_serde() {
    let g = generate().unwrap();
    let file = |name: &str| g.get(Path::new(name)).unwrap_or_else(|| panic!("no {name}")).clone();
    // Flattened run fields sit beside the summary's own.
    let summary = file("RunSummary.ts");
    assert!(
        summary.contains("project: string, document: string | null, id: number")
            && summary.contains("status: RunStatus"),
        "{summary}"
    );
    // Lower-case enum names, as serde writes them.
    assert!(file("RunStatus.ts").contains(r#""queued" | "running" | "done" | "failed" | "cancelled""#));
    assert!(file("Label.ts").contains(r#""FORMAL" | "INFORMAL" | "NEUTRAL" | "MIXED""#));
    // Charts are told apart by `kind`.
    assert!(file("Chart.ts").contains(r#"{ "kind": "bars" } & BarChart"#), "{}", file("Chart.ts"));
    // Omitted-when-empty cells are optional, not null.
    assert!(file("Cell.ts").contains("value?: number"), "{}", file("Cell.ts"));
    // Arguments with serde defaults may be left out.
    assert!(file("CompareOptions.ts").contains("bootstrap?: number"), "{}", file("CompareOptions.ts"));
    // A request's options sit beside its own fields, as serde flattens them; the window's language list is data.
    assert!(file("TranslateRequest.ts").contains("contrastive: boolean, lang: Lang, register: Register"), "{}", file("TranslateRequest.ts"));
    assert!(file("all-languages.ts").contains(r#""code": "ja""#), "{}", file("all-languages.ts"));
    // Ids are plain numbers.
    assert!(file("Project.ts").contains("id: number"), "{}", file("Project.ts"));
}

/// A command that starts taking or returning a new type must add it to `visit_roots`, or the UI would keep a
/// hand-written guess of it.
#[test]
fn every_command_type_is_exported() {
    let mut g = Generator::new();
    visit_roots(&mut g);
    // Tauri's own parameters, containers and the i64 id aliases (plain numbers in TypeScript).
    let not_data: BTreeSet<&str> = [
        "State",
        "AppState",
        "AppHandle",
        "Channel",
        "CmdResult",
        "Vec",
        "Option",
        "String",
        "HashMap",
        "ProjectId",
        "DocumentId",
        "RunId",
    ]
    .into();
    let dir = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("src/commands");
    let mut missing = Vec::new();
    let mut commands = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let src = std::fs::read_to_string(&path).unwrap();
        for (i, _) in src.match_indices("#[tauri::command") {
            let rest = &src[i..];
            let start = rest.find(" fn ").expect("a command is a function");
            let end = start + rest[start..].find('{').expect("a function body");
            let signature = &rest[start..end];
            commands += 1;
            for word in signature.split(|c: char| !c.is_alphanumeric() && c != '_') {
                if word.starts_with(|c: char| c.is_ascii_uppercase())
                    && !not_data.contains(word)
                    && !g.roots.contains(word)
                {
                    missing.push(format!("{}: {word} in `{}`", path.display(), signature.trim()));
                }
            }
        }
    }
    assert!(commands > 20, "found only {commands} commands in {}", dir.display());
    assert!(
        missing.is_empty(),
        "types that cross the IPC but have no TypeScript binding (add them to visit_roots):\n{}",
        missing.join("\n")
    );
}
