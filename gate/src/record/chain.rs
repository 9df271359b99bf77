//! The hash chain that makes a session log tamper-evident.
//!
//! Every record line starts with its place in the chain:
//!
//! ```text
//! {"v":1,"seq":<n>,"prev":"<64 hex>",…the record's own members…}
//! ```
//!
//! - `v` is the record format's version ([`RECORD_VERSION`]; `schemas/session-record.v1.json`);
//! - `seq` counts the records of the session from 1;
//! - `prev` is the SHA-256 of the previous record's line, its exact bytes without the newline;
//!   for `seq` 1, of the session's **anchor**: `<session>.anchor` beside the log, written once
//!   (`0600`, created atomically: a temporary file hard-linked into place, so a second hook
//!   racing to make it finds it whole) with the session id, its creation time and a random
//!   nonce, so two sessions never share a chain and a log cannot be re-rooted on another anchor.
//!
//! The writer finds the chain's tip under the log's `flock` (see [`chain_tip`]): it reads the
//! last whole line back from the end of the file, hashes it and takes its `seq`. So hooks the
//! harness runs in parallel never fork the chain: each sees the line the previous one wrote.
//!
//! A last line without its newline is a torn line (see the parent module): the next record
//! starts on a fresh line, says where the torn one is (`torn_line`), and links over it to the
//! last whole line. `verify` reports the torn line; the chain stays checkable around it.
//!
//! Everything here is async-signal-safe (plain `pread(2)`/`fstat(2)`, buffers given by the
//! caller, the engine's non-allocating [`Sha256`]): the record a fatal signal or the deadline
//! appends for an unfinished call (`emit`'s `deadline` module) is chained by the same code.
//!
//! ## What the chain proves, and what it cannot
//!
//! An edit, insertion, removal or reordering of records is found by `animus-hook verify`,
//! unless whoever made it also rewrote every later record's `prev` (and, for the first, the
//! anchor). The agent the log watches runs as the same user: the guard's self-protection rules
//! deny it the state directory, and `inject --sandbox` makes it read-only to every command. For
//! a proof that holds even against this user, keep the head digest `verify` prints somewhere
//! else: a log rewritten afterwards no longer ends in it.
//!
//! A log emptied or deleted links to its anchor again with its next record (`seq` 1):
//! `verify` names that when the record comes long after the anchor was made
//! ([`super::verify::MAX_ANCHOR_GAP_SECS`]).

use std::os::fd::RawFd;

use engine::sha256::Sha256;

use super::TornLine;

/// The record format version written in every record's `v`.
pub const RECORD_VERSION: u64 = 1;

/// The start every chained record line has, up to its `seq` digits.
pub const CHAIN_PREFIX: &[u8] = b"{\"v\":1,\"seq\":";

/// Where the next record joins the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tip {
    /// The `seq` of the last record (0: none, the next is the first).
    pub seq: u64,
    /// The digest the next record's `prev` carries.
    pub prev: [u8; 32],
    /// The log's torn last line, if any (the next record starts on a fresh line).
    pub torn: Option<TornLine>,
}

/// How far back the start of a torn last line is looked for.
pub const MAX_TORN_SCAN: u64 = 1 << 20;

/// The tip of the chain of the log open at `log`, whose anchor is open at `anchor`; `buf` is
/// scratch space for reading (any size; larger is fewer reads). Call it under the log's lock.
///
/// - An empty log: `seq` 0, `prev` the anchor's digest.
/// - Otherwise the last whole line (a torn last line skipped): its digest, and its `seq` when
///   it is a chained record (0 when it is not: a record of an older format, or junk — the
///   next record links to it all the same, and `verify` reports the break).
/// - A torn line with no whole line before it (or none within [`MAX_TORN_SCAN`] bytes): the
///   anchor, as for an empty log; `verify` reports the torn line.
///
/// Errors are `errno` values (no allocation, so a signal handler may call this).
pub fn chain_tip(log: RawFd, anchor: RawFd, buf: &mut [u8]) -> Result<Tip, i32> {
    let len = file_len(log)?;
    let from_anchor = |buf: &mut [u8], torn| -> Result<Tip, i32> {
        let anchor_len = file_len(anchor)?;
        Ok(Tip {
            seq: 0,
            prev: hash_range(anchor, 0, anchor_len, buf)?,
            torn,
        })
    };
    if len == 0 {
        return from_anchor(buf, None);
    }
    let mut last = [0u8; 1];
    pread_full(log, &mut last, len - 1)?;
    // The offset of the newline that ends the last whole line.
    let (newline, torn) = if last[0] == b'\n' {
        (len - 1, None)
    } else {
        let starts_at = line_start(log, len, buf, Some(MAX_TORN_SCAN))?;
        let torn = Some(TornLine {
            ends_at: len,
            starts_at,
        });
        match starts_at {
            Some(start) if start > 0 => (start - 1, torn),
            _ => return from_anchor(buf, torn),
        }
    };
    // The common case: the whole line is within the first read back from its end, and is
    // hashed from there.
    let first = newline.min(buf.len().min(4096) as u64);
    let chunk = &mut buf[..first as usize];
    pread_full(log, chunk, newline - first)?;
    if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
        return Ok(whole_line_tip(&chunk[i + 1..], torn));
    }
    if first == newline {
        // The log's first line, read whole.
        return Ok(whole_line_tip(chunk, torn));
    }
    let start = line_start(log, newline, buf, None)?.unwrap_or(0);
    let mut head = [0u8; 40];
    let head_len = ((newline - start) as usize).min(head.len());
    pread_full(log, &mut head[..head_len], start)?;
    Ok(Tip {
        seq: seq_of(&head[..head_len]).unwrap_or(0),
        prev: hash_range(log, start, newline, buf)?,
        torn,
    })
}

