#!/usr/bin/env bash
# A long document through `registro translate --input` (issue 14: 10,000 segments in bounded memory). Writes
# SEGMENTS lines (default 10,000: the CoCoA-MT French training sources, repeated) under /tmp, translates them with
# the release binary and MODEL (default the 0.5B model), all controls, formal French, and prints segments/s, wall
# time and peak RSS. Run it with SEGMENTS=500 and SEGMENTS=2000 as well: peak RSS should not grow with the length.
#
#   scripts/bench-long-document.sh            # builds nothing; run `cargo build --workspace --release --bin registro` first
#   SEGMENTS=1000 MODEL=qwen2.5-coder-1.5b-instruct scripts/bench-long-document.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-common.sh
SEGMENTS="${SEGMENTS:-10000}"
MODEL="${MODEL:-qwen2.5-coder-0.5b-instruct}"
WORK="${WORK:-/tmp/registro-bench-long-document}"
bench_needs cocoa-mt/train/en-fr CoCoA-MT "cargo build --workspace --release --bin registro"
IN="$WORK/doc.$SEGMENTS.en"
if [ ! -s "$IN" ]; then
  cat "$DATA"/*.en | awk -v n="$SEGMENTS" '{ l[NR] = $0 } END { for (i = 0; i < n; i++) print l[i % NR + 1] }' > "$IN"
fi
echo "input: $(wc -l < "$IN") segments; model $MODEL; binary $BIN; load average $(cut -d' ' -f1-3 /proc/loadavg)"
bench_time "$WORK/stdout.txt" "$BIN" --db "$WORK/bench.db" translate --input "$IN" --output "$WORK/out.fr" --lang fr \
  --register formal --model "$MODEL"
secs=$(echo "$WALL" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
out=$(wc -l < "$WORK/out.fr")
echo "$SEGMENTS segments, $out lines out: wall $WALL ($(awk -v n="$SEGMENTS" -v s="$secs" 'BEGIN { printf "%.2f", n / s }') segments/s, model load included), peak RSS $RSS_MB MiB; load average $(cut -d' ' -f1-3 /proc/loadavg)"
