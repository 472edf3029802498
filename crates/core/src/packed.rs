//! Packed chat records: a chat's JSON record, compressed and written into characters, so browser
//! storage — which counts UTF-16 characters — holds several times more history. A packed record
//! is one header line, then the packed bytes:
//!
//! ```text
//! z2:<compressed bytes>,<JSON bytes>:<the chat's line in the chat list, as JSON>
//! <packed bytes>
//! ```
//!
//! The mark is the format's version; the chat list line ([`IndexEntry`]) lets the list be rebuilt
//! without unpacking anything. Two versions are read:
//! - `z2` (written): bzip2, 63 bits to every 4 characters ([`crate::bzpack`]); compressed
//!   and checked in a worker (`src/web/pack-worker.js`), so a large chat never holds the page.
//! - `z1` (read; written only where the worker cannot run): zlib (RFC 1950: DEFLATE with an
//!   Adler-32 checksum) by the browser's compression streams, 15 bits to a character as
//!   `0x20 + value` (U+0020…U+801F).
//!
//! Both checksums find damage, so a damaged record is never read as another chat; neither
//! alphabet has a surrogate or a C0 control (JSON escapes those; DEL and the C1 controls,
//! U+007F…U+009F, do occur and pass unchanged), so the text survives every storage and every JSON
//! round trip; the byte count drops the last character's spare bits exactly.

use crate::bzpack;
use crate::persist::IndexEntry;
pub use crate::persist::{is_packed, PACKED_MARK as MARK, PACKED_MARK_BZ as MARK_BZ};

const BASE: u32 = 0x20;

/// The longest JSON record a packed record may claim, bytes. A chat is stored as JSON before it
/// is packed, and browser storage holds about 5 million UTF-16 characters (at most 15 MB of
/// UTF-8); a header claiming more is damaged or hostile (a small body that bzip2 would expand
/// until memory runs out), never read.
pub const MAX_JSON: usize = 64 << 20;

/// How a packed record's bytes are compressed and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// `z1`: zlib, 15 bits to a character.
    Deflate,
    /// `z2`: bzip2, 63 bits to 4 characters.
    Bzip2,
}

/// What a packed record says about itself, readable without unpacking it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// How its bytes are compressed and written.
    pub codec: Codec,
    /// The chat's line in the chat list: id, title, last change.
    pub entry: IndexEntry,
    /// Length of the JSON record, bytes (UTF-8).
    pub json: usize,
    /// Length of the compressed record, bytes.
    pub compressed: usize,
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

/// A packed record: `header`'s line, then `body` (the bytes already written as characters).
pub fn record_with(header: &Header, body: &str) -> String {
    let entry = serde_json::to_string(&header.entry).unwrap_or_default();
    let mark = match header.codec {
        Codec::Deflate => MARK,
        Codec::Bzip2 => MARK_BZ,
    };
    let mut out = format!("{mark}{},{}:{entry}\n", header.compressed, header.json);
    out.push_str(body);
    out
}

/// A `z1` packed record: `header` and the `deflated` bytes of the JSON record it names.
pub fn record(header: &Header, deflated: &[u8]) -> String {
    let mut body = String::with_capacity(deflated.len() * 8 / 15 * 3 + 3);
    pack_into(deflated, &mut body);
    record_with(
        &Header {
            codec: Codec::Deflate,
            ..header.clone()
        },
        &body,
    )
}

/// A `z2` packed record of chat `entry`'s JSON record `json`, compressed here (in the pack worker;
/// the library's tests and the dialogs module).
pub fn pack_bz(entry: IndexEntry, json: &str) -> String {
    let (body, compressed) = bzpack::pack(json);
    let header = Header {
        codec: Codec::Bzip2,
        entry,
        json: json.len(),
        compressed,
    };
    record_with(&header, &body)
}

/// The header of a packed record and its packed part.
pub fn split(text: &str) -> Result<(Header, &str), PackedError> {
    let (codec, rest) = if let Some(rest) = text.strip_prefix(MARK_BZ) {
        (Codec::Bzip2, rest)
    } else {
        (
            Codec::Deflate,
            text.strip_prefix(MARK).ok_or(PackedError::Header)?,
        )
    };
    let (head, body) = rest.split_once('\n').ok_or(PackedError::Header)?;
    let (sizes, entry) = head.split_once(':').ok_or(PackedError::Header)?;
    let (compressed, json) = sizes.split_once(',').ok_or(PackedError::Header)?;
    let header = Header {
        codec,
        entry: serde_json::from_str(entry).map_err(|_| PackedError::Header)?,
        json: json.parse().map_err(|_| PackedError::Header)?,
        compressed: compressed.parse().map_err(|_| PackedError::Header)?,
    };
    if header.json > MAX_JSON {
        return Err(PackedError::Header);
    }
    Ok((header, body))
}

