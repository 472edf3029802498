//! Reading a token table (`*.bpe`, written by `scripts/bpe-tables.mjs`).
//!
//! Format, version 1 (integers little-endian; `varint` is unsigned LEB128, at most 5 bytes):
//!
//! | field | size | meaning |
//! |---|---|---|
//! | magic | 4 | `SBPE` |
//! | version | 1 | `1` |
//! | pattern | 1 | split pattern: `1` cl100k, `2` o200k ([`Pattern`]) |
//! | name | 1 + n | length, then ASCII (`o200k_base`) |
//! | unicode | 1 + n | length, then ASCII: the Unicode version the classes come from (`17.0`) |
//! | tokens | 4 | `N`, the number of tokens; ranks are `0..N` |
//! | runs | 4 | `R`, the number of class runs |
//! | class runs | R × (varint, 1) | `(length, class)`: consecutive code point runs from U+0000 that cover U+0000..=U+10FFFF exactly; class numbers as in `pretok` (`0` other, `1` `\r\n`, `2` other `\s`, `3` Lu Lt, `4` Ll, `5` Lm Lo, `6` M, `7` N) |
//! | left | 3 × N | per rank, a 24-bit number as three planes: every bits 16–23, then every bits 8–15, then every bits 0–7 |
//! | right | 3 × N | the same |
//!
//! Token `r` is the single byte `right` when `left` is `0xFFFFFF`, else the bytes of token `left`
//! followed by those of token `right`, both ranks below `r` (every BPE token but the single bytes
//! joins two earlier ones; of the possible splits the generator picks the smallest rank sum).
//! Tokens are at most 255 bytes long. Nothing may follow.
//!
//! Why this layout: ranks in byte planes gzip 17% smaller than the tokens' bytes grouped by
//! their first two bytes, themselves 12% smaller than the bytes in rank order. Sizes (raw /
//! `gzip -9` / brotli 11): o200k_base 1,206,535 / 728,357 / 703,682 bytes; cl100k_base
//! 608,084 / 344,172 / 329,057. o200k_base stays above 500 KiB gzip: its token bytes alone,
//! sorted and front-coded with the ranks dropped, already gzip to 377 KiB, and saying which rank
//! each sorted token has takes up to log2(200,000!) bits, about 400 KB more.
//!
//! Every error is a [`BpeError`]; no input makes the reader panic.

use super::pretok::{Classes, Pattern};
use super::BpeError;

/// The first bytes of every table.
pub const MAGIC: &[u8; 4] = b"SBPE";
/// The format version this reader understands.
pub const VERSION: u8 = 1;
/// `left` of a one-byte token.
pub const SINGLE: u32 = 0xff_ffff;

/// A decoded table.
pub struct Table {
    /// The split pattern.
    pub pattern: Pattern,
    /// The encoding's name (`o200k_base`).
    pub name: String,
    /// The Unicode version of the classes.
    pub unicode: String,
    /// The class of every code point.
    pub classes: Classes,
    /// The tokens' bytes, concatenated in rank order.
    pub bytes: Vec<u8>,
    /// Where each token starts in `bytes`; `offsets[N]` is `bytes.len()`.
    pub offsets: Vec<u32>,
}

