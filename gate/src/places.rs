//! Where a call happens ([`engine::Places`]): the payload's working directory, the user's
//! home, the project root. Path rules (`Read(~/.ssh/**)`, `Edit(/src/**)`) are anchored there.

use serde_json::Value;

/// The user's home: `$HOME` when it is an absolute path, else the password database's entry
/// for the real user (a `~/…` deny must not stop matching because `HOME` is unset).
pub fn home_dir() -> Option<String> {
    if let Some(home) = std::env::var_os("HOME")
        .and_then(|h| h.into_string().ok())
        .filter(|h| h.starts_with('/'))
    {
        return Some(home);
    }
    // SAFETY: getpwuid_r writes into the buffers given; the pointers read after a zero return
    // point into `buffer`, which outlives their use.
    unsafe {
        let mut entry: libc::passwd = std::mem::zeroed();
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let mut buffer = vec![0 as libc::c_char; 16 * 1024];
        let rc = libc::getpwuid_r(
            libc::getuid(),
            &mut entry,
            buffer.as_mut_ptr(),
            buffer.len(),
            &mut result,
        );
        if rc != 0 || result.is_null() || entry.pw_dir.is_null() {
            return None;
        }
        std::ffi::CStr::from_ptr(entry.pw_dir)
            .to_str()
            .ok()
            .filter(|h| h.starts_with('/'))
            .map(String::from)
    }
}

/// The places of one call: the payload's `cwd` (when it is an absolute path), `home`, and the
/// project root (the payload's `cwd` stands in when none was given).
pub fn of_payload<'a>(
    payload: &'a Value,
    home: Option<&'a str>,
    project_root: Option<&'a str>,
) -> engine::Places<'a> {
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|c| c.starts_with('/'));
    engine::Places {
        cwd,
        home,
        project_root: project_root.or(cwd),
    }
}

/// The working directory of a call whose tool names its own (`dir_path`, `workdir`): `dir` when
/// absolute, else joined to the payload's `cwd`. `None` when neither is known: path rules
/// relative to the working directory then cannot be anchored, as with no `cwd` at all.
pub fn working_directory(cwd: Option<&str>, dir: &str) -> Option<String> {
    if dir.starts_with('/') {
        return Some(dir.to_string());
    }
    let cwd = cwd?;
    Some(format!("{}/{dir}", cwd.trim_end_matches('/')))
}
