//! "Search chats": find the chats whose title or messages (the branch on screen) hold the words
//! typed, ignoring case and accents (`Café` finds `cafe`), Chinese and other scripts as they are
//! (every word must appear; Chinese needs no spaces: `订单` finds `我的订单号`).
//!
//! Pure: the dialogs module reads the stored chats and draws the results.

use crate::session::Session;

/// At most this many chats are listed.
pub const MAX_CHATS: usize = 50;
/// At most this many messages are listed per chat.
pub const MAX_MESSAGES: usize = 3;
/// Characters of context shown around a hit.
const CONTEXT: usize = 40;

/// One message that matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageHit {
    /// The message id (the app opens the chat there).
    pub id: String,
    /// An excerpt of its text around the first hit, in pieces: `(text, is_hit)`.
    pub excerpt: Vec<(String, bool)>,
}

/// One chat that matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatHit {
    /// Chat id.
    pub id: String,
    /// Its title, in pieces: `(text, is_hit)`.
    pub title: Vec<(String, bool)>,
    /// Matching messages, oldest first (at most [`MAX_MESSAGES`]).
    pub messages: Vec<MessageHit>,
    /// Matching messages in all.
    pub count: usize,
}

/// A character folded for matching: lower case, Latin accents removed. Returns the folded
/// characters (usually one; `ß` gives `ss`).
fn fold_char(c: char, out: &mut String) {
    let base = match c {
        'À'..='Å' | 'à'..='å' | 'Ā'..='ą' => 'a',
        'Ç' | 'ç' | 'Ć'..='č' => 'c',
        'Ď'..='đ' => 'd',
        'È'..='Ë' | 'è'..='ë' | 'Ē'..='ě' => 'e',
        'Ĝ'..='ģ' => 'g',
        'Ĥ'..='ħ' => 'h',
        'Ì'..='Ï' | 'ì'..='ï' | 'Ĩ'..='ı' => 'i',
        'Ĵ' | 'ĵ' => 'j',
        'Ķ' | 'ķ' => 'k',
        'Ĺ'..='ł' => 'l',
        'Ñ' | 'ñ' | 'Ń'..='ň' => 'n',
        'Ò'..='Ö' | 'Ø' | 'ò'..='ö' | 'ø' | 'Ō'..='ő' => 'o',
        'Ŕ'..='ř' => 'r',
        'Ś'..='š' => 's',
        'Ţ'..='ŧ' => 't',
        'Ù'..='Ü' | 'ù'..='ü' | 'Ũ'..='ų' => 'u',
        'Ŵ' | 'ŵ' => 'w',
        'Ý' | 'ý' | 'ÿ' | 'Ŷ'..='Ÿ' => 'y',
        'Ź'..='ž' => 'z',
        'ß' | 'ẞ' => {
            out.push_str("ss");
            return;
        }
        // Combining accents (text typed in decomposed form) fold to nothing.
        '\u{300}'..='\u{36f}' => return,
        c => {
            out.extend(c.to_lowercase());
            return;
        }
    };
    out.push(base);
}

/// `text` folded, with for each folded byte the byte offset in `text` of the character it came
/// from (so hits can be shown in the original text).
fn fold(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut from = Vec::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        let before = out.len();
        fold_char(c, &mut out);
        from.extend(std::iter::repeat_n(i, out.len() - before));
    }
    (out, from)
}

/// The words of a query, folded (empty when there is nothing to look for).
pub fn words(query: &str) -> Vec<String> {
    query
        .split_whitespace()
        .map(|w| fold(w).0)
        .filter(|w| !w.is_empty())
        .collect()
}

