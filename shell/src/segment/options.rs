//! Options normalised per program: the **normal form** of a segment, which pack rules can
//! rely on. For the programs in [`PROGRAMS`] (`rm`, `git`, `chmod`, `chown`, `chgrp`),
//! every peel stage of a segment gets one more generous text (deny and ask only) in which:
//!
//! - a cluster of short options is split and each option is written by its full long name
//!   when it has one: `rm -fr x` → `rm --force --recursive x`, `rm -Rf` and `rm -r -f` alike;
//!   `git clean -fdx` → `git clean --force -d -x` (`-d`, `-x` have no long name);
//! - a long option abbreviated as the program accepts it (GNU `getopt_long`, git's
//!   parse-options: a unique prefix) is written in full: `rm --recur --forc` →
//!   `rm --recursive --force`, `git reset --har` → `git reset --hard`. An ambiguous prefix
//!   is left as written: the program refuses it (`git push --forc` is ambiguous between
//!   `--force-with-lease` and `--force-if-includes` in git 2.47, measured);
//! - an option's value follows it: `--name value` when it was a separate word,
//!   `--name=value` when it was attached (`-mmsg` → `--message=msg`); a cluster holding a
//!   letter the table does not know is left as written (`chmod -w f` keeps its mode);
//! - the words after `--` are operands, kept as written after the `--`;
//! - for `git`: the global options (`-C dir`, `-c k=v`, `--git-dir[=]dir`, `--work-tree`,
//!   `--no-pager`, `--bare`, …) are dropped, so the subcommand follows `git` directly, and the
//!   program and subcommand are lower-cased (`GIT CHECKOUT -- f` → `git checkout -- f`: on
//!   a case-insensitive file system, macOS's default, `GIT` runs git; reading it as git can
//!   only add a deny). `git -C repo reset --har` → `git reset --hard`.
//!
//! An `rm` that both recurses and forces also gets its short spelling, `rm -rf` then its other
//! words ([`rm_short_form`]): a deny written `rm -rf` sees `rm -fr`, `rm -Rf`, `rm --recur
//! --forc`.
//!
//! The words otherwise keep their order, so a rule still tells `git checkout -- f` from
//! `git checkout main`. The tables are data: one spec string per program or git subcommand
//! (git's from `git <subcommand> -h` of git 2.47).

use super::options_git::{GIT_GLOBAL, GIT_SUBCOMMANDS};

/// How an option takes a value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Value {
    /// None.
    No,
    /// In the next word, or attached (`-mmsg`, `--message=msg`).
    Required,
    /// Only attached (`--color=always`, `-S<key>`).
    Optional,
}

/// One option of a spec: a token `[S/]long[!][=|?]` (`f/force!`: `-f` is `--force`, which has
/// a `--no-force`), or `-S[=]` for a short option with no long name.
#[derive(Clone, Copy, Debug)]
struct Opt<'t> {
    short: Option<char>,
    long: &'t str,
    negatable: bool,
    value: Value,
}

fn parse_token(token: &str) -> Opt<'_> {
    let (token, value) = if let Some(t) = token.strip_suffix('=') {
        (t, Value::Required)
    } else if let Some(t) = token.strip_suffix('?') {
        (t, Value::Optional)
    } else {
        (token, Value::No)
    };
    let (token, negatable) = match token.strip_suffix('!') {
        Some(t) => (t, true),
        None => (token, false),
    };
    if let Some(short) = token.strip_prefix('-') {
        return Opt {
            short: short.chars().next(),
            long: "",
            negatable,
            value,
        };
    }
    let (short, long) = match token.split_once('/') {
        Some((s, l)) => (s.chars().next(), l),
        None => (None, token),
    };
    Opt {
        short,
        long,
        negatable,
        value,
    }
}

fn options(spec: &str) -> impl Iterator<Item = Opt<'_>> + Clone {
    spec.split_ascii_whitespace().map(parse_token)
}

