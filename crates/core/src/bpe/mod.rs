//! Exact OpenAI BPE token counting (o200k_base, cl100k_base) for ordinary text — the same
//! counts and ids as tiktoken / js-tiktoken, without a regex engine or Unicode tables in code.
//!
//! - `table`: reads a token table (`*.bpe`, made by `scripts/bpe-tables.mjs` from js-tiktoken's
//!   ranks; the format is documented there): the tokens in rank order and the Unicode classes
//!   the split pattern needs.
//! - `pretok`: the split pattern of each encoding, hand-written ([`pieces`](Bpe::pieces)).
//! - `merge`: the vocabulary hash table and byte-pair merging of one piece.
//! - `cache`: a bounded, exact cache of merged pieces, owned by the caller ([`Cache`]).
//!
//! Invariants: [`Bpe::count`] is `encode(text).len()`; decoding the ids of [`Bpe::encode`] gives
//! the text's UTF-8 bytes back; no input text makes it panic, and time is `O(n log n)` in the
//! text length even for one long piece (100 KB of one letter, a base64 blob): long pieces merge
//! with a heap, pairs longer than the longest token are never looked up. Special tokens
//! (`<|endoftext|>` …) are not recognised: they count as the ordinary text they are.
//! A table is untrusted data: every defect is a [`BpeError`], never a panic.

mod cache;
mod merge;
mod pretok;
mod table;

pub use cache::Cache;
use merge::{Scratch, Vocab, VocabError};
use pretok::{Classes, Pattern};

/// Tables may hold at most this many tokens (ranks must fit 24 bits).
pub const MAX_TOKENS: u32 = 1 << 24;

/// Why a token table cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BpeError {
    /// The data does not start with `SBPE`.
    #[error("not a token table")]
    BadMagic,
    /// A format version this reader does not know.
    #[error("unsupported token table version {0}")]
    Version(u8),
    /// A split pattern this reader does not know.
    #[error("unknown split pattern {0}")]
    Pattern(u8),
    /// The data ends before the table does.
    #[error("token table is truncated")]
    Truncated,
    /// Bytes follow the table.
    #[error("token table has {0} bytes too many")]
    Trailing(usize),
    /// The character classes do not cover every code point exactly once.
    #[error("token table has bad character classes")]
    Classes,
    /// The name or Unicode version is not ASCII.
    #[error("token table has a non-ASCII name")]
    NotAscii,
    /// More tokens than ranks can hold.
    #[error("token table has too many tokens ({0})")]
    TooManyTokens(u32),
    /// A token that is neither a byte nor two earlier tokens joined.
    #[error("token {0} is neither a byte nor two earlier tokens")]
    BadToken(u32),
    /// A token longer than 255 bytes.
    #[error("token {0} is too long")]
    LongToken(u32),
    /// Two tokens with the same bytes.
    #[error("token {0} is a duplicate")]
    Duplicate(u32),
    /// A byte that is no token, so not every text could be encoded.
    #[error("byte {0:#04x} is not a token")]
    MissingByte(u8),
}

/// One encoding, ready to count: its vocabulary, split pattern and character classes.
pub struct Bpe {
    vocab: Vocab,
    classes: Classes,
    pattern: Pattern,
    name: String,
    unicode: String,
}

impl Bpe {
    /// Loads a token table (see the `table` module for the format).
    pub fn from_bytes(data: &[u8]) -> Result<Bpe, BpeError> {
        let t = table::decode(data)?;
        let vocab = Vocab::new(t.bytes, t.offsets).map_err(|e| match e {
            VocabError::Duplicate(rank) => BpeError::Duplicate(rank),
            VocabError::TooLarge(rank) => BpeError::TooManyTokens(rank),
            VocabError::MissingByte(b) => BpeError::MissingByte(b),
        })?;
        Ok(Bpe {
            vocab,
            classes: t.classes,
            pattern: t.pattern,
            name: t.name,
            unicode: t.unicode,
        })
    }

    /// The encoding's name as the table gives it (`o200k_base`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The Unicode version the table's character classes come from.
    pub fn unicode_version(&self) -> &str {
        &self.unicode
    }

    /// The number of tokens in the vocabulary.
    pub fn vocab_size(&self) -> usize {
        self.vocab.token_count()
    }

