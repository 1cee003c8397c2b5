//! A small W3C WebDriver client for driving the real Registro window through tauri-driver, and the helpers the
//! end-to-end tests share (finding the built app, deciding whether the environment can run them).
//!
//! The tests in `tests/` start one app per WebDriver session; closing the session closes the app. They need a
//! running `tauri-driver` (which starts WebKitWebDriver) and a display: `scripts/e2e.sh` provides both under Xvfb.
//! Without them a test prints `skipped: …` and passes, unless `REGISTRO_E2E_REQUIRED=1` (set by `scripts/e2e.sh`),
//! where a missing piece is a failure.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

pub type Result<T> = std::result::Result<T, String>;

/// The W3C key of an element reference in JSON.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The driver's URL: `REGISTRO_E2E_DRIVER` or tauri-driver's default port.
pub fn driver_url() -> String {
    std::env::var("REGISTRO_E2E_DRIVER").unwrap_or_else(|_| "http://127.0.0.1:4444".to_string())
}

/// The built app: `REGISTRO_APP_BIN`, else `registro-app` next to the test binary's `deps/` folder (the same
/// cargo target dir and profile the tests were built with).
pub fn app_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("REGISTRO_APP_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    // <target>/<profile>/deps/<test>-<hash> → <target>/<profile>/registro-app
    let profile_dir = exe.parent().and_then(Path::parent).map(Path::to_path_buf).unwrap_or_default();
    profile_dir.join(if cfg!(windows) { "registro-app.exe" } else { "registro-app" })
}

/// Why the e2e tests cannot run here, if they cannot: no display, no driver, or no built app.
pub fn unavailable_reason() -> Option<String> {
    if cfg!(target_os = "linux") && std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        return Some("no display (DISPLAY is unset); run scripts/e2e.sh, which starts Xvfb".into());
    }
    let url = driver_url();
    let status = ureq::get(&format!("{url}/status")).timeout(Duration::from_secs(3)).call();
    if let Err(e) = status {
        // tauri-driver answers /status by forwarding to WebKitWebDriver; any HTTP answer means it is up.
        if !matches!(e, ureq::Error::Status(..)) {
            return Some(format!("tauri-driver is not reachable at {url} ({e}); run scripts/e2e.sh"));
        }
    }
    let app = app_binary();
    if !app.is_file() {
        return Some(format!(
            "the app is not built at {}; build it with (cd ui && npm run build) && cargo build -p registro-app",
            app.display()
        ));
    }
    None
}

/// Returns true when the test should go on; prints a visible `skipped: …` and returns false when the environment
/// cannot run it. Panics instead when `REGISTRO_E2E_REQUIRED=1`.
pub fn ready_or_skip(test: &str) -> bool {
    match unavailable_reason() {
        None => true,
        Some(reason) if std::env::var("REGISTRO_E2E_REQUIRED").is_ok_and(|v| v == "1") => {
            panic!("{test}: cannot run: {reason}")
        }
        Some(reason) => {
            // Written to the stderr handle, not with eprintln!, so the test harness does not swallow it.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "skipped: {test}: {reason}");
            false
        }
    }
}

/// [`ready_or_skip`], and then whether the local model `model` is in the model cache: a missing one is a visible
/// `skipped: …` saying how to fetch it.
pub fn ready_with_model_or_skip(test: &str, model: &str) -> bool {
    if !ready_or_skip(test) {
        return false;
    }
    if registro_core::models::resolve_llm(model).is_err() {
        println!("skipped: {model} is not downloaded (registro models fetch {model})");
        return false;
    }
    true
}

/// The app's arguments for a session on `db` whose file dialogs are answered, in order, by `answers` (`None` =
/// the user cancels): the native dialog cannot be driven through WebDriver, so the app reads the answers from a
/// file named on its command line (nothing in the page can add any). The file is written into `dir`.
pub fn app_args(db: &Path, dir: &Path, answers: &[Option<&Path>]) -> Vec<String> {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = dir.join(format!("dialog-answers-{n}.json"));
    let list: Vec<Value> = answers.iter().map(|a| a.map_or(Value::Null, |p| json!(p))).collect();
    std::fs::write(&file, serde_json::to_string(&list).expect("json")).expect("write the dialog answers");
    vec!["--db".into(), db.display().to_string(), "--e2e-dialog-answers".into(), file.display().to_string()]
}

/// Where a test writes its screenshot `name`: `tests/e2e/screenshots/` (looked at by a person after each change).
pub fn screenshot_path(name: &str) -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("screenshots").join(name)
}

