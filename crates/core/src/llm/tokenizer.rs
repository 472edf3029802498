//! SmolLM2's tokenizer, read from the GGUF metadata, giving the ids llama.cpp gives: GPT-2
//! byte-level BPE with the `smollm` pre-tokenizer, and the special tokens of the chat template
//! recognized in text.
//!
//! How llama.cpp does it (src/llama-vocab.cpp, src/unicode.cpp), and so this module:
//! 1. The text is cut at every occurrence of a special token (types control, user-defined and
//!    unknown), the longest tokens first.
//! 2. Each other piece is split by `\p{N}` (every number character on its own), then each part by
//!    the GPT-2 pattern `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`.
//! 3. Each word's bytes are mapped to GPT-2's printable characters and merged pair by pair, the
//!    pair of lowest merge rank first (the leftmost of equal ranks); a symbol missing from the
//!    vocabulary falls back to its single bytes.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use unicode_general_category::{get_general_category, GeneralCategory as G};

use super::gguf::{Gguf, GgufError};

/// A loaded tokenizer.
pub struct Tokenizer {
    tokens: Vec<String>,
    ids: HashMap<String, u32>,
    ranks: HashMap<(String, String), u32>,
    /// Special tokens, longest first: (text, id).
    specials: Vec<(String, u32)>,
    /// The end-of-turn token (`<|im_end|>`).
    pub eos: u32,
    byte_char: [char; 256],
    char_byte: HashMap<char, u8>,
}

const UNKNOWN: i64 = 2;
const CONTROL: i64 = 3;
const USER_DEFINED: i64 = 4;

