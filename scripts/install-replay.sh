#!/usr/bin/env bash
# Installs the 3D replay player's npm packages (three.js, esbuild, playwright-core) exactly as
# pinned by crates/package/replay/package-lock.json and bundles the player into
# crates/package/replay/dist/replay.js, whose path it prints last. Skips `npm ci` when the
# installed packages match the lock file, and the bundle when it is newer than its sources.
#
#   scripts/install-replay.sh
set -euo pipefail
dir="$(cd "$(dirname "$0")/.." && pwd)/crates/package/replay"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "install-replay.sh: node and npm are needed to build the 3D replay player" \
        "(Debian, Ubuntu: apt-get install nodejs npm)" >&2
    exit 1
fi
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 18 ]; then
    echo "install-replay.sh: Node.js 18 or newer is needed (found $(node --version))" >&2
    exit 1
elif [ "$major" -lt 20 ]; then
    echo "install-replay.sh: note: the browser harness (test/browse.mjs, playwright-core) needs Node.js 20" \
        "or newer (found $(node --version)); the bundle builds with this one" >&2
fi

cd "$dir"
stamp=node_modules/.mbfmu-lock.sha256
want="$(cat package.json package-lock.json | sha256sum | cut -d' ' -f1)"
if [ ! -f node_modules/.package-lock.json ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    npm ci --quiet --no-audit --no-fund --include=dev >&2
    echo "$want" > "$stamp"
fi

bundle="$dir/dist/replay.js"
if [ ! -f "$bundle" ] || [ -n "$(find src build.mjs package-lock.json -newer "$bundle" -print -quit)" ]; then
    npm run --silent build >&2
fi
echo "$bundle"
