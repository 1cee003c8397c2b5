#!/usr/bin/env bash
# Measures what a local language model is worth per target language and register, and writes it into the model's
# manifest (models/<id>.toml, `[[quality]]` tables) with the date and the command, so both faces can say "Hindi with
# this model: poor … — use a larger model or a backend" before anyone translates with it (core
# models::quality_for turns the numbers into that verdict).
#
# The numbers come from `registro bench translate` on the held-out development split: the last 50 sources of each
# domain of the example pool's training folder, which the prompts' examples never include. Never a test set.
# The system measured is the one Translate runs by default (`--systems all`: every control but consensus).
#
# Usage: scripts/measure-quality.sh MODEL [LANGS] [LIMIT]
#   MODEL  a model id with a manifest in models/ (qwen2.5-coder-0.5b-instruct)
#   LANGS  comma-separated target languages (default: every language with a development split: de,es,fr,hi,it,
#          ja,ko,nl,pt,vi; Russian has no training folder, so it stays "not measured")
#   LIMIT  sources per language (default 12; each is translated formally and informally)
# REGISTRO_BIN picks the binary (default: the dev build, $CARGO_TARGET_DIR/debug/registro); PROFILE names it in
# the manifest ("dev build, dependencies optimised" by default). Each language is written as soon as it is
# measured, so an interrupted run keeps what it finished.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

model="${1:?usage: scripts/measure-quality.sh MODEL [LANGS] [LIMIT]}"
langs="${2:-de,es,fr,hi,it,ja,ko,nl,pt,vi}"
limit="${3:-12}"
bin="${REGISTRO_BIN:-$CARGO_TARGET_DIR/debug/registro}"
profile="${PROFILE:-dev build, dependencies optimised}"
manifest="models/$model.toml"
[ -f "$manifest" ] || { echo "no manifest $manifest" >&2; exit 1; }
[ -x "$bin" ] || { echo "no registro binary at $bin (cargo build --workspace --all-targets, or set REGISTRO_BIN)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for lang in ${langs//,/ }; do
  cmd="registro bench translate --lang $lang --limit $limit --model $model --systems all --no-llama-cpp"
  echo "$lang: $cmd" >&2
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$bin" --json bench translate --lang "$lang" --limit "$limit" --model "$model" --systems all --no-llama-cpp \
    > "$work/$lang.json"
  echo "$lang: measured in $(( $(date +%s) - start )) s" >&2
  python3 scripts/quality-table.py "$manifest" "$work/$lang.json" \
    "$(date -u +%Y-%m-%d) $cmd ($profile, $(nproc) cores)"
done