/// Decodes a table.
pub fn decode(data: &[u8]) -> Result<Table, BpeError> {
    let mut r = Reader { data, pos: 0 };
    if r.take(4).map_err(|_| BpeError::BadMagic)? != MAGIC {
        return Err(BpeError::BadMagic);
    }
    let version = r.u8()?;
    if version != VERSION {
        return Err(BpeError::Version(version));
    }
    let pattern_id = r.u8()?;
    let pattern = Pattern::from_id(pattern_id).ok_or(BpeError::Pattern(pattern_id))?;
    let name = r.ascii()?;
    let unicode = r.ascii()?;
    let n = r.u32()?;
    if n > super::MAX_TOKENS {
        return Err(BpeError::TooManyTokens(n));
    }
    let n = n as usize;
    let run_count = r.u32()? as usize;
    // Each run takes at least two bytes: refuse a count the data cannot hold before allocating.
    if run_count > r.left() / 2 {
        return Err(BpeError::Truncated);
    }
    let mut runs = Vec::with_capacity(run_count);
    for _ in 0..run_count {
        let len = r.varint()?;
        let class = r.u8()?;
        runs.push((len, class));
    }
    let classes = Classes::from_runs(&runs).ok_or(BpeError::Classes)?;
    let planes = r.take(n.checked_mul(6).ok_or(BpeError::Truncated)?)?;
    if r.left() > 0 {
        return Err(BpeError::Trailing(r.left()));
    }
    let plane = |k: usize| &planes[k * n..(k + 1) * n];
    let (l2, l1, l0, r2, r1, r0) = (plane(0), plane(1), plane(2), plane(3), plane(4), plane(5));
    let half = |hi: &[u8], mid: &[u8], lo: &[u8], i: usize| {
        usize::from(hi[i]) << 16 | usize::from(mid[i]) << 8 | usize::from(lo[i])
    };
    // Lengths first, to size the buffer (and to check every token before copying any).
    let mut lens = vec![0u8; n];
    let mut total_len = 0;
    for i in 0..n {
        let (left, right) = (half(l2, l1, l0, i), half(r2, r1, r0, i));
        let len = if left == SINGLE as usize {
            if right > 255 {
                return Err(BpeError::BadToken(i as u32));
            }
            1
        } else if left < i && right < i {
            usize::from(lens[left]) + usize::from(lens[right])
        } else {
            return Err(BpeError::BadToken(i as u32));
        };
        lens[i] = u8::try_from(len).map_err(|_| BpeError::LongToken(i as u32))?;
        total_len += len;
    }
    // Parts are copied eight bytes at a time (a few bytes each: a `memory.copy` per part costs
    // a call into the engine), into a buffer with eight bytes of slack: what a word writes past
    // the part is overwritten by the next token, or cut off at the end.
    let mut bytes = vec![0u8; total_len + 8];
    let mut offsets = vec![0u32; n + 1];
    let mut at = 0;
    for i in 0..n {
        let (left, right) = (half(l2, l1, l0, i), half(r2, r1, r0, i));
        offsets[i] = at as u32;
        if left == SINGLE as usize {
            bytes[at] = right as u8;
            at += 1;
        } else {
            for part in [left, right] {
                let from = offsets[part] as usize;
                let len = usize::from(lens[part]);
                let mut k = 0;
                while k < len {
                    let mut word = [0u8; 8];
                    word.copy_from_slice(&bytes[from + k..from + k + 8]);
                    bytes[at + k..at + k + 8].copy_from_slice(&word);
                    k += 8;
                }
                at += len;
            }
        }
    }
    bytes.truncate(total_len);
    offsets[n] = at as u32;
    Ok(Table {
        pattern,
        name,
        unicode,
        classes,
        bytes,
        offsets,
    })
}

/// A cursor over the table's bytes; running past the end is [`BpeError::Truncated`].
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], BpeError> {
        let end = self.pos.checked_add(n).ok_or(BpeError::Truncated)?;
        let out = self.data.get(self.pos..end).ok_or(BpeError::Truncated)?;
        self.pos = end;
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, BpeError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, BpeError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn varint(&mut self) -> Result<u32, BpeError> {
        let mut value: u32 = 0;
        for shift in [0, 7, 14, 21, 28] {
            let b = self.u8()?;
            value |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return if shift == 28 && b > 0x0f {
                    Err(BpeError::Classes)
                } else {
                    Ok(value)
                };
            }
        }
        Err(BpeError::Classes)
    }

    fn ascii(&mut self) -> Result<String, BpeError> {
        let len = self.u8()?;
        let text = self.take(usize::from(len))?;
        if !text.is_ascii() {
            return Err(BpeError::NotAscii);
        }
        Ok(text.iter().map(|&b| char::from(b)).collect())
    }
}
