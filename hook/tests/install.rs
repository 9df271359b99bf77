//! `animus-hook install`, `uninstall` and `doctor` in a scratch `HOME` holding a realistic
//! `~/.claude/settings.json`, and `emit --from-payload`, the command they install.

mod common;
mod install_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use test_support::make_dir;
use test_support::write_file;

use serde_json::{Value, json};

/// A user's settings as they might really be: a model, an environment, their own permissions
/// and their own `PreToolUse` hook, with the CLI's two-space indentation.
const USER_SETTINGS: &str = r#"{
  "model": "claude-opus-4-5",
  "env": {
    "DISABLE_TELEMETRY": "1",
    "MY_VAR": "kept"
  },
  "permissions": {
    "allow": [
      "Bash(npm run test:*)",
      "Read(~/notes/**)"
    ],
    "deny": [
      "Bash(curl:*)",
      "Read(./.env)"
    ],
    "defaultMode": "acceptEdits"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/home/me/bin/log-bash.sh",
            "timeout": 5
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh"
  }
}
"#;

use install_support::{Home, assert_ok};
use test_support::assert_has;
use test_support::process::succeed;

#[test]
fn install_keeps_the_users_settings_adds_the_gates_backs_up_and_is_idempotent() {
    let home = Home::new("install");
    home.write_settings(USER_SETTINGS);
    std::fs::set_permissions(home.settings(), std::fs::Permissions::from_mode(0o640)).unwrap();
    assert_ok(&home.run(&["install"]));
    let after: Value = serde_json::from_str(&home.read_settings()).unwrap();
    let before: Value = serde_json::from_str(USER_SETTINGS).unwrap();
    for key in ["model", "env", "permissions", "statusLine"] {
        assert_eq!(after[key], before[key], "{key} is the user's, untouched");
    }
    // The user's own hook stays, first; ours follow.
    assert_eq!(
        after["hooks"]["PreToolUse"][0],
        before["hooks"]["PreToolUse"][0]
    );
    for event in ["PreToolUse", "PermissionRequest"] {
        let (binary, args) = home.gate(event);
        assert!(Path::new(&binary).is_absolute(), "{binary}");
        assert!(args.contains(&"--from-payload".to_string()), "{args:?}");
        assert!(
            args.iter().any(|a| a.starts_with("sha256:")),
            "pinned: {args:?}"
        );
        let handler = &after["hooks"][event].as_array().unwrap().last().unwrap()["hooks"][0];
        assert_eq!(handler["onFailure"], "block");
        assert_eq!(handler["type"], "command");
    }
    let observers = "PostToolUse PostToolUseFailure PermissionDenied Stop SessionStart SessionEnd";
    for event in observers.split(' ') {
        assert!(after["hooks"][event].is_array(), "observer {event}");
    }
    // Order of the user's keys kept; `hooks` stays where it was.
    let text = home.read_settings();
    let at = |key: &str| text.find(&format!("\n  \"{key}\"")).unwrap();
    assert!(
        at("model") < at("env")
            && at("permissions") < at("hooks")
            && at("hooks") < at("statusLine")
    );
    // The backup holds the exact bytes, the mode is kept.
    let backups = home.backups();
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert_eq!(std::fs::read_to_string(&backups[0]).unwrap(), USER_SETTINGS);
    let mode = std::fs::metadata(home.settings())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o640);
    // The policy sits in the state dir, private.
    let installed = home.installed_dir();
    assert!(installed.join("animus-policy.json").is_file());
    let state_mode = std::fs::metadata(home.dir.join(".animus"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(state_mode, 0o700);
    // A second install changes nothing, not even the backups.
    let again = home.run(&["install"]);
    assert_ok(&again);
    assert_has(&again.stdout, "nothing changed");
    assert_eq!(home.read_settings(), text);
    assert_eq!(home.backups(), backups);
}

#[test]
fn the_installed_gate_denies_the_packs_and_the_users_own_deny_entries_and_passes_the_rest() {
    let home = Home::new("install-gate");
    home.write_settings(USER_SETTINGS);
    assert_ok(&home.run(&["install"]));
    let project = home.dir.join("work/repo");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(project.join("src")).unwrap();
    let cwd = std::fs::canonicalize(project.join("src")).unwrap();
    let deny = home.decide("git reset --hard HEAD~3", &cwd, "sess-1");
    assert!(
        deny.contains("\"deny\"") && deny.contains("reset"),
        "{deny}"
    );
    // The user's own `Bash(curl:*)` deny binds through the hook too (bypass mode included).
    let curl = home.decide("curl https://example.com", &cwd, "sess-1");
    assert_has(&curl, "\"deny\"");
    assert_eq!(home.decide("git status", &cwd, "sess-1"), "");
    // The records went to the repo's scope (the git top level above cwd), by session id.
    let root = home.dir.join(".animus");
    let scopes: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let scope = scopes
        .iter()
        .find(|s| s.starts_with("repo-"))
        .unwrap_or_else(|| panic!("a scope for the repo: {scopes:?}"));
    let log = std::fs::read_to_string(root.join(scope).join("sessions/sess-1.jsonl")).unwrap();
    let records: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 3);
    assert_eq!(records[0]["decision"], "deny");
    assert_eq!(records[0]["session"], "sess-1");
    assert_eq!(records[0]["deciding_rule"], "pack.core.git:reset-hard");
}

