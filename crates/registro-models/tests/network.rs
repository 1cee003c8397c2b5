//! Downloads over real TLS from a server on 127.0.0.1 whose certificate comes from a CA made up by the test: trusted
//! only when the trust settings name its bundle (as `SSL_CERT_FILE` would), refused with advice otherwise; through a
//! CONNECT proxy unless `NO_PROXY` says not to; and two fetches of one model at the same time.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use registro_models::{FetchEvent, Manifest, ModelManager, ModelState, Network, Trust};

mod common;
use common::{payload, sha};

/// A CA of the test's own and a server certificate for 127.0.0.1 signed by it.
struct Pki {
    ca_pem: String,
    server: Arc<rustls::ServerConfig>,
}

fn pki() -> Pki {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "Registro test proxy CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let leaf_key = KeyPair::generate().unwrap();
    let mut leaf = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    leaf.distinguished_name.push(DnType::CommonName, "localhost");
    leaf.extended_key_usages.push(ExtendedKeyUsagePurpose::ServerAuth);
    let leaf_cert = leaf.signed_by(&leaf_key, &issuer).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let server = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf_cert.der().clone()], key)
        .unwrap();
    Pki { ca_pem: ca_cert.pem(), server: Arc::new(server) }
}

/// An HTTPS server on 127.0.0.1 answering every GET with `body`, sent in 64 KiB pieces `pause` apart. Counts the
/// requests it answered (a handshake the client refuses is not one).
fn serve_https(cfg: Arc<rustls::ServerConfig>, body: Vec<u8>, pause: Duration) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = Arc::new(AtomicUsize::new(0));
    let served2 = served.clone();
    let body = Arc::new(body);
    std::thread::spawn(move || {
        for tcp in listener.incoming() {
            let Ok(tcp) = tcp else { continue };
            let (cfg, body, served) = (cfg.clone(), body.clone(), served2.clone());
            std::thread::spawn(move || {
                let _ = tcp.set_read_timeout(Some(Duration::from_secs(20)));
                let conn = rustls::ServerConnection::new(cfg).unwrap();
                let mut tls = rustls::StreamOwned::new(conn, tcp);
                let mut reader = BufReader::new(&mut tls);
                let mut line = String::new();
                loop {
                    line.clear();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) if line == "\r\n" => break,
                        Ok(_) => {}
                    }
                }
                served.fetch_add(1, Ordering::SeqCst);
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                if tls.write_all(head.as_bytes()).is_err() {
                    return;
                }
                for piece in body.chunks(1 << 16) {
                    if tls.write_all(piece).and_then(|_| tls.flush()).is_err() {
                        return;
                    }
                    std::thread::sleep(pause);
                }
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    (port, served)
}

/// A CONNECT proxy on 127.0.0.1 that logs each tunnel's target.
fn connect_proxy() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(Vec::new()));
    let log2 = log.clone();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { continue };
            let log = log2.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if client.read(&mut byte).unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).to_string();
                let target = head.strip_prefix("CONNECT ").and_then(|r| r.split(' ').next()).unwrap_or("").to_string();
                log.lock().unwrap().push(target.clone());
                let Ok(upstream) = TcpStream::connect(&target) else {
                    let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n");
                    return;
                };
                let _ = client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
                let (mut c2, mut u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                let (mut c1, mut u1) = (client, upstream);
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut u2, &mut c2);
                    let _ = c2.shutdown(std::net::Shutdown::Write);
                });
                let _ = std::io::copy(&mut c1, &mut u1);
                let _ = u1.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    (port, log)
}

fn manifest(url: &str, data: &[u8]) -> Manifest {
    common::tokenizer_manifest("net-demo", data, &format!("kind = \"url\"\nurl = \"{url}\"\n"))
}

fn ca_bundle(dir: &Path, pki: &Pki) -> std::path::PathBuf {
    let p = dir.join("corporate-ca.pem");
    std::fs::write(&p, &pki.ca_pem).unwrap();
    p
}

fn trusting(bundle: &Path) -> Network {
    Network::new(&Trust::Paths { file: Some(bundle.to_path_buf()), dir: None }).unwrap()
}

/// `size` bytes of [`payload`] served by `pki`'s server, `pause` between pieces: the bytes, their URL and how many
/// downloads were served.
fn served_payload(pki: &Pki, size: usize, pause: Duration) -> (Vec<u8>, String, Arc<AtomicUsize>) {
    let data = payload(size);
    let (port, served) = serve_https(pki.server.clone(), data.clone(), pause);
    (data, format!("https://127.0.0.1:{port}/tokenizer.json"), served)
}

/// A manager of the cache `cache` that downloads through `net` and knows the model of `data` at `url`.
fn net_manager(cache: impl Into<std::path::PathBuf>, net: Network, url: &str, data: &[u8]) -> ModelManager {
    ModelManager::new(cache).with_network(net).with_manifest(manifest(url, data))
}

