//! A real HTTP/1.1 server on 127.0.0.1 serving one file, for the download tests of core and of the window: it
//! answers `Range: bytes=N-` with 206 as a CDN does, can be slowed down (so a test can press Cancel while bytes
//! still arrive) and can drop a connection part-way (a network that fails under a download), and logs what each
//! request asked for.
use std::io::{Read, Seek, SeekFrom, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What is served.
#[derive(Clone)]
pub enum Body {
    Bytes(Arc<Vec<u8>>),
    /// A file on disk, read as requests come (a real model of hundreds of MB is not held in memory).
    File(PathBuf),
}

impl Body {
    fn len(&self) -> u64 {
        match self {
            Body::Bytes(b) => b.len() as u64,
            Body::File(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
        }
    }
}

/// How the server treats its requests, in the order they arrive; requests past the end of a list get the default
/// (full speed, sent whole).
#[derive(Clone, Default)]
pub struct Plan {
    /// Bytes per second of the body of request `i` (`None`: as fast as the socket takes them).
    pub rates: Vec<Option<u64>>,
    /// Close the connection of request `i` after this many body bytes.
    pub cuts: Vec<Option<u64>>,
}

pub struct FileServer {
    pub port: u16,
    /// The URL path the file is served at (`/<name>`).
    pub path: String,
    /// Per request: the `Range` start asked for (`None` for the whole file), in arrival order.
    requests: Arc<Mutex<Vec<Option<u64>>>>,
    /// Body bytes written so far, over all requests.
    sent: Arc<AtomicUsize>,
}

impl FileServer {
    /// Serves `body` at `http://127.0.0.1:<port>/<name>` on a thread per connection until the process ends.
    pub fn start(name: &str, body: Body, plan: Plan) -> FileServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let port = listener.local_addr().unwrap().port();
        let path = format!("/{name}");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let sent = Arc::new(AtomicUsize::new(0));
        let (reqs, sent2, want) = (requests.clone(), sent.clone(), path.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (body, plan, reqs, sent, want) = (body.clone(), plan.clone(), reqs.clone(), sent2.clone(), want.clone());
                std::thread::spawn(move || {
                    let _ = serve_one(stream, &body, &plan, &reqs, &sent, &want);
                });
            }
        });
        FileServer { port, path, requests, sent }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}{}", self.port, self.path)
    }

    /// The `Range` start of each request so far (`None`: the whole file).
    pub fn requests(&self) -> Vec<Option<u64>> {
        self.requests.lock().unwrap().clone()
    }

    pub fn bytes_sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst) as u64
    }
}

fn serve_one(
    mut s: TcpStream,
    body: &Body,
    plan: &Plan,
    log: &Mutex<Vec<Option<u64>>>,
    sent: &AtomicUsize,
    want: &str,
) -> std::io::Result<()> {
    let mut req = Vec::new();
    let mut buf = [0u8; 2048];
    while !req.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = s.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        req.extend_from_slice(&buf[..n]);
    }
    let text = String::from_utf8_lossy(&req).to_string();
    let target = text.split_whitespace().nth(1).unwrap_or("");
    if target != want {
        return s.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    }
    let range = text.lines().find_map(|l| {
        l.to_ascii_lowercase().strip_prefix("range: bytes=").and_then(|r| r.trim().trim_end_matches('-').parse::<u64>().ok())
    });
    let index = {
        let mut log = log.lock().unwrap();
        log.push(range);
        log.len() - 1
    };
    let len = body.len();
    let start = range.unwrap_or(0).min(len);
    if range.is_some() && start >= len {
        return s.write_all(format!("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */{len}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").as_bytes());
    }
    let head = if range.is_some() {
        format!(
            "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {start}-{}/{len}\r\nAccept-Ranges: bytes\r\nConnection: close\r\n\r\n",
            len - start,
            len - 1
        )
    } else {
        format!("HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nAccept-Ranges: bytes\r\nConnection: close\r\n\r\n")
    };
    s.write_all(head.as_bytes())?;
    let rate = plan.rates.get(index).copied().flatten();
    let cut = plan.cuts.get(index).copied().flatten();
    let mut reader: Box<dyn Read> = match body {
        Body::Bytes(b) => Box::new(std::io::Cursor::new(b[start as usize..].to_vec())),
        Body::File(p) => {
            let mut f = std::fs::File::open(p)?;
            f.seek(SeekFrom::Start(start))?;
            Box::new(f)
        }
    };
    let limit = cut.unwrap_or(u64::MAX);
    let t0 = Instant::now();
    let mut written = 0u64;
    let mut chunk = vec![0u8; 64 * 1024];
    while written < limit {
        let room = chunk.len().min((limit - written) as usize);
        let n = reader.read(&mut chunk[..room])?;
        if n == 0 {
            break;
        }
        s.write_all(&chunk[..n])?;
        written += n as u64;
        sent.fetch_add(n, Ordering::SeqCst);
        if let Some(rate) = rate.filter(|r| *r > 0) {
            let due = Duration::from_secs_f64(written as f64 / rate as f64);
            if let Some(wait) = due.checked_sub(t0.elapsed()) {
                std::thread::sleep(wait);
            }
        }
    }
    // A cut connection ends without the rest of the promised body, as a dropped network does.
    let _ = s.flush();
    let _ = s.shutdown(std::net::Shutdown::Both);
    Ok(())
}
