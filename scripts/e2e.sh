#!/usr/bin/env bash
# End-to-end tests of the real Registro window: builds the UI and the app, starts a virtual display (Xvfb), a
# session bus and tauri-driver (which starts WebKitWebDriver), runs the WebDriver tests in tests/e2e, then stops
# what it started. Screenshots land in tests/e2e/screenshots/. Needs scripts/setup-system.sh to have run.
#
# Environment: CARGO_TARGET_DIR (see scripts/env.sh), REGISTRO_E2E_PORT (default 4444; WebKitWebDriver gets +1),
# REGISTRO_E2E_SKIP_BUILD=1 to reuse the current ui/dist and app binary, REGISTRO_E2E_TEST=<file> (e.g. security) to
# run one test file.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

log() { printf '[e2e] %s\n' "$*" >&2; }
for tool in Xvfb dbus-run-session tauri-driver WebKitWebDriver; do
  command -v "$tool" >/dev/null || { log "missing $tool: run scripts/setup-system.sh first"; exit 1; }
done

if [ "${REGISTRO_E2E_SKIP_BUILD:-0}" != 1 ]; then
  log "building ui/ and registro-app"
  (cd ui && npm run build --silent)
  # The same feature set as scripts/test.sh, so nothing is compiled twice (`-p registro-app` alone unifies
  # features differently and would rebuild candle and tauri).
  cargo build --workspace --all-targets
  # (`--all-targets` above already built the window tests, in the workspace's feature set.)
fi

PORT="${REGISTRO_E2E_PORT:-4444}"
NATIVE_PORT=$((PORT + 1))
# A display number nobody uses: the first free of :99..:140.
DISPLAY_NUM=""
for n in $(seq 99 140); do
  if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then DISPLAY_NUM=$n; break; fi
done
[ -n "$DISPLAY_NUM" ] || { log "no free X display in :99..:140"; exit 1; }

LOG_DIR="$(mktemp -d -t registro-e2e.XXXXXX)"
XVFB_PID=""
DRIVER_PID=""
cleanup() {
  # Only the process groups started here: tauri-driver's group holds dbus-run-session, WebKitWebDriver and any app.
  if [ -n "$DRIVER_PID" ]; then kill -TERM -- "-$DRIVER_PID" 2>/dev/null || true; fi
  if [ -n "$XVFB_PID" ]; then kill -TERM "$XVFB_PID" 2>/dev/null || true; fi
  wait 2>/dev/null || true
}
trap cleanup EXIT

log "Xvfb on :$DISPLAY_NUM"
Xvfb ":$DISPLAY_NUM" -screen 0 1280x800x24 -nolisten tcp >"$LOG_DIR/xvfb.log" 2>&1 &
XVFB_PID=$!
for _ in $(seq 50); do [ -e "/tmp/.X11-unix/X$DISPLAY_NUM" ] && break; sleep 0.1; done
export DISPLAY=":$DISPLAY_NUM"

# The accessibility bridge and a missing session bus make WebKitGTK stall or warn under Xvfb.
log "tauri-driver on port $PORT (logs in $LOG_DIR)"
# GNOME Keyring on that bus, unlocked with a throwaway password, its files under $LOG_DIR (never the user's own
# keyring): Settings → Backends stores API keys there. It exits with the bus.
mkdir -p -m 700 "$LOG_DIR/keyring"
# A packaged app (REGISTRO_APP_BIN, scripts/test-package.sh) starts as a user's first start would: an empty home
# and none of the checkout's REGISTRO_* settings, so it must find its data beside itself. The tests still hand it
# the store, model cache and catalogue they set up.
DRIVER_ENV=()
if [ -n "${REGISTRO_APP_BIN:-}" ]; then
  mkdir -p "$LOG_DIR/home"
  DRIVER_ENV=(env -u REGISTRO_DATA -u REGISTRO_SHARED_DATA -u REGISTRO_DEFAULT_MODEL -u REGISTRO_DB -u REGISTRO_MODELS
    -u XDG_DATA_HOME -u XDG_CACHE_HOME -u XDG_CONFIG_HOME HOME="$LOG_DIR/home")
  log "packaged app $REGISTRO_APP_BIN, started with HOME=$LOG_DIR/home and no REGISTRO_* settings"
fi
"${DRIVER_ENV[@]}" setsid dbus-run-session -- sh -c '! command -v gnome-keyring-daemon >/dev/null || printf e2e | HOME="$0" XDG_DATA_HOME="$0" \
  XDG_RUNTIME_DIR="$0" gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec env NO_AT_BRIDGE=1 "$@"' \
  "$LOG_DIR/keyring" tauri-driver --port "$PORT" --native-port "$NATIVE_PORT" >"$LOG_DIR/tauri-driver.log" 2>&1 &
DRIVER_PID=$!
for _ in $(seq 100); do
  curl -s -o /dev/null "http://127.0.0.1:$PORT/status" && break
  sleep 0.2
done
curl -s -o /dev/null "http://127.0.0.1:$PORT/status" || { log "tauri-driver did not start:"; cat "$LOG_DIR/tauri-driver.log" >&2; exit 1; }

# The window tests by name, selected across the workspace: `-p registro-e2e` would resolve features for that package
# alone and rebuild candle and tauri in another flavour (the resume test links registro-core to prepare its store).
E2E_TESTS=()
for t in ${REGISTRO_E2E_TEST:-$(cd tests/e2e/tests && ls *.rs | sed 's/\.rs$//')}; do E2E_TESTS+=(--test "$t"); done
log "running the WebDriver tests"
status=0
REGISTRO_E2E_REQUIRED=1 REGISTRO_E2E_DRIVER="http://127.0.0.1:$PORT" \
  cargo test --workspace "${E2E_TESTS[@]}" -- --test-threads=1 --nocapture || status=$?
if [ $status -ne 0 ]; then
  log "failed; tauri-driver log tail:"
  tail -n 40 "$LOG_DIR/tauri-driver.log" >&2 || true
fi
exit $status
