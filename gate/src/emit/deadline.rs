//! The run's last words: a one-shot `SIGALRM` timer that answers for the main path if it has
//! not answered in time, and handlers for the fatal signals (`SIGBUS`, `SIGSEGV`, `SIGILL`,
//! `SIGFPE`, `SIGABRT`) that answer deny instead of dying with an empty answer — which the
//! harness reads as a hook error and lets the call run.
//!
//! `SIGBUS` is the one a user meets: the policy and its sidecar are mapped, and a file
//! truncated or rewritten in place under the map faults on the next page read. Reading the
//! files instead would cost a copy of megabytes on every call at 10k rules, so the maps stay
//! and the fault is answered. A stack overflow (Rust's guard page) lands here too: the handlers
//! run on an alternate signal stack — the one the Rust runtime sets up for the main thread, or,
//! in a process started without the runtime (`animus-hook-emit`), [`ALTERNATE_STACK`].
//!
//! A signal rather than a watchdog thread: arming costs a few system calls, where a thread
//! costs a clone, a stack and a malloc arena on every tool call. The handlers only do what is
//! async-signal-safe — an atomic swap, `flock(2)` and `write(2)` of lines formatted before
//! arming, and `_exit(2)`.
//!
//! Who answers is decided by one atomic flag ([`claim`]): the main path claims it just before
//! printing its decision; a handler claims it before printing its deny. If the main path has
//! claimed it, the deadline handler returns and lets the main path finish its write (system
//! calls restart), so a decision can never be cut off half-printed; a fatal signal cannot
//! return, so its handler then exits without printing.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicUsize, Ordering};
use std::time::Duration;

/// A byte string leaked for a handler to write: set once before the handler can run.
struct Prepared {
    ptr: AtomicPtr<u8>,
    len: AtomicUsize,
}

impl Prepared {
    const fn new() -> Prepared {
        Prepared {
            ptr: AtomicPtr::new(std::ptr::null_mut()),
            len: AtomicUsize::new(0),
        }
    }

    fn set(&self, text: Vec<u8>) {
        let bytes: &'static mut [u8] = Box::leak(text.into_boxed_slice());
        // Length first at zero, so a handler running in between writes nothing rather than a
        // mismatched pair.
        self.len.store(0, Ordering::SeqCst);
        self.ptr.store(bytes.as_mut_ptr(), Ordering::SeqCst);
        self.len.store(bytes.len(), Ordering::SeqCst);
    }

    /// Write it to `fd` (async-signal-safe).
    fn write_to(&self, fd: libc::c_int) {
        let ptr = self.ptr.load(Ordering::SeqCst);
        let len = self.len.load(Ordering::SeqCst);
        if !ptr.is_null() {
            write_all(fd, ptr, len);
        }
    }
}

static DEADLINE_OUT: Prepared = Prepared::new();
static DEADLINE_ERR: Prepared = Prepared::new();
static CRASH_OUT: Prepared = Prepared::new();
/// The record either handler appends to the session log when it answers for the main path
/// (a call that never finished deciding still leaves its trace), and the log's descriptor
/// (-1: none, or the main path is writing its own record).
static LAST_RECORD: Prepared = Prepared::new();
static LAST_LOG_FD: AtomicI32 = AtomicI32::new(-1);
/// The session's anchor, for chaining that record when it is the log's first.
static LAST_ANCHOR_FD: AtomicI32 = AtomicI32::new(-1);

/// The fatal signals answered.
const FATAL: [libc::c_int; 5] = [
    libc::SIGBUS,
    libc::SIGSEGV,
    libc::SIGILL,
    libc::SIGFPE,
    libc::SIGABRT,
];

static ANSWERED: AtomicBool = AtomicBool::new(false);

/// Take the right to answer; `true` for exactly one caller per process.
pub fn claim() -> bool {
    !ANSWERED.swap(true, Ordering::SeqCst)
}

/// After `deadline`, print `stdout_line` (the gate's deny, or nothing for an observer) and
/// `stderr_line`, and exit 0 — unless the main path has claimed the answer by then. Returns
/// whether the timer is armed.
pub fn arm(deadline: Duration, stdout_line: Option<String>, stderr_line: String) -> bool {
    DEADLINE_OUT.set(stdout_line.unwrap_or_default().into_bytes());
    DEADLINE_ERR.set(stderr_line.into_bytes());
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
    DEADLINE_OUT.write_to(1);
    append_last_record();
    DEADLINE_ERR.write_to(2);
    // SAFETY: _exit(2) is async-signal-safe.
    unsafe { libc::_exit(0) }
}

/// On a fatal signal, print `stdout_line` (the gate's deny, or nothing for an observer), append
/// the record set by [`set_last_record`] if any, say which signal on stderr, and exit 0.
/// Returns whether every handler is installed.
pub fn arm_crash(stdout_line: Option<String>) -> bool {
    CRASH_OUT.set(stdout_line.unwrap_or_default().into_bytes());
    let mut installed = ensure_alternate_stack();
    // SAFETY: plain libc calls with valid, initialised arguments; the handler below is
    // async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_fatal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // On the alternate stack (a stack overflow leaves none), once: a second fault inside
        // the handler takes the default action.
        action.sa_flags = libc::SA_ONSTACK | libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in FATAL {
            installed &= libc::sigaction(signal, &action, std::ptr::null_mut()) == 0;
            libc::sigaddset(&mut set, signal);
        }
        // As with SIGALRM: a blocked synchronous fault would kill the process unanswered.
        installed &= libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) == 0;
    }
    installed
}

