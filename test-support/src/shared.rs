//! The real-world material beside the repository: `../shared` (its `corpus-real/` holds real
//! permission lists, commands, tool calls and labelled corpora nobody here wrote).
//!
//! A test that needs it starts with
//!
//! ```no_run
//! let Some(corpus) = animus_test_support::shared::corpus_real("my_test") else { return };
//! ```
//!
//! Where `../shared/corpus-real` is missing the test prints `SKIPPED: <test>: …` and passes —
//! except under `CI` (set and not empty), where the material is always there and its absence
//! is a broken checkout: the test panics. One place decides this, so no test can pass silently.

use std::path::{Path, PathBuf};

/// `../shared`, the folder beside the repository.
pub fn shared_root() -> PathBuf {
    crate::repo_root()
        .parent()
        .expect("the repository has a parent folder")
        .join("shared")
}

/// `../shared`, when its `corpus-real/` exists; `None` after printing that `test` is skipped.
/// Panics under `CI` when it is missing.
pub fn shared_dir(test: &str) -> Option<PathBuf> {
    corpus_real(test).map(|_| shared_root())
}

/// `../shared/corpus-real`, when it exists; `None` after printing that `test` is skipped.
/// Panics under `CI` when it is missing.
pub fn corpus_real(test: &str) -> Option<PathBuf> {
    required_dir(shared_root().join("corpus-real"), test, crate::under_ci())
}

/// `dir` when it exists; else a `SKIPPED` line and `None`, or a panic when `ci`.
fn required_dir(dir: PathBuf, test: &str, ci: bool) -> Option<PathBuf> {
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !ci,
        "{test}: {} does not exist, and CI is set: CI always has ../shared, so this is a broken checkout",
        dir.display()
    );
    println!(
        "SKIPPED: {test}: {} does not exist (CI always has it)",
        dir.display()
    );
    None
}

/// The real permission lists (`<corpus-real>/permission-lists/*.json`), sorted by name; fails
/// the test unless the corpus's 63 lists (at least 60) are there.
pub fn permission_lists(corpus_real: &Path) -> Vec<PathBuf> {
    let dir = corpus_real.join("permission-lists");
    let mut lists: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    lists.sort();
    assert!(
        lists.len() >= 60,
        "expected the 63 lists in {}, found {}",
        dir.display(),
        lists.len()
    );
    lists
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing() -> PathBuf {
        crate::repo_root().join("no-such-dir/corpus-real")
    }

    #[test]
    fn a_present_dir_is_returned() {
        let dir = crate::repo_root();
        assert_eq!(required_dir(dir.clone(), "t", true), Some(dir));
    }

    #[test]
    fn a_missing_dir_skips_outside_ci() {
        assert_eq!(required_dir(missing(), "t", false), None);
    }

    #[test]
    #[should_panic(expected = "does not exist, and CI is set")]
    fn a_missing_dir_fails_under_ci() {
        required_dir(missing(), "t", true);
    }
}
