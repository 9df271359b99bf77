//! The guard's own places as the hook finds them when it decides ([`engine::guard::Guard`]):
//! the directory of the policy it was handed, the state directory it records to, and the
//! binary running it with its twins. Computed only for a shell call, once per run.

use std::path::{Path, PathBuf};

use engine::guard::Guard;
use engine::paths::FsMemo;

/// The guard of a hook run deciding with the policy at `policy_path`.
pub fn of(policy_path: &Path) -> Guard {
    let mut guard = Guard::default();
    // One memo for every place: the binaries share their directories, and the running one is
    // one of the twins (`realpath` asks the file system once per component).
    let memo = FsMemo::default();
    let absolute = |p: &Path| -> Option<PathBuf> {
        if p.is_absolute() {
            Some(p.to_path_buf())
        } else {
            std::env::current_dir().ok().map(|d| d.join(p))
        }
    };
    if let Some(dir) = policy_path.parent().and_then(absolute) {
        push_both(&mut guard.policy_dirs, &dir, &memo);
    }
    if let Some(dir) = std::env::var_os("ANIMUS_CONFIG_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        push_both(&mut guard.state_dirs, &dir, &memo);
    }
    if let Some(home) = crate::places::home_dir() {
        push_both(
            &mut guard.state_dirs,
            &Path::new(&home).join(".animus"),
            &memo,
        );
    }
    // The twins first, in one order, so both binaries answer alike; then the running one.
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            // `current_exe` reads `/proc/self/exe`, which the kernel spells from the binary's
            // own directory entries: no directory on the way is a link.
            if let Some(dir) = dir.to_str() {
                memo.know_kernel_spelled_directory(dir);
            }
            for twin in ["animus-hook", "animus-hook-emit"] {
                let twin = dir.join(twin);
                if twin.is_file() {
                    push_both(&mut guard.binaries, &twin, &memo);
                }
            }
        }
        push_both(&mut guard.binaries, &exe, &memo);
    }
    guard
}

/// `path` as given and with symlinks resolved (`canonicalize`, through `memo`), each once.
fn push_both(list: &mut Vec<String>, path: &Path, memo: &FsMemo) {
    let real = memo.real_path(path);
    for p in [Some(path.to_path_buf()), real].into_iter().flatten() {
        if let Some(text) = p.to_str()
            && !list.iter().any(|q| q == text)
        {
            list.push(text.to_string());
        }
    }
}