impl Tokenizer {
    /// Reads the tokenizer of a GGUF file (`tokenizer.ggml.model` must be `gpt2`).
    pub fn load(g: &Gguf) -> Result<Tokenizer, GgufError> {
        if g.s("tokenizer.ggml.model")? != "gpt2" {
            return Err(GgufError::Missing("tokenizer.ggml.model = gpt2".into()));
        }
        let tokens = g.strs("tokenizer.ggml.tokens")?.to_vec();
        let types = g.ints("tokenizer.ggml.token_type")?;
        if types.len() != tokens.len() {
            return Err(GgufError::Missing("tokenizer.ggml.token_type".into()));
        }
        let ids: HashMap<String, u32> = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        let mut ranks = HashMap::new();
        for (rank, m) in g.strs("tokenizer.ggml.merges")?.iter().enumerate() {
            // Split at the first space after the first character.
            let at = m
                .char_indices()
                .skip(1)
                .find(|&(_, c)| c == ' ')
                .map(|(i, _)| i)
                .ok_or_else(|| GgufError::Missing("tokenizer.ggml.merges".into()))?;
            ranks.insert((m[..at].to_string(), m[at + 1..].to_string()), rank as u32);
        }
        let mut specials: Vec<(String, u32)> = tokens
            .iter()
            .zip(types)
            .enumerate()
            .filter(|(_, (_, &t))| matches!(t, CONTROL | USER_DEFINED | UNKNOWN))
            .map(|(i, (s, _))| (s.clone(), i as u32))
            .filter(|(s, _)| !s.is_empty())
            .collect();
        specials.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.1.cmp(&b.1)));
        let eos = ids
            .get("<|im_end|>")
            .copied()
            .or_else(|| g.u("tokenizer.ggml.eos_token_id").ok().map(|v| v as u32))
            .ok_or_else(|| GgufError::Missing("tokenizer.ggml.eos_token_id".into()))?;
        let byte_char = byte_chars();
        let char_byte = byte_char
            .iter()
            .enumerate()
            .map(|(b, &c)| (c, b as u8))
            .collect();
        Ok(Tokenizer {
            tokens,
            ids,
            ranks,
            specials,
            eos,
            byte_char,
            char_byte,
        })
    }

    /// The ids of `text`, special tokens recognized.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for piece in self.partition(text) {
            match piece {
                Piece::Special(id) => out.push(id),
                Piece::Text(t) => {
                    for span in split_numbers(t) {
                        for word in split_gpt2(span) {
                            self.bpe(word, &mut out);
                        }
                    }
                }
            }
        }
        out
    }

    /// The text of `ids` (special tokens drawn as nothing), as bytes (a token may end inside a
    /// character).
    pub fn decode(&self, ids: &[u32]) -> Vec<u8> {
        let mut out = Vec::new();
        for &id in ids {
            let Some(t) = self.tokens.get(id as usize) else {
                continue;
            };
            if self.specials.iter().any(|(_, s)| *s == id) {
                continue;
            }
            for c in t.chars() {
                if let Some(&b) = self.char_byte.get(&c) {
                    out.push(b);
                }
            }
        }
        out
    }

    /// The special tokens (text, id): the chat template's and the model's other control tokens.
    pub fn specials(&self) -> impl Iterator<Item = (&str, u32)> {
        self.specials.iter().map(|(t, id)| (t.as_str(), *id))
    }

    /// Tokens in the vocabulary.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether the vocabulary is empty (never, once loaded).
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    fn partition<'a>(&self, text: &'a str) -> Vec<Piece<'a>> {
        let mut pieces = vec![Piece::Text(text)];
        for (special, id) in &self.specials {
            let mut next = Vec::with_capacity(pieces.len());
            for p in pieces {
                match p {
                    Piece::Text(mut t) => {
                        while let Some(at) = t.find(special.as_str()) {
                            if at > 0 {
                                next.push(Piece::Text(&t[..at]));
                            }
                            next.push(Piece::Special(*id));
                            t = &t[at + special.len()..];
                        }
                        if !t.is_empty() {
                            next.push(Piece::Text(t));
                        }
                    }
                    special => next.push(special),
                }
            }
            pieces = next;
        }
        pieces
    }

    fn bpe(&self, word: &str, out: &mut Vec<u32>) {
        // Always by the merges, even for a word the vocabulary holds whole: llama.cpp takes such
        // a word at once only for vocabularies that ignore merges (Llama 3's), not SmolLM2's.
        let mapped: String = word.bytes().map(|b| self.byte_char[b as usize]).collect();
        // Symbols as spans of `mapped` in a linked list; candidate merges in a heap, the lowest
        // rank first and the leftmost of equal ranks (llama.cpp's order), each checked when it
        // comes out against the symbols as they are by then (its length changes with any merge
        // that touched it). O(n log n), so a long run of letters (a Chinese paragraph is one
        // word) costs little.
        let spans: Vec<(usize, usize)> = mapped
            .char_indices()
            .map(|(i, c)| (i, i + c.len_utf8()))
            .collect();
        let n = spans.len();
        let start: Vec<usize> = spans.iter().map(|s| s.0).collect();
        let mut end: Vec<usize> = spans.iter().map(|s| s.1).collect();
        let mut next: Vec<usize> = (1..=n).collect(); // n: none
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect(); // usize::MAX: none
        let mut alive = vec![true; n];
        let mut heap = BinaryHeap::new();
        let pair = |l: usize, r: usize, start: &[usize], end: &[usize]| {
            let key = (
                mapped[start[l]..end[l]].to_string(),
                mapped[start[r]..end[r]].to_string(),
            );
            self.ranks
                .get(&key)
                .map(|&rank| Reverse((rank, l, end[r] - start[l])))
        };
        for l in 0..n.saturating_sub(1) {
            heap.extend(pair(l, l + 1, &start, &end));
        }
        while let Some(Reverse((_, l, len))) = heap.pop() {
            let r = next[l];
            if !alive[l] || r >= n || end[r] - start[l] != len {
                continue; // stale: a merge changed one of its symbols
            }
            end[l] = end[r];
            alive[r] = false;
            next[l] = next[r];
            if next[l] < n {
                prev[next[l]] = l;
            }
            if prev[l] < n {
                heap.extend(pair(prev[l], l, &start, &end));
            }
            if next[l] < n {
                heap.extend(pair(l, next[l], &start, &end));
            }
        }
        let mut i = 0;
        while i < n {
            let s = &mapped[start[i]..end[i]];
            match self.ids.get(s) {
                Some(&id) => out.push(id),
                None => {
                    for c in s.chars() {
                        if let Some(&id) = self.ids.get(&c.to_string()) {
                            out.push(id);
                        }
                    }
                }
            }
            i = next[i];
        }
    }
}

enum Piece<'a> {
    Text(&'a str),
    Special(u32),
}

/// GPT-2's map of bytes to printable characters.
fn byte_chars() -> [char; 256] {
    let mut out = ['\0'; 256];
    let mut n = 0u32;
    for b in 0..=255u32 {
        let printable =
            (0x21..=0x7E).contains(&b) || (0xA1..=0xAC).contains(&b) || (0xAE..=0xFF).contains(&b);
        out[b as usize] = if printable {
            char::from_u32(b).unwrap_or('\0')
        } else {
            n += 1;
            char::from_u32(255 + n).unwrap_or('\0')
        };
    }
    out
}

fn is_letter(c: char) -> bool {
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
    )
}

fn is_number(c: char) -> bool {
    matches!(
        get_general_category(c),
        G::DecimalNumber | G::LetterNumber | G::OtherNumber
    )
}

/// `\s` as llama.cpp's tables have it.
fn is_space(c: char) -> bool {
    matches!(c as u32, 0x09..=0x0D | 0x20 | 0x85 | 0xA0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x202F | 0x205F | 0x3000)
}

