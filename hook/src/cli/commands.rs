//! Every command of `animus-hook`, its help text and what runs it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use engine::harness::Harness;

use super::{
    CheckArgs, CompileArgs, ExplainOptions, ImportArgs, InjectOptions, ReplayOptions,
    harness_parser,
};
use crate::install_cmd::InstallOptions;

#[derive(Subcommand)]
pub enum Command {
    /// The hook the harness runs: record the event, and decide a gate event
    ///
    /// Read the payload on stdin, record the event (hash-chained: see verify) under
    /// $ANIMUS_CONFIG_DIR (default ~/.animus)/<repo-scope>/sessions/<id>.jsonl and, for a gate
    /// event with --policy, print the decision in the harness's protocol.
    /// --from-payload (what install writes) takes the session from the payload's session_id
    /// and the project from $CLAUDE_PROJECT_DIR/$GEMINI_PROJECT_DIR, else the payload's cwd
    /// (the nearest directory above it holding .git, else cwd); a gate whose payload has no
    /// valid session_id or absolute cwd denies. Gate events: PreToolUse, PermissionRequest
    /// (claude, codex), BeforeTool (gemini), tool.execute.before (opencode). Fails closed
    /// (deny); with --policy-digest (inject writes it), a policy whose files are not the
    /// pinned ones is a deny too. Exits 0, or 1 when --policy is given to an event that is
    /// not a gate (recorded all the same).
    #[command(verbatim_doc_comment)]
    Emit(EmitDoc),
    /// Guard every claude (codex, gemini, opencode) session you start
    ///
    /// Compile the policy (the built-in packs plus the deny and ask entries of your claude
    /// settings, or --config/--agent) into ~/.animus/installed/ and add the gate and observer
    /// hooks to ~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json; --scope project:
    /// <root>/.claude/settings.json, with --local settings.local.json). Everything else in the
    /// file is kept, permissions included; a backup is made first; a second install changes
    /// nothing. --dry-run prints the diff. Refused, changing nothing: settings that are not
    /// JSON or hold comments, a file that cannot be written, a hook binary that is not this
    /// animus-hook.
    /// --harness opencode writes the guard plugin into opencode's global config
    /// (~/.config/opencode/plugins/animus-guard.js); --harness gemini adds the hooks to
    /// ~/.gemini/settings.json and sets hooksConfig.enabled.
    /// --plugin-dir writes the same hooks as a claude plugin instead (<dir>/.claude-plugin/
    /// plugin.json and <dir>/hooks/hooks.json), for `claude --plugin-dir <dir>`. --sandbox also
    /// turns on claude's Bash sandbox with writes denied to the guard's files (as inject
    /// --sandbox; refused when the settings already configure a sandbox of their own).
    #[command(verbatim_doc_comment)]
    Install(InstallOptions),
    /// Remove exactly the hooks install added, and the installed policy
    ///
    /// The settings' backup's content comes back when nothing else changed. --config,
    /// --agent, --hook-binary and --sandbox are install's: uninstall refuses them.
    #[command(verbatim_doc_comment)]
    Uninstall(InstallOptions),
    /// Check the installed guard, one line per check with the fix
    ///
    /// Settings parse, gates in exec form with onFailure block, the hook binary's version, the
    /// policy's pin and its sources, the kill switch, the state dir, a live deny and a live
    /// pass through the exact installed command, the claude CLI's version. Exit 0 only when
    /// every check passes.
    #[command(verbatim_doc_comment)]
    Doctor(crate::doctor_cmd::DoctorArgs),
    /// Compile an agent profile into <dir>/animus-policy.json
    ///
    /// The profile is agents.<id> or agent_profiles.<id> of a YAML or JSON config.
    /// Diagnostics (each with its code: `error[AH101]: …`) go to stderr; exit 1 on any
    /// error, writing nothing. --json prints one JSON document on stdout instead:
    /// {"ok", "policy", "rules", "self_protection_rules", "default_decision", "diagnostics"}.
    #[command(verbatim_doc_comment)]
    Compile(CompileArgs),
    /// Compile a profile for one session and print the harness's launch line
    ///
    /// Compile the profile into <session-dir>, write the harness's hook wiring there and print
    /// the launch line to paste: the environment to set, the harness and its arguments with
    /// the hook flags inserted ahead of the prompt (claude: --settings <file>; codex: -c
    /// hooks…; gemini: GEMINI_CLI_HOME (a session Gemini home) and --skip-trust; opencode:
    /// OPENCODE_CONFIG_DIR). Every gate pins the policy written (--policy-digest). --sandbox
    /// (claude only) needs bubblewrap and socat on Linux. ANIMUS_DISABLE_HARNESS_HOOKS=1 makes
    /// it a no-op.
    #[command(verbatim_doc_comment, override_usage = INJECT_USAGE)]
    Inject(InjectOptions),
    /// Decide one hook payload on stdin and print the decision
    ///
    /// The payload is Claude's shape, or --provider codex|gemini|opencode's (the call is
    /// decided as the canonical calls it stands for). Prints the decision, the reason and
    /// every matched rule. Path rules are anchored at the payload's `cwd`, $HOME and the
    /// project root (default: the payload's `cwd`).
    #[command(verbatim_doc_comment)]
    Check(CheckArgs),
    /// Why one call is decided as it is
    ///
    /// The decision and reason, every rule that matched with the field, the text and the byte
    /// span each matcher matched, a command's parsed segments, with --near the rules whose
    /// event and tool apply but that did not match, and the time spent loading and deciding.
    /// The call is a payload on stdin, or a Bash call (--command), or any tool's (--tool,
    /// --input), made in --cwd (default: here). --json: one JSON document.
    #[command(verbatim_doc_comment)]
    Explain(ExplainOptions),
    /// Decide every case of case files under a profile
    ///
    /// Compile the profile in memory (nothing is written; without the built-in
    /// self-protection rules, which depend on where a policy is written) and decide every case:
    /// `- command: "…"` or `- call: {tool: …, input: {…}}`, with `expect: deny|ask|allow|defer`
    /// and optional `name`, `event`, `cwd`, `project_root`, `home`. One line per failure at its
    /// file:line:column, then `N passed, N failed`; exit 1 on any failure. --json prints one
    /// JSON document instead: {"passed", "failed", "failures": [{"file", "line", "column",
    /// "name", "expected", "got", "message"}], "diagnostics"}.
    #[command(verbatim_doc_comment)]
    Test(crate::test_cmd::TestArgs),
    /// What in the profile cannot mean what it says, each finding with a fix
    ///
    /// Each finding is at file:line:column with its code (`warning[AH203]: …`; the table is in
    /// the README). Errors, as in compile: a misspelt key (toolPolicy, pack: did you mean
    /// tool_policy, packs?), rules that never fire (a near miss of a Claude tool's name such
    /// as bash or Reed, a matcher on a field the rule's tools lack, a regex matching nothing).
    /// Warnings: a tool no harness is known to have, allow entries a deny shadows, duplicates,
    /// allows an allowlist cannot guard, and what compile warns about. --ignore leaves out
    /// findings by code. Exit 1 on errors (or on warnings with --deny-warnings). --json prints
    /// one JSON document: {"agent", "config", "compiles", "errors", "warnings", "diagnostics":
    /// [{"code", "name", "severity", "file", "line", "column", "message", "help"}]}.
    #[command(verbatim_doc_comment)]
    Lint(crate::lint_cmd::LintArgs),
    /// Which rules two compiled policies add, remove or change, each with a witness
    ///
    /// Rules are compared by id; each change gets a witness: a call the two decide
    /// differently, made from the rule (a string its regex matches, a command its pattern
    /// matches, a path its glob names) or taken from --calls (hook payloads or
    /// {"command": …} records, one per line). The built-in self-protection rules differ
    /// between policies written to different directories; --without-self-protection leaves
    /// them out. Exit 0 when the policies are the same, 1 when they differ, 2 on trouble.
    #[command(verbatim_doc_comment)]
    Diff(crate::diff_cmd::DiffArgs),
    /// Merge Claude settings files into an agent profile
    ///
    /// Merge the files (lowest precedence first; JSON with comments) and print an agent
    /// profile whose tool_policy holds their permissions (YAML; JSON with --json). The lists
    /// keep Claude's meaning (`meaning: claude`): a call no entry names is left to the
    /// harness's own flow, deny and ask entries bind in every permission mode; --meaning
    /// allowlist makes them a strict allowlist (unlisted calls denied). Every entry lands in
    /// the profile or is reported on stderr with file:line:column (a bare `*` allow, which
    /// Claude ignores, is left out); exit 1 when an entry was left out, 2 on a usage error.
    #[command(verbatim_doc_comment)]
    Import(ImportArgs),
    /// Prove session logs whole
    ///
    /// Every record links to the one before it (seq, and the SHA-256 of its line) back to the
    /// session's anchor, and the log ends with its SessionEnd seal. Names the first record
    /// edited, inserted, reordered or removed, a torn line, an anchor that disagrees, and every
    /// finished call (PostToolUse, PostToolUseFailure, tool.execute.after) with no gate
    /// decision for its tool_use_id earlier in the session. A directory: each *.jsonl under it
    /// (a sessions/ directory, or the whole state root). Prints the head digest to keep
    /// elsewhere. --json: one object per log. Exit 0 only when all holds, 1 when not, 2 on
    /// trouble.
    #[command(verbatim_doc_comment)]
    Verify(crate::verify_cmd::VerifyArgs),
    /// Decide recorded calls again under a candidate policy
    ///
    /// Print each call whose decision changes (tool_use_id, tool, command or path, before ->
    /// after, deciding rule). Inputs (files, or directories searched for *.jsonl): session
    /// logs (before: the recorded decision), Claude Code transcripts (~/.claude/projects: their
    /// tool_use blocks) and JSONL hook payloads (before: the --baseline policy's decision,
    /// else none, and the call is never counted as changed). A call whose tool input was cut
    /// when recorded is reported not replayable. --json: one object per call (tool_use_id,
    /// before, after, changed, …; the summary goes to stderr). Exit 0 when nothing changes, 1
    /// when any decision changes, 2 on trouble.
    #[command(verbatim_doc_comment)]
    Replay(ReplayOptions),
    /// The recorded gate decisions of every session, newest last
    ///
    /// One line each: time, session, harness, tool, command or path, decision, rule, reason.
    /// --since takes RFC 3339 (or a date) or a span back from now (90s, 30m, 2h, 7d, 2w);
    /// --decision repeats or takes a comma list. --json prints each record as recorded, one a
    /// line.
    #[command(verbatim_doc_comment)]
    Log(crate::log_cmd::LogArgs),
    /// List the built-in protection packs a profile enables with `packs: [core, …]`
    ///
    /// Each pack's name, rule count and description, then each rule with its decision.
    /// --json: one JSON document.
    #[command(verbatim_doc_comment)]
    Packs(PacksArgs),
    /// Compile the bundled example profiles and decide bundled real Claude payloads
    Demo,
    /// Print a completion script for the shell
    ///
    /// `source <(animus-hook completions bash)`, `animus-hook completions fish | source`, or
    /// save the zsh one as `_animus-hook` in a directory of $fpath. The scripts complete
    /// commands, options and their values (harness names, decisions, shells).
    #[command(verbatim_doc_comment)]
    Completions(CompletionsArgs),
}

