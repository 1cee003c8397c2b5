#!/usr/bin/env bash
# Proves that the CUDA build of the CLI and the app compiles and links, on a machine with no GPU and no CUDA install:
# the CUDA 13.0 compiler, headers and libraries come as pinned PyPI wheels (sha256-checked by pip) unpacked into a
# cache outside the clone, and the build goes to its own target dir so the CPU build's cache is never disturbed.
#
#   scripts/check-gpu-build.sh            # wheels (once), then `cargo build --features cuda` of registro + registro-app
#   REGISTRO_CUDA_ONLY_CLI=1 scripts/...  # the CLI alone (skips the Tauri app)
#
# Environment: REGISTRO_CUDA_CACHE (default ~/.cache/registro/cuda), REGISTRO_CUDA_TARGET_DIR (default
# ~/.cache/registro/target-cuda), CUDA_COMPUTE_CAP (default 80: Ampere; the PTX also JITs on newer GPUs).
# Cold, on 2 busy cores, it takes the better part of an hour (candle's CUDA kernels + Tauri); warm, minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

source scripts/cuda-env.sh   # CUDA_VERSION (13.0, and why), CACHE, ROOT, CU, the CUDA target dir and build env

step() { printf '\n== %s\n' "$*"; }

step "CUDA $CUDA_VERSION toolkit wheels -> $ROOT"
mkdir -p "$CACHE/wheels"
REQ="$CACHE/requirements-$CUDA_VERSION.txt"
cat >"$REQ" <<'EOF'
nvidia-cuda-nvcc==13.0.88 --hash=sha256:56fe502eb77625a12f25172caa3cdddb4e4c8ba2c8c17dba44b164761b380f03
nvidia-nvvm==13.0.88 --hash=sha256:c5f41ffeb6466944a026dfa5317d7d85355c119bbec279205d22f1869d1054e0
nvidia-cuda-crt==13.0.88 --hash=sha256:2c8043c7c9e02492716426e9919fc78d2c5b3b2a7a768a88e952676b08aa55a4
nvidia-cuda-runtime==13.0.88 --hash=sha256:422a38f7c739ecbdd3a4b6ec7ed0a1d74db43d8e9bc26685f3d845638922b178
nvidia-cuda-nvrtc==13.0.88 --hash=sha256:ad9b6d2ead2435f11cbb6868809d2adeeee302e9bb94bcf0539c7a40d80e8575
nvidia-cuda-cccl==13.0.85 --hash=sha256:e0da7ad981f3a8aff08241b5bfc1af868742a63e2762f53a5171c492ef242649
nvidia-cublas==13.4.3.11 --hash=sha256:56682374ec2a1c386b20308a834ebb346c438db29db143e6e75b70b1b0009eea
nvidia-curand==10.4.4.72 --hash=sha256:25c3457ae7a224fdd484dab90b0fc5dc0e842fab5db3012afa4a5bd2af4eb7e5
EOF
STAMP="$ROOT/.registro-unpacked"
if ! cmp -s "$REQ" "$STAMP" 2>/dev/null; then
  python3 -m pip download --quiet --no-deps --require-hashes -r "$REQ" -d "$CACHE/wheels"
  rm -rf "$ROOT.tmp" && mkdir -p "$ROOT.tmp"
  while read -r spec _; do
    name="${spec%%==*}" version="${spec#*==}"
    wheel=$(ls "$CACHE/wheels/${name//-/_}-$version-"*.whl)
    python3 -m zipfile -e "$wheel" "$ROOT.tmp"
  done <"$REQ"
  chmod +x "$ROOT.tmp/nvidia/cu13/bin/"* "$ROOT.tmp/nvidia/cu13/nvvm/bin/"*
  rm -rf "$ROOT" && mv "$ROOT.tmp" "$ROOT"
  cp "$REQ" "$STAMP"
  rm -rf "$CACHE/wheels"   # 630 MB; the stamp says they are unpacked
fi

