//! Satori's export with its files: "Export chat" and "Export all" of chats that carry attachments
//! write a `.zip` holding the export file as it is without them ([`EXPORT_JSON`], the format of
//! [`super::format`]) and the bytes of every file those chats name, each under
//! `files/<SHA-256>.<extension>` ([`entry_name`]), stored as they are kept in the browser. A PDF's
//! extracted text is carried too, under its own hash, so an import needs no PDF reader.
//!
//! Importing such a `.zip` reads the export file as any export file is read, and restores each
//! file a chat names whose bytes hash to its name ([`entry_hash`]); a file whose bytes do not
//! hash to its name is left out (a damaged or hostile archive can never put other bytes under a
//! file's name). The type a restored file is kept with comes from what it is, never from the
//! archive as it is ([`kept_type`]), so an image can only ever be drawn as an image.

use crate::attachment::{self, Kind};
use crate::session::Session;
use crate::transfer::zip::Entry;
use std::collections::BTreeMap;

/// The export file's name inside the `.zip`.
pub const EXPORT_JSON: &str = "satori-export.json";

/// The folder of the files inside the `.zip`.
pub const FILES: &str = "files/";

/// The folder of the PDFs' extracted texts inside the `.zip`.
pub const TEXTS: &str = "texts/";

/// A file the chats name, to carry in the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    /// The SHA-256 of its bytes, lowercase hex (the key it is kept under).
    pub hash: String,
    /// The type it is kept with ([`kept_type`]).
    pub mime: String,
    /// Its name in the archive ([`entry_name`]).
    pub entry: String,
    /// A PDF's extracted text, carried beside the PDF (not a file the user attached).
    pub extracted: bool,
}

/// The files `chats` name, each once: every attachment's bytes, and a PDF's extracted text.
pub fn carried<'a>(chats: impl IntoIterator<Item = &'a Session>) -> Vec<Carried> {
    let mut out: BTreeMap<String, Carried> = BTreeMap::new();
    for chat in chats {
        for m in &chat.messages {
            for a in attachment::read(&m.attachments) {
                let mut add = |hash: &str, kind: Kind, mime: &str, extension: &str, extracted| {
                    let hash = hash.to_ascii_lowercase();
                    out.entry(hash.clone()).or_insert_with(|| Carried {
                        entry: entry_name(&hash, extension, extracted),
                        mime: kept_type(kind, mime).into(),
                        hash,
                        extracted,
                    });
                };
                add(&a.hash, a.kind, &a.mime, extension(&a.name, a.kind), false);
                if let (Kind::Pdf, Some(text)) = (a.kind, &a.text) {
                    add(text, Kind::Text, "text/plain", "txt", true);
                }
            }
        }
    }
    out.into_values().collect()
}

/// The name of file `hash` in the archive: `files/<hash>.<extension>`, or `texts/…` for a
/// PDF's `extracted` text.
pub fn entry_name(hash: &str, extension: &str, extracted: bool) -> String {
    let folder = if extracted { TEXTS } else { FILES };
    format!("{folder}{hash}.{extension}")
}

/// The hash an archive's entry `name` carries the bytes of: `files/` (or `texts/`), 64 hex
/// digits, then an extension or nothing. Anything else is not a file of Satori's.
pub fn entry_hash(name: &str) -> Option<String> {
    let rest = name
        .strip_prefix(FILES)
        .or_else(|| name.strip_prefix(TEXTS))?;
    let (hash, extension) = rest.split_once('.').unwrap_or((rest, ""));
    (hash.len() == 64
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
        && extension.bytes().all(|b| b.is_ascii_alphanumeric()))
    .then(|| hash.to_ascii_lowercase())
}

/// Every run of exactly 64 lowercase hex digits in `text` (a hash, wherever a record holds one:
/// what a record that cannot be read as a chat may still name).
pub fn hashes_in(text: &str) -> Vec<String> {
    let hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
    text.as_bytes()
        .split(|b| !hex(b))
        .filter(|run| run.len() == 64)
        .map(|run| String::from_utf8_lossy(run).into_owned())
        .collect()
}

