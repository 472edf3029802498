//! `search_chats`, the agent's long-term memory: the earlier messages most relevant to a query,
//! from this chat and the others, ranked locally with BM25 (k1 = 1.2, b = 0.75, each message a
//! document).
//!
//! Words are compared folded as "Search chats" folds them (lower case, Latin accents removed:
//! `Café` finds `cafe`). Chinese, Japanese and Korean have no spaces between words: a run
//! of such characters is cut into overlapping bigrams (`订单号` → `订单`, `单号`), a one-character
//! run is one word, and a one-character query word finds that character anywhere in a run.
//!
//! Invariants:
//! - only what a person or the model said is recalled: user and assistant messages with text,
//!   not system prompts, few-shot examples, tool results (`tool` messages, ReAct observations),
//!   messages the user excluded from the context, or a reply still streaming;
//! - every variant counts (the whole tree), but a text is recalled once, and never when one of
//!   its copies is already in the request context (`exclude`);
//! - the work is bounded: at most [`MAX_MESSAGES`] messages (the newest), [`MAX_TERMS`] query
//!   words, excerpts of at most [`EXCERPT_CHARS`] characters cut at character boundaries;
//! - scores are `f32` for sorting only and are never formatted (float formatting is big in wasm).

use crate::agent::react::OBSERVATION;
use crate::search;
use crate::session::{Message, Role, Session, Status};
use std::collections::{HashMap, HashSet};

/// At most this many messages are ranked (the newest ones).
pub const MAX_MESSAGES: usize = 20_000;
/// At most this many distinct query words are looked for.
pub const MAX_TERMS: usize = 32;
/// Longest excerpt, in characters, `…` marks included.
pub const EXCERPT_CHARS: usize = 300;
/// BM25 term-frequency saturation.
const K1: f32 = 1.2;
/// BM25 length normalization.
const B: f32 = 0.75;

/// One earlier message recalled.
#[derive(Debug, Clone, PartialEq)]
pub struct Recalled {
    /// The chat it is in.
    pub chat_id: String,
    /// That chat's title as the sidebar shows it.
    pub chat_title: String,
    /// The message.
    pub message_id: String,
    /// User or assistant.
    pub role: Role,
    /// When it was written, ms since the Unix epoch.
    pub at: i64,
    /// Its text on one line, cut around the first query word.
    pub excerpt: String,
    /// BM25 score (for sorting only).
    pub score: f32,
}

/// Rank every user/assistant message (not system, not examples, not tool results, not empty) of
/// `chats` — the whole message tree of each, since variants are memories too, deduplicated by
/// identical text — against `query`; the best `k`, score descending, ties newest first.
/// `exclude` lists message ids to skip (the ones already in the request context).
pub fn recall(
    chats: &[Session],
    query: &str,
    exclude: &HashSet<String>,
    k: usize,
) -> Vec<Recalled> {
    let mut folder = Folder::default();
    let terms = query_terms(&mut folder, query);
    if terms.is_empty() || k == 0 {
        return Vec::new();
    }
    let index: HashMap<&str, usize> = terms
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i))
        .collect();
    let docs = documents(chats, exclude);

    // One pass: each document's length, and the counts of the query words it holds.
    let mut df = vec![0u32; terms.len()];
    let mut total_len = 0u64;
    let mut matched: Vec<(usize, u32, Vec<u32>)> = Vec::new();
    let mut tf = vec![0u32; terms.len()];
    for (d, (_, m)) in docs.iter().enumerate() {
        tf.iter_mut().for_each(|n| *n = 0);
        let mut len = 0u32;
        tokens(&mut folder, &m.content, &mut |token, _, counted| {
            len += u32::from(counted);
            if let Some(&t) = index.get(token) {
                tf[t] += 1;
            }
        });
        total_len += u64::from(len);
        if tf.iter().any(|&n| n > 0) {
            for (df, &n) in df.iter_mut().zip(&tf) {
                *df += u32::from(n > 0);
            }
            matched.push((d, len, tf.clone()));
        }
    }

    let n = docs.len() as f32;
    let avg_len = (total_len as f32 / n.max(1.0)).max(1.0);
    let idf: Vec<f32> = df
        .iter()
        .map(|&df| (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln())
        .collect();
    let mut scored: Vec<(usize, f32)> = matched
        .into_iter()
        .map(|(d, len, tf)| {
            let norm = K1 * (1.0 - B + B * len as f32 / avg_len);
            let score = tf
                .iter()
                .zip(&idf)
                .filter(|(&tf, _)| tf > 0)
                .map(|(&tf, idf)| idf * tf as f32 * (K1 + 1.0) / (tf as f32 + norm))
                .sum();
            (d, score)
        })
        .collect();
    // Documents are newest first, so a stable sort puts the newer of equal scores first.
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored.truncate(k);
    scored
        .into_iter()
        .map(|(d, score)| {
            let (chat, m) = docs[d];
            Recalled {
                chat_id: chat.id.clone(),
                chat_title: chat.display_title().to_string(),
                message_id: m.id.clone(),
                role: m.role,
                at: m.created_at,
                excerpt: excerpt(&mut folder, &m.content, &index),
                score,
            }
        })
        .collect()
}

