//! A scripted HTTP/1.1 server on 127.0.0.1 for fault tests: each request gets the next act of the script (an answer,
//! possibly late; a dropped connection; a truncated body). Requests past the script get HTTP 500. One connection per
//! request (`Connection: close`), each served on its own thread, so concurrency is observable. A responder, when
//! given, answers what the script does not (by path and body: per prompt, say), so answers need not follow arrival
//! order.
#![allow(dead_code)]
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone, Debug)]
pub enum Act {
    Respond {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
        delay: Duration,
        echo_prompt: bool,
    },
    /// Closes the connection without a byte of answer.
    Drop,
    /// Announces a longer body than it sends, then closes.
    Truncate(String),
}

impl Act {
    pub fn json(status: u16, body: &str) -> Act {
        Act::Respond {
            status,
            headers: Vec::new(),
            body: body.to_string(),
            delay: Duration::ZERO,
            echo_prompt: false,
        }
    }

    pub fn header(mut self, k: &str, v: &str) -> Act {
        if let Act::Respond { headers, .. } = &mut self {
            headers.push((k.into(), v.into()));
        }
        self
    }

    pub fn delay(mut self, d: Duration) -> Act {
        if let Act::Respond { delay, .. } = &mut self {
            *delay = d;
        }
        self
    }

    /// Answers a completion whose text is the request's prompt (to check that results keep their order).
    pub fn echo_prompt(mut self) -> Act {
        if let Act::Respond { echo_prompt, .. } = &mut self {
            *echo_prompt = true;
        }
        self
    }
}

/// Answers a request the script does not cover, from its path and body.
pub type Responder = fn(&str, &str) -> Act;

/// Routes like a vLLM server serving one Qwen model (no tokenize endpoint): `/models` lists it, a completion is
/// answered by `complete` from its ChatML prompt's last user turn (`None` for the connect-time probes), anything
/// else is a 404.
pub fn vllm_qwen(path: &str, body: &str, complete: impl FnOnce(Option<&str>) -> Act) -> Act {
    if path.ends_with("/models") {
        return Act::json(200, r#"{"data":[{"id":"Qwen/Qwen2.5-7B-Instruct"}]}"#);
    }
    if !path.ends_with("/completions") {
        return Act::json(404, "{}");
    }
    let v: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    complete(last_user_turn(v["prompt"].as_str().unwrap_or_default()))
}

/// The source text of the last user turn of a ChatML prompt (what Registro renders for a Qwen model).
pub fn last_user_turn(prompt: &str) -> Option<&str> {
    let start = prompt.rfind("<|im_start|>user\n")? + "<|im_start|>user\n".len();
    let len = prompt[start..].find("<|im_end|>")?;
    Some(&prompt[start..start + len])
}

/// A completion whose text is `text`.
pub fn completion(text: &str) -> Act {
    Act::json(200, &serde_json::json!({"choices": [{"text": text, "finish_reason": "stop"}]}).to_string())
}

#[derive(Default)]
struct State {
    script: Mutex<Vec<Act>>,
    responder: Option<Responder>,
    requests: AtomicUsize,
    current: AtomicUsize,
    max_concurrent: AtomicUsize,
    last_headers: Mutex<Vec<(String, String)>>,
    bodies: Mutex<Vec<String>>,
    stop: AtomicBool,
}

pub struct FakeServer {
    port: u16,
    state: Arc<State>,
}

impl FakeServer {
    pub fn start(script: Vec<Act>) -> FakeServer {
        Self::start_on(0, script, None)
    }

    /// The script first, then `responder` for every request after it.
    pub fn start_with(script: Vec<Act>, responder: Responder) -> FakeServer {
        Self::start_on(0, script, Some(responder))
    }

    /// On `port` (0: a free one).
    pub fn start_on(port: u16, script: Vec<Act>, responder: Option<Responder>) -> FakeServer {
        let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(State {
            script: Mutex::new(script.into_iter().rev().collect()),
            responder,
            ..Default::default()
        });
        let st = state.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if st.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let st = st.clone();
                std::thread::spawn(move || serve(conn, &st));
            }
        });
        FakeServer { port, state }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn requests(&self) -> usize {
        self.state.requests.load(Ordering::SeqCst)
    }

    pub fn max_concurrent(&self) -> usize {
        self.state.max_concurrent.load(Ordering::SeqCst)
    }

    pub fn last_header(&self, name: &str) -> Option<String> {
        self.state
            .last_headers
            .lock()
            .unwrap()
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }

    /// The request bodies received, in arrival order.
    pub fn bodies(&self) -> Vec<String> {
        self.state.bodies.lock().unwrap().clone()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(mut conn: TcpStream, st: &State) {
    conn.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut headers = Vec::new();
    let mut len = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.trim().split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let mut body = vec![0u8; len.min(1 << 20)];
    let _ = reader.read_exact(&mut body);
    let body = String::from_utf8_lossy(&body).into_owned();
    if st.stop.load(Ordering::SeqCst) {
        return;
    }
    st.requests.fetch_add(1, Ordering::SeqCst);
    let now = st.current.fetch_add(1, Ordering::SeqCst) + 1;
    st.max_concurrent.fetch_max(now, Ordering::SeqCst);
    *st.last_headers.lock().unwrap() = headers;
    st.bodies.lock().unwrap().push(body.clone());
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let scripted = st.script.lock().unwrap().pop();
    let act = scripted
        .or_else(|| st.responder.map(|r| r(&path, &body)))
        .unwrap_or_else(|| Act::json(500, r#"{"error":{"message":"script exhausted"}}"#));
    match act {
        Act::Respond {
            status,
            headers,
            body: answer,
            delay,
            echo_prompt,
        } => {
            std::thread::sleep(delay);
            let answer = if echo_prompt {
                let prompt = serde_json::from_str::<serde_json::Value>(&body)
                    .ok()
                    .and_then(|v| v["prompt"].as_str().map(str::to_string))
                    .unwrap_or_default();
                serde_json::json!({"choices": [{"text": prompt, "logprobs": {"tokens": ["x"], "token_logprobs": [-0.1]}}]}).to_string()
            } else {
                answer
            };
            done(st);
            let mut head = format!("HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n", answer.len());
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = conn.write_all(head.as_bytes());
            let _ = conn.write_all(answer.as_bytes());
        }
        Act::Drop => done(st),
        Act::Truncate(part) => {
            done(st);
            let head = format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", part.len() + 100);
            let _ = conn.write_all(head.as_bytes());
            let _ = conn.write_all(part.as_bytes());
        }
    }
    let _ = conn.flush();
    let _ = conn.shutdown(std::net::Shutdown::Both);
}

/// A request stops counting as in flight before its answer is written: the client may send its next request the
/// moment it reads the answer, and counting down after the write let a loaded machine see one more than the
/// client ever had outstanding.
fn done(st: &State) {
    st.current.fetch_sub(1, Ordering::SeqCst);
}
