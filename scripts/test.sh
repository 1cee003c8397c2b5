#!/usr/bin/env bash
# Everything the tests need, then every test: system packages, Node deps, the real small models (verified by sha256,
# cached outside the clone), the Rust test suite, and the end-to-end tests of the real window.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-system.sh
source scripts/env.sh

(cd ui && npm run build)
cargo build --workspace --all-targets
for model in $REGISTRO_TEST_MODELS; do "$CARGO_TARGET_DIR/debug/registro" models fetch "$model"; done
cargo test --workspace --no-fail-fast
bash scripts/e2e.sh