/// Cuts `text` around every number character (each its own piece).
fn split_numbers(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if is_number(c) {
            if i > start {
                out.push(&text[start..i]);
            }
            out.push(&text[i..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The GPT-2 pattern over `span` (llama.cpp's hand-written matcher: what lies outside the span
/// counts as nothing).
fn split_gpt2(span: &str) -> Vec<&str> {
    let cs: Vec<(usize, char)> = span.char_indices().collect();
    let n = cs.len();
    let at = |i: usize| cs.get(i).map(|&(_, c)| c);
    let letter = |i: usize| at(i).is_some_and(is_letter);
    let number = |i: usize| at(i).is_some_and(is_number);
    let space = |i: usize| at(i).is_some_and(is_space);
    let other = |i: usize| at(i).is_some_and(|c| !is_space(c) && !is_letter(c) && !is_number(c));
    let byte = |i: usize| cs.get(i).map_or(span.len(), |&(b, _)| b);
    let mut out = Vec::new();
    let mut prev = 0;
    let mut pos = 0;
    while pos < n {
        let c = cs[pos].1;
        let start = pos;
        if c == '\'' && pos + 1 < n {
            let c1 = cs[pos + 1].1;
            if matches!(c1, 's' | 't' | 'm' | 'd') {
                pos += 2;
            } else if pos + 2 < n
                && matches!((c1, cs[pos + 2].1), ('r', 'e') | ('v', 'e') | ('l', 'l'))
            {
                pos += 3;
            }
        }
        if pos == start {
            let lead = usize::from(c == ' ');
            if letter(pos + lead) {
                pos += lead;
                while letter(pos) {
                    pos += 1;
                }
            } else if number(pos + lead) {
                pos += lead;
                while number(pos) {
                    pos += 1;
                }
            } else if other(pos + lead) {
                pos += lead;
                while other(pos) {
                    pos += 1;
                }
            } else {
                let mut ws = 0;
                while space(pos + ws) {
                    ws += 1;
                }
                if ws > 1 && pos + ws < n {
                    pos += ws - 1;
                } else if ws > 0 {
                    pos += ws;
                } else {
                    pos += 1;
                }
            }
        }
        out.push(&span[byte(prev)..byte(pos)]);
        prev = pos;
    }
    out
}

/// The prompt for `messages` (role, content) in SmolLM2's chat template, ready for the
/// assistant's answer: ChatML, with the model's default system prompt when the chat has none.
pub fn chat_prompt(messages: &[(&str, &str)]) -> String {
    let mut out = String::new();
    if messages.first().is_none_or(|(role, _)| *role != "system") {
        out.push_str("<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n");
    }
    for (role, content) in messages {
        out.push_str("<|im_start|>");
        out.push_str(role);
        out.push('\n');
        out.push_str(content);
        out.push_str("<|im_end|>\n");
    }
    out.push_str("<|im_start|>assistant\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The merge loop as first written: the lowest-ranked pair, the leftmost of equal ranks, found
    /// by scanning every pair after every merge.
    fn naive(t: &Tokenizer, word: &str) -> Vec<String> {
        let mapped: String = word.bytes().map(|b| t.byte_char[b as usize]).collect();
        let mut symbols: Vec<String> = mapped.chars().map(String::from).collect();
        loop {
            let mut best: Option<(u32, usize)> = None;
            for i in 0..symbols.len().saturating_sub(1) {
                let key = (symbols[i].clone(), symbols[i + 1].clone());
                if let Some(&r) = t.ranks.get(&key) {
                    if best.is_none_or(|(b, _)| r < b) {
                        best = Some((r, i));
                    }
                }
            }
            let Some((_, i)) = best else { break };
            let right = symbols.remove(i + 1);
            symbols[i].push_str(&right);
        }
        symbols
    }

    #[test]
    fn heap_merges_equal_the_naive_loop() {
        let mut x = 0x9E37_79B9u32;
        let mut next = move |n: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % n
        };
        for table in 0..40 {
            // A random merge table over "abcd" (ranks repeat, merges build on merges), every
            // symbol in the vocabulary.
            let mut symbols: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
            let mut ranks = HashMap::new();
            for _ in 0..(10 + table) {
                let l = symbols[next(symbols.len() as u32) as usize].clone();
                let r = symbols[next(symbols.len() as u32) as usize].clone();
                if ranks.contains_key(&(l.clone(), r.clone())) {
                    continue;
                }
                ranks.insert((l.clone(), r.clone()), next(12));
                symbols.push(l + &r);
            }
            let ids: HashMap<String, u32> = symbols.iter().cloned().zip(0..).collect();
            let t = Tokenizer {
                tokens: symbols.clone(),
                ids,
                ranks,
                specials: Vec::new(),
                eos: 0,
                byte_char: byte_chars(),
                char_byte: HashMap::new(),
            };
            for _ in 0..100 {
                let len = 1 + next(40) as usize;
                let word: String = (0..len)
                    .map(|_| b"abcd"[next(4) as usize] as char)
                    .collect();
                let mut got = Vec::new();
                t.bpe(&word, &mut got);
                let want: Vec<u32> = naive(&t, &word).iter().map(|s| t.ids[s]).collect();
                assert_eq!(got, want, "table {table}, word {word}");
            }
        }
    }
}
