#!/usr/bin/env bash
# Tests the built .deb as a translator gets it, with no checkout beside it: extracts the package (dpkg-deb -x) into a
# temporary root and, from a working directory outside the checkout with an empty HOME and no REGISTRO_* variables
# but the model cache (REGISTRO_MODELS), runs the packaged CLI:
#   1. `registro doctor` finds the shipped translation examples beside the binary and lists a pool per language;
#   2. `registro translate --lang it --register formal` of the first lines of the repository's own development
#      sentences (data/ru-dev, never a test set) with the small model: the run's parameters name the Italian pool
#      it used (`fewshot_pool` in `registro runs show`), the outputs are Italian and none is flagged untranslated.
# Exits non-zero, saying what failed, on any failure.
#
#   3. the packaged window (usr/bin/registro-app) started with an .xlf on its command line opens it in the Translate
#      view, and started with no model goes through the setup card's download and translates three sentences
#      (the e2e tests open_with.rs and models_setup.rs with REGISTRO_APP_BIN; needs what scripts/e2e.sh needs:
#      Xvfb, tauri-driver, WebKitWebDriver; skipped with a note without them, or with --no-window).
#
#   scripts/test-package.sh [--no-window] [PACKAGE.deb]    # default: the one scripts/package.sh built
#
# Needs the model qwen2.5-coder-0.5b-instruct in the cache (scripts/test.sh fetches it; fetched here otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
source scripts/env.sh

log() { printf '[test-package] %s\n' "$*" >&2; }
fail() { log "FAILED: $*"; exit 1; }

