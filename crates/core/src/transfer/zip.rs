//! Reading the few files Satori wants out of a `.zip` (ChatGPT's data export): the central
//! directory (ZIP64 too), each entry's local header, then its data, stored or deflated, checked
//! against its CRC-32 and size. The archive itself is never read whole — an export with years of
//! images is gigabytes — so each step says which bytes it needs and the caller reads just those
//! (a `File` slice in the browser, a slice of memory in tests: [`read_all`]).
//!
//! Names are only compared, never used as paths; encrypted entries and methods other than
//! stored and deflate are refused with a sentence saying so.

use std::fmt;

/// Why an archive could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZipError(pub String);

impl fmt::Display for ZipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn bad(what: impl Into<String>) -> ZipError {
    ZipError(what.into())
}

/// How many bytes at the end of the archive hold its end record: the record (22 bytes), its
/// comment (up to 65 535) and, before it, the ZIP64 locator (20).
pub const TAIL: u64 = 22 + 65_535 + 20;
/// Bytes of a local file header before its name.
pub const LOCAL_HEADER: u64 = 30;
/// Bytes of a ZIP64 end of central directory record read (its fixed part).
pub const ZIP64_RECORD: u64 = 56;

const END: u32 = 0x0605_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;
const ZIP64_END: u32 = 0x0606_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;

fn u16_at(b: &[u8], i: usize) -> Option<u16> {
    b.get(i..i + 2).map(|s| u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], i: usize) -> Option<u32> {
    b.get(i..i + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn u64_at(b: &[u8], i: usize) -> Option<u64> {
    b.get(i..i + 8).map(|s| {
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        u64::from_le_bytes(a)
    })
}

/// Where the central directory lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Directory {
    /// Its offset in the archive.
    pub offset: u64,
    /// Its length in bytes.
    pub size: u64,
    /// How many entries it lists.
    pub entries: u64,
}

/// What the end of the archive says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The central directory.
    Directory(Directory),
    /// A ZIP64 archive: read [`ZIP64_RECORD`] bytes at this offset and give them to
    /// [`zip64_directory`].
    Zip64At(u64),
}

/// Find the central directory from the last bytes of an archive of `len` bytes (`tail`: the last
/// `min(len, TAIL)` bytes).
pub fn end(tail: &[u8], len: u64) -> Result<End, ZipError> {
    let not_zip = || bad("it is not a zip archive (no end of central directory record)");
    if tail.len() < 22 {
        return Err(not_zip());
    }
    // The end record is the last signature whose comment length reaches the end exactly.
    let at = (0..=tail.len() - 22)
        .rev()
        .find(|&i| {
            u32_at(tail, i) == Some(END)
                && u16_at(tail, i + 20).map(usize::from) == Some(tail.len() - i - 22)
        })
        .ok_or_else(not_zip)?;
    let entries = u64::from(u16_at(tail, at + 10).unwrap_or(0));
    let size = u64::from(u32_at(tail, at + 12).unwrap_or(0));
    let offset = u64::from(u32_at(tail, at + 16).unwrap_or(0));
    if at >= 20 && u32_at(tail, at - 20) == Some(ZIP64_LOCATOR) {
        let record = u64_at(tail, at - 12).unwrap_or(u64::MAX);
        if record.saturating_add(ZIP64_RECORD) > len {
            return Err(bad("its ZIP64 end record lies outside the file"));
        }
        return Ok(End::Zip64At(record));
    }
    let dir = Directory {
        offset,
        size,
        entries,
    };
    inside(dir, len)?;
    Ok(End::Directory(dir))
}

/// The central directory named by a ZIP64 end record (`record`: [`ZIP64_RECORD`] bytes).
pub fn zip64_directory(record: &[u8], len: u64) -> Result<Directory, ZipError> {
    if u32_at(record, 0) != Some(ZIP64_END) {
        return Err(bad("its ZIP64 end record is damaged"));
    }
    let field = |i| u64_at(record, i).ok_or_else(|| bad("its ZIP64 end record is cut short"));
    let dir = Directory {
        entries: field(32)?,
        size: field(40)?,
        offset: field(48)?,
    };
    inside(dir, len)?;
    Ok(dir)
}

/// The largest central directory read, bytes (a directory entry takes about 100 bytes: this is
/// several hundred thousand files).
pub const MAX_DIRECTORY: u64 = 64 * 1000 * 1000;

