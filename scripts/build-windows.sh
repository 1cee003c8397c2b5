#!/usr/bin/env bash
# Cross-builds Registro for Windows (x86_64-pc-windows-gnu, MinGW-w64) on Linux, release profile, in a target dir of
# its own (~/.cache/registro/target-windows) so it never waits on or invalidates the Linux builds.
#
#   bash scripts/build-windows.sh            # the CLI: registro.exe
#   bash scripts/build-windows.sh app        # the CLI and the app: registro-app.exe (needs ui/dist built)
#   bash scripts/build-windows.sh portable   # + the portable zip (registro.exe, registro-app.exe, WebView2Loader.dll,
#                                            #   data/examples/, THIRD_PARTY.md)
#   bash scripts/build-windows.sh installer  # + the NSIS installer (src-tauri/windows/installer.nsi, local makensis)
#   bash scripts/build-windows.sh all        # the CLI, the app, the portable zip and the installer
#   bash scripts/build-windows.sh tauri-nsis # Tauri's own NSIS installer (needs one plugin DLL from GitHub: see
#                                            #   tauri_nsis below)
# Artifacts: ~/.cache/registro/target-windows/dist/.
#
# Needs: rustup target x86_64-pc-windows-gnu; apt gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 (and nsis for the
# installer). Prints where each artifact is and its size. Environment: WINDOWS_TARGET_DIR overrides the target dir,
# WINDOWS_PROFILE (release) the cargo profile.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

TARGET=x86_64-pc-windows-gnu
export CARGO_TARGET_DIR="${WINDOWS_TARGET_DIR:-$HOME/.cache/registro/target-windows}"
PROFILE="${WINDOWS_PROFILE:-release}"
OUT="$CARGO_TARGET_DIR/$TARGET/$PROFILE"
what="${1:-cli}"

need() { command -v "$1" >/dev/null 2>&1 || { echo "build-windows: '$1' not found: $2" >&2; exit 1; }; }
need x86_64-w64-mingw32-gcc "apt-get install -y gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64"
need x86_64-w64-mingw32-g++ "apt-get install -y g++-mingw-w64-x86-64"
rustup target list --installed 2>/dev/null | grep -qx "$TARGET" \
  || { echo "build-windows: rust target missing: rustup target add $TARGET" >&2; exit 1; }

# The MinGW toolchain for every C/C++ build script (SQLite, Oniguruma, ring) and for the final link. Only this
# target's variables are set: host build scripts and proc macros still build with the host's cc.
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc
export CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++
export AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-ar
export RANLIB_x86_64_pc_windows_gnu=x86_64-w64-mingw32-ranlib
export WINDRES_x86_64_pc_windows_gnu=x86_64-w64-mingw32-windres
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
# No MinGW runtime DLL beside the exe (libgcc_s_seh-1.dll, libstdc++-6.dll, libwinpthread-1.dll): the runtime is
# linked statically, so registro.exe runs on a bare Windows.
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS="${CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS:--C target-feature=+crt-static -C link-args=-static -C link-args=-static-libgcc}"
# At a lower priority than the Linux builds that share the machine.
NICE="${WINDOWS_NICE:-nice -n 5}"

size() { ls -l "$1" | awk -v f="$1" '{printf "%s  %.1f MiB\n", f, $5/1048576}'; }
VERSION="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' src-tauri/tauri.conf.json | head -1)"
DIST="$CARGO_TARGET_DIR/dist"
STAGE="$DIST/Registro"

build_cli() {
  local t0=$SECONDS
  $NICE cargo build --profile "$PROFILE" --target "$TARGET" -p registro-cli
  echo "build-windows: CLI built in $((SECONDS - t0)) s"
  size "$OUT/registro.exe"
}

build_app() {
  [ -f ui/dist/index.html ] || { echo "build-windows: ui/dist is not built (cd ui && npm ci && npm run build)" >&2; exit 1; }
  local t0=$SECONDS
  # tauri-build merges src-tauri/tauri.windows.conf.json over tauri.conf.json for a Windows target (icon.ico for
  # the exe's resources; bundle.resources are copied beside the exe, so it also runs from the target dir).
  $NICE cargo build --profile "$PROFILE" --target "$TARGET" -p registro-app
  echo "build-windows: app built in $((SECONDS - t0)) s"
  size "$OUT/registro-app.exe"
}