#[test]
fn a_gate_from_payload_without_a_session_id_denies_naming_it() {
    let home = Home::new("install-no-session");
    assert_ok(&home.run(&["install"]));
    let (binary, args) = home.gate("PreToolUse");
    for payload in [
        json!({"cwd": "/", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "git status"}}),
        json!({"session_id": "../../x", "cwd": "/", "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": "git status"}}),
        json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "git status"}}),
    ] {
        let run = common::run_bin(
            &binary,
            &args,
            Some(payload.to_string().as_bytes()),
            &[("HOME", home.path().to_str().unwrap())],
        );
        assert!(
            run.stdout.contains("\"deny\"") && run.stdout.contains("fail closed"),
            "{payload}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("session_id") || run.stdout.contains("cwd"),
            "the deny names the cause: {}",
            run.stdout
        );
    }
    // --from-payload with an explicit session is a settings mistake: a deny.
    let mut both = args.clone();
    both.extend(["--session".to_string(), "s".to_string()]);
    let payload = json!({"session_id": "s", "cwd": "/", "hook_event_name": "PreToolUse",
                         "tool_name": "Bash", "tool_input": {"command": "git status"}});
    let run = common::run_bin(
        &binary,
        &both,
        Some(payload.to_string().as_bytes()),
        &[("HOME", home.path().to_str().unwrap())],
    );
    assert_has(&run.stdout, "drop --session");
}

