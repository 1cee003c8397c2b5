//! llama-cpp-python's OpenAI-compatible server (pinned in scripts/test.sh, built once into
//! ~/.cache/registro/venv-llama) on 127.0.0.1, for the tests that check the remote backend against a real server:
//! core's, and the window's Settings → Backends.
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running server, killed when dropped so a failed test leaves no process behind.
pub struct LlamaServer {
    child: Child,
    pub port: u16,
}

impl LlamaServer {
    /// Starts the server on `gguf` at `port` (0: a free one), its log `llama-server-PORT.log` in `log_dir`, and
    /// waits until it lists its model (at most 90 s).
    pub fn start(gguf: &Path, port: u16, log_dir: &Path) -> LlamaServer {
        let port = if port == 0 { crate::free_port() } else { port };
        let log = &log_dir.join(format!("llama-server-{port}.log"));
        let py = python();
        assert!(py.exists(), "{} is missing: scripts/test.sh installs llama-cpp-python[server] there", py.display());
        // The server logs a lot while loading; a pipe nobody reads would fill and stall it.
        let log_file = std::fs::File::create(log).unwrap();
        let child = Command::new(py)
            .args(["-m", "llama_cpp.server", "--host", "127.0.0.1", "--n_ctx", "4096", "--n_threads", "2", "--port"])
            .arg(port.to_string())
            .arg("--model")
            .arg(gguf)
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .expect("starting llama_cpp.server");
        let mut s = LlamaServer { child, port };
        let t0 = Instant::now();
        loop {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() && answers(&format!("{}/models", s.url())) {
                return s;
            }
            if let Ok(Some(status)) = s.child.try_wait() {
                let err = std::fs::read_to_string(log).unwrap_or_default();
                panic!("llama_cpp.server exited ({status}): {err}");
            }
            assert!(t0.elapsed() < Duration::from_secs(90), "llama_cpp.server did not come up in 90 s");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The OpenAI-compatible API base.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `REGISTRO_LLAMA_PYTHON`, else the venv scripts/test.sh builds.
fn python() -> PathBuf {
    std::env::var_os("REGISTRO_LLAMA_PYTHON")
        .map(Into::into)
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/registro/venv-llama/bin/python"))
}


/// Whether `url` answers 2xx within 2 s (curl: this crate carries no HTTP client).
fn answers(url: &str) -> bool {
    Command::new("curl").args(["-sf", "-m", "2", url]).stdout(Stdio::null()).status().is_ok_and(|s| s.success())
}
