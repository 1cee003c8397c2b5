# Sourced by the scripts: where builds and models live. A target dir outside the clone lets CI and fresh clones reuse
# earlier builds (candle + tauri take many minutes cold on 2 cores).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/registro/target}"
# The app's run-time data (translation example pools) for binaries started from the build dir; installed
# packages find theirs beside the binary instead (registro_register::data::data_dir).
export REGISTRO_DATA="${REGISTRO_DATA:-$(pwd)/data}"
export REGISTRO_DEFAULT_MODEL="${REGISTRO_DEFAULT_MODEL:-qwen2.5-coder-1.5b-instruct}"
if [ -z "${REGISTRO_SHARED_DATA:-}" ] && [ -d "$(pwd)/../shared/data" ]; then
  export REGISTRO_SHARED_DATA="$(cd ../shared/data && pwd)"
fi
[ -f "$HOME/.cargo/env" ] && source "$HOME/.cargo/env"
# The real small models the tests use when present (fetched by scripts/test.sh, verified by sha256).
export REGISTRO_TEST_MODELS="${REGISTRO_TEST_MODELS:-qwen2.5-coder-1.5b-instruct qwen2.5-coder-0.5b-instruct gemma-3-270m all-minilm-l6-v2 embeddinggemma-300m qwen3-tokenizer gemma3-tokenizer}"
# Behind a TLS-inspecting proxy the only trusted CA may be in the OS store: pip (inside a venv it uses its own certifi
# bundle) and npm are pointed at that store unless the user chose otherwise. Registro's own downloads read it directly.
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  export PIP_CERT="${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}"
  export NODE_EXTRA_CA_CERTS="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
fi
true
