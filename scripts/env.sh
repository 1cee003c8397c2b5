# Sourced by the scripts: where builds and models live. A target dir outside the clone lets CI and fresh clones reuse
# earlier builds (candle + tauri take many minutes cold on 2 cores).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/registro/target}"
export REGISTRO_DEFAULT_MODEL="${REGISTRO_DEFAULT_MODEL:-qwen2.5-coder-1.5b-instruct}"
if [ -z "${REGISTRO_SHARED_DATA:-}" ] && [ -d "$(pwd)/../shared/data" ]; then
  export REGISTRO_SHARED_DATA="$(cd ../shared/data && pwd)"
fi
[ -f "$HOME/.cargo/env" ] && source "$HOME/.cargo/env"
# The real small models the tests use when present (fetched by scripts/test.sh, verified by sha256).
export REGISTRO_TEST_MODELS="${REGISTRO_TEST_MODELS:-qwen2.5-coder-1.5b-instruct qwen2.5-coder-0.5b-instruct gemma-3-270m all-minilm-l6-v2 qwen3-tokenizer gemma3-tokenizer}"
true
