# Sourced by scripts/check-gpu-build.sh and scripts/pack-gpu-tests.sh: where the CUDA toolkit wheels are unpacked,
# the CUDA build's own target dir, and the environment candle's CUDA build scripts read.
#
# The toolkit that compiles candle's kernels decides which drivers can run them: its PTX carries the toolkit's PTX
# ISA version, and a driver JIT-compiles only the versions it knows. Built with CUDA 13.4, every kernel was refused
# on an H200 with driver 580.159 (CUDA 13.0): CUDA_ERROR_UNSUPPORTED_PTX_VERSION. So the oldest 13.x toolkit it is,
# whose PTX runs on every driver from R580 up (cudarc 0.19, candle 0.11's CUDA bindings, knows 13.0 to 13.4). The
# libraries linked against (cuBLAS, cuRAND) are the machine's own at run time: any of the same soname.
CUDA_VERSION=13.0
CACHE="${REGISTRO_CUDA_CACHE:-$HOME/.cache/registro/cuda}"
ROOT="$CACHE/$CUDA_VERSION"
CU="$ROOT/nvidia/cu13"
export CARGO_TARGET_DIR="${REGISTRO_CUDA_TARGET_DIR:-$HOME/.cache/registro/target-cuda}"
export PATH="$CU/bin:$PATH"                      # nvcc (cudaforge and cudarc run it; nvcc.profile finds cicc, cccl)
export CUDA_ROOT="$CU" CUDA_HOME="$CU"           # cudarc's link search: $CUDA_ROOT/lib and lib/stubs
export CUDA_COMPUTE_CAP="${CUDA_COMPUTE_CAP:-80}" # no GPU to ask
export CUDAFORGE_THREADS="${CUDAFORGE_THREADS:-1}"
# CUDA's runtime, linked statically. candle-kernels links `cudart` for its MMQ/MoE kernels (cargo:rustc-link-lib=
# dylib=cudart); a dynamic libcudart.so.13 would make the system loader refuse to start the binary on a machine
# without CUDA. This folder, searched first by the linker (LIBRARY_PATH, which cargo does not fingerprint), holds a
# `libcudart.so` that is a linker script naming the wheel's libcudart_static.a (redistributable under the CUDA EULA),
# so the binaries need no CUDA library to start; the static runtime opens the driver when a GPU is first used.
CUDART_LINK_DIR="$CACHE/link-static-cudart-$CUDA_VERSION"
mkdir -p "$CUDART_LINK_DIR"
[ ! -f "$CU/lib/libcudart_static.a" ] || echo "INPUT($CU/lib/libcudart_static.a)" >"$CUDART_LINK_DIR/libcudart.so"
export LIBRARY_PATH="$CUDART_LINK_DIR${LIBRARY_PATH:+:$LIBRARY_PATH}"

# candle-core as crates.io has it but for one feature: its cudarc dependency loads the driver and CUDA's libraries at
# run time (`dynamic-loading`) instead of linking them (`dynamic-linking`), so the CUDA build starts on a machine
# without them and registro-engine's device.rs takes the CPU with the reason. The copy is made from cargo's own
# (checksum-verified) download into the cache, outside the clone, so its files keep their times and CI does not
# recompile candle for a new checkout; only the CUDA builds use it (`cargo_cuda`), the CPU build is untouched.
CANDLE_VERSION=$(awk '/^name = "candle-core"$/ { getline; gsub(/[^0-9.]/, ""); print }' Cargo.lock)
CANDLE_PATCHED="$CACHE/candle-core-$CANDLE_VERSION-dynamic-loading"
prepare_candle_patch() {
  [ ! -f "$CANDLE_PATCHED/.registro-patched" ] || return 0
  cargo fetch --locked --quiet
  local src
  src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"candle-core-$CANDLE_VERSION" | head -1)
  rm -rf "$CANDLE_PATCHED.tmp" && cp -r "$src" "$CANDLE_PATCHED.tmp"
  grep -q '"dynamic-linking",' "$CANDLE_PATCHED.tmp/Cargo.toml" ||
    { echo "candle-core $CANDLE_VERSION has no cudarc dynamic-linking feature to switch: check scripts/cuda-env.sh" >&2; return 1; }
  sed -i 's/"dynamic-linking",/"dynamic-loading",/' "$CANDLE_PATCHED.tmp/Cargo.toml"
  touch "$CANDLE_PATCHED.tmp/.registro-patched"
  rm -rf "$CANDLE_PATCHED" && mv "$CANDLE_PATCHED.tmp" "$CANDLE_PATCHED"
}
# cargo with that candle-core. A path patch rewrites candle-core's entry in Cargo.lock (no source, no checksum), so the
# checkout's lock is put back afterwards: the patch is a property of the CUDA build, not of the repository.
cargo_cuda() {
  prepare_candle_patch
  local lock rc=0
  lock=$(mktemp)
  cp Cargo.lock "$lock"
  cargo --config "patch.crates-io.candle-core.path=\"$CANDLE_PATCHED\"" "$@" || rc=$?
  cp "$lock" Cargo.lock
  rm -f "$lock"
  return $rc
}
