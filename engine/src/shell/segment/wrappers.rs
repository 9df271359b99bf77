//! The wrappers peeled off a command (`sudo`, `env`, `timeout`, `nice`, `xargs`…): how each
//! reads its options, and the peel stages of a command's words.

use super::{basename, is_assignment};

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

pub(super) const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "busybox",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "pkexec",
        short_with_value: "",
        long_with_value: &["--user"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "runuser",
        short_with_value: "ugGcs",
        long_with_value: &["--user", "--group", "--supp-group", "--command", "--shell"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "watch",
        short_with_value: "dnq",
        long_with_value: &["--differences", "--interval", "--equexit"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "setsid",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "chrt",
        short_with_value: "",
        long_with_value: &[],
        positional: 1,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "taskset",
        short_with_value: "",
        long_with_value: &[],
        positional: 1,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "sudo",
        short_with_value: "ugCDhprtTU",
        long_with_value: &[
            "--user",
            "--group",
            "--close-from",
            "--chdir",
            "--host",
            "--prompt",
            "--role",
            "--type",
            "--other-user",
            "--command-timeout",
            "--chroot",
        ],
        positional: 0,
        assignments: true,
        claude_peels: false,
    },
    Wrapper {
        name: "doas",
        short_with_value: "uC",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "env",
        short_with_value: "uCS",
        long_with_value: &[
            "--unset",
            "--chdir",
            "--split-string",
            "--default-signal",
            "--ignore-signal",
            "--block-signal",
        ],
        positional: 0,
        assignments: true,
        claude_peels: false,
    },
    Wrapper {
        name: "command",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "builtin",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "noglob",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "exec",
        short_with_value: "a",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "nohup",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "nice",
        short_with_value: "n",
        long_with_value: &["--adjustment"],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "timeout",
        short_with_value: "sk",
        long_with_value: &["--signal", "--kill-after"],
        positional: 1,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "time",
        short_with_value: "fo",
        long_with_value: &["--format", "--output"],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "stdbuf",
        short_with_value: "ioe",
        long_with_value: &["--input", "--output", "--error"],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "ionice",
        short_with_value: "cnpPu",
        long_with_value: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "xargs",
        short_with_value: "adEeIiLlnPs",
        long_with_value: &[
            "--arg-file",
            "--delimiter",
            "--eof",
            "--replace",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
];

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
        // `nice -5`, `nice -n 5`, `sudo -uroot`, `xargs -0`, `xargs -n1`.
        if word.len() > 1 && word.starts_with('-') {
            let flags = &word[1..];
            let mut skip = 1;
            for (at, c) in flags.char_indices() {
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

/// Every peel stage of `words` (the words themselves, then each wrapped command).
pub(super) fn peel_stages<'w>(words: &'w [&'w str]) -> Vec<&'w [&'w str]> {
    let mut stages = vec![words];
    let mut rest = words;
    while let Some(first) = rest.first() {
        let name = basename(first);
        let Some(wrapper) = WRAPPERS.iter().find(|w| w.name == name) else {
            break;
        };
        let Some(start) = wrapped_start(wrapper, rest) else {
            break;
        };
        rest = &rest[start..];
        stages.push(rest);
        if stages.len() > 16 {
            break;
        }
    }
    stages
}
