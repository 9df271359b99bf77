//! Issue 25 item 3: the commands Claude runs with no rule at all (empty permissions, default
//! mode), measured over `../shared/corpus-real/commands` and kept in
//! `corpus/claude-readonly/table.json`; the guard's read-only model
//! ([`engine::readonly`]) is checked against it.

use super::*;

use super::e2e::common::read_repo_json;
use serde::{Deserialize, Serialize};

/// The stored table, relative to the repository root.
const TABLE: &str = "corpus/claude-readonly/table.json";
/// Bash calls per session when regenerating.
const SESSION_CALLS: usize = 240;
/// Rows CI replays live: every `REPLAY_STRIDE`-th row of the table (and every 10th ran row).
const REPLAY_STRIDE: usize = 150;
/// Recorded characters of a refusal's message.
const MESSAGE_CHARS: usize = 100;

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Table {
    claude_version: String,
    note: String,
    commands: Vec<Row>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Row {
    command: String,
    /// `ran`, `asked`, `denied` or `refused`.
    claude: String,
    /// The start of the refusal's message (empty when it ran).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    message: String,
}

pub(super) fn writing() -> bool {
    std::env::var_os("ANIMUS_READONLY_WRITE").is_some_and(|v| v == "1")
}

/// The measured sample: the commands of `commands/*.jsonl` (one line, at most 300 bytes,
/// deduplicated) stratified by program (the first word): of a program with `n` commands,
/// `3 + n / 20` are kept, the first in FNV-1a order of their text. In table order: by program,
/// then that order.
fn sample(shared: &Path) -> Vec<String> {
    let mut by_program: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut seen = std::collections::HashSet::new();
    for file in ["commands/tldr-examples.jsonl", "commands/nl2bash.jsonl"] {
        let text = fs::read_to_string(shared.join(file)).unwrap();
        for line in text.lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            let command = record["command"].as_str().unwrap_or_default().trim();
            if command.is_empty()
                || command.contains('\n')
                || command.len() > 300
                || !seen.insert(command.to_owned())
            {
                continue;
            }
            let program = command.split_whitespace().next().unwrap().to_owned();
            by_program
                .entry(program)
                .or_default()
                .push(command.to_owned());
        }
    }
    let mut sample = Vec::new();
    for (_, mut commands) in by_program {
        let keep = 3 + commands.len() / 20;
        commands.sort_by_key(|c| lists::fnv1a(&[c.as_bytes()]));
        sample.extend(commands.into_iter().take(keep));
    }
    sample
}

/// Run `commands` in sessions of [`SESSION_CALLS`], two at a time, with empty permissions.
fn measure(commands: &[String]) -> Vec<Row> {
    let jobs: Vec<Vec<String>> = commands
        .chunks(SESSION_CALLS)
        .map(<[String]>::to_vec)
        .collect();
    let total = jobs.len();
    let sessions = parallel(jobs, move |index, commands| {
        let started = Instant::now();
        let sandbox = Sandbox::new(&format!("readonly-{index}"));
        let settings = sandbox.scratch.root.join("settings/empty.settings.json");
        let args = native_settings(&settings, &json!({}));
        let answers = run_session(&sandbox, &args, &commands);
        println!(
            "  session {}/{total}: {} calls, {} ran ({:.0}s)",
            index + 1,
            commands.len(),
            answers.iter().filter(|a| a.outcome == "ran").count(),
            started.elapsed().as_secs_f64()
        );
        commands
            .into_iter()
            .zip(answers)
            .map(|(command, answer)| Row {
                command,
                claude: answer.outcome.to_owned(),
                message: if answer.outcome == "ran" {
                    String::new()
                } else {
                    answer.message.chars().take(MESSAGE_CHARS).collect()
                },
            })
            .collect::<Vec<Row>>()
    });
    sessions.into_iter().flatten().collect()
}

