//! Characters that change what text shows or does without being seen: bidi controls, zero-width
//! and other invisible format characters, and control characters (a terminal's escapes). Code
//! blocks and inline code, link texts and targets, and chat titles show each of them as a visible
//! marker (`<U+202E>`), as GitHub does, so what is on screen is what is there (see #37).
//!
//! Hidden: C0 controls but tab, line feed and carriage return; DEL and the C1 controls; the soft
//! hyphen U+00AD; the Arabic letter mark U+061C; the Mongolian vowel separator U+180E; the
//! zero-width space, non-joiner and joiner U+200B–U+200D; the marks U+200E/U+200F; the bidi
//! embeddings and overrides U+202A–U+202E; the word joiner and invisible operators U+2060–U+2064;
//! the bidi isolates and the deprecated format characters U+2066–U+206F; U+FEFF; the interlinear
//! annotation characters U+FFF9–U+FFFB; the tag characters U+E0000–U+E007F.
//!
//! One exception: a zero-width joiner or non-joiner between two visible non-ASCII characters is
//! part of the writing (emoji sequences such as 👩‍💻, Persian and Indic words) and is left alone;
//! next to ASCII, a space or the ends of the text it is hidden.
//!
//! Pure: no IO, clock, randomness or browser APIs.

/// A piece of a text: a run of characters shown as they are, or one hidden character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Characters shown as they are.
    Text(&'a str),
    /// A hidden character (see the module docs).
    Hidden(char),
}

/// The characters hidden wherever they stand, as ranges of code points.
const ALWAYS: [(u32, u32); 15] = [
    (0x0, 0x8),
    (0xB, 0xC),
    (0xE, 0x1F),
    (0x7F, 0x9F),
    (0xAD, 0xAD),
    (0x61C, 0x61C),
    (0x180E, 0x180E),
    (0x200B, 0x200B),
    (0x200E, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0xE0000, 0xE007F),
];

/// Whether `c` is hidden wherever it stands.
fn always(c: char) -> bool {
    let n = u32::from(c);
    ALWAYS.iter().any(|&(from, to)| from <= n && n <= to)
}

/// Whether `c` is hidden between `before` and `after` (`None`: an end of the text).
pub fn is_hidden(before: Option<char>, c: char, after: Option<char>) -> bool {
    always(c) || (matches!(c, '\u{200c}' | '\u{200d}') && !(joins(before) && joins(after)))
}

/// Whether a joiner next to `n` may join it: a visible non-ASCII character.
fn joins(n: Option<char>) -> bool {
    n.is_some_and(|n| {
        !n.is_ascii() && !n.is_whitespace() && !always(n) && !matches!(n, '\u{200c}' | '\u{200d}')
    })
}

/// `text` in pieces, in order: runs shown as they are and the hidden characters between them.
pub fn pieces(text: &str) -> Pieces<'_> {
    Pieces {
        text,
        at: 0,
        before: None,
    }
}

/// The iterator of [`pieces`].
pub struct Pieces<'a> {
    text: &'a str,
    at: usize,
    before: Option<char>,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = Piece<'a>;

    fn next(&mut self) -> Option<Piece<'a>> {
        let rest = self.text.get(self.at..).filter(|r| !r.is_empty())?;
        let mut chars = rest.char_indices().peekable();
        let mut before = self.before;
        while let Some((i, c)) = chars.next() {
            if is_hidden(before, c, chars.peek().map(|&(_, n)| n)) {
                if i > 0 {
                    self.at += i;
                    self.before = before;
                    return Some(Piece::Text(&rest[..i]));
                }
                self.at += c.len_utf8();
                self.before = Some(c);
                return Some(Piece::Hidden(c));
            }
            before = Some(c);
        }
        self.at = self.text.len();
        Some(Piece::Text(rest))
    }
}

/// Whether `text` holds a hidden character.
pub fn any(text: &str) -> bool {
    pieces(text).any(|p| matches!(p, Piece::Hidden(_)))
}

/// `c` as `U+` and at least four upper-case hex digits (`U+202E`, `U+E0041`).
pub fn code_point(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// `text` with each hidden character written as `<U+…>`, for text drawn as plain text (chat
/// titles). One pass of its own, not [`pieces`]: it is in the app's first load, where this way
/// costs 0.3 KB gzip.
pub fn reveal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut before = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if is_hidden(before, c, chars.peek().copied()) {
            out += &format!("<U+{:04X}>", u32::from(c));
        } else {
            out.push(c);
        }
        before = Some(c);
    }
    out
}