/// Programs with an option table: name, spec, whether long options may be abbreviated.
const PROGRAMS: &[(&str, &str)] = &[
    (
        "rm",
        "d/dir f/force -i -I interactive? no-preserve-root one-file-system preserve-root? \
         r/recursive R/recursive v/verbose help version",
    ),
    (
        "chmod",
        "c/changes f/silent quiet v/verbose no-preserve-root preserve-root reference= \
         R/recursive help version",
    ),
    (
        "chown",
        "c/changes f/silent quiet v/verbose dereference h/no-dereference from= \
         no-preserve-root preserve-root reference= R/recursive -H -L -P help version",
    ),
    (
        "chgrp",
        "c/changes f/silent quiet v/verbose dereference h/no-dereference \
         no-preserve-root preserve-root reference= R/recursive -H -L -P help version",
    ),
];

/// The normal form of `words` (program first), when its program has a table and the form
/// differs from the words; `None` otherwise (decided without allocating for other programs).
pub fn normal_form(words: &[&str]) -> Option<Vec<String>> {
    let program = super::basename(words.first()?);
    let out = if program.eq_ignore_ascii_case("git") {
        git_normal_form(&words[1..])?
    } else {
        let (_, spec) = PROGRAMS.iter().find(|(name, _)| *name == program)?;
        let mut out = vec![program.to_string()];
        normalise(&words[1..], spec, &mut out);
        out
    };
    (out.iter().map(String::as_str).ne(words.iter().copied())).then_some(out)
}

/// The short spelling of an `rm` normal form that both recurses and forces: `rm -rf`, then
/// its other words (`rm -fr x`, `rm -Rf x`, `rm --recur --forc x` → `rm -rf x`), so a deny
/// written `rm -rf` (a Claude `Bash(rm -rf:*)`) sees every spelling. `None` otherwise.
pub fn rm_short_form(normal: &[String]) -> Option<Vec<String>> {
    if normal.first().map(String::as_str) != Some("rm") {
        return None;
    }
    let end = normal
        .iter()
        .position(|w| w == "--")
        .unwrap_or(normal.len());
    let options = &normal[1..end];
    if !options.iter().any(|w| w == "--recursive") || !options.iter().any(|w| w == "--force") {
        return None;
    }
    let mut out = vec!["rm".to_string(), "-rf".to_string()];
    out.extend(
        normal[1..]
            .iter()
            .enumerate()
            .filter(|(i, w)| *i + 1 >= end || !matches!(w.as_str(), "--recursive" | "--force"))
            .map(|(_, w)| w.clone()),
    );
    Some(out)
}

/// `git [GLOBAL…] SUBCOMMAND ARGS…` → `git subcommand ARGS…` (ARGS normalised when the
/// subcommand has a table).
fn git_normal_form(rest: &[&str]) -> Option<Vec<String>> {
    let mut i = 0;
    while let Some(word) = rest.get(i) {
        let Some(flag) = word.strip_prefix('-') else {
            break;
        };
        let (name, attached) = match flag.strip_prefix('-') {
            Some(long) => match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            },
            None => (flag, false),
        };
        let Some(opt) = options(GIT_GLOBAL).find(|o| {
            if flag.starts_with('-') {
                o.long == name
            } else {
                o.short
                    .is_some_and(|s| name.len() == s.len_utf8() && name.starts_with(s))
            }
        }) else {
            // An unknown global option: git refuses it; nothing to normalise.
            return None;
        };
        i += if opt.value == Value::Required && !attached {
            2
        } else {
            1
        };
    }
    let subcommand = rest.get(i)?.to_ascii_lowercase();
    let mut out = vec!["git".to_string(), subcommand];
    match GIT_SUBCOMMANDS.iter().find(|(name, _)| *name == out[1]) {
        Some((_, spec)) => normalise(&rest[i + 1..], spec, &mut out),
        None => out.extend(rest[i + 1..].iter().map(|w| w.to_string())),
    }
    Some(out)
}

