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

use std::path::PathBuf;

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
    let dir = shared_root().join("corpus-real");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !crate::under_ci(),
        "{test}: {} does not exist, and CI is set: CI always has ../shared, so this is a broken checkout",
        dir.display()
    );
    println!(
        "SKIPPED: {test}: {} does not exist (CI always has it)",
        dir.display()
    );
    None
}