/// How an imported message marks an image its export holds under another app's name (ChatGPT's
/// file id), to be found in the export's `.zip` and kept before the chat is written:
/// `?file {id} {width}x{height} {name}` (the size as the export says, `0x0` when it does not).
/// Never stored: [`resolve`] makes each an attachment or drops it.
pub const PENDING: &str = "?file ";

/// An image an imported message wants from its export's `.zip`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// The export's id of the file (`file-abc…`, `file_0000…`).
    pub id: String,
    /// Its size as the export says (0 when it does not).
    pub width: u32,
    /// Its height as the export says (0 when it does not).
    pub height: u32,
    /// The name it is shown by.
    pub name: String,
}

/// The line of a [`Wanted`] image with id `id` (letters, digits, `-` and `_` only: anything
/// else is no file id, `None`).
pub fn pending_line(id: &str, width: u32, height: u32, name: &str) -> Option<String> {
    let id_ok = !id.is_empty()
        && id.len() <= 200
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let name: String = name.chars().filter(|c| !c.is_control()).take(200).collect();
    let name = if name.trim().is_empty() { id } else { &name };
    id_ok.then(|| format!("{PENDING}{id} {width}x{height} {name}"))
}

fn wanted_of(line: &str) -> Option<Wanted> {
    let mut parts = line.strip_prefix(PENDING)?.splitn(3, ' ');
    let id = parts.next()?.to_string();
    let (w, h) = parts.next()?.split_once('x')?;
    let name = parts.next()?.to_string();
    Some(Wanted {
        id,
        width: w.parse().ok()?,
        height: h.parse().ok()?,
        name,
    })
}

/// The images `chats` want from their export's `.zip`, each id once.
pub fn wanted<'a>(chats: impl IntoIterator<Item = &'a Session>) -> Vec<Wanted> {
    let mut out: BTreeMap<String, Wanted> = BTreeMap::new();
    for chat in chats {
        for m in &chat.messages {
            for w in m.attachments.lines().filter_map(wanted_of) {
                out.entry(w.id.clone()).or_insert(w);
            }
        }
    }
    out.into_values().collect()
}

/// Each wanted image of `session` made into the attachment line `found` has for its id, or
/// dropped (the message's text names it anyway); every other line that is not an attachment is
/// dropped too, so nothing but attachments is ever stored.
pub fn resolve(session: &mut Session, found: &BTreeMap<String, String>) {
    for m in &mut session.messages {
        if m.attachments.is_empty() {
            continue;
        }
        let lines: Vec<String> = m
            .attachments
            .lines()
            .filter_map(|line| match wanted_of(line) {
                Some(w) => found.get(&w.id).cloned(),
                None => attachment::Attachment::try_from(line.to_string())
                    .ok()
                    .map(|_| line.to_string()),
            })
            .collect();
        m.attachments = lines.join("\n");
    }
}

/// Whether the entry named `name` (with its folders) holds the export's file `id`: its name
/// without folders is the id, or the id then `-` or `.` (`file-abc-photo.jpg`, `file_00….dat`).
pub fn holds(name: &str, id: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    base.strip_prefix(id)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.']))
}

/// The entries of an export's `.zip` by the name they have without folders, to find the files
/// an id names ([`holds`]) in `log n` each, however many entries and ids there are.
pub struct Holders<'a> {
    by_base: Vec<(&'a str, &'a Entry)>,
}

impl<'a> Holders<'a> {
    /// Of `entries`.
    pub fn new(entries: &'a [Entry]) -> Self {
        let mut by_base: Vec<(&str, &Entry)> = entries.iter().map(|e| (e.base_name(), e)).collect();
        by_base.sort_by(|a, b| a.0.cmp(b.0));
        Holders { by_base }
    }

    /// The entries that hold file `id`, in the order of their names.
    pub fn of<'s>(&'s self, id: &'s str) -> impl Iterator<Item = &'a Entry> + 's {
        let from = self.by_base.partition_point(|(b, _)| *b < id);
        self.by_base[from..]
            .iter()
            .take_while(move |(b, _)| b.starts_with(id))
            .filter(move |(b, _)| holds(b, id))
            .map(|(_, e)| *e)
    }
}

