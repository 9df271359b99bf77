//! Running what a test needs: a CLI run bounded in its own process group (hooks, MCP servers or
//! tools it leaves behind would keep the pipes open, so the whole group is killed when it ends
//! or its deadline passes), a set-up command that must succeed, and git.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How a bounded run ended.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

/// Run `command` in its own process group with stdout and stderr captured, and wait for it at
/// most `deadline`; then kill the whole group. Fails the test when the deadline passed.
pub fn run_bounded(command: &mut Command, deadline: Duration, what: &str) -> Finished {
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    let pgid = child.id();
    let stdout = pipe(Box::new(child.stdout.take().unwrap()));
    let stderr = pipe(Box::new(child.stderr.take().unwrap()));
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().expect("wait for the CLI") {
            break (status, false);
        }
        if started.elapsed() > deadline {
            kill_group(pgid);
            break (child.wait().expect("reap the CLI"), true);
        }
        thread::sleep(Duration::from_millis(20));
    };
    kill_group(pgid);
    let finished = Finished {
        status,
        timed_out,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        elapsed: started.elapsed(),
    };
    assert!(
        !finished.timed_out,
        "{what} did not finish within {deadline:?}: {finished:#?}"
    );
    finished
}

fn pipe(mut reader: Box<dyn Read + Send>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut text = Vec::new();
        let _ = reader.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    })
}

/// SIGKILL every process of group `pgid`.
pub fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

/// Run `command` to completion and fail the test, with its stdout and stderr, unless it
/// succeeds; for set-up steps (`git`, `animus-hook compile`, `install`) whose failure would
/// leave nothing to test.
pub fn succeed(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// `git <args>` in `repo` as a test user, which must succeed; returns its stdout.
pub fn git(repo: &Path, args: &[&str]) -> String {
    let output = succeed(
        Command::new("git")
            .args(["-c", "user.name=e2e", "-c", "user.email=e2e@example.com"])
            .args(args)
            .current_dir(repo),
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A git repository in `project` with `commits` commits, each of which rewrites `work.txt`
/// (`commit <n>`), so `git reset --hard HEAD~<k>` has history to destroy.
pub fn git_history(project: &Path, commits: usize) {
    git(project, &["init", "-q"]);
    for n in 1..=commits {
        std::fs::write(project.join("work.txt"), format!("commit {n}\n")).unwrap();
        git(project, &["add", "work.txt"]);
        git(project, &["commit", "-q", "-m", &format!("c{n}")]);
    }
}

/// How many commits the branch checked out in `repo` has: a `git reset --hard HEAD~<n>` that
/// was stopped leaves it as [`git_history`] made it.
pub fn commit_count(repo: &Path) -> usize {
    git(repo, &["rev-list", "--count", "HEAD"])
        .trim()
        .parse()
        .expect("git rev-list --count prints a number")
}

/// Write `bytes` to `path` as an executable (mode 0755) from a child process, never from this
/// one. A test process spawns programs from many threads; a file it held open for writing
/// would be inherited by a sibling's child between its fork and exec, and the executable's
/// first run would then fail with ETXTBSY ("Text file busy"). In a child, the writable file
/// descriptor never exists here. The bytes reach the child through a pipe.
pub fn write_executable(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut child = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "write_executable"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .expect("sh runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(bytes)
        .expect("the bytes reach the writer");
    let status = child.wait().unwrap();
    assert!(status.success(), "cannot write {}", path.display());
}

/// Copy the executable `from` to `to` (keeping its mode) in a child process: see
/// [`write_executable`] for why not from this one.
pub fn copy_executable(from: &Path, to: &Path) {
    succeed(Command::new("cp").arg(from).arg(to));
}

/// Runs `work` on each of `jobs` (with its index) on at most `threads` threads; the results in
/// the order of `jobs`. Fails the test with `failure` when a job panicked.
pub fn parallel<T, R, F>(threads: usize, jobs: Vec<T>, failure: &str, work: F) -> Vec<R>
where
    T: Send + 'static,
    R: Send + 'static,
    F: Fn(usize, T) -> R + Send + Sync + 'static,
{
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};
    let work = Arc::new(work);
    let count = jobs.len();
    let queue = Arc::new(Mutex::new(
        jobs.into_iter().enumerate().collect::<VecDeque<_>>(),
    ));
    let done = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let (queue, done, work) = (Arc::clone(&queue), Arc::clone(&done), Arc::clone(&work));
            thread::spawn(move || {
                loop {
                    let Some((index, job)) = queue.lock().unwrap().pop_front() else {
                        break;
                    };
                    let result = work(index, job);
                    done.lock().unwrap().push((index, result));
                }
            })
        })
        .collect();
    let mut failed = false;
    for worker in workers {
        failed |= worker.join().is_err();
    }
    assert!(!failed, "{failure}");
    let mut done = std::mem::take(&mut *done.lock().unwrap());
    assert_eq!(done.len(), count);
    done.sort_by_key(|(index, _)| *index);
    done.into_iter().map(|(_, r)| r).collect()
}