fn inside(dir: Directory, len: u64) -> Result<(), ZipError> {
    if dir.offset.checked_add(dir.size).is_none_or(|e| e > len) {
        return Err(bad(
            "its central directory lies outside the file (is the download complete?)",
        ));
    }
    if dir.size > MAX_DIRECTORY {
        return Err(bad("its central directory is larger than Satori reads"));
    }
    Ok(())
}

/// One file in the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its name, with its folders (`export/conversations-000.json`).
    pub name: String,
    /// 0 stored, 8 deflated.
    method: u16,
    /// General purpose flags (bit 0: encrypted).
    flags: u16,
    crc: u32,
    /// Bytes stored.
    pub compressed: u64,
    /// Bytes once extracted.
    pub size: u64,
    /// Offset of its local header.
    pub local: u64,
}

impl Entry {
    /// Whether it is stored as is (not compressed).
    pub fn is_stored(&self) -> bool {
        self.method == 0
    }

    /// The name without its folders.
    pub fn base_name(&self) -> &str {
        self.name.rsplit(['/', '\\']).next().unwrap_or(&self.name)
    }
}

/// The entries listed by the central directory `dir` (its bytes).
pub fn entries(dir: &[u8]) -> Result<Vec<Entry>, ZipError> {
    let damaged = |i: usize| {
        bad(format!(
            "its central directory is damaged (at entry {})",
            i + 1
        ))
    };
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < dir.len() {
        let i = out.len();
        if u32_at(dir, at) != Some(CENTRAL) {
            return Err(damaged(i));
        }
        let field16 = |k| u16_at(dir, at + k).ok_or_else(|| damaged(i));
        let field32 = |k| u32_at(dir, at + k).ok_or_else(|| damaged(i));
        let flags = field16(8)?;
        let method = field16(10)?;
        let crc = field32(16)?;
        let mut compressed = u64::from(field32(20)?);
        let mut size = u64::from(field32(24)?);
        let name_len = usize::from(field16(28)?);
        let extra_len = usize::from(field16(30)?);
        let comment_len = usize::from(field16(32)?);
        let mut local = u64::from(field32(42)?);
        let name_at = at + 46;
        let name = dir
            .get(name_at..name_at + name_len)
            .ok_or_else(|| damaged(i))?;
        let extra = dir
            .get(name_at + name_len..name_at + name_len + extra_len)
            .ok_or_else(|| damaged(i))?;
        // ZIP64: the fields set to all ones are in the extra field 0x0001, in this order.
        let mut k = 0;
        while k + 4 <= extra.len() {
            let id = u16_at(extra, k).unwrap_or(0);
            let n = usize::from(u16_at(extra, k + 2).unwrap_or(0));
            let data = extra.get(k + 4..k + 4 + n).ok_or_else(|| damaged(i))?;
            if id == 1 {
                let mut j = 0;
                for field in [&mut size, &mut compressed, &mut local] {
                    if *field == u64::from(u32::MAX) {
                        *field = u64_at(data, j).ok_or_else(|| damaged(i))?;
                        j += 8;
                    }
                }
            }
            k += 4 + n;
        }
        out.push(Entry {
            name: String::from_utf8_lossy(name).into_owned(),
            method,
            flags,
            crc,
            compressed,
            size,
            local,
        });
        at = name_at + name_len + extra_len + comment_len;
    }
    Ok(out)
}

/// Where `entry`'s data starts, from the first [`LOCAL_HEADER`] bytes of its local header.
pub fn data_start(entry: &Entry, header: &[u8]) -> Result<u64, ZipError> {
    if u32_at(header, 0) != Some(LOCAL) {
        return Err(bad(format!("{}: its local header is damaged", entry.name)));
    }
    let name = u64::from(u16_at(header, 26).unwrap_or(0));
    let extra = u64::from(u16_at(header, 28).unwrap_or(0));
    Ok(entry.local + LOCAL_HEADER + name + extra)
}

/// `entry`'s content from its stored bytes `data` (what [`Unpack`] gives for them in one piece).
/// It never grows past the size the directory declares (a "zip bomb" is a damaged entry), so
/// the caller limits sizes by checking those.
pub fn extract(entry: &Entry, data: &[u8]) -> Result<Vec<u8>, ZipError> {
    let mut unpack = Unpack::new(entry)?;
    let mut out = Vec::with_capacity(usize::try_from(entry.size).unwrap_or(0).min(1 << 26));
    unpack.push(data, |piece| {
        out.extend_from_slice(piece);
        true
    })?;
    unpack.finish()?;
    Ok(out)
}

