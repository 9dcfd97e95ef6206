#!/usr/bin/env bash
# Installs the toolchains that `mbfmu package --platforms` and the cross-platform tests use,
# from rustup's distribution, Debian's archive and PyPI only (apt-get as root or through sudo,
# on Debian 12 x86_64):
#   rustup target add ...                the prebuilt standard library of each target for the
#                                        toolchain that builds the host library
#   gcc-mingw-w64-x86-64                 the linker of the Windows DLL (imports only system DLLs)
#   libclang-dev                         bindgen's libclang (fmi-sys, for every target)
#   qemu-user, wine64, wine, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross
#                                        run the tests' C host: aarch64 under qemu, Windows
#                                        under wine
#   ziglang, cargo-zigbuild (PyPI, in the repository's .venv)
#                                        link the macOS dylibs and the aarch64 Linux library
#                                        against glibc 2.17
# Idempotent: when everything is present it only checks (a few seconds).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(gcc-mingw-w64-x86-64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libclang-dev
    wine64 wine python3-venv)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup-cross: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt=(apt-get)
    if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then apt=(sudo apt-get); fi
    "${apt[@]}" update -qq
    "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The standard libraries, for the toolchain that cargo runs in this directory.
export PATH="$HOME/.cargo/bin:$PATH"
targets=(x86_64-pc-windows-gnu aarch64-unknown-linux-gnu x86_64-apple-darwin aarch64-apple-darwin)
installed=$(rustup target list --installed)
for t in "${targets[@]}"; do
    if ! grep -qx "$t" <<<"$installed"; then
        echo "setup-cross: rustup target add ${targets[*]}"
        rustup target add "${targets[@]}"
        break
    fi
done

if [ ! -x .venv/bin/python3 ]; then
    python3 -m venv .venv
fi
if [ ! -x .venv/bin/cargo-zigbuild ] || ! .venv/bin/python3 -c 'import ziglang' 2>/dev/null; then
    echo "setup-cross: installing ziglang and cargo-zigbuild into .venv"
    .venv/bin/python3 -m pip install -q --disable-pip-version-check ziglang cargo-zigbuild
fi
echo "setup-cross: ready ($(rustc --version), zig $(.venv/bin/python3 -m ziglang version 2>/dev/null || echo '?'))"
