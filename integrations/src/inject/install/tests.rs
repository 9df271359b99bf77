use super::*;

const USER: &str = r#"{
  "model": "opus",
  "env": {
    "FOO": "bar"
  },
  "permissions": {
    "allow": [
      "Bash(npm test:*)"
    ],
    "deny": [
      "Read(./.env)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/home/u/bin/my-hook.sh"
          }
        ]
      }
    ]
  }
}
"#;

fn hook(digest: &str) -> InstalledHook {
    InstalledHook {
        binary: "/opt/animus/animus-hook-emit".into(),
        policy: "/home/u/.animus/installed/claude-user/animus-policy.json".into(),
        policy_digest: digest.into(),
        observers: super::super::KERNEL_OBSERVER_EVENTS
            .map(String::from)
            .to_vec(),
    }
}

fn installed(text: &str, digest: &str) -> String {
    let mut doc = SettingsDoc::parse("s.json", text).unwrap();
    add_ours(&mut doc, &hook(digest)).unwrap();
    doc.print()
}

#[test]
fn install_adds_the_gates_after_the_users_hooks_and_keeps_everything_else() {
    let after = installed(USER, "sha256:aa");
    let doc = SettingsDoc::parse("s.json", &after).unwrap();
    let json = doc.to_json();
    let before = SettingsDoc::parse("s.json", USER).unwrap().to_json();
    for key in ["model", "env", "permissions"] {
        assert_eq!(json[key], before[key], "{key} untouched");
    }
    // Key order kept: model, env, permissions, hooks.
    let keys: Vec<&str> = match &doc.root.value {
        Value::Object(m) => m.iter().map(|(k, _)| k.as_str()).collect(),
        _ => unreachable!(),
    };
    assert_eq!(keys, ["model", "env", "permissions", "hooks"]);
    let pre = json["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2, "the user's own hook stays first");
    assert_eq!(pre[0], before["hooks"]["PreToolUse"][0]);
    let gate = &pre[1]["hooks"][0];
    assert_eq!(gate["onFailure"], "block");
    assert_eq!(gate["command"], "/opt/animus/animus-hook-emit");
    assert_eq!(
        gate["args"],
        serde_json::json!([
            "emit",
            "--event",
            "PreToolUse",
            "--from-payload",
            "--policy",
            "/home/u/.animus/installed/claude-user/animus-policy.json",
            "--policy-digest",
            "sha256:aa"
        ])
    );
    assert_eq!(pre[1]["matcher"], "*");
    assert_eq!(
        json["hooks"]["PermissionRequest"][0]["hooks"][0]["onFailure"],
        "block"
    );
    let stop = &json["hooks"]["Stop"][0];
    assert!(stop.get("matcher").is_none(), "Stop selects no tool");
    assert!(
        stop["hooks"][0].get("onFailure").is_none(),
        "an observer never blocks"
    );
    assert_eq!(our_handlers(&doc).len(), 2 + 6);
}

#[test]
fn a_second_install_is_byte_identical_and_a_new_pin_replaces_the_old() {
    let once = installed(USER, "sha256:aa");
    assert_eq!(installed(&once, "sha256:aa"), once);
    let repinned = installed(&once, "sha256:bb");
    assert!(!repinned.contains("sha256:aa") && repinned.contains("sha256:bb"));
    assert_eq!(
        SettingsDoc::parse("s.json", &repinned)
            .map(|d| our_handlers(&d).len())
            .ok(),
        Some(8)
    );
}

#[test]
fn removing_ours_gives_back_the_users_file() {
    let mut doc = SettingsDoc::parse("s.json", &installed(USER, "sha256:aa")).unwrap();
    assert_eq!(remove_ours(&mut doc), 8);
    assert_eq!(doc.print(), USER);
    // Nothing of ours: nothing removed.
    let mut doc = SettingsDoc::parse("s.json", USER).unwrap();
    assert_eq!(remove_ours(&mut doc), 0);
    // A file that had no hooks at all loses the `hooks` key again.
    let mut doc =
        SettingsDoc::parse("s.json", &installed("{\n  \"a\": 1\n}\n", "sha256:aa")).unwrap();
    remove_ours(&mut doc);
    assert_eq!(doc.print(), "{\n  \"a\": 1\n}\n");
}

#[test]
fn a_handler_is_ours_only_when_it_runs_emit_from_payload() {
    let parse = |text: &str| compiler::jsonc::parse(text).unwrap();
    assert!(is_ours(&parse(
        r#"{"command": "x", "args": ["emit", "--from-payload"]}"#
    )));
    // An inject session's entry (explicit session) and the user's own hooks are not.
    assert!(!is_ours(&parse(
        r#"{"command": "animus-hook", "args": ["emit", "--session", "s"]}"#
    )));
    assert!(!is_ours(&parse(
        r#"{"command": "animus-hook emit --from-payload"}"#
    )));
    assert!(!is_ours(&parse(
        r#"{"command": "x", "args": ["--from-payload"]}"#
    )));
}

#[test]
fn a_hooks_value_of_the_wrong_shape_is_refused() {
    for text in [r#"{"hooks": []}"#, r#"{"hooks": {"PreToolUse": {}}}"#] {
        let mut doc = SettingsDoc::parse("s.json", text).unwrap();
        assert!(add_ours(&mut doc, &hook("sha256:aa")).is_err(), "{text}");
    }
}

/// A fresh directory `<name>-<pid>` holding `settings.json` with `original`, backed up as an
/// install would: the directory and the settings' path.
fn backed_up_settings(name: &str, original: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.json");
    std::fs::write(&settings, original).unwrap();
    backup(&settings, "20260101T000000Z").unwrap();
    (dir, settings)
}

#[test]
fn uninstall_restores_the_backup_bytes_when_nothing_else_changed() {
    // The user's file as it was, with its own spacing, which a rewrite would not keep.
    let original = "{\"model\":\"opus\",  \"env\": {\"FOO\": \"bar\"}}\n";
    let (dir, settings) = backed_up_settings("animus-install", original);
    let current = installed(original, "sha256:aa");
    let (text, removed, from) = plan_uninstall(&settings, &current).unwrap();
    assert_eq!((text.as_str(), removed), (original, 8));
    assert!(from.is_some());
    // The user changed something since: ours are removed, their change kept.
    let changed = current.replace("opus", "sonnet");
    let (text, _, from) = plan_uninstall(&settings, &changed).unwrap();
    assert!(
        from.is_none() && text.contains("sonnet") && !text.contains("emit"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_installed_opencode_plugin_runs_emit_from_payload_and_says_it_is_ours() {
    use super::super::opencode::{INSTALLED_HEADER, installed_plugin, plugin_gate};
    let text = installed_plugin(
        "/opt/animus-hook-emit",
        "/p/animus-policy.json",
        "sha256:aa",
    );
    assert!(text.starts_with(INSTALLED_HEADER), "{text}");
    assert!(text.contains("session_id: input.sessionID") && text.contains("cwd: directory"));
    let (binary, args) = plugin_gate(&text).unwrap();
    assert_eq!(binary, "/opt/animus-hook-emit");
    assert_eq!(
        args,
        [
            "emit",
            "--provider",
            "opencode",
            "--event",
            "tool.execute.before",
            "--from-payload",
            "--policy",
            "/p/animus-policy.json",
            "--policy-digest",
            "sha256:aa"
        ]
    );
    assert!(!text.contains("--session"), "{text}");
}

#[test]
fn reinstalling_keeps_a_hooks_key_that_holds_only_ours_in_its_place() {
    let text = "{\n  \"hooks\": {},\n  \"model\": \"opus\"\n}\n";
    let once = installed(text, "sha256:aa");
    assert!(once.find("\"hooks\"") < once.find("\"model\""), "{once}");
    assert_eq!(installed(&once, "sha256:aa"), once);
}

#[test]
fn uninstall_gives_back_an_empty_hooks_object_the_user_had() {
    let original = "{\"hooks\": {}, \"model\": \"opus\"}\n";
    let (dir, settings) = backed_up_settings("animus-install-empty", original);
    let (text, _, from) = plan_uninstall(&settings, &installed(original, "sha256:aa")).unwrap();
    assert_eq!((text.as_str(), from.is_some()), (original, true));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gemini_entries_round_trip_and_the_gate_line_reads_back() {
    use super::gemini;
    let original = "{\n  \"hooksConfig\": {\n    \"disabled\": []\n  }\n}\n";
    let mut doc = SettingsDoc::parse("s.json", original).unwrap();
    gemini::add_ours(
        &mut doc,
        (
            "/opt/it's/animus-hook-emit",
            "/p/animus-policy.json",
            "sha256:aa",
        ),
        "animus-hook-0123",
    )
    .unwrap();
    assert_eq!(gemini::hooks_enabled(&doc), Some(serde_json::json!(true)));
    assert_eq!(
        gemini::existing_name(&doc).as_deref(),
        Some("animus-hook-0123")
    );
    let handlers = our_handlers(&doc);
    assert_eq!(
        handlers.len(),
        4,
        "BeforeTool, AfterTool, SessionStart, SessionEnd"
    );
    let line = handlers[0].1.to_json()["command"]
        .as_str()
        .unwrap()
        .to_string();
    let (binary, args) = gemini::gate_of_shell_line(&line).unwrap();
    assert_eq!(binary, "/opt/it's/animus-hook-emit");
    assert_eq!(
        args,
        [
            "emit",
            "--provider",
            "gemini",
            "--event",
            "BeforeTool",
            "--from-payload",
            "--policy",
            "/p/animus-policy.json",
            "--policy-digest",
            "sha256:aa"
        ]
    );
    // Removing ours and putting `enabled` back gives the file back.
    gemini::set_enabled(&mut doc, None).unwrap();
    remove_ours(&mut doc);
    assert_eq!(doc.print(), original);
}