/// Bytes of [`ALTERNATE_STACK`]: the fatal handlers need a few KiB (a 512-byte and a 128-byte
/// buffer, `pread`, `write`) beside the kernel's signal frame (~3.5 KiB with AVX-512 state);
/// the Rust runtime gives its main thread 8 KiB. Untouched pages of it cost nothing.
const ALTERNATE_STACK_BYTES: usize = 64 * 1024;

/// The alternate signal stack of a process the Rust runtime did not start: zero-initialised,
/// so it lies in `.bss` and is faulted in only if a handler ever runs on it.
#[repr(C, align(64))]
struct AlternateStack(std::cell::UnsafeCell<[u8; ALTERNATE_STACK_BYTES]>);

// SAFETY: only the kernel writes it, while delivering a signal to the one thread that
// registered it; Rust code never reads or writes it.
unsafe impl Sync for AlternateStack {}

static ALTERNATE_STACK: AlternateStack =
    AlternateStack(std::cell::UnsafeCell::new([0; ALTERNATE_STACK_BYTES]));

/// Give this thread [`ALTERNATE_STACK`] unless it has an alternate signal stack already (the
/// Rust runtime's); returns whether it has one. Without it a stack overflow would kill the
/// process unanswered: the handler has no stack left to run on.
fn ensure_alternate_stack() -> bool {
    // SAFETY: sigaltstack(2) with a null new stack only reports the current one into an
    // initialised `stack_t`; the stack registered is a static, valid for the process's life,
    // of the size given, and used by no one else.
    unsafe {
        let mut current: libc::stack_t = std::mem::zeroed();
        if libc::sigaltstack(std::ptr::null(), &mut current) != 0 {
            return false;
        }
        if current.ss_flags & libc::SS_DISABLE == 0 {
            return true;
        }
        let stack = libc::stack_t {
            ss_sp: ALTERNATE_STACK.0.get().cast(),
            ss_flags: 0,
            ss_size: ALTERNATE_STACK_BYTES,
        };
        libc::sigaltstack(&stack, std::ptr::null_mut()) == 0
    }
}

/// The record (without its chain members) a fatal signal or the deadline appends to the
/// session log through `fd`, chained from the anchor open at `anchor` when it is the first;
/// both stay open until the process exits (the main path appends its own record through its
/// own descriptors, and sets -1 first).
pub fn set_last_record(fd: libc::c_int, anchor: libc::c_int, line: Vec<u8>) {
    LAST_LOG_FD.store(-1, Ordering::SeqCst);
    LAST_RECORD.set(line);
    LAST_ANCHOR_FD.store(anchor, Ordering::SeqCst);
    LAST_LOG_FD.store(fd, Ordering::SeqCst);
}

extern "C" fn on_fatal(signal: libc::c_int) {
    if claim() {
        CRASH_OUT.write_to(1);
    }
    append_last_record();
    let name: &[u8] = match signal {
        libc::SIGBUS => b"SIGBUS (a mapped policy file changed under the hook)",
        libc::SIGSEGV => b"SIGSEGV",
        libc::SIGILL => b"SIGILL",
        libc::SIGFPE => b"SIGFPE",
        libc::SIGABRT => b"SIGABRT",
        _ => b"a fatal signal",
    };
    let note: &[u8] = b"animus-hook emit: crashed on ";
    write_all(2, note.as_ptr(), note.len());
    write_all(2, name.as_ptr(), name.len());
    write_all(2, b"\n".as_ptr(), 1);
    // SAFETY: _exit(2) is async-signal-safe; returning would re-run the faulting instruction.
    unsafe { libc::_exit(0) }
}

/// Append the record set by [`set_last_record`], if any, under the log's lock, chained like
/// every record ([`crate::record::chain`], which is async-signal-safe: a stack buffer, `pread`,
/// no allocation). After a torn last line it starts on a fresh line, without the `torn_line`
/// member the main path adds (nothing is formatted into the record in a signal handler);
/// `verify` reports the torn line all the same.
fn append_last_record() {
    use crate::record::chain::{chain_prefix, chain_tip};
    let fd = LAST_LOG_FD.load(Ordering::SeqCst);
    if fd < 0 {
        return;
    }
    let anchor = LAST_ANCHOR_FD.load(Ordering::SeqCst);
    // SAFETY: flock(2) is a plain system call on a descriptor this process keeps open.
    unsafe { libc::flock(fd, libc::LOCK_EX) };
    let mut scratch = [0u8; 512];
    let Ok(tip) = chain_tip(fd, anchor, &mut scratch) else {
        // The end of the log cannot be read: an unchained record would only be reported as
        // one; the deny (or silence) on stdout stands, the record is left out.
        return;
    };
    if tip.torn.is_some() {
        write_all(fd, b"\n".as_ptr(), 1);
    }
    let mut prefix = [0u8; 128];
    let n = chain_prefix(&tip, &mut prefix);
    let ptr = LAST_RECORD.ptr.load(Ordering::SeqCst);
    let len = LAST_RECORD.len.load(Ordering::SeqCst);
    if ptr.is_null() || len < 2 {
        return;
    }
    // The chain members, then the record after its `{`: two writes, both under the lock
    // (the fatal handlers run on the small alternate signal stack: no line-sized buffer).
    write_all(fd, prefix.as_ptr(), n);
    // SAFETY: `ptr` points at `len` readable bytes that are never freed; `len >= 2`.
    write_all(fd, unsafe { ptr.add(1) }, len - 1);
}

/// `write(2)` all of `len` bytes at `ptr` to `fd`, giving up on an error (async-signal-safe).
fn write_all(fd: libc::c_int, ptr: *const u8, len: usize) {
    let mut written = 0;
    while written < len {
        // SAFETY: `ptr` points at `len` readable bytes that are never freed.
        let n = unsafe { libc::write(fd, ptr.add(written).cast(), len - written) };
        if n <= 0 {
            break;
        }
        written += n as usize;
    }
}
