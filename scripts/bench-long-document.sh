#!/usr/bin/env bash
# A long document through `registro translate --input` (issue 14: 10,000 segments in bounded memory). Writes
# SEGMENTS lines (default 10,000: the CoCoA-MT French training sources, repeated) under /tmp, translates them with
# the release binary and MODEL (default the 0.5B model), all controls, formal French, and prints segments/s, wall
# time and peak RSS. Run it with SEGMENTS=500 and SEGMENTS=2000 as well: peak RSS should not grow with the length.
#
# With KILL_AFTER=SECONDS it proves the crash path instead: the translation is killed with SIGKILL after that many
# seconds (no chance to clean up, as a power cut), the store is asked how many segments it kept, and
# `registro runs resume` finishes the run. It prints the resident memory sampled every 10 s in both phases, how many
# segments each phase produced (the resume must produce only the missing ones) and the total stored.
# EXTRA passes more `translate` options (e.g. EXTRA="--sentence-examples 0 --no-meaning-check" for the fast path).
#
#   scripts/bench-long-document.sh            # builds nothing; run `cargo build --workspace --release --bin registro` first
#   SEGMENTS=1000 MODEL=qwen2.5-coder-1.5b-instruct scripts/bench-long-document.sh
#   KILL_AFTER=600 scripts/bench-long-document.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-common.sh
SEGMENTS="${SEGMENTS:-10000}"
MODEL="${MODEL:-qwen2.5-coder-0.5b-instruct}"
WORK="${WORK:-/tmp/registro-bench-long-document}"
EXTRA="${EXTRA:-}"
bench_needs cocoa-mt/train/en-fr CoCoA-MT "cargo build --workspace --release --bin registro"
IN="$WORK/doc.$SEGMENTS.en"
if [ ! -s "$IN" ]; then
  cat "$DATA"/*.en | awk -v n="$SEGMENTS" '{ l[NR] = $0 } END { for (i = 0; i < n; i++) print l[i % NR + 1] }' > "$IN"
fi
echo "input: $(wc -l < "$IN") segments; model $MODEL; binary $BIN; load average $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -z "${KILL_AFTER:-}" ]; then
  # shellcheck disable=SC2086 # EXTRA is a list of options
  bench_time "$WORK/stdout.txt" "$BIN" --db "$WORK/bench.db" translate --input "$IN" --output "$WORK/out.fr" --lang fr \
    --register formal --model "$MODEL" $EXTRA
  secs=$(echo "$WALL" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  out=$(wc -l < "$WORK/out.fr")
  echo "$SEGMENTS segments, $out lines out: wall $WALL ($(awk -v n="$SEGMENTS" -v s="$secs" 'BEGIN { printf "%.2f", n / s }') segments/s, model load included), peak RSS $RSS_MB MiB; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi

DB="$WORK/crash.db"
rm -f "$DB" "$DB-wal" "$DB-shm"

# sample PID LABEL: the process's resident memory every 10 s until it exits, one "LABEL t=…s rss=… MiB" line each.
sample() {
  local pid="$1" label="$2" t=0
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$pid/status" 2>/dev/null || true)
    [ -n "$rss" ] && echo "$label t=${t}s rss=${rss} MiB"
    sleep 10
    t=$((t + 10))
  done
}

# stored: how many segments the store holds for the run, and its status.
stored() {
  "$BIN" --db "$DB" --json runs show "$1" | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["run"]["completed_segments"], r["run"]["status"], len(r["missing_segments"]))'
}

start=$(date +%s)
# shellcheck disable=SC2086
"$BIN" --db "$DB" translate --input "$IN" --lang fr --register formal --model "$MODEL" $EXTRA > "$WORK/crash.stdout" 2> "$WORK/crash.stderr" &
pid=$!
sample "$pid" translate > "$WORK/rss.translate.txt" &
sleep "$KILL_AFTER"
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
killed_at=$(( $(date +%s) - start ))
run=$("$BIN" --db "$DB" --json runs list | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])')
read -r before status_before missing_before < <(stored "$run")
echo "killed (SIGKILL) after ${killed_at}s: run $run is '$status_before' with $before of $SEGMENTS segments stored, $missing_before missing"

start=$(date +%s)
"$BIN" --db "$DB" runs resume "$run" > "$WORK/resume.stdout" 2> "$WORK/resume.stderr" &
pid=$!
sample "$pid" resume > "$WORK/rss.resume.txt" &
wait "$pid" || { tail -20 "$WORK/resume.stderr" >&2; exit 1; }
resumed_in=$(( $(date +%s) - start ))
read -r after status_after missing_after < <(stored "$run")
echo "resumed in ${resumed_in}s: run $run is '$status_after' with $after of $SEGMENTS segments stored, $missing_after missing ($((after - before)) produced by the resume)"
grep -i -E "segment|resum" "$WORK/resume.stderr" "$WORK/resume.stdout" | tail -3 || true
for phase in translate resume; do
  f="$WORK/rss.$phase.txt"
  sleep 1
  # Samples taken before the model is mapped (a few MiB) say nothing about the run: the first counted one is the
  # first above 100 MiB.
  awk -v p="$phase" '{ split($3, a, "="); v = a[2] + 0; if (v > max) max = v; n++; last = v; if (v > 100 && !first) first = v }
    END { printf "%s: %d samples, resident memory after the load %d MiB, last %d MiB, peak %d MiB\n", p, n, first, last, max }' "$f"
done
echo "every sample: $WORK/rss.translate.txt, $WORK/rss.resume.txt; load average $(cut -d' ' -f1-3 /proc/loadavg)"
