//! Core's modules form layers, each importing only from the ones below it, so no import circle can come back. Cargo
//! enforces the layers between crates (a run's lifecycle in `registro-run` at the bottom, generation in
//! `registro-generate`, evaluation and the Dashboard in `registro-eval`); inside this crate nothing would, so this
//! test does: it reads every module's `crate::…` paths (outside its `#[cfg(test)]` part) and fails on an import of a
//! module in the same or a higher layer, naming the file and the path. A new module must be given a layer here.

use std::collections::BTreeMap;
use std::path::Path;

/// Bottom first. A module may use `crate::m` only for an `m` in a lower layer (or a re-export of another crate:
/// `progress`, `run_state`, `models`, `report`, the data-dir functions).
const LAYERS: &[&[&str]] = &[
    // Facts about languages that every use case reads.
    &["languages"],
    // The use cases over one text: translating (the control layer) and rewriting; `eval` only loads the models
    // of `registro-eval`'s model-based metrics.
    &["translate", "rewrite", "eval"],
    // Checks over a translated run, and the installation report.
    &["qa", "doctor"],
    // Translating a whole document (import, segment, translate, export).
    &["documents"],
    // What a translator does with a stored run: review and export it, re-segment it, resume it.
    &["review", "resegment", "resume"],
    // Projects: import, list and show everything above; the benchmarks, which run the use cases.
    &["projects", "bench"],
];

/// Paths of `crate::` that are other crates re-exported by `lib.rs`, not modules of this crate.
const REEXPORTS: &[&str] = &["progress", "run_state", "models", "report", "shared_data_dir", "data_dir", "set_resource_dir", "device", "pool"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The `crate::<module>` paths of `source` outside its tests, with their line numbers.
fn crate_paths(source: &str) -> Vec<(usize, String)> {
    let product = source.split("#[cfg(test)]").next().unwrap_or(source);
    let mut out = Vec::new();
    for (i, line) in product.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a::X, b};`
                let inner = group.split('}').next().unwrap_or("");
                out.extend(inner.split(',').map(|p| (i + 1, p.trim().split("::").next().unwrap_or("").to_string())));
            } else {
                let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                out.push((i + 1, name));
            }
        }
    }
    out.retain(|(_, m)| !m.is_empty() && m != "self");
    out
}

#[test]
fn every_module_imports_only_from_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files: BTreeMap<String, Vec<std::path::PathBuf>> = BTreeMap::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if name == "lib" {
            continue;
        }
        let group = files.entry(name).or_default();
        if path.is_dir() {
            group.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "rs")));
        } else {
            group.push(path);
        }
    }
    let mut wrong = Vec::new();
    for (module, paths) in &files {
        let Some(own) = layer_of(module) else {
            wrong.push(format!("src/{module}: a module with no layer: add it to LAYERS in tests/layers.rs"));
            continue;
        };
        for path in paths {
            let text = std::fs::read_to_string(path).unwrap();
            for (line, used) in crate_paths(&text) {
                if used == *module || REEXPORTS.contains(&used.as_str()) {
                    continue;
                }
                match layer_of(&used) {
                    Some(l) if l < own => {}
                    Some(_) => wrong.push(format!(
                        "{}:{line}: `{module}` (layer {own}) uses `crate::{used}` (layer {}): only lower layers may be used",
                        path.strip_prefix(&src).unwrap().display(),
                        layer_of(&used).unwrap()
                    )),
                    None => wrong.push(format!("{}:{line}: `crate::{used}` is neither a layered module nor a known re-export", path.display())),
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every layer names modules that exist, so the list cannot silently go stale.
    for m in LAYERS.iter().flat_map(|l| l.iter()) {
        assert!(files.contains_key(*m), "LAYERS names `{m}`, which is not a module of src/");
    }
}

#[test]
fn the_check_sees_an_upward_import() {
    // The parser the test above relies on finds both spellings of a path.
    let found = crate_paths("use crate::{projects::find, qa};\nfn f() { crate::review::open(); }\n#[cfg(test)]\nuse crate::projects;");
    let names: Vec<&str> = found.iter().map(|(_, m)| m.as_str()).collect();
    assert_eq!(names, ["projects", "qa", "review"]);
    assert!(layer_of("projects") > layer_of("translate"));
}
