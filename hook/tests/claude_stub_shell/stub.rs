//! The stub shell and one session of scripted Bash calls run through it.

use super::*;
use test_support::make_dir;

/// What the stub prints for every command it is handed: only the stub can put it in a
/// `tool_result`, so its presence there is the proof the command reached the shell.
pub(super) const RAN_MARKER: &str = "animus-stub-shell: reached the shell, ran nothing";

/// How many Bash calls the mock model makes in one turn (parallel tool calls).
const CALLS_PER_TURN: usize = 16;

/// A stub `bash` in its own directory: Claude runs every Bash command as `$SHELL -c -l
/// '<prologue> && eval '\''<command>'\'' < /dev/null && pwd -P >| <cwd file>'` (measured on
/// 2.1.328), after two set-up calls of its own (`-c env`, and `-c -l` with a script that writes
/// a shell snapshot). The stub answers every call with exit status 0 and executes nothing; a
/// call whose script holds `eval ` is a command of the model's, appended to the log (one record
/// per call, ended by `\x1e`) and answered with [`RAN_MARKER`].
pub(super) struct StubShell {
    pub path: PathBuf,
    pub log: PathBuf,
}

impl StubShell {
    pub fn install(root: &Path) -> StubShell {
        let dir = make_dir(root, "stub-shell");
        // Named `bash`: Claude uses `$SHELL` only when it is a bash or zsh.
        let path = dir.join("bash");
        let log = dir.join("commands.log");
        test_support::process::write_executable(
            &path,
            format!(
                "#!/bin/sh\n\
                 # A stand-in for bash: records what Claude Code asks it to run, runs nothing.\n\
                 case \"$*\" in\n\
                 *'eval '*) printf '%s\\036' \"$*\" >> '{log}'; echo '{RAN_MARKER}' ;;\n\
                 esac\n\
                 exit 0\n",
                log = log.display()
            )
            .as_bytes(),
        );
        StubShell { path, log }
    }

    /// Every command script the stub was handed, in order.
    pub fn calls(&self) -> Vec<String> {
        fs::read_to_string(&self.log)
            .unwrap_or_default()
            .split('\u{1e}')
            .filter(|r| !r.is_empty())
            .map(str::to_owned)
            .collect()
    }
}

/// What Claude did with one Bash call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Answer {
    /// `ran` (it reached the stub), `asked` (needs approval, refused in `-p`), `denied` (a
    /// deny rule or a hook refused it) or `refused` (any other refusal: a validation error, a
    /// command Claude blocks outright).
    pub outcome: &'static str,
    /// The `tool_result` text, throwaway paths respelled `{project}` / `{home}`.
    pub message: String,
}

/// Messages of a refusal by a deny rule or by the hook (substrings).
const DENIED: &[&str] = &[
    "has been denied",
    "hook error",
    "Error: No such tool available",
];

/// Messages of a call that needs approval, which `-p` cannot give (substrings).
const ASKED: &[&str] = &[
    "Claude requested permissions to ",
    "needs approval",
    "requires approval",
    "require approval",
    "can't be checked before it runs",
    "cannot be auto-allowed",
];

/// Run `commands` as Bash calls of one headless session (`args` hold everything before the
/// prompt: `--settings …` and the like), with the stub as `$SHELL`; return what Claude did with
/// each. Panics when a call got no `tool_result`, or when the stub's log and the results
/// disagree about how many ran.
pub(super) fn run_session(sandbox: &Sandbox, args: &[String], commands: &[String]) -> Vec<Answer> {
    let stub = StubShell::install(&sandbox.scratch.root);
    let mut script = Script::new().main_session_only(PROMPT);
    for (turn, chunk) in commands.chunks(CALLS_PER_TURN).enumerate() {
        script = script.turn(
            chunk
                .iter()
                .enumerate()
                .map(|(i, command)| {
                    Block::tool_use(
                        &call_id(turn * CALLS_PER_TURN + i),
                        "Bash",
                        json!({"command": command, "description": "scripted by the stub-shell oracle"}),
                    )
                })
                .collect(),
        );
    }
    let mock = MockApi::start(script).expect("start the mock API");
    let mut command = sandbox.claude_command(&claude(), &mock, args);
    // The stub records what it is handed and runs nothing.
    command.env("SHELL", &stub.path);
    let finished = run_bounded(&mut command, SESSION_DEADLINE, "claude");
    assert!(
        finished.status.success(),
        "claude failed: {}\n{}",
        finished.stdout,
        finished.stderr
    );
    let results = mock.tool_results();
    let answers: Vec<Answer> = (0..commands.len())
        .map(|i| {
            let id = call_id(i);
            let result = results
                .iter()
                .find(|r| r.tool_use_id == id)
                .unwrap_or_else(|| panic!("{id} ({:?}): no tool_result", commands[i]));
            let text = result.text.as_str();
            let outcome = if text.contains(RAN_MARKER) {
                "ran"
            } else if DENIED.iter().any(|m| text.contains(m)) {
                "denied"
            } else if ASKED.iter().any(|m| text.contains(m)) {
                "asked"
            } else {
                "refused"
            };
            Answer {
                outcome,
                message: respell(text, sandbox),
            }
        })
        .collect();
    let ran = answers.iter().filter(|a| a.outcome == "ran").count();
    let reached = stub.calls().len();
    assert_eq!(
        ran, reached,
        "{ran} results carry the stub's marker but the stub was handed {reached} commands"
    );
    answers
}

fn call_id(i: usize) -> String {
    format!("toolu_c{i}")
}

/// The throwaway paths back to placeholders.
pub(super) fn respell(text: &str, sandbox: &Sandbox) -> String {
    text.replace(&*sandbox.project.to_string_lossy(), "{project}")
        .replace(&*sandbox.home.to_string_lossy(), "{home}")
}

/// A settings file holding only `permissions` (allow, ask, deny), at `path`; returns the
/// launch arguments before the prompt that use it.
pub(super) fn native_settings(path: &Path, permissions: &Value) -> Vec<String> {
    let pick = |key: &str| permissions.get(key).cloned().unwrap_or_else(|| json!([]));
    let settings = json!({"permissions": {
        "allow": pick("allow"),
        "ask": pick("ask"),
        "deny": pick("deny"),
    }});
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
    launch(&["--settings", &path.to_string_lossy()])
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Run `jobs` on at most [`JOBS`] threads, results in the order of `jobs`.
pub(super) fn parallel<T, R, F>(jobs: Vec<T>, work: F) -> Vec<R>
where
    T: Send + 'static,
    R: Send + 'static,
    F: Fn(usize, T) -> R + Send + Sync + 'static,
{
    test_support::process::parallel(JOBS, jobs, "a session failed", work)
}
