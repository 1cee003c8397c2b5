#!/usr/bin/env bash
# Packs the engine's GPU tests for a machine with an NVIDIA GPU but no Rust: the tiny-model test binaries built with
# --features cuda (after scripts/check-gpu-build.sh has set up the CUDA 13.0 wheels and the CUDA target dir),
# stripped, in DIR/gpu-tests.tgz beside DIR/run.sh, which runs them there on the GPU with REGISTRO_EXPECT_DEVICE=cuda
# (a silent fall back to the CPU fails them) against the machine's own CUDA 13 libraries and driver.
#
#   scripts/pack-gpu-tests.sh DIR      # then, on the GPU machine: bash DIR/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
DIR=$(mkdir -p "${1:?usage: scripts/pack-gpu-tests.sh DIR}" && cd "$1" && pwd)
source scripts/cuda-env.sh
[ -x "$CU/bin/nvcc" ] || { echo "no CUDA $CUDA_VERSION toolkit in $CU: run scripts/check-gpu-build.sh first" >&2; exit 1; }
# The binaries load CUDA at run time and link its runtime statically (scripts/cuda-env.sh): nothing else to link.
TESTS=(tiny_decoders continuous_batching score_many)
args=(); for t in "${TESTS[@]}"; do args+=(--test "$t"); done
nice -n 19 bash -c 'source scripts/env.sh; source scripts/cuda-env.sh; cargo_cuda test -p registro-engine --features cuda --no-run "$@" --message-format=json' _ "${args[@]}" 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])' >"$DIR/executables"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
while read -r name exe; do strip -o "$work/$name" "$exe"; done <"$DIR/executables"
tar czf "$DIR/gpu-tests.tgz" -C "$work" "${TESTS[@]}"
cat >"$DIR/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs the packed engine tests on this machine's GPU (CUDA 13 libraries and an R580+ driver found on the machine).
set -uo pipefail
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
tar xzf gpu-tests.tgz
LP=""
for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libcuda.so.1; do
  d=$(find /opt /usr /usr/local -name "$lib" 2>/dev/null | head -1 | xargs -r dirname)
  echo "$lib -> ${d:-MISSING}"; [ -n "$d" ] && LP="$LP:$d"
done
export LD_LIBRARY_PATH="${LP#:}" REGISTRO_EXPECT_DEVICE=cuda RUST_BACKTRACE=1
status=0
for t in tiny_decoders continuous_batching score_many; do
  echo "== $t"; SECONDS=0
  timeout 300 "./$t" --test-threads=1 || status=1
  echo "   ($SECONDS s)"
done
exit $status
RUN
chmod +x "$DIR/run.sh"
ls -la "$DIR"
