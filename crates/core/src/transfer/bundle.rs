//! An export in several files read as it arrives, in the import worker: the parts of a ChatGPT
//! export picked together, or an export's `.zip` (ChatGPT's, Claude's). The reader says which
//! bytes it needs ([`Bundle::want`]: which file, from where, how many) and is given them
//! ([`Bundle::push`]): for a `.zip`, its end, its central directory, then each conversation
//! file's local header and its data, unpacked as it arrives ([`zip::Unpack`]) and cut into
//! conversations ([`Stream::part`]); for parts picked together, each file's bytes. Files are read
//! in the order of their names, the manifest whole; the others are counted, never read.
//!
//! Invariants: the chats, skipped conversations, notes and refusals are those
//! [`parts::read`] gives for the same files (a test checks it on every archive of the zip corpus
//! and on parts picked together, at several slice sizes); the conversation files together are at
//! most [`MAX_STREAM_BYTES`] once unpacked; memory is one slice of the file, the inflater's window
//! and one conversation, never a whole file — except a part that is not a well-formed list of
//! conversations, which is read whole within [`MAX_BYTES`] as a single file is. Such a part, or
//! one whose conversations name a format late that wins over the first, is read again, and the
//! whole export with it from its first part ([`Bundle::again`]: the chats handed over so far are
//! void): at most three times a part, and never for an export of well-formed lists of one kind.

use super::error::{ImportError, MAX_BYTES, MAX_STREAM_BYTES};
use super::import::{Gather, Incoming, Rest};
use super::parts::{self, Kind};
use super::report::ChatReport;
use super::stream::{ListFormat, Stream, Want};
use super::zip::{self, Directory, End, Entry, Unpack};
use crate::session::Session;
use std::collections::BTreeSet;

/// Bytes of a file asked for at a time while its data is read (the worker reads a slice of the
/// `File` for each).
pub const SLICE: u64 = 4 << 20;

/// What the reader needs next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// `len` bytes of file `file` (its place among those picked) from `from`; fewer only at the
    /// file's end.
    Bytes {
        /// Which file.
        file: usize,
        /// From this offset.
        from: u64,
        /// How many.
        len: u64,
    },
    /// Nothing: [`Bundle::end`] has the outcome.
    Done,
}

/// One file of the export to read.
#[derive(Debug, Clone)]
struct Source {
    /// Its name (with its folders, in a `.zip`).
    name: String,
    kind: Kind,
    /// Which file picked holds it.
    file: usize,
    /// Its entry, in a `.zip`.
    entry: Option<Entry>,
    /// Bytes to read: stored bytes in a `.zip`, else the file's size.
    stored: u64,
    /// Bytes it holds once unpacked.
    size: u64,
}

/// How a conversation file is read, decided on an earlier pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    /// Cut into conversations, with this format from the start (`None`: the first that names
    /// one).
    Cut(Option<ListFormat>),
    /// Whole, as a single file is read.
    Whole,
}

/// Where the reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// A `.zip`'s last bytes.
    Tail,
    /// A ZIP64 archive's end record, at this offset.
    Zip64(u64),
    /// A `.zip`'s central directory.
    Directory(Directory),
    /// The local header of source `k` (in a `.zip`).
    Header(usize),
    /// Source `k`'s data, from `start` in its file, `at` bytes of it read.
    Data { k: usize, start: u64, at: u64 },
    /// The end.
    Done,
}

/// Where the content of the source being read goes.
enum Sink {
    /// Cut into conversations.
    Cut(Box<Stream>),
    /// Gathered whole (at most [`MAX_BYTES`]).
    Whole(Vec<u8>),
}

/// An export in several files read as it arrives; see the module's header.
pub struct Bundle {
    /// Sizes of the files picked.
    sizes: Vec<u64>,
    slice: u64,
    phase: Phase,
    sources: Vec<Source>,
    decided: Vec<Decision>,
    others: usize,
    /// The source being read: its unpacker (in a `.zip`) and where its content goes.
    unpack: Option<Unpack>,
    sink: Option<Sink>,
    gather: Gather,
    claude: bool,
    numbers: BTreeSet<u32>,
    named: BTreeSet<u32>,
    unread_manifest: bool,
    /// Stored bytes read of the sources' total, this pass.
    read: u64,
    total: u64,
    ready: Vec<(Session, Option<ChatReport>)>,
    again: bool,
    /// Times the export was read again from its first file (at most [`MOST_RESTARTS`]).
    restarts: u32,
    outcome: Option<Result<Rest, ImportError>>,
}

