//! The body of a `z2` packed chat record ([`crate::packed`]): the JSON record compressed
//! with bzip2 (block sorting: on Chinese prose about 16 % smaller than DEFLATE, on English and
//! code about 12 %; its block and stream CRCs find damage) and written 63 bits to every 4
//! characters, each character one of the 55 264 code points U+0020…U+D7FF: never a surrogate
//! and never one of the C0 controls JSON escapes, so the text survives every storage and every
//! JSON round trip as it is (DEL and the C1 controls, U+007F…U+009F, do occur: JSON and storage
//! carry them unchanged).
//! A character thus carries 15.75 bits where `z1`'s carried 15.
//!
//! Self-contained (std and `bzip2` only): the pack module (`src/bin/satori-pack.rs`, run in a
//! worker by `src/web/pack-worker.js`) compiles this file directly, and so does the library.

/// Characters a body is written with: `FIRST + d` for a digit `d < RADIX`.
const FIRST: u32 = 0x20;
/// Digits per character: U+0020…U+D7FF. `RADIX⁴ ≥ 2⁶³`.
pub const RADIX: u64 = 0xD800 - FIRST as u64;
/// Bits in every group of [`GROUP`] characters.
const BITS: u32 = 63;
/// Characters per group of [`BITS`] bits.
const GROUP: usize = 4;

/// Why a body cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyError {
    /// A character outside the body's range, a count that disagrees with the lengths, bytes
    /// that are not bzip2 or fail its checks, or text of another length than the header says.
    Damaged,
}

/// `json` compressed and written as characters: the body and the compressed length in bytes.
pub fn pack(json: &str) -> (String, usize) {
    let bytes = compress(json.as_bytes());
    let mut body = String::with_capacity(chars_for(bytes.len()) * 3);
    write_chars(&bytes, &mut body);
    (body, bytes.len())
}

/// The JSON text a body holds: `compressed` bytes written in `body`, `json` bytes once unpacked.
pub fn unpack(body: &str, compressed: usize, json: usize) -> Result<String, BodyError> {
    let bytes = read_chars(body, compressed)?;
    let text = decompress(&bytes, json)?;
    String::from_utf8(text).map_err(|_| BodyError::Damaged)
}

/// `bytes` compressed with bzip2, in blocks of 100 000 bytes times the fewest hundreds that hold
/// them (at most 900 000): a small record does not make the coder take 7 MB.
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    let level = bytes.len().div_ceil(100_000).clamp(1, 9) as u32;
    let mut coder = bzip2::Compress::new(bzip2::Compression::new(level), 30);
    // bzip2's own bound: 1 % more, and 600 bytes.
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 100 + 600);
    loop {
        let read = coder.total_in() as usize;
        match coder.compress_vec(&bytes[read..], &mut out, bzip2::Action::Finish) {
            Ok(bzip2::Status::StreamEnd) => return out,
            // Never with the bound above; grow and go on if it ever is.
            Ok(_) => out.reserve(out.capacity().max(4096)),
            Err(_) => unreachable!("Finish is the only action given"),
        }
    }
}

/// The `len` bytes compressed in `bytes`: an error for anything else — more, fewer, trailing
/// bytes, or damage. Memory grows with what is actually decompressed, never with `len` alone
/// (a record's header is not trusted for an allocation).
pub fn decompress(bytes: &[u8], len: usize) -> Result<Vec<u8>, BodyError> {
    let mut coder = bzip2::Decompress::new(false);
    let mut out = Vec::with_capacity(len.min(bytes.len().saturating_mul(4)) + 1);
    loop {
        let read = coder.total_in() as usize;
        let before = (read, out.len());
        let status = coder
            .decompress_vec(&bytes[read..], &mut out)
            .map_err(|_| BodyError::Damaged)?;
        if out.len() > len {
            return Err(BodyError::Damaged);
        }
        match status {
            bzip2::Status::StreamEnd
                if out.len() == len && coder.total_in() as usize == bytes.len() =>
            {
                return Ok(out)
            }
            bzip2::Status::StreamEnd => return Err(BodyError::Damaged),
            _ if out.len() == out.capacity() => {
                out.reserve(len.saturating_sub(out.len()).saturating_add(1).min(1 << 20))
            }
            // No room was missing, yet nothing moved: the bytes end before the stream does.
            _ if (coder.total_in() as usize, out.len()) == before => {
                return Err(BodyError::Damaged)
            }
            _ => {}
        }
    }
}

