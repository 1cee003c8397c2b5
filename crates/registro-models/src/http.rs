//! Blocking HTTPS downloads that resume: bytes land in a `.part` file and a retry continues it with an HTTP Range
//! request instead of starting over.
use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use sha2::{Digest, Sha256};

use super::events::{FetchEvent, Meter, Stage};
use super::failure::{Failure, FailureKind};
use super::net::Network;

const ATTEMPTS: usize = 3;

fn request(agent: &ureq::Agent, url: &str) -> ureq::Request {
    let mut req = agent.get(url);
    if let Ok(token) = std::env::var("HF_TOKEN") {
        if url.starts_with(&hf_endpoint()) && !token.is_empty() {
            req = req.set("Authorization", &format!("Bearer {token}"));
        }
    }
    req
}

pub(crate) fn hf_endpoint() -> String {
    std::env::var("HF_ENDPOINT").unwrap_or_else(|_| "https://huggingface.co".into()).trim_end_matches('/').to_string()
}

fn describe(net: &Network, url: &str, err: ureq::Error) -> anyhow::Error {
    match err {
        ureq::Error::Status(code, resp) => {
            Failure::new(FailureKind::Server, format!("HTTP {code} {} from {}", resp.status_text(), resp.get_url())).into()
        }
        ureq::Error::Transport(t) => transport(net, url, &t),
    }
}

fn transport(net: &Network, url: &str, t: &ureq::Transport) -> anyhow::Error {
    let kind = if crate::net::is_certificate_error(t) { FailureKind::Certificate } else { FailureKind::Offline };
    Failure::new(kind, net.explain(url, t)).into()
}

pub(crate) fn get_json(net: &Network, url: &str) -> Result<serde_json::Value> {
    get_json_accept(net, url, "application/json")
}

pub(crate) fn get_json_accept(net: &Network, url: &str, accept: &str) -> Result<serde_json::Value> {
    let resp = request(&net.agent(url)?, url).set("Accept", accept).call().map_err(|e| describe(net, url, e))?;
    let text = resp.into_string().with_context(|| format!("reading {url}"))?;
    serde_json::from_str(&text).with_context(|| format!("{url} did not return JSON"))
}

/// Downloads `url` into `part`, continuing whatever `part` already holds. Returns the sha256 of the whole file
/// (the existing prefix is hashed first) and its length.
pub(crate) fn download(
    net: &Network,
    url: &str,
    part: &Path,
    label: &str,
    expected: Option<u64>,
    sink: &mut dyn FnMut(FetchEvent),
    cancel: &AtomicBool,
) -> Result<(String, u64)> {
    let target = Target { net, agent: net.agent(url)?, url, part, label, expected };
    let mut last_err = None;
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            std::thread::sleep(Duration::from_secs(2 * attempt as u64));
        }
        match download_once(&target, sink, cancel) {
            Ok(r) => return Ok(r),
            Err(e) if cancel.load(Ordering::Relaxed) => return Err(e),
            Err(e) => {
                // Only interrupted transfers are worth retrying; a 404 will be a 404 again.
                let retry = e.downcast_ref::<Retryable>().is_some();
                last_err = Some(e);
                if !retry {
                    break;
                }
            }
        }
    }
    Err(last_err.unwrap_or_else(|| anyhow!("download failed")))
}

/// An interrupted transfer worth another try; when the tries run out, the network is why.
#[derive(Debug)]
pub(crate) struct Retryable(String);
impl std::fmt::Display for Retryable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Retryable {}

/// What one download is of: the file at `url`, written to `part`, `expected` bytes long where that is known.
struct Target<'a> {
    net: &'a Network,
    agent: ureq::Agent,
    url: &'a str,
    part: &'a Path,
    label: &'a str,
    expected: Option<u64>,
}

fn download_once(target: &Target, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<(String, u64)> {
    let Target { net, ref agent, url, part, label, expected } = *target;
    let mut have = std::fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    if let Some(e) = expected {
        if have > e {
            // Longer than the file can be: not a prefix of it.
            std::fs::remove_file(part)?;
            have = 0;
        }
    }
    let mut req = request(agent, url);
    if have > 0 {
        req = req.set("Range", &format!("bytes={have}-"));
    }
    let resp = match req.call() {
        Ok(r) => r,
        Err(ureq::Error::Status(416, _)) if have > 0 && expected.map_or(true, |e| e == have) => {
            // The server has nothing past what we hold: the part file is complete.
            return hash_existing(part, label, sink, cancel).map(|h| (h, have));
        }
        Err(ureq::Error::Status(416, _)) => {
            std::fs::remove_file(part)?;
            return Err(Retryable("server refused to resume; restarting".into()).into());
        }
        // A refused certificate will be refused again: say how to fix it instead of retrying.
        Err(ureq::Error::Transport(t)) if crate::net::is_certificate_error(&t) => return Err(transport(net, url, &t)),
        Err(ureq::Error::Transport(t)) => return Err(Retryable(net.explain(url, &t)).into()),
        Err(e) => return Err(describe(net, url, e)),
    };
    let resumed = resp.status() == 206;
    if !resumed {
        have = 0;
    }
    let remaining: Option<u64> = resp.header("Content-Length").and_then(|v| v.parse().ok());
    let total = remaining.map(|r| r + have).or(expected);
    if let (Some(t), Some(e)) = (total, expected) {
        if t != e {
            bail!("{url} is {t} bytes, the manifest expects {e}");
        }
    }
    let mut hasher = Sha256::new();
    if resumed {
        hash_prefix(part, &mut hasher, label, sink, cancel)?;
    }
    let mut out = OpenOptions::new()
        .create(true)
        .write(true)
        .append(resumed)
        .truncate(!resumed)
        .open(part)
        .with_context(|| format!("cannot write {}", part.display()))?;
    let mut reader = resp.into_reader();
    let mut buf = vec![0u8; 1 << 16];
    let mut done = have;
    let mut meter = Meter::new(label, Stage::Download, total, have, sink);
    loop {
        if cancel.load(Ordering::Relaxed) {
            bail!("cancelled; {} keeps the {done} bytes downloaded so far for the next try", part.display());
        }
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Retryable(format!("download interrupted after {done} bytes: {e}")).into()),
        };
        out.write_all(&buf[..n]).with_context(|| format!("writing {}", part.display()))?;
        hasher.update(&buf[..n]);
        done += n as u64;
        meter.update(done);
    }
    meter.finish(done);
    out.sync_all()?;
    if let Some(t) = total {
        if done < t {
            return Err(Retryable(format!("connection closed after {done} of {t} bytes")).into());
        }
    }
    Ok((hex(&hasher.finalize()), done))
}

fn hash_prefix(path: &Path, hasher: &mut Sha256, label: &str, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<()> {
    let mut f = std::fs::File::open(path)?;
    let total = f.metadata()?.len();
    let mut meter = Meter::new(label, Stage::Hash, Some(total), 0, sink);
    let mut buf = vec![0u8; 1 << 20];
    let mut done = 0u64;
    loop {
        if cancel.load(Ordering::Relaxed) {
            bail!("cancelled");
        }
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        done += n as u64;
        meter.update(done);
    }
    meter.finish(done);
    Ok(())
}

/// sha256 of a whole file with progress.
pub(crate) fn hash_existing(path: &Path, label: &str, sink: &mut dyn FnMut(FetchEvent), cancel: &AtomicBool) -> Result<String> {
    let mut hasher = Sha256::new();
    hash_prefix(path, &mut hasher, label, sink, cancel).with_context(|| format!("hashing {}", path.display()))?;
    Ok(hex(&hasher.finalize()))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
