//! The vocabulary (token bytes → rank, an open-addressing hash table built once at load) and
//! byte-pair merging of one piece.
//!
//! Merging is tiktoken's rule: start from single bytes, repeatedly join the adjacent pair whose
//! concatenation has the lowest rank (the leftmost on a tie) until no adjacent pair is a token.
//! Short pieces use tiktoken's scan (quadratic, fastest when small); pieces longer than
//! [`SHORT`] bytes use a heap with lazy deletion, `O(m log m)`, with the same result (a test
//! checks both against each other). A pair longer than the longest token is never looked up.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Pieces up to this many bytes are merged by the quadratic scan (on the stack).
pub const SHORT: usize = 128;

const NONE: u32 = u32::MAX;
const EMPTY: u32 = u32::MAX;

/// One slot of the table: the first eight bytes of a token (zero-padded, little-endian, as two
/// halves) and `rank | length << 24`, or `EMPTY`.
#[derive(Clone, Copy)]
struct Slot {
    lo: u32,
    hi: u32,
    meta: u32,
}

/// A token on its way into the table: its home slot and its slot contents.
#[derive(Clone, Copy)]
struct Entry {
    home: u32,
    slot: Slot,
}

/// Token bytes → rank.
pub struct Vocab {
    bytes: Vec<u8>,
    offsets: Vec<u32>,
    slots: Vec<Slot>,
    shift: u32,
    max_len: usize,
    byte_rank: [u32; 256],
    /// The rank of every two-byte token, by its bytes as a big-endian `u16`, else `NONE`.
    pair_rank: Vec<u32>,
}

/// Why a vocabulary cannot be built.
pub enum VocabError {
    /// Two tokens have the same bytes (the later rank).
    Duplicate(u32),
    /// A token is longer than 255 bytes or a rank does not fit 24 bits.
    TooLarge(u32),
    /// A single byte is not a token, so some text could not be encoded.
    MissingByte(u8),
}

/// The first eight bytes of `b` (zero-padded) as a little-endian `u64`.
#[inline(always)]
fn word(b: &[u8]) -> u64 {
    if let Some(head) = b.first_chunk::<8>() {
        return u64::from_le_bytes(*head);
    }
    // Shorter: byte by byte (a variable-length copy would call memmove; iterator adapters are
    // not inlined at `opt-level = "z"`).
    let mut w = 0u64;
    let mut i = b.len();
    while i > 0 {
        i -= 1;
        w = w << 8 | u64::from(b[i]);
    }
    w
}

/// The hash of a byte string (the table's, and the piece cache's).
#[inline(always)]
pub fn hash(b: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = (b.len() as u64).wrapping_mul(K) ^ word(b);
    let mut rest = b.get(8..).unwrap_or(&[]);
    while !rest.is_empty() {
        h = h.wrapping_mul(K).rotate_left(31) ^ word(rest);
        rest = rest.get(8..).unwrap_or(&[]);
    }
    h.wrapping_mul(K) ^ (h >> 32)
}

impl Vocab {
    /// Builds the table for tokens `bytes[offsets[r]..offsets[r + 1]]` of rank `r`.
    pub fn new(bytes: Vec<u8>, offsets: Vec<u32>) -> Result<Vocab, VocabError> {
        let n = offsets.len().saturating_sub(1);
        if n > 1 << 24 {
            return Err(VocabError::TooLarge(1 << 24));
        }
        if let Some(rank) = offsets
            .windows(2)
            .position(|w| w[1].wrapping_sub(w[0]) > 255)
        {
            return Err(VocabError::TooLarge(rank as u32));
        }
        // At most 3/4 full: probe runs stay within a cache line or two (measured: no slower
        // than 3/8 full, half the memory).
        let bits = (n.max(16) * 4 / 3).next_power_of_two().trailing_zeros();
        let empty = Slot {
            lo: 0,
            hi: 0,
            meta: EMPTY,
        };
        let mut vocab = Vocab {
            bytes,
            offsets,
            slots: vec![empty; 1 << bits],
            shift: 64 - bits,
            max_len: 0,
            byte_rank: [NONE; 256],
            pair_rank: vec![NONE; 1 << 16],
        };
        // Insert in slot order (a counting sort on the top bits of each token's home slot), so
        // the table is written front to back rather than at random: twice as fast to load.
        let home: Vec<u32> = (0..n as u32)
            .map(|rank| vocab.index(vocab.token(rank)) as u32)
            .collect();
        let bucket_bits = bits.min(12);
        let down = bits - bucket_bits;
        let mut next = vec![0u32; (1 << bucket_bits) + 1];
        for &h in &home {
            next[(h >> down) as usize + 1] += 1;
        }
        for k in 1..next.len() {
            next[k] += next[k - 1];
        }
        let mut sorted = vec![
            Entry {
                home: 0,
                slot: empty
            };
            n
        ];
        for (rank, &h) in home.iter().enumerate() {
            let token = vocab.token(rank as u32);
            let w = word(token);
            let at = &mut next[(h >> down) as usize];
            sorted[*at as usize] = Entry {
                home: h,
                slot: Slot {
                    lo: w as u32,
                    hi: (w >> 32) as u32,
                    meta: rank as u32 | (token.len() as u32) << 24,
                },
            };
            *at += 1;
        }
        drop(home);
        for e in &sorted {
            vocab.insert(e)?;
        }
        if let Some(b) = vocab.byte_rank.iter().position(|&r| r == NONE) {
            return Err(VocabError::MissingByte(b as u8));
        }
        Ok(vocab)
    }

