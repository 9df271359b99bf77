//! What the Rust runtime's start-up does that `emit` relies on, for `animus-hook-emit`, which
//! starts without it (`#![no_main]`: the C library calls its `main` directly).
//!
//! The runtime's start-up (`std::rt::init`) costs ~34 µs of a ~1 ms spawn on these machines
//! (measured: an empty static binary reading its stdin, with and without it), most of it
//! finding the main thread's stack through `pthread_getattr_np`, which reads
//! `/proc/self/maps`. `emit` needs three of the things it does, done here for far less: the
//! standard descriptors open ([`start_without_runtime`]), `SIGPIPE` ignored (a harness gone
//! before the answer must not kill the hook before its record is written), and an alternate
//! signal stack for the fatal-signal handlers (a stack overflow leaves them no other; set up
//! by [`super::deadline::arm_crash`] when the process has none).

/// Make a process started without the Rust runtime what `emit` expects: descriptors 0, 1 and
/// 2 open (a closed one is opened on `/dev/null`, as the runtime does, so that the session
/// log opened later can never become the answer's stdout), and `SIGPIPE` ignored (a write to
/// a closed pipe fails with `EPIPE` instead of killing the process). A descriptor that cannot
/// be opened ends the process with exit code 2 and a message on stderr: with a standard
/// stream missing the hook could not answer as its protocol says, and exit code 2 is what a
/// harness reads as a blocking error.
pub fn start_without_runtime() {
    let closed = closed_standard_descriptors();
    for fd in (0..3).filter(|&fd| closed[fd as usize]) {
        // SAFETY: a plain open(2) of a constant NUL-terminated path; the lowest free
        // descriptor is `fd` (those below it are open or opened first).
        let opened = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
        if opened != fd {
            eprintln!(
                "animus-hook-emit: standard descriptor {fd} is closed and /dev/null cannot be \
                 opened on it"
            );
            std::process::exit(2);
        }
    }
    // SAFETY: setting a signal's disposition to ignore has no other effect.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}

/// Which of descriptors 0, 1 and 2 are closed (no allocation: async-signal-safe calls only).
fn closed_standard_descriptors() -> [bool; 3] {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    loop {
        // SAFETY: `fds` is an array of three initialised `pollfd`s; a zero timeout.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
        if n >= 0 {
            return fds.map(|p| p.revents & libc::POLLNVAL != 0);
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break;
        }
    }
    // poll(2) refused (a descriptor limit below 3): ask each descriptor.
    // SAFETY: F_GETFD on any integer only answers whether it is an open descriptor.
    [0, 1, 2].map(|fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1)
}

#[cfg(test)]
mod tests {
    use super::start_without_runtime;

    /// A descriptor closed at start is opened on `/dev/null`, in a child process (the test
    /// harness's own descriptors are left alone; the child makes only async-signal-safe calls
    /// between `fork` and `_exit`).
    #[test]
    fn a_closed_standard_descriptor_is_opened_on_dev_null() {
        let dev_null = std::fs::metadata("/dev/null").unwrap();
        let dev_null = std::os::unix::fs::MetadataExt::rdev(&dev_null);
        for closed in 0..3 {
            // SAFETY: the child only closes, polls, opens, sets a disposition, fstats and
            // exits; the parent waits for it.
            let status = unsafe {
                let pid = libc::fork();
                assert!(pid >= 0, "fork failed");
                if pid == 0 {
                    libc::close(closed);
                    start_without_runtime();
                    let mut stat: libc::stat = std::mem::zeroed();
                    let reopened = libc::fstat(closed, &mut stat) == 0
                        && stat.st_mode & libc::S_IFMT == libc::S_IFCHR
                        && stat.st_rdev == dev_null;
                    libc::_exit(if reopened { 0 } else { 1 });
                }
                let mut status = 0;
                assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
                status
            };
            assert!(
                libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
                "descriptor {closed} closed at start: not reopened on /dev/null ({status:#x})"
            );
        }
    }
}
