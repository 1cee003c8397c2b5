// tauri-build reads tauri.conf.json (a link to the one at the repository top level) and capabilities/, and
// generates the permission manifests. The built ui/dist is embedded by `generate_context!`, so give a clear error
// instead of tauri's "frontendDist doesn't exist" when the UI has not been built yet.
fn main() {
    let dist = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist/index.html");
    println!("cargo:rerun-if-changed={}", dist.display());
    if !dist.exists() {
        eprintln!(
            "error: {} is missing; build the web UI first: (cd ui && npm ci && npm run build)",
            dist.display()
        );
        std::process::exit(1);
    }
    tauri_build::build()
}
