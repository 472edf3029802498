//! Reading a long export as its bytes arrive, one conversation at a time: the lists of
//! conversations ChatGPT, Claude and Open WebUI export (`[{…}, {…}, …]`) are cut at their
//! top-level commas, each conversation parsed, read by its format's reader and checked on its own
//! ([`super::import::Gather`]), and handed over at once; the whole file is never held, as text
//! or as JSON. Everything else — an object (Satori's own files, NextChat, BetterChatGPT,
//! LibreChat), a list that is not well formed, nesting deeper than [`NEST`] — is read whole
//! by [`super::import::read`], within [`MAX_BYTES`], so its errors are the same sentences.
//!
//! Invariants: the chats, skipped conversations and refusals are those [`super::import::read`]
//! gives for the same bytes (a test checks it on every corpus file, at several chunk sizes);
//! any split of the bytes into chunks gives the same; time and memory are linear in the bytes,
//! memory at most one conversation's JSON beyond what is handed over. A list's format is that of
//! its first conversation that names one (`mapping`: ChatGPT, `chat_messages`: Claude,
//! `chat.history`: Open WebUI); when a later one names a format that wins over it (in that
//! order, as for a whole file), reading starts again from the first byte with that format
//! ([`Want::From`]): at most three times, and never for a list of one kind.

use super::chatgpt::Text;
use super::error::{ImportError, MAX_BYTES, MAX_STREAM_BYTES};
use super::import::{Gather, Rest};
use super::report::{ChatReport, Read, Skipped};
use crate::session::Session;
use serde_json::Value;

/// Conversations nested deeper than this (the list counted) are left to the whole-file reader,
/// whose refusal names the line and column (serde_json's own limit is 128).
pub const NEST: usize = 100;

/// Why a part of an export in several files is refused when it is not a list of ChatGPT or
/// Claude conversations.
pub const NOT_A_PART: &str = "it is not a list of ChatGPT or Claude conversations";

/// The formats that are lists of conversations, in the order a whole file's reader prefers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ListFormat {
    /// Open WebUI: items with `chat.history` or `chat.messages`.
    OpenWebUi,
    /// Claude: conversations with `chat_messages`.
    Claude,
    /// ChatGPT: conversations with `mapping`.
    ChatGpt,
}

impl ListFormat {
    /// The format conversation `v` names, if any (the preferred one when it names several).
    pub fn of(v: &Value) -> Option<Self> {
        if v.get("mapping").is_some() {
            Some(ListFormat::ChatGpt)
        } else if v.get("chat_messages").is_some() {
            Some(ListFormat::Claude)
        } else if v
            .get("chat")
            .is_some_and(|c| c.get("history").is_some() || c.get("messages").is_some())
        {
            Some(ListFormat::OpenWebUi)
        } else {
            None
        }
    }

    /// What the file is, for sentences.
    pub fn what(self) -> &'static str {
        match self {
            ListFormat::ChatGpt => "ChatGPT's export",
            ListFormat::Claude => "Claude's export",
            ListFormat::OpenWebUi => "an Open WebUI export",
        }
    }

    /// Conversation `i`, read by this format's reader.
    fn item(self, i: usize, v: &Value) -> Result<Read, Skipped> {
        match self {
            ListFormat::ChatGpt => super::chatgpt::item(i, v),
            ListFormat::Claude => super::claude::item(i, v),
            ListFormat::OpenWebUi => super::openwebui::item(i, v),
        }
    }
}

/// What the reader wants next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Want {
    /// The file's bytes from this offset on (0 again after a restart).
    From(u64),
    /// The whole file as text ([`Stream::whole`]): it is not a well-formed list of
    /// conversations.
    Whole,
    /// Nothing: [`Stream::end`] has the outcome.
    Done,
}

/// Where the cutter is in the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Before the list (a byte-order mark, whitespace).
    Before,
    /// After `[` (`first`) or a comma: whitespace, then a conversation (or `]` after `[`).
    Open { first: bool },
    /// Inside a conversation.
    Item,
    /// After a conversation: whitespace, then `,` or `]`.
    After,
    /// After the list's `]`: only whitespace.
    Closed,
}

