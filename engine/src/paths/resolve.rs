//! Spelling a path on the file system: `.` and `..` collapsed ([`normalise`](super::normalise)), symlinks
//! resolved ([`resolve`]), each question asked once a call ([`FsMemo`]).

use std::borrow::Cow;

pub(super) use super::normalise;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Is `path` already what [`normalise`] makes of it (absolute, no empty, `.` or `..`
/// component, no trailing `/`)?
pub(crate) fn is_normal(path: &str) -> bool {
    path == "/"
        || path.strip_prefix('/').is_some_and(|rest| {
            rest.as_bytes()
                .split(|&b| b == b'/')
                .all(|component| !matches!(component, b"" | b"." | b".."))
        })
}

/// `rest` below `base`, as `Path::join` joins them: an absolute `rest` replaces the base, and
/// one separator goes between them unless the base is empty or already ends with one.
pub(super) fn join(base: &str, rest: &str) -> String {
    if rest.starts_with('/') || base.is_empty() {
        return rest.to_string();
    }
    let mut out = String::with_capacity(base.len() + rest.len() + 1);
    out.push_str(base);
    if !base.ends_with('/') {
        out.push('/');
    }
    out.push_str(rest);
    out
}

/// The directory holding `path` and its name in it (`/a/b` → `/a`, `b`); `None` for the root.
fn parent_and_name(path: &str) -> Option<(&str, &str)> {
    let (parent, name) = path.rsplit_once('/')?;
    if name.is_empty() {
        return None;
    }
    Some((if parent.is_empty() { "/" } else { parent }, name))
}

/// The path with symlinks resolved: the longest existing ancestor canonicalised, the rest
/// appended (a file about to be written does not exist yet; its directory may be a link). The
/// file system is asked through the call's `memo`. `normalised` is a [`normalise`]d path.
pub fn resolve(normalised: &str, memo: &FsMemo) -> String {
    match walk(normalised, 0, memo) {
        Walk::NoLink | Walk::Missing => normalised.to_string(),
        Walk::Link => through_links(normalised, memo),
    }
}

/// Does a symbolic link lie on the way down `normalised` (a [`normalise`]d absolute path),
/// above its first missing component? Without one, the path's resolution is the path itself.
pub(crate) fn has_link(normalised: &str, memo: &FsMemo) -> bool {
    matches!(walk(normalised, 0, memo), Walk::Link)
}

/// How a walk down a path's components ended.
enum Walk {
    /// Every component exists and none is a link.
    NoLink,
    /// A component does not exist, and none above it is a link.
    Missing,
    /// A component is a symbolic link.
    Link,
}

/// Walk down `normalised` from byte `from` (the end of a prefix known to hold no link), one
/// `lstat` a component, each asked once a call through `memo`: most paths of a command hold
/// no link, and then they are their own resolution with no `realpath` (a `readlink` a
/// component) at all.
fn walk(normalised: &str, from: usize, memo: &FsMemo) -> Walk {
    let mut end = from;
    for component in normalised.as_bytes()[from..].split(|&b| b == b'/') {
        end += component.len();
        if !component.is_empty() {
            // Each component's parent is known to exist here: the base the walk starts
            // below, or the component before, which `lstat` found.
            match memo.lstat_in_existing(&normalised[..end]) {
                Some(true) => return Walk::Link,
                Some(false) => {}
                None => return Walk::Missing,
            }
        }
        end += 1;
    }
    Walk::NoLink
}

/// [`resolve`] of a path with a link on the way: the deepest existing ancestor, found with
/// one `lstat` a level, canonicalised once, the rest appended.
fn through_links(normalised: &str, memo: &FsMemo) -> String {
    let mut existing = normalised;
    while memo.lstat(existing).is_none() {
        let Some((parent, _)) = parent_and_name(existing) else {
            return normalised.to_string();
        };
        existing = parent;
    }
    let Some(real) = memo.canonicalize(existing) else {
        // A dangling link (or a loop): what it names cannot be read; keep the path as given.
        return normalised.to_string();
    };
    let missing = &normalised[existing.len()..];
    if missing.is_empty() {
        return real;
    }
    // What remains may hold `..` after a link: collapse it against the real parent.
    normalise(&join(&real, missing.trim_start_matches('/')))
}

/// What one call has asked the file system, asked once: the words of a command share their
/// directories (`cd /tmp/build && make && tee build.log` reads `/tmp/build` and `/tmp` for
/// every word), and a call's files are read as they are at one moment anyway. (Reading a
/// directory whole instead measured 12 µs against 0.8 µs an `lstat`: not worth it below
/// fifteen names.)
///
/// A memo made inside [`one_memo_for`] is that call's one memo: the guard's places, the
/// policy's path texts and the guard's reading of a command then ask the file system once
/// between them. Clones share the memo.
#[derive(Clone, Debug)]
pub struct FsMemo {
    maps: Rc<MemoMaps>,
}

#[derive(Debug)]
struct MemoMaps {
    /// `lstat`: `None` when it failed, else whether the path is a symbolic link.
    lstat: RefCell<HashMap<String, Option<bool>, ShortKeysBuild>>,
    /// `canonicalize`: `None` when it failed.
    canonical: RefCell<HashMap<String, Option<String>, ShortKeysBuild>>,
    /// This process's working directory as `getcwd` spells it (no link on the way), once
    /// asked; `None` when it could not be read or is not a normal path.
    process_directory: std::cell::OnceCell<Option<String>>,
}

thread_local! {
    /// The memo of the call [`one_memo_for`] runs, if one runs on this thread.
    static CALL_MEMO: RefCell<Option<Rc<MemoMaps>>> = const { RefCell::new(None) };
}

/// Run `f` (one hook call) with one [`FsMemo`] for every memo made inside it: the file
/// system is read as it is at one moment, once per path. Outside, each memo is its own.
pub fn one_memo_for<R>(f: impl FnOnce() -> R) -> R {
    /// Ends the scope however `f` ends (a panic is answered with a deny, and the thread may
    /// decide again).
    struct Scope(Option<Rc<MemoMaps>>);
    impl Drop for Scope {
        fn drop(&mut self) {
            let previous = self.0.take();
            CALL_MEMO.with(|memo| *memo.borrow_mut() = previous);
        }
    }
    let fresh = Rc::new(MemoMaps::new());
    let _scope = Scope(CALL_MEMO.with(|memo| memo.borrow_mut().replace(fresh)));
    f()
}

/// The memo's hasher: a call's own paths and words, a few dozen short strings, where SipHash's
/// defence against chosen collisions buys nothing and cost a tenth of the path texts' time.
/// (A command built to collide costs the hook time only, and the deadline bounds that.) Eight
/// bytes a step, each mixed by a multiply and a rotation (FxHash's step): a byte-at-a-time
/// FNV-1a was 2% of an every-pack decide.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ShortKeys(u64);

impl ShortKeys {
    /// One step: a word folded into the state.
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for ShortKeys {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }
}

pub(super) type ShortKeysBuild = std::hash::BuildHasherDefault<ShortKeys>;

impl MemoMaps {
    /// Empty maps, sized for a command's few dozen paths (no rehash on the way).
    fn new() -> MemoMaps {
        MemoMaps {
            lstat: RefCell::new(HashMap::with_capacity_and_hasher(
                32,
                ShortKeysBuild::default(),
            )),
            canonical: RefCell::new(HashMap::with_capacity_and_hasher(
                4,
                ShortKeysBuild::default(),
            )),
            process_directory: std::cell::OnceCell::new(),
        }
    }
}

impl Default for FsMemo {
    /// The memo of the call [`one_memo_for`] runs, else an empty one of its own.
    fn default() -> FsMemo {
        let maps = CALL_MEMO
            .with(|memo| memo.borrow().clone())
            .unwrap_or_else(|| Rc::new(MemoMaps::new()));
        FsMemo { maps }
    }
}

impl FsMemo {
    /// `lstat(path)`: `None` when it fails, else whether `path` is a symbolic link.
    pub(super) fn lstat(&self, path: &str) -> Option<bool> {
        if let Some(known) = self.maps.lstat.borrow().get(path) {
            return *known;
        }
        // Below a directory known to be missing nothing exists: every word a command reads
        // from a `cd` target that is not there (yet) costs no system call.
        if let Some((parent, _)) = parent_and_name(path)
            && self.maps.lstat.borrow().get(parent) == Some(&None)
        {
            return None;
        }
        self.ask_lstat(path)
    }

    /// [`Self::lstat`] of a path whose parent directory is known to exist (the walk down a
    /// path has just found it): the memo is asked once, not also for the parent.
    fn lstat_in_existing(&self, path: &str) -> Option<bool> {
        if let Some(known) = self.maps.lstat.borrow().get(path) {
            return *known;
        }
        self.ask_lstat(path)
    }

    /// `lstat(path)` asked of the file system, the answer kept. The directories on the way
    /// to this process's working directory are known without asking (`getcwd` spells it with
    /// no link on the way, and a hook runs in the session's directory: one `getcwd` stands for
    /// the `lstat` of each of its components, which every call's bases ask). Nothing else is
    /// taken on trust, not even `/dev/null`: an agent running as root (a container) can make
    /// it a link to a guard file, and a write to it is then a write there. A path below the
    /// process's directory is asked relative to it, which spares the kernel the walk down to
    /// it (measured: 550 against 730 ns a `readlink` four levels down).
    fn ask_lstat(&self, path: &str) -> Option<bool> {
        let found = if self.on_the_way_to_our_directory(path) {
            Some(false)
        } else {
            lstat(self.below_our_directory(path).unwrap_or(path))
        };
        self.maps.lstat.borrow_mut().insert(path.to_string(), found);
        found
    }

    /// Take `directory` and every directory on the way to it as existing and not links,
    /// without asking: for a path the kernel has just spelled from the file system's own
    /// entries, as `readlink("/proc/self/exe")` spells the running binary's (a link is never
    /// the parent of anything, so no component of such a path is one). The guard's places
    /// include the binary and its twins beside it: their directories then cost no system
    /// call. A path that is not absolute and normal is ignored; nothing already asked is
    /// overwritten.
    pub fn know_kernel_spelled_directory(&self, directory: &str) {
        if !is_normal(directory) || directory == "/" {
            return;
        }
        let mut known = self.maps.lstat.borrow_mut();
        for (end, _) in directory.match_indices('/').skip(1) {
            known
                .entry(directory[..end].to_string())
                .or_insert(Some(false));
        }
        known.entry(directory.to_string()).or_insert(Some(false));
    }

    /// This process's working directory, asked once a memo (when the first `lstat` is).
    fn our_directory(&self) -> Option<&str> {
        self.maps
            .process_directory
            .get_or_init(|| {
                let directory = std::env::current_dir().ok()?.into_os_string();
                let directory = directory.into_string().ok()?;
                is_normal(&directory).then_some(directory)
            })
            .as_deref()
    }

    /// Is `path` (absolute, normal) this process's working directory or a directory on the
    /// way to it?
    pub(super) fn on_the_way_to_our_directory(&self, path: &str) -> bool {
        path.starts_with('/')
            && self.our_directory().is_some_and(|ours| {
                ours.strip_prefix(path)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
    }

    /// `path` (absolute, normal) relative to this process's working directory, when it lies
    /// strictly below it.
    pub(super) fn below_our_directory<'a>(&self, path: &'a str) -> Option<&'a str> {
        relative_to(path, self.our_directory()?)
    }

    /// Is `path` (absolute, normal) free of links: every component there is a plain file or
    /// directory, up to one that does not exist (if any)? Asked with the memo's `lstat`s.
    pub(super) fn no_link_on_the_way(&self, path: &str) -> bool {
        is_normal(path) && !matches!(walk(path, 0, self), Walk::Link)
    }

    /// `canonicalize(path)`: a normal path with no link on the way is its own, found with the
    /// `lstat`s of [`walk`] (memoised for the words below it); any other through `realpath`.
    pub(super) fn canonical(&self, path: &str) -> Option<String> {
        if !is_normal(path) {
            return self.canonicalize(path);
        }
        match walk(path, 0, self) {
            Walk::NoLink => Some(path.to_string()),
            Walk::Missing => None,
            Walk::Link => self.canonicalize(path),
        }
    }

    /// `std::fs::canonicalize(path).ok()`, exactly, with the `lstat`s of [`walk`] memoised:
    /// a normal path with no link on the way is its own real path and one with a missing (or
    /// unreadable) component before any link has none, as `realpath` finds; a path through a
    /// link, or not normal, is asked of `realpath` itself. (Through this memo, the guard's
    /// twenty-odd places and a command's paths share one `lstat` per directory instead of a
    /// `realpath`, a `readlink` per component, each.)
    pub fn real_path(&self, path: &std::path::Path) -> Option<std::path::PathBuf> {
        if let Some(text) = path.to_str()
            && is_normal(text)
        {
            match walk(text, 0, self) {
                Walk::NoLink => return Some(std::path::PathBuf::from(text)),
                Walk::Missing => return None,
                Walk::Link => {}
            }
        }
        std::fs::canonicalize(path).ok()
    }

    fn canonicalize(&self, path: &str) -> Option<String> {
        if let Some(known) = self.maps.canonical.borrow().get(path) {
            return known.clone();
        }
        let found = std::fs::canonicalize(path)
            .ok()
            .map(|p| p.to_string_lossy().into_owned());
        self.maps
            .canonical
            .borrow_mut()
            .insert(path.to_string(), found.clone());
        found
    }
}

/// `lstat(path)`, asked of the file system: `None` when it fails, else whether `path` is a
/// symbolic link. Asked as `readlink(path)`, which answers the same question for about half
/// the cost of a `statx` of an existing file (measured 340 against 620 ns on ext4; it fills no
/// metadata): it succeeds on a link (dangling or looping ones too, as `lstat` does), fails
/// with `EINVAL` on anything else that exists, and fails otherwise exactly where `lstat`
/// fails (a missing component, one that is not a directory, no search permission, a loop or
/// a name too long on the way).
///
/// The path is handed to `readlink` from a buffer on the stack (on the heap when too long
/// for it) and the link's target is not read (one byte of room: a link answers with a
/// truncated target): no allocation for a command's words, where `std::fs::read_link` made a
/// target buffer for each.
pub(super) fn lstat(path: &str) -> Option<bool> {
    /// Room for the paths of a command's words (and the NUL), the common case.
    const ON_STACK: usize = 512;
    let bytes = path.as_bytes();
    if bytes.contains(&0) {
        // No file has a NUL in its path (`std` refuses such a path the same way).
        return None;
    }
    let mut on_stack = [0u8; ON_STACK];
    let on_heap;
    let c_path: &[u8] = if bytes.len() < ON_STACK {
        on_stack[..bytes.len()].copy_from_slice(bytes);
        &on_stack
    } else {
        on_heap = [bytes, &[0]].concat();
        &on_heap
    };
    let mut target = [0u8; 1];
    // SAFETY: `c_path` is NUL-terminated (the path holds no NUL; one follows it), and
    // `target` is writable for the length given.
    let written = unsafe {
        libc::readlink(
            c_path.as_ptr().cast(),
            target.as_mut_ptr().cast(),
            target.len(),
        )
    };
    if written >= 0 {
        return Some(true);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EINVAL) => Some(false),
        _ => None,
    }
}

/// [`resolve`], walking down only below the deepest of `real_bases` (the call's directories,
/// canonicalised once per call) the path lies under.
pub fn resolve_from<'n>(normalised: &'n str, real_bases: &[String], memo: &FsMemo) -> Cow<'n, str> {
    let rest = real_bases
        .iter()
        .filter_map(|b| relative_to(normalised, b).map(|rest| (b, rest)))
        .max_by_key(|(b, _)| b.len())
        .map(|(_, rest)| rest);
    let from = rest.map_or(0, |rest| normalised.len() - rest.len());
    match walk(normalised, from, memo) {
        Walk::NoLink | Walk::Missing => Cow::Borrowed(normalised),
        Walk::Link => Cow::Owned(through_links(normalised, memo)),
    }
}

/// `path` relative to `base`, when it lies strictly inside it.
pub(super) fn relative_to<'p>(path: &'p str, base: &str) -> Option<&'p str> {
    let base = base.trim_end_matches('/');
    path.strip_prefix(base)?
        .strip_prefix('/')
        .filter(|rel| !rel.is_empty())
}
