//! `inject_harness_hooks`: the generated settings (snapshot), argument insertion, the kill
//! switch, providers, hook-binary resolution, hostile names.

// The compiler suites' helpers (repository root, schema check, located entries).
#[path = "../../compiler/tests/common/mod.rs"]
mod common;
mod inject_common;

use inject_common::*;
use test_support::make_dir;

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;

use compiler::providers::HookConfigVector;
use integrations::inject::{InjectRequest, Injection, inject_harness_hooks_with_env};
use test_support::assert_has;

#[test]
fn trader_settings_snapshot() {
    let setup = Setup::new("snapshot");
    let launch = args(&["-p", "--output-format", "json", "do the thing"]);
    let injection =
        inject_harness_hooks_with_env(&setup.request("sess-1", &launch, Some(3)), &no_env).unwrap();
    let Injection::Injected {
        settings_path,
        policy_path,
        ..
    } = &injection
    else {
        panic!("{injection:?}")
    };
    assert!(policy_path.exists());
    assert!(
        engine::sidecar::sidecar_path_for(policy_path).exists(),
        "the sidecar is written beside the policy"
    );
    let text = std::fs::read_to_string(settings_path).unwrap();
    let mut normalized = text.replace(setup.dir.to_str().unwrap(), "<DIR>");
    // The pin hashes the stamp, which records the files' identities: new on every run.
    while let Some(at) = normalized.find("sha256:") {
        normalized.replace_range(at..at + 7 + 64, "<POLICY PIN>");
    }
    let snapshot = common::repo_root().join("integrations/tests/snapshots/trader.settings.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&snapshot, &normalized).unwrap();
    }
    let expected = std::fs::read_to_string(&snapshot).unwrap();
    assert_eq!(
        normalized, expected,
        "generated settings changed; review and rerun with UPDATE_SNAPSHOTS=1"
    );
    // A hooks block and the profile's tool_policy as Claude's own permissions (the hook never
    // answers allow: Claude grants covered calls from these); gates block on failure,
    // observers do not.
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["hooks", "permissions"]
    );
    assert_eq!(
        v["permissions"]["deny"],
        serde_json::json!(["Bash(* --live*)", "Bash(*submit-order*)"])
    );
    for (event, entries) in v["hooks"].as_object().unwrap() {
        let handler = &entries[0]["hooks"][0];
        let gate = event == "PreToolUse" || event == "PermissionRequest";
        assert_eq!(handler["onFailure"] == "block", gate, "{event}");
        assert_eq!(
            handler["args"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a == "--policy"),
            gate,
            "{event}"
        );
        assert_eq!(handler["type"], "command");
        assert!(handler.get("args").is_some(), "exec form");
    }
    assert!(
        v["hooks"].get("UserPromptSubmit").is_some(),
        "the author observer is wired"
    );
}

#[test]
fn settings_go_ahead_of_the_prompt() {
    let setup = Setup::new("args");
    let run = |launch: &[&str], prompt: Option<usize>| -> Vec<String> {
        let launch = args(launch);
        inject_harness_hooks_with_env(&setup.request("s", &launch, prompt), &no_env)
            .unwrap()
            .args()
            .to_vec()
    };
    let settings = setup
        .dir
        .join("session/animus-hooks.settings.json")
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(
        run(&["-p", "hello"], Some(1)),
        args(&["-p", "--settings", &settings, "hello"])
    );
    assert_eq!(
        run(&["-p", "hello", "--output-format", "json"], Some(1)),
        args(&[
            "-p",
            "--settings",
            &settings,
            "hello",
            "--output-format",
            "json"
        ])
    );
    assert_eq!(
        run(&["--resume", "x"], None),
        args(&["--resume", "x", "--settings", &settings])
    );
    assert_eq!(run(&[], None), args(&["--settings", &settings]));
    let launch = args(&["-p"]);
    let e =
        inject_harness_hooks_with_env(&setup.request("s", &launch, Some(5)), &no_env).unwrap_err();
    assert!(e.to_string().contains("prompt index 5"), "{e}");
}

#[test]
fn kill_switch_is_a_complete_no_op() {
    let setup = Setup::new("kill");
    let launch = args(&["-p", "hi"]);
    let env = |name: &str| (name == "ANIMUS_DISABLE_HARNESS_HOOKS").then(|| OsString::from("1"));
    let injection =
        inject_harness_hooks_with_env(&setup.request("s", &launch, Some(1)), &env).unwrap();
    assert_eq!(
        injection,
        Injection::Disabled {
            args: launch.clone()
        }
    );
    assert!(!setup.dir.join("session").exists(), "no files");
    // An empty value is not "set".
    let env = |name: &str| (name == "ANIMUS_DISABLE_HARNESS_HOOKS").then(OsString::new);
    assert!(matches!(
        inject_harness_hooks_with_env(&setup.request("s", &launch, Some(1)), &env).unwrap(),
        Injection::Injected { .. }
    ));
}

