//! List the literals of every pack's matchers by length (shortest first): a short literal is
//! found in most texts, and each find costs a lookup or a confirming automaton run.
//! `cargo run --release -p animus-benches --example short_literals -- [MAX_LEN]`
fn main() {
    let max: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let policy = animus_benches::packs_policy(&compiler::packs::every_pack_list());
    let image = compiler::lower::lower_policy(&policy, &compiler::lower::Budgets::default())
        .expect("it lowers");
    for (f, field) in image.fields.iter().enumerate() {
        println!(
            "field {f}: {} {:?} scans {}",
            field.path,
            field.view,
            field.scan_automata.len()
        );
    }
    let mut short = Vec::new();
    for (id, m) in image.matchers.iter().enumerate() {
        let shortest = m
            .literals
            .iter()
            .chain(&m.chain)
            .map(Vec::len)
            .min()
            .unwrap_or(0);
        if shortest <= max {
            let rule = image
                .rules
                .iter()
                .position(|r| r.matchers.contains(&(id as u32)))
                .map_or("?", |r| image.rules[r].id.as_str());
            short.push((
                shortest,
                m.field,
                format!("{:?}", m.kind),
                rule,
                m.literals
                    .iter()
                    .chain(&m.chain)
                    .map(|l| String::from_utf8_lossy(l).into_owned())
                    .collect::<Vec<_>>(),
            ));
        }
    }
    short.sort();
    for (len, field, kind, rule, literals) in short {
        println!("{len} field {field} {kind} {rule} {literals:?}");
    }
}
