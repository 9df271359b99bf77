//! The wrappers peeled off a command (`sudo`, `env`, `timeout`, `nice`, `xargs`…): how each
//! reads its options, and the peel stages of a command's words.

use super::{basename, is_assignment};

mod table;
use table::RUNNERS;
pub(super) use table::{RUNNER_SET, WRAPPER_SET, WRAPPERS};

/// How a wrapper's options are read.
pub(super) struct Wrapper {
    /// The program name (basename).
    pub(super) name: &'static str,
    /// Short options that take a value in the next word (or attached: `-uroot`).
    short_with_value: &'static str,
    /// Long options that take a value in the next word unless written `--opt=value`.
    long_with_value: &'static [&'static str],
    /// Positional words to skip after the options (`timeout`'s duration).
    positional: usize,
    /// `NAME=value` words after the options are skipped too (`env`).
    assignments: bool,
    /// Claude itself peels this wrapper when matching allow rules (only when written
    /// without options, except the ones in `claude_options_ok`).
    pub(super) claude_peels: bool,
}

/// A wrapper reading its options as given, that Claude does not peel and that takes no
/// assignments ([`Wrapper::with_assignments`], [`Wrapper::peeled_by_claude`] say otherwise).
pub(super) const fn wrapper(
    name: &'static str,
    short_with_value: &'static str,
    long_with_value: &'static [&'static str],
    positional: usize,
) -> Wrapper {
    Wrapper {
        name,
        short_with_value,
        long_with_value,
        positional,
        assignments: false,
        claude_peels: false,
    }
}

impl Wrapper {
    /// `NAME=value` words after the options are skipped too (`env`).
    pub(super) const fn with_assignments(self) -> Wrapper {
        Wrapper {
            assignments: true,
            ..self
        }
    }

    /// Claude peels this wrapper itself when matching allow rules.
    pub(super) const fn peeled_by_claude(self) -> Wrapper {
        Wrapper {
            claude_peels: true,
            ..self
        }
    }
}

/// A program that runs a command given after one of its subcommands (`uv run CMD`, `bundle
/// exec CMD`): the options after the subcommand are read as `options` reads a wrapper's.
pub(super) struct Runner {
    /// The program name (basename).
    program: &'static str,
    /// The subcommands that run a command.
    subcommands: &'static [&'static str],
    /// How the options after the subcommand are read.
    options: Wrapper,
    /// The command follows the first of these words instead (`mise exec TOOLS -- CMD`, `nix
    /// develop -c CMD`): the words before it are not the command.
    after: Option<&'static [&'static str]>,
}

/// A runner of a command after `subcommands`.
pub(super) const fn runner(
    program: &'static str,
    subcommands: &'static [&'static str],
    options: Wrapper,
    after: Option<&'static [&'static str]>,
) -> Runner {
    Runner {
        program,
        subcommands,
        options,
        after,
    }
}

/// Where the command a runner runs starts in `words` (its program first, then the
/// subcommand), or `None` when it runs none (`uv run` alone, `npm exec -c 'CMD'`, where `-c`'s
/// script is read as one).
fn runner_start(r: &Runner, words: &[&str]) -> Option<usize> {
    if !r.subcommands.contains(words.get(1)?) {
        return None;
    }
    if let Some(markers) = r.after {
        let at = words[2..].iter().position(|w| markers.contains(w))? + 2;
        return (at + 1 < words.len()).then_some(at + 1);
    }
    // The options after the subcommand, read as a wrapper's whose name is the subcommand.
    let mut start = wrapped_start(&r.options, &words[1..])? + 1;
    // `aws-vault exec PROFILE -- CMD`: a `--` after the positional words.
    if words.get(start) == Some(&"--") {
        start += 1;
    }
    (start < words.len()).then_some(start)
}

/// Short options whose value may only be attached (`xargs -i{}`, `xargs -l2`, `xargs -eEND`):
/// written alone, they take none, and the next word is the command.
const SHORT_OPTIONAL_VALUE: &[(&str, &str)] = &[("xargs", "eil"), ("parallel", "ie")];

/// Where the wrapped command starts in `words` (whose first word is the wrapper `w`), or
/// `None` when nothing is wrapped (`sudo -l`, `env` alone).
pub(super) fn wrapped_start(w: &Wrapper, words: &[&str]) -> Option<usize> {
    let mut i = 1;
    while i < words.len() {
        let word = words[i];
        if word == "--" {
            i += 1;
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            let takes_value = w.long_with_value.iter().any(|o| o[2..] == *name);
            i += if takes_value && !long.contains('=') {
                2
            } else {
                1
            };
            continue;
        }
        // `env - CMD` is `env -i CMD`.
        if word == "-" && w.name == "env" {
            i += 1;
            continue;
        }
        // `parallel CMD ::: ARGS`: no command before the separator (`parallel ::: 'rm x'`).
        if w.name == "parallel" && is_parallel_separator(word) {
            return None;
        }
        // `nice -5`, `nice -n 5`, `sudo -uroot`, `xargs -0`, `xargs -n1`, `xargs -I {}`.
        if word.len() > 1 && word.starts_with('-') {
            let flags = &word[1..];
            let optional = SHORT_OPTIONAL_VALUE
                .iter()
                .find(|(name, _)| *name == w.name)
                .map_or("", |(_, letters)| letters);
            let mut skip = 1;
            for (at, c) in flags.char_indices() {
                if optional.contains(c) {
                    break;
                }
                if w.short_with_value.contains(c) {
                    if at + c.len_utf8() == flags.len() {
                        skip = 2;
                    }
                    break;
                }
            }
            i += skip;
            continue;
        }
        if w.assignments && is_assignment(word) {
            i += 1;
            continue;
        }
        break;
    }
    if w.name == "xargs" {
        // xargs runs `echo` when given no command; nothing to peel into.
        return (i < words.len()).then_some(i);
    }
    let start = i + w.positional;
    (start < words.len()).then_some(start)
}

