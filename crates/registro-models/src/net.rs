//! How downloads reach the network: which certificates are trusted and which proxy carries the connection.
//!
//! Certificates come from the operating system's trust store (on Linux the bundle `openssl-probe` finds, e.g.
//! `/etc/ssl/certs/ca-certificates.crt`; the keychain on macOS; the certificate store on Windows), or from
//! `SSL_CERT_FILE` / `SSL_CERT_DIR` when set, as curl, pip, npm and git do, so a TLS-inspecting proxy whose CA the
//! machine trusts works here too. Proxies come from `HTTPS_PROXY` / `ALL_PROXY` (`HTTP_PROXY` for plain http), with
//! `NO_PROXY` exceptions. The environment is read in [`Network::from_env`] only; everything else takes its settings
//! as arguments, so tests can build a network without touching process-global variables.
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::{anyhow, bail, Result};

/// Where trusted certificates come from.
#[derive(Clone, Debug)]
pub enum Trust {
    /// The operating system's store.
    System,
    /// A PEM bundle and/or a directory of PEM files (what `SSL_CERT_FILE` / `SSL_CERT_DIR` name).
    Paths { file: Option<PathBuf>, dir: Option<PathBuf> },
}

/// Trusted certificates plus proxy settings; cheap to share, built once per process from the environment.
pub struct Network {
    tls: Arc<rustls::ClientConfig>,
    trust: String,
    /// (environment variable or "configured", proxy URL) for https and for http URLs.
    https_proxy: Option<(String, String)>,
    http_proxy: Option<(String, String)>,
    no_proxy: Vec<String>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Network {
    /// `SSL_CERT_FILE` / `SSL_CERT_DIR` (else the system store), `HTTPS_PROXY` … and `NO_PROXY`. Loopback hosts never
    /// go through a proxy from the environment: a proxy cannot reach this machine's loopback interface.
    pub fn from_env() -> Result<Self> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let file = var("SSL_CERT_FILE").map(PathBuf::from);
        let dir = var("SSL_CERT_DIR").map(PathBuf::from);
        let trust = if file.is_some() || dir.is_some() { Trust::Paths { file, dir } } else { Trust::System };
        let mut net = Self::new(&trust)?;
        let first = |names: &[&str]| names.iter().find_map(|n| var(n).map(|v| (n.to_string(), v)));
        net.https_proxy = first(&["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]);
        net.http_proxy = first(&["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]);
        for (var, url) in net.https_proxy.iter().chain(&net.http_proxy) {
            check_proxy(var, url)?;
        }
        let no_proxy = var("NO_PROXY").or_else(|| var("no_proxy")).unwrap_or_default();
        net.no_proxy = parse_no_proxy(&format!("{no_proxy},localhost,127.0.0.1,::1"));
        Ok(net)
    }

    /// No proxy; certificates from `trust`.
    pub fn new(trust: &Trust) -> Result<Self> {
        let (roots, trust) = load_roots(trust)?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| anyhow!("cannot set up TLS: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Self { tls: Arc::new(tls), trust, https_proxy: None, http_proxy: None, no_proxy: Vec::new() })
    }

    /// Sends every request through the HTTP proxy at `url` (`http://[user:pass@]host:port`; https URLs are tunnelled
    /// with CONNECT).
    pub fn with_proxy(mut self, url: &str) -> Result<Self> {
        check_proxy("the proxy", url)?;
        self.https_proxy = Some(("configured".into(), url.to_string()));
        self.http_proxy = self.https_proxy.clone();
        Ok(self)
    }

    /// Hosts reached directly, comma-separated as in `NO_PROXY` (`example.com` also covers its subdomains, `*` all).
    pub fn with_no_proxy(mut self, list: &str) -> Self {
        self.no_proxy = parse_no_proxy(list);
        self
    }

    /// One line for `registro doctor` and error messages: "TLS trust: …; proxy: …".
    pub fn describe(&self) -> String {
        let proxy = match (&self.https_proxy, &self.http_proxy) {
            (None, None) => "none".to_string(),
            (Some((v, u)), _) | (None, Some((v, u))) => format!("{} (from {v})", redact(u)),
        };
        let bypass: Vec<&str> = self.no_proxy.iter().map(String::as_str).collect();
        let bypass = if self.https_proxy.is_some() || self.http_proxy.is_some() {
            format!(", not for {}", bypass.join(","))
        } else {
            String::new()
        };
        format!("TLS trust: {}; proxy: {proxy}{bypass}", self.trust)
    }

    /// The trust store alone, for messages about refused certificates.
    pub fn trust(&self) -> &str {
        &self.trust
    }

    /// The proxy a request to `url` goes through, if any.
    pub fn proxy_for(&self, url: &str) -> Option<&str> {
        let (scheme, rest) = url.split_once("://")?;
        let proxy = if scheme.eq_ignore_ascii_case("https") { &self.https_proxy } else { &self.http_proxy };
        let (_, proxy) = proxy.as_ref()?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let host = host_of(authority.rsplit_once('@').map_or(authority, |(_, h)| h));
        (!self.no_proxy.iter().any(|pattern| bypasses(pattern, &host))).then_some(proxy.as_str())
    }

    pub fn agent(&self, url: &str) -> Result<ureq::Agent> {
        let mut b = ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(20))
            .timeout_read(Duration::from_secs(60))
            .user_agent(concat!("registro/", env!("CARGO_PKG_VERSION")))
            .tls_config(self.tls.clone());
        if let Some(p) = self.proxy_for(url) {
            b = b.proxy(ureq::Proxy::new(p).map_err(|e| anyhow!("proxy {}: {e}", redact(p)))?);
        }
        Ok(b.build())
    }

    /// A transport error in words; a refused certificate says how to make this machine trust it.
    pub fn explain(&self, url: &str, err: &ureq::Transport) -> String {
        let text = err.to_string();
        if !is_certificate_error(err) {
            return format!("network error: {text}");
        }
        let host = url.split_once("://").map_or(url, |(_, r)| r).split('/').next().unwrap_or(url);
        let via = self.proxy_for(url).map(|p| format!(" (through proxy {})", redact(p))).unwrap_or_default();
        format!(
            "{text}: the certificate of {host}{via} is not trusted by this machine's trust store ({}); if you are \
             behind a TLS-inspecting proxy, add its CA to /etc/ssl/certs (update-ca-certificates) or point \
             SSL_CERT_FILE at a bundle containing it",
            self.trust
        )
    }
}

/// The process's network settings from the environment, built on first use.
pub fn global() -> Result<Arc<Network>> {
    static NET: OnceLock<std::result::Result<Arc<Network>, String>> = OnceLock::new();
    NET.get_or_init(|| Network::from_env().map(Arc::new).map_err(|e| format!("{e:#}"))).clone().map_err(|e| anyhow!(e))
}

/// "TLS trust: …; proxy: …" for this process, or why the settings are unusable (for `registro doctor`).
pub fn describe_network() -> String {
    match global() {
        Ok(n) => n.describe(),
        Err(e) => format!("network settings unusable: {e:#}"),
    }
}

pub(crate) fn is_certificate_error(err: &ureq::Transport) -> bool {
    use std::error::Error;
    let mut source = err.source();
    while let Some(s) = source {
        if let Some(rustls::Error::InvalidCertificate(_)) = s.downcast_ref::<rustls::Error>() {
            return true;
        }
        // rustls errors reach ureq wrapped in io::Error, whose `source` skips the payload.
        if let Some(rustls::Error::InvalidCertificate(_)) =
            s.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()).and_then(|e| e.downcast_ref::<rustls::Error>())
        {
            return true;
        }
        source = s.source();
    }
    err.to_string().contains("invalid peer certificate")
}

fn load_roots(trust: &Trust) -> Result<(rustls::RootCertStore, String)> {
    let (result, what) = match trust {
        Trust::System => (rustls_native_certs::load_native_certs(), "the operating system's trust store".to_string()),
        Trust::Paths { file, dir } => {
            for (var, p) in [("SSL_CERT_FILE", file), ("SSL_CERT_DIR", dir)] {
                if let Some(p) = p.as_deref().filter(|p| !p.exists()) {
                    bail!("{var}={}: no such file or directory; unset {var} or point it at your CA bundle", p.display());
                }
            }
            let named: Vec<String> = [("SSL_CERT_FILE", file), ("SSL_CERT_DIR", dir)]
                .iter()
                .filter_map(|(v, p)| p.as_ref().map(|p| format!("{v}={}", p.display())))
                .collect();
            (rustls_native_certs::load_certs_from_paths(file.as_deref(), dir.as_deref()), named.join(", "))
        }
    };
    let mut roots = rustls::RootCertStore::empty();
    let (added, _ignored) = roots.add_parsable_certificates(result.certs);
    let problems: Vec<String> = result.errors.iter().map(|e| e.to_string()).collect();
    if added == 0 {
        if let Trust::Paths { .. } = trust {
            let why = if problems.is_empty() { "no PEM certificate found".to_string() } else { problems.join("; ") };
            bail!("{what}: {why}; point it at a PEM bundle of trusted CAs (or unset it to use the system store)");
        }
        // A minimal container without ca-certificates: public hosts still work with Mozilla's roots.
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        let why = if problems.is_empty() { String::new() } else { format!(": {}", problems.join("; ")) };
        return Ok((roots, format!("Mozilla's roots bundled with Registro, as {what} had no certificates{why}")));
    }
    let skipped = if problems.is_empty() { String::new() } else { format!("; skipped: {}", problems.join("; ")) };
    Ok((roots, format!("{what}, {added} certificates{skipped}")))
}

fn check_proxy(var: &str, url: &str) -> Result<()> {
    if let Some((scheme, _)) = url.split_once("://") {
        if !scheme.eq_ignore_ascii_case("http") {
            bail!("{var}={}: only http:// proxies are supported (https URLs are tunnelled through them with CONNECT)", redact(url));
        }
    }
    ureq::Proxy::new(url).map_err(|e| anyhow!("{var}={}: not a proxy address ({e}); expected http://host:port", redact(url)))?;
    Ok(())
}

/// Proxy URLs may carry a password: never print it.
pub(crate) fn redact(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((_, host)) => format!("{scheme}://***@{host}"),
            None => url.to_string(),
        },
        None => match url.rsplit_once('@') {
            Some((_, host)) => format!("***@{host}"),
            None => url.to_string(),
        },
    }
}

fn parse_no_proxy(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in list.split(',').map(|p| p.trim().trim_start_matches("*.").trim_start_matches('.').to_ascii_lowercase()) {
        let p = if p.starts_with('[') { p } else { host_of(&p) };
        if !p.is_empty() && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// `host:port`, `[v6]:port`, `v6` or `host` → the host, lowercase and without brackets.
fn host_of(authority: &str) -> String {
    let a = authority.trim();
    if let Some(rest) = a.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default().to_ascii_lowercase();
    }
    if a.matches(':').count() > 1 {
        return a.to_ascii_lowercase();
    }
    a.split(':').next().unwrap_or_default().to_ascii_lowercase()
}

fn bypasses(pattern: &str, host: &str) -> bool {
    let pattern = pattern.trim_start_matches('[').trim_end_matches(']');
    pattern == "*" || host == pattern || host.strip_suffix(pattern).is_some_and(|rest| rest.ends_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(no_proxy: &str) -> Network {
        Network::new(&Trust::System).unwrap().with_proxy("http://user:secret@proxy.example:3128").unwrap().with_no_proxy(no_proxy)
    }

    #[test]
    fn no_proxy_matches_hosts_and_their_subdomains_only() {
        let n = net("example.com, .internal.org,10.0.0.1:8080,[::1]");
        assert_eq!(n.proxy_for("https://example.com/x"), None);
        assert_eq!(n.proxy_for("https://cdn.example.com:443/x"), None);
        assert_eq!(n.proxy_for("https://a.internal.org/x"), None);
        assert_eq!(n.proxy_for("http://10.0.0.1/x"), None);
        assert_eq!(n.proxy_for("http://[::1]:8000/x"), None);
        assert!(n.proxy_for("https://notexample.com/x").is_some(), "a suffix that is not a subdomain still uses the proxy");
        assert!(n.proxy_for("https://huggingface.co/x").is_some());
        assert!(net("*").proxy_for("https://huggingface.co/x").is_none());
    }

    #[test]
    fn proxy_passwords_are_never_shown_and_tls_proxies_are_refused_by_name() {
        let d = net("").describe();
        assert!(d.contains("proxy.example:3128") && !d.contains("secret"), "{d}");
        let err = Network::new(&Trust::System).unwrap().with_proxy("https://p.example:443").unwrap_err().to_string();
        assert!(err.contains("only http:// proxies"), "{err}");
    }

    #[test]
    fn a_missing_or_empty_cert_file_is_an_error_naming_the_variable() {
        let err = Network::new(&Trust::Paths { file: Some("/no/such/bundle.pem".into()), dir: None }).unwrap_err();
        assert!(err.to_string().contains("SSL_CERT_FILE=/no/such/bundle.pem: no such file"), "{err}");
        let tmp = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(tmp.path(), "not a certificate\n").unwrap();
        let err = Network::new(&Trust::Paths { file: Some(tmp.path().into()), dir: None }).unwrap_err().to_string();
        assert!(err.contains("no PEM certificate found"), "{err}");
    }
}
