#!/usr/bin/env bash
# Install the pinned OpenAI Codex CLI for the end-to-end suite (hook/tests/e2e_codex.rs).
#
# Idempotent (see scripts/install-npm-cli.sh, which it shares with the other installers): on
# success it prints the absolute path of the native `codex` binary on stdout, and nothing else,
# so callers can do `CODEX_BIN=$(scripts/install-codex-cli.sh)`.
#
# The npm package `@openai/codex` is a thin Node launcher (`bin/codex.js`): its optional
# dependency `@openai/codex-<platform>` (an alias of `@openai/codex@<version>-<platform>`)
# carries the native, statically linked binary under
# `vendor/<target-triple>/bin/codex`, beside a bundled bubblewrap (`codex-resources/bwrap`) and
# ripgrep (`codex-path/rg`). The suite runs that binary directly; it needs no Node. No install
# scripts are needed.
#
# Environment:
#   ANIMUS_CODEX_CACHE  install prefix (default: <repo>/.cache/codex)
set -euo pipefail
# Sets repo_root; defines npm_cli_prefix, installed_version and install_npm_cli.
source "$(dirname "${BASH_SOURCE[0]}")/install-npm-cli.sh"

readonly CODEX_VERSION="0.169.0" PACKAGE="@openai/codex"

case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) platform=linux-x64 triple=x86_64-unknown-linux-musl ;;
    Linux-aarch64 | Linux-arm64) platform=linux-arm64 triple=aarch64-unknown-linux-musl ;;
    Darwin-x86_64) platform=darwin-x64 triple=x86_64-apple-darwin ;;
    Darwin-arm64) platform=darwin-arm64 triple=aarch64-apple-darwin ;;
    *) echo "install-codex-cli: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

prefix="$(npm_cli_prefix ANIMUS_CODEX_CACHE codex)"

# `codex --version` prints e.g. "codex-cli 0.169.0". It needs no network, but CODEX_HOME must
# exist: probe in a throwaway one so it never touches the user's ~/.codex.
run_version() {
    env -i PATH=/usr/bin:/bin HOME="$1" CODEX_HOME="$1" timeout 60 "$binary" --version
}
parse_version() { printf '%s\n' "${1##* }"; }

# Optional dependencies must be installed (they carry the binary), whatever the user's npm
# config says.
install_npm_cli codex "$CODEX_VERSION" "$PACKAGE" "$prefix" \
    "node_modules/$PACKAGE-$platform/vendor/$triple/bin/codex" \
    --include=optional --engine-strict=false
