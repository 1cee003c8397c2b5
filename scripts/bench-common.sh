# Sourced by the scripts/bench-*.sh benchmarks, after `cd` to the repository root: the release binary, the shared
# data set and a work folder, each checked before anything is measured, and one timed run.

source scripts/env.sh
BIN="${REGISTRO_BIN:-$CARGO_TARGET_DIR/release/registro}"

# bench_needs DATA_SUBDIR WHAT BUILD: sets DATA to the shared data set DATA_SUBDIR (named WHAT in the error) and
# makes $WORK; stops when the binary (built by BUILD) or the data is missing.
bench_needs() {
  DATA="${REGISTRO_SHARED_DATA:-../shared/data}/$1"
  [ -x "$BIN" ] || { echo "no release binary at $BIN ($3)" >&2; exit 1; }
  [ -d "$DATA" ] || { echo "no $2 data at $DATA (set REGISTRO_SHARED_DATA)" >&2; exit 1; }
  mkdir -p "$WORK"
}

# bench_time OUT CMD…: runs CMD under /usr/bin/time -v with its stdout in OUT; sets WALL ([h:]mm:ss.ss) and RSS_MB
# (peak resident set). On failure prints the end of CMD's stderr and the timing, and stops.
bench_time() {
  local out="$1"; shift
  /usr/bin/time -v "$@" > "$out" 2> "$WORK/time.txt" || { tail -40 "$WORK/time.txt" >&2; exit 1; }
  WALL=$(grep "Elapsed (wall clock)" "$WORK/time.txt" | awk '{print $NF}')
  RSS_MB=$(( $(grep "Maximum resident set size" "$WORK/time.txt" | awk '{print $NF}') / 1024 ))
}
