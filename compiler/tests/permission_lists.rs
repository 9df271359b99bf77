//! Every real permission list in `../shared/corpus-real/permission-lists/` goes through the
//! loader and compiler as a `tool_policy`: no panic, and every entry either compiles into a
//! rule or is rejected by an error that names it and its location.

mod common;

use std::collections::BTreeSet;

use serde_json::{Value, json};

#[test]
fn every_real_permission_list_compiles_or_names_its_rejects() {
    let Some(shared) =
        common::shared_dir("every_real_permission_list_compiles_or_names_its_rejects")
    else {
        return;
    };
    let dir = shared.join("corpus-real/permission-lists");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 60,
        "expected the 63 lists, found {}",
        files.len()
    );
    let (mut compiled_entries, mut rejected_entries, mut clean_files) = (0usize, 0usize, 0usize);
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    for file in &files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let list = |name: &str| -> Vec<String> {
            doc["permissions"][name]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default()
        };
        let (allow, deny) = (list("allow"), list("deny"));
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        // Round 1: the whole list. Errors must each name one entry of the list.
        let config = json!({"agents": {"x": {"tool_policy": {"allow": allow, "deny": deny}}}});
        let text = serde_json::to_string_pretty(&config).unwrap();
        let mut rejected = BTreeSet::new();
        let result = std::panic::catch_unwind(|| {
            compiler::load_profile_str(&text, name.clone().into(), "x")
                .and_then(|p| compiler::compile_profile(&p))
        })
        .unwrap_or_else(|_| panic!("{name}: the compiler panicked"));
        match result {
            Ok(_) => clean_files += 1,
            Err(errors) => {
                for d in &errors.0 {
                    let location = d.location.as_ref().expect("errors carry a location");
                    assert!(location.line > 0, "{name}: error without a line: {d}");
                    let entry = allow
                        .iter()
                        .chain(&deny)
                        .find(|e| d.message.contains(&format!("entry `{e}`")))
                        .unwrap_or_else(|| panic!("{name}: error names no entry: {d}"));
                    rejected.insert(entry.clone());
                    let why = d
                        .message
                        .split("` ")
                        .nth(1)
                        .unwrap_or("")
                        .split(';')
                        .next()
                        .unwrap_or("")
                        .to_string();
                    *reasons.entry(why.chars().take(60).collect()).or_default() += 1;
                }
            }
        }
        // Round 2: without the rejected entries, everything compiles, one rule per unique entry.
        let keep = |v: &[String]| -> Vec<String> {
            v.iter()
                .filter(|e| !rejected.contains(*e))
                .cloned()
                .collect()
        };
        let (allow2, deny2) = (keep(&allow), keep(&deny));
        let config = json!({"agents": {"x": {"tool_policy": {"allow": allow2, "deny": deny2}}}});
        let profile = compiler::load_profile_str(
            &serde_json::to_string(&config).unwrap(),
            name.clone().into(),
            "x",
        )
        .unwrap();
        let compiled =
            compiler::compile_profile(&profile).unwrap_or_else(|e| panic!("{name}: {e}"));
        common::assert_schema_valid(&compiled.policy);
        let unique = allow2.iter().collect::<BTreeSet<_>>().len()
            + deny2.iter().collect::<BTreeSet<_>>().len();
        assert_eq!(compiled.policy.rules.len(), unique, "{name}");
        compiled_entries += unique;
        rejected_entries += rejected.len();
    }
    println!(
        "permission lists: {} files ({clean_files} compile whole); {compiled_entries} unique entries compiled, \
         {rejected_entries} rejected with a message naming them",
        files.len()
    );
    for (why, n) in &reasons {
        println!("  {n:>5}  {why}");
    }
    assert!(
        compiled_entries > 1000,
        "the real lists are mostly compilable"
    );
}