/// The tool result text: one block per hit with chat title, date label (the caller passes a fn
/// that formats `at`), role and excerpt; `No earlier messages match "…".` when empty.
pub fn format(hits: &[Recalled], query: &str, date: &dyn Fn(i64) -> String) -> String {
    let query = query.trim();
    if hits.is_empty() {
        return format!("No earlier messages match \"{query}\".");
    }
    let mut out = format!("Earlier messages matching \"{query}\", most relevant first:\n");
    for (i, hit) in hits.iter().enumerate() {
        out.push_str(&format!(
            "\n[{}] Chat \"{}\", {}, {}:\n{}\n",
            i + 1,
            hit.chat_title,
            date(hit.at),
            hit.role.as_str(),
            hit.excerpt
        ));
    }
    out
}

/// Whether a message is something to recall (see the module's invariants).
fn recallable(m: &Message) -> bool {
    let said = match m.role {
        Role::User => !m.content.trim_start().starts_with(OBSERVATION),
        Role::Assistant => m.status != Status::Streaming,
        Role::System | Role::Tool => false,
    };
    said && !m.example && !m.excluded && !m.content.trim().is_empty()
}

/// The messages to rank with their chats: recallable, newest first (a stable order for equal
/// times), each text once (its newest copy), none whose text is in the context, at most
/// [`MAX_MESSAGES`].
fn documents<'a>(
    chats: &'a [Session],
    exclude: &HashSet<String>,
) -> Vec<(&'a Session, &'a Message)> {
    let mut all: Vec<(&Session, &Message)> = chats
        .iter()
        .flat_map(|c| {
            c.messages
                .iter()
                .filter(|m| recallable(m))
                .map(move |m| (c, m))
        })
        .collect();
    let mut seen: HashSet<&str> = all
        .iter()
        .filter(|(_, m)| exclude.contains(&m.id))
        .map(|(_, m)| m.content.trim())
        .collect();
    all.sort_by_key(|(_, m)| std::cmp::Reverse(m.created_at));
    let mut out = Vec::with_capacity(all.len().min(MAX_MESSAGES));
    for (chat, m) in all {
        if out.len() == MAX_MESSAGES {
            break;
        }
        if seen.insert(m.content.trim()) {
            out.push((chat, m));
        }
    }
    out
}

/// The distinct words of `query`, in order, at most [`MAX_TERMS`].
fn query_terms(folder: &mut Folder, query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    tokens(folder, query, &mut |token, _, counted| {
        if counted && terms.len() < MAX_TERMS && !terms.iter().any(|t| t == token) {
            terms.push(token.to_string());
        }
    });
    terms
}

