//! Whether model downloads can reach each kind of source from here, through the same trust store and proxy a
//! fetch uses (for `registro doctor`). One HEAD request per host, all at once, each bounded in time; any HTTP answer
//! counts as reachable (the TLS handshake and the proxy worked), only a transport failure does not.
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::manifest::Source;
use crate::net::Network;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Endpoint {
    /// What downloads from it: "Hugging Face", "PyPI", "npm", or a manifest's URL host.
    pub source: String,
    pub url: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Reach {
    pub source: String,
    pub url: String,
    pub reachable: bool,
    /// "HTTP 200 in 85 ms", or the transport error in words (a refused certificate names the trust store).
    pub detail: String,
}

/// The hosts the shipped source kinds download from (honouring `HF_ENDPOINT`, `PIP_INDEX_URL`,
/// `NPM_CONFIG_REGISTRY` as the fetchers do), plus the hosts of `Url` sources in `sources`.
pub fn endpoints<'a>(sources: impl IntoIterator<Item = &'a Source>) -> Vec<Endpoint> {
    let origin = |url: &str| -> String {
        let (scheme, rest) = url.split_once("://").unwrap_or(("https", url));
        format!("{scheme}://{}/", rest.split(['/', '?', '#']).next().unwrap_or_default())
    };
    let env = |k: &str, default: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty()).unwrap_or(default.into());
    let index = env("PIP_INDEX_URL", "https://pypi.org/simple");
    let mut out = vec![
        Endpoint { source: "Hugging Face".into(), url: origin(&crate::http::hf_endpoint()) },
        Endpoint { source: "PyPI".into(), url: origin(&index) },
        Endpoint { source: "npm".into(), url: origin(&env("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org")) },
    ];
    // pypi.org lists wheels that live on its files host; another index serves its own files (or names them).
    if origin(&index) == "https://pypi.org/" {
        out.insert(2, Endpoint { source: "PyPI files".into(), url: "https://files.pythonhosted.org/".into() });
    }
    for s in sources {
        if let Source::Url { url } = s {
            let url = origin(url);
            if !out.iter().any(|e| e.url == url) {
                out.push(Endpoint { source: format!("URL {url}"), url });
            }
        }
    }
    out
}

/// Asks every endpoint at once; the whole check takes at most about `timeout`.
pub fn check(net: &Network, endpoints: &[Endpoint], timeout: Duration) -> Vec<Reach> {
    std::thread::scope(|s| {
        let handles: Vec<_> = endpoints.iter().map(|e| s.spawn(move || check_one(net, e, timeout))).collect();
        handles
            .into_iter()
            .zip(endpoints)
            .map(|(h, e)| {
                h.join().unwrap_or_else(|_| Reach {
                    source: e.source.clone(),
                    url: e.url.clone(),
                    reachable: false,
                    detail: "the check failed unexpectedly".into(),
                })
            })
            .collect()
    })
}

fn check_one(net: &Network, e: &Endpoint, timeout: Duration) -> Reach {
    let t0 = Instant::now();
    let answer = net.agent(&e.url).map(|agent| agent.head(&e.url).timeout(timeout).call());
    let ms = t0.elapsed().as_millis();
    let (reachable, detail) = match answer {
        Ok(Ok(resp)) => (true, format!("HTTP {} in {ms} ms", resp.status())),
        Ok(Err(ureq::Error::Status(code, _))) => (true, format!("HTTP {code} in {ms} ms")),
        Ok(Err(ureq::Error::Transport(t))) => (false, net.explain(&e.url, &t)),
        Err(err) => (false, format!("{err:#}")),
    };
    let via = net.proxy_for(&e.url).map(|p| format!(" (through proxy {})", crate::net::redact(p))).unwrap_or_default();
    Reach { source: e.source.clone(), url: e.url.clone(), reachable, detail: format!("{detail}{via}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answering_server_is_reachable_and_a_closed_port_is_not() {
        // A real HTTP server on loopback answering one request with 404: still reachable.
        let (port, server) = registro_testkit::one_404_server();
        let closed_port = registro_testkit::free_port();
        let net = Network::new(&crate::Trust::System).unwrap();
        let eps = [
            Endpoint { source: "up".into(), url: format!("http://127.0.0.1:{port}/") },
            Endpoint { source: "down".into(), url: format!("http://127.0.0.1:{closed_port}/") },
        ];
        let r = check(&net, &eps, Duration::from_secs(5));
        server.join().unwrap();
        assert!(r[0].reachable && r[0].detail.starts_with("HTTP 404"), "{r:?}");
        assert!(!r[1].reachable && r[1].detail.contains("network error"), "{r:?}");
    }

    #[test]
    fn url_sources_add_their_hosts_once() {
        let s = [
            Source::Url { url: "https://example.org/a/b.gguf".into() },
            Source::Url { url: "https://example.org/c".into() },
            Source::Npm { package: "x".into(), version: "1".into(), member: "m".into() },
        ];
        let e = endpoints(&s);
        assert_eq!(e.iter().filter(|e| e.url == "https://example.org/").count(), 1);
        assert!(e.iter().any(|e| e.source == "PyPI") && e.iter().any(|e| e.source == "npm"));
    }
}