/// A file of `total` bytes read as it arrives ([`Stream::push`]). The caller feeds what
/// [`Stream::want`] asks for, takes the chats as they come ([`Stream::take`]) and, at the end,
/// the rest ([`Stream::end`]).
#[derive(Debug)]
pub struct Stream {
    total: u64,
    read: u64,
    at: At,
    format: Option<ListFormat>,
    want: Want,
    /// The conversation being cut, its bytes so far.
    item: Vec<u8>,
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// Conversations met.
    count: usize,
    gather: Gather,
    ready: Vec<(Session, Option<ChatReport>)>,
    outcome: Option<Result<Rest, ImportError>>,
    /// Times reading started again.
    restarts: usize,
    /// The file's name when it is one part of an export in several files ([`Stream::part`]).
    part: Option<String>,
}

impl Stream {
    /// A file of `total` bytes. Larger than [`MAX_STREAM_BYTES`]: refused at once.
    pub fn new(total: u64) -> Self {
        let mut s = Stream::with(total, None);
        if total > MAX_STREAM_BYTES as u64 {
            s.done(Err(ImportError::TooLarge {
                bytes: total as usize,
                limit: MAX_STREAM_BYTES,
            }));
        }
        s
    }

    fn with(total: u64, format: Option<ListFormat>) -> Self {
        Stream {
            total,
            read: 0,
            at: At::Before,
            format,
            want: Want::From(0),
            item: Vec::new(),
            depth: 0,
            in_string: false,
            escaped: false,
            count: 0,
            gather: Gather::default(),
            ready: Vec::new(),
            outcome: None,
            restarts: 0,
            part: None,
        }
    }

    /// Part `name` (`total` bytes) of an export in several files ([`super::bundle`]): read as
    /// [`super::parts::read`] reads a part. Only ChatGPT's and Claude's conversations are
    /// recognised; an untitled one skipped is named with its part; `gather` goes on from the
    /// parts before ([`Stream::gathered`] gives it back); an empty list is no refusal, nor is a
    /// list none of whose conversations can be read (the whole export is judged at its end).
    /// Where a single file would be read again from the start, or whole, the part stops and
    /// says so ([`Want::From`]`(0)` with the [`Stream::format`] to read it with, or
    /// [`Want::Whole`]): the caller reads it again, and every chat it handed over is void.
    pub fn part(total: u64, name: &str, format: Option<ListFormat>, gather: Gather) -> Self {
        Stream {
            gather,
            part: Some(name.to_string()),
            ..Stream::with(total, format)
        }
    }

    /// What the parts read so far gathered (for the next part).
    pub fn gathered(self) -> Gather {
        self.gather
    }

    /// The format the list is read with (`None` until a conversation names one).
    pub fn format(&self) -> Option<ListFormat> {
        self.format
    }

    /// What the reader wants next.
    pub fn want(&self) -> Want {
        self.want.clone()
    }

    /// Bytes read so far of the file's total (for progress): `(read, total)`.
    pub fn progress(&self) -> (u64, u64) {
        (self.read, self.total)
    }

    /// The chats read since the last call, each with what its import converted.
    pub fn take(&mut self) -> Vec<(Session, Option<ChatReport>)> {
        std::mem::take(&mut self.ready)
    }

    /// How the file ended: the rest of what it holds, or why it cannot be imported. `None` until
    /// [`Want::Done`].
    pub fn end(&mut self) -> Option<Result<Rest, ImportError>> {
        self.outcome.take()
    }

    fn done(&mut self, outcome: Result<Rest, ImportError>) {
        self.outcome = Some(outcome);
        self.want = Want::Done;
    }

    /// Leave the list to the whole-file reader: the chats handed over so far are void (the
    /// caller drops them when it sees [`Want::Whole`]).
    fn read_whole(&mut self) {
        self.ready.clear();
        self.item = Vec::new();
        if self.part.is_some() {
            // The caller reads the part whole, within its limits.
            self.want = Want::Whole;
        } else if self.total > MAX_BYTES as u64 {
            self.done(Err(ImportError::TooLarge {
                bytes: self.total as usize,
                limit: MAX_BYTES,
            }));
        } else {
            self.want = Want::Whole;
        }
    }

