//! `animus-hook install --harness codex`: the guard's hooks in the user's `~/.codex/hooks.json`
//! after the user's own, their trust in `~/.codex/config.toml` (every other byte of both kept),
//! checked by `doctor`, taken away by `uninstall` (both files byte for byte as they were).
//! The real CLI's side is `e2e_codex`'s `installed_*` cases.

mod common;
mod install_support;

use std::path::Path;

use install_support::{Home, assert_ok};
use serde_json::Value;
use test_support::assert_has;

const USER_HOOKS: &str = r#"{
  "description": "my hooks",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "my-audit", "timeout": 5}]
      }
    ]
  }
}
"#;

fn user_config(home: &Path) -> String {
    format!(
        "# My Codex setup.\nmodel = \"gpt-5.5\"  # the default model\napproval_policy = \
         \"on-request\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\nargs = [\"--stdio\"]\n\n\
         # I reviewed my audit hook.\n[hooks.state.\"{}/.codex/hooks.json:pre_tool_use:0:0\"]\n\
         trusted_hash = \"sha256:mine\"\n",
        home.display()
    )
}

fn files(home: &Home) -> (String, String) {
    let dir = home.path().join(".codex");
    (
        std::fs::read_to_string(dir.join("hooks.json")).unwrap_or_default(),
        std::fs::read_to_string(dir.join("config.toml")).unwrap_or_default(),
    )
}

fn backups(home: &Home) -> usize {
    std::fs::read_dir(home.path().join(".codex"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().contains(".animus-backup-"))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn codex_install_trusts_its_hooks_doctor_checks_them_uninstall_restores_both_files() {
    let home = Home::new("install-codex");
    let codex = home.path().join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    let config = user_config(&home.path());
    std::fs::write(codex.join("hooks.json"), USER_HOOKS).unwrap();
    std::fs::write(codex.join("config.toml"), &config).unwrap();

    let run = home.run(&["install", "--harness", "codex"]);
    assert_ok(&run);
    assert_has(&run.stdout, "guarded every codex session");
    let (hooks, toml) = files(&home);
    let json: Value = serde_json::from_str(&hooks).unwrap();
    assert_eq!(json["description"], "my hooks");
    // The user's group keeps index 0 (its trust key); ours comes after it.
    let pre = json["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["hooks"][0]["command"], "my-audit");
    let gate = pre[1]["hooks"][0]["command"].as_str().unwrap();
    assert!(
        gate.contains("'--from-payload'") && gate.contains("'--policy-digest'"),
        "{gate}"
    );
    for event in [
        "PermissionRequest",
        "PostToolUse",
        "SessionStart",
        "SessionEnd",
        "Stop",
    ] {
        assert!(json["hooks"][event].is_array(), "{event}: {hooks}");
    }
    // The config: the user's text first, byte for byte, then the trust of our six hooks.
    assert!(toml.starts_with(&config), "{toml}");
    let key = |event: &str, group: usize| {
        format!(
            "[hooks.state.\"{}/hooks.json:{event}:{group}:0\"]",
            codex.display()
        )
    };
    for (event, group) in [
        ("pre_tool_use", 1),
        ("permission_request", 0),
        ("post_tool_use", 0),
        ("session_start", 0),
        ("session_end", 0),
        ("stop", 0),
    ] {
        assert!(toml.contains(&key(event, group)), "{event}:\n{toml}");
    }
    assert_eq!(backups(&home), 2, "both files backed up");

    // A second install changes no byte.
    let again = home.run(&["install", "--harness", "codex"]);
    assert_ok(&again);
    assert_has(&again.stdout, "nothing changed");
    assert_eq!(files(&home), (hooks.clone(), toml.clone()));

    home.assert_doctor_passes(&["✓ gates (codex)", "✓ policy (codex)", "✓ live gate (codex)"]);

    // A stale trust hash is a hook Codex would skip without a word: doctor names it.
    let gate_key = key("pre_tool_use", 1);
    let at = toml.find(&gate_key).unwrap() + gate_key.len();
    let stale = format!(
        "{}{}",
        &toml[..at],
        toml[at..].replacen("trusted_hash = \"sha256:", "trusted_hash = \"sha256:0", 1)
    );
    std::fs::write(codex.join("config.toml"), &stale).unwrap();
    let doctor = home.run(&["doctor"]);
    assert_eq!(doctor.code, Some(1), "{}", doctor.stdout);
    assert_has(
        &doctor.stdout,
        "pre_tool_use:1:0` is trusted for another definition",
    );
    assert_has(&doctor.stdout, "animus-hook install --harness codex");
    assert_ok(&home.run(&["install", "--harness", "codex"]));
    assert_eq!(files(&home).1, toml, "re-install trusts our hooks again");

    let removed = home.run(&["uninstall", "--harness", "codex"]);
    assert_ok(&removed);
    assert_eq!(files(&home), (USER_HOOKS.to_string(), config));
}

#[test]
fn codex_install_refuses_a_broken_config_and_changes_nothing() {
    let home = Home::new("install-codex-broken");
    let codex = home.path().join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    std::fs::write(codex.join("hooks.json"), USER_HOOKS).unwrap();
    let broken = "model = \"gpt-5.5\"\n[hooks\n";
    std::fs::write(codex.join("config.toml"), broken).unwrap();
    let run = home.run(&["install", "--harness", "codex"]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert_has(&run.stderr, "config.toml` is not valid TOML");
    assert_has(&run.stderr, "line 2");
    assert_has(&run.stderr, "nothing was changed");
    assert_eq!(files(&home), (USER_HOOKS.to_string(), broken.to_string()));
    assert_eq!(backups(&home), 0);
    // A `hooks.json` that is not JSON is refused the same way.
    std::fs::write(codex.join("config.toml"), "").unwrap();
    std::fs::write(codex.join("hooks.json"), "{\"hooks\": ").unwrap();
    let run = home.run(&["install", "--harness", "codex"]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert_eq!(files(&home), ("{\"hooks\": ".to_string(), String::new()));
}

#[test]
fn codex_install_in_a_fresh_home_turns_hooks_on_and_uninstall_leaves_nothing() {
    let home = Home::new("install-codex-fresh");
    let codex = home.path().join(".codex");
    // Hooks switched off by the user: install turns them on, uninstall puts `false` back.
    std::fs::create_dir_all(&codex).unwrap();
    let config = "[features]\nhooks = false\n";
    std::fs::write(codex.join("config.toml"), config).unwrap();
    assert_ok(&home.run(&["install", "--harness", "codex"]));
    let (hooks, toml) = files(&home);
    assert!(hooks.contains("'--from-payload'"), "{hooks}");
    assert!(toml.starts_with("[features]\nhooks = true\n"), "{toml}");
    assert_ok(&home.run(&["doctor"]));
    assert_ok(&home.run(&["uninstall", "--harness", "codex"]));
    assert!(
        !codex.join("hooks.json").exists(),
        "install created it: it goes"
    );
    assert_eq!(files(&home).1, config);
    // No config at all before: uninstall removes the one install made.
    std::fs::remove_file(codex.join("config.toml")).unwrap();
    assert_ok(&home.run(&["install", "--harness", "codex"]));
    assert!(codex.join("config.toml").is_file());
    assert_ok(&home.run(&["uninstall", "--harness", "codex"]));
    assert!(!codex.join("config.toml").exists());
    assert!(!codex.join("hooks.json").exists());
}