#[test]
fn doctor_passes_after_install_and_fails_naming_a_corrupted_policy() {
    let home = Home::new("doctor");
    home.write_settings(USER_SETTINGS);
    let before = home.run(&["doctor"]);
    assert_eq!(
        before.code,
        Some(1),
        "nothing installed yet: {}",
        before.stdout
    );
    assert_has(&before.stdout, "✗ installed");
    assert_ok(&home.run(&["install"]));
    home.assert_doctor_passes(&[
        "✓ gates (user)",
        "✓ hook binary (user)",
        "✓ policy (user)",
        "✓ policy sources (user)",
        "✓ live gate (user)",
        "✓ state dir",
        "✓ kill switch in environment",
    ]);
    let json_run = home.run(&["doctor", "--json"]);
    assert_ok(&json_run);
    let report: Value = serde_json::from_str(json_run.stdout.trim()).unwrap();
    assert_eq!(report["ok"], true);
    // A user deny entry added after install: the policy no longer matches its sources.
    let changed = home.read_settings().replace(
        "\"Bash(curl:*)\",",
        "\"Bash(curl:*)\",\n      \"Bash(wget:*)\",",
    );
    home.write_settings(&changed);
    let drifted = home.run(&["doctor"]);
    assert_eq!(drifted.code, Some(1));
    assert_has(&drifted.stdout, "✗ policy sources (user)");
    assert_ok(&home.run(&["install"]));
    assert_ok(&home.run(&["doctor"]));
    // A corrupted policy: doctor fails, naming the file.
    let policy = home.installed_dir().join("animus-policy.json");
    let mut bytes = std::fs::read(&policy).unwrap();
    bytes.extend_from_slice(b" ");
    std::fs::write(&policy, bytes).unwrap();
    let broken = home.run(&["doctor"]);
    assert_eq!(broken.code, Some(1), "{}", broken.stdout);
    let line = broken
        .stdout
        .lines()
        .find(|l| l.starts_with("✗ policy (user)"))
        .unwrap_or_else(|| panic!("{}", broken.stdout));
    assert!(
        line.contains(policy.to_str().unwrap()) && line.contains("fix: animus-hook install"),
        "{line}"
    );
    // And the kill switch in the settings' env is named.
    assert_ok(&home.run(&["install"]));
    let text = home.read_settings().replace(
        "\"MY_VAR\": \"kept\"",
        "\"MY_VAR\": \"kept\",\n    \"ANIMUS_DISABLE_HARNESS_HOOKS\": \"1\"",
    );
    assert!(text.contains("ANIMUS_DISABLE"));
    home.write_settings(&text);
    let flagged = home.run(&["doctor"]);
    assert_eq!(flagged.code, Some(1));
    assert_has(&flagged.stdout, "✗ kill switch in settings env (user)");
}

#[test]
fn uninstall_restores_the_users_settings_byte_identical() {
    let home = Home::new("uninstall");
    home.write_settings(USER_SETTINGS);
    assert_ok(&home.run(&["install"]));
    let dry = home.run(&["uninstall", "--dry-run"]);
    assert_ok(&dry);
    assert_has(&dry.stdout, "-");
    assert_has(&dry.stdout, "--from-payload");
    assert_ne!(
        home.read_settings(),
        USER_SETTINGS,
        "a dry run writes nothing"
    );
    assert_ok(&home.run(&["uninstall"]));
    assert_eq!(home.read_settings(), USER_SETTINGS);
    assert!(
        !home.installed_dir().exists(),
        "the installed policy is gone"
    );
    let again = home.run(&["uninstall"]);
    assert_ok(&again);
    assert_has(&again.stdout, "nothing changed");
    assert_eq!(home.read_settings(), USER_SETTINGS);
}

#[test]
fn install_creates_settings_when_there_are_none_and_uninstall_leaves_no_hooks() {
    let home = Home::new("install-fresh");
    // A state dir that others may read (records hold payloads) is made private.
    let state = make_dir(&home.dir, ".animus");
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_ok(&home.run(&["install"]));
    let mode = std::fs::metadata(&state).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    assert!(home.backups().is_empty(), "nothing to back up");
    assert_ok(&home.run(&["install"]));
    assert_ok(&home.run(&["uninstall"]));
    assert!(
        !home.settings().exists(),
        "the file install created is gone again"
    );
}

