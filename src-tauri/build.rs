// tauri-build reads tauri.conf.json (with tauri.<platform>.conf.json merged over it) and capabilities/, and
// generates the permission manifests, including `allow-<command>` for each of the app's own commands (declaring
// them switches on Tauri's ACL for app commands: one not granted in capabilities/ is refused). The built ui/dist is embedded by `generate_context!`, so give a clear error
// instead of tauri's "frontendDist doesn't exist" when the UI has not been built yet.
fn main() {
    // Read at run time: cargo names build-script artifacts without the checkout's path, so a compiled-in
    // `env!` path can belong to another clone sharing the target dir (CI's cache) and point nowhere.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for build scripts");
    let dist = std::path::Path::new(&manifest_dir).join("../ui/dist/index.html");
    println!("cargo:rerun-if-changed={}", dist.display());
    if !dist.exists() {
        eprintln!(
            "error: {} is missing; build the web UI first: (cd ui && npm install && npm run build)",
            dist.display()
        );
        std::process::exit(1);
    }
    println!("cargo:rerun-if-changed=src/command_list.rs");
    emit_commit();
    let manifest = tauri_build::AppManifest::new().commands(COMMANDS);
    if let Err(e) = tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest)) {
        eprintln!("error: tauri-build failed: {e:#}");
        std::process::exit(1);
    }
}

include!("src/command_list.rs");
include!("../scripts/build_commit.rs");