/// An image's type and size from its first bytes: PNG, JPEG, GIF or WebP (what Satori sends);
/// anything else `None`.
pub fn sniff(bytes: &[u8]) -> Option<(&'static str, u32, u32)> {
    let be16 = |i: usize| {
        Some(u32::from(u16::from_be_bytes(
            bytes.get(i..i + 2)?.try_into().ok()?,
        )))
    };
    let le16 = |i: usize| {
        Some(u32::from(u16::from_le_bytes(
            bytes.get(i..i + 2)?.try_into().ok()?,
        )))
    };
    let be32 = |i: usize| Some(u32::from_be_bytes(bytes.get(i..i + 4)?.try_into().ok()?));
    let le24 = |i: usize| {
        let b = bytes.get(i..i + 3)?;
        Some(u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16)
    };
    let size = |w: u32, h: u32| (w > 0 && h > 0).then_some((w, h));
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(b"IHDR") {
        let (w, h) = size(be32(16)?, be32(20)?)?;
        return Some(("image/png", w, h));
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        let (w, h) = size(le16(6)?, le16(8)?)?;
        return Some(("image/gif", w, h));
    }
    if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        let (w, h) = match bytes.get(12..16)? {
            b"VP8 " => (le16(26)? & 0x3fff, le16(28)? & 0x3fff),
            b"VP8L" => {
                let b = be32(21)?.swap_bytes();
                ((b & 0x3fff) + 1, ((b >> 14) & 0x3fff) + 1)
            }
            b"VP8X" => (le24(24)? + 1, le24(27)? + 1),
            _ => return None,
        };
        let (w, h) = size(w, h)?;
        return Some(("image/webp", w, h));
    }
    if bytes.starts_with(&[0xff, 0xd8]) {
        // The first start-of-frame marker's height and width (baseline, extended, progressive…).
        let mut i = 2;
        while i + 9 < bytes.len() {
            if bytes[i] != 0xff {
                return None;
            }
            let marker = bytes[i + 1];
            let len = be16(i + 2)? as usize;
            if matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc) {
                let (w, h) = size(be16(i + 7)?, be16(i + 5)?)?;
                return Some(("image/jpeg", w, h));
            }
            i += 2 + len;
        }
    }
    None
}

/// The type a file of `kind` is kept with, whatever `mime` its line says: one of the image types
/// Satori attaches, else no type a browser would draw; a PDF as a PDF; text as plain text.
pub fn kept_type(kind: Kind, mime: &str) -> &'static str {
    match kind {
        Kind::Image => match mime {
            "image/png" => "image/png",
            "image/jpeg" => "image/jpeg",
            "image/webp" => "image/webp",
            "image/gif" => "image/gif",
            _ => "application/octet-stream",
        },
        Kind::Pdf => "application/pdf",
        Kind::Text => "text/plain",
    }
}

