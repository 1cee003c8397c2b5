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

# The wheels ship versioned sonames only; the linker looks for lib<name>.so.
for lib in cudart.so.13 nvrtc.so.13 cublas.so.13 cublasLt.so.13 curand.so.10; do
  ln -sf "lib$lib" "$CU/lib/lib${lib%.so.*}.so"
done

# candle links the driver (libcuda) directly, and no wheel carries it (it comes with the NVIDIA driver). Like the
# toolkit's lib/stubs/libcuda.so, a stub lets the build link: every entry point the bindings declare returns
# CUDA_ERROR_STUB_LIBRARY (34). It is only ever on the link path; at run time the real driver's libcuda.so.1 is used.
step "driver stub for linking: $CU/lib/stubs/libcuda.so"
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
nice -n 19 cargo build --locked "${packages[@]}"
echo "  built in $(( $(date +%s) - start )) s"
echo "$CUDA_VERSION" >"$KERNELS_STAMP"

BIN="$CARGO_TARGET_DIR/debug/registro"
step "what the CUDA binary needs at run time (ldd)"
LD_LIBRARY_PATH="$CU/lib:$CU/lib/stubs" ldd "$BIN" | grep -E 'cuda|cublas|curand|nvrtc' | sed 's/ (0x.*//'

# With the stub standing in for a missing driver, the binary must say so and use the CPU, not crash.
step "registro --device cuda doctor (no driver here: the stub answers)"
out=$(LD_LIBRARY_PATH="$CU/lib:$CU/lib/stubs" "$BIN" --device cuda doctor --offline 2>&1)
echo "$out"
grep -q '^backends: *cpu, cuda$' <<<"$out" || { echo "FAILED: the binary has no CUDA backend" >&2; exit 1; }
grep -q 'CUDA_ERROR_STUB_LIBRARY.*install the NVIDIA driver); using the CPU instead' <<<"$out" ||
  { echo "FAILED: a missing driver did not fall back to the CPU with the reason" >&2; exit 1; }
if [ -z "${REGISTRO_CUDA_ONLY_CLI:-}" ]; then
  step "app: $CARGO_TARGET_DIR/debug/registro-app"
  LD_LIBRARY_PATH="$CU/lib:$CU/lib/stubs" ldd "$CARGO_TARGET_DIR/debug/registro-app" | grep -c -E 'libcuda\.so|libcublas' |
    grep -qx 3 || { echo "FAILED: the app is not linked against CUDA" >&2; exit 1; }
  echo "  linked against libcuda, libcublas, libcublasLt"
fi
# A driver runs PTX of its own CUDA version or older: CUDA 13.0's PTX ISA is 9.0 (R580 drivers and newer).
step "PTX version the kernels carry"
ptx=$(strings "$BIN" | grep -m1 -oE '^\.version [0-9]+\.[0-9]+' || true)
echo "  ${ptx:-none found}"
[ "$ptx" = ".version 9.0" ] || { echo "FAILED: expected PTX .version 9.0 from CUDA $CUDA_VERSION, found '${ptx}'" >&2; exit 1; }
step "CUDA build OK"