/// clap's own usage line for `inject` is 160 columns: the same, wrapped (a test checks that it
/// names every option).
pub const INJECT_USAGE: &str = "\
animus-hook inject --provider <HARNESS> --config <FILE> --agent <ID>
                          --session-dir <DIR> --session-id <ID> --project-root <DIR>
                          [--hook-binary <PATH>] [--prompt-last | --prompt-index <N>] [--json]
                          [--sandbox] [-- <LAUNCH_ARGS>...]";

/// `emit`'s options as gate's own parser takes them (`gate::emit`): here for `help emit` and
/// the completions only, never parsed by clap.
#[derive(Args)]
pub struct EmitDoc {
    /// Whose payload and protocol (default: claude)
    #[arg(long, value_name = "HARNESS", value_parser = harness_parser())]
    provider: Option<Harness>,
    /// The hook event
    #[arg(long, value_name = "E")]
    event: Option<String>,
    /// The session's id
    #[arg(long, value_name = "ID", conflicts_with = "from_payload")]
    session: Option<String>,
    /// The project the session works in
    #[arg(long, value_name = "DIR", conflicts_with = "from_payload")]
    project_root: Option<PathBuf>,
    /// Take the session and the project from the payload
    #[arg(long)]
    from_payload: bool,
    /// The compiled policy a gate event is decided by
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// The policy's pin: sha256:<hex> of its files (with --policy)
    #[arg(long, value_name = "DIGEST", requires = "policy")]
    policy_digest: Option<String>,
}