#[test]
fn a_ca_named_by_the_cert_file_is_trusted_and_the_download_verifies() {
    let tmp = tempfile::tempdir().unwrap();
    let pki = pki();
    let (data, url, served) = served_payload(&pki, 300_000, Duration::ZERO);
    let net = trusting(&ca_bundle(tmp.path(), &pki));
    assert!(net.describe().contains("corporate-ca.pem, 1 certificates"), "{}", net.describe());
    let mgr = net_manager(tmp.path().join("cache"), net, &url, &data);
    let mut done = Vec::new();
    let path = mgr
        .fetch("net-demo", &mut |e| if let FetchEvent::Done { sha256, .. } = e { done.push(sha256) }, &AtomicBool::new(false))
        .unwrap();
    assert_eq!(std::fs::read(path).unwrap(), data);
    assert_eq!(done, vec![sha(&data)]);
    assert_eq!(mgr.status("net-demo").unwrap().state, ModelState::Ready);
    assert_eq!(served.load(Ordering::SeqCst), 1);
}

#[test]
fn a_certificate_this_machine_does_not_trust_is_refused_with_the_fix_named() {
    let tmp = tempfile::tempdir().unwrap();
    let pki = pki();
    let (data, url, _served) = served_payload(&pki, 1000, Duration::ZERO);
    // The system store (or any bundle without the test CA) cannot know this CA.
    let mgr = net_manager(tmp.path().join("cache"), Network::new(&Trust::System).unwrap(), &url, &data);
    let start = Instant::now();
    let err = format!("{:#}", mgr.fetch("net-demo", &mut |_| {}, &AtomicBool::new(false)).unwrap_err());
    for want in [
        "UnknownIssuer",
        "127.0.0.1",
        "is not trusted by this machine's trust store",
        "TLS-inspecting proxy",
        "update-ca-certificates",
        "SSL_CERT_FILE",
    ] {
        assert!(err.contains(want), "missing {want:?} in: {err}");
    }
    // Not retried: a refused certificate is refused again, so the user hears at once.
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
    assert!(!tmp.path().join("cache/net-demo/tokenizer.json").exists());
}

#[test]
fn downloads_go_through_the_proxy_unless_no_proxy_names_the_host() {
    let tmp = tempfile::tempdir().unwrap();
    let pki = pki();
    let data = payload(50_000);
    let (port, _) = serve_https(pki.server.clone(), data.clone(), Duration::ZERO);
    let (proxy_port, tunnels) = connect_proxy();
    let bundle = ca_bundle(tmp.path(), &pki);
    let url = format!("https://127.0.0.1:{port}/tokenizer.json");
    let proxied = trusting(&bundle).with_proxy(&format!("http://127.0.0.1:{proxy_port}")).unwrap();
    assert_eq!(proxied.proxy_for(&url), Some(format!("http://127.0.0.1:{proxy_port}").as_str()));
    let mgr = net_manager(tmp.path().join("a"), proxied, &url, &data);
    mgr.fetch("net-demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(*tunnels.lock().unwrap(), vec![format!("127.0.0.1:{port}")]);

    let direct = trusting(&bundle).with_proxy(&format!("http://127.0.0.1:{proxy_port}")).unwrap().with_no_proxy("localhost,127.0.0.1");
    let mgr = net_manager(tmp.path().join("b"), direct, &url, &data);
    let p = mgr.fetch("net-demo", &mut |_| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!(std::fs::read(p).unwrap(), data);
    assert_eq!(tunnels.lock().unwrap().len(), 1, "NO_PROXY host must be reached directly");
}

#[test]
fn two_fetches_of_one_model_at_once_both_succeed_and_download_once() {
    let tmp = tempfile::tempdir().unwrap();
    let pki = pki();
    // ~31 pieces 20 ms apart: the first fetch is still downloading when the second starts.
    let (data, url, served) = served_payload(&pki, 2_000_000, Duration::from_millis(20));
    let bundle = ca_bundle(tmp.path(), &pki);
    let cache = tmp.path().join("cache");
    let results: Vec<(Result<std::path::PathBuf, String>, Vec<FetchEvent>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|i| {
                let (cache, bundle, url, data) = (cache.clone(), bundle.clone(), url.clone(), data.clone());
                s.spawn(move || {
                    std::thread::sleep(Duration::from_millis(150 * i));
                    // Separate managers, as two processes would have.
                    let mgr = net_manager(cache, trusting(&bundle), &url, &data);
                    let mut events = Vec::new();
                    let r = mgr.fetch("net-demo", &mut |e| events.push(e), &AtomicBool::new(false)).map_err(|e| format!("{e:#}"));
                    (r, events)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (r, _) in &results {
        let p = r.as_ref().unwrap();
        assert_eq!(std::fs::read(p).unwrap(), data);
    }
    let waited = &results[1].1;
    assert!(waited.iter().any(|e| matches!(e, FetchEvent::Waiting { id, holder, .. } if id == "net-demo" && holder.starts_with("process "))), "{waited:?}");
    assert!(waited.iter().any(|e| matches!(e, FetchEvent::AlreadyPresent { .. })), "{waited:?}");
    assert_eq!(served.load(Ordering::SeqCst), 1, "the second fetch must find the file, not download it again");
}