/// Readings of an export again from its first file, at most: each is a pass over everything
/// read so far, so a crafted archive of many parts that each ask for one would take the worker
/// a pass per part. A real export needs one or two.
const MOST_RESTARTS: u32 = 8;

impl Bundle {
    fn new(sizes: Vec<u64>) -> Self {
        Bundle {
            sizes,
            slice: SLICE,
            phase: Phase::Tail,
            sources: Vec::new(),
            decided: Vec::new(),
            others: 0,
            unpack: None,
            sink: None,
            gather: Gather::default(),
            claude: false,
            numbers: BTreeSet::new(),
            named: BTreeSet::new(),
            unread_manifest: false,
            read: 0,
            total: 0,
            ready: Vec::new(),
            again: false,
            restarts: 0,
            outcome: None,
        }
    }

    /// An export's `.zip` of `size` bytes (file 0).
    pub fn zip(size: u64) -> Self {
        Bundle::new(vec![size])
    }

    /// Files picked together: their names and sizes, in the order picked (the order [`Need`]
    /// names them by). Their conversation files together larger than [`MAX_STREAM_BYTES`], or
    /// none of them one: refused at once.
    pub fn files(files: Vec<(String, u64)>) -> Self {
        let mut b = Bundle::new(files.iter().map(|f| f.1).collect());
        let mut sources = Vec::new();
        for (i, (name, size)) in files.into_iter().enumerate() {
            match parts::kind(&name) {
                Kind::Other => b.others += 1,
                kind => sources.push(Source {
                    name,
                    kind,
                    file: i,
                    entry: None,
                    stored: size,
                    size,
                }),
            }
        }
        if !sources
            .iter()
            .any(|s| matches!(s.kind, Kind::Conversations(_)))
        {
            b.done(Err(ImportError::UnknownFormat(parts::NO_PART.into())));
            return b;
        }
        let bytes = sources
            .iter()
            .map(|s| s.size)
            .fold(0u64, u64::saturating_add);
        if bytes > MAX_STREAM_BYTES as u64 {
            b.done(Err(ImportError::TooLargeTogether {
                bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
                limit: MAX_STREAM_BYTES,
            }));
            return b;
        }
        b.sources(sources);
        b
    }

    /// Ask for at most `slice` bytes at a time while data is read (tests).
    pub fn with_slice(mut self, slice: u64) -> Self {
        self.slice = slice.max(1);
        self
    }

    /// What the reader needs next.
    pub fn want(&self) -> Need {
        let bytes = |from: u64, len: u64| Need::Bytes { file: 0, from, len };
        match self.phase {
            Phase::Tail => {
                let size = self.sizes[0];
                let from = size.saturating_sub(zip::TAIL);
                bytes(from, size - from)
            }
            Phase::Zip64(at) => bytes(at, zip::ZIP64_RECORD),
            Phase::Directory(d) => bytes(d.offset, d.size),
            Phase::Header(k) => {
                let local = self.sources[k].entry.as_ref().map_or(0, |e| e.local);
                bytes(local, zip::LOCAL_HEADER)
            }
            Phase::Data { k, start, at } => {
                let s = &self.sources[k];
                Need::Bytes {
                    file: s.file,
                    from: start + at,
                    len: (s.stored - at).min(self.slice),
                }
            }
            Phase::Done => Need::Done,
        }
    }

    /// Stored bytes read of the conversation files' total (for progress): `(read, total)`.
    pub fn progress(&self) -> (u64, u64) {
        // The manifest's bytes are read but not counted in the total: never past the end.
        (self.read.min(self.total), self.total)
    }

    /// The chats read since the last call, each with what its import converted.
    pub fn take(&mut self) -> Vec<(Session, Option<ChatReport>)> {
        std::mem::take(&mut self.ready)
    }

    /// Whether reading started again from the first file since the last call: every chat taken
    /// before is void.
    pub fn again(&mut self) -> bool {
        std::mem::take(&mut self.again)
    }

    /// How the export ended: the rest of what it holds, or why it cannot be imported. `None`
    /// until [`Need::Done`].
    pub fn end(&mut self) -> Option<Result<Rest, ImportError>> {
        self.outcome.take()
    }

    fn done(&mut self, outcome: Result<Rest, ImportError>) {
        self.outcome = Some(outcome);
        self.phase = Phase::Done;
        self.unpack = None;
        self.sink = None;
        self.ready.clear();
    }

