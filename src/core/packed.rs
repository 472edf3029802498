//! Packed chat records: a chat's JSON record, deflated (zlib, RFC 1950: DEFLATE with an Adler-32
//! checksum, so damage is found, never read as another chat) and packed 15
//! bits to a character, so browser storage — which counts UTF-16 characters — holds several times
//! more history. A packed record is one header line, then the packed bytes:
//!
//! ```text
//! z1:<deflated bytes>,<JSON bytes>:<the chat's line in the chat list, as JSON>
//! <packed bytes>
//! ```
//!
//! `z1` is the format's version; the chat list line ([`IndexEntry`]) lets the list be rebuilt
//! without unpacking anything. Characters carry 15 bits each as `0x20 + value` (U+0020…U+801F):
//! never a control character, never a surrogate, so the text survives every storage and every
//! JSON round trip; the byte count drops the last character's spare bits exactly.

use crate::core::persist::IndexEntry;
pub use crate::core::persist::{is_packed, PACKED_MARK as MARK};

const BASE: u32 = 0x20;

/// What a packed record says about itself, readable without unpacking it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The chat's line in the chat list: id, title, last change.
    pub entry: IndexEntry,
    /// Length of the JSON record, bytes (UTF-8).
    pub json: usize,
    /// Length of the deflated record, bytes.
    pub deflated: usize,
}

/// Why a packed record cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackedError {
    /// No header line, or one that is not a header.
    #[error("its header is damaged")]
    Header,
    /// A character outside the packed range, too few of them, or bytes that do not inflate
    /// into the record the header describes.
    #[error("its packed data is damaged")]
    Data,
}

/// A packed record: `header` and the `deflated` bytes of the JSON record it names.
pub fn record(header: &Header, deflated: &[u8]) -> String {
    let entry = serde_json::to_string(&header.entry).unwrap_or_default();
    let mut out = format!("{MARK}{},{}:{entry}\n", header.deflated, header.json);
    out.reserve(deflated.len() * 8 / 15 * 3 + 3);
    pack_into(deflated, &mut out);
    out
}

/// The header of a packed record and its packed part.
pub fn split(text: &str) -> Result<(Header, &str), PackedError> {
    let rest = text.strip_prefix(MARK).ok_or(PackedError::Header)?;
    let (head, body) = rest.split_once('\n').ok_or(PackedError::Header)?;
    let (sizes, entry) = head.split_once(':').ok_or(PackedError::Header)?;
    let (deflated, json) = sizes.split_once(',').ok_or(PackedError::Header)?;
    let header = Header {
        entry: serde_json::from_str(entry).map_err(|_| PackedError::Header)?,
        json: json.parse().map_err(|_| PackedError::Header)?,
        deflated: deflated.parse().map_err(|_| PackedError::Header)?,
    };
    Ok((header, body))
}

/// The deflated bytes of a packed record.
pub fn deflated(text: &str) -> Result<(Header, Vec<u8>), PackedError> {
    let (header, body) = split(text)?;
    let bytes = unpack(body, header.deflated)?;
    Ok((header, bytes))
}

/// The header and JSON record of a packed record, inflated here (the dialogs module reads every
/// chat this way; the app itself uses the browser's decompression stream, which is async).
pub fn json(text: &str) -> Result<(Header, String), PackedError> {
    let (header, bytes) = deflated(text)?;
    let json = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&bytes, header.json)
        .map_err(|_| PackedError::Data)?;
    let json = String::from_utf8(json).map_err(|_| PackedError::Data)?;
    if json.len() != header.json {
        return Err(PackedError::Data);
    }
    Ok((header, json))
}

/// `bytes`, 15 bits to a character, appended to `out`.
pub fn pack_into(bytes: &[u8], out: &mut String) {
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &b in bytes {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        if bits >= 15 {
            bits -= 15;
            push(out, (acc >> bits) & 0x7FFF);
            acc &= (1 << bits) - 1;
        }
    }
    if bits > 0 {
        push(out, (acc << (15 - bits)) & 0x7FFF);
    }
}

fn push(out: &mut String, value: u32) {
    // 0x20..=0x801F: all scalar values.
    out.push(char::from_u32(BASE + value).unwrap_or(' '));
}

