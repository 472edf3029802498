//! Timestamps in export files: ISO 8601 / RFC 3339 in UTC (`2026-12-01T09:30:00.000Z`), made from
//! and read back into milliseconds since the Unix epoch, with no clock and no time-zone data.

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number (inverse of [`days_from_civil`]).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `ms` since the epoch as `YYYY-MM-DDTHH:MM:SS.sssZ` (years 0000–9999; others are clamped).
pub fn iso(ms: i64) -> String {
    const MIN: i64 = -62_167_219_200_000; // 0000-01-01
    const MAX: i64 = 253_402_300_799_999; // 9999-12-31T23:59:59.999
    let ms = ms.clamp(MIN, MAX);
    let (days, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, m, d) = civil_from_days(days);
    let (h, rest) = (rest / 3_600_000, rest % 3_600_000);
    let (min, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z")
}

/// Milliseconds since the epoch of an RFC 3339 date-time: `YYYY-MM-DDTHH:MM[:SS[.fff…]]` then
/// `Z` or `±HH:MM` (a space may stand for `T`; `t`/`z` in either case). `None` if it is not one
/// or names an impossible date.
pub fn parse_iso(text: &str) -> Option<i64> {
    let b = text.trim().as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let digits = b.get(from..from + len)?;
        digits.iter().all(u8::is_ascii_digit).then(|| {
            digits
                .iter()
                .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'))
        })
    };
    let (y, mo, d) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) || b.get(13) != Some(&b':') {
        return None;
    }
    let (h, mi) = (num(11, 2)?, num(14, 2)?);
    let mut i = 16;
    let mut s = 0;
    let mut milli = 0;
    if b.get(i) == Some(&b':') {
        s = num(i + 1, 2)?;
        i += 3;
        if b.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let frac = &b[start..i];
            if frac.is_empty() {
                return None;
            }
            milli = frac
                .iter()
                .chain([b'0', b'0', b'0'].iter())
                .take(3)
                .fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
        }
    }
    let offset = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b.get(i + 3) == Some(&b':') => {
            let (oh, om) = (num(i + 1, 2)?, num(i + 4, 2)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let minutes = oh * 60 + om;
            if *sign == b'+' {
                minutes
            } else {
                -minutes
            }
        }
        _ => return None,
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo)
        || d < 1
        || d > days_in[(mo - 1) as usize]
        || h > 23
        || mi > 59
        || s > 60
    {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    Some((((days * 24 + h) * 60 + mi - offset) * 60 + s.min(59)) * 1000 + milli)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        let cases: &[(i64, &str)] = &[
            (0, "1970-01-01T00:00:00.000Z"),
            (1_764_581_400_000, "2025-12-01T09:30:00.000Z"),
            (951_782_400_123, "2000-02-29T00:00:00.123Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (4_102_444_800_000, "2100-01-01T00:00:00.000Z"),
        ];
        for (ms, text) in cases {
            assert_eq!(iso(*ms), *text);
            assert_eq!(parse_iso(text), Some(*ms), "{text}");
        }
    }

    #[test]
    fn other_spellings_and_refusals() {
        let cases: &[(&str, Option<i64>)] = &[
            ("2025-12-01T09:30:00Z", Some(1_764_581_400_000)),
            ("2025-12-01 09:30Z", Some(1_764_581_400_000)),
            ("2025-12-01T17:30:00+08:00", Some(1_764_581_400_000)),
            ("2025-12-01T04:30:00.5-05:00", Some(1_764_581_400_500)),
            ("2025-12-01t09:30:00.123456z", Some(1_764_581_400_123)),
            ("2025-12-01T09:30:00", None),
            ("2025-02-29T00:00:00Z", None),
            ("2025-13-01T00:00:00Z", None),
            ("2025-12-01T24:00:00Z", None),
            ("2025-12-01T09:30:00.Z", None),
            ("2025-12-01T09:30:00+8:00", None),
            ("yesterday", None),
            ("", None),
            ("2025-12-01T09:30:00Z trailing", None),
            ("１９７０-01-01T00:00:00Z", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_iso(text), *want, "{text}");
        }
    }

    #[test]
    fn round_trips() {
        let mut ms: i64 = -62_000_000_000_000;
        while ms < 253_000_000_000_000 {
            assert_eq!(parse_iso(&iso(ms)), Some(ms));
            ms += 7_777_777_777_777 / 13;
        }
    }
}
