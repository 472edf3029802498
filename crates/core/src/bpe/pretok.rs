//! The pre-tokenizer: splits text into the pieces that BPE then merges, exactly as js-tiktoken's
//! split regexes do (ECMAScript, `u` flag, leftmost alternative first, greedy quantifiers with
//! backtracking), without a regex engine and without Unicode tables in code: the character
//! classes come from the token table ([`Classes`]).
//!
//! The two patterns, as js-tiktoken writes them (`C` = `'s|'S|'t|'T|'re|…|'LL|'d|'D`, every ASCII
//! case of `'s 't 're 've 'm 'll 'd`):
//! - cl100k: `C|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
//! - o200k: `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+C?|`
//!   `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*C?|`
//!   `\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
//!
//! Invariants: the pieces are non-empty, in order, and cover the text exactly (every character
//! falls in some alternative, so the regex never skips text); each piece costs time linear in
//! its length plus the run of like characters that follows it, so splitting is linear overall.
//! `\s` is ECMAScript's (it has U+FEFF, not U+0085), as in js-tiktoken and gpt-tokenizer.

/// Character class bits (one per class; the table stores the class number, `1 << n` is its bit).
pub const OTHER: u8 = 1 << 0;
/// `\r` and `\n`.
pub const NEWLINE: u8 = 1 << 1;
/// ECMAScript `\s` other than `\r` and `\n`.
pub const SPACE: u8 = 1 << 2;
/// `\p{Lu}` and `\p{Lt}`.
pub const UPPER: u8 = 1 << 3;
/// `\p{Ll}`.
pub const LOWER: u8 = 1 << 4;
/// `\p{Lm}` and `\p{Lo}`.
pub const OTHER_LETTER: u8 = 1 << 5;
/// `\p{M}` (marks are not letters).
pub const MARK: u8 = 1 << 6;
/// `\p{N}`.
pub const NUMBER: u8 = 1 << 7;
/// The number of classes (class numbers are `0..CLASS_COUNT`).
pub const CLASS_COUNT: u8 = 8;

const LETTER: u8 = UPPER | LOWER | OTHER_LETTER;
const WHITE: u8 = SPACE | NEWLINE;
/// `[^\r\n\p{L}\p{N}]`
const PREFIX: u8 = SPACE | OTHER | MARK;
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`
const CASED_UPPER: u8 = UPPER | OTHER_LETTER | MARK;
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`
const CASED_LOWER: u8 = LOWER | OTHER_LETTER | MARK;
/// `[^\s\p{L}\p{N}]`
const SYMBOL: u8 = OTHER | MARK;

/// Which split pattern a table uses (its id in the table header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// cl100k_base (id 1).
    Cl100k,
    /// o200k_base (id 2).
    O200k,
}

impl Pattern {
    /// The pattern with table id `id`.
    pub fn from_id(id: u8) -> Option<Pattern> {
        match id {
            1 => Some(Pattern::Cl100k),
            2 => Some(Pattern::O200k),
            _ => None,
        }
    }
}

/// The class of every code point: a byte per BMP code point, ranges above it.
pub struct Classes {
    bmp: Vec<u8>,
    /// `(first code point, class bit)`, sorted, starting at U+10000.
    astral: Vec<(u32, u8)>,
}

impl Classes {
    /// Builds the classes from consecutive runs `(length, class number)` starting at U+0000.
    /// `None` unless the runs cover U+0000..=U+10FFFF exactly with known, non-empty classes.
    pub fn from_runs(runs: &[(u32, u8)]) -> Option<Classes> {
        let mut bmp = vec![0u8; 0x10000];
        let mut astral = Vec::new();
        let mut start: u32 = 0;
        for &(len, class) in runs {
            if len == 0 || class >= CLASS_COUNT {
                return None;
            }
            let end = start.checked_add(len).filter(|&e| e <= 0x11_0000)?;
            let bit = 1u8 << class;
            if start < 0x10000 {
                bmp[start as usize..end.min(0x10000) as usize].fill(bit);
            }
            if end > 0x10000 {
                astral.push((start.max(0x10000), bit));
            }
            start = end;
        }
        (start == 0x11_0000).then_some(Classes { bmp, astral })
    }

    /// The class bit of code point `c`.
    #[inline(always)]
    pub fn of(&self, c: u32) -> u8 {
        if let Some(&bit) = self.bmp.get(c as usize) {
            return bit;
        }
        let i = self.astral.partition_point(|&(start, _)| start <= c);
        i.checked_sub(1).map_or(OTHER, |i| self.astral[i].1)
    }
}

