//! The JSONC reader against `serde_json` on real JSON: every `.json` file and every line of every
//! `.jsonl` file of `corpus/` and `../shared` (settings files, permission lists, payloads,
//! transcripts), and single-character mutations of each (a character removed, inserted or
//! replaced), so that broken documents are covered too. Strict JSON must be read exactly as
//! `serde_json` reads it (accepted alike, same value); a document `serde_json` refuses may be
//! accepted only for a comment or a trailing comma, and the reader then says where.

use std::path::Path;

use compiler::jsonc::parse_noting;
use test_support::shared::shared_dir;

/// The documents under `dir`: whole `.json` files, and the lines of `.jsonl` files.
fn documents(dir: &Path, out: &mut Vec<(String, String)>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.display().to_string();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if name.ends_with(".json") && text.len() < 1 << 20 {
                out.push((name, text));
            } else if name.ends_with(".jsonl") {
                let lines = text.lines().take(300).enumerate();
                out.extend(lines.map(|(i, l)| (format!("{name}:{}", i + 1), l.to_string())));
            }
        }
    }
}

/// Checks one document; returns whether it was strict JSON.
fn check(name: &str, text: &str) -> bool {
    let strict = serde_json::from_str::<serde_json::Value>(text);
    match (parse_noting(text), strict) {
        (Ok((node, None)), Ok(value)) => {
            assert_eq!(node.to_json(), value, "{name}: a different value");
            true
        }
        (Ok((_, Some(extension))), Ok(_)) => {
            panic!("{name}: strict JSON reported as using {}", extension.what)
        }
        (Err(e), Ok(_)) => panic!("{name}: strict JSON refused: {e}"),
        (Ok((_, extension)), Err(e)) => {
            assert!(
                extension.is_some(),
                "{name}: accepted what serde_json refuses ({e}) without a comment or a trailing comma: {text:?}"
            );
            false
        }
        (Err(_), Err(_)) => false,
    }
}

#[test]
fn reads_real_json_as_serde_json_does() {
    let mut docs = Vec::new();
    documents(&test_support::repo_root().join("corpus"), &mut docs);
    if let Some(shared) = shared_dir("reads_real_json_as_serde_json_does") {
        documents(&shared.join("corpus-real"), &mut docs);
    }
    assert!(docs.len() > 100, "found only {} documents", docs.len());
    let mut strict = 0;
    for (name, text) in &docs {
        strict += usize::from(check(name, text));
    }
    assert!(strict > 100, "only {strict} strict documents");
    // Mutations: a fixed pseudo-random sequence, so a failure is reproducible.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as usize
    };
    let alphabet: Vec<char> = ",{}[]\":/* \n0123456789-eE.tfnu\\a\t".chars().collect();
    let mut mutated = 0;
    for (name, text) in docs.iter().take(500) {
        let chars: Vec<char> = text.chars().collect();
        if chars.is_empty() {
            continue;
        }
        for round in 0..20 {
            let mut c = chars.clone();
            let at = next() % c.len();
            let with = alphabet[next() % alphabet.len()];
            match next() % 3 {
                0 => drop(c.remove(at)),
                1 => c.insert(at, with),
                _ => c[at] = with,
            }
            let text: String = c.into_iter().collect();
            check(&format!("{name} (mutation {round} at {at})"), &text);
            mutated += 1;
        }
    }
    println!(
        "{} documents ({strict} strict JSON), {mutated} mutations",
        docs.len()
    );
}