#[derive(Args)]
pub struct PacksArgs {
    /// One JSON document
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

impl Command {
    pub fn run(self) -> ExitCode {
        match self {
            // `main.rs` routes `emit` to gate's parser before clap: unreachable in practice.
            Command::Emit(_) => super::emit_help(),
            Command::Install(options) => crate::install_cmd::run_install(options.into()),
            Command::Uninstall(options) => crate::install_cmd::run_uninstall(options.into()),
            Command::Doctor(args) => crate::doctor_cmd::run(args),
            Command::Compile(args) => crate::compile_cmd::run(args),
            Command::Inject(options) => crate::inject_cmd::run(options.into()),
            Command::Check(args) => crate::check::run(args),
            Command::Explain(options) => crate::explain_cmd::run(options.into()),
            Command::Test(args) => crate::test_cmd::run(args),
            Command::Lint(args) => crate::lint_cmd::run(args),
            Command::Diff(args) => crate::diff_cmd::run(args),
            Command::Import(args) => crate::import_cmd::run(args),
            Command::Verify(args) => crate::verify_cmd::run(args),
            Command::Replay(options) => crate::replay_cmd::run(options.into()),
            Command::Log(args) => crate::log_cmd::run(args),
            Command::Packs(PacksArgs { json }) => crate::packs_cmd::run(json),
            Command::Demo => crate::demo::run(),
            Command::Completions(CompletionsArgs { shell }) => crate::completions::run(shell),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::INJECT_USAGE;

    /// The wrapped usage of `inject` names every option its definition has.
    #[test]
    fn inject_usage_names_every_option() {
        let mut cli = crate::cli::command();
        cli.build();
        let inject = cli.find_subcommand("inject").unwrap();
        for arg in inject.get_arguments() {
            if let Some(long) = arg.get_long().filter(|l| *l != "help") {
                assert!(
                    INJECT_USAGE.contains(&format!("--{long}")),
                    "--{long} missing from the usage"
                );
            }
        }
        let shown = format!("Usage: {INJECT_USAGE}");
        assert!(shown.lines().all(|l| l.chars().count() <= 100), "{shown}");
    }
}
