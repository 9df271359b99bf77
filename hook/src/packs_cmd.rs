//! `animus-hook packs`: the built-in protection packs a profile can enable.

use std::process::ExitCode;

pub fn run(json: bool) -> ExitCode {
    let catalogue = match compiler::packs::catalogue() {
        Ok(c) => c,
        Err(e) => {
            // Packs are compiled into the binary and checked by its tests: this is a build bug.
            eprintln!("{e}\nanimus-hook packs: the built-in packs do not parse");
            return ExitCode::FAILURE;
        }
    };
    if json {
        let packs: Vec<serde_json::Value> = catalogue
            .iter()
            .map(|pack| {
                serde_json::json!({
                    "name": pack.name,
                    "category": compiler::packs::category(&pack.name),
                    "description": pack.description,
                    "rules": pack.rules.iter().map(|rule| serde_json::json!({
                        "id": format!("{}:{}", pack.name, rule.id),
                        "decision": rule.decision,
                        "reason": compiler::packs::reason(pack, rule),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&packs).expect("packs serialize")
        );
        return ExitCode::SUCCESS;
    }
    let width = catalogue.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for pack in &catalogue {
        println!(
            "{:width$}  {:>2} rules  {}",
            pack.name,
            pack.rules.len(),
            pack.description
        );
        for rule in &pack.rules {
            println!(
                "{:width$}    {:<4} {}",
                "",
                rule.decision.to_string(),
                rule.id
            );
        }
    }
    println!(
        "\nEnable with `packs: [core, database.postgresql, …]` on an agent profile: a name before \
         the first dot (core) enables its whole category."
    );
    ExitCode::SUCCESS
}