#[test]
fn refusals_change_nothing() {
    let home = Home::new("install-refused");
    let cases: [(&str, &str); 4] = [
        ("{\n  \"model\": \"opus\",\n", "not valid JSON"),
        (
            "{\n  // my notes\n  \"model\": \"opus\"\n}\n",
            "2:3: a comment",
        ),
        ("{\n  \"model\": \"opus\",\n}\n", "trailing comma"),
        ("{\n  \"hooks\": []\n}\n", "`hooks` is not an object"),
    ];
    for (text, why) in cases {
        home.write_settings(text);
        let run = home.run(&["install"]);
        assert_eq!(run.code, Some(1), "{text}: {}", run.stdout);
        assert!(run.stderr.contains(why), "{why}: {}", run.stderr);
        assert_has(&run.stderr, "nothing was changed");
        assert_eq!(home.read_settings(), text, "left byte-identical");
        assert!(home.backups().is_empty());
    }
    // A hook binary that is not animus-hook.
    home.write_settings(USER_SETTINGS);
    let run = home.run(&["install", "--hook-binary", "/bin/true"]);
    assert_eq!(run.code, Some(1));
    assert_has(&run.stderr, "is not animus-hook");
    assert_eq!(home.read_settings(), USER_SETTINGS);
    assert!(
        !home.dir.join(".animus/installed").exists(),
        "no policy written"
    );
    // A settings directory that takes no new file (root included: /proc refuses every user).
    let out = Command::new(common::bin())
        .arg("install")
        .env("HOME", home.path())
        .env("CLAUDE_CONFIG_DIR", "/proc/self")
        .env_remove("ANIMUS_CONFIG_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_has(&stderr, "cannot write");
    assert!(
        !home.dir.join(".animus/installed").exists(),
        "no policy written"
    );
    // A harness nobody knows is refused, naming the ones there are.
    let run = home.run(&["install", "--harness", "codec"]);
    assert_eq!(run.code, Some(1));
    assert_has(&run.stderr, "expected claude, codex, gemini or opencode");
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let home = Home::new("install-dry");
    home.write_settings(USER_SETTINGS);
    let run = home.run(&["install", "--dry-run"]);
    assert_ok(&run);
    assert_has(&run.stdout, "+");
    assert_has(&run.stdout, "\"onFailure\": \"block\"");
    assert!(run.stdout.contains("nothing was written"));
    assert_eq!(home.read_settings(), USER_SETTINGS);
    assert!(home.backups().is_empty());
    assert!(!home.dir.join(".animus").exists());
}

#[test]
fn project_scope_writes_the_projects_local_settings() {
    let home = Home::new("install-project");
    let project = home.dir.join("proj");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let run = home.run_in(&["install", "--scope", "project", "--local"], &project);
    assert_ok(&run);
    let local = project.join(".claude/settings.local.json");
    let text = std::fs::read_to_string(&local).unwrap();
    assert!(
        text.contains("--from-payload") && text.contains("claude-project-proj-"),
        "{text}"
    );
    assert!(
        !home.settings().exists(),
        "the user's settings are not touched"
    );
    assert_ok(&home.run_in(&["doctor"], &project));
    assert_ok(&home.run_in(&["uninstall", "--scope", "project", "--local"], &project));
    assert!(!local.exists(), "the file install created is gone again");
}

#[test]
fn hooks_written_before_permissions_do_not_make_the_policy_drift() {
    // Adding our entries moves every line below `hooks`: the installed policy must not depend
    // on where the user's entries sit, or doctor would report drift right after install.
    let home = Home::new("install-order");
    home.write_settings(
        "{\n  \"hooks\": {},\n  \"permissions\": {\n    \"deny\": [\n      \"Bash(curl:*)\"\n    ]\n  }\n}\n",
    );
    assert_ok(&home.run(&["install"]));
    assert_ok(&home.run(&["doctor"]));
    let again = home.run(&["install"]);
    assert_has(&again.stdout, "nothing changed");
}

#[test]
fn claude_config_dir_names_the_settings_install_writes() {
    let home = Home::new("install-config-dir");
    let config = make_dir(&home.dir, "elsewhere");
    succeed(
        Command::new(common::bin())
            .arg("install")
            .env("HOME", home.path())
            .env("CLAUDE_CONFIG_DIR", &config)
            .env_remove("ANIMUS_CONFIG_DIR")
            .env_remove("ANIMUS_HOOK_BIN"),
    );
    let text = std::fs::read_to_string(config.join("settings.json")).unwrap();
    assert_has(&text, "--from-payload");
    assert!(
        !home.settings().exists(),
        "~/.claude is not CLAUDE_CONFIG_DIR"
    );
    // The installed policy protects that settings file from the agent.
    let policy = std::fs::read_to_string(
        home.dir
            .join(".animus/installed/claude-user/animus-policy.json"),
    )
    .unwrap();
    let canonical = std::fs::canonicalize(&config).unwrap();
    assert!(
        policy.contains(&format!("{}/settings*.json", canonical.display())),
        "{policy}"
    );
}

#[test]
fn a_settings_file_that_is_a_symlink_is_written_through_its_link() {
    // A dotfiles checkout links ~/.claude/settings.json to a file it keeps elsewhere.
    let home = Home::new("install-symlink");
    let dotfiles = make_dir(&home.dir, "dotfiles");
    let real = write_file(&dotfiles, "claude-settings.json", USER_SETTINGS);
    std::os::unix::fs::symlink(&real, home.settings()).unwrap();
    assert_ok(&home.run(&["install"]));
    let link = std::fs::symlink_metadata(home.settings()).unwrap();
    assert!(link.file_type().is_symlink(), "the link is kept");
    assert_has(&std::fs::read_to_string(&real).unwrap(), "--from-payload");
    assert_eq!(home.backups().len(), 1);
    assert_ok(&home.run(&["uninstall"]));
    assert!(
        std::fs::symlink_metadata(home.settings())
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&real).unwrap(), USER_SETTINGS);
}

