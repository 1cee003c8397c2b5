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
