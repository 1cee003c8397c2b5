//! The backend's API key in a real OS keyring: a private D-Bus session bus with GNOME Keyring's Secret Service
//! (unlocked with a throwaway password, its files in a temp dir, so the user's own keyring is never touched).
//! `registro backend key set` stores the key read from stdin; `registro translate --backend` then sends it as a
//! bearer token to a scripted server on 127.0.0.1, while the key appears in neither the store file nor any output.
//! `REGISTRO_API_KEY` wins over the keyring, `key clear` removes it, and with no keyring the error says what to do.
#![cfg(unix)]
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

#[path = "../../registro-remote/testsupport/fake.rs"]
mod fake;
use fake::{Act, FakeServer};

const KEY: &str = "sk-keyring-secret-9137";

/// A session bus and GNOME Keyring on it, both killed when the test ends.
struct Session {
    bus: Child,
    keyring: Child,
    address: String,
    home: PathBuf,
}

impl Session {
    fn start(dir: &Path) -> Session {
        let home = dir.join("home");
        let run = dir.join("run");
        for d in [&home, &run] {
            std::fs::create_dir_all(d).unwrap();
            // gnome-keyring refuses a runtime dir others can read.
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700)).unwrap();
        }
        let which = |tool: &str| {
            Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .is_ok_and(|o| o.status.success())
        };
        for tool in ["dbus-daemon", "gnome-keyring-daemon", "dbus-send"] {
            assert!(
                which(tool),
                "{tool} is missing: scripts/setup-system.sh installs dbus and gnome-keyring"
            );
        }
        let address = format!("unix:path={}", dir.join("bus").display());
        // Services the bus activates (a second keyring, were ours slow) get the temp home too, never the user's.
        let bus = Command::new("dbus-daemon")
            .args([
                "--session",
                "--nofork",
                "--nopidfile",
                "--address",
                &address,
            ])
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_RUNTIME_DIR", &run)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting dbus-daemon");
        let t0 = Instant::now();
        while !dir.join("bus").exists() {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "dbus-daemon did not come up"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut keyring = Command::new("gnome-keyring-daemon")
            .args(["--unlock", "--foreground", "--components=secrets"])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_RUNTIME_DIR", &run)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting gnome-keyring-daemon");
        // The login keyring's password, then end of input: it unlocks (creating it) and serves the Secret Service.
        keyring
            .stdin
            .take()
            .unwrap()
            .write_all(b"throwaway")
            .unwrap();
        let s = Session {
            bus,
            keyring,
            address,
            home,
        };
        let t0 = Instant::now();
        loop {
            let owned = Command::new("dbus-send")
                .args([
                    "--session",
                    "--print-reply",
                    "--dest=org.freedesktop.DBus",
                    "/org/freedesktop/DBus",
                    "org.freedesktop.DBus.NameHasOwner",
                    "string:org.freedesktop.secrets",
                ])
                .env("DBUS_SESSION_BUS_ADDRESS", &s.address)
                .output()
                .unwrap();
            if String::from_utf8_lossy(&owned.stdout).contains("boolean true") {
                return s;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "gnome-keyring-daemon did not take the Secret Service name"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// `registro` on this session bus, with `stdin` as its input and no key in the environment.
    fn registro(&self, db: &Path, args: &[&str], stdin: &str, env_key: Option<&str>) -> Output {
        run_registro(
            db,
            args,
            stdin,
            &[
                ("DBUS_SESSION_BUS_ADDRESS", &self.address),
                ("HOME", self.home.to_str().unwrap()),
            ],
            env_key,
        )
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        for c in [&mut self.keyring, &mut self.bus] {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// `registro --db DB ARGS` with `stdin` as its input and no key in the environment unless `env_key`; a run past
/// two minutes (a keyring waiting on a password prompt, say) fails the test instead of stalling it.
fn run_registro(
    db: &Path,
    args: &[&str],
    stdin: &str,
    env: &[(&str, &str)],
    env_key: Option<&str>,
) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_registro"));
    cmd.arg("--db")
        .arg(db)
        .args(args)
        .env_remove("REGISTRO_DB")
        .env_remove("REGISTRO_API_KEY")
        .env_remove("REGISTRO_BACKEND");
    for (k, v) in env {
        cmd.env(k, v);
    }
    if let Some(k) = env_key {
        cmd.env("REGISTRO_API_KEY", k);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg(pid.to_string()).status();
            panic!("registro {args:?} did not finish within 2 minutes");
        }
    }
}

/// An empty folder for one test, removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let d =
            std::env::temp_dir().join(format!("registro-keyring-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A server like vLLM behind a gateway: one model, plain completions, no tokenize endpoint.
fn server() -> FakeServer {
    FakeServer::start_with(vec![], |path, _| {
        if path.ends_with("/models") {
            Act::json(200, r#"{"data":[{"id":"Qwen/Qwen2.5-7B-Instruct"}]}"#)
        } else if path.ends_with("/completions") {
            Act::json(
                200,
                r#"{"choices":[{"text":"Haben Sie morgen Zeit?","finish_reason":"stop"}]}"#,
            )
        } else {
            Act::json(404, "{}")
        }
    })
}

fn translate(s: &Session, db: &Path, url: &str, env_key: Option<&str>) -> Output {
    let args = [
        "translate",
        "--backend",
        url,
        "--lang",
        "de",
        "--register",
        "formal",
        "--controls",
        "prompt,rerank,repair",
        "--n-best",
        "1",
        "Do you have time tomorrow?",
    ];
    s.registro(db, &args, "", env_key)
}

fn contains(path: &Path, needle: &str) -> bool {
    std::fs::read(path).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
}

#[test]
fn a_key_stored_in_the_keyring_is_sent_and_never_written_or_printed() {
    let dir = Scratch::new("sent");
    let session = Session::start(dir.path());
    let db = dir.path().join("registro.db");
    let server = server();
    let url = server.url();

    let set = session.registro(
        &db,
        &["backend", "key", "set", "--url", &url],
        &format!("{KEY}\n"),
        None,
    );
    assert!(set.status.success(), "{}", text(&set));
    assert!(
        text(&set).contains("stored") && !text(&set).contains(KEY),
        "{}",
        text(&set)
    );

    let out = translate(&session, &db, &url, None);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("Haben Sie morgen Zeit?"),
        "{}",
        text(&out)
    );
    assert_eq!(
        server.last_header("authorization").as_deref(),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert!(
        !text(&out).contains(KEY),
        "the key was printed: {}",
        text(&out)
    );
    for f in ["registro.db", "registro.db-wal", "registro.db-shm"] {
        assert!(!contains(&dir.path().join(f), KEY), "the key reached {f}");
    }

    // REGISTRO_API_KEY wins over the keyring.
    let out = translate(&session, &db, &url, Some("sk-from-the-environment"));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        server.last_header("authorization").as_deref(),
        Some("Bearer sk-from-the-environment")
    );

    // Cleared: requests carry no key at all.
    let clear = session.registro(&db, &["backend", "key", "clear", "--url", &url], "", None);
    assert!(
        clear.status.success() && text(&clear).contains("removed"),
        "{}",
        text(&clear)
    );
    let out = translate(&session, &db, &url, None);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(server.last_header("authorization"), None);
    let again = session.registro(&db, &["backend", "key", "clear", "--url", &url], "", None);
    assert!(
        again.status.success() && text(&again).contains("none stored"),
        "{}",
        text(&again)
    );
}

#[test]
fn without_a_keyring_storing_a_key_says_so_and_names_the_environment_variable() {
    let dir = Scratch::new("none");
    let db = dir.path().join("registro.db");
    // A session bus address where nothing listens: no Secret Service can be reached.
    let nowhere = format!("unix:path={}", dir.path().join("no-bus").display());
    let out = run_registro(
        &db,
        &["backend", "key", "set", "--url", "http://127.0.0.1:9/v1"],
        &format!("{KEY}\n"),
        &[
            ("DBUS_SESSION_BUS_ADDRESS", &nowhere),
            ("HOME", dir.path().to_str().unwrap()),
        ],
        None,
    );
    assert!(!out.status.success());
    let t = text(&out);
    assert!(
        t.contains("no OS keyring is available") && t.contains("REGISTRO_API_KEY"),
        "{t}"
    );
    assert!(!t.contains(KEY), "{t}");
    // A blank key is refused before the keyring is asked.
    let blank = run_registro(
        &db,
        &["backend", "key", "set", "--url", "http://127.0.0.1:9/v1"],
        "\n",
        &[],
        None,
    );
    assert!(
        !blank.status.success() && text(&blank).contains("empty"),
        "{}",
        text(&blank)
    );
}