/// `text` on one line (whitespace runs made one space), at most [`EXCERPT_CHARS`] characters,
/// centred on the first query word, `…` where it was cut.
fn excerpt(folder: &mut Folder, text: &str, index: &HashMap<&str, usize>) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let count = line.chars().count();
    if count <= EXCERPT_CHARS {
        return line;
    }
    let mut hit = None;
    tokens(folder, &line, &mut |token, at, _| {
        if hit.is_none() && index.contains_key(token) {
            hit = Some(at);
        }
    });
    let hit = line[..hit.unwrap_or(0)].chars().count();
    let width = EXCERPT_CHARS - 2;
    let start = hit.saturating_sub(width / 2).min(count - width);
    let end = start + width;
    let byte = |n: usize| line.char_indices().nth(n).map_or(line.len(), |(i, _)| i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&line[byte(start)..byte(end)]);
    if end < count {
        out.push('…');
    }
    out
}

/// Characters folded as "Search chats" folds them ([`search::words`]), the non-ASCII ones
/// remembered (that function works on strings, so each costs two allocations the first time).
#[derive(Default)]
struct Folder {
    memo: HashMap<char, String>,
}

impl Folder {
    /// Appends `c` folded to `out` (nothing for a combining accent).
    fn fold(&mut self, c: char, out: &mut String) {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else if is_cjk(c) {
            out.push(c);
        } else {
            let folded = self
                .memo
                .entry(c)
                .or_insert_with(|| search::words(c.encode_utf8(&mut [0; 4])).concat());
            out.push_str(folded);
        }
    }
}

/// Whether `c` is written without spaces between words: Han, kana, Hangul syllables.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3005}'..='\u{3007}'
        | '\u{3040}'..='\u{30FF}'
        | '\u{31F0}'..='\u{31FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{AC00}'..='\u{D7AF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2FA1F}')
}

/// Calls `emit(token, at, counted)` for each word of `text`, `at` being the byte offset in
/// `text` of its first character: folded runs of letters and digits, and the bigrams of CJK
/// runs (or the character of a one-character run), `counted` (they make the document's
/// length); and every character of a longer CJK run, not counted (so that a one-character
/// query word finds it).
fn tokens(folder: &mut Folder, text: &str, emit: &mut dyn FnMut(&str, usize, bool)) {
    let mut scan = Scan {
        emit,
        word: String::new(),
        word_at: 0,
        prev: None,
        run: 0,
        pair: String::new(),
    };
    let mut folded = String::new();
    for (at, c) in text.char_indices() {
        if c.is_whitespace() {
            scan.end_word();
            scan.end_run();
            continue;
        }
        folded.clear();
        folder.fold(c, &mut folded);
        // A character that folds to nothing (a combining accent) belongs to its word.
        for f in folded.chars() {
            if is_cjk(f) {
                scan.end_word();
                scan.cjk(f, at);
            } else if f.is_alphanumeric() {
                scan.end_run();
                if scan.word.is_empty() {
                    scan.word_at = at;
                }
                scan.word.push(f);
            } else {
                scan.end_word();
                scan.end_run();
            }
        }
    }
    scan.end_word();
    scan.end_run();
}

/// The state of [`tokens`].
struct Scan<'e> {
    emit: &'e mut dyn FnMut(&str, usize, bool),
    /// The word being read, and where it started.
    word: String,
    word_at: usize,
    /// The last CJK character of the run being read, and where it is.
    prev: Option<(char, usize)>,
    /// Characters in that run.
    run: usize,
    /// Scratch space for a bigram or a character.
    pair: String,
}