/// The extension a file is written with: its own name's (letters and digits, at most 8), else
/// one for its kind.
fn extension(name: &str, kind: Kind) -> &str {
    name.rsplit_once('.')
        .map(|(_, e)| e)
        .filter(|e| !e.is_empty() && e.len() <= 8 && e.bytes().all(|b| b.is_ascii_alphanumeric()))
        .unwrap_or(match kind {
            Kind::Image => "img",
            Kind::Pdf => "pdf",
            Kind::Text => "txt",
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Command, Session};

    const A: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
    const B: &str = "00000000000000000000000000000000000000000000000000000000000000bb";
    const T: &str = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff0001";

    fn chat(id: &str, lines: &[&str]) -> Session {
        let mut s = Session::new(id.into(), 1, None, Vec::new());
        s.apply(Command::AddUser {
            id: format!("{id}-m"),
            text: "see".into(),
            attachments: lines.join("\n"),
            at: 2,
        })
        .unwrap();
        s
    }

    #[test]
    fn the_files_chats_name_are_carried_once_with_a_safe_type() {
        let one = chat(
            "one",
            &[
                &format!("{A} image image/png 10 4x3 0 - photo.PNG"),
                &format!("{B} pdf application/pdf 20 0x0 2 {T} report.pdf"),
                "not a line at all",
            ],
        );
        let two = chat(
            "two",
            &[
                &format!("{A} image image/png 10 4x3 0 - same photo"),
                &format!("{B}{B} text text/html 5 0x0 0 - too long a hash"),
            ],
        );
        let got = carried([&one, &two]);
        let entries: Vec<(&str, &str, &str, bool)> = got
            .iter()
            .map(|c| (&c.hash[..2], c.mime.as_str(), c.entry.as_str(), c.extracted))
            .collect();
        assert_eq!(
            entries,
            [
                ("00", "application/pdf", &*format!("files/{B}.pdf"), false),
                ("a1", "image/png", &*format!("files/{A}.PNG"), false),
                ("ff", "text/plain", &*format!("texts/{T}.txt"), true),
            ]
        );
        let two: Vec<String> = carried([&two]).into_iter().map(|c| c.hash).collect();
        assert_eq!(two, [A]);
    }

    #[test]
    fn hashes_are_found_in_any_text_as_whole_runs() {
        let text = format!(
            "{{\"attachments\":\"{A} image x\\n{B} text\"}} {A}0 {}",
            &T[..63]
        );
        assert_eq!(hashes_in(&text), [A, B]);
        assert!(hashes_in("").is_empty());
    }

    #[test]
    fn images_are_known_by_their_first_bytes() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend_from_slice(&800u32.to_be_bytes());
        png.extend_from_slice(&600u32.to_be_bytes());
        let mut gif = b"GIF89a".to_vec();
        gif.extend_from_slice(&[0x20, 0x03, 0x58, 0x02]);
        // A JPEG: SOI, an APP0 of 16 bytes, then SOF2 (progressive) 600 high, 800 wide.
        let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0, 0, 16];
        jpeg.extend_from_slice(&[0; 14]);
        jpeg.extend_from_slice(&[0xff, 0xc2, 0, 17, 8, 0x02, 0x58, 0x03, 0x20, 3]);
        jpeg.extend_from_slice(&[0; 9]);
        let mut webp = b"RIFF\0\0\0\0WEBPVP8X".to_vec();
        webp.extend_from_slice(&[0; 8]);
        webp.extend_from_slice(&[0x1f, 0x03, 0, 0x57, 0x02, 0]);
        let mut lossy = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0\0\0\0\x9d\x01\x2a".to_vec();
        lossy.extend_from_slice(&[0x20, 0x03, 0x58, 0x02]);
        let mut lossless = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        lossless.extend_from_slice(&(799u32 | (599 << 14)).to_le_bytes());
        for (bytes, want) in [
            (&png[..], Some(("image/png", 800, 600))),
            (&gif[..], Some(("image/gif", 800, 600))),
            (&jpeg[..], Some(("image/jpeg", 800, 600))),
            (&webp[..], Some(("image/webp", 800, 600))),
            (&lossy[..], Some(("image/webp", 800, 600))),
            (&lossless[..], Some(("image/webp", 800, 600))),
            (b"<svg xmlns='http://www.w3.org/2000/svg'/>", None),
            (&png[..20], None),
            (b"", None),
        ] {
            assert_eq!(sniff(bytes), want, "{:?}", &bytes[..bytes.len().min(12)]);
        }
    }

    #[test]
    fn wanted_images_become_attachments_or_go() {
        let line = pending_line("file-AbC_1", 800, 600, "photo 1.png").unwrap();
        assert_eq!(line, "?file file-AbC_1 800x600 photo 1.png");
        assert_eq!(pending_line("file/../x", 1, 1, "x"), None);
        assert_eq!(
            pending_line("file-x", 0, 0, "").unwrap(),
            "?file file-x 0x0 file-x"
        );
        let other = pending_line("file-gone", 0, 0, "gone.png").unwrap();
        let mut s = chat(
            "c",
            &[
                &line,
                &format!("{A} image image/png 10 4x3 0 - kept.png"),
                &other,
                "junk",
            ],
        );
        assert_eq!(
            wanted([&s]),
            [
                Wanted {
                    id: "file-AbC_1".into(),
                    width: 800,
                    height: 600,
                    name: "photo 1.png".into()
                },
                Wanted {
                    id: "file-gone".into(),
                    width: 0,
                    height: 0,
                    name: "gone.png".into()
                },
            ]
        );
        let found: BTreeMap<String, String> = [(
            "file-AbC_1".to_string(),
            format!("{B} image image/png 7 800x600 0 - photo 1.png"),
        )]
        .into();
        resolve(&mut s, &found);
        assert_eq!(
            s.messages[0].attachments,
            format!("{B} image image/png 7 800x600 0 - photo 1.png\n{A} image image/png 10 4x3 0 - kept.png")
        );
        assert!(wanted([&s]).is_empty());
    }

    #[test]
    fn an_export_entry_holds_a_file_by_its_id() {
        for (name, id, holds_it) in [
            ("file-AbC-photo.jpg", "file-AbC", true),
            ("user-x/file_0000ab.dat", "file_0000ab", true),
            ("file_0000ab", "file_0000ab", true),
            ("dalle-generations/file-AbC.webp", "file-AbC", true),
            ("file-AbCD-photo.jpg", "file-AbC", false),
            ("conversations.json", "file-AbC", false),
        ] {
            assert_eq!(holds(name, id), holds_it, "{name} {id}");
        }
    }

    #[test]
    fn the_entries_holding_an_id_are_found_among_many() {
        let names = [
            "file-AbC-2.png",
            "user-1/file-AbC-1.png",
            "file-AbCD-x.png",
            "file-Ab.png",
            "conversations.json",
            "dalle/file-AbC.webp",
        ];
        let mut w = super::super::zip::Writer::new(0);
        let mut zip = Vec::new();
        for n in names {
            zip.extend(w.entry(n, 0, 0).unwrap());
        }
        zip.extend(w.finish());
        let entries: Vec<Entry> =
            super::super::zip::read_all::<super::super::zip::ZipError>(&zip, Ok)
                .unwrap()
                .into_iter()
                .map(|(e, _)| e)
                .collect();
        let holders = Holders::new(&entries);
        let found: Vec<&str> = holders.of("file-AbC").map(|e| e.name.as_str()).collect();
        assert_eq!(
            found,
            [
                "user-1/file-AbC-1.png",
                "file-AbC-2.png",
                "dalle/file-AbC.webp"
            ]
        );
        assert_eq!(holders.of("file-Zz").count(), 0);
        assert_eq!(holders.of("").count(), 0);
    }

    #[test]
    fn kept_types_never_follow_a_hostile_line() {
        for (kind, mime, kept) in [
            (Kind::Image, "image/jpeg", "image/jpeg"),
            (Kind::Image, "image/svg+xml", "application/octet-stream"),
            (Kind::Image, "text/html", "application/octet-stream"),
            (Kind::Pdf, "text/html", "application/pdf"),
            (Kind::Text, "text/html", "text/plain"),
        ] {
            assert_eq!(kept_type(kind, mime), kept, "{kind:?} {mime}");
        }
    }

    #[test]
    fn only_satori_file_entries_name_a_hash() {
        for (name, hash) in [
            (format!("files/{A}.png"), Some(A)),
            (format!("files/{}", A.to_ascii_uppercase()), Some(A)),
            (format!("files/{A}"), Some(A)),
            (format!("texts/{A}.txt"), Some(A)),
            (format!("files/{A}.p/ng"), None),
            (format!("files/../{A}.png"), None),
            (format!("other/{A}.png"), None),
            (format!("files/{}.png", &A[1..]), None),
            ("satori-export.json".into(), None),
        ] {
            assert_eq!(entry_hash(&name).as_deref(), hash, "{name}");
        }
    }
}