# The static CUDA runtime's linker script (scripts/cuda-env.sh; the wheels are unpacked only now on a first run).
echo "INPUT($CU/lib/libcudart_static.a)" >"$CUDART_LINK_DIR/libcudart.so"

# The wheels ship versioned sonames only; the linker looks for lib<name>.so.
for lib in cudart.so.13 nvrtc.so.13 cublas.so.13 cublasLt.so.13 curand.so.10; do
  ln -sf "lib$lib" "$CU/lib/lib${lib%.so.*}.so"
done

# The binaries load the driver (libcuda) and CUDA's libraries at run time (cudarc's dynamic-loading, switched on in
# candle-core by scripts/cuda-env.sh) and link CUDA's runtime statically, so no driver stub is needed to build. The stub below is only
# a test fixture: a libcuda whose every entry point returns CUDA_ERROR_STUB_LIBRARY (34), standing in for a broken
# driver install in the last check.
step "driver stub (test fixture only): $CU/lib/stubs/libcuda.so"
cargo fetch --locked --quiet
CUDARC_VERSION=$(awk '/^name = "cudarc"$/ { getline; gsub(/[^0-9.]/, ""); print }' Cargo.lock)
DRIVER_RS=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"cudarc-$CUDARC_VERSION"/src/driver/sys/mod.rs | head -1)
mkdir -p "$CU/lib/stubs"
grep -A1 'extern "C" {' "$DRIVER_RS" | grep -oE '^ *fn cu[A-Za-z0-9_]+' | sed 's/ *fn //' | sort -u |
  sed 's/.*/int &(void) { return 34; }/' >"$CU/lib/stubs/libcuda-stub.c"
echo "  $(wc -l <"$CU/lib/stubs/libcuda-stub.c") driver entry points (from cudarc $CUDARC_VERSION)"
cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$CU/lib/stubs/libcuda.so" "$CU/lib/stubs/libcuda-stub.c"
ln -sf libcuda.so "$CU/lib/stubs/libcuda.so.1"

step "nvcc"
nvcc --version | tail -2

step "cargo build --features cuda (target dir $CARGO_TARGET_DIR)"
packages=(-p registro-cli --features registro-cli/cuda)
[ -n "${REGISTRO_CUDA_ONLY_CLI:-}" ] || packages+=(-p registro-app --features registro-app/cuda)
# candle-kernels' build script does not rerun when nvcc changes, so a target dir built with another toolkit would
# keep that toolkit's PTX (seen here: 13.4's PTX after the switch to 13.0). Its kernels are rebuilt once per toolkit.
KERNELS_STAMP="$CARGO_TARGET_DIR/.registro-cuda-version"
if [ "$(cat "$KERNELS_STAMP" 2>/dev/null)" != "$CUDA_VERSION" ]; then
  cargo clean --quiet -p candle-kernels || true
fi
start=$(date +%s)
rc=0
nice -n 19 bash -c 'source scripts/env.sh; source scripts/cuda-env.sh; cargo_cuda build "$@"' _ "${packages[@]}" || rc=$?
# The stamp as soon as the kernels exist (they were cleaned above unless built by this toolkit): a later failure, a
# link error say, must not make the next run clean and recompile them (a quarter of an hour on 2 cores).
if ls "$CARGO_TARGET_DIR"/debug/deps/libcandle_kernels-*.rlib >/dev/null 2>&1; then echo "$CUDA_VERSION" >"$KERNELS_STAMP"; fi
[ "$rc" = 0 ] || { echo "FAILED: the CUDA build (exit $rc)" >&2; exit "$rc"; }
echo "  built in $(( $(date +%s) - start )) s"