    /// The whole file's text, when [`Want::Whole`] asked for it: read as a whole file is.
    pub fn whole(&mut self, text: &str) {
        match super::import::read(text) {
            Ok(incoming) => {
                let (chats, rest) = incoming.split();
                self.ready = chats;
                self.done(Ok(rest));
            }
            Err(e) => self.done(Err(e)),
        }
    }

    /// The next bytes of the file (those [`Want::From`] asked for); an empty slice at its end.
    pub fn push(&mut self, bytes: &[u8]) {
        if !matches!(self.want, Want::From(_)) {
            return;
        }
        if bytes.is_empty() {
            self.finish();
            return;
        }
        let mut rest = bytes;
        if self.read == 0 {
            rest = rest.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(rest);
        }
        self.read += bytes.len() as u64;
        self.want = Want::From(self.read);
        let mut start = 0; // where the conversation being cut starts in `rest`
        let mut i = 0;
        while i < rest.len() {
            let b = rest[i];
            match self.at {
                At::Item => {
                    if self.in_string {
                        if self.escaped {
                            self.escaped = false;
                        } else if b == b'\\' {
                            self.escaped = true;
                        } else if b == b'"' {
                            self.in_string = false;
                        }
                        // Skip to the next quote or backslash: strings are most of the bytes.
                        if self.in_string && !self.escaped {
                            let skip = rest[i + 1..]
                                .iter()
                                .position(|&c| c == b'"' || c == b'\\')
                                .unwrap_or(rest.len() - i - 1);
                            i += skip;
                        }
                    } else {
                        match b {
                            b'"' => self.in_string = true,
                            b'{' | b'[' => {
                                self.depth += 1;
                                if self.depth + 1 > NEST {
                                    return self.read_whole();
                                }
                            }
                            b'}' | b']' if self.depth > 0 => self.depth -= 1,
                            b',' | b']' | b' ' | b'\t' | b'\n' | b'\r' if self.depth == 0 => {
                                self.item.extend_from_slice(&rest[start..i]);
                                if !self.cut() {
                                    return;
                                }
                                self.at = At::After;
                                continue; // the same byte, after the conversation
                            }
                            _ => {}
                        }
                    }
                }
                At::Before | At::Open { .. } | At::After | At::Closed
                    if matches!(b, b' ' | b'\t' | b'\n' | b'\r') => {}
                At::Before if b == b'[' => self.at = At::Open { first: true },
                At::Open { first: true } if b == b']' => self.at = At::Closed,
                At::Open { .. } if b != b']' && b != b',' => {
                    self.at = At::Item;
                    self.item.clear();
                    start = i;
                    continue; // the same byte, inside the conversation
                }
                At::After if b == b',' => self.at = At::Open { first: false },
                At::After if b == b']' => self.at = At::Closed,
                // Not a list, or not a well-formed one: the whole-file reader says what it is.
                _ => return self.read_whole(),
            }
            i += 1;
        }
        if self.at == At::Item {
            self.item.extend_from_slice(&rest[start..]);
        }
    }

    /// The file's end.
    fn finish(&mut self) {
        if self.at != At::Closed {
            return self.read_whole();
        }
        if let Some(file) = &self.part {
            let outcome = match self.format {
                None if self.count > 0 => Err(ImportError::InFile {
                    file: file.clone(),
                    error: Box::new(ImportError::UnknownFormat(NOT_A_PART.into())),
                }),
                _ => Ok(Rest::default()),
            };
            return self.done(outcome);
        }
        let outcome = match self.format {
            _ if self.count == 0 => Err(ImportError::UnknownFormat("it is an empty list".into())),
            None => Err(ImportError::UnknownFormat(
                "it is a list, but not of ChatGPT, Claude or Open WebUI chats: none of its items has a `mapping`, `chat_messages` or `chat.history`".into(),
            )),
            Some(f) => std::mem::take(&mut self.gather)
                .finish(f.what())
                .map(|skipped| Rest {
                    skipped,
                    ..Rest::default()
                }),
        };
        self.done(outcome);
    }