    /// The bytes [`Bundle::want`] asked for.
    pub fn push(&mut self, bytes: &[u8]) {
        if let Err(e) = self.step(bytes) {
            self.done(Err(e));
        }
    }

    fn step(&mut self, bytes: &[u8]) -> Result<(), ImportError> {
        let size = self.sizes[0];
        match self.phase {
            Phase::Tail => {
                self.phase = match zip::end(bytes, size)? {
                    End::Directory(d) => Phase::Directory(d),
                    End::Zip64At(at) => Phase::Zip64(at),
                };
            }
            Phase::Zip64(_) => {
                self.phase = Phase::Directory(zip::zip64_directory(bytes, size)?);
            }
            Phase::Directory(d) => {
                if (bytes.len() as u64) < d.size {
                    return Err(zip::ZipError("the archive is cut short".into()).into());
                }
                let all = zip::entries(bytes)?;
                let count = all.len();
                let wanted = parts::wanted(all)?;
                self.others = count - wanted.len();
                let sources = wanted
                    .into_iter()
                    .map(|e| Source {
                        name: e.name.clone(),
                        kind: parts::kind(&e.name),
                        file: 0,
                        stored: e.compressed,
                        size: e.size,
                        entry: Some(e),
                    })
                    .collect();
                self.sources(sources);
            }
            Phase::Header(k) => {
                let s = &self.sources[k];
                let entry = s.entry.as_ref().expect("a source of a .zip has its entry");
                let start = zip::data_start(entry, bytes)?;
                self.unpack = Some(Unpack::new(entry)?);
                self.phase = Phase::Data { k, start, at: 0 };
                self.check_data(k)?;
            }
            Phase::Data { k, start, at } => {
                let s = &self.sources[k];
                let asked = (s.stored - at).min(self.slice);
                if (bytes.len() as u64) < asked {
                    if s.entry.is_some() {
                        return Err(zip::ZipError(format!("{} is cut short", s.name)).into());
                    }
                    // A picked file shorter than it was: read to where it ends.
                    self.sources[k].stored = at + bytes.len() as u64;
                }
                self.read += bytes.len() as u64;
                self.phase = Phase::Data {
                    k,
                    start,
                    at: at + bytes.len() as u64,
                };
                if self.feed(k, bytes)? {
                    // Read again from the first file: nothing more of these bytes.
                    return Ok(());
                }
                self.check_data(k)?;
            }
            Phase::Done => {}
        }
        Ok(())
    }

    /// The sources to read, in the order of their names; reading starts with the first.
    fn sources(&mut self, mut sources: Vec<Source>) {
        sources.sort_by(|a, b| a.name.cmp(&b.name));
        self.total = sources
            .iter()
            .filter(|s| s.kind != Kind::Manifest)
            .map(|s| s.stored)
            .sum();
        self.decided = vec![Decision::Cut(None); sources.len()];
        self.sources = sources;
        self.begin(0);
    }

    /// Start reading source `k` (or end, after the last).
    fn begin(&mut self, k: usize) {
        let Some(s) = self.sources.get(k) else {
            return self.finish();
        };
        let decision = self.decided[k];
        let whole = s.kind == Kind::Manifest || decision == Decision::Whole;
        if whole && s.size > MAX_BYTES as u64 {
            if s.kind == Kind::Manifest {
                self.unread_manifest = true;
                return self.begin(k + 1);
            }
            return self.done(Err(ImportError::InFile {
                file: parts::base(&s.name).to_string(),
                error: Box::new(ImportError::TooLarge {
                    bytes: usize::try_from(s.size).unwrap_or(usize::MAX),
                    limit: MAX_BYTES,
                }),
            }));
        }
        self.sink = Some(match decision {
            _ if whole => Sink::Whole(Vec::with_capacity(s.size as usize)),
            Decision::Cut(format) => Sink::Cut(Box::new(Stream::part(
                s.size,
                parts::base(&s.name),
                format,
                std::mem::take(&mut self.gather),
            ))),
            Decision::Whole => unreachable!("whole is handled above"),
        });
        self.unpack = None;
        if s.entry.is_some() {
            self.phase = Phase::Header(k);
        } else {
            self.phase = Phase::Data { k, start: 0, at: 0 };
            if let Err(e) = self.check_data(k) {
                self.done(Err(e));
            }
        }
    }