/// An entry's stored bytes unpacked as they arrive ([`Unpack::push`], in pieces of any size):
/// inflated when deflated, never past the size the directory declares, and checked against that
/// size and the CRC-32 at the end ([`Unpack::finish`]). Memory: the inflater's 32 KB window and
/// a buffer of [`PIECE`] bytes, whatever the entry's size.
pub struct Unpack {
    name: String,
    /// `None` for an entry stored as is.
    inflater: Option<Box<InflateState>>,
    crc: Crc32,
    expected_crc: u32,
    /// Bytes given out so far, and the most there may be.
    out: u64,
    size: u64,
    /// The deflated stream's end was met.
    ended: bool,
    piece: Vec<u8>,
}

/// Bytes of content handed over at a time by [`Unpack::push`].
pub const PIECE: usize = 256 * 1024;

use miniz_oxide::inflate::stream::InflateState;

impl Unpack {
    /// Ready for `entry`'s stored bytes; an encrypted entry, or one compressed another way than
    /// deflate, is refused with a sentence saying so.
    pub fn new(entry: &Entry) -> Result<Unpack, ZipError> {
        let name = &entry.name;
        if entry.flags & 1 != 0 {
            return Err(bad(format!(
                "{name} is encrypted; unpack the archive and pick its files"
            )));
        }
        let inflater = match entry.method {
            0 => None,
            8 => Some(InflateState::new_boxed(miniz_oxide::DataFormat::Raw)),
            m => {
                return Err(bad(format!(
                    "{name} is compressed with a method Satori does not read ({m}); unpack the archive and pick its files"
                )))
            }
        };
        Ok(Unpack {
            name: name.clone(),
            inflater,
            crc: Crc32::new(),
            expected_crc: entry.crc,
            out: 0,
            size: entry.size,
            ended: false,
            piece: Vec::new(),
        })
    }

    fn damaged(&self) -> ZipError {
        bad(format!(
            "{} is damaged (its data does not match its checksum)",
            self.name
        ))
    }

    /// The next stored bytes: their content goes to `sink` in pieces of at most [`PIECE`] bytes
    /// until it answers `false` (it wants no more). Content past the declared size, or bytes
    /// that do not inflate, are damage.
    pub fn push(
        &mut self,
        data: &[u8],
        mut sink: impl FnMut(&[u8]) -> bool,
    ) -> Result<(), ZipError> {
        let Some(inflater) = self.inflater.as_mut() else {
            self.out += data.len() as u64;
            if self.out > self.size {
                return Err(self.damaged());
            }
            self.crc.update(data);
            for piece in data.chunks(PIECE) {
                if !sink(piece) {
                    break;
                }
            }
            return Ok(());
        };
        if self.piece.is_empty() {
            self.piece = vec![0; PIECE];
        }
        let mut input = data;
        while !self.ended {
            let r = miniz_oxide::inflate::stream::inflate(
                inflater,
                input,
                &mut self.piece,
                miniz_oxide::MZFlush::None,
            );
            input = &input[r.bytes_consumed..];
            let written = &self.piece[..r.bytes_written];
            self.out += written.len() as u64;
            match r.status {
                Ok(miniz_oxide::MZStatus::StreamEnd) => self.ended = true,
                Ok(_) => {}
                // No progress: the input ran out inside a block (more comes with the next bytes).
                Err(miniz_oxide::MZError::Buf) if r.bytes_written == 0 => break,
                Err(_) => return Err(self.damaged()),
            }
            if self.out > self.size {
                return Err(self.damaged());
            }
            self.crc.update(written);
            if !written.is_empty() && !sink(written) {
                break;
            }
            // A full buffer may leave more content waiting in the inflater's window.
            let full = r.bytes_written == PIECE;
            if input.is_empty() && !full || r.bytes_consumed == 0 && r.bytes_written == 0 {
                break;
            }
        }
        Ok(())
    }

    /// After the last stored bytes: the content is whole (the deflated stream ended) and
    /// matches the declared size and CRC-32.
    pub fn finish(&mut self) -> Result<(), ZipError> {
        let whole = self.inflater.is_none() || self.ended;
        if !whole || self.out != self.size || self.crc.value() != self.expected_crc {
            return Err(self.damaged());
        }
        Ok(())
    }
}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut n = 0;
    while n < 256 {
        let mut c = n as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[n] = c;
        n += 1;
    }
    table
};