impl Scan<'_> {
    fn end_word(&mut self) {
        if !self.word.is_empty() {
            (self.emit)(&self.word, self.word_at, true);
            self.word.clear();
        }
    }

    fn cjk(&mut self, c: char, at: usize) {
        if let Some((p, p_at)) = self.prev {
            if self.run == 1 {
                self.emit_char(p, p_at, false);
            }
            self.pair.clear();
            self.pair.push(p);
            self.pair.push(c);
            (self.emit)(&self.pair, p_at, true);
            self.emit_char(c, at, false);
        }
        self.prev = Some((c, at));
        self.run += 1;
    }

    fn emit_char(&mut self, c: char, at: usize, counted: bool) {
        self.pair.clear();
        self.pair.push(c);
        (self.emit)(&self.pair, at, counted);
    }

    fn end_run(&mut self) {
        if let (Some((c, at)), 1) = (self.prev, self.run) {
            self.emit_char(c, at, true);
        }
        self.prev = None;
        self.run = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chat whose messages `(id, role, text, at)` follow each other.
    fn chat(id: &str, title: &str, messages: &[(&str, Role, &str, i64)]) -> Session {
        let mut s = Session::new(id.into(), 0, None, Vec::new());
        s.title = title.into();
        let mut parent: Option<String> = None;
        for &(mid, role, text, at) in messages {
            s.messages.push(Message::new(
                mid.into(),
                parent.clone(),
                role,
                text.into(),
                at,
            ));
            parent = Some(mid.into());
        }
        s.leaf = parent;
        s
    }

    /// User messages `(id, text)` written at 1, 2, 3 … in one chat.
    fn users(texts: &[(&str, &str)]) -> Vec<Session> {
        let messages: Vec<(&str, Role, &str, i64)> = texts
            .iter()
            .enumerate()
            .map(|(i, &(id, text))| (id, Role::User, text, i as i64 + 1))
            .collect();
        vec![chat("c", "Chat", &messages)]
    }

    /// Asserts the ids `recall` ranks for `query` (nothing excluded, ten at most).
    fn check(chats: &[Session], query: &str, expected: &[&str]) {
        let got: Vec<String> = recall(chats, query, &HashSet::new(), 10)
            .into_iter()
            .map(|r| r.message_id)
            .collect();
        assert_eq!(got, expected, "query {query:?}");
    }

    /// The words of `text` (the counted tokens).
    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        tokens(&mut Folder::default(), text, &mut |t, _, counted| {
            if counted {
                out.push(t.to_string());
            }
        });
        out
    }

    #[test]
    fn cuts_text_into_words_and_bigrams() {
        let cases: &[(&str, &[&str])] = &[
            ("Hello, World!", &["hello", "world"]),
            (
                "Café CAFÉ naïve Straße",
                &["cafe", "cafe", "naive", "strasse"],
            ),
            ("e\u{301}te\u{301}", &["ete"]),
            (
                "我的订单号是 A-1029",
                &["我的", "的订", "订单", "单号", "号是", "a", "1029"],
            ),
            ("猫", &["猫"]),
            ("猫 and 狗。", &["猫", "and", "狗"]),
            ("订单号A1029", &["订单", "单号", "a1029"]),
            ("カタカナ", &["カタ", "タカ", "カナ"]),
            ("foo\u{a0}bar\u{3000}baz", &["foo", "bar", "baz"]),
            ("  ?! …", &[]),
        ];
        for &(text, expected) in cases {
            assert_eq!(words(text), expected, "{text:?}");
        }
    }

    #[test]
    fn ranks_with_bm25() {
        type Case = (
            &'static str,
            Vec<Session>,
            &'static str,
            &'static [&'static str],
        );
        let cases: Vec<Case> = vec![
            (
                "the rarer word wins",
                users(&[
                    ("r1", "rust is fast"),
                    ("r2", "rust is safe"),
                    ("r3", "rust has a borrow checker"),
                    ("r4", "I like rust"),
                    ("b1", "borrow a book"),
                ]),
                "rust borrow",
                &["r3", "b1", "r4", "r2", "r1"],
            ),
            (
                "shorter messages win at equal counts",
                users(&[
                    ("short", "apple pie"),
                    (
                        "long",
                        "an apple and many other words in a much longer sentence",
                    ),
                    ("none", "pears"),
                ]),
                "apple",
                &["short", "long"],
            ),
            (
                "more occurrences win",
                users(&[("once", "tea or coffee"), ("twice", "tea, tea, coffee")]),
                "tea",
                &["twice", "once"],
            ),
            (
                "Chinese without spaces",
                users(&[
                    ("order", "我的订单号是 A-1029"),
                    ("other", "我的电话号码是 555"),
                    ("buy", "我想订购一本书"),
                ]),
                "订单号",
                &["order"],
            ),
            (
                "one Chinese character finds it inside a run",
                users(&[("cat", "我的猫很可爱"), ("dog", "狗")]),
                "猫",
                &["cat"],
            ),
            (
                "mixed Chinese and English",
                users(&[
                    ("a", "订单 A-1029 已发货"),
                    ("b", "the order A-1029 shipped"),
                    ("c", "订单 B-7 已取消"),
                ]),
                "1029 发货",
                &["a", "b"],
            ),
            (
                "accents and case are ignored both ways",
                users(&[
                    ("a", "We met at the CAFÉ"),
                    ("b", "cafe latte"),
                    ("c", "cafeteria"),
                ]),
                "Café",
                &["b", "a"],
            ),
            (
                "equal scores: newest first",
                users(&[
                    ("old", "apple pie"),
                    ("new", "apple tart"),
                    ("mid", "apple cake"),
                ]),
                "apple",
                &["mid", "new", "old"],
            ),
            ("empty query", users(&[("a", "anything")]), "  ", &[]),
            ("punctuation only", users(&[("a", "what?!")]), "?!", &[]),
            ("no match", users(&[("a", "apple")]), "pear", &[]),
        ];
        for (name, chats, query, expected) in cases {
            eprintln!("case: {name}");
            check(&chats, query, expected);
        }
    }

    #[test]
    fn recalls_only_what_was_said_each_text_once() {
        let mut s = Session::new(
            "c".into(),
            0,
            None,
            vec![
                crate::session::Preamble::system("sys", "You know about apples."),
                crate::session::Preamble {
                    id: "ex".into(),
                    role: Role::User,
                    content: "apples?".into(),
                    example: true,
                },
            ],
        );
        let add = |s: &mut Session, id: &str, parent: &str, role: Role, text: &str, at: i64| {
            s.messages.push(Message::new(
                id.into(),
                Some(parent.into()),
                role,
                text.into(),
                at,
            ));
        };
        add(&mut s, "u1", "ex", Role::User, "Tell me about apples", 1);
        // Two variants of the reply with the same text, one with another text.
        add(&mut s, "a1", "u1", Role::Assistant, "Apples are red.", 2);
        add(&mut s, "a2", "u1", Role::Assistant, "Apples are red.", 3);
        add(
            &mut s,
            "a3",
            "u1",
            Role::Assistant,
            "Apples grow on trees.",
            4,
        );
        add(&mut s, "t1", "a3", Role::Tool, "apples: 42 results", 5);
        add(
            &mut s,
            "o1",
            "a3",
            Role::User,
            "Observation: apples found",
            6,
        );
        add(&mut s, "x1", "a3", Role::User, "apples, excluded", 7);
        add(&mut s, "e1", "a3", Role::User, "   ", 8);
        add(&mut s, "s1", "a3", Role::Assistant, "apples streaming", 9);
        s.messages.iter_mut().for_each(|m| match m.id.as_str() {
            "x1" => m.excluded = true,
            "s1" => m.status = Status::Streaming,
            _ => {}
        });
        let chats = vec![s];
        // The shortest text first; of the two of equal length, the newer.
        check(&chats, "apples", &["a2", "a3", "u1"]);
        // A message in the context is skipped, and so is every copy of its text.
        let ids = |exclude: &[&str]| -> Vec<String> {
            let exclude: HashSet<String> = exclude.iter().map(|s| s.to_string()).collect();
            recall(&chats, "apples", &exclude, 10)
                .into_iter()
                .map(|r| r.message_id)
                .collect()
        };
        assert_eq!(ids(&["u1"]), ["a2", "a3"]);
        assert_eq!(ids(&["a1"]), ["a3", "u1"]);
        assert_eq!(ids(&["a1", "a3", "u1"]), Vec::<String>::new());
    }

    #[test]
    fn searches_every_chat_and_keeps_the_best_k() {
        let chats = vec![
            chat("c1", "Fruit", &[("f1", Role::User, "apple apple apple", 5)]),
            chat("c2", "", &[("f2", Role::Assistant, "an apple a day", 9)]),
        ];
        let hits = recall(&chats, "apple", &HashSet::new(), 1);
        assert_eq!(hits.len(), 1);
        let hit = &hits[0];
        assert_eq!(
            (
                hit.chat_id.as_str(),
                hit.chat_title.as_str(),
                hit.message_id.as_str()
            ),
            ("c1", "Fruit", "f1")
        );
        assert_eq!(
            (hit.role, hit.at, hit.excerpt.as_str()),
            (Role::User, 5, "apple apple apple")
        );
        assert!(hit.score > 0.0);
        let hits = recall(&chats, "apple", &HashSet::new(), 5);
        assert_eq!(hits[1].chat_title, "Untitled chat");
        assert!(hits[0].score > hits[1].score);
        assert!(recall(&chats, "apple", &HashSet::new(), 0).is_empty());
    }

    #[test]
    fn ranks_only_the_newest_messages() {
        // The one match is the oldest message, just past the cap.
        let mut texts: Vec<String> = vec!["needle".into()];
        texts.extend((0..MAX_MESSAGES).map(|i| format!("hay {i}")));
        let messages: Vec<(String, &str)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("m{i}"), t.as_str()))
            .collect();
        let pairs: Vec<(&str, &str)> = messages.iter().map(|(id, t)| (id.as_str(), *t)).collect();
        let chats = users(&pairs);
        check(&chats, "needle", &[]);
        let best = recall(&chats, "hay 19999", &HashSet::new(), 1);
        assert_eq!(best[0].message_id, "m20000");
        // Query words past the cap are not looked for.
        let many: String = (0..MAX_TERMS).map(|i| format!("w{i} ")).collect();
        check(&users(&[("a", "needle")]), &format!("{many} needle"), &[]);
        check(
            &users(&[("a", "needle")]),
            &format!("needle {many}"),
            &["a"],
        );
    }

    #[test]
    fn excerpts_are_short_and_centred_on_the_first_hit() {
        let long = format!(
            "{} the needle\n\nis  here {}",
            "hay ".repeat(200),
            "straw ".repeat(200)
        );
        let chats = users(&[("a", &long)]);
        let e = &recall(&chats, "NEEDLE", &HashSet::new(), 1)[0].excerpt;
        assert!(e.starts_with('…') && e.ends_with('…'), "{e}");
        assert_eq!(e.chars().count(), EXCERPT_CHARS);
        let at = e.find("the needle is here").expect("hit shown on one line");
        let before = e[..at].chars().count();
        assert!((140..=160).contains(&before), "{before}");
        // Near the start: no leading mark. Chinese text is cut at characters.
        let chinese = format!("订单号 {}", "很长的句子".repeat(100));
        let chats = users(&[("b", &chinese)]);
        let e = &recall(&chats, "订单号", &HashSet::new(), 1)[0].excerpt;
        assert!(e.starts_with("订单号 很长") && e.ends_with('…'), "{e}");
        assert_eq!(e.chars().count(), EXCERPT_CHARS - 1);
        // Near the end: no trailing mark.
        let tail = format!("{} 订单号", "很长的句子".repeat(100));
        let chats = users(&[("c", &tail)]);
        let e = &recall(&chats, "订单号", &HashSet::new(), 1)[0].excerpt;
        assert!(e.starts_with('…') && e.ends_with(" 订单号"), "{e}");
    }

    #[test]
    fn formats_the_tool_result() {
        let hit = |title: &str, id: &str, role: Role, at: i64, excerpt: &str| Recalled {
            chat_id: "c".into(),
            chat_title: title.into(),
            message_id: id.into(),
            role,
            at,
            excerpt: excerpt.into(),
            score: 1.5,
        };
        let date = |at: i64| format!("day {at}");
        let cases: Vec<(Vec<Recalled>, &str, &str)> = vec![
            (vec![], " 订单号 ", "No earlier messages match \"订单号\"."),
            (
                vec![
                    hit("Orders", "m1", Role::User, 3, "我的订单号是 A-1029"),
                    hit("Untitled chat", "m2", Role::Assistant, 7, "Noted: A-1029."),
                ],
                "订单号",
                "Earlier messages matching \"订单号\", most relevant first:\n\
                 \n[1] Chat \"Orders\", day 3, user:\n我的订单号是 A-1029\n\
                 \n[2] Chat \"Untitled chat\", day 7, assistant:\nNoted: A-1029.\n",
            ),
        ];
        for (hits, query, expected) in cases {
            assert_eq!(format(&hits, query, &date), expected);
        }
    }
}
