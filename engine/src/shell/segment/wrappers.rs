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
        name: "flock",
        short_with_value: "wEc",
        long_with_value: &["--timeout", "--wait", "--conflict-exit-code", "--command"],
        positional: 1,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "strace",
        short_with_value: "abeEIoOpPsSuUX",
        long_with_value: &[
            "--output",
            "--expr",
            "--env",
            "--attach",
            "--user",
            "--string-limit",
            "--columns",
            "--signal",
            "--trace",
            "--trace-path",
            "--status",
            "--quiet",
            "--decode-fds",
            "--summary-sort-by",
            "--output-separately",
            "--seccomp-bpf",
        ],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "ltrace",
        short_with_value: "aAeEfLnopsuxXD",
        long_with_value: &["--align", "--output", "--library", "--indent"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "fakeroot",
        short_with_value: "lsib",
        long_with_value: &[
            "--lib",
            "--faked",
            "--save-file",
            "--load-file",
            "--fd-base",
        ],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "chroot",
        short_with_value: "",
        long_with_value: &["--userspec", "--groups"],
        positional: 1,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "unshare",
        short_with_value: "SGRw",
        long_with_value: &[
            "--setuid",
            "--setgid",
            "--root",
            "--wd",
            "--propagation",
            "--setgroups",
            "--map-user",
            "--map-group",
            "--map-users",
            "--map-groups",
            "--kill-child",
        ],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "systemd-run",
        short_with_value: "upEMHC",
        long_with_value: &[
            "--unit",
            "--property",
            "--description",
            "--slice",
            "--setenv",
            "--uid",
            "--gid",
            "--nice",
            "--working-directory",
            "--machine",
            "--host",
            "--on-active",
            "--on-boot",
            "--on-startup",
            "--on-unit-active",
            "--on-unit-inactive",
            "--on-calendar",
            "--path-property",
            "--socket-property",
            "--timer-property",
            "--service-type",
            "--json",
            "--capsule",
            "--expand-environment",
        ],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "nsenter",
        short_with_value: "tSG",
        long_with_value: &["--target", "--setuid", "--setgid", "--env"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "firejail",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "proot",
        short_with_value: "rbmqwk",
        long_with_value: &[
            "--rootfs",
            "--bind",
            "--mount",
            "--qemu",
            "--pwd",
            "--cwd",
            "--kernel-release",
        ],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "valgrind",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "cpulimit",
        short_with_value: "lpe",
        long_with_value: &["--limit", "--pid", "--exe"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "torsocks",
        short_with_value: "upaP",
        long_with_value: &["--user", "--pass", "--address", "--port"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "proxychains",
        short_with_value: "f",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "proxychains4",
        short_with_value: "f",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "gosu",
        short_with_value: "",
        long_with_value: &[],
        positional: 1,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "su-exec",
        short_with_value: "",
        long_with_value: &[],
        positional: 1,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "setpriv",
        short_with_value: "",
        long_with_value: &[
            "--reuid",
            "--regid",
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--pdeathsig",
            "--selinux-label",
            "--apparmor-profile",
            "--landlock-access",
            "--landlock-rule",
            "--ruid",
            "--euid",
            "--rgid",
            "--egid",
        ],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "prlimit",
        short_with_value: "p",
        long_with_value: &["--pid"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "numactl",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "eatmydata",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "nocache",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "unbuffer",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "catchsegv",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "dbus-run-session",
        short_with_value: "",
        long_with_value: &["--config-file", "--dbus-daemon"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "ssh-agent",
        short_with_value: "aEPt",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "sshpass",
        short_with_value: "pfdP",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "xvfb-run",
        short_with_value: "nsfe",
        long_with_value: &[
            "--server-num",
            "--server-args",
            "--auth-file",
            "--error-file",
            "--xauth-protocol",
        ],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "chpst",
        short_with_value: "uUe/nlLmdopfcrt",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "tini",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "dumb-init",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "caffeinate",
        short_with_value: "tw",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
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
        short_with_value: "uCSP",
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
        short_with_value: "adEILnPs",
        long_with_value: &[
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    // GNU parallel: its command runs up to the first `:::`/`::::` (what follows are its
    // arguments, which the peeled stage keeps: they are appended or put at `{}`). The
    // template is also read as shell text (`inner::parallel_scripts`).
    Wrapper {
        name: "parallel",
        short_with_value: "aCdEIjJLnNPsS",
        long_with_value: PARALLEL_LONG_WITH_VALUE,
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
];

/// GNU parallel's long options that take a value in the next word.
pub(super) const PARALLEL_LONG_WITH_VALUE: &[&str] = &[
    "--arg-file",
    "--arg-file-sep",
    "--arg-sep",
    "--basefile",
    "--bf",
    "--block",
    "--block-size",
    "--colsep",
    "--compress-program",
    "--decompress-program",
    "--delay",
    "--delimiter",
    "--env",
    "--filter",
    "--halt",
    "--halt-on-error",
    "--header",
    "--id",
    "--jobs",
    "--joblog",
    "--limit",
    "--load",
    "--max-args",
    "--max-chars",
    "--max-line-length-allowed",
    "--max-lines",
    "--max-procs",
    "--memfree",
    "--memsuspend",
    "--nice",
    "--profile",
    "--recend",
    "--recstart",
    "--res",
    "--results",
    "--retries",
    "--return",
    "--rpl",
    "--semaphorename",
    "--semaphoretimeout",
    "--seqreplace",
    "--sql",
    "--sqlmaster",
    "--sqlworker",
    "--ssh",
    "--sshdelay",
    "--sshlogin",
    "--sshloginfile",
    "--slf",
    "--st",
    "--tag-string",
    "--tagstring",
    "--ctagstring",
    "--tempdir",
    "--termseq",
    "--tf",
    "--timeout",
    "--tmpdir",
    "--transfer-file",
    "--wd",
    "--workdir",
];

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
pub(super) fn is_parallel_separator(word: &str) -> bool {
    matches!(word, ":::" | "::::" | ":::+" | "::::+")
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
