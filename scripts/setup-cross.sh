#!/usr/bin/env bash
# Installs the toolchains that `mbfmu package --platforms` and the cross-platform tests use,
# from Debian's archive and PyPI only (as root or through sudo, on Debian 12 x86_64):
#   rustc-web, cargo-web, rust-web-src   a rustc 1.96 with its std sources, so that std is
#                                        built for each target (-Zbuild-std)
#   gcc-mingw-w64-x86-64                 the linker of the Windows DLL (imports only system DLLs)
#   llvm, libclang-dev                   bindgen's libclang; llvm-objcopy (rust-objcopy below)
#   qemu-user, wine64, wine, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross
#                                        run the tests' C host: aarch64 under qemu, Windows
#                                        under wine
#   ziglang, cargo-zigbuild (PyPI, in the repository's .venv)
#                                        link the macOS dylibs and the aarch64 Linux library
#                                        against glibc 2.17
# Idempotent: when everything is present it only checks (about a second).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(rustc-web cargo-web rust-web-src libstd-rust-web-dev gcc-mingw-w64-x86-64
    gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user llvm libclang-dev wine64 wine
    python3-venv)
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
# bookworm's main rustc-web is older; the std sources must match the compiler exactly.
version=$(/usr/bin/rustc --version | awk '{print $2}')
if ! ls -d /usr/src/rustc-"$version"/library >/dev/null 2>&1; then
    echo "setup-cross: /usr/bin/rustc is $version but /usr/src/rustc-$version/library is missing;" \
        "install rust-web-src of the same version (bookworm-security)" >&2
    exit 1
fi

if [ ! -x .venv/bin/python3 ]; then
    python3 -m venv .venv
fi
if [ ! -x .venv/bin/cargo-zigbuild ] || ! .venv/bin/python3 -c 'import ziglang' 2>/dev/null; then
    echo "setup-cross: installing ziglang and cargo-zigbuild into .venv"
    .venv/bin/python3 -m pip install -q --disable-pip-version-check ziglang cargo-zigbuild
fi
# rustc strips Apple targets with rust-objcopy, which Debian's rustc does not ship.
ln -sf "$(readlink -f /usr/bin/llvm-objcopy)" .venv/bin/rust-objcopy
echo "setup-cross: ready (rustc $version, $(.venv/bin/python3 -m ziglang version 2>/dev/null | head -1 || echo 'zig ?'))"
