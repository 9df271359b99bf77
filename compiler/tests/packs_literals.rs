//! What a built-in pack's regex costs every call: each matcher of a text field is found through
//! the literal index by a literal every match holds, and confirmed by its automaton only where
//! that literal occurs. A regex whose literal is one byte (a space) or that has none is
//! confirmed or scanned on every text of every call: stop 44's first `git config` rule put
//! `(?i)` over the whole regex, its only literal became a space, and four DFAs ran on every
//! segment text of every Bash call (an emit's 761k instructions became 823k). Every such
//! matcher of the built-in packs is listed here, with its rule.

use compiler::lower::normalise::{SHORTEST_USEFUL_LITERAL, shortest_index_literal};
use engine::policy::MatchOn;

#[test]
fn every_pack_matcher_is_found_by_a_literal() {
    let packs = compiler::packs::every_pack_list();
    let profile = compiler::load_profile_str(
        &format!("agents:\n  all:\n    packs: {packs}\n"),
        "all-packs.yaml".into(),
        "all",
    )
    .expect("the pack list loads");
    let compiled = compiler::compile_profile(&profile).expect("the packs compile");
    let mut offenders = Vec::new();
    let mut checked = 0;
    for rule in compiled
        .policy
        .rules
        .iter()
        .filter(|r| r.id.starts_with("pack."))
    {
        for matcher in &rule.input_matchers {
            // The regex the compiler lowers, as it classifies it (the author lint's question).
            let (view, regex) = matcher.search_regex().expect("a pack matcher lowers");
            // A path field's texts are a call's few paths, each searched from its start by
            // one automaton: no literal index there.
            if matches!(
                view,
                MatchOn::CommandPath | MatchOn::Path | MatchOn::ResolvedPath
            ) {
                continue;
            }
            checked += 1;
            if let Some(shortest) =
                shortest_index_literal(&regex).filter(|&len| len < SHORTEST_USEFUL_LITERAL)
            {
                offenders.push(format!(
                    "{} (on `{}`, shortest literal {shortest} bytes: `{regex}`)",
                    rule.id, matcher.field
                ));
            }
        }
    }
    assert!(
        checked > 500,
        "the packs' text matchers were read: {checked}"
    );
    assert!(
        offenders.is_empty(),
        "pack matchers confirmed or scanned on every text (give each regex a literal of {SHORTEST_USEFUL_LITERAL}+ bytes that every match holds, outside any (?i)):\n{}",
        offenders.join("\n")
    );
}
