//! Where a call happens, and paths collapsed lexically: what the shell's deletion targets are
//! resolved with ([`crate::targets`]), shared with the engine's path rules.

/// Where a call happens: the directories path rules are anchored to. Any may be unknown; a
/// base that is unknown anchors nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Places<'a> {
    /// The call's working directory (the payload's `cwd`).
    pub cwd: Option<&'a str>,
    /// The user's home directory.
    pub home: Option<&'a str>,
    /// The project root (where the project's `.claude/settings.json` lives).
    pub project_root: Option<&'a str>,
}

/// Collapse `.` and `..` in a path, lexically, as an absolute path (`/a/b/../c` → `/a/c`; `..`
/// at the root stays at the root; a relative path is read from the root).
pub fn normalise(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 1);
    for component in path.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                let parent = out.rfind('/').unwrap_or(0);
                out.truncate(parent);
            }
            name => {
                out.push('/');
                out.push_str(name);
            }
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}
