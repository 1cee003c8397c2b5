#!/usr/bin/env bash
# The soak's numbers, re-measurable (issue 42): a generated XLIFF document (and, with FORMATS="xliff po", a PO file)
# translated by the dev-build `registro` through the OpenAI-compatible backend against the scripted, faulty server
# of crates/registro-cli/tests/soak_remote.rs, killed with SIGKILL at KILLS seeded points and finished by
# `registro runs resume`, at two lengths (SHORT and LONG segments). Prints, per length: segments/s over the whole
# soak (kills, restarts and injected faults included), kills, requests, faults injected and the CLI's peak resident
# memory (wait4's ru_maxrss over every process), then how peak memory grows per segment between the two lengths.
# Then the disk-full and read-only store checks (tests/store_faults.rs) with their error messages.
#
#   scripts/bench-soak.sh                        # 2,000 and 10,000 segments, 20 kills, XLIFF
#   SHORT=1000 LONG=5000 KILLS=10 SEED=7 FORMATS="xliff po" scripts/bench-soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
SHORT="${SHORT:-2000}"
LONG="${LONG:-10000}"
KILLS="${KILLS:-20}"
SEED="${SEED:-42}"
FORMATS="${FORMATS:-xliff}"
WORK="${WORK:-/tmp/registro-bench-soak}"
mkdir -p "$WORK"
cargo build --workspace --all-targets >/dev/null 2>&1 || cargo build --workspace --all-targets
echo "dev build; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"

for n in "$SHORT" "$LONG"; do
  for f in $FORMATS; do
    # One soak at a time: the numbers are the CLI's, not two soaks sharing the cores.
    REGISTRO_SOAK_SEGMENTS="$n" REGISTRO_SOAK_KILLS="$KILLS" REGISTRO_SOAK_SEED="$SEED" \
      cargo test --workspace --exclude registro-e2e --test soak_remote -- --nocapture --test-threads 1 "_${f}_" \
      > "$WORK/soak.$f.$n.txt" 2>&1 || { tail -40 "$WORK/soak.$f.$n.txt" >&2; exit 1; }
    grep -o 'soak [A-Za-z]*: .*' "$WORK/soak.$f.$n.txt"
  done
done

# Peak RSS per extra segment between the two lengths, per format.
for f in $FORMATS; do
  short=$(grep -ho 'peak RSS [0-9]*' "$WORK/soak.$f.$SHORT.txt" | awk '{print $3}')
  long=$(grep -ho 'peak RSS [0-9]*' "$WORK/soak.$f.$LONG.txt" | awk '{print $3}')
  awk -v f="$f" -v s="$SHORT" -v l="$LONG" -v a="$short" -v b="$long" 'BEGIN {
    printf "%s: peak RSS %d MiB at %d segments, %d MiB at %d: %.1f KiB more per segment\n", f, a, s, b, l, (b - a) * 1024 / (l - s) }'
done

cargo test --workspace --exclude registro-e2e --test store_faults -- --nocapture --test-threads 1 > "$WORK/store_faults.txt" 2>&1 \
  || { tail -40 "$WORK/store_faults.txt" >&2; exit 1; }
grep -oE '(disk full|read-only store)( by|:) .*' "$WORK/store_faults.txt"
echo "full logs: $WORK; load average $(cut -d' ' -f1-3 /proc/loadavg)"
