#!/usr/bin/env bash
# Install the pinned Gemini CLI for the end-to-end suite (hook/tests/e2e_gemini.rs).
#
# The CLI goes into a cache folder inside the repository (git-ignored), never into a global
# prefix, so the suite always runs the exact version it was written against. The script is
# idempotent: when the cache already holds a runnable CLI of the pinned version it does
# nothing. On success it prints the absolute path of the `gemini` launcher on stdout (and
# nothing else), so callers can do `GEMINI_BIN=$(scripts/install-gemini-cli.sh)`.
#
# `@google/gemini-cli` is a single bundled script (`bundle/gemini.js`) run by Node; 0.61.0
# runs on Node 20 (measured). Its optional native dependencies (keytar, node-pty) need install
# scripts the suite does not rely on: headless mode uses neither, so scripts are not run
# (`--ignore-scripts`). npm is used with its configured registry; this script names no host.
#
# Environment:
#   ANIMUS_GEMINI_CACHE  install prefix (default: <repo>/.cache/gemini-cli)
set -euo pipefail

readonly GEMINI_CLI_VERSION="0.61.0"
readonly PACKAGE="@google/gemini-cli"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${ANIMUS_GEMINI_CACHE:-$repo_root/.cache/gemini-cli}"
binary="$prefix/node_modules/.bin/gemini"

# `gemini --version` prints e.g. "0.61.0". It needs no network, but run it in a throwaway HOME
# with updates and telemetry off anyway, so probing never touches the user's ~/.gemini.
installed_version() {
    [[ -x "$binary" ]] || return 1
    local home out
    home="$(mktemp -d)"
    mkdir -p "$home/.gemini"
    printf '%s\n' '{"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false},"telemetry":{"enabled":false},"privacy":{"usageStatisticsEnabled":false}}' \
        >"$home/.gemini/settings.json"
    out="$(HOME="$home" timeout 60 "$binary" --version 2>/dev/null </dev/null)" || { rm -rf "$home"; return 1; }
    rm -rf "$home"
    printf '%s\n' "$(printf '%s' "$out" | tail -n 1 | tr -d '[:space:]')"
}

if [[ "$(installed_version || true)" == "$GEMINI_CLI_VERSION" ]]; then
    printf '%s\n' "$binary"
    exit 0
fi

command -v npm >/dev/null || { echo "install-gemini-cli: npm is required" >&2; exit 1; }
mkdir -p "$prefix"
# A package.json of our own keeps npm from walking up into the repository looking for one.
[[ -f "$prefix/package.json" ]] || printf '{"private":true}\n' >"$prefix/package.json"
# npm's own progress goes to stderr; stdout stays the binary path alone.
npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error \
    --ignore-scripts "$PACKAGE@$GEMINI_CLI_VERSION" >&2

version="$(installed_version || true)"
if [[ "$version" != "$GEMINI_CLI_VERSION" ]]; then
    echo "install-gemini-cli: expected $GEMINI_CLI_VERSION at $binary, found '${version:-nothing runnable}'" >&2
    exit 1
fi
printf '%s\n' "$binary"
