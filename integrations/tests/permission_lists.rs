//! Every real permission list in `../shared/corpus-real/permission-lists/` is imported as a
//! Claude settings file (`integrations::import`, what `animus-hook import --claude-settings` runs)
//! and the profile it prints compiles whole: no entry of `allow`, `ask` or `deny` is rejected
//! or dropped, each entry is a rule (or one rule per file tool it reaches), and every entry
//! is accounted for in the printed profile with its `file:line:column`.

// The compiler suites' helpers (repository root, schema check, located entries).
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::Instant;

use integrations::import::{SettingsFile, import_claude_settings, render_json, render_yaml};
use serde_json::Value;
use test_support::shared::shared_dir;

#[test]
fn every_real_permission_list_imports_and_compiles_whole() {
    let Some(shared) = shared_dir("every_real_permission_list_imports_and_compiles_whole") else {
        return;
    };
    let files = test_support::shared::permission_lists(&shared.join("corpus-real"));
    let (mut entries_total, mut rules_total, mut warnings, mut inert) =
        (0usize, 0usize, 0usize, 0usize);
    let mut ignored = 0usize;
    let mut slowest = (0u128, String::new());
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        let started = Instant::now();
        let import = import_claude_settings(&[SettingsFile {
            name: Arc::from(name.as_str()),
            text: text.clone(),
            user_settings: false,
        }])
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let yaml = render_yaml(&import, "x");
        let elapsed = started.elapsed().as_micros();
        if elapsed > slowest.0 {
            slowest = (elapsed, name.clone());
        }
        assert_eq!(
            import.left_out(),
            0,
            "{name}: entries left out: {:#?}",
            import.reports
        );
        warnings += import.reports.len();
        // Every string entry of the three lists is in the profile, once.
        let doc: Value = serde_json::from_str(&text).unwrap();
        for (list, imported) in [
            ("allow", &import.allow),
            ("ask", &import.ask),
            ("deny", &import.deny),
        ] {
            let mut written: Vec<&str> = doc["permissions"][list]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            written.sort_unstable();
            written.dedup();
            // What claude ignores is left out with a report: a bare `*` allow, a tool name
            // that is a near miss of a Claude tool's (`Web Search(*)`).
            written.retain(|w| {
                let left_out = format!("`permissions.{list}` entry `{w}` is left out");
                let reported = import
                    .reports
                    .iter()
                    .any(|d| d.message.starts_with(&left_out));
                if reported {
                    ignored += 1;
                }
                !reported
            });
            let mut got: Vec<&str> = imported.iter().map(|e| e.entry.as_str()).collect();
            got.sort_unstable();
            assert_eq!(got, written, "{name}: permissions.{list}");
            for e in imported.iter() {
                assert!(e.from.line > 0 && e.from.column > 0, "{name}: {e:?}");
                assert!(
                    yaml.contains(&format!("# {}", e.from)),
                    "{name}: the YAML names where `{}` came from",
                    e.entry
                );
            }
            entries_total += got.len();
        }
        // The printed profile compiles unchanged, YAML and JSON alike, to the same policy.
        let profile = compiler::load_profile_str(&yaml, format!("{name}.yaml").into(), "x")
            .unwrap_or_else(|e| panic!("{name}: the imported YAML does not load: {e}"));
        let compiled =
            compiler::compile_profile(&profile).unwrap_or_else(|e| panic!("{name}: {e}\n{yaml}"));
        common::assert_schema_valid(&compiled.policy);
        let json = render_json(&import, "x");
        let from_json = compiler::load_profile_str(&json, format!("{name}.json").into(), "x")
            .and_then(|p| compiler::compile_profile(&p))
            .unwrap_or_else(|e| panic!("{name}: the imported JSON: {e}"));
        assert_eq!(from_json.policy, compiled.policy, "{name}");
        // Each entry's first rule carries the entry's own id; an entry claude reads as
        // granting or matching nothing (`Write(…)` allowed, `Bash()`) compiles to no rule and
        // is reported, naming its place.
        for (list, decision, imported) in [
            ("allow", engine::Decision::Allow, &import.allow),
            ("ask", engine::Decision::Ask, &import.ask),
            ("deny", engine::Decision::Deny, &import.deny),
        ] {
            for e in imported {
                let lowered = compiler::tool_policy::lower_entry(&e.entry, decision).unwrap();
                if lowered.parts.is_empty() {
                    inert += 1;
                    assert!(
                        import
                            .reports
                            .iter()
                            .any(|d| d.location.as_ref() == Some(&e.from)
                                && d.message.contains(&format!("`{}`", e.entry))),
                        "{name}: `{}` compiles to no rule without a report",
                        e.entry
                    );
                    continue;
                }
                let id = format!("tool_policy.{list}:{}", e.entry);
                assert!(
                    compiled.policy.rules.iter().any(|r| r.id == id),
                    "{name}: no rule `{id}`"
                );
            }
        }
        rules_total += compiled.policy.rules.len();
    }
    println!(
        "permission lists: {} files import and compile whole; {entries_total} unique entries, \
         0 left out, {ignored} that claude ignores left out with a report (a bare `*` allow, a \
         misspelt tool), {rules_total} rules, {inert} entries claude reads as granting or \
         matching nothing (reported, no rule), {warnings} reports in all; slowest import {} us \
         ({})",
        files.len(),
        slowest.0,
        slowest.1
    );
}
