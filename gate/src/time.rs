//! RFC 3339 UTC timestamps without a date crate.

use std::time::{SystemTime, UNIX_EPOCH};

/// `now` as `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
pub fn rfc3339_utc(now: SystemTime) -> String {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_micros()
    )
}

/// Microseconds since the Unix epoch of an RFC 3339 time (`2026-12-04T10:00:00Z`, a fraction
/// and a `±HH:MM` offset allowed; `t` or a space for `T`), or of a date alone (its midnight,
/// UTC). `None` when it is not one.
pub fn parse_rfc3339_micros(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || !(1..=12).contains(&mo) {
        return None;
    }
    if !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, mo as u32, d as u32);
    if b.len() == 10 {
        return Some(days * 86_400_000_000);
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) || b.get(13) != Some(&b':') {
        return None;
    }
    let (h, mi) = (num(11..13)?, num(14..16)?);
    if b.get(16) != Some(&b':') {
        return None;
    }
    let sec = num(17..19)?;
    if h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut at = 19;
    let mut micros = 0i64;
    if b.get(at) == Some(&b'.') {
        let digits = b[at + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 {
            return None;
        }
        for (i, c) in b[at + 1..at + 1 + digits].iter().enumerate().take(6) {
            micros += i64::from(c - b'0') * 10i64.pow(5 - i as u32);
        }
        at += 1 + digits;
    }
    let offset_secs = match b.get(at..)? {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), rest @ ..] if rest.len() == 5 && rest[2] == b':' => {
            let oh = num(at + 1..at + 3)?;
            let om = num(at + 4..at + 6)?;
            let off = oh * 3600 + om * 60;
            if *sign == b'+' { off } else { -off }
        }
        _ => return None,
    };
    let secs = days * 86_400 + h * 3600 + mi * 60 + sec - offset_secs;
    Some(secs * 1_000_000 + micros)
}

/// (year, month, day) → days since 1970-01-01, proleptic Gregorian (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn known_instants() {
        assert_eq!(rfc3339_utc(UNIX_EPOCH), "1970-01-01T00:00:00.000000Z");
        let t = UNIX_EPOCH + Duration::from_micros(951_782_400_000_001); // leap day 2000
        assert_eq!(rfc3339_utc(t), "2000-02-29T00:00:00.000001Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_796_219_999);
        assert_eq!(rfc3339_utc(t), "2026-12-02T13:59:59.000000Z");
    }

    #[test]
    fn parsing_agrees_with_formatting() {
        for micros in [
            0i64,
            951_782_400_000_001,
            1_796_219_999_123_456,
            4_102_444_800_000_000,
        ] {
            let text = rfc3339_utc(UNIX_EPOCH + Duration::from_micros(micros as u64));
            assert_eq!(parse_rfc3339_micros(&text), Some(micros), "{text}");
        }
        assert_eq!(
            parse_rfc3339_micros("2026-12-02T15:59:59+02:00"),
            Some(1_796_219_999_000_000)
        );
        assert_eq!(
            parse_rfc3339_micros("2026-12-02T13:59:59.5Z"),
            Some(1_796_219_999_500_000)
        );
        assert_eq!(
            parse_rfc3339_micros("2026-12-02"),
            Some(1_796_169_600_000_000)
        );
        for bad in [
            "",
            "2026-13-01",
            "2026-12-02T25:00:00Z",
            "2026-12-02T10:00:00",
            "yesterday",
        ] {
            assert_eq!(parse_rfc3339_micros(bad), None, "{bad}");
        }
    }
}
