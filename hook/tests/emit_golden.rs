//! Golden tests: the exact stdout bytes `emit` prints for real Claude payload shapes under the
//! trader, allowlist and cautious profiles — deny, ask, allow and defer, on both gate events.

mod common;

use common::*;

const DEFAULT_DENY: &str =
    "Not allowed by this agent's tool policy (allowlist: unlisted tools are denied).";

fn pre(decision: &str, reason: &str) -> String {
    format!(
        "{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"{decision}\",\"permissionDecisionReason\":{}}}}}\n",
        serde_json::Value::String(reason.into())
    )
}

fn perm_deny(message: &str) -> String {
    format!(
        "{{\"hookSpecificOutput\":{{\"hookEventName\":\"PermissionRequest\",\"decision\":{{\"behavior\":\"deny\",\"message\":{}}}}}}}\n",
        serde_json::Value::String(message.into())
    )
}

/// What a covered call gets: nothing. The hook never answers allow; Claude grants the call
/// from the same entries, which `inject` writes as its own permissions.
const ABSTAIN: &str = "";

/// A corpus payload with `tool_input.command` replaced.
fn with_command(name: &str, command: &str) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_slice(&payload(name)).unwrap();
    v["tool_input"]["command"] = command.into();
    serde_json::to_vec(&v).unwrap()
}

fn emit(
    policy: &std::path::Path,
    event: &str,
    state: &std::path::Path,
    stdin: &[u8],
) -> common::Run {
    let project = state.parent().unwrap().join("project");
    std::fs::create_dir_all(&project).unwrap();
    run_emit_both(
        &emit_args(event, "golden", &project, Some(policy)),
        Some(stdin),
        &[("ANIMUS_CONFIG_DIR", state.to_str().unwrap())],
    )
}

/// One golden case: its name, the gate event, the payload on stdin and the exact stdout.
type Case = (&'static str, &'static str, Vec<u8>, String);

/// `emit` under agent `agent` of the corpus profile `profile` prints exactly the expected
/// bytes for each case, exits 0 and writes nothing to stderr.
fn golden(profile: &str, agent: &str, cases: Vec<Case>) {
    let dir = temp_dir(&format!("golden-{agent}"));
    let state = dir.join("state");
    let policy = compile_profile(profile, agent, &dir.join("policy"));
    for (name, event, stdin, expected) in cases {
        let run = emit(&policy, event, &state, &stdin);
        assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
        assert_eq!(run.stdout, expected, "{name}");
        assert_eq!(run.stderr, "", "{name}");
    }
}

fn live_deny() -> String {
    pre(
        "deny",
        "Denied by tool_policy.deny entry `Bash(* --live*)`.",
    )
}

/// Trader: deny and defer, on both gate events.
#[test]
fn golden_stdout_bytes_trader() {
    golden(
        "trader.yaml",
        "trader",
        vec![
            (
                "trader live",
                "PreToolUse",
                payload("PreToolUse.Bash.trade-live.json"),
                live_deny(),
            ),
            (
                "trader deploy",
                "PreToolUse",
                payload("PreToolUse.Bash.deploy-prod-space.json"),
                pre("deny", "Production deploys require a human."),
            ),
            (
                "trader bash",
                "PreToolUse",
                payload("PreToolUse.Bash.json"),
                String::new(),
            ),
            (
                "trader read",
                "PreToolUse",
                payload("PreToolUse.Read.json"),
                String::new(),
            ),
            (
                "trader write",
                "PreToolUse",
                payload("PreToolUse.Write.json"),
                String::new(),
            ),
            (
                "trader edit",
                "PreToolUse",
                payload("PreToolUse.Edit.json"),
                String::new(),
            ),
            (
                "trader glob",
                "PreToolUse",
                payload("PreToolUse.Glob.json"),
                String::new(),
            ),
            (
                "trader grep",
                "PreToolUse",
                payload("PreToolUse.Grep.json"),
                String::new(),
            ),
            (
                "trader webfetch",
                "PreToolUse",
                payload("PreToolUse.WebFetch.json"),
                String::new(),
            ),
            (
                "trader mcp",
                "PreToolUse",
                payload("PreToolUse.mcp__e2e__echo.json"),
                String::new(),
            ),
            (
                "trader perm bash",
                "PermissionRequest",
                payload("PermissionRequest.Bash.json"),
                String::new(),
            ),
            (
                "trader perm live",
                "PermissionRequest",
                with_command("PermissionRequest.Bash.json", "trade --live"),
                perm_deny("Denied by tool_policy.deny entry `Bash(* --live*)`."),
            ),
        ],
    );
}

