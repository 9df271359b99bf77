//! Issue 25 item 1: under the settings `inject` writes for a real permission list, Claude runs
//! none of the commands it refuses under that list alone.

use super::*;
use test_support::process::succeed;

/// Candidate commands tried per list (those Claude refuses under the list alone are checked).
const CANDIDATES: usize = 10;

/// For every list in `../shared/corpus-real/permission-lists` (its `allow`, `ask` and `deny`;
/// `defaultMode` and the rest are left out, so both runs are in the default mode): the first
/// [`CANDIDATES`] commands of the pool ([`command_pool`]) in the list's own order (FNV-1a of the
/// list's file name and the command: a fixed rule, not a choice per list) run under the list
/// alone; those Claude refuses (asked or denied) run again under `animus-hook import` of the
/// list → `animus-hook inject --provider claude` (the session settings it writes, the real hook
/// wired in), and none may run. No list of the corpus holds a bare `*` in `allow` (the held-back
/// lists that showed the bug did), so the first list is also run with `*` added to its `allow`:
/// Claude alone ignores it, and inject once exported it as Claude's built-in tools.
/// `ANIMUS_LISTS_ONLY=<part of a name>` runs only the lists whose name holds it.
pub(super) fn inject_never_runs_what_the_list_refuses() {
    let Some(shared) = test_support::shared::corpus_real("inject_never_runs_what_the_list_refuses")
    else {
        return;
    };
    let lists = test_support::shared::permission_lists(&shared);
    let pool = Arc::new(command_pool(&shared));
    let started = Instant::now();
    let mut jobs: Vec<(PathBuf, bool, Arc<Vec<String>>)> = lists
        .iter()
        .map(|l| (l.clone(), false, Arc::clone(&pool)))
        .collect();
    jobs.push((lists[0].clone(), true, Arc::clone(&pool)));
    if let Ok(only) = std::env::var("ANIMUS_LISTS_ONLY") {
        jobs.retain(|(list, star, _)| {
            format!("{}{}", list.display(), if *star { "+star" } else { "" }).contains(&only)
        });
    }
    let results = parallel(jobs, check_list);
    let (mut checked, mut ran) = (0, Vec::new());
    for (name, refused, escaped) in &results {
        checked += refused;
        for (command, message) in escaped {
            ran.push(format!(
                "{name}: {command:?} ran under inject ({message:?})"
            ));
        }
    }
    println!(
        "{} lists: {checked} commands Claude refuses under the list alone, {} of them ran under \
         inject ({:.0}s)",
        results.len(),
        ran.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        checked >= 3 * results.len(),
        "only {checked} refused commands over {} lists: the sample proves too little",
        results.len()
    );
    assert!(ran.is_empty(), "{}", ran.join("\n"));
}

/// One list: (its name, how many refused commands were checked, those that ran under inject).
#[allow(clippy::type_complexity)]
fn check_list(
    _: usize,
    (list, star, pool): (PathBuf, bool, Arc<Vec<String>>),
) -> (String, usize, Vec<(String, String)>) {
    let mut name = list.file_stem().unwrap().to_string_lossy().into_owned();
    let doc: Value = serde_json::from_str(&fs::read_to_string(&list).unwrap()).unwrap();
    let mut permissions = doc["permissions"].clone();
    if star {
        name.push_str("+star");
        let allow = permissions["allow"].as_array().cloned().unwrap_or_default();
        permissions["allow"] = Value::Array([allow, vec![json!("*")]].concat());
    }
    let permissions = &permissions;
    let mut candidates: Vec<&String> = pool.iter().collect();
    candidates.sort_by_key(|c| fnv1a(&[name.as_bytes(), b"\0", c.as_bytes()]));
    let candidates: Vec<String> = candidates.into_iter().take(CANDIDATES).cloned().collect();

    // Under the list alone: a settings file at the project root (where a `/x` entry of a
    // project's own settings is anchored), no hook.
    let native = Sandbox::new(&format!("native-{}", short(&name)));
    let settings = native.project.join("oracle.settings.json");
    let args = native_settings(&settings, permissions);
    let answers = run_session(&native, &args, &candidates);
    let refused: Vec<String> = candidates
        .iter()
        .zip(&answers)
        .filter(|(_, a)| a.outcome == "asked" || a.outcome == "denied")
        .map(|(c, _)| c.clone())
        .collect();
    if refused.is_empty() {
        return (name, 0, Vec::new());
    }

    // Under inject: the list imported into a profile, then the session settings inject writes.
    let guarded = Sandbox::new(&format!("inject-{}", short(&name)));
    let source = guarded.scratch.root.join("list.settings.json");
    native_settings(&source, permissions);
    let profile = guarded.scratch.root.join("imported.yaml");
    let import = succeed(
        Command::new(animus_hook())
            .args(["import", "--claude-settings"])
            .arg(&source)
            .args(["--agent", "imported"]),
    );
    fs::write(&profile, &import.stdout).unwrap();
    let args = guarded.inject(&profile, "imported", &launch(&[]), None);
    let answers = run_session(&guarded, &args, &refused);
    let escaped = refused
        .iter()
        .zip(answers)
        .filter(|(_, a)| a.outcome == "ran")
        .map(|(c, a)| (c.clone(), a.message))
        .collect();
    (name, refused.len(), escaped)
}

/// Every command of `commands/*.jsonl` and `labelled/*.jsonl`, once each, in file order: one
/// line, at most 300 bytes (the mock sends each as a tool input).
pub(super) fn command_pool(shared: &Path) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut pool = Vec::new();
    for file in [
        "commands/tldr-examples.jsonl",
        "commands/nl2bash.jsonl",
        "labelled/dcg-corpus.jsonl",
        "labelled/dcg-e2e-fixtures.jsonl",
    ] {
        let path = shared.join(file);
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for line in text.lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            let Some(command) = record["command"].as_str() else {
                continue;
            };
            let command = command.trim();
            if !command.is_empty()
                && !command.contains('\n')
                && command.len() <= 300
                && seen.insert(command.to_owned())
            {
                pool.push(command.to_owned());
            }
        }
    }
    pool
}

/// 64-bit FNV-1a over the concatenated parts: a fixed, portable order.
pub(super) fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in *part {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

fn short(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .take(24)
        .collect()
}
