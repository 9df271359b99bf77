//! Command-line parsing (lexopt: no proc macros, no dependencies, cheap on the hot path).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use lexopt::prelude::*;

use crate::proof_args;

pub const USAGE: &str = "\
animus-hook — a guardrail kernel for coding agents

USAGE:
  animus-hook emit [--provider claude|codex|gemini|opencode] --event <E>
                   (--session <id> --project-root <root> | --from-payload)
                   [--policy <animus-policy.json> [--policy-digest sha256:<hex>]]
      The hook the harness runs: read the payload on stdin, record the event (hash-chained:
      see verify) under $ANIMUS_CONFIG_DIR (default ~/.animus)/<repo-scope>/sessions/<id>.jsonl
      and, for a gate event with --policy, print the decision in the harness's protocol.
      --from-payload (what install writes) takes the session from the payload's session_id
      and the project from $CLAUDE_PROJECT_DIR/$GEMINI_PROJECT_DIR, else the payload's cwd
      (the nearest directory above it holding .git, else cwd); a gate whose payload has no
      valid session_id or absolute cwd denies. Gate events: PreToolUse, PermissionRequest
      (claude, codex), BeforeTool (gemini), tool.execute.before (opencode). Fails closed
      (deny); with --policy-digest (inject writes it), a policy whose files are not the
      pinned ones is a deny too. Exits 0, or 1 when --policy is given to an event that
      is not a gate (recorded all the same).
  animus-hook install [--harness claude|opencode|gemini] [--scope user|project] [--local]
                      [--project-root <dir>] [--config <file> --agent <id>]
                      [--hook-binary <path>] [--plugin-dir <dir>] [--sandbox]
                      [--dry-run]
      Guard every claude session you start: compile the policy (the built-in packs plus the
      deny and ask entries of your claude settings, or --config/--agent) into
      ~/.animus/installed/ and add the gate and observer hooks to ~/.claude/settings.json
      ($CLAUDE_CONFIG_DIR/settings.json; --scope project: <root>/.claude/settings.json, with
      --local settings.local.json). Everything else in the file is kept, permissions
      included; a backup is made first; a second install changes nothing. --dry-run prints
      the diff. Refused, changing nothing: settings that are not JSON or hold comments, a
      file that cannot be written, a hook binary that is not this animus-hook.
      --harness opencode writes the guard plugin into opencode's global config
      (~/.config/opencode/plugins/animus-guard.js); --harness gemini adds the hooks to
      ~/.gemini/settings.json and sets hooksConfig.enabled.
      --plugin-dir writes the same hooks as a claude plugin instead (<dir>/.claude-plugin/
      plugin.json and <dir>/hooks/hooks.json), for `claude --plugin-dir <dir>`. --sandbox
      also turns on claude's Bash sandbox with writes denied to the guard's files (as inject
      --sandbox; refused when the settings already configure a sandbox of their own).
  animus-hook uninstall [--harness claude|opencode|gemini] [--scope user|project] [--local]
                        [--project-root <dir>] [--plugin-dir <dir>] [--dry-run]
      Remove exactly the hooks install added (the settings' backup's content comes back when
      nothing else changed), and the installed policy.
  animus-hook doctor [--project-root <dir>] [--plugin-dir <dir>] [--json]
      Check the installed guard, one line per check with the fix: settings parse, gates in
      exec form with onFailure block, the hook binary's version, the policy's pin and its
      sources, the kill switch, the state dir, a live deny and a live pass through the exact
      installed command, the claude CLI's version. Exit 0 only when every check passes.
  animus-hook compile --config <file> --agent <id> --out-dir <dir>
      Compile agent profile <id> (agents.<id> or agent_profiles.<id>, YAML or JSON) into
      <dir>/animus-policy.json. Warnings go to stderr; exit 1 on any error, writing nothing.
  animus-hook inject --provider claude|codex|gemini|opencode --config <file> --agent <id>
                     --session-dir <dir> --session-id <id> --project-root <dir>
                     [--hook-binary <path>] [--prompt-last | --prompt-index <n>] [--json]
                     [--sandbox] -- <launch args…>
      Compile the profile into <session-dir>, write the harness's hook wiring there and print
      the launch line to paste: the environment to set, the harness and its arguments with
      the hook flags inserted ahead of the prompt (claude: --settings <file>; codex: -c
      hooks…; gemini: GEMINI_CLI_HOME (a session Gemini home) and --skip-trust; opencode:
      OPENCODE_CONFIG_DIR). --json prints {\"env\": {…}, \"args\": […]} instead. Every
      gate pins the policy written (--policy-digest). --sandbox (claude only) also turns on
      claude's Bash sandbox with writes denied to the guard's files (needs bubblewrap and
      socat on Linux). ANIMUS_DISABLE_HARNESS_HOOKS=1 makes it a no-op.
  animus-hook check --policy <animus-policy.json> [--provider <harness>] [--event <E>]
                    [--project-root <dir>] [--json]
      Read one hook payload on stdin (Claude's shape, or --provider codex|gemini|opencode's:
      the call is decided as the canonical calls it stands for) and print the decision, the
      reason and every matched rule. Path rules are anchored at the
      payload's `cwd`, $HOME and the project root (default: the payload's `cwd`).
  animus-hook explain --policy <animus-policy.json> [--event <E>] [--project-root <dir>]
                      [--command <cmd> | --tool <name> --input <json>] [--cwd <dir>]
                      [--near] [--json]
      Why one call is decided as it is: the decision and reason, every rule that matched
      with the field, the text and the byte span each matcher matched, a command's parsed
      segments, with --near the rules whose event and tool apply but that did not match,
      and the time spent loading and deciding. The call is a payload on stdin, or a Bash
      call (--command), or any tool's (--tool, --input), made in --cwd (default: here).
  animus-hook test --config <file> --agent <id> <cases.yaml>...
      Compile the profile in memory (nothing is written; without the built-in self-protection
      rules, which depend on where a policy is written) and decide every case of the case
      files: `- command: \"…\"` or `- call: {tool: …, input: {…}}`, with `expect: deny|ask|
      allow|defer` and optional `name`, `event`, `cwd`, `project_root`, `home`. One line per
      failure at its file:line:column, then `N passed, N failed`; exit 1 on any failure.
  animus-hook lint --config <file> --agent <id> [--deny-warnings]
      What in the profile cannot mean what it says, each at file:line:column with a fix.
      Errors, as in compile: a misspelt key (toolPolicy, pack: did you mean tool_policy,
      packs?), rules that never fire (a near miss of a Claude tool's name such as bash or
      Reed, a matcher on a field the rule's tools lack, a regex matching nothing). Warnings:
      a tool no harness is known to have, allow entries a deny shadows, duplicates, allows an
      allowlist cannot guard, and what compile warns about. Exit 1 on errors (or on warnings
      with --deny-warnings).
  animus-hook diff <before.json> <after.json> [--calls <calls.jsonl>]
                   [--without-self-protection] [--json]
      Which rules two compiled policies add, remove or change (by id), and for each change
      a witness: a call the two decide differently, made from the rule (a string its regex
      matches, a command its pattern matches, a path its glob names) or taken from
      --calls (hook payloads or {\"command\": …} records, one per line). The built-in
      self-protection rules differ between policies written to different directories;
      --without-self-protection leaves them out. Exit 0 when the policies are the same, 1
      when they differ, 2 on trouble.
  animus-hook import --claude-settings <file>... --agent <id> [--meaning claude|allowlist]
                     [--json]
      Merge Claude settings files (lowest precedence first; JSON with comments) and print an
      agent profile whose tool_policy holds their permissions (YAML; JSON with --json). The
      lists keep Claude's meaning (`meaning: claude`): a call no entry names is left to the
      harness's own flow, deny and ask entries bind in every permission mode; --meaning
      allowlist makes them a strict allowlist (unlisted calls denied). Every entry lands in
      the profile or is reported on stderr with file:line:column (a bare `*` allow, which
      Claude ignores, is left out); exit 1 when an entry was left out, 2 on a usage error.
  animus-hook verify [<log.jsonl | dir>...] [--session <id> [--project-root <dir>]] [--open]
                     [--json]
      Prove session logs whole: every record links to the one before it (seq, and the SHA-256
      of its line) back to the session's anchor, and the log ends with its SessionEnd seal.
      Names the first record edited, inserted, reordered or removed, a torn line, an anchor
      that disagrees, and every finished call (PostToolUse, PostToolUseFailure,
      tool.execute.after) with no gate decision for its tool_use_id earlier in the session. A
      directory: each *.jsonl under it (a sessions/ directory, or the whole state root).
      --open accepts a log without its seal (a live session). Prints the head digest to keep
      elsewhere. --json: one object per log. Exit 0 only when all holds, 1 when not, 2 on
      trouble.
  animus-hook replay (--policy <animus-policy.json> | --config <file> --agent <id>)
                     [--baseline <animus-policy.json>] [--provider <harness>] [--json]
                     [--stats] <input>...
      Decide recorded calls again under a candidate policy and print each call whose
      decision changes (tool_use_id, tool, command or path, before -> after, deciding rule).
      Inputs (files, or directories searched for *.jsonl): session logs (before: the recorded
      decision), Claude Code transcripts (~/.claude/projects: their tool_use blocks) and JSONL
      hook payloads (before: the --baseline policy's decision, else none, and the call is
      never counted as changed). A call whose tool input was cut when recorded is reported
      not replayable. --json: one object per call (tool_use_id, before, after, changed, …;
      the summary goes to stderr). --stats: decide latency percentiles and throughput. Exit 0
      when nothing changes, 1 when any decision changes, 2 on trouble.
  animus-hook log [--session <id>] [--decision deny|ask|allow|defer] [--since <when>]
                  [--project <dir>] [--follow] [--json] [--stats]
      The recorded gate decisions of every session under the state root, newest last: time,
      session, harness, tool, command or path, decision, rule, reason. --since takes RFC 3339
      (or a date) or a span back from now (90s, 30m, 2h, 7d, 2w); --decision repeats or takes
      a comma list; --project limits to one project's sessions. --follow prints new
      decisions as they are recorded. --json prints each record as recorded, one a line.
      --stats counts decisions per session and denies/asks per rule.
  animus-hook packs [--json]
      List the built-in protection packs a profile enables with `packs: [core, …]`: each
      pack's name, rule count and description, then each rule with its decision.
  animus-hook demo
      Compile the bundled example profiles and decide over bundled real Claude payloads.
  animus-hook completions <bash|zsh|fish>
      Print a completion script for the shell (`source <(animus-hook completions bash)`,
      `animus-hook completions fish | source`, or save the zsh one as `_animus-hook` in $fpath).
  animus-hook --help | --version
";

/// A usage error: printed with the usage, exit status 2.
pub struct UsageError(pub String);

impl From<lexopt::Error> for UsageError {
    fn from(e: lexopt::Error) -> Self {
        UsageError(e.to_string())
    }
}

pub fn run(args: Vec<OsString>) -> ExitCode {
    // `animus-hook <command> --help` (or `-h`) anywhere before a `--`: that command's usage.
    if let Some(usage) = args
        .first()
        .and_then(|cmd| cmd.to_str())
        .and_then(command_usage)
        && args[1..]
            .iter()
            .take_while(|a| *a != "--")
            .any(|a| a == "--help" || a == "-h")
    {
        print!("USAGE:\n{usage}");
        return ExitCode::SUCCESS;
    }
    let mut parser = lexopt::Parser::from_args(args);
    let result = (|| -> Result<ExitCode, UsageError> {
        let Some(first) = parser.next()? else {
            return Err(UsageError("missing subcommand".into()));
        };
        match first {
            Value(cmd) => match cmd.to_str() {
                Some("compile") => Ok(crate::compile_cmd::run(parse_compile(&mut parser)?)),
                Some("check") => Ok(crate::check::run(parse_check(&mut parser)?)),
                Some("explain") => Ok(crate::explain_cmd::run(parse_explain(&mut parser)?)),
                Some("test") => Ok(crate::test_cmd::run(parse_test(&mut parser)?)),
                Some("lint") => Ok(crate::lint_cmd::run(parse_lint(&mut parser)?)),
                Some("diff") => Ok(crate::diff_cmd::run(parse_diff(&mut parser)?)),
                Some("inject") => Ok(crate::inject_cmd::run(parse_inject(&mut parser)?)),
                Some("import") => Ok(crate::import_cmd::run(parse_import(&mut parser)?)),
                Some("verify") => Ok(crate::verify_cmd::run(proof_args::parse_verify(
                    &mut parser,
                )?)),
                Some("replay") => Ok(crate::replay_cmd::run(proof_args::parse_replay(
                    &mut parser,
                )?)),
                Some("log") => Ok(crate::log_cmd::run(proof_args::parse_log(&mut parser)?)),
                Some("install") => Ok(crate::install_cmd::run_install(crate::install_cmd::parse(
                    &mut parser,
                )?)),
                Some("uninstall") => Ok(crate::install_cmd::run_uninstall(
                    crate::install_cmd::parse(&mut parser)?,
                )),
                Some("doctor") => Ok(crate::doctor_cmd::run(crate::doctor_cmd::parse(
                    &mut parser,
                )?)),
                Some("packs") => {
                    let mut json = false;
                    while let Some(arg) = parser.next()? {
                        match arg {
                            Long("json") => json = true,
                            other => return Err(other.unexpected().into()),
                        }
                    }
                    Ok(crate::packs_cmd::run(json))
                }
                Some("completions") => {
                    let shell = match parser.next()? {
                        Some(Value(shell)) => shell.string()?,
                        Some(other) => return Err(other.unexpected().into()),
                        None => {
                            return Err(UsageError(
                                "completions needs a shell: bash, zsh or fish".into(),
                            ));
                        }
                    };
                    no_more(&mut parser)?;
                    Ok(crate::completions::run(&shell))
                }
                Some("demo") => {
                    no_more(&mut parser)?;
                    Ok(crate::demo::run())
                }
                _ => Err(UsageError(format!("unknown subcommand {cmd:?}"))),
            },
            Long("help") | Short('h') => {
                print!("{USAGE}");
                Ok(ExitCode::SUCCESS)
            }
            Long("version") | Short('V') => {
                println!("animus-hook {}", env!("CARGO_PKG_VERSION"));
                Ok(ExitCode::SUCCESS)
            }
            other => Err(other.unexpected().into()),
        }
    })();
    result.unwrap_or_else(|UsageError(message)| {
        eprintln!("animus-hook: {message}\n\n{USAGE}");
        ExitCode::from(2)
    })
}

/// The block of [`USAGE`] that describes `command` (`compile`, `inject`, …), if it is one.
pub fn command_usage(command: &str) -> Option<String> {
    let head = format!("  animus-hook {command}");
    let mut lines = USAGE.lines().skip_while(|line| {
        !line
            .strip_prefix(&head)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    });
    let first = lines.next()?;
    let mut block = format!("{first}\n");
    for line in lines.take_while(|line| !line.starts_with("  animus-hook ")) {
        block.push_str(line);
        block.push('\n');
    }
    Some(block)
}

pub(crate) fn no_more(parser: &mut lexopt::Parser) -> Result<(), UsageError> {
    match parser.next()? {
        None => Ok(()),
        Some(arg) => Err(arg.unexpected().into()),
    }
}

pub(crate) fn required<T>(value: Option<T>, flag: &str) -> Result<T, UsageError> {
    value.ok_or_else(|| UsageError(format!("missing required option {flag}")))
}

pub struct CompileArgs {
    pub config: PathBuf,
    pub agent: String,
    pub out_dir: PathBuf,
}

fn parse_compile(parser: &mut lexopt::Parser) -> Result<CompileArgs, UsageError> {
    let (mut config, mut agent, mut out_dir) = (None, None, None);
    while let Some(arg) = parser.next()? {
        match arg {
            Long("config") => config = Some(PathBuf::from(parser.value()?)),
            Long("agent") => agent = Some(parser.value()?.string()?),
            Long("out-dir") => out_dir = Some(PathBuf::from(parser.value()?)),
            other => return Err(other.unexpected().into()),
        }
    }
    Ok(CompileArgs {
        config: required(config, "--config")?,
        agent: required(agent, "--agent")?,
        out_dir: required(out_dir, "--out-dir")?,
    })
}

pub struct CheckArgs {
    pub policy: PathBuf,
    pub provider: Option<engine::harness::Harness>,
    pub event: Option<String>,
    pub project_root: Option<PathBuf>,
    pub json: bool,
}

fn parse_check(parser: &mut lexopt::Parser) -> Result<CheckArgs, UsageError> {
    let (mut policy, mut event, mut json, mut project_root) = (None, None, false, None);
    let mut provider = None;
    while let Some(arg) = parser.next()? {
        match arg {
            Long("policy") => policy = Some(PathBuf::from(parser.value()?)),
            Long("provider") => {
                let name = parser.value()?.string()?;
                provider = Some(engine::harness::Harness::parse(&name).ok_or_else(|| {
                    UsageError(format!(
                        "unknown --provider `{name}`; expected one of {}",
                        engine::harness::Harness::ALL
                            .map(engine::harness::Harness::as_str)
                            .join(", ")
                    ))
                })?)
            }
            Long("event") => event = Some(parser.value()?.string()?),
            Long("project-root") => project_root = Some(PathBuf::from(parser.value()?)),
            Long("json") => json = true,
            other => return Err(other.unexpected().into()),
        }
    }
    Ok(CheckArgs {
        policy: required(policy, "--policy")?,
        provider,
        event,
        project_root,
        json,
    })
}

fn parse_explain(
    parser: &mut lexopt::Parser,
) -> Result<crate::explain_cmd::ExplainArgs, UsageError> {
    use crate::explain_cmd::{CallSource, ExplainArgs};
    let (mut policy, mut event, mut project_root, mut cwd) = (None, None, None, None);
    let (mut command, mut tool, mut input, mut near, mut json) = (None, None, None, false, false);
    while let Some(arg) = parser.next()? {
        match arg {
            Long("policy") => policy = Some(PathBuf::from(parser.value()?)),
            Long("event") => event = Some(parser.value()?.string()?),
            Long("project-root") => project_root = Some(PathBuf::from(parser.value()?)),
            Long("cwd") => cwd = Some(PathBuf::from(parser.value()?)),
            Long("command") => command = Some(parser.value()?.string()?),
            Long("tool") => tool = Some(parser.value()?.string()?),
            Long("input") => input = Some(parser.value()?.string()?),
            Long("near") => near = true,
            Long("json") => json = true,
            other => return Err(other.unexpected().into()),
        }
    }
    let source = match (command, tool, input) {
        (None, None, None) => CallSource::Stdin,
        (Some(command), None, None) => CallSource::Command(command),
        (None, Some(name), Some(input)) => {
            let input: serde_json::Value = serde_json::from_str(&input)
                .map_err(|e| UsageError(format!("--input is not JSON: {e}")))?;
            if !input.is_object() {
                return Err(UsageError("--input must be a JSON object".into()));
            }
            CallSource::Tool { name, input }
        }
        (None, Some(_), None) => return Err(UsageError("--tool needs --input <json>".into())),
        (None, None, Some(_)) => return Err(UsageError("--input needs --tool <name>".into())),
        (Some(_), _, _) => {
            return Err(UsageError(
                "--command is a Bash call: it takes no --tool or --input".into(),
            ));
        }
    };
    Ok(ExplainArgs {
        policy: required(policy, "--policy")?,
        event,
        project_root,
        cwd,
        source,
        near,
        json,
    })
}

fn parse_diff(parser: &mut lexopt::Parser) -> Result<crate::diff_cmd::DiffArgs, UsageError> {
    let (mut files, mut calls, mut json, mut without) = (Vec::new(), None, false, false);
    while let Some(arg) = parser.next()? {
        match arg {
            Long("calls") => calls = Some(PathBuf::from(parser.value()?)),
            Long("without-self-protection") => without = true,
            Long("json") => json = true,
            Value(file) => files.push(PathBuf::from(file)),
            other => return Err(other.unexpected().into()),
        }
    }
    let [before, after]: [PathBuf; 2] = files.try_into().map_err(|files: Vec<PathBuf>| {
        UsageError(format!(
            "diff takes two policies (before and after), got {}",
            files.len()
        ))
    })?;
    Ok(crate::diff_cmd::DiffArgs {
        before,
        after,
        calls,
        without_self_protection: without,
        json,
    })
}

fn parse_lint(parser: &mut lexopt::Parser) -> Result<crate::lint_cmd::LintArgs, UsageError> {
    let (mut config, mut agent, mut deny_warnings) = (None, None, false);
    while let Some(arg) = parser.next()? {
        match arg {
            Long("config") => config = Some(PathBuf::from(parser.value()?)),
            Long("agent") => agent = Some(parser.value()?.string()?),
            Long("deny-warnings") => deny_warnings = true,
            other => return Err(other.unexpected().into()),
        }
    }
    Ok(crate::lint_cmd::LintArgs {
        config: required(config, "--config")?,
        agent: required(agent, "--agent")?,
        deny_warnings,
    })
}

fn parse_test(parser: &mut lexopt::Parser) -> Result<crate::test_cmd::TestArgs, UsageError> {
    let (mut config, mut agent, mut cases) = (None, None, Vec::new());
    while let Some(arg) = parser.next()? {
        match arg {
            Long("config") => config = Some(PathBuf::from(parser.value()?)),
            Long("agent") => agent = Some(parser.value()?.string()?),
            Value(file) => cases.push(PathBuf::from(file)),
            other => return Err(other.unexpected().into()),
        }
    }
    let args = crate::test_cmd::TestArgs {
        config: required(config, "--config")?,
        agent: required(agent, "--agent")?,
        cases,
    };
    if args.cases.is_empty() {
        return Err(UsageError("missing the case files to run".into()));
    }
    Ok(args)
}

pub struct ImportArgs {
    pub claude_settings: Vec<PathBuf>,
    pub agent: String,
    pub json: bool,
    pub meaning: compiler::Meaning,
}

fn parse_import(parser: &mut lexopt::Parser) -> Result<ImportArgs, UsageError> {
    let (mut claude_settings, mut agent, mut json) = (Vec::new(), None, false);
    let mut meaning = compiler::Meaning::Claude;
    while let Some(arg) = parser.next()? {
        match arg {
            Long("claude-settings") => {
                for value in parser.values()? {
                    claude_settings.push(PathBuf::from(value));
                }
            }
            Long("agent") => agent = Some(parser.value()?.string()?),
            Long("json") => json = true,
            Long("meaning") => {
                meaning = match parser.value()?.string()?.as_str() {
                    "claude" => compiler::Meaning::Claude,
                    "allowlist" => compiler::Meaning::Allowlist,
                    other => {
                        return Err(UsageError(format!(
                            "--meaning is `claude` or `allowlist`, not `{other}`"
                        )));
                    }
                }
            }
            other => return Err(other.unexpected().into()),
        }
    }
    if claude_settings.is_empty() {
        return Err(UsageError(
            "missing required option --claude-settings <file>...".into(),
        ));
    }
    Ok(ImportArgs {
        claude_settings,
        agent: required(agent, "--agent")?,
        json,
        meaning,
    })
}

fn parse_inject(parser: &mut lexopt::Parser) -> Result<crate::inject_cmd::InjectArgs, UsageError> {
    use crate::inject_cmd::PromptPosition;
    let (mut provider, mut config, mut agent, mut session_dir, mut session_id, mut project_root) =
        (None, None, None, None, None, None);
    let (mut hook_binary, mut prompt, mut json, mut launch_args) =
        (None, PromptPosition::None, false, Vec::new());
    let mut sandbox = false;
    while let Some(arg) = parser.next()? {
        match arg {
            Long("provider") => provider = Some(parser.value()?.string()?),
            Long("config") => config = Some(PathBuf::from(parser.value()?)),
            Long("agent") => agent = Some(parser.value()?.string()?),
            Long("session-dir") => session_dir = Some(PathBuf::from(parser.value()?)),
            Long("session-id") => session_id = Some(parser.value()?.string()?),
            Long("project-root") => project_root = Some(PathBuf::from(parser.value()?)),
            Long("hook-binary") => hook_binary = Some(PathBuf::from(parser.value()?)),
            Long("prompt-last") => prompt = PromptPosition::Last,
            Long("prompt-index") => prompt = PromptPosition::Index(parser.value()?.parse()?),
            Long("json") => json = true,
            Long("sandbox") => sandbox = true,
            Value(v) => launch_args.push(v.string()?),
            other => return Err(other.unexpected().into()),
        }
    }
    Ok(crate::inject_cmd::InjectArgs {
        provider: required(provider, "--provider")?,
        config: required(config, "--config")?,
        agent: required(agent, "--agent")?,
        session_dir: required(session_dir, "--session-dir")?,
        session_id: required(session_id, "--session-id")?,
        project_root: required(project_root, "--project-root")?,
        hook_binary,
        prompt,
        json,
        sandbox,
        launch_args,
    })
}