#[test]
fn unknown_providers_are_a_no_op() {
    let setup = Setup::new("providers");
    let launch = args(&["exec", "hi"]);
    let injection = setup.inject_for("aider", &launch);
    assert_eq!(
        injection,
        Injection::NotGenerated {
            vector: HookConfigVector::None,
            args: launch.clone()
        }
    );
    assert!(!setup.dir.join("session").exists(), "no files");
}

#[test]
fn hook_binary_resolution() {
    let setup = Setup::new("binary");
    let launch = args(&["-p", "hi"]);
    // Explicit but missing, or not executable: an error, nothing launched.
    let missing = setup.dir.join("nope/animus-hook");
    let mut request = setup.request("s", &launch, Some(1));
    request.hook_binary = Some(&missing);
    let e = refusal(&request, &no_env);
    assert_has(&e, "cannot be used");
    let plain = setup.dir.join("plain");
    std::fs::write(&plain, "x").unwrap();
    request.hook_binary = Some(&plain);
    let e = refusal(&request, &no_env);
    assert_has(&e, "not an executable file");
    // Nothing given, nothing found (the test binary has no animus-hook sibling; PATH is empty).
    request.hook_binary = None;
    let e = refusal(&request, &no_env);
    assert_has(&e, "cannot find the animus-hook binary");
    assert!(
        !setup.dir.join("session").exists(),
        "a failed injection writes nothing"
    );
    // ANIMUS_HOOK_BIN, then PATH.
    let hook = setup.hook.clone();
    let env = move |name: &str| (name == "ANIMUS_HOOK_BIN").then(|| hook.clone().into_os_string());
    let Injection::Injected { hook_binary, .. } =
        inject_harness_hooks_with_env(&request, &env).unwrap()
    else {
        panic!()
    };
    assert_eq!(hook_binary, setup.hook);
    let bin_dir = setup.hook.parent().unwrap().to_path_buf();
    let env = move |name: &str| {
        (name == "PATH").then(|| OsString::from(format!("/nonexistent:{}", bin_dir.display())))
    };
    let Injection::Injected { hook_binary, .. } =
        inject_harness_hooks_with_env(&request, &env).unwrap()
    else {
        panic!()
    };
    assert_eq!(hook_binary, setup.hook);
}

#[test]
fn the_lean_emit_twin_beside_animus_hook_is_preferred() {
    let setup = Setup::new("lean");
    let launch = args(&["-p", "hi"]);
    let mut request = setup.request("s", &launch, Some(1));
    request.hook_binary = Some(&setup.hook);
    let lean = setup.hook.with_file_name("animus-hook-emit");
    let wired = |request: &InjectRequest<'_>| {
        let Injection::Injected {
            hook_binary,
            settings_path,
            ..
        } = inject_harness_hooks_with_env(request, &no_env).unwrap()
        else {
            panic!()
        };
        let settings: serde_json::Value =
            serde_json::from_slice(&std::fs::read(settings_path).unwrap()).unwrap();
        let command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"].clone();
        (hook_binary, command)
    };
    // Not executable: ignored.
    std::fs::write(&lean, fake_hook_script("animus-hook-emit")).unwrap();
    assert_eq!(wired(&request).0, setup.hook);
    // Executable: the harness runs the twin, with the same arguments.
    std::fs::set_permissions(&lean, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (hook_binary, command) = wired(&request);
    assert_eq!(hook_binary, lean);
    assert_eq!(command, lean.display().to_string());
    // A binary of another name (a wrapper the user chose) is kept even with a twin beside it.
    let wrapper = setup.hook.with_file_name("my-wrapper");
    std::fs::copy(&setup.hook, &wrapper).unwrap();
    std::fs::copy(&lean, wrapper.with_file_name("my-wrapper-emit")).unwrap();
    request.hook_binary = Some(&wrapper);
    assert_eq!(wired(&request).0, wrapper);
}