/// Characters that hold `len` bytes.
pub fn chars_for(len: usize) -> usize {
    let bits = len as u64 * 8;
    (bits / u64::from(BITS)) as usize * GROUP + tail_chars((bits % u64::from(BITS)) as u32)
}

/// The fewest characters that hold a number of `bits` bits (< 63).
fn tail_chars(bits: u32) -> usize {
    let (mut held, mut n) = (1u128, 0);
    while held < 1u128 << bits {
        held *= u128::from(RADIX);
        n += 1;
    }
    n
}

/// `bytes` as characters, appended to `out`: each 63 bits (big-endian) as 4 digits, the last
/// bits as the fewest digits that hold them.
pub fn write_chars(bytes: &[u8], out: &mut String) {
    let (mut acc, mut bits) = (0u128, 0u32);
    for &b in bytes {
        acc = (acc << 8) | u128::from(b);
        bits += 8;
        if bits >= BITS {
            bits -= BITS;
            push_digits(out, (acc >> bits) as u64, GROUP);
            acc &= (1 << bits) - 1;
        }
    }
    if bits > 0 {
        push_digits(out, acc as u64, tail_chars(bits));
    }
}

fn push_digits(out: &mut String, mut value: u64, n: usize) {
    let mut digits = [0u32; GROUP];
    for d in digits[..n].iter_mut().rev() {
        *d = (value % RADIX) as u32;
        value /= RADIX;
    }
    for &d in &digits[..n] {
        // FIRST + d ≤ U+D7FF: always a scalar value.
        out.push(char::from_u32(FIRST + d).unwrap_or(' '));
    }
}