    /// A conversation cut (its bytes in `item`): parsed, read and checked. `false` when reading
    /// goes another way (whole, or again from the start).
    fn cut(&mut self) -> bool {
        let bytes = std::mem::take(&mut self.item);
        // As the browser reads a file as text: bad bytes become U+FFFD.
        let text = String::from_utf8_lossy(&bytes);
        // A ChatGPT conversation's nodes are read straight from the text (no JSON tree of them).
        let Ok(parsed) = Text::parse(&text) else {
            self.read_whole();
            return false;
        };
        let i = self.count;
        self.count += 1;
        let named = match &parsed {
            Text::ChatGpt(_) => Some(ListFormat::ChatGpt),
            Text::Other(value) => ListFormat::of(value),
        }
        .filter(|f| self.part.is_none() || *f != ListFormat::OpenWebUi);
        if named > self.format {
            if i > 0 && self.part.is_some() {
                // The caller reads the part again from its start, with this format.
                self.ready.clear();
                self.format = named;
                self.want = Want::From(0);
                return false;
            }
            if i > 0 {
                // A format that wins over the one read so far: from the start with it.
                let restarts = self.restarts + 1;
                *self = Stream::with(self.total, named);
                self.restarts = restarts;
                return false;
            }
            self.format = named;
        }
        if let Some(f) = self.format {
            let read = match &parsed {
                // The format is ChatGPT's: a conversation with a `mapping` made it so (above).
                Text::ChatGpt(conversation) => conversation.item(i),
                Text::Other(value) => f.item(i, value),
            };
            let read = match &self.part {
                Some(file) => read.map_err(|s| s.of_part(file)),
                None => read,
            };
            if let Some((chat, report)) = self.gather.take(read) {
                let report = (!report.is_empty()).then_some(report);
                self.ready.push((chat, report));
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transfer::import::{self, Incoming};

    /// `bytes` read in chunks of `chunk` bytes, as the import worker reads a file: the chats,
    /// and the rest or the refusal.
    fn streamed(bytes: &[u8], chunk: usize) -> Result<Incoming, ImportError> {
        let mut s = Stream::new(bytes.len() as u64);
        let mut chats = Vec::new();
        loop {
            match s.want() {
                Want::From(at) => {
                    let at = at as usize;
                    if at == 0 {
                        chats.clear();
                    }
                    let end = (at + chunk).min(bytes.len());
                    s.push(&bytes[at..end]);
                }
                Want::Whole => {
                    chats.clear();
                    s.whole(&String::from_utf8_lossy(bytes));
                }
                Want::Done => break,
            }
            chats.extend(s.take());
        }
        chats.extend(s.take());
        let rest = s.end().expect("an outcome")?;
        let (chats, reports): (Vec<Session>, Vec<Option<ChatReport>>) = chats.into_iter().unzip();
        Ok(Incoming {
            chats,
            reports: reports.into_iter().flatten().collect(),
            templates: rest.templates,
            settings: rest.settings,
            damaged: rest.damaged,
            notes: rest.notes,
            skipped: rest.skipped,
        })
    }

    fn same(bytes: &[u8], name: &str) {
        let text = String::from_utf8_lossy(bytes);
        let whole = import::read(&text);
        for chunk in [1, 2, 3, 7, 64, 4096, 1 << 20] {
            assert_eq!(streamed(bytes, chunk), whole, "{name}, chunks of {chunk}");
        }
    }

    #[test]
    fn a_stream_reads_what_the_whole_file_reads() {
        let cases: &[(&str, &str)] = &[
            ("empty", ""),
            ("spaces", "   \n "),
            ("empty list", " [ ] "),
            ("bom", "\u{feff}[]"),
            ("scalars", "[1, \"a\", null]"),
            ("not closed", r#"[{"mapping":{}}"#),
            ("trailing comma", r#"[{"mapping":{}},]"#),
            ("two commas", r#"[{"title":"a"},,{"mapping":{}}]"#),
            ("trailing text", r#"[{"title":"a","mapping":{}}] x"#),
            (
                "broken item",
                r#"[{"title":"a","mapping":{}}, {"title": }]"#,
            ),
            (
                "object",
                r#"{"format":"satori-export","version":1,"chats":[]}"#,
            ),
            (
                "string with brackets",
                r#"[{"title":"a]},[{\"\\","mapping":{"x":{"parent":null}}}]"#,
            ),
            ("scalar item", r#"[{"title":"a","mapping":{}}, 3 ]"#),
            ("bad utf-8", "[{\"title\":\"a\u{fffd}\",\"mapping\":{}}]"),
        ];
        for (name, text) in cases {
            same(text.as_bytes(), name);
        }
        // Invalid UTF-8 bytes in a title: replaced, as the browser's text() replaces them.
        same(
            b"[{\"title\":\"a\xff\xfe b\",\"conversation_id\":\"c\",\"mapping\":{}}]",
            "bad bytes",
        );
        // Deep nesting: left to the whole-file reader, which refuses it with line and column.
        let deep = format!("[{}{}]", "[".repeat(200), "]".repeat(200));
        same(deep.as_bytes(), "deep");
        let fine = format!(
            "[{{\"mapping\":{{}},\"x\":{}{}}}]",
            "[".repeat(90),
            "]".repeat(90)
        );
        same(fine.as_bytes(), "deep but within");
    }

    #[test]
    fn a_chatgpt_conversation_read_from_its_text_is_read_as_its_json() {
        let q = r#"{"id":"q","author":{"role":"user"},"create_time":1,"content":{"content_type":"text","parts":["Hello?"]}}"#;
        let old = r#"{"author":{"role":"user"},"content":{"content_type":"text","parts":["Old"]}}"#;
        let call = r#"{"author":{"role":"assistant"},"recipient":"python","create_time":2,"content":{"content_type":"code","text":"1+1"}}"#;
        let out = |t: &str, at: u32| {
            format!(
                r#"{{"author":{{"role":"tool"}},"create_time":{at},"content":{{"content_type":"text","parts":["{t}"]}}}}"#
            )
        };
        let cases: Vec<(&str, String)> = vec![
            // A repeated key: the last node of that key stands, in either place.
            (
                "repeated node",
                format!(r#"[{{"conversation_id":"c","current_node":"q","mapping":{{"q":{{"parent":null,"message":{old}}},"r":{{"parent":"q"}},"q":{{"parent":null,"message":{q}}}}}}}]"#),
            ),
            (
                "repeated mapping",
                format!(r#"[{{"conversation_id":"c","mapping":{{"q":{{"message":{q}}}}},"mapping":3}}]"#),
            ),
            (
                "repeated parent and message",
                format!(r#"[{{"conversation_id":"c","mapping":{{"r":{{}},"q":{{"parent":"r","message":{q},"parent":null,"message":7}}}}}}]"#),
            ),
            // Nodes and fields that are not what they should be.
            (
                "odd nodes",
                format!(r#"[{{"conversation_id":"c","mapping":{{"a":[1,{{"parent":"q"}}],"b":"q","c":null,"d":{{"parent":["q"],"message":"hi"}},"e":{{"parent":7}},"q":{{"parent":"\u0071","message":{q}}}}}}}]"#),
            ),
            (
                "escaped keys",
                format!(r#"[{{"conversation_id":"c","current_node":"\u00e9","mapping":{{"q":{{"message":{q}}},"\u00e9":{{"parent":"q","message":{q}}}}}}}]"#),
            ),
            // Outputs that follow one output: one result, in the order of their keys.
            (
                "sibling outputs",
                format!(
                    r#"[{{"conversation_id":"c","mapping":{{"q":{{"message":{q}}},"k":{{"parent":"q","message":{call}}},"o":{{"parent":"k","message":{}}},"z":{{"parent":"o","message":{}}},"b":{{"parent":"o","message":{}}},"y":{{"parent":"b","message":{}}}}}}}]"#,
                    out("first", 3),
                    out("zed", 4),
                    out("bee", 5),
                    out("why", 6)
                ),
            ),
            (
                "circle",
                r#"[{"conversation_id":"c","mapping":{"a":{"parent":"b"},"b":{"parent":"a"},"r":{}}}]"#.into(),
            ),
            (
                "bad text in a node",
                r#"[{"conversation_id":"c","mapping":{"a":{"x":"\ud800"}}}]"#.into(),
            ),
            (
                "bad number in a node",
                r#"[{"conversation_id":"c","mapping":{"a":{"x":1e999}}}]"#.into(),
            ),
        ];
        for (name, text) in &cases {
            same(text.as_bytes(), name);
        }
        let read = |text: &str| import::read(text).unwrap();
        let sibling = read(&cases[5].1);
        let result = sibling.chats[0]
            .messages
            .iter()
            .find(|m| m.id == "o")
            .unwrap();
        assert_eq!(result.content, "first\n\nbee\n\nwhy\n\nzed");
        assert_eq!(result.tool_call_id.as_deref(), Some("call_k"));
        let repeated = read(&cases[0].1);
        assert_eq!(repeated.chats[0].messages.len(), 1);
        assert_eq!(repeated.chats[0].messages[0].content, "Hello?");
        assert_eq!(repeated.chats[0].leaf.as_deref(), Some("q"));
        let escaped = read(&cases[4].1);
        assert_eq!(escaped.chats[0].leaf.as_deref(), Some("é"));
        assert!(import::read(&cases[7].1).is_err());
    }

    #[test]
    fn a_long_chain_of_hidden_nodes_is_one_question_and_its_answer() {
        let n = 20_000;
        let mut nodes = vec![
            r#""q":{"parent":null,"message":{"author":{"role":"user"},"create_time":1,"content":{"content_type":"text","parts":["Hello?"]}}}"#.to_string(),
        ];
        for i in 0..n {
            let parent = if i == 0 {
                "q".to_string()
            } else {
                format!("h{}", i - 1)
            };
            nodes.push(format!(
                r#""h{i}":{{"parent":"{parent}","children":["x"]}}"#
            ));
        }
        nodes.push(format!(r#""a":{{"parent":"h{}","message":{{"author":{{"role":"assistant"}},"create_time":2,"content":{{"content_type":"text","parts":["Hi."]}}}}}}"#, n - 1));
        let text = format!(
            r#"[{{"conversation_id":"c","current_node":"a","mapping":{{{}}}}}]"#,
            nodes.join(",")
        );
        let read = streamed(text.as_bytes(), 1 << 20).unwrap();
        let chat = &read.chats[0];
        let ids: Vec<(&str, Option<&str>)> = chat
            .messages
            .iter()
            .map(|m| (m.id.as_str(), m.parent.as_deref()))
            .collect();
        assert_eq!(ids, [("q", None), ("a", Some("q"))]);
        assert_eq!(chat.leaf.as_deref(), Some("a"));
        assert_eq!(read, import::read(&text).unwrap());
    }

    #[test]
    fn a_later_conversation_of_a_preferred_format_reads_the_list_again() {
        // Open WebUI first, then Claude, then ChatGPT: a whole file is ChatGPT's, and so is the
        // stream's, after reading again from the start twice.
        let text = r#"[
            {"title":"w","chat":{"history":{"messages":{},"currentId":null}}},
            {"name":"c","uuid":"u1","chat_messages":[]},
            {"title":"g","conversation_id":"g1","mapping":{"r":{"parent":null,"message":{"id":"r","author":{"role":"user"},"content":{"content_type":"text","parts":["hi"]}}}}},
            {"title":"plain"}
        ]"#;
        same(text.as_bytes(), "mixed");
        let mut s = Stream::new(text.len() as u64);
        let mut restarts = 0;
        while let Want::From(at) = s.want() {
            restarts += usize::from(at == 0 && s.restarts > restarts);
            let at = at as usize;
            s.push(&text.as_bytes()[at..(at + 5).min(text.len())]);
        }
        assert_eq!(s.restarts, 2);
        assert_eq!(restarts, 2);
        // Nothing named a format before: the first one that does decides, from the start.
        let text = r#"[{"title":"a"},{"title":"b","conversation_id":"b","mapping":{}}]"#;
        same(text.as_bytes(), "late format");
    }

    #[test]
    fn a_large_file_refused_before_it_is_read_unless_it_is_a_list() {
        // An object over the whole-file limit: refused with that limit, as before.
        let mut s = Stream::new(60_000_000);
        s.push(b"{\"format\":");
        assert_eq!(s.want(), Want::Done);
        assert_eq!(
            s.end(),
            Some(Err(ImportError::TooLarge {
                bytes: 60_000_000,
                limit: MAX_BYTES
            }))
        );
        // Over the list limit: refused before a byte is read.
        let mut s = Stream::new(MAX_STREAM_BYTES as u64 + 1);
        assert_eq!(s.want(), Want::Done);
        assert!(matches!(s.end(), Some(Err(ImportError::TooLarge { .. }))));
    }
}
