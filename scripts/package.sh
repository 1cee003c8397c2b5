#!/usr/bin/env bash
# Builds the Linux packages a translator installs: release .deb and .rpm of the Registro window (/usr/bin/registro-app)
# with the `registro` command-line tool (/usr/bin/registro), the translation examples (/usr/share/registro/examples),
# a desktop entry and icon, "Open with Registro" for .xlf .xliff .po .srt .vtt .md .docx (desktop MimeType= plus
# /usr/share/mime/packages/registro.xml) and the licences (/usr/share/doc/registro). Models are not packaged: the
# window downloads them (or `registro models fetch`); their manifests and the UI's fonts are compiled in.
#
#   scripts/package.sh            # builds, then prints the packages' sizes and `apt-get install --simulate`
#   scripts/package.sh --debug    # the same packages from the dev-profile binaries the test suite already built
#
# --debug is what scripts/test.sh uses: the package's layout, contents, dependencies and desktop integration are the
# same, and it costs no second compile of candle and Tauri (a cold release build is 20-30 min on 2 cores, which with
# the cold Windows build pushed CI past its 90 min). Releases are built without it.
#
# Tauri's bundler (@tauri-apps/cli, pinned in ui/package.json) writes both packages itself: no rpmbuild needed
# (`rpm` from apt only to inspect them). The bundle settings are in src-tauri/tauri.conf.json (bundle.linux); what
# depends on this machine is merged in with --config: the CLI binary's path and the Depends/Requires read from the
# binaries (dpkg-shlibdeps, ELF NEEDED), so the declared dependencies are exactly what the binaries load.
# AppImage is not built: Tauri's AppImage bundler downloads linuxdeploy and its plugins from GitHub, which no package
# registry carries (unreachable here).
#
# The release builds share $CARGO_TARGET_DIR/release with the benchmarks (scripts/env.sh); a cold build of candle and
# Tauri takes 20-30 min on 2 cores, a warm one a minute. Output: $REGISTRO_PACKAGE_DIR (default
# $CARGO_TARGET_DIR/packages): registro_<version>_amd64.deb and registro-<version>-1.x86_64.rpm.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
source scripts/env.sh

log() { printf '[package] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

for tool in cargo npm dpkg-deb dpkg-shlibdeps strip readelf; do
  command -v "$tool" >/dev/null || die "missing $tool (apt: dpkg-dev binutils; then scripts/setup-system.sh)"
done
[ -d data/examples ] || die "data/examples/ is missing: the packages ship it as /usr/share/registro/examples"
[ -f THIRD_PARTY.md ] || die "THIRD_PARTY.md is missing: the packages ship it in /usr/share/doc/registro"

PROFILE=release
case "${1:-}" in
  "") ;;
  --debug) PROFILE=debug ;;
  *) die "unknown option $1 (usage: scripts/package.sh [--debug])" ;;
esac

OUT="${REGISTRO_PACKAGE_DIR:-$CARGO_TARGET_DIR/packages}"
STAGE="$CARGO_TARGET_DIR/package-stage"
REL="$CARGO_TARGET_DIR/$PROFILE"
rm -rf "$STAGE"
mkdir -p "$OUT" "$STAGE"
# Always the checkout's src-tauri/ and ui/, whatever the CLI would find by searching from the working directory.
export TAURI_APP_PATH="$ROOT/src-tauri" TAURI_FRONTEND_PATH="$ROOT/ui"
TAURI="$ROOT/ui/node_modules/.bin/tauri"

