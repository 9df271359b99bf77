#!/usr/bin/env bash
# Install the pinned Claude Code CLI for the end-to-end suite (hook/tests/e2e_claude.rs).
#
# The CLI goes into a cache folder inside the repository (git-ignored), never into a global
# prefix, so the suite always runs the exact version it was written against. The script is
# idempotent: when the cache already holds a runnable binary of the pinned version it does
# nothing. On success it prints the absolute path of the native `claude` binary on stdout (and
# nothing else), so callers can do `CLAUDE_BIN=$(scripts/install-claude-cli.sh)`.
#
# The npm package `@anthropic-ai/claude-code` is a thin wrapper: its optional dependency
# `@anthropic-ai/claude-code-<platform>` (e.g. `-linux-x64`) carries the native, Bun-compiled
# executable (`claude`, ~370 MB), and the wrapper's postinstall step (`node install.cjs`) links
# or copies it over the `bin/claude.exe` placeholder (the name is `.exe` on every platform).
# So scripts must run (`--ignore-scripts=false`, whatever the user's npm config says). The
# package declares `engines.node >= 22`, but the install step works on Node 20 and the binary
# needs no Node at all, hence `--engine-strict=false`. npm is used with its configured
# registry; this script names no host.
#
# Environment:
#   ANIMUS_CLAUDE_CACHE  install prefix (default: <repo>/.cache/claude-code)
set -euo pipefail

readonly CLAUDE_CODE_VERSION="2.1.328"
readonly PACKAGE="@anthropic-ai/claude-code"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${ANIMUS_CLAUDE_CACHE:-$repo_root/.cache/claude-code}"
binary="$prefix/node_modules/$PACKAGE/bin/claude.exe"

# `claude --version` prints e.g. "2.1.328 (Claude Code)". It needs no network and no HOME
# state, but run it in a throwaway HOME anyway so probing never touches the user's ~/.claude.
installed_version() {
    [[ -x "$binary" ]] || return 1
    local home
    home="$(mktemp -d)"
    local out
    out="$(HOME="$home" DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        timeout 60 "$binary" --version 2>/dev/null)" || { rm -rf "$home"; return 1; }
    rm -rf "$home"
    printf '%s\n' "${out%% *}"
}

if [[ "$(installed_version || true)" == "$CLAUDE_CODE_VERSION" ]]; then
    printf '%s\n' "$binary"
    exit 0
fi

command -v npm >/dev/null || { echo "install-claude-cli: npm is required" >&2; exit 1; }
mkdir -p "$prefix"
# A package.json of our own keeps npm from walking up into the repository looking for one.
[[ -f "$prefix/package.json" ]] || printf '{"private":true}\n' >"$prefix/package.json"
# npm's own progress goes to stderr; stdout stays the binary path alone.
npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error \
    --ignore-scripts=false --engine-strict=false \
    "$PACKAGE@$CLAUDE_CODE_VERSION" >&2

version="$(installed_version || true)"
if [[ "$version" != "$CLAUDE_CODE_VERSION" ]]; then
    echo "install-claude-cli: expected $CLAUDE_CODE_VERSION at $binary, found '${version:-nothing runnable}'" >&2
    exit 1
fi
printf '%s\n' "$binary"