/// Allowlist: allow and deny (default and explicit), and shell syntax.
#[test]
fn golden_stdout_bytes_allowlist() {
    golden(
        "allowlist.yaml",
        "reviewer",
        vec![
            (
                "allow read",
                "PreToolUse",
                payload("PreToolUse.Read.json"),
                ABSTAIN.to_string(),
            ),
            (
                "allow status",
                "PreToolUse",
                payload("PreToolUse.Bash.git-status.json"),
                ABSTAIN.to_string(),
            ),
            (
                "allow dotenv",
                "PreToolUse",
                payload("PreToolUse.Read.dotenv.json"),
                pre("deny", "Secrets stay unread."),
            ),
            (
                "allow force",
                "PreToolUse",
                payload("PreToolUse.Bash.git-push-force.json"),
                pre(
                    "deny",
                    "Denied by tool_policy.deny entry `Bash(*--force*)`.",
                ),
            ),
            (
                "allow bash",
                "PreToolUse",
                payload("PreToolUse.Bash.json"),
                pre("deny", DEFAULT_DENY),
            ),
            (
                "allow write",
                "PreToolUse",
                payload("PreToolUse.Write.json"),
                pre("deny", DEFAULT_DENY),
            ),
            (
                "allow edit",
                "PreToolUse",
                payload("PreToolUse.Edit.json"),
                pre("deny", DEFAULT_DENY),
            ),
            (
                "allow glob",
                "PreToolUse",
                payload("PreToolUse.Glob.json"),
                pre("deny", DEFAULT_DENY),
            ),
            (
                "allow grep",
                "PreToolUse",
                payload("PreToolUse.Grep.json"),
                pre("deny", DEFAULT_DENY),
            ),
            (
                "allow webfetch",
                "PreToolUse",
                payload("PreToolUse.WebFetch.json"),
                pre("deny", DEFAULT_DENY),
            ),
            (
                "allow mcp",
                "PreToolUse",
                payload("PreToolUse.mcp__e2e__echo.json"),
                pre("deny", DEFAULT_DENY),
            ),
            (
                "allow perm write",
                "PermissionRequest",
                payload("PermissionRequest.Write.json"),
                perm_deny(DEFAULT_DENY),
            ),
            (
                "allow perm edit",
                "PermissionRequest",
                payload("PermissionRequest.Edit.json"),
                perm_deny(DEFAULT_DENY),
            ),
            (
                "allow perm webfetch",
                "PermissionRequest",
                payload("PermissionRequest.WebFetch.json"),
                perm_deny(DEFAULT_DENY),
            ),
            (
                "allow perm mcp",
                "PermissionRequest",
                payload("PermissionRequest.mcp__e2e__echo.json"),
                perm_deny(DEFAULT_DENY),
            ),
            (
                "allow perm status",
                "PermissionRequest",
                with_command("PermissionRequest.Bash.json", "git status"),
                ABSTAIN.to_string(),
            ),
        ],
    );
}

/// Shell syntax under the allowlist: an allow covers every segment or nothing; a deny sees
/// every segment.
#[test]
fn golden_stdout_bytes_allowlist_shell() {
    golden(
        "allowlist.yaml",
        "reviewer",
        vec![
            (
                "allow status then rm",
                "PreToolUse",
                with_command("PreToolUse.Bash.git-status.json", "git status && rm -rf /"),
                // `rm -rf /` in its normal form is `rm --recursive --force /`: the author's
                // `Bash(*--force*)` deny sees it before the allowlist's default does.
                pre(
                    "deny",
                    "Denied by tool_policy.deny entry `Bash(*--force*)`.",
                ),
            ),
            (
                "allow status substitution",
                "PreToolUse",
                with_command("PreToolUse.Bash.git-status.json", "git status $(rm -rf ~)"),
                pre(
                    "deny",
                    "Denied by tool_policy.deny entry `Bash(*--force*)`.",
                ),
            ),
            (
                "allow status comment",
                "PreToolUse",
                with_command("PreToolUse.Bash.git-status.json", "touch x # git status"),
                pre("deny", DEFAULT_DENY),
            ),
            (
                "allow status piped",
                "PreToolUse",
                with_command(
                    "PreToolUse.Bash.git-status.json",
                    "git status | git status -s",
                ),
                ABSTAIN.to_string(),
            ),
            (
                "allow unparseable",
                "PreToolUse",
                with_command(
                    "PreToolUse.Bash.git-status.json",
                    "git status \"unterminated",
                ),
                pre("deny", DEFAULT_DENY),
            ),
            (
                "allow force quoted",
                "PreToolUse",
                with_command(
                    "PreToolUse.Bash.git-status.json",
                    "git status; (git push '--fo'rce)",
                ),
                pre(
                    "deny",
                    "Denied by tool_policy.deny entry `Bash(*--force*)`.",
                ),
            ),
        ],
    );
}

/// Cautious: ask on PreToolUse; ask abstains on PermissionRequest.
#[test]
fn golden_stdout_bytes_cautious() {
    golden(
        "cautious.yaml",
        "cautious",
        vec![
            (
                "cautious push",
                "PreToolUse",
                payload("PreToolUse.Bash.git-push-force.json"),
                pre("ask", "Pushing needs a human."),
            ),
            (
                "cautious perm push",
                "PermissionRequest",
                with_command("PermissionRequest.Bash.json", "git push"),
                String::new(),
            ),
            (
                "cautious webfetch",
                "PreToolUse",
                payload("PreToolUse.WebFetch.json"),
                pre("deny", "Denied by tool_policy.deny entry `WebFetch`."),
            ),
            (
                "cautious perm webfetch",
                "PermissionRequest",
                payload("PermissionRequest.WebFetch.json"),
                perm_deny("Denied by tool_policy.deny entry `WebFetch`."),
            ),
        ],
    );
}
