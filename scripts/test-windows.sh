#!/usr/bin/env bash
# The Windows CLI, cross-built here and run under wine (headless; no display needed), from a portable layout with
# nothing of the checkout beside it (registro.exe + data/examples):
#   (a) `registro.exe doctor` exits 0, prints its report and finds the example pools beside the exe;
#   (b) `registro.exe eval` on the IWSLT 2022 EN-DE submissions gives the same JSON report, every score and
#       signature, as the Linux build;
#   (c) `registro.exe translate` of two sentences into formal Italian and German with Qwen2.5-Coder-0.5B: every
#       segment non-empty, translated (not the English source), in the target language.
# Prints timings. Any failure exits non-zero with a message. Called by scripts/test.sh after the Linux CLI is built.
#
# Needs: rustup target x86_64-pc-windows-gnu; apt gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64; the Linux CLI
# ($CARGO_TARGET_DIR/debug/registro, or release; built here if neither exists); the shared data
# (../shared/data/iwslt2022-umd: the eval step is skipped, saying so, without it); the 0.5B model in the model cache
# (fetched with the Linux CLI if missing). The wine prefix lives in ~/.cache/registro/wine (REGISTRO_WINEPREFIX).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

fail() { echo "test-windows: FAIL: $*" >&2; exit 1; }
log() { echo "test-windows: $*" >&2; }
now() { date +%s.%N; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

command -v wine >/dev/null || fail "wine not found: apt-get install -y wine wine64 (or run scripts/setup-system.sh)"
command -v winepath >/dev/null || fail "winepath not found: apt-get install -y wine wine64 (or run scripts/setup-system.sh)"

# ---- the Windows CLI (incremental) ----
# (WINDOWS_NO_BUILD=1: test the registro.exe already built, e.g. while the app's cross build holds the target dir.)
if [ -z "${WINDOWS_NO_BUILD:-}" ]; then
  t=$(now)
  bash scripts/build-windows.sh cli >&2 || fail "the Windows cross build failed (scripts/build-windows.sh cli)"
  log "Windows CLI build: $(secs "$t") s"
fi
WIN_EXE="${WINDOWS_TARGET_DIR:-$HOME/.cache/registro/target-windows}/x86_64-pc-windows-gnu/${WINDOWS_PROFILE:-release}/registro.exe"
[ -f "$WIN_EXE" ] || fail "$WIN_EXE was not built"

# ---- the Linux CLI to compare with ----
LINUX_CLI=""
for p in debug release; do
  c="$CARGO_TARGET_DIR/$p/registro"
  if [ -x "$c" ] && { [ -z "$LINUX_CLI" ] || [ "$c" -nt "$LINUX_CLI" ]; }; then LINUX_CLI="$c"; fi
done
if [ -z "$LINUX_CLI" ]; then
  log "no Linux CLI in $CARGO_TARGET_DIR; building it (cargo build -p registro-cli)"
  cargo build -p registro-cli >&2
  LINUX_CLI="$CARGO_TARGET_DIR/debug/registro"
fi
log "Linux CLI: $LINUX_CLI"

# ---- a portable layout outside the checkout, and a wine prefix outside the clone ----
work="$(mktemp -d "${TMPDIR:-/tmp}/registro-win.XXXXXX")"
trap 'rm -rf "$work"' EXIT
app="$work/Registro"
mkdir -p "$app/data"
cp "$WIN_EXE" "$app/registro.exe"
cp -r data/examples "$app/data/examples"

export WINEPREFIX="${REGISTRO_WINEPREFIX:-$HOME/.cache/registro/wine}"
export WINEDEBUG=-all
# No Mono or Gecko installer prompts (the CLI needs neither).
export WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  t=$(now)
  mkdir -p "$WINEPREFIX"
  wine wineboot --init >/dev/null 2>&1 || true
  wineserver -w
  [ -f "$WINEPREFIX/system.reg" ] || fail "could not create the wine prefix $WINEPREFIX"
  log "wine prefix created in $WINEPREFIX ($(secs "$t") s)"
fi
# Rust's standard library takes its random bytes from ProcessPrng in bcryptprimitives.dll (Windows 10 and later).
# Debian 12's wine (8.0) has no such DLL and refuses to start the exe (exit 53; WINEDEBUG=err+all says
# "bcryptprimitives.dll not found"); wine 9 has it. For this wine only, a stand-in built with MinGW goes into the
# prefix's system32: ProcessPrng over advapi32's RtlGenRandom. It is never shipped: real Windows has the DLL.
if [ ! -f "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" ]; then
  mkdir -p "$work/shim"
  cat >"$work/shim/bcryptprimitives.c" <<'C'
#include <windows.h>
#include <ntsecapi.h>
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!RtlGenRandom(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
C
  printf 'LIBRARY bcryptprimitives.dll\nEXPORTS\n  ProcessPrng\n' >"$work/shim/bcryptprimitives.def"
  x86_64-w64-mingw32-gcc -O2 -shared -s -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
    "$work/shim/bcryptprimitives.c" "$work/shim/bcryptprimitives.def" -ladvapi32 \
    || fail "could not build the bcryptprimitives.dll stand-in for wine"
  log "$(wine --version 2>/dev/null) has no bcryptprimitives.dll: a ProcessPrng stand-in was put in the prefix"
fi

# A Unix path as the Windows program sees it (Z:\...). Wine passes the Unix environment through to the Windows
# process unchanged (PATH aside), so paths in REGISTRO_* variables must be given in this form.
winpath() { winepath -w "$1" 2>/dev/null; }

# registro.exe under wine, with none of the checkout's REGISTRO_* paths (Unix paths mean nothing to it) and a
# database of its own.
WIN_DB="$(winpath "$work/windows.db")"
wreg() {
  env -u REGISTRO_DATA -u REGISTRO_SHARED_DATA -u REGISTRO_DB -u REGISTRO_MODELS -u REGISTRO_DEVICE \
    ${WIN_MODELS:+REGISTRO_MODELS="$WIN_MODELS"} \
    wine "$app/registro.exe" --db "$WIN_DB" "$@"
}

# ---- (a) doctor ----
t=$(now)
set +e
wreg doctor --offline >"$work/doctor.txt" 2>"$work/doctor.err"
rc=$?
set -e
log "(a) registro.exe doctor --offline: exit $rc, $(secs "$t") s"
sed 's/^/    /' "$work/doctor.txt" >&2
[ "$rc" = 0 ] || { cat "$work/doctor.err" >&2; fail "registro.exe doctor exited $rc (wine's loader errors: rerun with WINEDEBUG=err+all)"; }
[ -s "$work/doctor.txt" ] || fail "registro.exe doctor printed nothing"
grep -qi "beside the binary" "$work/doctor.txt" \
  || fail "registro.exe doctor did not find the example pools in <exe dir>\\data (see its report above)"
# Paths as a user reads and types them (C:\… or Z:\…), not Windows' verbatim \\?\ form.
! grep -qF '\\?\' "$work/doctor.txt" || fail "registro.exe doctor shows a verbatim \\?\ path (see its report above)"
if grep -q "MISSING" "$work/doctor.txt"; then fail "registro.exe doctor reports a missing example pool (see its report above)"; fi

# ---- (b) eval: identical to Linux ----
IWSLT="${REGISTRO_SHARED_DATA:-../shared/data}/iwslt2022-umd/en-de"
if [ -d "$IWSLT" ]; then
  t=$(now)
  "$LINUX_CLI" --db "$work/linux.db" --json eval --no-store --submissions "$IWSLT" --lang de >"$work/eval-linux.json" \
    || fail "Linux registro eval failed"
  linux_s=$(secs "$t")
  t=$(now)
  wreg --json eval --no-store --submissions "$(winpath "$IWSLT")" --lang de >"$work/eval-windows.json" 2>"$work/eval-windows.err" \
    || { cat "$work/eval-windows.err" >&2; fail "registro.exe eval failed"; }
  win_s=$(secs "$t")
  log "(b) eval --submissions iwslt2022-umd/en-de --lang de: Linux $linux_s s, Windows under wine $win_s s"
  python3 - "$work/eval-linux.json" "$work/eval-windows.json" <<'EOF' || fail "the Windows and Linux eval reports differ"
import json, sys
lin, win = (json.load(open(p)) for p in sys.argv[1:3])

def diff(a, b, path="$"):
    if type(a) is not type(b):
        return [f"{path}: {a!r} (Linux) vs {b!r} (Windows)"]
    if isinstance(a, dict):
        out = [f"{path}.{k}: only in {'Linux' if k in a else 'Windows'}" for k in sorted(set(a) ^ set(b))]
        for k in sorted(set(a) & set(b)):
            out += diff(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list):
        out = [f"{path}: {len(a)} items (Linux) vs {len(b)} (Windows)"] if len(a) != len(b) else []
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: {a!r} (Linux) vs {b!r} (Windows)"]

assert isinstance(lin, list) and len(lin) >= 10, f"expected >= 10 system reports, got {lin!r:.200}"
d = diff(lin, win)
for line in d[:20]:
    print("    " + line, file=sys.stderr)
if d:
    sys.exit(1)
n = 0
def count(x):
    global n
    if isinstance(x, dict):
        for v in x.values(): count(v)
    elif isinstance(x, list):
        for v in x: count(v)
    elif isinstance(x, float):
        n += 1
count(lin)
print(f"    identical: {len(lin)} system reports, {n} numbers, byte-for-byte equal JSON values", file=sys.stderr)
for r in lin:
    b, c, t = r.get("bleu") or {}, r.get("chrf") or {}, r.get("ter") or {}
    print(f"    {r['system']:<36} BLEU {b.get('score')}  chrF {c.get('score')}  TER {t.get('score')}", file=sys.stderr)
EOF
else
  log "(b) skipped: IWSLT 2022 submissions not found at $IWSLT (set REGISTRO_SHARED_DATA)"
fi

# ---- (c) translate two sentences formally with the 0.5B model ----
MODEL=qwen2.5-coder-0.5b-instruct
MODELS_DIR="${REGISTRO_MODELS:-$HOME/.cache/registro/models}"
if ! REGISTRO_MODELS="$MODELS_DIR" "$LINUX_CLI" models verify "$MODEL" >/dev/null 2>&1; then
  log "fetching $MODEL into $MODELS_DIR (Linux CLI)"
  REGISTRO_MODELS="$MODELS_DIR" "$LINUX_CLI" models fetch "$MODEL" >&2 || fail "could not fetch $MODEL"
fi
WIN_MODELS="$(winpath "$MODELS_DIR")"
printf '%s\n' "Can you send me the report by Friday?" "Thank you for your help, I will call you tomorrow." >"$work/two.txt"
for lang in it de; do
  t=$(now)
  wreg --json translate --lang "$lang" --register formal --model "$MODEL" --input "$(winpath "$work/two.txt")" \
    >"$work/tr-$lang.json" 2>"$work/tr-$lang.err" \
    || { tail -20 "$work/tr-$lang.err" >&2; fail "registro.exe translate --lang $lang failed"; }
  log "(c) registro.exe translate --lang $lang --register formal --model $MODEL (2 sentences): $(secs "$t") s"
  python3 - "$lang" "$work/tr-$lang.json" <<'EOF' || fail "registro.exe translate --lang $lang: output not in the target language (see above)"
import json, re, sys
lang, path = sys.argv[1], sys.argv[2]
out = json.load(open(path))
segs = out["segments"]
english = {"the", "you", "your", "will", "can", "send", "report", "friday", "thank", "help", "call", "tomorrow", "by", "for"}
target = {
    "it": {"il", "la", "le", "di", "che", "per", "mi", "può", "potrebbe", "inviare", "mandare", "rapporto", "relazione",
           "venerdì", "grazie", "aiuto", "domani", "chiamerò", "lei", "la", "sua", "suo", "entro", "ti", "è", "un", "una"},
    "de": {"der", "die", "das", "den", "dem", "und", "sie", "ihnen", "ihr", "ihre", "ich", "mir", "bis", "freitag",
           "bericht", "danke", "vielen", "hilfe", "morgen", "werde", "können", "könnten", "schicken", "senden", "für", "an"},
}[lang]
ok = len(segs) == 2
for s in segs:
    words = re.findall(r"\w+", s["text"].lower())
    en = sum(w in english for w in words)
    tg = sum(w in target for w in words)
    good = bool(s["text"].strip()) and s["text"].strip() != s["source"].strip() and tg > en
    ok &= good
    print(f"    [{lang}] {s['source']}\n         -> {s['text']}\n         verdict {s['verdict']}, flagged {s['flagged']}"
          f"{' (' + s['flag_reason'] + ')' if s.get('flag_reason') else ''}; {tg} {lang} / {en} English words"
          f"{'' if good else '  <-- NOT a translation into ' + lang}", file=sys.stderr)
if len(segs) != 2:
    print(f"    expected 2 segments, got {len(segs)}", file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
done

# ---- (d) the installer, when `build-windows.sh installer` has built it: a silent install into the prefix puts the
# app, the CLI and data\examples side by side, the installed CLI finds its pools, and the uninstaller removes it ----
DIST="${WINDOWS_TARGET_DIR:-$HOME/.cache/registro/target-windows}/dist"
setup="$(ls -t "$DIST"/Registro_*_x64-setup.exe 2>/dev/null | head -1 || true)"
if [ -n "$setup" ]; then
  t=$(now)
  inst="$WINEPREFIX/drive_c/registro-test/Registro"
  rm -rf "$WINEPREFIX/drive_c/registro-test"
  wine "$setup" /S '/D=C:\registro-test\Registro' || fail "the installer $setup failed"
  for f in registro-app.exe WebView2Loader.dll registro.exe THIRD_PARTY.md uninstall.exe data/examples/README.md \
    data/examples/cocoa-mt/en-it; do
    [ -e "$inst/$f" ] || fail "the installer did not install $f into C:\\registro-test\\Registro"
  done
  env -u REGISTRO_DATA -u REGISTRO_SHARED_DATA wine 'C:\registro-test\Registro\registro.exe' --db "$WIN_DB" doctor --offline \
    >"$work/doctor-installed.txt" 2>&1 || fail "the installed registro.exe doctor failed"
  grep -q 'registro-test.Registro.data (beside the binary)' "$work/doctor-installed.txt" \
    || { cat "$work/doctor-installed.txt" >&2; fail "the installed registro.exe does not find its data beside itself"; }
  wine 'C:\registro-test\Registro\uninstall.exe' /S || fail "the uninstaller failed"
  wineserver -w
  for _ in 1 2 3 4 5 6 7 8 9 10; do [ -e "$inst/registro.exe" ] || break; sleep 1; done
  [ ! -e "$inst/registro.exe" ] || fail "the uninstaller left registro.exe behind"
  log "(d) installer $(basename "$setup"): silent install, the installed CLI finds data\\examples beside itself, uninstall: $(secs "$t") s"
else
  log "(d) skipped: no installer in $DIST (bash scripts/build-windows.sh installer)"
fi

log "all Windows checks passed"