    /// The pieces the split pattern cuts `text` into (their concatenation is `text`).
    pub fn pieces<'a>(&'a self, text: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        pretok::pieces(text, &self.classes, self.pattern)
    }

    /// Calls `emit` with each token id of `text`, in order; merged pieces go through `cache`.
    fn each_token(&self, text: &str, cache: Option<&mut Cache>, emit: &mut impl FnMut(u32)) {
        let Some(cache) = cache else {
            let mut scratch = Scratch::default();
            for piece in self.pieces(text) {
                let bytes = piece.as_bytes();
                match self.vocab.rank(bytes) {
                    Some(rank) => emit(rank),
                    None => self.vocab.merge(bytes, &mut scratch, emit),
                }
            }
            return;
        };
        for piece in self.pieces(text) {
            let bytes = piece.as_bytes();
            if let Some(rank) = self.vocab.rank(bytes) {
                emit(rank);
                continue;
            }
            let hash = merge::hash(bytes);
            if let Some(hit) = cache.get(hash, bytes) {
                hit.iter().for_each(|&id| emit(id));
                continue;
            }
            let mut merged = std::mem::take(&mut cache.merged);
            merged.clear();
            self.vocab
                .merge(bytes, &mut cache.scratch, &mut |id| merged.push(id));
            merged.iter().for_each(|&id| emit(id));
            cache.put(hash, bytes, &merged);
            cache.merged = merged;
        }
    }

    /// The number of tokens of `text` (ordinary text, no special tokens).
    pub fn count(&self, text: &str) -> usize {
        let mut n = 0;
        self.each_token(text, None, &mut |_| n += 1);
        n
    }

    /// [`count`](Self::count), reusing and filling `cache` (same result, faster on repeats).
    pub fn count_cached(&self, text: &str, cache: &mut Cache) -> usize {
        let mut n = 0;
        self.each_token(text, Some(cache), &mut |_| n += 1);
        n
    }

    /// The token ids of `text` (ordinary text, no special tokens).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::with_capacity(text.len() / 4);
        self.each_token(text, None, &mut |id| ids.push(id));
        ids
    }

    /// [`encode`](Self::encode), reusing and filling `cache` (same result, faster on repeats).
    pub fn encode_cached(&self, text: &str, cache: &mut Cache) -> Vec<u32> {
        let mut ids = Vec::with_capacity(text.len() / 4);
        self.each_token(text, Some(cache), &mut |id| ids.push(id));
        ids
    }

    /// The bytes of token ids (an unknown id adds nothing).
    pub fn decode(&self, ids: &[u32]) -> Vec<u8> {
        let mut out = Vec::new();
        for &id in ids {
            out.extend_from_slice(self.vocab.token(id));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a table in the documented format (a second, independent writer besides the
    /// generator script): `pairs` as `(left, right)` by rank, `runs` as `(length, class)`.
    fn write(version: u8, pattern: u8, pairs: &[(u32, u32)], runs: &[(u32, u8)]) -> Vec<u8> {
        let mut out = b"SBPE".to_vec();
        out.extend([version, pattern]);
        for text in ["test_base", "17.0"] {
            out.push(text.len() as u8);
            out.extend_from_slice(text.as_bytes());
        }
        out.extend((pairs.len() as u32).to_le_bytes());
        out.extend((runs.len() as u32).to_le_bytes());
        for &(mut len, class) in runs {
            while len >= 0x80 {
                out.push((len & 0x7f) as u8 | 0x80);
                len >>= 7;
            }
            out.extend([len as u8, class]);
        }
        for side in [0, 1] {
            for shift in [16, 8, 0] {
                out.extend(pairs.iter().map(|p| {
                    let half = if side == 0 { p.0 } else { p.1 };
                    (half >> shift) as u8
                }));
            }
        }
        out
    }

    /// Byte tokens as table pairs: a single byte, or the first split into two earlier tokens.
    fn pairs(tokens: &[Vec<u8>]) -> Vec<(u32, u32)> {
        let rank = |t: &[u8], below: usize| tokens[..below].iter().position(|x| x == t);
        (0..tokens.len())
            .map(|r| match tokens[r][..] {
                [b] => (table::SINGLE, u32::from(b)),
                ref t => (1..t.len())
                    .find_map(|k| Some((rank(&t[..k], r)? as u32, rank(&t[k..], r)? as u32)))
                    .expect("test tokens join earlier ones"),
            })
            .collect()
    }

    /// ASCII classes (letters, digits, `\s`), everything else "other".
    fn runs() -> Vec<(u32, u8)> {
        let mut runs = Vec::new();
        for c in 0u8..0x80 {
            let class = match c {
                b'\r' | b'\n' => 1,
                b'\t' | 0x0b | 0x0c | b' ' => 2,
                b'A'..=b'Z' => 3,
                b'a'..=b'z' => 4,
                b'0'..=b'9' => 7,
                _ => 0,
            };
            runs.push((1, class));
        }
        runs.push((0x11_0000 - 0x80, 0));
        runs
    }

    fn tokens(extra: &[&str]) -> Vec<Vec<u8>> {
        let mut t: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        t.extend(extra.iter().map(|s| s.as_bytes().to_vec()));
        t
    }

    fn good() -> Vec<u8> {
        let extra = [
            " t", "he", " the", "in", "ing", "hing", " thing", "ab", "abc", "\n\n", "at", " c",
            " cat", "ats", "qr", "pq", "rs", "pqrs",
        ];
        write(1, 2, &pairs(&tokens(&extra)), &runs())
    }

    #[test]
    fn a_written_table_loads_and_counts() {
        let bpe = Bpe::from_bytes(&good()).expect("valid table");
        assert_eq!(bpe.name(), "test_base");
        assert_eq!(bpe.unicode_version(), "17.0");
        assert_eq!(bpe.vocab_size(), 274);
        let check = |text: &str, ids: &[u32]| {
            assert_eq!(bpe.encode(text), ids, "{text:?}");
            assert_eq!(bpe.count(text), ids.len(), "{text:?}");
            assert_eq!(bpe.decode(ids), text.as_bytes(), "{text:?}");
        };
        check("", &[]);
        check(" the thing", &[258, 262]);
        check("abcabc", &[264, 264]);
        check(" cats\n\n", &[268, 115, 265]);
        check("é", &[0xc3, 0xa9]);
        // A whole piece that is a token is that token, even where merging gets stuck before it
        // ("qr" merges first, and neither "pqr" nor "qrs" is a token).
        check("pqrs", &[273]);
        check("pqrsp", &[112, 270, 115, 112]);
    }

    #[test]
    fn bad_tables_are_errors() {
        let good = good();
        let with = |at: usize, byte: u8| {
            let mut t = good.clone();
            t[at] = byte;
            Bpe::from_bytes(&t).err()
        };
        assert_eq!(with(0, b'X'), Some(BpeError::BadMagic));
        assert_eq!(with(4, 2), Some(BpeError::Version(2)));
        assert_eq!(with(5, 9), Some(BpeError::Pattern(9)));
        assert_eq!(with(7, 0xff), Some(BpeError::NotAscii));
        assert_eq!(Bpe::from_bytes(b"").err(), Some(BpeError::BadMagic));
        assert_eq!(Bpe::from_bytes(b"SBP").err(), Some(BpeError::BadMagic));
        let mut long = good.clone();
        long.push(0);
        assert_eq!(Bpe::from_bytes(&long).err(), Some(BpeError::Trailing(1)));
        let mut short_runs = runs();
        short_runs.pop();
        let t = write(1, 2, &pairs(&tokens(&[])), &short_runs);
        assert_eq!(Bpe::from_bytes(&t).err(), Some(BpeError::Classes));
        let t = write(1, 1, &pairs(&tokens(&["ab", "ab"])), &runs());
        assert_eq!(Bpe::from_bytes(&t).err(), Some(BpeError::Duplicate(257)));
        let mut no_x = tokens(&[]);
        no_x.remove(usize::from(b'x'));
        let t = write(1, 1, &pairs(&no_x), &runs());
        assert_eq!(Bpe::from_bytes(&t).err(), Some(BpeError::MissingByte(b'x')));
        // A token must join earlier tokens, or be one byte.
        let bad = |pair: (u32, u32)| {
            let mut p = pairs(&tokens(&[]));
            p.push(pair);
            Bpe::from_bytes(&write(1, 1, &p, &runs())).err()
        };
        assert_eq!(bad((97, 98)), None);
        assert_eq!(bad((256, 98)), Some(BpeError::BadToken(256)));
        assert_eq!(bad((97, 300)), Some(BpeError::BadToken(256)));
        assert_eq!(bad((table::SINGLE, 256)), Some(BpeError::BadToken(256)));
        // Doubling "a" eight times makes a token of 256 bytes.
        let mut p = pairs(&tokens(&[]));
        p.push((97, 97));
        for r in 256..263 {
            p.push((r, r));
        }
        assert_eq!(
            Bpe::from_bytes(&write(1, 1, &p, &runs())).err(),
            Some(BpeError::LongToken(263))
        );
    }

    #[test]
    fn every_truncation_is_an_error() {
        let good = good();
        for len in 0..good.len() {
            let err = Bpe::from_bytes(&good[..len]).err();
            assert!(
                matches!(err, Some(BpeError::Truncated | BpeError::BadMagic)),
                "cut at {len}: {err:?}"
            );
        }
    }

    #[test]
    fn any_corruption_is_an_error_or_a_table_never_a_panic() {
        let good = good();
        for at in 0..good.len() {
            for byte in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut t = good.clone();
                t[at] = byte;
                if let Ok(bpe) = Bpe::from_bytes(&t) {
                    let text = "abc the thing é\n\n 123 ";
                    assert_eq!(bpe.decode(&bpe.encode(text)), text.as_bytes());
                }
            }
        }
    }
}
