//! `corpus/cases/packs-engine.cases.yaml` under `corpus/profiles/packs-engine.yaml` (every
//! core and database pack): one case per class of the engine's shell understanding behind
//! the packs (feeders, inline code, options in their normal form, targets resolved against
//! the cwd, SQL fed to a client; issue 27). Every case is decided by the automaton and the
//! reference evaluator; each miss is listed.

use std::path::Path;

use engine::CompiledPolicy;
use engine::reference::ReferenceEvaluator;

#[test]
fn every_class_of_the_engine_cases_holds() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let profile = compiler::profile::load_profile_file(
        &repo.join("corpus/profiles/packs-engine.yaml"),
        "packs",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let compiled = compiler::compile_profile(&profile).unwrap_or_else(|e| panic!("{e}"));
    let json = compiled.policy.to_json();
    let sidecar = compiler::lower::build_sidecar(&compiled.policy, json.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let automaton = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
    let reference = ReferenceEvaluator::new(&compiled.policy).unwrap();
    let cases =
        compiler::cases::load_cases_file(&repo.join("corpus/cases/packs-engine.cases.yaml"))
            .unwrap_or_else(|e| panic!("{e}"));
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let mut misses = Vec::new();
    for case in &cases {
        let got = automaton.decide(case.call());
        let oracle = reference.decide(case.call());
        if (got.decision, &got.deciding_rule) != (oracle.decision, &oracle.deciding_rule) {
            misses.push(format!(
                "{}: {}: the evaluators disagree: {} ({:?}) vs {} ({:?})",
                case.location,
                case.name,
                got.decision,
                got.deciding_rule,
                oracle.decision,
                oracle.deciding_rule
            ));
        } else if got.decision != case.expect {
            misses.push(format!(
                "{}: {}: expected {}, got {} ({:?})",
                case.location, case.name, case.expect, got.decision, got.deciding_rule
            ));
        }
    }
    println!(
        "{} of {} cases hold",
        cases.len() - misses.len(),
        cases.len()
    );
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}