pub(super) fn regenerate_table() {
    if !writing() {
        println!(
            "readonly_regenerate_table: ANIMUS_READONLY_WRITE=1 is not set, the table is kept"
        );
        return;
    }
    let shared = test_support::shared::corpus_real("readonly_regenerate_table")
        .expect("regenerating needs ../shared/corpus-real");
    let started = Instant::now();
    let mut commands = sample(&shared);
    // `ANIMUS_READONLY_LIMIT=<n>`: measure only the first n and print them; nothing is written.
    let limit: Option<usize> = std::env::var("ANIMUS_READONLY_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok());
    if let Some(limit) = limit {
        commands.truncate(limit);
    }
    let rows = measure(&commands);
    let table = Table {
        claude_version: CLAUDE_CODE_VERSION.to_owned(),
        note: NOTE.to_owned(),
        commands: rows,
    };
    if limit.is_some() {
        for row in &table.commands {
            println!("{:<7} {:?} {:?}", row.claude, row.command, row.message);
        }
        return;
    }
    // Written before the model is checked against it: a model that fails the new table is
    // fixed against the stored one (`readonly_table_is_well_formed`) without measuring again.
    check_form(&table);
    let path = repo_root().join(TABLE);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut text = String::from("{\n");
    text += &format!("  \"claude_version\": {},\n", json!(table.claude_version));
    text += &format!("  \"note\": {},\n", json!(table.note));
    text += "  \"commands\": [\n";
    let rows: Vec<String> = table
        .commands
        .iter()
        .map(|r| format!("    {}", serde_json::to_string(r).unwrap()))
        .collect();
    text += &rows.join(",\n");
    text += "\n  ]\n}\n";
    fs::write(&path, text).unwrap();
    println!(
        "wrote {} ({} commands, {} ran) in {:.0}s",
        path.display(),
        table.commands.len(),
        table.commands.iter().filter(|r| r.claude == "ran").count(),
        started.elapsed().as_secs_f64()
    );
    check_model(&table);
}

pub(super) fn sample_matches_table() {
    if writing() {
        println!("readonly_sample_matches_table: the table is being regenerated");
        return;
    }
    let table = stored_table();
    // Every REPLAY_STRIDE-th row, and every 10th of those Claude ran (few in the whole).
    let rows: Vec<&Row> = table
        .commands
        .iter()
        .step_by(REPLAY_STRIDE)
        .chain(
            table
                .commands
                .iter()
                .filter(|r| r.claude == "ran")
                .step_by(10),
        )
        .collect();
    let mut seen = std::collections::HashSet::new();
    let rows: Vec<&Row> = rows
        .into_iter()
        .filter(|r| seen.insert(&r.command))
        .collect();
    let commands: Vec<String> = rows.iter().map(|r| r.command.clone()).collect();
    let live = measure(&commands);
    let mismatches: Vec<String> = rows
        .iter()
        .zip(&live)
        .filter(|(want, got)| want.claude != got.claude)
        .map(|(want, got)| {
            format!(
                "{:?}: the table says {}, the CLI now {} ({:?})",
                want.command, want.claude, got.claude, got.message
            )
        })
        .collect();
    println!(
        "replayed {} of {} rows, {} ran",
        rows.len(),
        table.commands.len(),
        live.iter().filter(|r| r.claude == "ran").count()
    );
    assert!(
        mismatches.is_empty(),
        "the CLI no longer decides as {TABLE} records (regenerate it with \
         ANIMUS_READONLY_WRITE=1 if the CLI changed on purpose):\n{}",
        mismatches.join("\n")
    );
}

pub(super) fn table_is_well_formed() {
    if writing() {
        println!("readonly_table_is_well_formed: checked before it is written");
        return;
    }
    check_table(&stored_table());
}

fn stored_table() -> Table {
    read_repo_json(TABLE)
}

fn check_table(table: &Table) {
    check_form(table);
    check_model(table);
}

/// What any table must hold.
fn check_form(table: &Table) {
    assert_eq!(table.claude_version, CLAUDE_CODE_VERSION);
    let mut seen = std::collections::HashSet::new();
    for row in &table.commands {
        assert!(seen.insert(&row.command), "{:?} twice", row.command);
        assert!(
            ["ran", "asked", "denied", "refused"].contains(&row.claude.as_str()),
            "{:?}: {:?}",
            row.command,
            row.claude
        );
        assert!(!row.message.contains("/animus-e2e-"), "{:?}", row.message);
    }
    assert!(table.commands.len() >= 1000, "too few commands");
}

/// The model's law: no command Claude refused is one the guard's read-only model recognises
/// (never looser than Claude); and it recognises a fair share of what Claude ran.
fn check_model(table: &Table) {
    let (mut ran, mut recognised, mut looser) = (0, 0, Vec::new());
    for row in &table.commands {
        let read_only = engine::readonly::recognises(&row.command);
        if row.claude == "ran" {
            ran += 1;
            recognised += usize::from(read_only);
        } else if read_only {
            looser.push(format!(
                "{:?} ({}: {:?})",
                row.command, row.claude, row.message
            ));
        }
    }
    println!(
        "{}: {} commands, {ran} ran unasked, {recognised} of those the read-only model recognises",
        TABLE,
        table.commands.len()
    );
    assert!(
        looser.is_empty(),
        "the read-only model recognises {} commands Claude does not run unasked:\n{}",
        looser.len(),
        looser.join("\n")
    );
    assert!(
        recognised * 3 >= ran,
        "the model recognises only {recognised} of the {ran} commands Claude ran"
    );
}

const NOTE: &str = "What Claude Code's own permission engine did with each command as a Bash \
call under empty permissions (no rule at all), default mode, headless (-p), offline, measured by \
hook/tests/claude_stub_shell/ with a stub $SHELL that runs nothing: ran = it reached the shell; \
asked = needs approval (refused in -p); denied = refused by a rule; refused = any other refusal. \
message: the start of the tool_result of a refusal. Sample: the commands of \
../shared/corpus-real/commands (tldr-examples, nl2bash), one line, at most 300 bytes, stratified \
by program: 3 + n/20 of a program's n commands, in FNV-1a order. Regenerate: \
ANIMUS_READONLY_WRITE=1 cargo test -p animus-hook --test claude_stub_shell readonly";
