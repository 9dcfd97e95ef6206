#!/usr/bin/env bash
# The cross-platform tier: installs the cross toolchains (scripts/setup-cross.sh), builds the
# FMU library for Windows x64, aarch64 Linux and macOS, and runs the platform tests (the
# project's C host under wine and qemu against the native run; exports, linked libraries and
# Mach-O structure). The full tier (scripts/test-all.sh) runs them too, among every other test;
# this script runs them alone.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-cross.sh
export PATH="$PWD/.venv/bin:$PATH"
# --show-output: the build time of each target and the largest difference of each run.
cargo test --release -p mbfmu-cli --test suite platforms:: -- --include-ignored --show-output