/// Where the words occur in `text`: byte ranges of the original text, sorted, merged.
fn hits(text: &str, words: &[String]) -> Vec<(usize, usize)> {
    let (folded, from) = fold(text);
    let mut out: Vec<(usize, usize)> = Vec::new();
    for w in words {
        let mut start = 0;
        while let Some(p) = folded[start..].find(w.as_str()) {
            let a = start + p;
            let b = a + w.len();
            // Up to the end of the last original character the hit covers, with the combining
            // accents that follow it (they fold to nothing, and belong to it on screen).
            let last = from[b - 1];
            let mut end = last + text[last..].chars().next().map_or(0, char::len_utf8);
            end += text[end..]
                .chars()
                .take_while(|c| ('\u{300}'..='\u{36f}').contains(c))
                .map(char::len_utf8)
                .sum::<usize>();
            out.push((from[a], end));
            start = b;
        }
    }
    out.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(out.len());
    for (a, b) in out {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// Whether every word of a query (from [`words`]) occurs in `text`, folded alike.
pub fn matches(text: &str, words: &[String]) -> bool {
    all_in(&fold(text).0, words)
}

/// Whether every word occurs in `folded`.
fn all_in(folded: &str, words: &[String]) -> bool {
    words.iter().all(|w| folded.contains(w.as_str()))
}

/// `text` cut into pieces `(text, is_hit)` by `ranges`.
fn pieces(text: &str, ranges: &[(usize, usize)]) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    for &(a, b) in ranges {
        if a > at {
            out.push((text[at..a].to_string(), false));
        }
        out.push((text[a..b].to_string(), true));
        at = b;
    }
    if at < text.len() {
        out.push((text[at..].to_string(), false));
    }
    out
}

/// An excerpt of `text` around its first hit, on one line, with the hits marked.
fn excerpt(text: &str, words: &[String]) -> Vec<(String, bool)> {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let ranges = hits(&line, words);
    let first = ranges.first().map_or(0, |r| r.0);
    // Start a little before the first hit, at a character boundary.
    let start = line[..first]
        .char_indices()
        .rev()
        .nth(CONTEXT)
        .map_or(0, |(i, _)| i);
    let end = line[first..]
        .char_indices()
        .nth(CONTEXT * 3)
        .map_or(line.len(), |(i, _)| first + i);
    // Hits cut by the excerpt's ends are marked as far as they show.
    let shown: Vec<(usize, usize)> = ranges
        .iter()
        .filter(|r| r.0 < end && r.1 > start)
        .map(|r| (r.0.max(start) - start, r.1.min(end) - start))
        .collect();
    let mut out = pieces(&line[start..end], &shown);
    if start > 0 {
        out.insert(0, ("…".to_string(), false));
    }
    if end < line.len() {
        out.push(("…".to_string(), false));
    }
    out
}

/// Chats made ready for searching: every title and message of the branch on screen folded once,
/// so each keystroke only compares.
pub struct Corpus {
    chats: Vec<Entry>,
}

struct Entry {
    id: String,
    title: String,
    folded_title: String,
    /// Message id, text, folded text.
    messages: Vec<(String, String, String)>,
}

impl Corpus {
    /// `chats` in the order results are listed (the sidebar's, newest first).
    pub fn new(chats: &[Session]) -> Corpus {
        Corpus {
            chats: chats
                .iter()
                .map(|c| Entry {
                    id: c.id.clone(),
                    title: c.title.clone(),
                    folded_title: fold(&c.title).0,
                    messages: c
                        .path()
                        .into_iter()
                        .map(|m| (m.id.clone(), m.content.clone(), fold(&m.content).0))
                        .collect(),
                })
                .collect(),
        }
    }

    /// The chats that match `query`: every word in the title or in one message. At most
    /// [`MAX_CHATS`].
    pub fn search(&self, query: &str) -> Vec<ChatHit> {
        let words = words(query);
        if words.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for chat in &self.chats {
            let title_hit = all_in(&chat.folded_title, &words);
            let mut messages = Vec::new();
            let mut count = 0;
            for (id, text, folded) in &chat.messages {
                if all_in(folded, &words) {
                    count += 1;
                    if messages.len() < MAX_MESSAGES {
                        messages.push(MessageHit {
                            id: id.clone(),
                            excerpt: excerpt(text, &words),
                        });
                    }
                }
            }
            if title_hit || count > 0 {
                out.push(ChatHit {
                    id: chat.id.clone(),
                    title: pieces(&chat.title, &hits(&chat.title, &words)),
                    messages,
                    count,
                });
                if out.len() == MAX_CHATS {
                    break;
                }
            }
        }
        out
    }
}

/// [`Corpus::search`] over `chats` once.
pub fn search(chats: &[Session], query: &str) -> Vec<ChatHit> {
    Corpus::new(chats).search(query)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Message, Role};

    fn chat(id: &str, title: &str, texts: &[&str]) -> Session {
        let mut s = Session::new(id.into(), 0, None, Vec::new());
        s.title = title.into();
        let mut parent = None;
        for (i, t) in texts.iter().enumerate() {
            let mid = format!("{id}-{i}");
            s.messages.push(Message::new(
                mid.clone(),
                parent.clone(),
                Role::User,
                (*t).into(),
                0,
            ));
            parent = Some(mid);
        }
        s.leaf = parent;
        s
    }

    /// The marked parts of pieces.
    fn marked(p: &[(String, bool)]) -> Vec<&str> {
        p.iter()
            .filter(|(_, h)| *h)
            .map(|(t, _)| t.as_str())
            .collect()
    }

    #[test]
    fn finds_by_title_and_text_ignoring_case_and_accents_chinese_too() {
        let chats = [
            chat(
                "a",
                "Café plans",
                &["We met at the CAFÉ on Monday", "nothing here"],
            ),
            chat("b", "订单查询", &["我的订单号是 ORD-2024-00042", "好的"]),
            chat("c", "Rust", &["Naïve borrow checker questions"]),
        ];
        let ids =
            |q: &str| -> Vec<String> { search(&chats, q).into_iter().map(|h| h.id).collect() };
        assert_eq!(ids("cafe"), ["a"]);
        assert_eq!(ids("CAFÉ monday"), ["a"], "every word, one message");
        assert_eq!(ids("订单"), ["b"]);
        assert_eq!(ids("ord-2024-00042"), ["b"]);
        assert_eq!(ids("naive"), ["c"]);
        assert_eq!(
            ids("cafe rust"),
            Vec::<String>::new(),
            "words from two chats"
        );
        assert!(ids("   ").is_empty());
        let hit = &search(&chats, "cafe")[0];
        assert_eq!(marked(&hit.title), ["Café"]);
        assert_eq!(hit.count, 1);
        assert_eq!(hit.messages[0].id, "a-0");
        assert_eq!(marked(&hit.messages[0].excerpt), ["CAFÉ"]);
        let hit = &search(&chats, "订单")[0];
        assert_eq!(marked(&hit.messages[0].excerpt), ["订单"]);
    }

    #[test]
    fn excerpts_are_short_and_marked_in_the_original_text() {
        let long = format!(
            "{} the needle is here {}",
            "hay ".repeat(100),
            "straw ".repeat(100)
        );
        let chats = [chat("a", "t", &[&long])];
        let e = &search(&chats, "NEEDLE")[0].messages[0].excerpt;
        assert_eq!(e.first().map(|p| p.0.as_str()), Some("…"));
        assert_eq!(e.last().map(|p| p.0.as_str()), Some("…"));
        assert_eq!(marked(e), ["needle"]);
        let shown: usize = e.iter().map(|p| p.0.chars().count()).sum();
        assert!(shown < 200, "{shown}");
        // A hit longer than the excerpt is marked as far as it shows.
        let chats = [chat("x", "t", &[&"x".repeat(300)])];
        let e = &search(&chats, "x")[0].messages[0].excerpt;
        assert!(e.iter().any(|p| p.1 && p.0.len() > 100), "{e:?}");
        // Folding that changes length (ß → ss) still marks the right characters.
        let chats = [chat("b", "Straße", &["Die STRASSE ist lang", "STRAẞE"])];
        let hit = &search(&chats, "strasse")[0];
        assert_eq!(marked(&hit.title), ["Straße"]);
        assert_eq!(marked(&hit.messages[0].excerpt), ["STRASSE"]);
        assert_eq!(marked(&hit.messages[1].excerpt), ["STRAẞE"]);
        // Text typed with combining accents: each accent stays with its letter, inside the mark.
        let chats = [chat("d", "e\u{301}te\u{301} plans", &[])];
        assert_eq!(
            marked(&search(&chats, "ete")[0].title),
            ["e\u{301}te\u{301}"]
        );
    }

    #[test]
    fn at_most_three_messages_per_chat_and_fifty_chats() {
        let many: Vec<Session> = (0..60)
            .map(|i| {
                chat(
                    &format!("c{i}"),
                    "x",
                    &["apple", "apple pie", "apple tart", "apple"],
                )
            })
            .collect();
        let hits = search(&many, "apple");
        assert_eq!(hits.len(), MAX_CHATS);
        assert_eq!(hits[0].messages.len(), MAX_MESSAGES);
        assert_eq!(hits[0].count, 4);
    }
}