/// The `len` bytes [`write_chars`] wrote into `text`: an error if `text` has any other number of
/// characters, one outside the range, or a group whose number is too large for its bits.
pub fn read_chars(text: &str, len: usize) -> Result<Vec<u8>, BodyError> {
    let mut chars = text.chars();
    let mut out = Vec::with_capacity(len.min(text.len()));
    let (mut acc, mut bits) = (0u128, 0u32);
    let total = len as u64 * 8;
    let groups = total / u64::from(BITS);
    let tail = (total % u64::from(BITS)) as u32;
    let mut group = |n: usize, width: u32| -> Result<(), BodyError> {
        let mut value = 0u64;
        for _ in 0..n {
            let d = chars
                .next()
                .and_then(|c| (c as u32).checked_sub(FIRST))
                .filter(|d| u64::from(*d) < RADIX)
                .ok_or(BodyError::Damaged)?;
            value = value
                .checked_mul(RADIX)
                .and_then(|v| v.checked_add(u64::from(d)))
                .ok_or(BodyError::Damaged)?;
        }
        if width < 64 && value >> width != 0 {
            return Err(BodyError::Damaged);
        }
        acc = (acc << width) | u128::from(value);
        bits += width;
        while bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
        acc &= (1 << bits) - 1;
        Ok(())
    };
    for _ in 0..groups {
        group(GROUP, BITS)?;
    }
    if tail > 0 {
        group(tail_chars(tail), tail)?;
    }
    if chars.next().is_some() || out.len() != len {
        return Err(BodyError::Damaged);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_characters_hold_63_bits() {
        assert!((RADIX as u128).pow(4) >= 1 << 63 && RADIX == 55_264);
        assert_eq!(chars_for(0), 0);
        // 8 bytes: 64 bits = one group and 1 bit (one character).
        assert_eq!(chars_for(8), 5);
        assert_eq!(tail_chars(15), 1);
        assert_eq!(tail_chars(16), 2);
        assert_eq!(tail_chars(62), 4);
    }

    #[test]
    fn characters_round_trip_every_length_and_byte() {
        for len in 0..200usize {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 151 + 255 - len) as u8).collect();
            let mut text = String::new();
            write_chars(&bytes, &mut text);
            assert_eq!(text.chars().count(), chars_for(len), "{len}");
            assert!(text.chars().all(|c| (0x20..=0xD7FF).contains(&(c as u32))));
            assert_eq!(read_chars(&text, len), Ok(bytes.clone()), "{len}");
            // A length written in other characters, one character more: damaged. (A length
            // that fits the same characters is bzip2's to find: its stream has an end.)
            if chars_for(len + 1) != chars_for(len) {
                assert_eq!(read_chars(&text, len + 1), Err(BodyError::Damaged), "{len}");
            }
            let mut more = text.clone();
            more.push(' ');
            assert_eq!(read_chars(&more, len), Err(BodyError::Damaged), "{len}");
        }
        // All ones: the largest number of every group.
        let ones = vec![0xFF; 63];
        let mut text = String::new();
        write_chars(&ones, &mut text);
        assert_eq!(read_chars(&text, 63), Ok(ones));
    }

    #[test]
    fn characters_out_of_range_or_too_large_are_damage() {
        // The largest 4 digits are more than 63 bits; a control character; a surrogate's neighbour.
        let big: String = std::iter::repeat_n('\u{D7FF}', 4).collect();
        assert_eq!(
            read_chars(&(big.clone() + "    "), 8),
            Err(BodyError::Damaged)
        );
        // The right number of characters for 8 bytes, with a first group over 63 bits.
        assert_eq!(read_chars(&(big.clone() + " "), 8), Err(BodyError::Damaged));
        assert_eq!(read_chars("\u{1f}   ", 7), Err(BodyError::Damaged));
        assert_eq!(read_chars("\u{E000}   ", 7), Err(BodyError::Damaged));
        assert_eq!(read_chars("   ", 7), Err(BodyError::Damaged));
    }

    #[test]
    fn records_round_trip_and_damage_is_found() {
        for json in [
            String::new(),
            "{}".to_string(),
            r#"{"v":1,"title":"订单 ORD-1 ¥1,280.50","messages":[]}"#.repeat(50),
            (0..30_000)
                .map(|i| char::from_u32(0x4E00 + (i * 7919) % 20_000).unwrap())
                .collect(),
        ] {
            let (body, n) = pack(&json);
            assert_eq!(unpack(&body, n, json.len()), Ok(json.clone()));
            assert_eq!(unpack(&body, n, json.len() + 1), Err(BodyError::Damaged));
            if !json.is_empty() {
                assert_eq!(unpack(&body, n, json.len() - 1), Err(BodyError::Damaged));
            }
        }
        let json = r#"{"v":1,"title":"订单","messages":["ORD-20261201-7731"]}"#.repeat(40);
        let bytes = compress(json.as_bytes());
        assert!(
            bytes.len() * 8 < json.len(),
            "{} of {}",
            bytes.len(),
            json.len()
        );
        // Every byte changed in turn, the stream cut anywhere, bytes after its end: damaged,
        // never another text (block and stream CRCs; a change in bits the decoder does not
        // read gives the very same text).
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0xFF;
            let read = decompress(&flipped, json.len());
            assert!(
                read == Err(BodyError::Damaged) || read.as_deref() == Ok(json.as_bytes()),
                "byte {at}"
            );
            assert_eq!(
                decompress(&bytes[..at], json.len()).map(|_| ()),
                Err(BodyError::Damaged),
                "cut {at}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decompress(&longer, json.len()), Err(BodyError::Damaged));
        assert_eq!(decompress(&bytes, json.len()), Ok(json.into_bytes()));
    }

    #[test]
    fn a_header_that_claims_more_does_not_allocate_it() {
        let bytes = compress(b"short");
        assert_eq!(decompress(&bytes, usize::MAX - 1), Err(BodyError::Damaged));
    }
}
