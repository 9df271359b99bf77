#!/usr/bin/env bash
# Install the pinned opencode CLI for the end-to-end suite (hook/tests/e2e_opencode.rs).
#
# The CLI goes into a cache folder inside the repository (git-ignored), never into a global
# prefix, so the suite always runs the exact version it was written against. The script is
# idempotent: when the cache already holds a runnable binary of the pinned version it does
# nothing. On success it prints the absolute path of the native `opencode` binary on stdout (and
# nothing else), so callers can do `OPENCODE_BIN=$(scripts/install-opencode-cli.sh)`.
#
# The npm package `opencode-ai` is a thin wrapper: its optional dependency
# `opencode-<platform>` (e.g. `opencode-linux-x64`) carries the native, Bun-compiled executable
# (~185 MB), and the wrapper's postinstall step (`node postinstall.mjs`) links it over
# `bin/opencode.exe` (the name is `.exe` on every platform). So scripts must run
# (`--ignore-scripts=false`, whatever the user's npm config says). npm is used with its
# configured registry; this script names no host.
#
# Environment:
#   ANIMUS_OPENCODE_CACHE  install prefix (default: <repo>/.cache/opencode)
set -euo pipefail

readonly OPENCODE_VERSION="1.18.33"
readonly PACKAGE="opencode-ai"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${ANIMUS_OPENCODE_CACHE:-$repo_root/.cache/opencode}"
binary="$prefix/node_modules/$PACKAGE/bin/opencode.exe"

# `opencode --version` prints e.g. "1.18.33". Run it in a throwaway HOME, offline, so probing
# never touches the user's ~/.config/opencode nor the network.
installed_version() {
    [[ -x "$binary" ]] || return 1
    local home out
    home="$(mktemp -d)"
    out="$(env -i PATH=/usr/bin:/bin HOME="$home" XDG_CONFIG_HOME="$home/.config" \
        XDG_DATA_HOME="$home/.local/share" XDG_CACHE_HOME="$home/.cache" \
        XDG_STATE_HOME="$home/.local/state" OPENCODE_DISABLE_AUTOUPDATE=1 \
        OPENCODE_DISABLE_MODELS_FETCH=1 \
        timeout 60 "$binary" --version </dev/null 2>/dev/null)" || { rm -rf "$home"; return 1; }
    rm -rf "$home"
    printf '%s\n' "${out%% *}"
}

if [[ "$(installed_version || true)" == "$OPENCODE_VERSION" ]]; then
    printf '%s\n' "$binary"
    exit 0
fi

command -v npm >/dev/null || { echo "install-opencode-cli: npm is required" >&2; exit 1; }
mkdir -p "$prefix"
# A package.json of our own keeps npm from walking up into the repository looking for one.
[[ -f "$prefix/package.json" ]] || printf '{"private":true}\n' >"$prefix/package.json"
# npm's own progress goes to stderr; stdout stays the binary path alone.
npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error \
    --ignore-scripts=false "$PACKAGE@$OPENCODE_VERSION" >&2

version="$(installed_version || true)"
if [[ "$version" != "$OPENCODE_VERSION" ]]; then
    echo "install-opencode-cli: expected $OPENCODE_VERSION at $binary, found '${version:-nothing runnable}'" >&2
    exit 1
fi
printf '%s\n' "$binary"