    /// Source `k` read to its end: its content checked (in a `.zip`) and read, then the next.
    fn check_data(&mut self, k: usize) -> Result<(), ImportError> {
        let Phase::Data { at, .. } = self.phase else {
            return Ok(());
        };
        if at < self.sources[k].stored {
            return Ok(());
        }
        if let Some(unpack) = self.unpack.as_mut() {
            unpack.finish()?;
        }
        self.unpack = None;
        let s = &self.sources[k];
        let name = s.name.clone();
        match self.sink.take() {
            Some(Sink::Whole(bytes)) => {
                let text = String::from_utf8_lossy(&bytes);
                if s.kind == Kind::Manifest {
                    match parts::manifest_parts(&text) {
                        Some(named) => self.named.extend(named),
                        None => self.unread_manifest = true,
                    }
                } else {
                    if let Kind::Conversations(n) = s.kind {
                        self.numbers.extend(n);
                    }
                    let (read, format) = parts::read_part(&name, &text)?;
                    self.claude |= format == Some(ListFormat::Claude);
                    for r in read {
                        if let Some((chat, report)) = self.gather.take(r) {
                            let report = (!report.is_empty()).then_some(report);
                            self.ready.push((chat, report));
                        }
                    }
                }
            }
            Some(Sink::Cut(mut stream)) => {
                stream.push(&[]);
                match stream.want() {
                    Want::Whole => {
                        self.restart(k, Decision::Whole);
                        return Ok(());
                    }
                    Want::From(_) => {
                        let format = stream.format();
                        self.restart(k, Decision::Cut(format));
                        return Ok(());
                    }
                    Want::Done => {}
                }
                self.ready.extend(stream.take());
                let end = stream.end();
                self.claude |= stream.format() == Some(ListFormat::Claude);
                if let Kind::Conversations(n) = s.kind {
                    self.numbers.extend(n);
                }
                self.gather = (*stream).gathered();
                if let Some(Err(e)) = end {
                    return Err(e);
                }
            }
            None => {}
        }
        self.begin(k + 1);
        Ok(())
    }

    /// The next content of source `k`, to its sink; `true` when the export is to be read again
    /// from its first file.
    fn feed(&mut self, k: usize, bytes: &[u8]) -> Result<bool, ImportError> {
        let Some(sink) = self.sink.as_mut() else {
            return Ok(false);
        };
        let mut into = |piece: &[u8]| match sink {
            Sink::Whole(all) => {
                all.extend_from_slice(piece);
                true
            }
            Sink::Cut(stream) => {
                stream.push(piece);
                matches!(stream.want(), Want::From(at) if at > 0)
            }
        };
        match self.unpack.as_mut() {
            Some(unpack) => unpack.push(bytes, into)?,
            None => {
                into(bytes);
            }
        }
        if let Some(Sink::Cut(stream)) = self.sink.as_mut() {
            let again = match stream.want() {
                Want::Whole => true,
                Want::From(0) => stream.progress().0 > 0,
                _ => false,
            };
            if again && self.restarts >= MOST_RESTARTS {
                return Err(zip::ZipError(
                    "its parts do not agree on one format (read again too many times)".into(),
                )
                .into());
            }
            match stream.want() {
                Want::Whole => {
                    self.restart(k, Decision::Whole);
                    return Ok(true);
                }
                // From the start again, once something was read (see `Stream::part`).
                Want::From(0) if stream.progress().0 > 0 => {
                    let format = stream.format();
                    self.restart(k, Decision::Cut(format));
                    return Ok(true);
                }
                _ => self.ready.extend(stream.take()),
            }
        }
        Ok(false)
    }

    /// Source `k` is to be read another way: the whole export again from its first file.
    fn restart(&mut self, k: usize, decision: Decision) {
        self.restarts += 1;
        self.decided[k] = decision;
        self.again = true;
        self.ready.clear();
        self.gather = Gather::default();
        self.claude = false;
        self.numbers.clear();
        self.named.clear();
        self.unread_manifest = false;
        self.read = 0;
        self.unpack = None;
        self.sink = None;
        self.begin(0);
    }

    /// Every source read: the notes, the conversations skipped, or the refusal when not one
    /// chat could be read.
    fn finish(&mut self) {
        let gather = std::mem::take(&mut self.gather);
        let outcome = gather.finish(parts::what(self.claude)).map(|skipped| Rest {
            skipped,
            notes: parts::notes(
                &self.numbers,
                &self.named,
                self.others,
                self.unread_manifest,
            ),
            ..Rest::default()
        });
        let ready = std::mem::take(&mut self.ready);
        self.done(outcome);
        if matches!(self.outcome, Some(Ok(_))) {
            self.ready = ready;
        }
    }
}