/// Does `word` end GNU parallel's command (`:::`, `::::`, `:::+`, `::::+`)?
pub(crate) fn is_parallel_separator(word: &str) -> bool {
    matches!(word, ":::" | "::::" | ":::+" | "::::+")
}

/// Every peel stage of `words` (the words themselves, then each wrapped command).
pub(super) fn peel_stages<'w>(words: &'w [&'w str]) -> PeelStages<'w> {
    PeelStages {
        next: Some(words),
        given: 0,
    }
}

/// The stages [`peel_stages`] gives, each found as it is asked for (no list is made: every
/// simple command is peeled several times a call, and most have one stage).
pub(crate) struct PeelStages<'w> {
    /// The stage to give next, if any.
    next: Option<&'w [&'w str]>,
    /// How many were given (at most 17: the command and 16 peels).
    given: usize,
}

impl<'w> Iterator for PeelStages<'w> {
    type Item = &'w [&'w str];

    fn next(&mut self) -> Option<&'w [&'w str]> {
        let stage = self.next.take()?;
        self.given += 1;
        if self.given < 17 {
            self.next = peeled(stage);
        }
        Some(stage)
    }
}

/// The command the wrapper at the start of `words` runs, if it is a wrapper that runs one.
fn peeled<'w>(words: &'w [&'w str]) -> Option<&'w [&'w str]> {
    let name = basename(words.first()?);
    // Most programs are no wrapper: the name set says so without a scan of the table.
    if !super::is_wrapper(name) {
        return None;
    }
    let start = match WRAPPERS.iter().find(|w| w.name == name) {
        Some(wrapper) => wrapped_start(wrapper, words)?,
        None => runner_start(RUNNERS.iter().find(|r| r.program == name)?, words)?,
    };
    Some(&words[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapper_names_are_the_wrappers_sorted() {
        let mut names: Vec<&str> = WRAPPERS.iter().map(|w| w.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names, WRAPPER_SET.names());
        let mut programs: Vec<&str> = RUNNERS.iter().map(|r| r.program).collect();
        programs.sort_unstable();
        programs.dedup();
        assert_eq!(programs, RUNNER_SET.names());
        for program in &programs {
            assert!(
                !WRAPPER_SET.contains(program),
                "{program} is a wrapper and a runner"
            );
        }
    }

    #[test]
    fn runners_run_the_command_after_their_subcommand() {
        let start = |command: &str| {
            let words: Vec<&str> = command.split(' ').collect();
            let name = words[0];
            let r = RUNNERS.iter().find(|r| r.program == name).unwrap();
            runner_start(r, &words).map(|i| words[i..].join(" "))
        };
        for (command, runs) in [
            ("uv run rm -rf X", Some("rm -rf X")),
            ("uv run -- rm -rf X", Some("rm -rf X")),
            (
                "uv run --with requests -p 3.12 python x.py",
                Some("python x.py"),
            ),
            ("uv run --with=requests pytest", Some("pytest")),
            ("uv sync", None),
            ("uv run", None),
            ("poetry run -C sub rm -rf X", Some("rm -rf X")),
            ("bundle exec rake db:drop", Some("rake db:drop")),
            ("npm exec -- rimraf X", Some("rimraf X")),
            ("npm exec -c script", None),
            ("npm install", None),
            ("pnpm dlx rimraf X", Some("rimraf X")),
            ("conda run -n base rm -rf X", Some("rm -rf X")),
            ("mise exec node@20 -- rm -rf X", Some("rm -rf X")),
            ("mise exec node@20", None),
            ("direnv exec . rm -rf X", Some("rm -rf X")),
            ("aws-vault exec prod -- rm -rf X", Some("rm -rf X")),
            ("aws-vault exec -d 1h prod rm -rf X", Some("rm -rf X")),
            ("nix develop -c rm -rf X", Some("rm -rf X")),
            (
                "nix shell nixpkgs#hello --command rm -rf X",
                Some("rm -rf X"),
            ),
            ("nix develop", None),
            ("nix run nixpkgs#hello", None),
            ("doppler run -p web -c dev -- rm -rf X", Some("rm -rf X")),
        ] {
            assert_eq!(start(command).as_deref(), runs, "{command}");
        }
    }
}