/// The long option `name` (without `--`, maybe `no-`-prefixed) of `spec` resolves to: its
/// full name, exact or by a unique prefix, and how it takes a value; `None` when unknown or
/// ambiguous.
fn long_option(spec: &str, name: &str) -> Option<(String, Value)> {
    let negated = name.strip_prefix("no-");
    let mut found: Option<(String, Value)> = None;
    let mut ambiguous = false;
    for opt in options(spec).filter(|o| !o.long.is_empty()) {
        if opt.long == name {
            return Some((opt.long.to_string(), opt.value));
        }
        if opt.negatable && negated == Some(opt.long) {
            return Some((format!("no-{}", opt.long), Value::No));
        }
        let candidate = if opt.long.starts_with(name) {
            Some((opt.long.to_string(), opt.value))
        } else if opt.negatable && negated.is_some_and(|n| opt.long.starts_with(n)) {
            Some((format!("no-{}", opt.long), Value::No))
        } else {
            None
        };
        if let Some(candidate) = candidate {
            match &found {
                Some(f) if f.0 != candidate.0 => ambiguous = true,
                Some(_) => {}
                None => found = Some(candidate),
            }
        }
    }
    (!ambiguous).then_some(found).flatten()
}

/// Normalise the arguments `args` by `spec` onto `out`.
fn normalise(args: &[&str], spec: &str, out: &mut Vec<String>) {
    let mut i = 0;
    while i < args.len() {
        let word = args[i];
        i += 1;
        if word == "--" {
            out.extend(args[i - 1..].iter().map(|w| w.to_string()));
            return;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            match long_option(spec, name) {
                Some((full, kind)) => match value {
                    Some(v) => out.push(format!("--{full}={v}")),
                    None => {
                        out.push(format!("--{full}"));
                        if kind == Value::Required
                            && let Some(next) = args.get(i)
                        {
                            out.push(next.to_string());
                            i += 1;
                        }
                    }
                },
                None => out.push(word.to_string()),
            }
            continue;
        }
        let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) else {
            out.push(word.to_string());
            continue;
        };
        // Every letter up to the first that takes a value must be known; else as written.
        let mut expanded = Vec::new();
        let mut known = true;
        for (at, c) in cluster.char_indices() {
            let Some(opt) = options(spec).find(|o| o.short == Some(c)) else {
                known = false;
                break;
            };
            let name = if opt.long.is_empty() {
                format!("-{c}")
            } else {
                format!("--{}", opt.long)
            };
            let rest = &cluster[at + c.len_utf8()..];
            match opt.value {
                Value::No => expanded.push(name),
                _ if !rest.is_empty() => {
                    expanded.push(if opt.long.is_empty() {
                        format!("{name}{rest}")
                    } else {
                        format!("{name}={rest}")
                    });
                    break;
                }
                Value::Optional => expanded.push(name),
                Value::Required => {
                    expanded.push(name);
                    if let Some(next) = args.get(i) {
                        expanded.push(next.to_string());
                        i += 1;
                    }
                }
            }
        }
        if known {
            out.extend(expanded);
        } else {
            out.push(word.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal(command: &str) -> String {
        let words: Vec<&str> = command.split(' ').collect();
        normal_form(&words).map_or_else(|| command.to_string(), |w| w.join(" "))
    }

    #[test]
    fn rm_options_read_alike() {
        for command in [
            "rm -rf x",
            "rm -fr x",
            "rm -Rf x",
            "rm -r -f x",
            "rm --recur --forc x",
            "rm --recursive --force x",
            "rm -R --f x",
        ] {
            let got = normal(command);
            assert!(
                got.contains("--recursive") && got.contains("--force") && got.ends_with(" x"),
                "{command}: {got}"
            );
        }
        assert_eq!(normal("rm -fr x"), "rm --force --recursive x");
        assert_eq!(normal("rm -- -rf"), "rm -- -rf");
        assert_eq!(normal("rm -rf -- -x"), "rm --recursive --force -- -x");
        // Ambiguous (`--verbose`, `--version`): left as written, rm refuses it.
        assert_eq!(normal("rm --ver x"), "rm --ver x");
        assert_eq!(normal("rm --no x"), "rm --no-preserve-root x");
        assert_eq!(normal("/bin/rm -rf x"), "rm --recursive --force x");
        assert_eq!(normal("ls -la"), "ls -la");
        let short = |command: &str| {
            let words: Vec<&str> = command.split(' ').collect();
            normal_form(&words)
                .and_then(|n| rm_short_form(&n))
                .map(|w| w.join(" "))
        };
        assert_eq!(short("rm -fr x").unwrap(), "rm -rf x");
        assert_eq!(
            short("rm --recur --forc -v x").unwrap(),
            "rm -rf --verbose x"
        );
        assert_eq!(short("rm -R -f -- -x").unwrap(), "rm -rf -- -x");
        assert_eq!(short("rm -r x"), None);
    }

    #[test]
    fn git_subcommands_are_found_and_options_spelled_in_full() {
        for (command, want) in [
            ("git reset --har", "git reset --hard"),
            ("git reset --h HEAD", "git reset --hard HEAD"),
            ("git -C repo reset --hard", "git reset --hard"),
            (
                "git --git-dir=.git --work-tree . reset --hard",
                "git reset --hard",
            ),
            (
                "git --git-dir .git -c a=b --no-pager reset --hard",
                "git reset --hard",
            ),
            ("git --bare -P reset --merge", "git reset --merge"),
            ("git clean --forc -d", "git clean --force -d"),
            ("git clean -fdx", "git clean --force -d -x"),
            ("git clean -xdf", "git clean -x -d --force"),
            ("git push -f origin main", "git push --force origin main"),
            ("git push --forc", "git push --forc"),
            ("git push --force-w", "git push --force-with-lease"),
            ("git push --no-verify -f", "git push --no-verify --force"),
            ("git push -n -f", "git push --dry-run --force"),
            ("GIT CHECKOUT -- f", "git checkout -- f"),
            ("git checkout -f main", "git checkout --force main"),
            ("git checkout -b x", "git checkout -b x"),
            ("git commit -mwip -a", "git commit --message=wip --all"),
            ("git commit -m 'x y'", "git commit --message 'x y'"),
            ("git branch -D x", "git branch -D x"),
            ("git branch -d -f x", "git branch --delete --force x"),
            (
                "git worktree remove --forc w",
                "git worktree remove --force w",
            ),
            ("git stash drop", "git stash drop"),
            ("git status", "git status"),
        ] {
            assert_eq!(normal(command), want, "{command}");
        }
        // An unknown global option: git refuses the command.
        assert_eq!(normal("git --nope reset --har"), "git --nope reset --har");
    }

    #[test]
    fn chmod_modes_stay_modes() {
        assert_eq!(normal("chmod -R 777 /"), "chmod --recursive 777 /");
        assert_eq!(normal("chmod -w f"), "chmod -w f");
        assert_eq!(normal("chown --recur u /"), "chown --recursive u /");
        assert_eq!(
            normal("chgrp -Rh g /"),
            "chgrp --recursive --no-dereference g /"
        );
    }

    #[test]
    fn every_git_spec_token_is_well_formed() {
        for (name, spec) in GIT_SUBCOMMANDS
            .iter()
            .chain(PROGRAMS)
            .chain(std::iter::once(&("git", GIT_GLOBAL)))
        {
            for opt in options(spec) {
                assert!(
                    opt.short.is_some() || !opt.long.is_empty(),
                    "{name}: {opt:?}"
                );
                assert!(
                    opt.long
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-'),
                    "{name}: {opt:?}"
                );
            }
        }
    }
}
