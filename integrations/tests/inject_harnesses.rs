//! `inject_harness_hooks` for Codex CLI, Gemini CLI and opencode: the wiring each harness gets
//! (flags, environment, files), read back as the harness would read it.

// The compiler suites' helpers (repository root, schema check, located entries).
#[path = "../../compiler/tests/common/mod.rs"]
mod common;
mod inject_common;

use integrations::inject::inject_harness_hooks_with_env;

use inject_common::*;
use test_support::assert_has;

#[test]
fn codex_hooks_are_session_flags_with_their_own_trust() {
    let setup = Setup::new("codex");
    let launch = args(&["exec", "hi"]);
    let injection = setup.inject_for("codex", &launch);
    let (args, env, toml) = injected(&injection);
    assert!(env.is_empty());
    assert_eq!(args.first().map(String::as_str), Some("exec"));
    assert_eq!(
        args.last().map(String::as_str),
        Some("hi"),
        "the prompt stays last"
    );
    let flag = |prefix: &str| -> &str {
        let at = args
            .iter()
            .position(|a| a.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} in {args:?}"));
        assert_eq!(args[at - 1], "-c", "{prefix} is a -c value");
        &args[at]
    };
    let gate = flag("hooks.PreToolUse=");
    assert_has(gate, "'emit' '--provider' 'codex' '--event' 'PreToolUse'");
    assert_has(gate, "'--policy'");
    assert_has(gate, "timeout -k 2 25 ");
    assert!(gate.contains("exit 2; fi"), "a failing gate blocks: {gate}");
    assert!(!flag("hooks.PostToolUse=").contains("--policy"));
    // Trust for exactly the injected hooks, never the blanket bypass.
    let state = flag("hooks.state=");
    assert!(
        state.contains("\"/<session-flags>/config.toml:pre_tool_use:0:0\"={trusted_hash=\"sha256:")
    );
    assert!(state.contains(":permission_request:0:0"));
    assert!(!args.iter().any(|a| a.contains("dangerously")));
    let written = std::fs::read_to_string(toml).unwrap();
    assert_has(&written, "PreToolUse = [{matcher=\"*\"");
}

#[test]
fn gemini_hooks_are_user_settings_of_a_session_home() {
    let setup = Setup::new("gemini");
    let launch = args(&["-p", "hi"]);
    // The user's own Gemini home: settings (JSON with comments), credentials, history.
    let user = setup.dir.join("user");
    std::fs::create_dir_all(user.join(".gemini/tmp")).unwrap();
    std::fs::create_dir_all(user.join(".agents")).unwrap();
    std::fs::write(user.join(".gemini/oauth_creds.json"), "{}").unwrap();
    let settings_text = "// mine\n{\"hooks\": {\"BeforeTool\": [{\"hooks\": [{\"type\": \
         \"command\", \"command\": \"audit\"}]}]}, \"hooksConfig\": {\"enabled\": false, \
         \"disabled\": [\"x\"]}, \"security\": {\"auth\": {\"selectedType\": \"gemini-api-key\"}},}\n";
    std::fs::write(user.join(".gemini/settings.json"), settings_text).unwrap();
    let env = |name: &str| (name == "HOME").then(|| user.clone().into());
    let mut request = setup.request("s", &launch, Some(1));
    request.provider = "gemini";
    let injection = inject_harness_hooks_with_env(&request, &env).unwrap();
    let (args, injected_env, settings) = injected(&injection);
    // Flags first: `-p` takes the prompt as its value.
    assert_eq!(args, ["--skip-trust", "-p", "hi"]);
    let home = std::path::absolute(setup.session_dir.join("gemini-home")).unwrap();
    assert_eq!(
        injected_env,
        [(
            "GEMINI_CLI_HOME".to_string(),
            home.to_str().unwrap().to_string()
        )]
    );
    assert_eq!(settings, home.join(".gemini/settings.json"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(settings).unwrap()).unwrap();
    let before = v["hooks"]["BeforeTool"].as_array().unwrap();
    assert_eq!(before.len(), 2, "the user's hook and ours: {before:?}");
    assert_eq!(before[0]["hooks"][0]["command"], "audit");
    let ours = &before[1]["hooks"][0];
    assert!(
        ours["command"]
            .as_str()
            .unwrap()
            .contains("'--event' 'BeforeTool'")
    );
    assert_eq!(ours["timeout"], 30_000, "milliseconds");
    let name = ours["name"].as_str().unwrap();
    assert!(name.starts_with("animus-hook-") && name.len() == "animus-hook-".len() + 16);
    assert_eq!(
        v["hooksConfig"]["enabled"], true,
        "the session's hooks are on"
    );
    assert_eq!(v["hooksConfig"]["disabled"], serde_json::json!(["x"]));
    assert_eq!(v["security"]["auth"]["selectedType"], "gemini-api-key");
    assert!(v["hooks"]["AfterTool"].is_array());
    // Everything else of the user's is linked, not copied; the user's settings are untouched.
    for entry in [".gemini/oauth_creds.json", ".gemini/tmp", ".agents"] {
        assert_eq!(
            std::fs::read_link(home.join(entry)).unwrap(),
            user.join(entry),
            "{entry}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(user.join(".gemini/settings.json")).unwrap(),
        settings_text
    );
    // Another session's name differs: no setting written beforehand can name it; injecting
    // the same session dir again replaces its links.
    let again = inject_harness_hooks_with_env(&request, &env).unwrap();
    let v2: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(injected(&again).2).unwrap()).unwrap();
    assert_ne!(v2["hooks"]["BeforeTool"][1]["hooks"][0]["name"], name);
    // Settings that cannot be read as JSON are an error, not dropped.
    std::fs::write(user.join(".gemini/settings.json"), "{ nope").unwrap();
    let e = refusal(&request, &env);
    assert_has(&e, ".gemini/settings.json:1:3");
}

#[test]
fn opencode_gets_a_plugin_through_its_config_dir() {
    let setup = Setup::new("opencode");
    let launch = args(&["run", "hi"]);
    let mut request = setup.request("s", &launch, Some(1));
    request.provider = "opencode";
    let injection = inject_harness_hooks_with_env(&request, &no_env).unwrap();
    let (args, env, plugin) = injected(&injection);
    assert_eq!(args, launch.as_slice());
    let dir = setup.session_dir.join("opencode");
    assert_eq!(
        env,
        [(
            "OPENCODE_CONFIG_DIR".to_string(),
            std::path::absolute(&dir)
                .unwrap()
                .to_str()
                .unwrap()
                .to_string()
        )]
    );
    assert!(plugin.ends_with("opencode/plugins/animus-guard.js"));
    let source = std::fs::read_to_string(plugin).unwrap();
    assert_has(&source, "\"tool.execute.before\"");
    assert!(source.contains(setup.hook.to_str().unwrap()));
    assert!(source.contains("\"--provider\",\"opencode\""));
    // Seeded so opencode installs nothing into it.
    assert!(dir.join("package-lock.json").is_file());
    assert!(dir.join("node_modules").is_dir());
    // An OPENCODE_CONFIG_DIR of the user's own would be displaced: refused.
    let env = |name: &str| (name == "OPENCODE_CONFIG_DIR").then(|| "/home/u/oc".into());
    let e = refusal(&request, &env);
    assert_has(&e, "OPENCODE_CONFIG_DIR is already set");
}