#[test]
fn spaces_and_quotes_pass_through_verbatim() {
    let temp = temp_dir("quotes");
    let dir = temp.path();
    let tricky = dir.join("it's a \"dir\" $HOME `x`");
    let hook = fake_hook(&tricky);
    let profile = trader();
    let launch = args(&["-p", "hi"]);
    let session_dir = tricky.join("session dir");
    let project = make_dir(&tricky, "my project");
    let session = "id with 'quotes' and \"doubles\"";
    let request = InjectRequest {
        provider: "claude",
        session_dir: &session_dir,
        session_id: session,
        project_root: &project,
        profile: &profile,
        launch_args: &launch,
        prompt_index: Some(1),
        hook_binary: Some(&hook),
        sandbox: false,
    };
    let Injection::Injected { settings_path, .. } =
        inject_harness_hooks_with_env(&request, &no_env).unwrap()
    else {
        panic!()
    };
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(settings_path).unwrap()).unwrap();
    let handler = &v["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(handler["command"], hook.to_str().unwrap());
    let a: Vec<&str> = strs(&handler["args"]);
    assert_eq!(
        a[..7],
        [
            "emit",
            "--event",
            "PreToolUse",
            "--session",
            session,
            "--project-root",
            project.to_str().unwrap()
        ]
    );
    // Ids that could escape the state directory are refused before anything is written.
    for bad in ["../../etc", "a/b", ""] {
        let request = InjectRequest {
            session_id: bad,
            ..request.clone()
        };
        let e = refusal(&request, &no_env);
        assert_has(&e, "session id");
    }
}

#[test]
fn observer_events_are_validated_at_generation_too() {
    let setup = Setup::new("observers");
    let mut profile = trader();
    profile.observers[0].events = vec!["Stop; rm -rf ~".into()];
    let launch = args(&["-p", "hi"]);
    let mut request = setup.request("s", &launch, Some(1));
    request.profile = &profile;
    let e = refusal(&request, &no_env);
    assert_has(
        &e,
        "observer event `Stop; rm -rf ~` is not a harness hook event",
    );
}

#[test]
fn permissions_carry_the_tool_policy_as_claude_reads_it() {
    use common::located;
    use compiler::profile::ToolPolicy;
    let policy = ToolPolicy {
        allow: located(&[
            "Bash(git status:*)",
            "*",
            "mcp__github__get_*",
            "mcp__*",
            "*Edit",
            "mcp__fs",
        ]),
        deny: located(&[
            "Bash(rm:*)",
            "mcp__*",
            "Read(/secrets/**)",
            "Read(//etc/**)",
        ]),
        ask: located(&["Bash(git push:*)", "Edit(/src/**)", "Bash(/bin/x:*)"]),
        ..ToolPolicy::default()
    };
    let p =
        integrations::inject::claude_permissions(&policy, Some(std::path::Path::new("/work/p")));
    let allow: Vec<&str> = strs(&p["allow"]);
    assert!(allow.contains(&"Bash(git status:*)"));
    // A bare `*` is never a grant in Claude: not exported, nor turned into Claude's tools
    // (Claude alone ignores it; exported as `Bash`, `Read`, … it made the session looser).
    assert!(!allow.contains(&"*") && !allow.contains(&"Bash") && !allow.contains(&"Read"));
    assert_eq!(allow.len(), 3, "{allow:?}");
    assert!(allow.contains(&"mcp__github__get_*") && allow.contains(&"mcp__fs"));
    // Claude skips these in an allow list: left out (Claude then prompts: stricter).
    assert!(!allow.contains(&"mcp__*") && !allow.contains(&"*Edit"));
    // `/x` path rules are anchored at the project root for claude too (it reads them below
    // the settings file's directory, the session dir); `//x` and Bash stay as written.
    assert_eq!(
        p["deny"],
        serde_json::json!([
            "Bash(rm:*)",
            "mcp__*",
            "Read(//work/p/secrets/**)",
            "Read(//etc/**)"
        ])
    );
    assert_eq!(
        p["ask"],
        serde_json::json!([
            "Bash(git push:*)",
            "Edit(//work/p/src/**)",
            "Bash(/bin/x:*)"
        ])
    );
}

#[test]
fn a_hook_binary_that_is_not_animus_hook_is_refused() {
    let setup = Setup::new("impostor");
    let launch = args(&["-p", "hi"]);
    let impostors = [
        ("true", "#!/bin/sh\nexit 0\n".to_string()),
        (
            "other",
            "#!/bin/sh\necho \"animus-hook 999.0.0\"\n".to_string(),
        ),
        (
            "fails",
            format!(
                "#!/bin/sh\necho \"animus-hook {}\"\nexit 3\n",
                env!("CARGO_PKG_VERSION")
            ),
        ),
    ];
    for (name, script) in impostors {
        let path = setup.dir.join(format!("impostor-{name}"));
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut request = setup.request("s", &launch, Some(1));
        request.hook_binary = Some(&path);
        let e = refusal(&request, &no_env);
        assert!(e.contains("is not animus-hook"), "{name}: {e}");
        assert!(
            !setup.session_dir.exists(),
            "{name}: a refused injection writes nothing"
        );
    }
    // The real binary passes the same check.
    let real = common::repo_root().join("target/debug/animus-hook");
    if real.is_file() {
        integrations::inject::verify_hook_binary(&real).unwrap();
    }
}
