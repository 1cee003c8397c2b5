#!/usr/bin/env bash
# The main job in one command: set up a fresh Debian 12 machine (system packages, Node deps, Rust deps), fetch the
# default model (verified by sha256) and open the Registro window.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-system.sh
source scripts/env.sh

(cd ui && npm run build)
cargo build -p registro-cli -p registro-app
"$CARGO_TARGET_DIR/debug/registro" models fetch "$REGISTRO_DEFAULT_MODEL"
exec "$CARGO_TARGET_DIR/debug/registro-app"