# ---- the web UI and the Tauri CLI ----
if [ ! -x "$TAURI" ] || [ ! -f ui/node_modules/.package-lock.json ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  log "ui: npm install"
  (cd ui && npm install --no-audit --no-fund)
fi
log "ui: npm run build"
(cd ui && npm run build --silent)

# ---- the binaries ----
t0=$SECONDS
if [ "$PROFILE" = release ]; then
  # The CLI and the window in one cargo invocation, so every dependency is compiled once with one feature set (two
  # invocations resolve features apart and compiled candle and much else twice: 20 more minutes cold on 2 cores). The
  # app's default feature is custom-protocol (the UI served from inside the binary), what `tauri build` enables;
  # `tauri bundle` below packages these binaries without building again.
  log "cargo build --release -p registro-cli -p registro-app"
  cargo build --release -p registro-cli -p registro-app
else
  # The test suite's own invocation, so nothing is resolved with another feature set (a no-op after scripts/test.sh's
  # build). Dependencies are optimised in dev builds (Cargo.toml), the workspace's hot crates too.
  log "cargo build --workspace --all-targets (dev profile)"
  cargo build --workspace --all-targets
fi
log "$PROFILE builds: $((SECONDS - t0)) s"

# The release profile keeps line tables for the benchmarks' profiles; users get the binaries without them. The app
# is stripped where the bundler takes it from (cargo does not look at the binary's contents, so it stays fresh).
cp "$REL/registro" "$STAGE/registro"
strip --strip-debug "$STAGE/registro"
strip --strip-debug "$REL/registro-app"

# ---- dependencies read from the binaries ----
BINS=("$REL/registro-app" "$STAGE/registro")
mkdir -p "$STAGE/shlibdeps/debian"
printf 'Source: registro\n\nPackage: registro\nArchitecture: any\n' >"$STAGE/shlibdeps/debian/control"
deb_depends="$(cd "$STAGE/shlibdeps" && dpkg-shlibdeps -O "${BINS[@]/#/-e}" 2>"$STAGE/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p')" ||
  { cat "$STAGE/shlibdeps.log" >&2; die "dpkg-shlibdeps failed"; }
[ -n "$deb_depends" ] || { cat "$STAGE/shlibdeps.log" >&2; die "dpkg-shlibdeps found no dependencies"; }
# RPM: what rpmbuild's find-requires would say, one `soname()(64bit)` per shared library the binaries load.
mapfile -t rpm_requires < <(for b in "${BINS[@]}"; do readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; done |
  grep -v '^ld-linux' | sort -u | sed 's/$/()(64bit)/')
log "deb Depends: $deb_depends"
log "rpm Requires: ${rpm_requires[*]}"

python3 - "$STAGE/package.conf.json" "$STAGE/registro" "$deb_depends" "${rpm_requires[@]}" <<'EOF'
import json, sys
out, cli, deb, *rpm = sys.argv[1:]
files = {"/usr/bin/registro": cli}
conf = {"bundle": {"linux": {
    "deb": {"files": files, "depends": [d.strip() for d in deb.split(",") if d.strip()]},
    "rpm": {"files": files, "depends": rpm},
}}}
json.dump(conf, open(out, "w"), indent=2)
EOF

# ---- the packages ----
log "tauri bundle --bundles deb,rpm"
rm -rf "$REL/bundle/deb" "$REL/bundle/rpm"
bundle_flags=(--bundles deb,rpm --ci --config "$STAGE/package.conf.json")
[ "$PROFILE" = debug ] && bundle_flags+=(--debug)
"$TAURI" bundle "${bundle_flags[@]}"
VERSION="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' src-tauri/tauri.conf.json | head -1)"
DEB="$OUT/registro_${VERSION}_amd64.deb"
RPM="$OUT/registro-${VERSION}-1.x86_64.rpm"
cp "$REL/bundle/deb/Registro_${VERSION}_amd64.deb" "$DEB"
cp "$REL/bundle/rpm/Registro-${VERSION}-1.x86_64.rpm" "$RPM"

# ---- what came out ----
# The package must hold what the binaries look for; a missing piece here is a broken install later.
# (Tauri's bundler writes the paths without a leading ./)
listing="$(dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./||')"
for want in usr/bin/registro-app usr/bin/registro usr/share/registro/examples/README.md \
  usr/share/registro/examples/cocoa-mt/LICENSE usr/share/registro/examples/iwslt2023/LICENSE \
  usr/share/registro/examples/cocoa-mt/en-it/formality-control.train.telephony.en-it.formal.it \
  usr/share/applications/Registro.desktop usr/share/mime/packages/registro.xml \
  usr/share/doc/registro/THIRD_PARTY.md usr/share/doc/registro/copyright usr/share/icons/hicolor/128x128/apps/registro-app.png; do
  grep -qx "$want" <<<"$listing" || die "$DEB lacks /$want"
done
desktop="$(dpkg-deb --fsys-tarfile "$DEB" | tar -xO --wildcards '*usr/share/applications/Registro.desktop')"
grep -q '^Exec=registro-app %f$' <<<"$desktop" || die "the desktop entry does not open files: $desktop"
if command -v desktop-file-validate >/dev/null; then
  printf '%s\n' "$desktop" >"$STAGE/Registro.desktop"
  desktop-file-validate "$STAGE/Registro.desktop" || die "desktop-file-validate rejects the desktop entry"
fi

echo
echo "== packages (in $OUT) =="
for p in "$DEB" "$RPM"; do printf '%-50s %6s\n' "$(basename "$p")" "$(du -h "$p" | cut -f1)"; done
echo
echo "== dpkg-deb -I $(basename "$DEB") =="
dpkg-deb -I "$DEB" | sed -n '/^ Package:/,$p'
echo "installed: $(dpkg-deb -f "$DEB" Installed-Size) KiB"
echo
echo "== $(basename "$RPM") =="
if command -v rpm >/dev/null; then
  rpm -qip "$RPM" 2>/dev/null | grep -E '^(Name|Version|Release|Architecture|Size|License|Summary)'
  echo "Requires: $(rpm -qp --requires "$RPM" 2>/dev/null | tr '\n' ' ')"
else
  echo "(install rpm from apt to inspect it: apt-get install rpm)"
fi
echo
echo "== apt-get install --simulate $DEB =="
# Resolves the declared Depends against this machine's package lists (run `apt-get update` first on a bare one).
apt-get install --simulate "$DEB" 2>&1 | grep -v '^NOTE: This is only a simulation' | tail -n 15
apt-get install --simulate "$DEB" >/dev/null 2>&1 || die "the .deb's dependencies do not resolve here"
# Here every dependency is installed already; with an empty dpkg status apt resolves them as on a bare machine, from
# this machine's package sources (Debian 12 bookworm + security).
: >"$STAGE/empty-status"
bare="$(apt-get install --simulate -o Dir::State::status="$STAGE/empty-status" "$DEB" 2>&1)" ||
  { tail -n 20 <<<"$bare" >&2; die "the .deb's dependencies do not resolve on a bare system from this machine's package sources"; }
echo "as on a bare system (empty dpkg status): $(grep -c '^Inst ' <<<"$bare") packages would be installed, registro included; $(grep -E '^[0-9]+ upgraded' <<<"$bare")"
echo
log "done: $DEB $RPM"