/// CRC-32 (IEEE), as zip stores it, over bytes given in pieces.
#[derive(Debug, Clone, Copy)]
pub struct Crc32(u32);

impl Default for Crc32 {
    fn default() -> Self {
        Crc32::new()
    }
}

impl Crc32 {
    /// Over no bytes yet.
    pub const fn new() -> Self {
        Crc32(!0)
    }

    /// The next bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0 = bytes.iter().fold(self.0, |c, &b| {
            CRC_TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8)
        });
    }

    /// The checksum of the bytes so far.
    pub fn value(&self) -> u32 {
        !self.0
    }
}

/// CRC-32 (IEEE), as zip stores it.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = Crc32::new();
    c.update(bytes);
    c.value()
}

/// A `.zip` written as it goes, every entry stored as is (the files Satori exports — images, PDFs
/// — are compressed already, and a stored entry needs no deflater): for each entry its local
/// header ([`Writer::entry`]), which the caller follows with the entry's bytes, then the central
/// directory and end record ([`Writer::finish`]). The bytes themselves never pass through it,
/// so an export of many files is assembled as a `Blob` of the headers and the files' own blobs.
/// Not ZIP64: an archive over 4 GiB or of more than 65 535 entries is refused.
#[derive(Debug, Default)]
pub struct Writer {
    central: Vec<u8>,
    entries: u16,
    at: u64,
    date: (u16, u16),
}

impl Writer {
    /// An archive whose entries are dated `ms` since the epoch (UTC).
    pub fn new(ms: i64) -> Self {
        Writer {
            date: dos_date_time(ms),
            ..Writer::default()
        }
    }

    /// The local header of the entry `name` (UTF-8, `/` between folders) of `size` bytes whose
    /// CRC-32 is `crc`; its bytes are to follow it.
    pub fn entry(&mut self, name: &str, size: u64, crc: u32) -> Result<Vec<u8>, ZipError> {
        let too_large = || {
            bad("the export is over 4 GiB or 65 535 files, more than a .zip holds without ZIP64")
        };
        let name_len = u16::try_from(name.len()).map_err(|_| bad("a file name is too long"))?;
        let header_len = LOCAL_HEADER + u64::from(name_len);
        let end = self.at + header_len + size;
        let size32 = u32::try_from(size).map_err(|_| too_large())?;
        let local = u32::try_from(self.at).map_err(|_| too_large())?;
        // (0xFFFF entries, like 0xFFFFFFFF bytes, would read as ZIP64's mark.)
        if end >= u64::from(u32::MAX) || self.entries >= u16::MAX - 1 {
            return Err(too_large());
        }
        // Version 2.0, UTF-8 names (bit 11), stored, the time, CRC, both sizes, the name's length.
        let common = |out: &mut Vec<u8>| {
            out.extend_from_slice(&20u16.to_le_bytes());
            out.extend_from_slice(&0x0800u16.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&self.date.1.to_le_bytes());
            out.extend_from_slice(&self.date.0.to_le_bytes());
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&size32.to_le_bytes());
            out.extend_from_slice(&size32.to_le_bytes());
            out.extend_from_slice(&name_len.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
        };
        let mut header = Vec::with_capacity(header_len as usize);
        header.extend_from_slice(&LOCAL.to_le_bytes());
        common(&mut header);
        header.extend_from_slice(name.as_bytes());
        // Made by version 2.0 (MS-DOS attributes), then as above, then no comment, disk 0, no
        // attributes, the local header's offset, the name.
        let central = &mut self.central;
        central.extend_from_slice(&CENTRAL.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes());
        common(central);
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&local.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
        self.entries += 1;
        self.at = end;
        Ok(header)
    }

