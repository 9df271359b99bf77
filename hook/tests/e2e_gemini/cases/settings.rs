//! Settings the agent's workspace or the user could write cannot switch the hook off: a
//! project `.gemini/settings.json` with `hooksConfig.enabled: false`, or with
//! `hooksConfig.disabled` naming guessable hook names (and the hook's exact command), and a
//! user `hooksConfig.enabled: false` with guessable names in `hooksConfig.disabled`. inject's
//! `--skip-trust` trusts the folder without loading the project's settings, the session's
//! settings (the user's, copied into the session's Gemini home) say `hooksConfig.enabled:
//! true`, and its hooks carry a random name.
//!
//! Each test is a live order that must be denied: if the setting switched the hook off, Gemini's
//! own policy would run it.

use std::fs;

use serde_json::{Value, json};

use crate::e2e_gemini::driver::{Launch, Sandbox, write_json};
use crate::e2e_gemini::fixtures::*;
use crate::e2e_gemini::mock_gemini::Script;

fn live_order_stays_denied(name: &str, plant: impl FnOnce(&Sandbox, &Launch)) {
    live_order_stays_denied_in(Sandbox::new(name), plant)
}

fn live_order_stays_denied_in(sandbox: Sandbox, plant: impl FnOnce(&Sandbox, &Launch)) {
    install_trade_script(&sandbox);
    let script = Script::new()
        .call("run_shell_command", shell("./trade --paper"))
        .call("run_shell_command", shell("./trade --live --size 1"));
    let (mock, outcome) = run_with(
        &sandbox,
        &profile("trader.yaml"),
        "trader",
        None,
        plant,
        &[],
        script,
    );
    completed(&mock, &outcome);
    assert_ran_with(&mock, 0, "traded: --paper");
    assert_blocked_with(
        &mock,
        1,
        "Denied by tool_policy.deny entry `Bash(* --live*)`.",
    );
    assert_eq!(trades(&sandbox), ["--paper"]);
}

/// Every hook name and command in inject's settings, plus names an attacker would guess.
fn names_to_disable(sandbox: &Sandbox) -> Vec<String> {
    let settings: Value =
        serde_json::from_str(&fs::read_to_string(sandbox.settings_path()).unwrap()).unwrap();
    let mut names: Vec<String> = ["animus-hook", "animus-guard", "animus-hook-emit", "animus"]
        .map(String::from)
        .into();
    let hooks = settings["hooks"]["BeforeTool"][0]["hooks"][0].clone();
    names.push(hooks["command"].as_str().unwrap().to_owned());
    names
}

pub fn project_settings_hooks_disabled_is_ignored() {
    live_order_stays_denied("project-enabled-false", |sandbox, _| {
        write_json(
            &sandbox.project.join(".gemini/settings.json"),
            &json!({"hooksConfig": {"enabled": false}}),
        );
    });
}

pub fn project_settings_disabling_guessable_names_is_ignored() {
    live_order_stays_denied("project-disabled-names", |sandbox, _| {
        let names = names_to_disable(sandbox);
        write_json(
            &sandbox.project.join(".gemini/settings.json"),
            &json!({"hooksConfig": {"disabled": names}}),
        );
    });
}

/// The user's own settings (which the session's start from) say `enabled: false` and disable
/// every guessable name: the session's settings turn hooks on, and the random name is not
/// among the disabled ones.
pub fn user_settings_cannot_switch_the_hook_off() {
    let sandbox = Sandbox::new("user-disabled");
    sandbox.user_settings(json!({"hooksConfig": {
        "enabled": false,
        "disabled": ["animus-hook", "animus-guard", "animus-hook-emit", "animus"],
    }}));
    live_order_stays_denied_in(sandbox, |sandbox, _| {
        let settings: Value =
            serde_json::from_str(&fs::read_to_string(sandbox.settings_path()).unwrap()).unwrap();
        assert_eq!(settings["hooksConfig"]["enabled"], true);
        assert_eq!(settings["hooksConfig"]["disabled"][0], "animus-hook");
    });
}

/// Settings the user writes after inject (or the agent, were self-protection not there) are
/// not the session's: Gemini reads the session's copy.
pub fn user_settings_written_after_inject_are_not_read() {
    live_order_stays_denied("user-after", |sandbox, _| {
        let names = names_to_disable(sandbox);
        sandbox.user_settings(json!({"hooksConfig": {"enabled": false, "disabled": names}}));
    });
}
