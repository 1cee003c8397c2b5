// Hide the console window on Windows release builds; no effect elsewhere.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]
#![forbid(unsafe_code)]

fn main() {
    registro_core::pool::prepare_process();
    if let Err(e) = registro_app::run() {
        eprintln!("registro-app: {e:#}");
        std::process::exit(1);
    }
}