/// Files held in memory read as the import worker reads picked files (`b` says which bytes;
/// `files` in the order it names them): the chats, and the rest or the refusal — what
/// [`zip::read_all`] is to a `.zip` read whole.
pub fn read_all(mut b: Bundle, files: &[&[u8]]) -> Result<Incoming, ImportError> {
    let mut chats = Vec::new();
    loop {
        if b.again() {
            chats.clear();
        }
        chats.extend(b.take());
        match b.want() {
            Need::Bytes { file, from, len } => {
                let bytes = files.get(file).copied().unwrap_or_default();
                let from = usize::try_from(from).unwrap_or(usize::MAX).min(bytes.len());
                let end = from
                    .saturating_add(usize::try_from(len).unwrap_or(usize::MAX))
                    .min(bytes.len());
                b.push(&bytes[from..end]);
            }
            Need::Done => break,
        }
    }
    chats.extend(b.take());
    let rest = b.end().unwrap_or(Err(ImportError::Empty))?;
    let (chats, reports): (Vec<Session>, Vec<Option<ChatReport>>) = chats.into_iter().unzip();
    Ok(Incoming {
        chats,
        reports: reports.into_iter().flatten().collect(),
        notes: rest.notes,
        skipped: rest.skipped,
        ..Incoming::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transfer::zip;

    fn bundled(b: Bundle, files: &[&[u8]]) -> Result<Incoming, ImportError> {
        read_all(b, files)
    }

    /// A `.zip` read whole in memory, then its parts ([`parts::read`]): the reference.
    fn whole_zip(bytes: &[u8]) -> Result<Incoming, ImportError> {
        let mut others = 0;
        let files = zip::read_all(bytes, |entries| {
            let all = entries.len();
            let wanted = parts::wanted(entries)?;
            others = all - wanted.len();
            Ok::<_, ImportError>(wanted)
        })?;
        let files = files
            .into_iter()
            .map(|(e, b)| (e.name, String::from_utf8_lossy(&b).into_owned()))
            .collect();
        parts::read(files, others)
    }

    const SLICES: [u64; 6] = [1, 7, 64, 1000, 4096, SLICE];

    const ARCHIVES: [(&str, &[u8]); 3] = [
        (
            "chatgpt-export.zip",
            include_bytes!("../../../../tests/fixtures/import/zip/chatgpt-export.zip"),
        ),
        (
            "bad-crc.zip",
            include_bytes!("../../../../tests/fixtures/import/zip/bad-crc.zip"),
        ),
        (
            "bad-json-part.zip",
            include_bytes!("../../../../tests/fixtures/import/zip/bad-json-part.zip"),
        ),
    ];

    #[test]
    fn archives_read_as_when_held_whole() {
        // Every archive of the corpus: `tests/import.rs`.
        for (name, bytes) in ARCHIVES {
            let whole = whole_zip(bytes);
            for slice in SLICES {
                let b = Bundle::zip(bytes.len() as u64).with_slice(slice);
                assert_eq!(bundled(b, &[bytes]), whole, "{name}, slices of {slice}");
            }
        }
    }

    /// Parts picked as files read as the worker reads them, at every slice size, give what
    /// [`parts::read`] gives for their whole texts.
    fn same_parts(files: &[(&str, &str)], what: &str) -> Result<Incoming, ImportError> {
        let others = files
            .iter()
            .filter(|f| parts::kind(f.0) == Kind::Other)
            .count();
        let read: Vec<(String, String)> = files
            .iter()
            .filter(|f| parts::kind(f.0) != Kind::Other)
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        let whole = parts::read(read, others);
        let bytes: Vec<&[u8]> = files.iter().map(|f| f.1.as_bytes()).collect();
        for slice in SLICES {
            let b = Bundle::files(
                files
                    .iter()
                    .map(|(n, t)| (n.to_string(), t.len() as u64))
                    .collect(),
            )
            .with_slice(slice);
            assert_eq!(bundled(b, &bytes), whole, "{what}, slices of {slice}");
        }
        whole
    }

    fn fixture(name: &str) -> String {
        match name {
            "chatgpt-conversations.json" => {
                include_str!("../../../../tests/fixtures/import/chatgpt-conversations.json")
            }
            "claude-conversations.json" => {
                include_str!("../../../../tests/fixtures/import/claude-conversations.json")
            }
            _ => include_str!("../../../../tests/fixtures/import/chatgpt-tools-citations.json"),
        }
        .to_string()
    }

    #[test]
    fn parts_picked_together_read_as_when_held_whole() {
        let chatgpt = fixture("chatgpt-conversations.json");
        let list: Vec<serde_json::Value> = serde_json::from_str(&chatgpt).unwrap();
        let one = |i: usize| serde_json::to_string(&[&list[i]]).unwrap();
        let (p0, p1) = (one(0), one(1));
        let claude = fixture("claude-conversations.json");
        let tools = fixture("chatgpt-tools-citations.json");
        let manifest = r#"{"files":["conversations-000.json","conversations-001.json","conversations-003.json"]}"#;
        let broken = r#"[{"mapping":"no"},{"title":"t","mapping":{}}]"#;
        // Claude's conversations first, ChatGPT's later in the same list: read again with
        // ChatGPT's reader, as a whole file is.
        let mixed = format!(
            "[{},{}]",
            serde_json::to_string(&serde_json::from_str::<serde_json::Value>(&claude).unwrap()[0])
                .unwrap(),
            serde_json::to_string(&list[0]).unwrap()
        );
        let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
            (
                "two parts",
                vec![
                    ("conversations-001.json", &p1),
                    ("conversations-000.json", &p0),
                ],
            ),
            (
                "a part missing, a manifest, another file",
                vec![
                    ("conversations-000.json", &p0),
                    ("conversations-002.json", "[]"),
                    ("export_manifest.json", manifest),
                    ("user.json", "{}"),
                ],
            ),
            (
                "a damaged manifest",
                vec![
                    ("conversations-000.json", &p0),
                    ("export_manifest.json", "{"),
                ],
            ),
            (
                "untitled broken ones in two parts",
                vec![
                    ("conversations-000.json", broken),
                    ("conversations-001.json", broken),
                    ("conversations-002.json", &p0),
                ],
            ),
            (
                "the same chat in two parts",
                vec![
                    ("conversations-000.json", &p0),
                    ("conversations-001.json", &p0),
                ],
            ),
            (
                "Claude's conversations.json",
                vec![("conversations.json", &claude)],
            ),
            (
                "skipped and converted",
                vec![("conversations-000.json", &tools)],
            ),
            (
                "formats mixed in a part",
                vec![
                    ("conversations-000.json", &p0),
                    ("conversations-001.json", &mixed),
                ],
            ),
            (
                "a part that is not JSON",
                vec![
                    ("conversations-000.json", &p0),
                    ("conversations-001.json", "[{\"mapping\":"),
                ],
            ),
            (
                "a part that is not a list",
                vec![
                    ("conversations-000.json", &p0),
                    ("conversations-001.json", "{\"a\":1}"),
                ],
            ),
            (
                "a list of something else",
                vec![("conversations-000.json", "[{\"a\":1}]")],
            ),
            ("an empty part", vec![("conversations-000.json", "")]),
            ("only empty lists", vec![("conversations-000.json", "[]")]),
            ("none readable", vec![("conversations-000.json", broken)]),
            (
                "no conversations",
                vec![("export_manifest.json", manifest), ("user.json", "{}")],
            ),
        ];
        for (what, files) in &cases {
            let _ = same_parts(files, what);
        }
        // What the cases show, said once here.
        let two = same_parts(&cases[0].1, "two parts").unwrap();
        assert_eq!(two.chats.len(), 2);
        let gaps = same_parts(&cases[1].1, "a part missing").unwrap();
        assert_eq!(
            gaps.notes,
            [
                "2 parts of the export are missing, so their chats are not imported: conversations-001.json, conversations-003.json",
                "1 other file of the export (images, account data) was not read"
            ]
        );
        let untitled = same_parts(&cases[3].1, "untitled").unwrap();
        let names: Vec<&str> = untitled.skipped.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "untitled chat #1 of conversations-000.json",
                "t",
                "untitled chat #1 of conversations-001.json",
                "t"
            ]
        );
        assert!(same_parts(&cases[8].1, "not JSON")
            .unwrap_err()
            .to_string()
            .starts_with("conversations-001.json: the file is not valid JSON"));
    }

    #[test]
    fn a_part_read_again_says_so_once_and_the_chats_before_are_void() {
        let list: Vec<serde_json::Value> =
            serde_json::from_str(&fixture("chatgpt-conversations.json")).unwrap();
        let p0 = serde_json::to_string(&[&list[0]]).unwrap();
        let bad = "[{\"mapping\":";
        let files = [
            ("conversations-000.json", p0.as_str()),
            ("conversations-001.json", bad),
        ];
        let mut b = Bundle::files(
            files
                .iter()
                .map(|(n, t)| (n.to_string(), t.len() as u64))
                .collect(),
        );
        let mut agains = 0;
        let mut chats = 0;
        while let Need::Bytes { file, from, len } = b.want() {
            let text = files[file].1.as_bytes();
            b.push(&text[from as usize..(from + len) as usize]);
            if b.again() {
                agains += 1;
                chats = 0;
            }
            chats += b.take().len();
        }
        assert_eq!(agains, 1);
        // The first part's chat, handed over on the first pass, is void; on the second it is
        // handed over once more, then the refusal voids everything.
        assert_eq!(chats, 1);
        assert!(matches!(b.end(), Some(Err(ImportError::InFile { .. }))));
        // A later conversation that names a format winning over the first: the part is cut
        // again with that format from its start, not read whole.
        let claude: Vec<serde_json::Value> =
            serde_json::from_str(&fixture("claude-conversations.json")).unwrap();
        let mixed = serde_json::to_string(&[&claude[0], &list[0]]).unwrap();
        let files = [("conversations-000.json", mixed.as_str())];
        for slice in [1, 50, SLICE] {
            let b = Bundle::files(vec![(files[0].0.into(), mixed.len() as u64)]).with_slice(slice);
            let mut b = b;
            while let Need::Bytes { from, len, .. } = b.want() {
                b.push(&mixed.as_bytes()[from as usize..(from + len) as usize]);
            }
            assert_eq!(
                b.decided,
                [Decision::Cut(Some(ListFormat::ChatGpt))],
                "slices of {slice}"
            );
            assert!(b.end().unwrap().is_ok());
        }
    }

    #[test]
    fn an_export_read_again_part_after_part_is_refused_after_a_few_passes() {
        // Every part starts with a Claude conversation and goes on with a ChatGPT one: each is
        // read again from the first file with ChatGPT's format, one pass per part.
        let claude: Vec<serde_json::Value> =
            serde_json::from_str(&fixture("claude-conversations.json")).unwrap();
        let list: Vec<serde_json::Value> =
            serde_json::from_str(&fixture("chatgpt-conversations.json")).unwrap();
        let mixed = serde_json::to_string(&[&claude[0], &list[0]]).unwrap();
        let names: Vec<String> = (0..40)
            .map(|i| format!("conversations-{i:03}.json"))
            .collect();
        let mut b = Bundle::files(
            names
                .iter()
                .map(|n| (n.clone(), mixed.len() as u64))
                .collect(),
        );
        let mut pushes = 0;
        while let Need::Bytes { from, len, .. } = b.want() {
            b.push(&mixed.as_bytes()[from as usize..(from + len) as usize]);
            pushes += 1;
            let _ = b.again();
            b.take();
        }
        assert!(b.restarts <= MOST_RESTARTS, "{} passes", b.restarts);
        let refusal = format!("{:?}", b.end());
        assert!(refusal.contains("do not agree on one format"), "{refusal}");
        assert!(pushes < 40 * MOST_RESTARTS as usize, "{pushes} reads");
    }

    #[test]
    fn the_ceiling_of_an_export_in_parts_is_that_of_a_long_file() {
        let big = 300 * 1000 * 1000;
        let b = Bundle::files(vec![
            ("conversations-000.json".into(), big),
            ("conversations-001.json".into(), big),
            ("file-1.png".into(), 5 * big),
        ]);
        // 600 MB of conversations, more than a whole file may hold: read, a slice at a time.
        assert_eq!(
            b.want(),
            Need::Bytes {
                file: 0,
                from: 0,
                len: SLICE
            }
        );
        assert_eq!(b.progress(), (0, 2 * big));
        let mut b = Bundle::files(vec![
            ("conversations-000.json".into(), 4 * big),
            ("conversations-001.json".into(), big),
        ]);
        assert_eq!(b.want(), Need::Done);
        assert_eq!(
            b.end().unwrap().unwrap_err().to_string(),
            "the export's conversations take 1500.0 MB, more than the 1000.0 MB Satori imports"
        );
    }

    /// A `.zip` of `files`, deflated (a writer just big enough for the tests).
    fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data) in files {
            let packed = miniz_oxide::deflate::compress_to_vec(data, 6);
            let crc = zip::crc32(data);
            let local = out.len() as u32;
            let fields = |sig: u32, out: &mut Vec<u8>| {
                out.extend_from_slice(&sig.to_le_bytes());
            };
            fields(0x0403_4b50, &mut out);
            for v in [20u16, 0, 8, 0, 0] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            for v in [crc, packed.len() as u32, data.len() as u32] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(&packed);
            fields(0x0201_4b50, &mut central);
            for v in [20u16, 20, 0, 8, 0, 0] {
                central.extend_from_slice(&v.to_le_bytes());
            }
            for v in [crc, packed.len() as u32, data.len() as u32] {
                central.extend_from_slice(&v.to_le_bytes());
            }
            for v in [name.len() as u16, 0, 0, 0, 0] {
                central.extend_from_slice(&v.to_le_bytes());
            }
            central.extend_from_slice(&0u32.to_le_bytes());
            central.extend_from_slice(&local.to_le_bytes());
            central.extend_from_slice(name.as_bytes());
        }
        let at = out.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        for v in [0u16, 0, files.len() as u16, files.len() as u16] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&at.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }

    #[test]
    fn a_zip_is_unpacked_as_it_arrives_never_whole() {
        // 400 conversations of about 10 KB: 4 MB unpacked, a few KB packed.
        let list: Vec<serde_json::Value> =
            serde_json::from_str(&fixture("chatgpt-conversations.json")).unwrap();
        let conv = |i: usize| {
            let mut c = list[0].clone();
            c["id"] = format!("c{i}").into();
            c["conversation_id"] = format!("c{i}").into();
            c["title"] = format!("Chat {i} {}", "long title ".repeat(900)).into();
            c
        };
        let part = |from: usize| {
            serde_json::to_vec(&(from..from + 200).map(conv).collect::<Vec<_>>()).unwrap()
        };
        let (p0, p1) = (part(0), part(200));
        let archive = zip_of(&[
            ("Export/conversations-001.json", &p1),
            ("Export/conversations-000.json", &p0),
            ("Export/file-abc.png", &[7u8; 5000]),
        ]);
        assert!(archive.len() < 100_000, "{}", archive.len());
        let mut b = Bundle::zip(archive.len() as u64).with_slice(1000);
        let mut chats = Vec::new();
        let mut most = 0;
        while let Need::Bytes { from, len, .. } = b.want() {
            assert!(len <= 1000 || b.progress().1 == 0, "a slice at a time");
            let end = (from + len).min(archive.len() as u64) as usize;
            b.push(&archive[from as usize..end]);
            assert!(!b.again());
            let got = b.take();
            most = most.max(got.len());
            chats.extend(got.into_iter().map(|(c, _)| c.title));
        }
        let rest = b.end().unwrap().unwrap();
        assert_eq!(chats.len(), 400);
        // In the order of the parts' names, handed over as they were unpacked.
        assert!(chats[0].starts_with("Chat 0 ") && chats[399].starts_with("Chat 399 "));
        assert!(
            most < 50,
            "chats handed over a few at a time, not at the end: {most}"
        );
        assert_eq!(
            rest.notes,
            ["1 other file of the export (images, account data) was not read"]
        );
    }

    #[test]
    fn unpacking_gives_the_same_content_at_any_split_and_never_more_than_declared() {
        let data: Vec<u8> = (0..700_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let archive = zip_of(&[("conversations.json", &data)]);
        let mut entries = Vec::new();
        let _ = zip::read_all(&archive, |e| {
            entries = e.clone();
            Ok::<_, zip::ZipError>(Vec::new())
        });
        let entry = &entries[0];
        let start = zip::data_start(entry, &archive[entry.local as usize..]).unwrap() as usize;
        let stored = &archive[start..start + entry.compressed as usize];
        for split in [1, 3, 100, 65_536, stored.len()] {
            let mut u = Unpack::new(entry).unwrap();
            let mut out = Vec::new();
            for piece in stored.chunks(split) {
                u.push(piece, |p| {
                    assert!(p.len() <= zip::PIECE);
                    out.extend_from_slice(p);
                    true
                })
                .unwrap();
            }
            u.finish().unwrap();
            assert!(out == data, "split {split}");
        }
        // Declared smaller than it is: refused once past the declared size, not at the end.
        let mut small = entry.clone();
        small.size = 1000;
        let mut u = Unpack::new(&small).unwrap();
        let mut given = 0;
        let err = u.push(stored, |p| {
            given += p.len();
            true
        });
        assert_eq!(
            err,
            Err(zip::ZipError(
                "conversations.json is damaged (its data does not match its checksum)".into()
            ))
        );
        assert_eq!(given, 0);
        // Cut short: the end says so.
        let mut u = Unpack::new(entry).unwrap();
        u.push(&stored[..stored.len() / 2], |_| true).unwrap();
        assert!(u.finish().is_err());
    }
}