    /// The central directory and the end record, which close the archive.
    pub fn finish(self) -> Vec<u8> {
        let mut out = self.central;
        let size = out.len() as u32;
        out.extend_from_slice(&END.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&(self.at as u32).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }
}

/// `ms` since the epoch as MS-DOS's (date, time), UTC, two-second steps; 1980-01-01 before it.
fn dos_date_time(ms: i64) -> (u16, u16) {
    let iso = super::time::iso(ms.max(315_532_800_000));
    let n = |r: std::ops::Range<usize>| iso[r].parse::<u16>().unwrap_or(0);
    let date = ((n(0..4).clamp(1980, 2107) - 1980) << 9) | (n(5..7) << 5) | n(8..10);
    let time = (n(11..13) << 11) | (n(14..16) << 5) | (n(17..19) / 2);
    (date, time)
}

/// The files of an archive held in memory that `want` picks from its entries, each extracted —
/// the same steps the browser takes with slices of a `File`.
pub fn read_all<E: From<ZipError>>(
    zip: &[u8],
    want: impl FnOnce(Vec<Entry>) -> Result<Vec<Entry>, E>,
) -> Result<Vec<(Entry, Vec<u8>)>, E> {
    let len = zip.len() as u64;
    let slice = |from: u64, n: u64| -> Result<&[u8], ZipError> {
        let cut = || bad("the archive is cut short");
        let end = usize::try_from(from.saturating_add(n).min(len)).map_err(|_| cut())?;
        let from = usize::try_from(from).map_err(|_| cut())?;
        zip.get(from..end).ok_or_else(cut)
    };
    let dir = match end(slice(len.saturating_sub(TAIL), TAIL)?, len)? {
        End::Directory(d) => d,
        End::Zip64At(at) => zip64_directory(slice(at, ZIP64_RECORD)?, len)?,
    };
    let mut out = Vec::new();
    for e in want(entries(slice(dir.offset, dir.size)?)?)? {
        let start = data_start(&e, slice(e.local, LOCAL_HEADER)?)?;
        let data = slice(start, e.compressed)?;
        if (data.len() as u64) < e.compressed {
            return Err(bad(format!("{} is cut short", e.name)).into());
        }
        let bytes = extract(&e, data)?;
        out.push((e, bytes));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_writer_writes_the_reader_reads_back() {
        let files: [(&str, &[u8]); 3] = [
            ("satori-export.json", b"{\"format\":\"satori\"}"),
            ("files/ab.png", &[0x89, b'P', b'N', b'G', 0, 255, 7]),
            ("files/empty.txt", b""),
        ];
        let mut w = Writer::new(1_796_000_000_000);
        let mut zip = Vec::new();
        for (name, bytes) in files {
            zip.extend(w.entry(name, bytes.len() as u64, crc32(bytes)).unwrap());
            zip.extend_from_slice(bytes);
        }
        zip.extend(w.finish());
        let read = read_all::<ZipError>(&zip, Ok).unwrap();
        let got: Vec<(&str, &[u8])> = read
            .iter()
            .map(|(e, b)| (e.name.as_str(), b.as_slice()))
            .collect();
        assert_eq!(got, files);
        assert!(read.iter().all(|(e, _)| e.is_stored()));
        // A wrong checksum is caught by the reader, so the writer's is checked too.
        let mut w = Writer::new(0);
        let mut bad_zip = w.entry("a", 1, crc32(b"b")).unwrap();
        bad_zip.push(b'a');
        bad_zip.extend(w.finish());
        assert!(read_all::<ZipError>(&bad_zip, Ok).is_err());
    }

    #[test]
    fn dates_are_msdos_dates_in_utc() {
        // 2026-12-07T19:05:42Z
        let (date, time) = dos_date_time(1_796_670_342_000);
        assert_eq!((date >> 9, date >> 5 & 15, date & 31), (46, 12, 7));
        assert_eq!((time >> 11, time >> 5 & 63, (time & 31) * 2), (19, 5, 42));
        assert_eq!(dos_date_time(0), (1 << 5 | 1, 0));
    }

    #[test]
    fn an_archive_beyond_four_gib_is_refused() {
        let mut w = Writer::new(0);
        assert!(w.entry("a", u64::from(u32::MAX), 0).is_err());
        assert!(w.entry("a", 3 << 30, 0).is_ok());
        assert!(w.entry("b", 1 << 30, 0).is_err());
    }

    #[test]
    fn a_directory_larger_than_satori_reads_is_refused_before_it_is_read() {
        let mut record = vec![0u8; ZIP64_RECORD as usize];
        record[..4].copy_from_slice(&ZIP64_END.to_le_bytes());
        record[40..48].copy_from_slice(&(MAX_DIRECTORY + 1).to_le_bytes());
        let err = zip64_directory(&record, 10 * MAX_DIRECTORY).unwrap_err();
        assert_eq!(err.0, "its central directory is larger than Satori reads");
        record[40..48].copy_from_slice(&MAX_DIRECTORY.to_le_bytes());
        assert!(zip64_directory(&record, 10 * MAX_DIRECTORY).is_ok());
    }
}