BIN="$CARGO_TARGET_DIR/debug/registro"
APP="$CARGO_TARGET_DIR/debug/registro-app"
step "what the CUDA binaries need at run time (ldd): no CUDA library"
bins=("$BIN"); [ -n "${REGISTRO_CUDA_ONLY_CLI:-}" ] || bins+=("$APP")
for b in "${bins[@]}"; do
  linked=$(env -u LD_LIBRARY_PATH ldd "$b" | grep -E 'libcuda|libcublas|libcurand|libnvrtc|libcudart' || true)
  [ -z "$linked" ] || { echo "FAILED: $b is linked against CUDA, so it cannot start without the driver:" >&2; echo "$linked" >&2; exit 1; }
  echo "  $(basename "$b"): $(env -u LD_LIBRARY_PATH ldd "$b" | wc -l) libraries, none of CUDA's"
done

# One package for GPU and CPU users: on this machine there is no driver and nothing of CUDA on the loader's path, and
# the CUDA build must start, say why the GPU is not used, and work on the CPU.
step "registro --device cuda doctor, with no driver and no CUDA library on the path"
out=$(env -u LD_LIBRARY_PATH "$BIN" --device cuda doctor --offline 2>&1) ||
  { echo "$out"; echo "FAILED: the CUDA build did not start without a driver" >&2; exit 1; }
echo "$out"
grep -q '^backends: *cpu, cuda$' <<<"$out" || { echo "FAILED: the binary has no CUDA backend" >&2; exit 1; }
grep -q 'the NVIDIA driver is not installed.*using the CPU instead' <<<"$out" ||
  { echo "FAILED: a missing driver did not fall back to the CPU with the reason" >&2; exit 1; }
! grep -q 'panicked' <<<"$out" || { echo "FAILED: a panic message reached the user" >&2; exit 1; }
step "registro --device cuda translate, with no driver: the CPU translates"
MODEL=qwen2.5-coder-0.5b-instruct
if [ -d "${REGISTRO_MODELS:-$HOME/.cache/registro/models}/$MODEL" ]; then
  work=$(mktemp -d)
  printf 'Thank you for your help yesterday.\n' >"$work/in.en"
  env -u LD_LIBRARY_PATH "$BIN" --db "$work/r.db" --device cuda translate --lang it --register formal --model "$MODEL" \
    --input "$work/in.en" --output "$work/out.it" >"$work/log" 2>&1 ||
    { tail -n 20 "$work/log"; echo "FAILED: the CUDA build could not translate on the CPU without a driver" >&2; exit 1; }
  grep -m1 'using the CPU instead' "$work/log" || true
  out_it=$(cat "$work/out.it")
  echo "  → $out_it"
  [ -n "$out_it" ] || { echo "FAILED: empty translation" >&2; exit 1; }
  rm -rf "$work"
else
  echo "  skipped: $MODEL is not in the model cache (scripts/test.sh fetches it first)"
fi
# A broken driver install (the stub's libcuda, which refuses every call): the same fall back, with the driver's words.
step "registro --device cuda doctor with a broken driver (the stub libcuda on the path)"
out=$(LD_LIBRARY_PATH="$CU/lib:$CU/lib/stubs" "$BIN" --device cuda doctor --offline 2>&1) ||
  { echo "$out"; echo "FAILED: the CUDA build did not start with a broken driver" >&2; exit 1; }
grep -q 'CUDA_ERROR_STUB_LIBRARY.*install the NVIDIA driver); using the CPU instead' <<<"$out" ||
  { echo "$out"; echo "FAILED: a broken driver did not fall back to the CPU with the reason" >&2; exit 1; }
grep 'using the CPU instead' <<<"$out"
# A driver runs PTX of its own CUDA version or older: CUDA 13.0's PTX ISA is 9.0 (R580 drivers and newer).
step "PTX version the kernels carry"
ptx=$(strings "$BIN" | grep -m1 -oE '^\.version [0-9]+\.[0-9]+' || true)
echo "  ${ptx:-none found}"
[ "$ptx" = ".version 9.0" ] || { echo "FAILED: expected PTX .version 9.0 from CUDA $CUDA_VERSION, found '${ptx}'" >&2; exit 1; }
step "CUDA build OK"
