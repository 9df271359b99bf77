//! The run's deadline: a one-shot `SIGALRM` timer that answers for the main path if it has not
//! answered in time, then exits.
//!
//! A signal rather than a watchdog thread: arming costs two system calls, where a thread costs a
//! clone, a stack and a malloc arena on every tool call. The handler only does what is
//! async-signal-safe — an atomic swap, one `write(2)` of a line formatted before arming, and
//! `_exit(2)`.
//!
//! Who answers is decided by one atomic flag ([`claim`]): the main path claims it just before
//! printing its decision; the handler claims it before printing the deadline's deny. If the main
//! path has claimed it, the handler returns and lets the main path finish its write (system
//! calls restart), so a decision can never be cut off half-printed.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::time::Duration;

static ANSWERED: AtomicBool = AtomicBool::new(false);
static STDOUT_PTR: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static STDOUT_LEN: AtomicUsize = AtomicUsize::new(0);
static STDERR_PTR: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static STDERR_LEN: AtomicUsize = AtomicUsize::new(0);

/// Take the right to answer; `true` for exactly one caller per process.
pub fn claim() -> bool {
    !ANSWERED.swap(true, Ordering::SeqCst)
}

/// After `deadline`, print `stdout_line` (the gate's deny, or nothing for an observer) and
/// `stderr_line`, and exit 0 — unless the main path has claimed the answer by then. Returns
/// whether the timer is armed.
pub fn arm(deadline: Duration, stdout_line: Option<String>, stderr_line: String) -> bool {
    fn leak(text: String) -> (*mut u8, usize) {
        let bytes: &'static mut [u8] = Box::leak(text.into_bytes().into_boxed_slice());
        (bytes.as_mut_ptr(), bytes.len())
    }
    let (out, out_len) = leak(stdout_line.unwrap_or_default());
    let (err, err_len) = leak(stderr_line);
    STDOUT_PTR.store(out, Ordering::SeqCst);
    STDOUT_LEN.store(out_len, Ordering::SeqCst);
    STDERR_PTR.store(err, Ordering::SeqCst);
    STDERR_LEN.store(err_len, Ordering::SeqCst);
    // SAFETY: plain libc calls with valid, initialised arguments; the handler below is
    // async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_deadline as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut()) != 0 {
            return false;
        }
        // A parent may hand the hook SIGALRM blocked (the mask is inherited across exec):
        // then the deadline would never fire and a never-closed stdin would never be answered.
        let mut alarm: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut alarm);
        libc::sigaddset(&mut alarm, libc::SIGALRM);
        if libc::pthread_sigmask(libc::SIG_UNBLOCK, &alarm, std::ptr::null_mut()) != 0 {
            return false;
        }
        let timer = libc::itimerval {
            it_interval: libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            },
            it_value: libc::timeval {
                tv_sec: deadline.as_secs() as libc::time_t,
                tv_usec: deadline.subsec_micros() as libc::suseconds_t,
            },
        };
        libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) == 0
    }
}

extern "C" fn on_deadline(_signal: libc::c_int) {
    if !claim() {
        // The main path is answering: let it finish.
        return;
    }
    // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffers were leaked before the
    // timer was armed and are never freed.
    unsafe {
        for (ptr, len, fd) in [
            (
                STDOUT_PTR.load(Ordering::SeqCst),
                STDOUT_LEN.load(Ordering::SeqCst),
                1,
            ),
            (
                STDERR_PTR.load(Ordering::SeqCst),
                STDERR_LEN.load(Ordering::SeqCst),
                2,
            ),
        ] {
            let mut written = 0;
            while written < len {
                let n = libc::write(fd, ptr.add(written).cast(), len - written);
                if n <= 0 {
                    break;
                }
                written += n as usize;
            }
        }
        libc::_exit(0);
    }
}