MODEL=qwen2.5-coder-0.5b-instruct
LINES=5
MODELS="${REGISTRO_MODELS:-$HOME/.cache/registro/models}"
WINDOW=1
if [ "${1:-}" = --no-window ]; then WINDOW=0; shift; fi
if [ $# -ge 1 ]; then
  DEB="$1"
else
  DEB="$(ls -t "${REGISTRO_PACKAGE_DIR:-$CARGO_TARGET_DIR/packages}"/registro_*_amd64.deb 2>/dev/null | head -1 || true)"
fi
[ -n "$DEB" ] && [ -f "$DEB" ] || fail "no .deb to test (build it with scripts/package.sh, or name it)"
DEB="$(cd "$(dirname "$DEB")" && pwd)/$(basename "$DEB")"
SENTENCES="$ROOT/data/ru-dev/formality-control.dev.written.en-ru.en"
[ -f "$SENTENCES" ] || fail "missing $SENTENCES"

WORK="$(mktemp -d -t registro-package-test.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
PKG="$WORK/root"
mkdir -p "$PKG" "$WORK/home" "$WORK/cwd"
dpkg-deb -x "$DEB" "$PKG"
log "extracted $(basename "$DEB") into $PKG"
# The working directory is outside the checkout and the package: nothing relative to either can be found by accident.
case "$WORK" in "$ROOT"/*) fail "the temp dir $WORK is inside the checkout" ;; esac
CLI="$PKG/usr/bin/registro"
[ -x "$CLI" ] || fail "the package has no executable usr/bin/registro"
[ -x "$PKG/usr/bin/registro-app" ] || fail "the package has no executable usr/bin/registro-app"

# The packaged CLI as a user runs it: an empty HOME, a clean environment, only the model cache named.
registro() {
  (cd "$WORK/cwd" && env -i PATH=/usr/bin:/bin LANG=C.UTF-8 HOME="$WORK/home" REGISTRO_MODELS="$MODELS" "$CLI" "$@")
}
json_get() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {'d': d}))" "$1"; }

echo "== registro doctor =="
registro doctor --offline | tee "$WORK/doctor.txt" || fail "registro doctor exited non-zero"
registro --json doctor --offline >"$WORK/doctor.json" || fail "registro doctor --json exited non-zero"
python3 - "$WORK/doctor.json" "$PKG" <<'EOF' || fail "doctor does not find the packaged example pools (see above)"
import json, sys
report = json.load(open(sys.argv[1]))
root = sys.argv[2]
ex = report.get("examples")
if not ex:
    sys.exit(f"doctor's report has no 'examples' section: {sorted(report)}")
pools = ex.get("pools") or []
print(f"doctor: examples in {ex.get('data_dir')} ({ex.get('found_by')}); "
      + ", ".join(f"{p['lang']} {p['pairs']}{'' if p['ok'] else ' MISSING'}" for p in pools))
missing = [p["lang"] for p in pools if not p.get("ok")]
if "it" not in {p["lang"] for p in pools}:
    sys.exit(f"no Italian pool listed: {[p['lang'] for p in pools]}")
if missing:
    sys.exit(f"pools not found: {missing}")
data_dir = ex.get("data_dir") or ""
if not data_dir.startswith(root) or not data_dir.endswith("usr/share/registro"):
    sys.exit(f"the examples were not found in the package's usr/share/registro but in {data_dir!r} ({ex.get('found_by')})")
EOF

echo
echo "== registro models fetch $MODEL (verifies the cached copy; downloads it when missing) =="
registro models fetch "$MODEL" >"$WORK/fetch.log" 2>&1 || { cat "$WORK/fetch.log" >&2; fail "the model $MODEL is not available"; }
tail -n 2 "$WORK/fetch.log"

echo
echo "== registro translate --lang it --register formal (first $LINES development sentences) =="
head -n "$LINES" "$SENTENCES" >"$WORK/cwd/dev.en"
cat "$WORK/cwd/dev.en"
t0=$SECONDS
registro --db "$WORK/registro.db" --json translate --lang it --register formal --model "$MODEL" --input dev.en \
  >"$WORK/translate.json" 2>"$WORK/translate.err" || { tail -n 20 "$WORK/translate.err" >&2; fail "registro translate exited non-zero"; }
log "translated in $((SECONDS - t0)) s"
run_id="$(json_get 'd["run_id"]' <"$WORK/translate.json")"
registro --db "$WORK/registro.db" --json runs show "$run_id" >"$WORK/run.json" || fail "registro runs show $run_id exited non-zero"

python3 - "$WORK/translate.json" "$WORK/run.json" "$PKG" <<'EOF' || fail "the packaged translation is not what it should be (see above)"
import json, re, sys
out = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
root = sys.argv[3]
problems = []
pool = run["run"]["params"].get("fewshot_pool")
print(f"run {run['run']['id']}: fewshot_pool = {pool!r}")
if not pool or "cocoa-mt/en-it" not in pool:
    problems.append(f"the run's parameters do not name the Italian example pool: fewshot_pool = {pool!r}")
IT = {"il", "lo", "la", "i", "gli", "le", "un", "una", "di", "del", "della", "che", "è", "per", "non", "con", "suo", "sua",
      "lei", "può", "potrebbe", "ha", "dove", "ti", "piace", "questo", "questa", "arriverà", "numero", "ordine",
      "per favore", "cortesemente", "minuto", "parlare", "telefono", "comprato", "acquistato", "guardare", "calcio"}
EN = {"the", "you", "your", "to", "did", "where", "buy", "this", "please", "will", "arrive", "on", "like", "watching",
      "have", "minute", "talk", "could", "repeat", "order", "number", "package", "phone"}
for s in out["segments"]:
    words = re.findall(r"\w+", s["text"].lower())
    it, en = sum(w in IT for w in words), sum(w in EN for w in words)
    print(f"  {s['index'] + 1}. {s['source']}\n     → {s['text']}   [{s['verdict']}{', flagged: ' + str(s['flag_reason']) if s['flagged'] else ''}]")
    if not s["text"].strip():
        problems.append(f"segment {s['index'] + 1} is empty")
    elif s["text"].strip().lower() == s["source"].strip().lower() or it == 0 or en > it:
        problems.append(f"segment {s['index'] + 1} does not read as Italian ({it} Italian, {en} English words): {s['text']!r}")
    if "untranslated" in (s.get("flag_reason") or ""):
        problems.append(f"segment {s['index'] + 1} is flagged untranslated: {s['flag_reason']}")
if len(out["segments"]) != 5:
    problems.append(f"expected 5 segments, got {len(out['segments'])}")
for p in problems:
    print("PROBLEM:", p)
sys.exit(1 if problems else 0)
EOF

echo
echo "== the packaged window opens a file named on its command line (Open with Registro) =="
if [ "$WINDOW" = 0 ]; then
  echo "skipped (--no-window)"
elif ! command -v Xvfb >/dev/null || ! command -v tauri-driver >/dev/null || ! command -v WebKitWebDriver >/dev/null; then
  echo "skipped: Xvfb, tauri-driver or WebKitWebDriver missing (scripts/setup-system.sh installs them)"
else
  # open_with: an .xlf named on the command line opens in the Translate view. models_setup: the first start with no
  # model — the setup card downloads one from a local HTTP server (cancel, resume, sha256), then three sentences are
  # translated formally into Italian, with the pool the package ships.
  REGISTRO_APP_BIN="$PKG/usr/bin/registro-app" REGISTRO_E2E_SKIP_BUILD=1 REGISTRO_E2E_TEST="open_with models_setup" \
    REGISTRO_E2E_PORT="${REGISTRO_E2E_PORT:-4490}" bash scripts/e2e.sh >"$WORK/window.log" 2>&1 ||
    { tail -n 60 "$WORK/window.log" >&2; fail "the packaged window failed (tests/e2e/tests/open_with.rs, models_setup.rs)"; }
  grep -E '^test |test result|fewshot|translated' "$WORK/window.log" || true
  echo "screenshots: tests/e2e/screenshots/open-with.png, setup-*.png, settings-models-*.png"
fi

echo
log "passed: the packaged CLI found its examples in $PKG/usr/share/registro and translated formally into Italian with them; the packaged window opened a file"
