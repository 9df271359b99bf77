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

#[test]
fn golden_stdout_bytes() {
    let dir = temp_dir("golden");
    let state = dir.join("state");
    let trader = compile_profile("trader.yaml", "trader", &dir.join("trader"));
    let allowlist = compile_profile("allowlist.yaml", "reviewer", &dir.join("allowlist"));
    let cautious = compile_profile("cautious.yaml", "cautious", &dir.join("cautious"));
    let live_deny = pre(
        "deny",
        "Denied by tool_policy.deny entry `Bash(* --live*)`.",
    );
    let cases: Vec<(&str, &std::path::Path, &str, Vec<u8>, String)> = vec![
        // trader: deny and defer.
        (
            "trader live",
            &trader,
            "PreToolUse",
            payload("PreToolUse.Bash.trade-live.json"),
            live_deny.clone(),
        ),
        (
            "trader deploy",
            &trader,
            "PreToolUse",
            payload("PreToolUse.Bash.deploy-prod-space.json"),
            pre("deny", "Production deploys require a human."),
        ),
        (
            "trader bash",
            &trader,
            "PreToolUse",
            payload("PreToolUse.Bash.json"),
            String::new(),
        ),
        (
            "trader read",
            &trader,
            "PreToolUse",
            payload("PreToolUse.Read.json"),
            String::new(),
        ),
        (
            "trader write",
            &trader,
            "PreToolUse",
            payload("PreToolUse.Write.json"),
            String::new(),
        ),
        (
            "trader edit",
            &trader,
            "PreToolUse",
            payload("PreToolUse.Edit.json"),
            String::new(),
        ),
        (
            "trader glob",
            &trader,
            "PreToolUse",
            payload("PreToolUse.Glob.json"),
            String::new(),
        ),
        (
            "trader grep",
            &trader,
            "PreToolUse",
            payload("PreToolUse.Grep.json"),
            String::new(),
        ),
        (
            "trader webfetch",
            &trader,
            "PreToolUse",
            payload("PreToolUse.WebFetch.json"),
            String::new(),
        ),
        (
            "trader mcp",
            &trader,
            "PreToolUse",
            payload("PreToolUse.mcp__e2e__echo.json"),
            String::new(),
        ),
        (
            "trader perm bash",
            &trader,
            "PermissionRequest",
            payload("PermissionRequest.Bash.json"),
            String::new(),
        ),
        (
            "trader perm live",
            &trader,
            "PermissionRequest",
            with_command("PermissionRequest.Bash.json", "trade --live"),
            perm_deny("Denied by tool_policy.deny entry `Bash(* --live*)`."),
        ),
        // allowlist: allow and deny (default and explicit), on both events.
        (
            "allow read",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.Read.json"),
            ABSTAIN.to_string(),
        ),
        (
            "allow status",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.Bash.git-status.json"),
            ABSTAIN.to_string(),
        ),
        (
            "allow dotenv",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.Read.dotenv.json"),
            pre("deny", "Secrets stay unread."),
        ),
        (
            "allow force",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.Bash.git-push-force.json"),
            pre(
                "deny",
                "Denied by tool_policy.deny entry `Bash(*--force*)`.",
            ),
        ),
        (
            "allow bash",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.Bash.json"),
            pre("deny", DEFAULT_DENY),
        ),
        (
            "allow write",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.Write.json"),
            pre("deny", DEFAULT_DENY),
        ),
        (
            "allow edit",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.Edit.json"),
            pre("deny", DEFAULT_DENY),
        ),
        (
            "allow glob",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.Glob.json"),
            pre("deny", DEFAULT_DENY),
        ),
        (
            "allow grep",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.Grep.json"),
            pre("deny", DEFAULT_DENY),
        ),
        (
            "allow webfetch",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.WebFetch.json"),
            pre("deny", DEFAULT_DENY),
        ),
        (
            "allow mcp",
            &allowlist,
            "PreToolUse",
            payload("PreToolUse.mcp__e2e__echo.json"),
            pre("deny", DEFAULT_DENY),
        ),
        (
            "allow perm write",
            &allowlist,
            "PermissionRequest",
            payload("PermissionRequest.Write.json"),
            perm_deny(DEFAULT_DENY),
        ),
        (
            "allow perm edit",
            &allowlist,
            "PermissionRequest",
            payload("PermissionRequest.Edit.json"),
            perm_deny(DEFAULT_DENY),
        ),
        (
            "allow perm webfetch",
            &allowlist,
            "PermissionRequest",
            payload("PermissionRequest.WebFetch.json"),
            perm_deny(DEFAULT_DENY),
        ),
        (
            "allow perm mcp",
            &allowlist,
            "PermissionRequest",
            payload("PermissionRequest.mcp__e2e__echo.json"),
            perm_deny(DEFAULT_DENY),
        ),
        (
            "allow perm status",
            &allowlist,
            "PermissionRequest",
            with_command("PermissionRequest.Bash.json", "git status"),
            ABSTAIN.to_string(),
        ),
        // Shell syntax: an allow covers every segment or nothing; a deny sees every segment.
        (
            "allow status then rm",
            &allowlist,
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
            &allowlist,
            "PreToolUse",
            with_command("PreToolUse.Bash.git-status.json", "git status $(rm -rf ~)"),
            pre(
                "deny",
                "Denied by tool_policy.deny entry `Bash(*--force*)`.",
            ),
        ),
        (
            "allow status comment",
            &allowlist,
            "PreToolUse",
            with_command("PreToolUse.Bash.git-status.json", "touch x # git status"),
            pre("deny", DEFAULT_DENY),
        ),
        (
            "allow status piped",
            &allowlist,
            "PreToolUse",
            with_command(
                "PreToolUse.Bash.git-status.json",
                "git status | git status -s",
            ),
            ABSTAIN.to_string(),
        ),
        (
            "allow unparseable",
            &allowlist,
            "PreToolUse",
            with_command(
                "PreToolUse.Bash.git-status.json",
                "git status \"unterminated",
            ),
            pre("deny", DEFAULT_DENY),
        ),
        (
            "allow force quoted",
            &allowlist,
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
        // cautious: ask on PreToolUse; ask abstains on PermissionRequest.
        (
            "cautious push",
            &cautious,
            "PreToolUse",
            payload("PreToolUse.Bash.git-push-force.json"),
            pre("ask", "Pushing needs a human."),
        ),
        (
            "cautious perm push",
            &cautious,
            "PermissionRequest",
            with_command("PermissionRequest.Bash.json", "git push"),
            String::new(),
        ),
        (
            "cautious webfetch",
            &cautious,
            "PreToolUse",
            payload("PreToolUse.WebFetch.json"),
            pre("deny", "Denied by tool_policy.deny entry `WebFetch`."),
        ),
        (
            "cautious perm webfetch",
            &cautious,
            "PermissionRequest",
            payload("PermissionRequest.WebFetch.json"),
            perm_deny("Denied by tool_policy.deny entry `WebFetch`."),
        ),
    ];
    for (name, policy, event, stdin, expected) in cases {
        let run = emit(policy, event, &state, &stdin);
        assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
        assert_eq!(run.stdout, expected, "{name}");
        assert_eq!(run.stderr, "", "{name}");
    }
}
