#!/usr/bin/env bash
# Install the pinned Claude Code CLI for the end-to-end suite (hook/tests/e2e_claude.rs).
#
# Idempotent (see scripts/install-npm-cli.sh, which it shares with the other installers): on
# success it prints the absolute path of the native `claude` binary on stdout, and nothing else,
# so callers can do `CLAUDE_BIN=$(scripts/install-claude-cli.sh)`.
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
# Sets repo_root; defines npm_cli_prefix, installed_version and install_npm_cli.
source "$(dirname "${BASH_SOURCE[0]}")/install-npm-cli.sh"

readonly CLAUDE_CODE_VERSION="2.1.328" PACKAGE="@anthropic-ai/claude-code"

prefix="$(npm_cli_prefix ANIMUS_CLAUDE_CACHE claude-code)"

# `claude --version` prints e.g. "2.1.328 (Claude Code)". It needs no network and no HOME
# state, but runs in a throwaway HOME anyway so probing never touches the user's ~/.claude.
run_version() {
    HOME="$1" DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        timeout 60 "$binary" --version
}
parse_version() { printf '%s\n' "${1%% *}"; }

# Scripts must run (the postinstall step links the binary), whatever the user's npm config says.
install_npm_cli claude "$CLAUDE_CODE_VERSION" "$PACKAGE" "$prefix" \
    "node_modules/$PACKAGE/bin/claude.exe" \
    --ignore-scripts=false --engine-strict=false
