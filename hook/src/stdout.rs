//! Writing to stdout when the reader may be gone.
//!
//! `animus-hook demo | head -3` closes the pipe after three lines; `println!` would then panic
//! (exit 101, a backtrace hint on stderr). Every command of the `animus-hook` binary writes
//! through [`out!`] and [`outln!`] instead: a closed stdout (`EPIPE`) ends the process quietly
//! with status 0, as `cat` or `grep` do; any other write error is trouble (status 2).
//! `main.rs` denies `clippy::print_stdout`, so a stray `println!` does not build.

use std::io::{self, Write};
use std::process::ExitCode;

/// Write `args` to stdout, or end the process when it cannot be written (see the module doc).
pub fn write(args: std::fmt::Arguments<'_>) {
    if let Err(error) = io::stdout().lock().write_fmt(args) {
        std::process::exit(closed(&error));
    }
}

/// The exit status for a failed write to stdout: 0 when the reader went away.
pub fn closed(error: &io::Error) -> i32 {
    if error.kind() == io::ErrorKind::BrokenPipe {
        0
    } else {
        eprintln!("animus-hook: cannot write to stdout: {error}");
        2
    }
}

/// `result` of writing to stdout as an exit status: success, or what [`closed`] says.
pub fn status(result: io::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => ExitCode::from(closed(&error) as u8),
    }
}

/// `print!` that ends the process quietly when stdout is closed.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!($($arg)*))
    };
}

/// `println!` that ends the process quietly when stdout is closed.
macro_rules! outln {
    () => {
        $crate::stdout::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};