/// The pieces of `text`, in order, under `pattern`.
pub fn pieces<'a>(text: &'a str, classes: &'a Classes, pattern: Pattern) -> Pieces<'a> {
    Pieces {
        text,
        scan: Scan {
            s: text.as_bytes(),
            classes,
        },
        pattern,
        pos: 0,
    }
}

/// Iterator over the pieces of a text (see [`pieces`]).
pub struct Pieces<'a> {
    text: &'a str,
    scan: Scan<'a>,
    pattern: Pattern,
    pos: usize,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let start = self.pos;
        if start >= self.text.len() {
            return None;
        }
        let end = match self.pattern {
            Pattern::Cl100k => self.scan.cl100k(start),
            Pattern::O200k => self.scan.o200k(start),
        };
        // Every character matches some alternative; the fallback only guards the invariant.
        let end = if end > start {
            end
        } else {
            start + self.scan.at(start).1
        };
        self.pos = end;
        self.text.get(start..end)
    }
}

/// Class lookups on the bytes of a valid UTF-8 text; positions are char boundaries.
struct Scan<'a> {
    s: &'a [u8],
    classes: &'a Classes,
}

impl Scan<'_> {
    /// The class bit and byte length of the character at `i`; `(0, 0)` at the end.
    #[inline(always)]
    fn at(&self, i: usize) -> (u8, usize) {
        let s = self.s;
        let Some(&b0) = s.get(i) else {
            return (0, 0);
        };
        let cont = |k: usize| u32::from(s.get(i + k).copied().unwrap_or(0) & 0x3f);
        if b0 < 0x80 {
            (self.classes.bmp[b0 as usize], 1)
        } else if b0 < 0xe0 {
            let c = (u32::from(b0 & 0x1f) << 6) | cont(1);
            (self.classes.of(c), 2)
        } else if b0 < 0xf0 {
            let c = (u32::from(b0 & 0x0f) << 12) | (cont(1) << 6) | cont(2);
            (self.classes.of(c), 3)
        } else {
            let c = (u32::from(b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
            (self.classes.of(c), 4)
        }
    }

    /// The end of the run of characters in `mask` starting at `i`.
    #[inline(always)]
    fn run(&self, mut i: usize, mask: u8) -> usize {
        loop {
            let (bit, len) = self.at(i);
            if bit & mask == 0 {
                return i;
            }
            i += len;
        }
    }

    /// The start of the character before `i` (`i > 0`).
    fn prev(&self, i: usize) -> usize {
        let mut j = i - 1;
        while j > 0 && self.s[j] & 0xc0 == 0x80 {
            j -= 1;
        }
        j
    }

    /// The length of the contraction `'s 't 're 've 'm 'll 'd` (any ASCII case) at `i`, or 0.
    #[inline(always)]
    fn contraction(&self, i: usize) -> usize {
        if self.s.get(i) != Some(&b'\'') {
            return 0;
        }
        let lower = |b: Option<&u8>| b.map_or(0, |&b| b | 0x20); // ASCII letters only matter
        match (lower(self.s.get(i + 1)), lower(self.s.get(i + 2))) {
            (b's' | b't' | b'm' | b'd', _) => 2,
            (b'r' | b'v', b'e') | (b'l', b'l') => 3,
            _ => 0,
        }
    }

    /// cl100k: the end of the piece starting at `i`.
    fn cl100k(&self, i: usize) -> usize {
        // C
        let c = self.contraction(i);
        if c > 0 {
            return i + c;
        }
        let (bit, len) = self.at(i);
        // [^\r\n\p{L}\p{N}]?\p{L}+
        if bit & PREFIX != 0 && self.at(i + len).0 & LETTER != 0 {
            return self.run(i + len, LETTER);
        }
        if bit & LETTER != 0 {
            return self.run(i, LETTER);
        }
        // \p{N}{1,3}
        if bit & NUMBER != 0 {
            return self.numbers(i);
        }
        // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
        if let Some(end) = self.symbols(i, b"\r\n") {
            return end;
        }
        self.whitespace(i)
    }

    /// o200k: the end of the piece starting at `i`.
    fn o200k(&self, i: usize) -> usize {
        let (bit, len) = self.at(i);
        let starts = [(bit & PREFIX != 0).then_some(i + len), Some(i)];
        // [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+C?
        for j in starts.into_iter().flatten() {
            // Backtracking: the upper run gives characters back until a lower one can follow.
            let upper_end = self.run(j, CASED_UPPER);
            let mut k = upper_end;
            loop {
                if self.at(k).0 & CASED_LOWER != 0 {
                    let end = self.run(k, CASED_LOWER);
                    return end + self.contraction(end);
                }
                if k == j {
                    break;
                }
                k = self.prev(k);
            }
        }
        // [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*C?
        for j in starts.into_iter().flatten() {
            let upper_end = self.run(j, CASED_UPPER);
            if upper_end > j {
                let end = self.run(upper_end, CASED_LOWER);
                return end + self.contraction(end);
            }
        }
        // \p{N}{1,3}
        if bit & NUMBER != 0 {
            return self.numbers(i);
        }
        // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
        if let Some(end) = self.symbols(i, b"\r\n/") {
            return end;
        }
        self.whitespace(i)
    }

    /// `\p{N}{1,3}` at `i` (a number is there).
    fn numbers(&self, i: usize) -> usize {
        let mut end = i;
        for _ in 0..3 {
            let (bit, len) = self.at(end);
            if bit & NUMBER == 0 {
                break;
            }
            end += len;
        }
        end
    }

    /// ` ?[^\s\p{L}\p{N}]+[TAIL]*` at `i`, `TAIL` being ASCII bytes.
    fn symbols(&self, i: usize, tail: &[u8]) -> Option<usize> {
        let j = if self.s[i] == b' ' && self.at(i + 1).0 & SYMBOL != 0 {
            i + 1
        } else if self.at(i).0 & SYMBOL != 0 {
            i
        } else {
            return None;
        };
        let mut end = self.run(j, SYMBOL);
        while self.s.get(end).is_some_and(|b| tail.contains(b)) {
            end += 1;
        }
        Some(end)
    }

    /// `\s*[\r\n]+|\s+(?!\S)|\s+` at `i` (every other alternative failed, so `i` is white).
    fn whitespace(&self, i: usize) -> usize {
        let end = self.run(i, WHITE);
        // \s*[\r\n]+ : up to and including the last newline of the run.
        let mut k = end;
        while k > i {
            k = self.prev(k);
            if self.at(k).0 & NEWLINE != 0 {
                return k + 1;
            }
        }
        // \s+(?!\S) : the whole run at the end of the text, else all but its last character.
        if end == self.s.len() {
            return end;
        }
        if end > i {
            let before = self.prev(end);
            if before > i {
                return before;
            }
        }
        // \s+
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Classes for the tests: ASCII as in Unicode plus a few characters of each class.
    fn classes() -> Classes {
        let mut map: Vec<(u32, u8)> = Vec::new();
        for c in 0u32..0x80 {
            let ch = char::from_u32(c).unwrap_or('\0');
            let class = match ch {
                '\r' | '\n' => 1,
                '\t' | '\x0b' | '\x0c' | ' ' => 2,
                'A'..='Z' => 3,
                'a'..='z' => 4,
                '0'..='9' => 7,
                _ => 0,
            };
            map.push((c, class));
        }
        for (c, class) in [
            ('\u{a0}', 2),   // no-break space
            ('\u{3000}', 2), // ideographic space
            ('\u{feff}', 2), // ECMAScript \s, not Unicode White_Space
            ('É', 3),
            ('ǅ', 3), // Lt
            ('é', 4),
            ('ß', 4),
            ('ʰ', 5), // Lm
            ('中', 5),
            ('文', 5),
            ('한', 5),
            ('\u{301}', 6),  // combining acute
            ('\u{200d}', 0), // ZWJ is Cf
            ('٣', 7),
            ('½', 7),
            ('😀', 0),
        ] {
            map.push((c as u32, class));
        }
        map.sort();
        let mut runs = Vec::new();
        let mut at = 0u32;
        for (c, class) in map {
            if c > at {
                runs.push((c - at, 0));
            }
            runs.push((1, class));
            at = c + 1;
        }
        runs.push((0x11_0000 - at, 0));
        Classes::from_runs(&runs).expect("valid runs")
    }

    fn check(pattern: Pattern, text: &str, expected: &[&str]) {
        let classes = classes();
        let got: Vec<&str> = pieces(text, &classes, pattern).collect();
        assert_eq!(got, expected, "{pattern:?} {text:?}");
    }

    #[test]
    fn cl100k_pieces() {
        let c = |t: &str, e: &[&str]| check(Pattern::Cl100k, t, e);
        c("", &[]);
        c("Hello, world!", &["Hello", ",", " world", "!"]);
        c(
            "I'm here, they're HERE'S",
            &["I", "'m", " here", ",", " they", "'re", " HERE", "'S"],
        );
        c("it'Ll 'LL'x", &["it", "'Ll", " '", "LL", "'x"]);
        c("he'd we'VE", &["he", "'d", " we", "'VE"]);
        c("12345 67", &["123", "45", " ", "67"]);
        c("a  b", &["a", " ", " b"]);
        c("a\t\tb", &["a", "\t", "\tb"]);
        c("x   \n\n  y", &["x", "   \n\n", " ", " y"]);
        c("x \n \n   ", &["x", " \n \n", "   "]);
        c("end  ", &["end", "  "]);
        c("a\r\nb", &["a", "\r\n", "b"]);
        c("?!\n\nx", &["?!\n\n", "x"]);
        c(" ?!/x", &[" ?!/", "x"]);
        c("ÉCOLE école", &["ÉCOLE", " école"]);
        c("e\u{301}t\u{301}", &["e", "\u{301}t", "\u{301}"]);
        c("中文 한", &["中文", " 한"]);
        c("\u{feff}x\u{a0}y", &["\u{feff}x", "\u{a0}y"]);
        c("٣٣٣٣½", &["٣٣٣", "٣½"]);
        c("😀😀 😀x", &["😀😀", " 😀", "x"]);
    }

    #[test]
    fn o200k_pieces() {
        let c = |t: &str, e: &[&str]| check(Pattern::O200k, t, e);
        c("", &[]);
        c("Hello, world!", &["Hello", ",", " world", "!"]);
        c("HelloWorld ABCdef", &["Hello", "World", " ABCdef"]);
        c("ABC DEF's", &["ABC", " DEF's"]);
        c(
            "I'm here, they're HERE'S",
            &["I'm", " here", ",", " they're", " HERE'S"],
        );
        c("don'T 'LL'x", &["don'T", " '", "LL", "'x"]);
        c("he'd we'VE", &["he'd", " we'VE"]);
        c("12345 67", &["123", "45", " ", "67"]);
        c("x   \n\n  y", &["x", "   \n\n", " ", " y"]);
        c("path/to/x\n/y", &["path", "/to", "/x", "\n", "/y"]);
        c("?!\n/\nx", &["?!\n/\n", "x"]);
        c(" ?!/x", &[" ?!/", "x"]);
        c("ÉCOLE école Ǆ", &["ÉCOLE", " école", " Ǆ"]);
        c("ǅa", &["ǅa"]);
        // Marks belong to both case classes and to the optional prefix.
        c("e\u{301}t\u{301}", &["e\u{301}t\u{301}"]);
        c("\u{301}\u{301}", &["\u{301}\u{301}"]);
        c("A\u{301}B", &["A\u{301}", "B"]);
        c("AB\u{301}CD", &["AB\u{301}", "CD"]);
        c("ʰʰA", &["ʰʰ", "A"]);
        c("中文 한", &["中文", " 한"]);
        c("٣٣٣٣½", &["٣٣٣", "٣½"]);
        c("😀😀 😀x", &["😀😀", " 😀", "x"]);
        c("a\u{200d}b", &["a", "\u{200d}b"]);
    }

    #[test]
    fn long_runs_split_in_linear_time() {
        let classes = classes();
        for pattern in [Pattern::Cl100k, Pattern::O200k] {
            for text in [
                "A".repeat(200_000),
                " ".repeat(200_000) + "x",
                "\u{301}".repeat(100_000),
                "ab\n".repeat(50_000),
            ] {
                let joined: String = pieces(&text, &classes, pattern).collect();
                assert_eq!(joined, text);
            }
        }
    }

    #[test]
    fn runs_must_cover_every_code_point() {
        assert!(Classes::from_runs(&[(0x11_0000, 0)]).is_some());
        assert!(Classes::from_runs(&[(0x10_0000, 0)]).is_none());
        assert!(Classes::from_runs(&[(0x11_0000, 0), (1, 0)]).is_none());
        assert!(Classes::from_runs(&[(0x11_0000, 8)]).is_none());
        assert!(Classes::from_runs(&[(0, 0), (0x11_0000, 0)]).is_none());
        assert!(Classes::from_runs(&[(u32::MAX, 0), (u32::MAX, 0)]).is_none());
        let c = Classes::from_runs(&[(0x10000, 0), (5, 4), (0x11_0000 - 0x10005, 7)]).unwrap();
        assert_eq!(c.of(0xffff), OTHER);
        assert_eq!(c.of(0x10000), LOWER);
        assert_eq!(c.of(0x10004), LOWER);
        assert_eq!(c.of(0x10005), NUMBER);
        assert_eq!(c.of(0x10ffff), NUMBER);
    }
}
