#!/usr/bin/env bash
# Cross-builds Registro for Windows (x86_64-pc-windows-gnu, MinGW-w64) on Linux, release profile, in a target dir of
# its own (~/.cache/registro/target-windows) so it never waits on or invalidates the Linux builds.
#
#   bash scripts/build-windows.sh            # the CLI: registro.exe
#   bash scripts/build-windows.sh app        # the CLI and the app: registro-app.exe (needs ui/dist built)
#   bash scripts/build-windows.sh portable   # the CLI, the app and the portable zip (registro.exe, registro-app.exe,
#                                            # data/examples/, THIRD_PARTY.md)
#   bash scripts/build-windows.sh nsis       # the CLI, the app and the NSIS installer (Tauri's bundler, local makensis)
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
# Timestamps of the build scripts and the link are not stable anyway; keep the cross build at a lower priority than
# the Linux builds sharing the machine.
NICE="${WINDOWS_NICE:-nice -n 5}"

size() { ls -l "$1" | awk -v f="$1" '{printf "%s  %.1f MiB\n", f, $5/1048576}'; }

build_cli() {
  local t0=$SECONDS
  $NICE cargo build --profile "$PROFILE" --target "$TARGET" -p registro-cli
  echo "build-windows: CLI built in $((SECONDS - t0)) s"
  size "$OUT/registro.exe"
}

build_app() {
  [ -f ui/dist/index.html ] || { echo "build-windows: ui/dist is not built (cd ui && npm ci && npm run build)" >&2; exit 1; }
  local t0=$SECONDS
  # The Windows config (resources: data/examples beside the exe) is merged over src-tauri/tauri.conf.json by
  # tauri-build when the target is Windows.
  $NICE cargo build --profile "$PROFILE" --target "$TARGET" -p registro-app
  echo "build-windows: app built in $((SECONDS - t0)) s"
  size "$OUT/registro-app.exe"
}

portable() {
  local dir="$CARGO_TARGET_DIR/portable/registro-windows-x64"
  rm -rf "$dir" && mkdir -p "$dir/data"
  cp "$OUT/registro.exe" "$dir/"
  [ -f "$OUT/registro-app.exe" ] && cp "$OUT/registro-app.exe" "$dir/"
  cp -r data/examples "$dir/data/examples"
  cp THIRD_PARTY.md "$dir/"
  local zip="$CARGO_TARGET_DIR/portable/registro-windows-x64.zip"
  rm -f "$zip"
  (cd "$dir/.." && python3 -c '
import os, sys, zipfile
root = sys.argv[1]
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
    for d, _, files in os.walk(root):
        for f in sorted(files):
            p = os.path.join(d, f)
            z.write(p, p)
' registro-windows-x64 "$zip")
  size "$zip"
  (cd "$dir/.." && find registro-windows-x64 -maxdepth 3 | sort | head -30)
}

nsis() {
  need makensis "apt-get install -y nsis"
  bash scripts/windows-nsis.sh "$OUT"
}

case "$what" in
  cli) build_cli ;;
  app) build_cli; build_app ;;
  portable) build_cli; build_app; portable ;;
  nsis) build_cli; build_app; nsis ;;
  *) echo "usage: $0 [cli|app|portable|nsis]" >&2; exit 2 ;;
esac