/// A temp folder holding `registro.db` with one project named `project`, the store most window tests open the app
/// on. The folder goes when the returned guard is dropped.
pub fn temp_project(project: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("registro.db");
    registro_store::Store::open(&db).expect("a new store").create_project(project).expect("the project is created");
    (dir, db)
}

/// Polls `ok` every 150 ms until it holds; panics naming `what` after `timeout`.
pub fn wait_until(what: &str, timeout: Duration, mut ok: impl FnMut() -> bool) {
    let t0 = std::time::Instant::now();
    while !ok() {
        assert!(t0.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// WebDriver's codes for keys that are not characters (W3C WebDriver, "keyboard actions").
pub mod keys {
    pub const ENTER: &str = "\u{E007}";
    pub const SHIFT: &str = "\u{E008}";
    pub const CONTROL: &str = "\u{E009}";
    pub const ARROW_UP: &str = "\u{E013}";
    pub const ARROW_DOWN: &str = "\u{E015}";
    pub const END: &str = "\u{E010}";
    pub const HOME: &str = "\u{E011}";
    pub const ARROW_LEFT: &str = "\u{E012}";
    pub const ARROW_RIGHT: &str = "\u{E014}";
    pub const TAB: &str = "\u{E004}";
}

/// How long a step of the UI may take before a test fails (model work waits longer, per test).
pub const UI_WAIT: Duration = Duration::from_secs(30);

/// One WebDriver session = one running app window.
pub struct Session {
    base: String,
    id: String,
    closed: bool,
}

#[derive(Clone, Debug)]
pub struct Element(String);

fn request(method: &str, url: &str, body: Option<Value>) -> Result<Value> {
    let req = ureq::request(method, url).timeout(Duration::from_secs(60));
    let resp = match body {
        Some(b) => req.send_json(b),
        None => req.call(),
    };
    let json: Value = match resp {
        Ok(r) => r.into_json().map_err(|e| format!("{method} {url}: unreadable reply: {e}"))?,
        Err(ureq::Error::Status(code, r)) => {
            let v: Value = r.into_json().unwrap_or(Value::Null);
            let err = &v["value"];
            return Err(format!(
                "{method} {url}: HTTP {code}: {} {}",
                err["error"].as_str().unwrap_or(""),
                err["message"].as_str().unwrap_or("")
            ));
        }
        Err(e) => return Err(format!("{method} {url}: {e}")),
    };
    Ok(json["value"].clone())
}

impl Session {
    /// Starts the app at `application` with `args` through the driver and opens a session on its window.
    pub fn start(application: &Path, args: &[String]) -> Result<Session> {
        let base = driver_url();
        // No browserName: tauri-driver rejects sessions that ask for a browser it does not know.
        let caps = json!({"capabilities": {"alwaysMatch": {"tauri:options": {
            "application": application, "args": args
        }}}});
        let value = request("POST", &format!("{base}/session"), Some(caps))?;
        let id = value["sessionId"].as_str().ok_or_else(|| format!("new session: no sessionId in {value}"))?.to_string();
        Ok(Session { base, id, closed: false })
    }

    fn url(&self, path: &str) -> String {
        format!("{}/session/{}{}", self.base, self.id, path)
    }

    /// Starts the app on `db` with the file dialogs answered by `answers` (see [`app_args`]), waits for the UI,
    /// opens `project` (which the test created in the store) and, when given, its `tab` (`translate`, `rewrite`, …).
    pub fn in_project(db: &Path, dir: &Path, answers: &[Option<&Path>], project: &str, tab: Option<&str>) -> Result<Session> {
        let s = Session::start(&app_binary(), &app_args(db, dir, answers))?;
        s.wait_for(r#"body[data-ready="1"]"#, UI_WAIT)?;
        s.click_css(&format!(r#"[data-testid="project-item"][data-project-name="{project}"] [data-testid="open-project"]"#), UI_WAIT)?;
        if let Some(tab) = tab {
            s.click_css(&format!(r#"[data-testid="tab-{tab}"]"#), UI_WAIT)?;
        }
        Ok(s)
    }

    pub fn title(&self) -> Result<String> {
        Ok(request("GET", &self.url("/title"), None)?.as_str().unwrap_or_default().to_string())
    }

    /// All elements matching a CSS selector (possibly none).
    pub fn find_all(&self, css: &str) -> Result<Vec<Element>> {
        let v = request("POST", &self.url("/elements"), Some(json!({"using": "css selector", "value": css})))?;
        Ok(v.as_array()
            .map(|a| a.iter().filter_map(|e| e[ELEMENT_KEY].as_str().map(|s| Element(s.to_string()))).collect())
            .unwrap_or_default())
    }

    /// Waits up to `timeout` for at least one element matching `css` and returns the first.
    pub fn wait_for(&self, css: &str, timeout: Duration) -> Result<Element> {
        let start = Instant::now();
        loop {
            if let Some(e) = self.find_all(css)?.into_iter().next() {
                return Ok(e);
            }
            if start.elapsed() > timeout {
                return Err(format!("no element {css:?} after {:?}", timeout));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits until exactly `n` elements match `css`; returns them.
    pub fn wait_for_count(&self, css: &str, n: usize, timeout: Duration) -> Result<Vec<Element>> {
        let start = Instant::now();
        loop {
            let found = self.find_all(css)?;
            if found.len() == n {
                return Ok(found);
            }
            if start.elapsed() > timeout {
                return Err(format!("expected {n} elements {css:?}, found {} after {:?}", found.len(), timeout));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn click(&self, e: &Element) -> Result<()> {
        request("POST", &self.url(&format!("/element/{}/click", e.0)), Some(json!({}))).map(|_| ())
    }

    /// Finds the element matching `css` and clicks it, looking it up again when the UI re-rendered it between
    /// the lookup and the click, until `timeout`. An element that is in the page but not yet laid out where a
    /// pointer can reach it ("element not interactable": a list drawn while its view is still being shown) is
    /// waited for as a user's eye waits for it; one that never becomes clickable fails after `timeout`.
    pub fn click_css(&self, css: &str, timeout: Duration) -> Result<()> {
        retry_while(timeout, |err| err.contains("stale element") || err.contains("not interactable"), || self.click(&self.wait_for(css, timeout)?))
    }

    /// The text of the element matching `css`, looked up again when the UI re-rendered it between the lookup and
    /// the read (a streamed row is redrawn as its run finishes), until `timeout`.
    pub fn text_css(&self, css: &str, timeout: Duration) -> Result<String> {
        self.on_fresh(css, timeout, |e| self.text(e))
    }

    /// Runs `act` on the element matching `css`, looking the element up again while WebDriver answers "stale
    /// element reference" (the view redrew it after the lookup), until `timeout`.
    fn on_fresh<T>(&self, css: &str, timeout: Duration, act: impl Fn(&Element) -> Result<T>) -> Result<T> {
        retry_while_stale(timeout, || act(&self.wait_for(css, timeout)?))
    }

    pub fn type_text(&self, e: &Element, text: &str) -> Result<()> {
        request("POST", &self.url(&format!("/element/{}/clear", e.0)), Some(json!({})))?;
        request("POST", &self.url(&format!("/element/{}/value", e.0)), Some(json!({"text": text}))).map(|_| ())
    }

    /// Types `keys` into `e` without clearing it first, as a user would: WebDriver key codes such as
    /// [`keys::CONTROL`] are held until the end of the call, so `CONTROL + ENTER` is Ctrl+Enter.
    pub fn send_keys(&self, e: &Element, keys: &str) -> Result<()> {
        request("POST", &self.url(&format!("/element/{}/value", e.0)), Some(json!({"text": keys}))).map(|_| ())
    }

    /// Presses `keys` (WebDriver key codes such as [`keys::TAB`], or characters) one after another on whatever has
    /// the focus, as a user's keyboard does: no element is named, so nothing is focused or scrolled first.
    pub fn press_keys(&self, keys: &str) -> Result<()> {
        let mut actions = Vec::new();
        for k in keys.chars() {
            actions.push(json!({"type": "keyDown", "value": k.to_string()}));
            actions.push(json!({"type": "keyUp", "value": k.to_string()}));
        }
        let body = json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]});
        request("POST", &self.url("/actions"), Some(body))?;
        request("DELETE", &self.url("/actions"), None).map(|_| ())
    }

    /// In the Translate view: the stored document named `document` as the source, local model `model`, `n_best`
    /// candidates per sentence.
    pub fn pick_translate_source(&self, document: &str, model: &str, n_best: usize) -> Result<()> {
        self.execute(
            r#"const [doc, model, n] = arguments;
               const d = document.querySelector('[data-testid="translate-document"]');
               d.value = [...d.options].find((o) => o.textContent === doc).value; d.dispatchEvent(new Event('change'));
               const m = document.querySelector('[data-testid="translate-model"]'); m.value = model; m.dispatchEvent(new Event('input', { bubbles: true }));
               document.querySelector('[data-testid="translate-nbest"]').value = String(n);"#,
            vec![json!(document), json!(model), json!(n_best)],
        )
        .map(|_| ())
    }

    /// The Documents view's Browse… button, answered by the next dialog answer; returns the import's result line.
    pub fn import_browsed(&self) -> Result<String> {
        self.click_css(r#"[data-testid="import-browse"]"#, UI_WAIT)?;
        self.text_css(r#"[data-testid="import-result"]"#, UI_WAIT)
    }

    /// The texts of every element matching `css`, in document order. When the view redraws between the lookup and
    /// the reads (WebDriver answers "stale element reference"), the elements are looked up again, for up to 10 s, so
    /// the texts all come from one drawing.
    pub fn texts(&self, css: &str) -> Result<Vec<String>> {
        retry_while_stale(Duration::from_secs(10), || self.find_all(css)?.iter().map(|e| self.text(e)).collect())
    }

    pub fn text(&self, e: &Element) -> Result<String> {
        Ok(request("GET", &self.url(&format!("/element/{}/text", e.0)), None)?.as_str().unwrap_or_default().to_string())
    }

    /// Runs `script` (a function body; `arguments[i]` are `args`) in the page and returns its result.
    pub fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        request("POST", &self.url("/execute/sync"), Some(json!({"script": script, "args": args})))
    }

    /// Runs `script` (a function body; `arguments[i]` are `args`, the last argument is the callback to call with
    /// the result) in the page and returns what it passed to the callback.
    pub fn execute_async(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        request("POST", &self.url("/execute/async"), Some(json!({"script": script, "args": args})))
    }

    /// Calls a Tauri command from the page the way any script in it could (`__TAURI_INTERNALS__.invoke`, which
    /// every Tauri page has), and returns its value or the error it was refused with. An argument equal to
    /// `"$CHANNEL"` becomes a fresh `Channel` (the long commands' `onProgress`). A call that neither resolves nor
    /// fails within `timeout_ms` (say, a dialog opened and waiting for a user) is an `Err("timeout …")`.
    pub fn invoke(&self, command: &str, args: Value, timeout_ms: u64) -> Result<std::result::Result<Value, String>> {
        let v = self.execute_async(
            r#"const [cmd, args, ms, done] = arguments;
               const T = window.__TAURI_INTERNALS__;
               for (const k of Object.keys(args)) {
                 if (args[k] === '$CHANNEL') args[k] = '__CHANNEL__:' + T.transformCallback(() => {});
               }
               const timer = setTimeout(() => done({ err: 'timeout after ' + ms + ' ms' }), ms);
               T.invoke(cmd, args).then(
                 (v) => { clearTimeout(timer); done({ ok: v === undefined ? null : v }); },
                 (e) => { clearTimeout(timer); done({ err: typeof e === 'string' ? e : JSON.stringify(e) }); });"#,
            vec![json!(command), args, json!(timeout_ms)],
        )?;
        match (v.get("ok"), v.get("err")) {
            (Some(ok), _) => Ok(Ok(ok.clone())),
            (_, Some(err)) => Ok(Err(err.as_str().unwrap_or_default().to_string())),
            _ => Err(format!("invoke {command}: unexpected reply {v}")),
        }
    }

    /// Saves a PNG of the window to `path` (creating its folder).
    pub fn screenshot(&self, path: &Path) -> Result<()> {
        let b64 = request("GET", &self.url("/screenshot"), None)?;
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().unwrap_or_default())
            .map_err(|e| format!("screenshot: bad base64: {e}"))?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        std::fs::write(path, png).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }

    /// Ends the session, which closes the app.
    pub fn close(mut self) -> Result<()> {
        self.closed = true;
        request("DELETE", &format!("{}/session/{}", self.base, self.id), None).map(|_| ())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A failed assertion must not leave the app window running for the next test.
        if !self.closed {
            let _ = request("DELETE", &format!("{}/session/{}", self.base, self.id), None);
        }
    }
}

/// Runs `attempt` again while WebDriver answers "stale element reference" (the view redrew what it had looked up),
/// until `timeout`; any other answer is returned as it is.
fn retry_while_stale<T>(timeout: Duration, attempt: impl FnMut() -> Result<T>) -> Result<T> {
    retry_while(timeout, |err| err.contains("stale element"), attempt)
}

/// Calls `attempt` again every 100 ms while its error is one `passing` says will pass, until `timeout`.
fn retry_while<T>(timeout: Duration, passing: impl Fn(&str) -> bool, mut attempt: impl FnMut() -> Result<T>) -> Result<T> {
    let start = Instant::now();
    loop {
        match attempt() {
            Err(err) if passing(&err) && start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(100)),
            other => return other,
        }
    }
}
