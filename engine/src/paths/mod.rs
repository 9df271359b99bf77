//! File paths as Claude's `Read(…)`/`Edit(…)` rules see them, and the texts path matchers search.
//!
//! A path rule's argument is a gitignore-style glob with an anchor ([`PathGlob`]):
//!
//! | anchor | base directory | example |
//! |---|---|---|
//! | `//x` | the filesystem root | `Read(//etc/**)` |
//! | `~/x` | the user's home | `Read(~/.ssh/**)` |
//! | `/x` | the project root | `Edit(/src/**)` |
//! | `./x`, `x` | the call's working directory | `Read(./.env)`, `Read(**/*.pem)` |
//!
//! Below its base the glob is read as gitignore reads it: a glob without a `/` (other than a
//! trailing one) matches at any depth (`.env` is `**/.env`), `*` and `?` never cross a `/`,
//! `**/` is any number of directories, a trailing `/**` everything inside, and a glob that
//! matches a directory matches everything inside it.
//!
//! A path from a call is spelled several ways ([`path_texts`]): as given, made absolute
//! against the call's working directory with `~` expanded and `.`/`..` collapsed, and with
//! symlinks resolved. Each spelling is then written relative to every base it lies under,
//! behind that base's tag character ([`ROOT_TAG`], [`HOME_TAG`], [`PROJECT_TAG`], [`CWD_TAG`]),
//! and a glob becomes a regex over those texts ([`PathGlob::regex`]): `Read(~/.ssh/**)` is
//! `\x03\.ssh/.*(?:/.*)?$`. Deny and ask rules match any spelling ([`Spellings::All`]), allow
//! rules only the resolved one ([`Spellings::Resolved`]): `Read(./.env)` denies `.env`,
//! `src/../.env` and a symlink to it; `Edit(src/**)` does not allow `src/../lib/x`.

mod command;
mod glob;
mod resolve;
#[cfg(test)]
mod tests;
mod texts;

pub use ::shell::normalise;
pub use command::{
    command_path_texts, each_command_path_text, each_command_path_text_for,
    each_command_path_text_into,
};
pub use glob::{MAX_GLOB_EXPANSION, PathGlob, enables_dot_globs, expand_glob};
pub use resolve::{FsMemo, one_memo_for, resolve, resolve_from};
pub(crate) use resolve::{has_link, is_normal};
pub use texts::{Bases, JoinedTexts, PathTextSink, path_texts, spellings};

/// The tag before a path written relative to the filesystem root (`//` rules).
pub const ROOT_TAG: char = '\u{2}';
/// The tag before a path written relative to the user's home (`~/` rules).
pub const HOME_TAG: char = '\u{3}';
/// The tag before a path written relative to the project root (`/` rules).
pub const PROJECT_TAG: char = '\u{4}';
/// The tag before a path written relative to the call's working directory (`./` and bare rules).
pub const CWD_TAG: char = '\u{5}';

/// Where a call happens ([`shell::Places`]: the shell's deletion targets are resolved there).
pub use ::shell::Places;

/// Which spellings of a path a matcher looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spellings {
    /// As given, normalised and resolved (deny and ask: any spelling may be the one meant).
    All,
    /// Only the resolved path (allow: the file really reached).
    Resolved,
}

/// The base directory a path glob is anchored to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// `//x`: the filesystem root.
    Root,
    /// `~/x`: the user's home.
    Home,
    /// `/x`: the project root.
    Project,
    /// `./x` or `x`: the call's working directory.
    Cwd,
}

impl Anchor {
    /// The tag character texts relative to this base carry.
    pub fn tag(self) -> char {
        match self {
            Anchor::Root => ROOT_TAG,
            Anchor::Home => HOME_TAG,
            Anchor::Project => PROJECT_TAG,
            Anchor::Cwd => CWD_TAG,
        }
    }
}

/// The bases a field's path matchers are anchored to: which tags ([`Anchor::tag`]) the texts
/// that can match them carry. A glob's regex starts with its base's tag ([`PathGlob::regex`])
/// and a text holds a tag only as its first character (control characters in a path are
/// written `?`), so a text behind any other tag matches none of them, and need not be made.
/// The compiler records each path field's set in the sidecar; an empty set means unknown
/// (every tag), which is also what the reference evaluator makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagSet(u8);

impl TagSet {
    /// Every tag: all texts are made.
    pub const ALL: TagSet = TagSet(0b1111);

    /// The set holding one anchor's tag.
    pub fn of(anchor: Anchor) -> TagSet {
        TagSet(match anchor {
            Anchor::Root => 0b0001,
            Anchor::Home => 0b0010,
            Anchor::Project => 0b0100,
            Anchor::Cwd => 0b1000,
        })
    }

    /// Both sets' tags.
    pub fn union(self, other: TagSet) -> TagSet {
        TagSet(self.0 | other.0)
    }

    /// The set as the sidecar stores it (0: unknown, read as every tag).
    pub fn bits(self) -> u8 {
        self.0
    }

    /// The set the sidecar stored as `bits`; 0 (unknown) and any bit beyond the four tags
    /// read as every tag, so an unknown or forged value only makes more texts.
    pub fn from_bits(bits: u8) -> TagSet {
        if bits == 0 || bits & !Self::ALL.0 != 0 {
            Self::ALL
        } else {
            TagSet(bits)
        }
    }

    /// Does the set hold `tag` (one of [`ROOT_TAG`], [`HOME_TAG`], [`PROJECT_TAG`],
    /// [`CWD_TAG`]; any other character is held, to be safe)?
    pub fn holds(self, tag: char) -> bool {
        match tag {
            ROOT_TAG => self.0 & 0b0001 != 0,
            HOME_TAG => self.0 & 0b0010 != 0,
            PROJECT_TAG => self.0 & 0b0100 != 0,
            CWD_TAG => self.0 & 0b1000 != 0,
            _ => true,
        }
    }
}