/// The `len` bytes packed in `text` by [`pack_into`].
pub fn unpack(text: &str, len: usize) -> Result<Vec<u8>, PackedError> {
    // `len` comes from the record: never trust it for an allocation (a character holds 15 bits).
    let mut out = Vec::with_capacity(len.min(text.len() * 2));
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in text.chars() {
        if out.len() == len {
            break;
        }
        let v = (c as u32)
            .checked_sub(BASE)
            .filter(|v| *v <= 0x7FFF)
            .ok_or(PackedError::Data)?;
        acc = (acc << 15) | v;
        bits += 15;
        while bits >= 8 && out.len() < len {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
        acc &= (1 << bits) - 1;
    }
    if out.len() == len {
        Ok(out)
    } else {
        Err(PackedError::Data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, title: &str) -> IndexEntry {
        IndexEntry {
            id: id.into(),
            title: title.into(),
            updated_at: 5,
        }
    }

    #[test]
    fn packing_round_trips_every_length_and_byte() {
        for len in 0..70usize {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 255 - len) as u8).collect();
            let mut text = String::new();
            pack_into(&bytes, &mut text);
            assert_eq!(text.chars().count(), (len * 8).div_ceil(15), "{len}");
            assert!(text.chars().all(|c| (0x20..=0x801F).contains(&(c as u32))));
            assert_eq!(unpack(&text, len).as_deref(), Ok(&bytes[..]), "{len}");
        }
        let all: Vec<u8> = (0..=255).collect();
        let mut text = String::new();
        pack_into(&all, &mut text);
        assert_eq!(unpack(&text, 256), Ok(all));
    }

    #[test]
    fn a_deflated_record_unpacks_into_the_same_json() {
        let json = r#"{"v":1,"id":"c1","title":"订单 ORD-1","messages":[]}"#.repeat(20);
        let bytes = miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 6);
        let header = Header {
            entry: entry("c1", "t"),
            json: json.len(),
            deflated: bytes.len(),
        };
        let text = record(&header, &bytes);
        assert!(text.encode_utf16().count() * 4 < json.encode_utf16().count());
        assert_eq!(super::json(&text), Ok((header.clone(), json.clone())));
        // A header that names another length, bytes flipped anywhere (the checksum finds every
        // one), or a length no record could have: damaged, never a wrong record.
        let short = Header {
            json: json.len() - 1,
            ..header.clone()
        };
        assert_eq!(super::json(&record(&short, &bytes)), Err(PackedError::Data));
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 0x55;
        assert_eq!(
            super::json(&record(&header, &flipped)).map(|_| ()),
            Err(PackedError::Data)
        );
    }

    #[test]
    fn records_carry_their_header_and_damage_is_an_error() {
        let header = Header {
            entry: entry("c1", "订单\n\"x\""),
            json: 10,
            deflated: 3,
        };
        let text = record(&header, &[1, 2, 3]);
        assert!(
            is_packed(&text)
                && text.starts_with("z1:3,10:{\"id\":\"c1\",\"title\":\"订单\\n\\\"x\\\"\""),
            "{text}"
        );
        assert_eq!(deflated(&text), Ok((header.clone(), vec![1, 2, 3])));
        assert_eq!(text.lines().count(), 2, "the header is one line");
        let cases: &[(&str, PackedError)] = &[
            ("{\"v\":1}", PackedError::Header),
            ("z1:", PackedError::Header),
            ("z1:3,1:{\"id\":1}\n  ", PackedError::Header),
            (
                "z1:3:{\"id\":\"c\",\"title\":\"\",\"updated_at\":0}\n  ",
                PackedError::Header,
            ),
            (
                "z1:x,1:{\"id\":\"c\",\"title\":\"\",\"updated_at\":0}\n  ",
                PackedError::Header,
            ),
            (
                "z1:3,1:{\"id\":\"c\",\"title\":\"\",\"updated_at\":0}\n ",
                PackedError::Data,
            ),
            (
                "z1:1,1:{\"id\":\"c\",\"title\":\"\",\"updated_at\":0}\n\u{1}",
                PackedError::Data,
            ),
            (
                "z1:1,1:{\"id\":\"c\",\"title\":\"\",\"updated_at\":0}\n\u{9000}",
                PackedError::Data,
            ),
        ];
        for (text, err) in cases {
            assert_eq!(deflated(text).map(|_| ()), Err(err.clone()), "{text:?}");
        }
    }
}