#[test]
fn install_sandbox_adds_claudes_sandbox_and_uninstall_takes_it_away() {
    let home = Home::new("install-sandbox");
    home.write_settings(USER_SETTINGS);
    assert_ok(&home.run(&["install", "--sandbox"]));
    let settings: Value = serde_json::from_str(&home.read_settings()).unwrap();
    let sandbox = &settings["sandbox"];
    assert_eq!(sandbox["enabled"], true);
    assert_eq!(sandbox["failIfUnavailable"], true);
    assert_eq!(sandbox["allowUnsandboxedCommands"], false);
    assert_eq!(sandbox["autoAllowBashIfSandboxed"], false);
    let deny: Vec<&str> = sandbox["filesystem"]["denyWrite"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let installed = std::fs::canonicalize(home.installed_dir()).unwrap();
    let claude = std::fs::canonicalize(home.claude_dir()).unwrap();
    for place in [installed.to_str().unwrap(), claude.to_str().unwrap()] {
        assert!(deny.contains(&place), "{place} in {deny:?}");
    }
    let text = home.read_settings();
    let doctor = home.run(&["doctor"]);
    assert_has(&doctor.stdout, "✓ sandbox (user)");
    home.write_settings(&text.replace(
        "\"failIfUnavailable\": true",
        "\"failIfUnavailable\": false",
    ));
    let weakened = home.run(&["doctor"]);
    assert_eq!(weakened.code, Some(1));
    assert_has(&weakened.stdout, "✗ sandbox (user)");
    home.write_settings(&text);
    let again = home.run(&["install", "--sandbox"]);
    assert_has(&again.stdout, "nothing changed");
    // Installing again without --sandbox takes our sandbox away, and keeps the gates.
    assert_ok(&home.run(&["install"]));
    let plain: Value = serde_json::from_str(&home.read_settings()).unwrap();
    assert!(plain.get("sandbox").is_none() && plain["hooks"]["PermissionRequest"].is_array());
    assert_ok(&home.run(&["install", "--sandbox"]));
    assert_eq!(home.read_settings(), text);
    assert_ok(&home.run(&["uninstall"]));
    assert_eq!(home.read_settings(), USER_SETTINGS);
    // A sandbox of the user's own is not overwritten.
    let own = USER_SETTINGS.replacen('{', "{\n  \"sandbox\": {\"enabled\": true},", 1);
    home.write_settings(&own);
    let refused = home.run(&["install", "--sandbox"]);
    assert_eq!(refused.code, Some(1));
    assert_has(&refused.stderr, "already configures `sandbox`");
    assert_eq!(home.read_settings(), own);
}
