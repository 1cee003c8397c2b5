// Included by the faces' build scripts (crates/registro-cli/build.rs, src-tauri/build.rs): sets REGISTRO_COMMIT to
// the checkout's commit so `registro doctor` and Settings → About can say exactly what was built. Outside a git
// checkout (a source tarball) it is empty. Re-runs when HEAD moves, not on every build.
fn emit_commit() {
    let git = |args: &[&str]| -> Option<String> {
        let out = std::process::Command::new("git").args(args).output().ok()?;
        let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
        (out.status.success() && !s.is_empty()).then_some(s)
    };
    let mut watch = vec![git(&["rev-parse", "--git-path", "HEAD"]), git(&["rev-parse", "--git-path", "packed-refs"])];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch.push(git(&["rev-parse", "--git-path", &branch]));
    }
    // A path that does not exist would make cargo re-run this script on every build.
    for p in watch.into_iter().flatten().filter(|p| std::path::Path::new(p).exists()) {
        println!("cargo:rerun-if-changed={p}");
    }
    let commit = git(&["log", "-1", "--format=%h %cs"]).unwrap_or_default();
    println!("cargo:rustc-env=REGISTRO_COMMIT={commit}");
}