/// The tip after `line`, a whole last line in memory.
fn whole_line_tip(line: &[u8], torn: Option<TornLine>) -> Tip {
    let mut hasher = Sha256::new();
    hasher.update(line);
    Tip {
        seq: seq_of(line).unwrap_or(0),
        prev: hasher.finish(),
        torn,
    }
}

/// The `seq` of a chained record line from its first bytes (`{"v":1,"seq":<digits>,`).
pub fn seq_of(line_head: &[u8]) -> Option<u64> {
    let rest = line_head.strip_prefix(CHAIN_PREFIX)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 19 || rest.get(digits) != Some(&b',') {
        return None;
    }
    let mut seq = 0u64;
    for &d in &rest[..digits] {
        seq = seq * 10 + u64::from(d - b'0');
    }
    Some(seq)
}

/// The chain members of the record after `tip`, `{"v":1,"seq":<n>,"prev":"<hex>",`, written
/// into `out` (no allocation); the length written.
pub fn chain_prefix(tip: &Tip, out: &mut [u8; 128]) -> usize {
    let mut n = 0;
    let mut put = |bytes: &[u8], n: &mut usize| {
        out[*n..*n + bytes.len()].copy_from_slice(bytes);
        *n += bytes.len();
    };
    put(CHAIN_PREFIX, &mut n);
    let mut digits = [0u8; 20];
    let mut seq = tip.seq + 1;
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (seq % 10) as u8;
        seq /= 10;
        if seq == 0 {
            break;
        }
    }
    put(&digits[i..], &mut n);
    put(b",\"prev\":\"", &mut n);
    put(&engine::sha256::hex_digest(&tip.prev), &mut n);
    put(b"\",", &mut n);
    n
}

/// `len` of the file open at `fd`.
fn file_len(fd: RawFd) -> Result<u64, i32> {
    // SAFETY: fstat(2) into a zeroed local.
    unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut stat) != 0 {
            return Err(errno());
        }
        Ok(stat.st_size as u64)
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// `pread(2)` until `buf` is full; a file shorter than that is `EIO`.
fn pread_full(fd: RawFd, buf: &mut [u8], mut offset: u64) -> Result<(), i32> {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: the pointer and length describe the unfilled rest of `buf`.
        let n = unsafe {
            libc::pread(
                fd,
                buf[done..].as_mut_ptr().cast(),
                buf.len() - done,
                offset as libc::off_t,
            )
        };
        match n {
            n if n > 0 => {
                done += n as usize;
                offset += n as u64;
            }
            0 => return Err(libc::EIO),
            _ => {
                let e = errno();
                if e != libc::EINTR {
                    return Err(e);
                }
            }
        }
    }
    Ok(())
}

/// The SHA-256 of bytes `start..end` of `fd`, read through `buf`.
fn hash_range(fd: RawFd, start: u64, end: u64, buf: &mut [u8]) -> Result<[u8; 32], i32> {
    let mut hasher = Sha256::new();
    let mut at = start;
    while at < end {
        let n = ((end - at) as usize).min(buf.len());
        pread_full(fd, &mut buf[..n], at)?;
        hasher.update(&buf[..n]);
        at += n as u64;
    }
    Ok(hasher.finish())
}

/// The offset just after the last newline before `end` (0 when there is none): where the line
/// ending at `end` starts. `None` when `limit` bytes were scanned without finding it.
fn line_start(fd: RawFd, end: u64, buf: &mut [u8], limit: Option<u64>) -> Result<Option<u64>, i32> {
    let mut at = end;
    // A record line is usually a few KiB: read 4 KiB first, then more, up to `buf`.
    let mut chunk_len = buf.len().min(4096);
    while at > 0 {
        if limit.is_some_and(|limit| end - at >= limit) {
            return Ok(None);
        }
        let start = at.saturating_sub(chunk_len as u64);
        chunk_len = (chunk_len * 4).min(buf.len());
        let chunk = &mut buf[..(at - start) as usize];
        pread_full(fd, chunk, start)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(Some(start + i as u64 + 1));
        }
        at = start;
    }
    Ok(Some(0))
}
