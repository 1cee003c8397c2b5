//! What the terminal shows while a long command runs, and what Ctrl-C does to it. Core use cases report
//! [`Progress`] and poll a [`CancelToken`]; this module turns the first into an `indicatif` bar and the second
//! into a Ctrl-C handler, so every subcommand behaves the same.

use std::io::IsTerminal;
use std::sync::OnceLock;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use registro_core::progress::{CancelToken, Progress};

/// A progress bar on stderr for `what` (e.g. "segments"), hidden when stdout or stderr is not a terminal (piped
/// output, CI logs) or with `--json`, so machine-readable output never carries escape codes.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    pub fn new(json: bool, what: &str) -> Self {
        let visible = !json && std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
        let bar = ProgressBar::with_draw_target(None, if visible { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() });
        bar.set_style(
            ProgressStyle::with_template(&format!("{{spinner}} [{{bar:30}}] {{pos}}/{{len}} {what} ({{per_sec}}, ETA {{eta}}) {{msg}}"))
                .expect("the template is a constant")
                .progress_chars("=> "),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        Self { bar }
    }

    /// Updates the bar from one core progress event.
    pub fn update(&self, p: &Progress) {
        if self.bar.length() != Some(p.total) {
            self.bar.set_length(p.total);
        }
        self.bar.set_position(p.done);
        self.bar.set_message(p.message.clone());
    }

    /// A closure for the core's `ProgressFn` parameters.
    pub fn sink(&self) -> impl FnMut(Progress) + '_ {
        move |p| self.update(&p)
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The process-wide cancel token that Ctrl-C (SIGINT/SIGTERM) sets. The first signal asks the running use case to
/// stop between segments — it then stores what is finished and ends the run `cancelled`; a second signal exits at
/// once (status 130), for when the current segment takes too long to wait for.
pub fn cancel_on_ctrl_c() -> CancelToken {
    static TOKEN: OnceLock<CancelToken> = OnceLock::new();
    TOKEN
        .get_or_init(|| {
            let token = CancelToken::new();
            let handler_token = token.clone();
            let installed = ctrlc::set_handler(move || {
                if handler_token.is_cancelled() {
                    eprintln!("\ninterrupted again: exiting without waiting");
                    std::process::exit(130);
                }
                eprintln!("\ncancelling after the current segment (Ctrl-C again to exit now)…");
                handler_token.cancel();
            });
            if let Err(e) = installed {
                eprintln!("warning: Ctrl-C will stop the process without saving the run's state ({e})");
            }
            token
        })
        .clone()
}
