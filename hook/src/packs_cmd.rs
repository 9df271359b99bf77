//! `animus-hook packs`: the built-in protection packs a profile can enable: each with its
//! category, its rule count, whether `packs: [default]` enables it, its description, and its
//! rules.

use crate::stdout::outln;
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
                    "default": pack.default,
                    "rule_count": pack.rules.len(),
                    "description": pack.description,
                    "rules": pack.rules.iter().map(|rule| serde_json::json!({
                        "id": format!("{}:{}", pack.name, rule.id),
                        "decision": rule.decision,
                        "reason": compiler::packs::reason(pack, rule),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&packs).expect("packs serialize")
        );
        return ExitCode::SUCCESS;
    }
    let width = catalogue
        .iter()
        .map(|p| p.name.len())
        .chain(["pack".len()])
        .max()
        .unwrap_or(0);
    let cat_width = catalogue
        .iter()
        .map(|p| compiler::packs::category(&p.name).len())
        .chain(["category".len()])
        .max()
        .unwrap_or(0);
    outln!(
        "{:width$}  {:cat_width$}  rules  default  description",
        "pack",
        "category"
    );
    for pack in &catalogue {
        outln!(
            "{:width$}  {:cat_width$}  {:>5}  {:<7}  {}",
            pack.name,
            compiler::packs::category(&pack.name),
            pack.rules.len(),
            if pack.default { "yes" } else { "-" },
            pack.description
        );
        for rule in &pack.rules {
            outln!(
                "{:width$}    {:<4} {}",
                "",
                rule.decision.to_string(),
                rule.id
            );
        }
    }
    outln!(
        "\nEnable with `packs: [default]` on an agent profile (the packs marked yes above, the \
         recommended set), and add others by name (`database.clickhouse`) or category: a name before \
         the first dot (`backup`) enables its whole category."
    );
    ExitCode::SUCCESS
}
