#!/usr/bin/env bash
# The full test tier, on a fresh Debian or Ubuntu machine with Rust: installs what the external
# tests need (system packages, a Python environment, mdBook), builds and link-checks the
# documentation book, and runs every test, the external and slow ones included.
#
#   scripts/test-all.sh
#
# The fast tier needs none of this: `cargo test` runs every test that needs no external tool;
# the tests marked `#[ignore = "external: ..."]` (FMPy, libcosim, Dask, Chromium and the replay player, valgrind) and
# `#[ignore = "slow: ..."]` run only here, through `--include-ignored`, and fail (never skip)
# when their tool is missing. Among the external ones are the cross-platform tests
# (crates/cli/tests/platforms.rs), for which scripts/setup-cross.sh below installs the cross
# toolchains; scripts/test-cross.sh runs them alone.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

# System packages. fmi-sys runs bindgen at build time, which needs libclang and clang's
# resource headers; valgrind runs the C-ABI tests under memcheck (tests/memcheck.rs); chromium
# renders the FMUs' documentation pages (crates/package/tests/chromium.rs); python3 with its
# venv module hosts FMPy, libcosimpy and Dask. apt-get as root, or through sudo.
apt=(apt-get)
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then apt=(sudo apt-get); fi
packages=()
dpkg -s libclang-dev >/dev/null 2>&1 || packages+=(libclang-dev)
command -v valgrind >/dev/null 2>&1 || packages+=(valgrind)
command -v chromium >/dev/null 2>&1 || packages+=(chromium)
if ! command -v python3 >/dev/null 2>&1; then
    packages+=(python3 python3-venv)
elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    packages+=(python3-venv)
fi
if [ ${#packages[@]} -gt 0 ]; then
    "${apt[@]}" update -qq
    "${apt[@]}" install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi

# Python packages in a virtual environment of the repository (.venv, ignored by git): FMPy
# validates and runs every FMU; libcosim (through its Python binding, pinned: the tests rely on
# 0.0.6's API with times in integer nanoseconds) runs the FMI 2.0 FMUs and the SSP systems;
# dask, distributed and pyarrow with the sweep package of python/ run sweeps on a cluster. The
# tests run `python3` from PATH, so the environment's bin directory goes first.
if [ ! -x .venv/bin/python3 ]; then
    python3 -m venv .venv
fi
.venv/bin/python3 -m pip install -q --disable-pip-version-check fmpy libcosimpy==0.0.6 dask distributed pyarrow ./python
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
# Fails here, not in the middle of the tests, if the install did not work.
python3 -c 'import fmpy, libcosimpy, dask.distributed, pyarrow, mbfmu_sweep'


# The documentation book (docs/book.toml): mdBook from crates.io, built offline into
# target/book. Its relative links and anchors are checked by tests/doc_links.rs below.
export PATH="$HOME/.cargo/bin:$PATH"
# Without its server and file watcher, and unoptimized (the book builds in about a second
# either way): 1 minute to compile instead of 3.
if ! command -v mdbook >/dev/null 2>&1; then
    CARGO_PROFILE_DEV_DEBUG=0 cargo install mdbook --locked --quiet --debug --no-default-features --features search
fi
mdbook build docs

# The 3D replay player (three.js and our player, bundled by esbuild from the npm lock file of
# crates/package/replay) and the browser harness's playwright-core, with the machine's Node.js
# (Debian's nodejs and npm when there is none). The replay tests (crates/cli/tests/replay.rs)
# and the packaged documentation pages use the bundle.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    "${apt[@]}" update -qq
    "${apt[@]}" install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
bash scripts/install-replay.sh >/dev/null

# The cross toolchains of `mbfmu package --platforms` and the platform tests: mingw-w64, the
# aarch64 cross gcc, qemu-user, wine, the targets' prebuilt std, zig (scripts/setup-cross.sh).
bash scripts/setup-cross.sh

# Every test: the fast tier and the ignored (external and slow) ones.
cargo test --release -- --include-ignored