# What a Windows install holds, as the binaries look for it (<exe dir>\data\examples), stripped of the release
# profile's line tables.
stage() {
  rm -rf "$STAGE" && mkdir -p "$STAGE/data"
  local b
  for b in registro.exe registro-app.exe; do
    [ -f "$OUT/$b" ] || continue
    x86_64-w64-mingw32-strip --strip-debug -o "$STAGE/$b" "$OUT/$b"
    size "$STAGE/$b"
  done
  # The MinGW app loads WebView2Loader.dll at run time (copied beside it by tauri-build from webview2-com-sys).
  if [ -f "$OUT/registro-app.exe" ]; then
    [ -f "$OUT/WebView2Loader.dll" ] || { echo "build-windows: $OUT/WebView2Loader.dll missing" >&2; exit 1; }
    cp "$OUT/WebView2Loader.dll" "$STAGE/"
  fi
  cp -r data/examples "$STAGE/data/examples"
  cp THIRD_PARTY.md "$STAGE/"
}

# The portable zip: registro.exe (+ registro-app.exe when built), data/examples/, THIRD_PARTY.md in one folder.
portable() {
  stage
  local zip="$DIST/registro-${VERSION}-windows-x64-portable.zip"
  rm -f "$zip"
  python3 - "$DIST" Registro "$zip" <<'PY'
import os, sys, zipfile
base, root, out = sys.argv[1:]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for d, dirs, files in os.walk(os.path.join(base, root)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            z.write(p, os.path.relpath(p, base))
PY
  size "$zip"
  python3 -c 'import sys, zipfile; n = zipfile.ZipFile(sys.argv[1]).namelist(); print(len(n), "files:", *[x for x in n if x.count("/") < 3], sep="\n  ")' "$zip"
}

# The installer: src-tauri/windows/installer.nsi with the local makensis (apt nsis), nothing downloaded. Tauri's
# own NSIS installer needs a plugin from GitHub (see tauri_nsis below); the release workflow builds that one.
installer() {
  command -v makensis >/dev/null || { echo "build-windows: makensis not found: apt-get install -y nsis" >&2; exit 1; }
  stage
  local exe="$DIST/Registro_${VERSION}_x64-setup.exe" t0=$SECONDS
  makensis -V2 -DSRCDIR="$STAGE" -DVERSION="$VERSION" -DOUTFILE="$exe" -DICON="$PWD/src-tauri/icons/icon.ico" \
    src-tauri/windows/installer.nsi
  echo "build-windows: installer built in $((SECONDS - t0)) s"
  size "$exe"
}

# Tauri's own NSIS bundler (the installer the release workflow builds on Windows). On Linux it runs the local
# makensis and needs nothing else from the network but one plugin, nsis_tauri_utils.dll v0.5.3 (a 32-bit NSIS
# plugin from github.com/tauri-apps/nsis-tauri-utils, SHA1 75197FEE3C6A814FE035788D1C34EAD39349B860), which it
# downloads into ~/.cache/tauri/NSIS/Plugins/x86-unicode/additional/ unless a copy with that hash is there. Where
# GitHub is unreachable, give a copy as NSIS_TAURI_UTILS_DLL=FILE; without one the bundler fails on the download.
# (webviewInstallMode downloadBootstrapper, tauri.windows.conf.json, fetches nothing at build time.)
tauri_nsis() {
  local tauri="$PWD/ui/node_modules/.bin/tauri"
  [ -x "$tauri" ] || { echo "build-windows: $tauri missing (cd ui && npm install)" >&2; exit 1; }
  local dll="${XDG_CACHE_HOME:-$HOME/.cache}/tauri/NSIS/Plugins/x86-unicode/additional/nsis_tauri_utils.dll"
  if [ -n "${NSIS_TAURI_UTILS_DLL:-}" ]; then
    [ "$(sha1sum "$NSIS_TAURI_UTILS_DLL" | cut -c1-40)" = 75197fee3c6a814fe035788d1c34ead39349b860 ] \
      || { echo "build-windows: $NSIS_TAURI_UTILS_DLL is not nsis_tauri_utils.dll v0.5.3 (SHA1 differs)" >&2; exit 1; }
    mkdir -p "$(dirname "$dll")" && cp "$NSIS_TAURI_UTILS_DLL" "$dll"
  fi
  TAURI_APP_PATH="$PWD/src-tauri" TAURI_FRONTEND_PATH="$PWD/ui" \
    "$tauri" bundle --bundles nsis --target "$TARGET" --ci
  ls -l "$OUT/bundle/nsis/"*.exe
}

case "$what" in
  cli) build_cli ;;
  app) build_cli; build_app ;;
  portable) build_cli; build_app; portable ;;
  installer) build_cli; build_app; installer ;;
  all) build_cli; build_app; portable; installer ;;
  tauri-nsis) build_cli; build_app; tauri_nsis ;;
  *) echo "usage: $0 [cli|app|portable|installer|all|tauri-nsis]" >&2; exit 2 ;;
esac