/// What a hidden character is, in a few words (the tooltip of its marker).
pub fn name(c: char) -> &'static str {
    match c {
        '\u{1b}' => "escape",
        '\u{ad}' => "soft hyphen",
        '\u{61c}' => "Arabic letter mark",
        '\u{200b}' => "zero-width space",
        '\u{200c}' => "zero-width non-joiner",
        '\u{200d}' => "zero-width joiner",
        '\u{200e}' => "left-to-right mark",
        '\u{200f}' => "right-to-left mark",
        '\u{202a}' => "left-to-right embedding",
        '\u{202b}' => "right-to-left embedding",
        '\u{202c}' => "pop directional formatting",
        '\u{202d}' => "left-to-right override",
        '\u{202e}' => "right-to-left override",
        '\u{2060}' => "word joiner",
        '\u{2066}' => "left-to-right isolate",
        '\u{2067}' => "right-to-left isolate",
        '\u{2068}' => "first strong isolate",
        '\u{2069}' => "pop directional isolate",
        '\u{feff}' => "zero-width no-break space",
        '\u{e0000}'..='\u{e007f}' => "tag character",
        c if c.is_control() => "control character",
        _ => "invisible format character",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_found_and_revealed() {
        // (text, revealed): every hidden character as its code point, nothing else changed.
        let cases = [
            ("plain text", "plain text"),
            ("", ""),
            ("tab\tnewline\ncr\r", "tab\tnewline\ncr\r"),
            // Bidi overrides, embeddings, isolates and marks (Trojan Source, CVE-2021-42574).
            ("invoice\u{202E}fdp.exe", "invoice<U+202E>fdp.exe"),
            (
                "\u{202A}\u{202B}\u{202C}\u{202D}",
                "<U+202A><U+202B><U+202C><U+202D>",
            ),
            (
                "a\u{2066}b\u{2067}c\u{2068}d\u{2069}",
                "a<U+2066>b<U+2067>c<U+2068>d<U+2069>",
            ),
            ("\u{200E}x\u{200F}\u{61C}", "<U+200E>x<U+200F><U+061C>"),
            // Zero-width and invisible format characters.
            ("pay\u{200B}pal", "pay<U+200B>pal"),
            ("a\u{2060}b\u{FEFF}", "a<U+2060>b<U+FEFF>"),
            ("soft\u{AD}hyphen", "soft<U+00AD>hyphen"),
            (
                "x\u{180E}\u{2064}\u{206F}\u{FFFB}",
                "x<U+180E><U+2064><U+206F><U+FFFB>",
            ),
            // Terminal escapes and other control characters.
            ("\u{1b}[2K\u{1b}[1Aok", "<U+001B>[2K<U+001B>[1Aok"),
            (
                "a\u{0}b\u{7}c\u{7F}d\u{85}e\u{9F}",
                "a<U+0000>b<U+0007>c<U+007F>d<U+0085>e<U+009F>",
            ),
            ("\u{B}\u{C}", "<U+000B><U+000C>"),
            // Tag characters ("ASCII smuggling"), five hex digits.
            ("hi\u{E0041}\u{E007F}", "hi<U+E0041><U+E007F>"),
            // Joiners: part of the writing between visible non-ASCII characters, hidden elsewhere.
            (
                "👩\u{200D}💻 and 🏳\u{FE0F}\u{200D}🌈",
                "👩\u{200D}💻 and 🏳\u{FE0F}\u{200D}🌈",
            ),
            ("می\u{200C}خواهم", "می\u{200C}خواهم"),
            ("क्\u{200D}ष", "क्\u{200D}ष"),
            ("pay\u{200D}pal", "pay<U+200D>pal"),
            ("a\u{200C}b", "a<U+200C>b"),
            ("\u{200D}👩", "<U+200D>👩"),
            ("👩\u{200D}", "👩<U+200D>"),
            ("👩 \u{200D}💻", "👩 <U+200D>💻"),
            ("👩\u{200D}\u{200D}💻", "👩<U+200D><U+200D>💻"),
            ("👩\u{202E}\u{200D}💻", "👩<U+202E><U+200D>💻"),
            // Visible characters that only look unusual stay.
            ("中文 🙂 é \u{A0} \u{3000}", "中文 🙂 é \u{A0} \u{3000}"),
        ];
        for (text, revealed) in cases {
            assert_eq!(reveal(text), revealed, "{text:?}");
            assert_eq!(any(text), text != revealed, "{text:?}");
            // The pieces put back together are the text.
            let whole: String = pieces(text)
                .map(|p| match p {
                    Piece::Text(t) => t.to_owned(),
                    Piece::Hidden(c) => c.to_string(),
                })
                .collect();
            assert_eq!(whole, text);
        }
    }

    #[test]
    fn pieces_alternate_between_text_and_hidden_characters() {
        assert_eq!(
            pieces("a\u{202E}\u{200B}bc\u{1b}").collect::<Vec<_>>(),
            [
                Piece::Text("a"),
                Piece::Hidden('\u{202E}'),
                Piece::Hidden('\u{200B}'),
                Piece::Text("bc"),
                Piece::Hidden('\u{1b}'),
            ]
        );
        assert_eq!(pieces("").count(), 0);
    }

    #[test]
    fn code_points_and_names() {
        let cases = [
            ('\u{0}', "U+0000", "control character"),
            ('\u{1b}', "U+001B", "escape"),
            ('\u{202E}', "U+202E", "right-to-left override"),
            ('\u{FEFF}', "U+FEFF", "zero-width no-break space"),
            ('\u{E0041}', "U+E0041", "tag character"),
            ('\u{2064}', "U+2064", "invisible format character"),
            ('\u{10FFFF}', "U+10FFFF", "invisible format character"),
        ];
        for (c, point, what) in cases {
            assert_eq!((code_point(c).as_str(), name(c)), (point, what), "{c:?}");
        }
    }
}
