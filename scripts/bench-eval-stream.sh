#!/usr/bin/env bash
# `registro eval` at scale: generates a hypothesis/reference pair of LINES lines (default 1,000,000, about 30 MB
# each: 5-word windows of the IWSLT 2022 EN-DE submission and its reference, so the n-gram overlap is real MT's)
# under /tmp and prints the wall time and peak RSS of the release binary scoring it with the default metrics
# (BLEU, chrF, TER), once storing the run, once with --no-store, and once with a second system and sacrebleu's
# paired bootstrap (1000 resamples of 1M segments: the indices are drawn a block at a time). Issue 21's goal:
# ≤ 1 GB peak RSS.
#
#   scripts/bench-eval-stream.sh                 # builds nothing; run `cargo build --release --bin registro` first
#   LINES=200000 REGISTRO_BIN=/path/to/registro scripts/bench-eval-stream.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-common.sh
LINES="${LINES:-1000000}"
WORK="${WORK:-/tmp/registro-bench-eval-stream}"
bench_needs iwslt2022-umd/en-de "IWSLT 2022" "cargo build --release --bin registro"
HYP="$WORK/hyp.$LINES.de" HYP2="$WORK/hyp2.$LINES.de" REF="$WORK/ref.$LINES.de"
if [ ! -s "$HYP" ] || [ ! -s "$HYP2" ] || [ ! -s "$REF" ]; then
  python3 - "$DATA" "$LINES" "$HYP" "$HYP2" "$REF" <<'EOF'
import sys
data, n, hyp_path, hyp2_path, ref_path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
hyp = [l.split() for l in open(f"{data}/formality-control-1.formal.de", encoding="utf-8")]
hyp2 = [l.split() for l in open(f"{data}/formality-control-2.formal.de", encoding="utf-8")]
ref = [l.split() for l in open(f"{data}/formality-control.test.en-de.formal.de", encoding="utf-8")]
with open(hyp_path, "w", encoding="utf-8") as h, open(hyp2_path, "w", encoding="utf-8") as h2, open(ref_path, "w", encoding="utf-8") as r:
    for i in range(n):
        k, w = i % len(hyp), (i // len(hyp)) * 3
        for words, out in ((hyp[k], h), (hyp2[k], h2), (ref[k], r)):
            start = w % max(1, len(words) - 4)
            out.write(" ".join(words[start:start + 5]) + "\n")
EOF
fi
echo "input: $(wc -l < "$HYP") lines, hyp $(du -m "$HYP" | cut -f1) MB, ref $(du -m "$REF" | cut -f1) MB; binary $BIN"
measure() {
  local label="$1"; shift
  bench_time "$WORK/out.txt" "$@"
  printf '%-28s wall %8s   peak RSS %6d MB\n' "$label" "$WALL" "$RSS_MB"
  grep -E "^(BLEU|chrF2|TER)\|" "$WORK/out.txt" | cut -c1-160
}
rm -f "$WORK/bench.db"*
measure "eval, stored" "$BIN" --db "$WORK/bench.db" eval --hyp "$HYP" --ref "$REF" --lang de --project bench
measure "eval --no-store" "$BIN" --db "$WORK/bench.db" eval --no-store --hyp "$HYP" --ref "$REF" --lang de
measure "eval --paired-bs, 2 systems" "$BIN" --db "$WORK/bench.db" eval --no-store --hyp "$HYP" "$HYP2" --ref "$REF" --lang de --paired-bs