/// The deflated bytes of a `z1` packed record (a `z2` one is not: [`PackedError::Header`]).
pub fn deflated(text: &str) -> Result<(Header, Vec<u8>), PackedError> {
    let (header, body) = split(text)?;
    if header.codec != Codec::Deflate {
        return Err(PackedError::Header);
    }
    let bytes = unpack(body, header.compressed)?;
    Ok((header, bytes))
}

/// The header and JSON record of a packed record, unpacked here (the dialogs module reads every
/// chat this way; the app unpacks in the browser's decompression stream or the pack worker).
pub fn json(text: &str) -> Result<(Header, String), PackedError> {
    let (header, body) = split(text)?;
    if header.codec == Codec::Bzip2 {
        let json =
            bzpack::unpack(body, header.compressed, header.json).map_err(|_| PackedError::Data)?;
        return Ok((header, json));
    }
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
            pinned: false,
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
            compressed: bytes.len(),
            codec: Codec::Deflate,
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
    fn a_bzip2_record_unpacks_into_the_same_json_and_is_denser() {
        // Real Chinese prose with English in it: Satori's own interface texts, as one message.
        let text = include_str!("../../../src/web/zh-CN.json");
        let json = format!(
            r#"{{"v":1,"id":"c1","title":"订单 ORD-1","messages":[{{"content":{}}}]}}"#,
            serde_json::to_string(text).unwrap()
        );
        let text = pack_bz(entry("c1", "订单"), &json);
        assert!(is_packed(&text) && text.starts_with("z2:"), "{text}");
        let (header, body) = split(&text).unwrap();
        assert_eq!(
            (header.codec, &header.entry, header.json),
            (Codec::Bzip2, &entry("c1", "订单"), json.len())
        );
        assert_eq!(body.chars().count(), bzpack::chars_for(header.compressed));
        assert_eq!(super::json(&text), Ok((header.clone(), json.clone())));
        // z2 has no deflated bytes to give; its damage is found like z1's.
        assert_eq!(deflated(&text), Err(PackedError::Header));
        let wrong = record_with(
            &Header {
                json: json.len() + 1,
                ..header.clone()
            },
            body,
        );
        assert_eq!(super::json(&wrong), Err(PackedError::Data));
        // A header claiming more JSON than storage could ever have held is not read at all (a
        // small body could otherwise expand until memory runs out).
        let bomb = record_with(
            &Header {
                json: MAX_JSON + 1,
                ..header.clone()
            },
            body,
        );
        assert_eq!(split(&bomb).map(|_| ()), Err(PackedError::Header));
        assert_eq!(super::json(&bomb), Err(PackedError::Header));
        let mut chars: Vec<char> = body.chars().collect();
        let mid = chars.len() / 2;
        chars[mid] = if chars[mid] == ' ' { '!' } else { ' ' };
        let flipped = record_with(&header, &chars.into_iter().collect::<String>());
        assert_eq!(super::json(&flipped).map(|_| ()), Err(PackedError::Data));
        // Against the same record in z1 (DEFLATE, 15 bits a character): fewer characters.
        let bytes = miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 6);
        let z1 = record(
            &Header {
                codec: Codec::Deflate,
                compressed: bytes.len(),
                ..header
            },
            &bytes,
        );
        assert!(
            text.chars().count() < z1.chars().count(),
            "{} / {}",
            text.chars().count(),
            z1.chars().count()
        );
    }

    #[test]
    fn records_carry_their_header_and_damage_is_an_error() {
        let header = Header {
            entry: entry("c1", "订单\n\"x\""),
            json: 10,
            compressed: 3,
            codec: Codec::Deflate,
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
            // Claims more JSON than any browser's storage holds.
            (
                "z1:1,67108865:{\"id\":\"c\",\"title\":\"\",\"updated_at\":0}\n ",
                PackedError::Header,
            ),
        ];
        for (text, err) in cases {
            assert_eq!(deflated(text).map(|_| ()), Err(err.clone()), "{text:?}");
        }
    }
}
