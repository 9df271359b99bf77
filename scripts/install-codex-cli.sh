#!/usr/bin/env bash
# Install the pinned OpenAI Codex CLI for the end-to-end suite (hook/tests/e2e_codex.rs).
#
# The CLI goes into a cache folder inside the repository (git-ignored), never into a global
# prefix, so the suite always runs the exact version it was written against. The script is
# idempotent: when the cache already holds a runnable binary of the pinned version it does
# nothing. On success it prints the absolute path of the native `codex` binary on stdout (and
# nothing else), so callers can do `CODEX_BIN=$(scripts/install-codex-cli.sh)`.
#
# The npm package `@openai/codex` is a thin Node launcher (`bin/codex.js`): its optional
# dependency `@openai/codex-<platform>` (an alias of `@openai/codex@<version>-<platform>`)
# carries the native, statically linked binary under
# `vendor/<target-triple>/bin/codex`, beside a bundled bubblewrap (`codex-resources/bwrap`) and
# ripgrep (`codex-path/rg`). The suite runs that binary directly; it needs no Node. No install
# scripts are needed. npm is used with its configured registry; this script names no host.
#
# Environment:
#   ANIMUS_CODEX_CACHE  install prefix (default: <repo>/.cache/codex)
set -euo pipefail

readonly CODEX_VERSION="0.169.0"
readonly PACKAGE="@openai/codex"

case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) platform=linux-x64 triple=x86_64-unknown-linux-musl ;;
    Linux-aarch64 | Linux-arm64) platform=linux-arm64 triple=aarch64-unknown-linux-musl ;;
    Darwin-x86_64) platform=darwin-x64 triple=x86_64-apple-darwin ;;
    Darwin-arm64) platform=darwin-arm64 triple=aarch64-apple-darwin ;;
    *) echo "install-codex-cli: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${ANIMUS_CODEX_CACHE:-$repo_root/.cache/codex}"
binary="$prefix/node_modules/$PACKAGE-$platform/vendor/$triple/bin/codex"

# `codex --version` prints e.g. "codex-cli 0.169.0". It needs no network, but CODEX_HOME must
# exist: probe in a throwaway one so it never touches the user's ~/.codex.
installed_version() {
    [[ -x "$binary" ]] || return 1
    local home
    home="$(mktemp -d)"
    local out
    out="$(env -i PATH=/usr/bin:/bin HOME="$home" CODEX_HOME="$home" \
        timeout 60 "$binary" --version 2>/dev/null)" || { rm -rf "$home"; return 1; }
    rm -rf "$home"
    printf '%s\n' "${out##* }"
}

if [[ "$(installed_version || true)" == "$CODEX_VERSION" ]]; then
    printf '%s\n' "$binary"
    exit 0
fi

command -v npm >/dev/null || { echo "install-codex-cli: npm is required" >&2; exit 1; }
mkdir -p "$prefix"
# A package.json of our own keeps npm from walking up into the repository looking for one.
[[ -f "$prefix/package.json" ]] || printf '{"private":true}\n' >"$prefix/package.json"
# npm's own progress goes to stderr; stdout stays the binary path alone. Optional dependencies
# must be installed (they carry the binary), whatever the user's npm config says.
npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error \
    --include=optional --engine-strict=false \
    "$PACKAGE@$CODEX_VERSION" >&2

version="$(installed_version || true)"
if [[ "$version" != "$CODEX_VERSION" ]]; then
    echo "install-codex-cli: expected $CODEX_VERSION at $binary, found '${version:-nothing runnable}'" >&2
    exit 1
fi
printf '%s\n' "$binary"
