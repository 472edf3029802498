//! The import worker's module: a long export read as it arrives (`satori_core::transfer::stream`:
//! the core crate, not the app library, so no Leptos is linked in), run in a worker
//! (`src/web/import-worker.js`) so that reading, parsing and converting a file of hundreds of
//! megabytes takes the worker's time, never the page's. The worker feeds it the file's bytes as
//! it asks for them and posts what it answers to the page: each an `ImportEvent`
//! (`satori_core::protocol`) as JSON — the bytes read and the chats converted so far, "reading
//! again from the start", the end. `scripts/build.sh` builds it into `dist/import-<hash>/` with the
//! worker; the dialogs module starts the worker (`src/adapters/import_worker.rs`).

use satori_core::protocol::ImportEvent;
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
    /// The events for what happened since the last call: `again` when reading starts over, then
    /// the progress with the chats read (in events of at most [`EVENT_BYTES`]), then the end.
    fn gather(&mut self, again: bool) {
        if again {
            self.events.push(ImportEvent::Again.encode());
        }
        let (read, total) = self.stream.progress();
        let mut batch = Vec::new();
        let mut size = 0;
        for (chat, report) in self.stream.take() {
            size += chat
                .messages
                .iter()
                .map(|m| m.content.len() + 200)
                .sum::<usize>();
            batch.push((chat, report));
            if size > EVENT_BYTES {
                let chats = std::mem::take(&mut batch);
                self.events
                    .push(ImportEvent::Read(read, total, chats).encode());
                size = 0;
            }
        }
        if !batch.is_empty() || self.stream.want() != Want::Done {
            self.events
                .push(ImportEvent::Read(read, total, batch).encode());
        }
        if let Some(end) = self.stream.end() {
            self.events
                .push(ImportEvent::Done(end.map_err(|e| e.to_string())).encode());
        }
    }
}

fn main() {}
