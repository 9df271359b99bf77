//! `animus-hook install --harness gemini`: the guard's hooks in the user's Gemini settings,
//! everything else kept, checked by `doctor`, taken away by `uninstall` (with
//! `hooksConfig.enabled` as it was).

mod common;
mod install_support;

use install_support::{Home, assert_ok};
use serde_json::Value;
use test_support::assert_has;

const GEMINI_SETTINGS: &str = r#"{
  "security": {
    "auth": {
      "selectedType": "gemini-api-key"
    }
  },
  "hooksConfig": {
    "enabled": false
  },
  "model": {
    "name": "gemini-2.5-flash"
  }
}
"#;

#[test]
fn gemini_install_doctor_and_uninstall() {
    let home = Home::new("install-gemini");
    let settings = home.dir.join(".gemini/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, GEMINI_SETTINGS).unwrap();
    assert_ok(&home.run(&["install", "--harness", "gemini"]));
    let text = std::fs::read_to_string(&settings).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["hooksConfig"]["enabled"], true);
    assert_eq!(json["security"]["auth"]["selectedType"], "gemini-api-key");
    let gate = &json["hooks"]["BeforeTool"][0]["hooks"][0];
    let name = gate["name"].as_str().unwrap();
    assert!(
        name.starts_with("animus-hook-") && name.len() == 28,
        "{name}"
    );
    assert_has(gate["command"].as_str().unwrap(), "'--from-payload'");
    // A second install keeps the name and the bytes.
    let again = home.run(&["install", "--harness", "gemini"]);
    assert_has(&again.stdout, "nothing changed");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), text);
    home.assert_doctor_passes(&[
        "✓ gates (gemini)",
        "✓ policy (gemini)",
        "✓ live gate (gemini)",
    ]);
    assert_ok(&home.run(&["uninstall", "--harness", "gemini"]));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), GEMINI_SETTINGS);
}
