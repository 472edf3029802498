//! The import worker's module: a long export read as it arrives (`satori_core::transfer::stream`
//! for one file, `satori_core::transfer::bundle` for an export's `.zip` or its parts picked
//! together: the core crate, not the app library, so no Leptos is linked in), run in a worker
//! (`src/web/import-worker.js`) so that reading, unpacking, parsing and converting files of
//! hundreds of megabytes takes the worker's time, never the page's. The worker feeds it the bytes
//! it asks for and posts what it answers to the page: each an `ImportEvent`
//! (`satori_core::protocol`) as JSON — the bytes read and the chats converted so far, "reading
//! again from the start", the end. `scripts/build.sh` builds it into `dist/import-<hash>/` with the
//! worker; the dialogs module starts the worker (`src/adapters/import_worker.rs`).

use satori_core::protocol::ImportEvent;
use satori_core::session::Session;
use satori_core::transfer::bundle::{Bundle, Need};
use satori_core::transfer::import::{ChatReport, ImportError, Rest};
use satori_core::transfer::stream::{Stream, Want};
use wasm_bindgen::prelude::wasm_bindgen;

/// At most this many bytes of chats (as JSON) in one event: the page reads each event in one
/// task, so a long file never holds it long.
const EVENT_BYTES: usize = 1 << 20;

/// A file being read.
#[wasm_bindgen]
pub struct Reader {
    stream: Stream,
    events: Vec<String>,
}

#[wasm_bindgen]
impl Reader {
    /// A file of `total` bytes.
    #[wasm_bindgen(constructor)]
    pub fn new(total: f64) -> Reader {
        let mut r = Reader {
            stream: Stream::new(total as u64),
            events: Vec::new(),
        };
        r.gather(false);
        r
    }

    /// What it wants next: the offset of the bytes it wants, `-1` for the whole file as text,
    /// `-2` for nothing (done).
    pub fn want(&self) -> f64 {
        match self.stream.want() {
            Want::From(at) => at as f64,
            Want::Whole => -1.0,
            Want::Done => -2.0,
        }
    }

    /// The next bytes of the file (empty at its end).
    pub fn push(&mut self, bytes: &[u8]) {
        let before = self.stream.want();
        self.stream.push(bytes);
        let again = self.stream.want() == Want::From(0) && before != Want::From(0)
            || self.stream.want() == Want::Whole;
        self.gather(again);
    }

    /// The whole file as text (when [`Reader::want`] said `-1`).
    pub fn whole(&mut self, text: &str) {
        self.stream.whole(text);
        self.gather(false);
    }

    /// The next event to post to the page, JSON; `undefined` when there is none.
    pub fn event(&mut self) -> Option<String> {
        if self.events.is_empty() {
            None
        } else {
            Some(self.events.remove(0))
        }
    }
}

impl Reader {
    fn gather(&mut self, again: bool) {
        let progress = self.stream.progress();
        let chats = self.stream.take();
        let more = self.stream.want() != Want::Done;
        let end = self.stream.end();
        events(&mut self.events, again, progress, chats, more, end);
    }
}

/// An export's `.zip`, or its parts picked together, being read.
#[wasm_bindgen]
pub struct Export {
    bundle: Bundle,
    events: Vec<String>,
}

#[wasm_bindgen]
impl Export {
    /// A `.zip` of `size` bytes.
    pub fn zip(size: f64) -> Export {
        Export::with(Bundle::zip(size as u64))
    }

    /// Files picked together: their `names` and `sizes`, in the order they are given by.
    pub fn parts(names: Vec<String>, sizes: Vec<f64>) -> Export {
        let files = names
            .into_iter()
            .zip(sizes)
            .map(|(n, s)| (n, s as u64))
            .collect();
        Export::with(Bundle::files(files))
    }

    fn with(bundle: Bundle) -> Export {
        let mut e = Export {
            bundle,
            events: Vec::new(),
        };
        e.gather();
        e
    }

    /// Which file it wants bytes of next (its place among those given), `-1` for none (done).
    pub fn file(&self) -> i32 {
        match self.bundle.want() {
            Need::Bytes { file, .. } => file as i32,
            Need::Done => -1,
        }
    }

    /// From where in that file.
    pub fn from(&self) -> f64 {
        match self.bundle.want() {
            Need::Bytes { from, .. } => from as f64,
            Need::Done => 0.0,
        }
    }

    /// How many bytes (fewer only at the file's end).
    pub fn length(&self) -> f64 {
        match self.bundle.want() {
            Need::Bytes { len, .. } => len as f64,
            Need::Done => 0.0,
        }
    }

    /// The bytes asked for.
    pub fn push(&mut self, bytes: &[u8]) {
        self.bundle.push(bytes);
        self.gather();
    }

    /// The next event to post to the page, JSON; `undefined` when there is none.
    pub fn event(&mut self) -> Option<String> {
        if self.events.is_empty() {
            None
        } else {
            Some(self.events.remove(0))
        }
    }

    fn gather(&mut self) {
        let again = self.bundle.again();
        let progress = self.bundle.progress();
        let chats = self.bundle.take();
        let more = self.bundle.want() != Need::Done;
        let end = self.bundle.end();
        events(&mut self.events, again, progress, chats, more, end);
    }
}

/// The events for what happened since the last ones: `again` when reading starts over, then
/// the `progress` with the `chats` read (in events of at most [`EVENT_BYTES`]; one without
/// chats while there is `more` to read), then the `end`.
fn events(
    out: &mut Vec<String>,
    again: bool,
    (read, total): (u64, u64),
    chats: Vec<(Session, Option<ChatReport>)>,
    more: bool,
    end: Option<Result<Rest, ImportError>>,
) {
    if again {
        out.push(ImportEvent::Again.encode());
    }
    let mut batch = Vec::new();
    let mut size = 0;
    for (chat, report) in chats {
        size += chat
            .messages
            .iter()
            .map(|m| m.content.len() + 200)
            .sum::<usize>();
        batch.push((chat, report));
        if size > EVENT_BYTES {
            let chats = std::mem::take(&mut batch);
            out.push(ImportEvent::Read(read, total, chats).encode());
            size = 0;
        }
    }
    if !batch.is_empty() || more {
        out.push(ImportEvent::Read(read, total, batch).encode());
    }
    if let Some(end) = end {
        out.push(ImportEvent::Done(end.map_err(|e| e.to_string())).encode());
    }
}

fn main() {}