    /// Puts a token in the first free slot from its home on, unless its bytes are there.
    fn insert(&mut self, e: &Entry) -> Result<(), VocabError> {
        let rank = e.slot.meta & 0x00ff_ffff;
        let len = (e.slot.meta >> 24) as usize;
        let mask = self.slots.len() - 1;
        let mut at = e.home as usize;
        loop {
            let s = self.slots[at];
            if s.meta == EMPTY {
                break;
            }
            if s.lo == e.slot.lo && s.hi == e.slot.hi && s.meta >> 24 == e.slot.meta >> 24 {
                let other = s.meta & 0x00ff_ffff;
                if self.token(other) == self.token(rank) {
                    return Err(VocabError::Duplicate(rank.max(other)));
                }
            }
            at = (at + 1) & mask;
        }
        if len <= 2 {
            match *self.token(rank) {
                [b] => self.byte_rank[usize::from(b)] = rank,
                [a, b] => self.pair_rank[usize::from(a) << 8 | usize::from(b)] = rank,
                _ => {}
            }
        }
        self.max_len = self.max_len.max(len);
        self.slots[at] = e.slot;
        Ok(())
    }

    /// The bytes of the token of rank `rank` (empty if there is none).
    #[inline(always)]
    pub fn token(&self, rank: u32) -> &[u8] {
        let r = rank as usize;
        match (self.offsets.get(r), self.offsets.get(r + 1)) {
            (Some(&a), Some(&b)) => self.bytes.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The number of tokens.
    pub fn token_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    #[inline(always)]
    fn index(&self, b: &[u8]) -> usize {
        (hash(b) >> self.shift) as usize
    }

    /// The rank of the token with bytes `b`, if there is one.
    #[inline(always)]
    pub fn rank(&self, b: &[u8]) -> Option<u32> {
        let direct = match *b {
            [] => return None,
            [x] => self.byte_rank[usize::from(x)],
            [x, y] => self.pair_rank[usize::from(x) << 8 | usize::from(y)],
            _ if b.len() > self.max_len => return None,
            _ => return self.rank_hashed(b),
        };
        (direct != NONE).then_some(direct)
    }

    /// [`rank`](Self::rank) for three bytes and more: the hash table.
    #[inline(never)]
    fn rank_hashed(&self, b: &[u8]) -> Option<u32> {
        let w = word(b);
        let (lo, hi) = (w as u32, (w >> 32) as u32);
        let want_len = (b.len() as u32) << 24;
        let mask = self.slots.len() - 1;
        let mut i = self.index(b);
        loop {
            let slot = self.slots[i];
            if slot.meta == EMPTY {
                return None;
            }
            if slot.lo == lo && slot.hi == hi && slot.meta & 0xff00_0000 == want_len {
                let rank = slot.meta & 0x00ff_ffff;
                if b.len() <= 8 || self.token(rank) == b {
                    return Some(rank);
                }
            }
            i = (i + 1) & mask;
        }
    }

    #[inline(always)]
    fn pair(&self, piece: &[u8], from: usize, to: usize) -> u32 {
        if to - from > self.max_len {
            return NONE;
        }
        self.rank(&piece[from..to]).unwrap_or(NONE)
    }

    /// Merges `piece` (not empty) and calls `emit` with the rank of each token, in order.
    pub fn merge(&self, piece: &[u8], scratch: &mut Scratch, emit: &mut impl FnMut(u32)) {
        if piece.len() == 1 {
            emit(self.byte_rank[usize::from(piece[0])]);
        } else if piece.len() <= SHORT {
            self.merge_short(piece, emit);
        } else {
            self.merge_long(piece, scratch, emit);
        }
    }

    /// tiktoken's scan: `parts[i]` = (start, rank of the pair starting there, own rank), on
    /// the stack (no allocation, no generic calls that `opt-level = "z"` would not inline).
    fn merge_short(&self, piece: &[u8], emit: &mut impl FnMut(u32)) {
        let m = piece.len().min(SHORT);
        let mut parts = [(0u32, NONE, NONE); SHORT + 1];
        for i in 0..m {
            let pair = if i + 2 <= m {
                self.pair(piece, i, i + 2)
            } else {
                NONE
            };
            parts[i] = (i as u32, pair, self.byte_rank[usize::from(piece[i])]);
        }
        parts[m] = (m as u32, NONE, NONE);
        let mut len = m + 1; // parts in use, the last one marking the end
        loop {
            let mut best = (NONE, 0);
            for (i, &(_, pair, _)) in parts[..len - 1].iter().enumerate() {
                if pair < best.0 {
                    best = (pair, i);
                }
            }
            let (rank, i) = best;
            if rank == NONE {
                break;
            }
            // Parts i and i + 1 become one, ending where part i + 2 starts.
            let end = parts[i + 2].0 as usize;
            parts[i].1 = if i + 3 < len {
                self.pair(piece, parts[i].0 as usize, parts[i + 3].0 as usize)
            } else {
                NONE
            };
            parts[i].2 = rank;
            if i > 0 {
                parts[i - 1].1 = self.pair(piece, parts[i - 1].0 as usize, end);
            }
            for k in i + 1..len - 1 {
                parts[k] = parts[k + 1];
            }
            len -= 1;
        }
        for &(_, _, rank) in &parts[..len - 1] {
            emit(rank);
        }
    }

    /// Heap merge: parts are a linked list over byte positions; heap keys `(rank, start)` make
    /// the lowest rank, then the leftmost, come first, as in the scan.
    fn merge_long(&self, piece: &[u8], scratch: &mut Scratch, emit: &mut impl FnMut(u32)) {
        let m = piece.len();
        let Scratch {
            next,
            prev,
            own,
            pair,
            heap,
            ..
        } = scratch;
        next.clear();
        prev.clear();
        own.clear();
        pair.clear();
        heap.clear();
        for (i, &b) in piece.iter().enumerate() {
            next.push(i as u32 + 1);
            prev.push((i as u32).wrapping_sub(1));
            own.push(self.byte_rank[usize::from(b)]);
            let p = if i + 2 <= m {
                self.pair(piece, i, i + 2)
            } else {
                NONE
            };
            pair.push(p);
            if p != NONE {
                heap.push(Reverse(u64::from(p) << 32 | i as u64));
            }
        }
        let m32 = m as u32;
        while let Some(Reverse(key)) = heap.pop() {
            let (rank, s) = ((key >> 32) as u32, key as u32 as usize);
            if next[s] == NONE || pair[s] != rank {
                continue; // stale: the part is gone or its pair changed
            }
            let t = next[s] as usize;
            let u = next[t];
            next[t] = NONE;
            next[s] = u;
            own[s] = rank;
            if u < m32 {
                prev[u as usize] = s as u32;
                pair[s] = self.pair(piece, s, next[u as usize] as usize);
                if pair[s] != NONE {
                    heap.push(Reverse(u64::from(pair[s]) << 32 | s as u64));
                }
            } else {
                pair[s] = NONE;
            }
            if s > 0 {
                let p = prev[s] as usize;
                pair[p] = self.pair(piece, p, u as usize);
                if pair[p] != NONE {
                    heap.push(Reverse(u64::from(pair[p]) << 32 | p as u64));
                }
            }
        }
        let mut s = 0;
        while s < m {
            emit(own[s]);
            s = next[s] as usize;
        }
    }
}

/// Buffers reused across pieces (one per `count`/`encode` call).
#[derive(Default)]
pub struct Scratch {
    next: Vec<u32>,
    prev: Vec<u32>,
    own: Vec<u32>,
    pair: Vec<u32>,
    heap: BinaryHeap<Reverse<u64>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// All single bytes, then `extra` in rank order.
    fn vocab(extra: &[&[u8]]) -> Vocab {
        let mut bytes: Vec<u8> = (0..=255u8).collect();
        let mut offsets: Vec<u32> = (0..=256).collect();
        for t in extra {
            bytes.extend_from_slice(t);
            offsets.push(bytes.len() as u32);
        }
        Vocab::new(bytes, offsets).ok().expect("valid vocabulary")
    }

    fn small() -> Vocab {
        vocab(&[
            b"ab",
            b"bc",
            b"aa",
            b"abc",
            b"aaaa",
            b"cd",
            b"bcd",
            b"abcd",
            b"dd",
            b"aaaaaaaa",
            b"ddd",
            b"abcdabcd",
            b"xyzxyzxyz",
            b"xy",
            b"xyz",
            b"xyzxyz",
        ])
    }

    fn merged(v: &Vocab, piece: &[u8], long: bool) -> Vec<u32> {
        let mut out = Vec::new();
        let mut scratch = Scratch::default();
        let mut emit = |r| out.push(r);
        if long {
            v.merge_long(piece, &mut scratch, &mut emit);
        } else {
            v.merge_short(piece, &mut emit);
        }
        out
    }

    fn check(piece: &str, expected: &[&str]) {
        let v = small();
        let want: Vec<u32> = expected
            .iter()
            .map(|t| v.rank(t.as_bytes()).expect("token"))
            .collect();
        assert_eq!(merged(&v, piece.as_bytes(), false), want, "short {piece:?}");
        assert_eq!(merged(&v, piece.as_bytes(), true), want, "long {piece:?}");
    }

    #[test]
    fn merges_lowest_rank_first_leftmost_on_ties() {
        check("ab", &["ab"]);
        check("abc", &["abc"]);
        check("abcd", &["abcd"]);
        check("bcd", &["bcd"]);
        check("aaa", &["aa", "a"]);
        check("aaaaa", &["aaaa", "a"]);
        check("aaaaaaaaa", &["aaaaaaaa", "a"]);
        check("cabcd", &["c", "abcd"]);
        check("abcdabcd", &["abcdabcd"]);
        check("ddddd", &["dd", "ddd"]);
        check("xyzxyzxyzxyz", &["xyzxyzxyz", "xyz"]);
        check("q", &["q"]);
    }

    #[test]
    fn lookups() {
        let v = small();
        assert_eq!(v.rank(b"a"), Some(97));
        assert_eq!(v.rank(b"ab"), Some(256));
        assert_eq!(v.rank(b"xyzxyzxyz"), Some(268));
        assert_eq!(v.rank(b"xyzxyzxyy"), None);
        assert_eq!(v.rank(b""), None);
        assert_eq!(v.rank(b"zz"), None);
        assert_eq!(v.token(268), b"xyzxyzxyz");
        assert_eq!(v.token(9999), b"");
        assert_eq!(v.token_count(), 272);
    }

    #[test]
    fn bad_vocabularies_are_refused() {
        let mut bytes: Vec<u8> = (0..=255u8).collect();
        let offsets: Vec<u32> = (0..=256).collect();
        assert!(matches!(
            Vocab::new(bytes[1..].to_vec(), (0..=255).collect()),
            Err(VocabError::MissingByte(0))
        ));
        bytes.push(b'a');
        let mut dup = offsets.clone();
        dup.push(257);
        assert!(matches!(
            Vocab::new(bytes, dup),
            Err(VocabError::Duplicate(256))
        ));
    }

    proptest! {
        #[test]
        fn scan_and_heap_agree(piece in proptest::collection::vec(
            prop_oneof![Just(b'a'), Just(b'b'), Just(b'c'), Just(b'd'), Just(b'x'), Just(b'y'), Just(b'z')],
            1..=SHORT,
        )) {
            let v = small();
            prop_assert_eq!(merged(&v, &piece, false), merged(&v, &piece, true));
        }
    }
}
