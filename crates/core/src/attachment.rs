//! Attachments: the images, PDFs and text files a user message carries, and how each reaches the
//! model.
//!
//! A message keeps only a reference ([`Attachment`]: name, kind, size and the SHA-256 of the bytes
//! kept in the browser's IndexedDB, where the same bytes are kept once); the page reads, resizes and
//! stores the bytes (`src/web/attach.js`), the turns module reads them back for each request.
//! - An **image** is resized when attached to what the providers take (OpenAI's high detail: the
//!   long side at most 2 048 px, the short side at most 768 px; [`fit`]) and sent as an
//!   `image_url` content part; it costs [`image_tokens`] (OpenAI's published formula: 85 tokens plus
//!   170 per 512-px tile — exact for OpenAI's tile-priced models, an estimate elsewhere). Only
//!   models that see images get it ([`sees_images`]); in rounds older than the user's setting it
//!   is sent as [`image_placeholder`].
//! - A **text file** or the text of a **PDF** goes in as a fenced block headed by the file's name
//!   ([`file_block`]), counted and cut like the message's own text; a PDF with no text layer says
//!   so ([`NO_TEXT_LAYER`]).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What an attachment is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// An image (PNG or JPEG as stored, resized).
    Image,
    /// A text file (stored as it was, UTF-8).
    Text,
    /// A PDF (stored as it was; its text stored beside it).
    Pdf,
}

impl Kind {
    /// The word the markup and the inspector use.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Image => "image",
            Kind::Text => "text",
            Kind::Pdf => "pdf",
        }
    }
}

/// A file attached to a user message: a reference to bytes the browser keeps by their hash.
///
/// A message keeps each as one line of text (`{hash} {kind} {mime} {bytes} {width}x{height}
/// {pages} {text} {name}`, `-` for no text, the name last, as it is: [`String::from`],
/// [`Attachment::try_from`]), in records, exports and the composer's chips: the app's first load
/// carries strings with code it has anyway and never reads them (the page's attachments module
/// draws them);
/// what reads them whole (the turns module, the dialogs) skips a line that is not well formed
/// ([`read`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The file's name as the user's system gave it (shown escaped, never trusted).
    pub name: String,
    /// What it is.
    pub kind: Kind,
    /// The media type of the stored bytes.
    pub mime: String,
    /// Size of the stored bytes.
    pub bytes: u64,
    /// SHA-256 of the stored bytes, lowercase hex: their key in IndexedDB.
    pub hash: String,
    /// An image's width as stored, px.
    pub width: u32,
    /// An image's height as stored, px.
    pub height: u32,
    /// A PDF's pages.
    pub pages: u32,
    /// A PDF's extracted text: the hash of its UTF-8 bytes (`None`: the PDF has no text layer).
    pub text: Option<String>,
}

impl From<Attachment> for String {
    fn from(a: Attachment) -> String {
        format!(
            "{} {} {} {} {}x{} {} {} {}",
            a.hash,
            a.kind.as_str(),
            a.mime,
            a.bytes,
            a.width,
            a.height,
            a.pages,
            a.text.as_deref().unwrap_or("-"),
            a.name
        )
    }
}

impl TryFrom<String> for Attachment {
    type Error = &'static str;

    /// An attachment's line, checked ([`Attachment::valid`]).
    fn try_from(line: String) -> Result<Self, Self::Error> {
        const BAD: &str = "not an attachment";
        let mut f = line.splitn(8, ' ');
        let mut next = || f.next().ok_or(BAD);
        let hash = next()?.to_string();
        let kind = match next()? {
            "image" => Kind::Image,
            "text" => Kind::Text,
            "pdf" => Kind::Pdf,
            _ => return Err(BAD),
        };
        let mime = next()?.to_string();
        let bytes = next()?.parse().map_err(|_| BAD)?;
        let (w, h) = next()?.split_once('x').ok_or(BAD)?;
        let (width, height) = (w.parse().map_err(|_| BAD)?, h.parse().map_err(|_| BAD)?);
        let pages = next()?.parse().map_err(|_| BAD)?;
        let text = Some(next()?).filter(|t| *t != "-").map(str::to_string);
        let name = next()?.to_string();
        let a = Attachment {
            name,
            kind,
            mime,
            bytes,
            hash,
            width,
            height,
            pages,
            text,
        };
        if a.valid() {
            Ok(a)
        } else {
            Err(BAD)
        }
    }
}

impl Attachment {
    /// Whether the reference is well formed: a known kind's fields, a SHA-256 hex key (so the
    /// key is safe in markup and selectors), a name. Imported or pasted references that are not
    /// are dropped.
    pub fn valid(&self) -> bool {
        let hex = |h: &str| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit());
        hex(&self.hash)
            && self.text.as_deref().is_none_or(hex)
            && !self.name.trim().is_empty()
            && self.name.len() <= 1024
            && !self.name.chars().any(char::is_control)
            && !self.mime.is_empty()
            && !self.mime.contains(' ')
            && match self.kind {
                Kind::Image => self.width > 0 && self.height > 0,
                Kind::Text | Kind::Pdf => true,
            }
    }

    /// The key of the text this attachment sends, if it sends text: a text file's own bytes, a
    /// PDF's extracted text.
    pub fn text_key(&self) -> Option<&str> {
        match self.kind {
            Kind::Text => Some(&self.hash),
            Kind::Pdf => self.text.as_deref(),
            Kind::Image => None,
        }
    }
}

/// The attachments of `lines` (a message's, one per line), those that are well formed.
pub fn read(lines: &str) -> Vec<Attachment> {
    lines
        .lines()
        .filter_map(|l| Attachment::try_from(l.to_string()).ok())
        .collect()
}

/// The long side an image is sent at, at most.
pub const MAX_LONG: u32 = 2048;
/// The short side an image is sent at, at most.
pub const MAX_SHORT: u32 = 768;

/// The size an image of `width` × `height` is sent at: scaled down (never up), keeping its
/// proportions, to fit 2 048 × 2 048, then until its short side is at most 768 (OpenAI's high
/// detail; `src/web/attach-worker.js` resizes by the same rule).
pub fn fit(width: u32, height: u32) -> (u32, u32) {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let long = (f64::from(MAX_LONG) / w.max(h)).min(1.0);
    let scale = long * (f64::from(MAX_SHORT) / (w.min(h) * long)).min(1.0);
    if scale >= 1.0 {
        return (width.max(1), height.max(1));
    }
    let side = |x: f64| ((x * scale).round() as u32).max(1);
    (side(w), side(h))
}

/// Tokens an image of `width` × `height` costs by OpenAI's published formula for high detail:
/// scaled as [`fit`] does, then 85 plus 170 per 512-px tile.
pub fn image_tokens(width: u32, height: u32) -> u32 {
    let (w, h) = fit(width, height);
    let tiles = w.div_ceil(512) * h.div_ceil(512);
    85 + 170 * tiles
}

/// Whether the tile formula is the model's own (OpenAI's models priced at 85 + 170 per tile;
/// the o-series and the mini models price images otherwise); elsewhere [`image_tokens`] is an
/// estimate, shown with "≈".
pub fn tokens_exact(model: &str) -> bool {
    let name = bare(model);
    ["gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-4-turbo"]
        .iter()
        .any(|p| name.starts_with(p))
        && !name.contains("mini")
        && !name.contains("nano")
}

/// The model name without a router's vendor prefix, lowercased.
fn bare(model: &str) -> String {
    model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .trim()
        .to_ascii_lowercase()
}

/// Models known to see images, by name prefix (after a router's vendor prefix); names that
/// contain one of [`VISION_MARKS`] see images too. The user's own marks in Settings win.
pub const VISION: &[&str] = &[
    "gpt-4o",
    "chatgpt-4o",
    "gpt-4.1",
    "gpt-4.5",
    "gpt-4-turbo",
    "gpt-5",
    "o1",
    "o3",
    "o4",
    "claude-3",
    "claude-opus",
    "claude-sonnet",
    "claude-haiku",
    "gemini",
    "gemma-3",
    "gemma3",
    "llava",
    "bakllava",
    "minicpm-v",
    "moondream",
    "pixtral",
    "mistral-small-3",
    "mistral-medium",
    "llama-4",
    "llama4",
    "grok-4",
    "qwen-vl",
    "qwen2-vl",
    "qwen2.5-vl",
    "qwen2.5vl",
    "qwen3-vl",
    "qvq",
    "kimi-k2.5",
    "glm-4v",
    "glm-4.5v",
    "internvl",
    "smolvlm",
];

/// Models of a family in [`VISION`] that see no images.
pub const BLIND: &[&str] = &["o1-mini", "o1-preview", "o3-mini"];

/// Parts of a model name that say it sees images.
pub const VISION_MARKS: &[&str] = &["-vl", "vision", "-vlm", "-omni"];

/// Whether `model` sees images: the user's mark for it (Settings → "Sees images"), else the
/// built-in list.
pub fn sees_images(model: &str, marks: &BTreeMap<String, bool>) -> bool {
    if let Some(&mark) = marks.get(model.trim()) {
        return mark;
    }
    let name = bare(model);
    if BLIND.iter().any(|p| name.starts_with(p)) {
        return false;
    }
    VISION.iter().any(|p| name.starts_with(p)) || VISION_MARKS.iter().any(|m| name.contains(m))
}

/// What an image sent in an older round becomes.
pub fn image_placeholder(name: &str) -> String {
    format!("[image omitted: {}]", one_line(name))
}

/// What a PDF with no text layer says in place of its text.
pub const NO_TEXT_LAYER: &str =
    "(This PDF has no text layer — it is probably a scan — so its pages could not be read as text.)";

/// What a file whose bytes this browser does not hold says (a chat imported or synced from
/// another device).
pub const NOT_HERE: &str = "(The file's contents are not on this device.)";

/// A file's name on one line, without characters that would break the heading.
fn one_line(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

/// The language a code fence names for a file, from its extension (empty when unknown).
pub fn fence_language(name: &str) -> &'static str {
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" => "markdown",
        "csv" => "csv",
        "tsv" => "tsv",
        "json" | "jsonl" => "json",
        "yaml" | "yml" => "yaml",
        "toml" => "toml",
        "xml" => "xml",
        "html" | "htm" => "html",
        "css" => "css",
        "js" | "mjs" | "cjs" | "jsx" => "javascript",
        "ts" | "tsx" => "typescript",
        "py" => "python",
        "rs" => "rust",
        "go" => "go",
        "java" => "java",
        "kt" => "kotlin",
        "c" | "h" => "c",
        "cpp" | "hpp" | "cc" => "cpp",
        "cs" => "csharp",
        "rb" => "ruby",
        "php" => "php",
        "sh" | "bash" | "zsh" => "sh",
        "sql" => "sql",
        "swift" => "swift",
        "lua" => "lua",
        "tex" => "latex",
        "r" => "r",
        _ => "",
    }
}

/// A file's text as it goes to the model: a line with its name, then the text in a code fence
/// longer than any run of backticks in it (so nothing in the file closes it early). `pages`: a
/// PDF's page count, said in the heading.
pub fn file_block(name: &str, text: &str, pages: u32) -> String {
    let mut longest = 0;
    let mut run = 0;
    for b in text.bytes() {
        run = if b == b'`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let heading = match pages {
        0 => format!("File: {}", one_line(name)),
        1 => format!("File: {} (PDF, 1 page)", one_line(name)),
        n => format!("File: {} (PDF, {n} pages)", one_line(name)),
    };
    let lang = if pages > 0 { "" } else { fence_language(name) };
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    format!("{heading}\n{fence}{lang}\n{text}{newline}{fence}")
}

/// A user message's text with its files' blocks after it (`texts`: the text each attachment
/// sends, by its [`Attachment::text_key`]; a key missing from it says [`NOT_HERE`]).
pub fn with_files(
    content: &str,
    attachments: &[Attachment],
    texts: &BTreeMap<String, String>,
) -> String {
    let mut out = content.to_string();
    for a in attachments {
        let block = match (a.kind, a.text_key()) {
            (Kind::Image, _) => continue,
            (_, None) => format!("File: {}\n{NO_TEXT_LAYER}", one_line(&a.name)),
            (_, Some(key)) => match texts.get(key) {
                Some(t) => file_block(
                    &a.name,
                    t,
                    if a.kind == Kind::Pdf {
                        a.pages.max(1)
                    } else {
                        0
                    },
                ),
                None => format!("File: {}\n{NOT_HERE}", one_line(&a.name)),
            },
        };
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&block);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_fitted_as_openai_does() {
        for (w, h, want) in [
            (4000, 3000, (1024, 768)),
            (3000, 4000, (768, 1024)),
            (1024, 1024, (768, 768)),
            (2048, 4096, (768, 1536)),
            (800, 600, (800, 600)),
            (512, 512, (512, 512)),
            (10000, 100, (2048, 20)),
            (1, 1, (1, 1)),
            (0, 0, (1, 1)),
        ] {
            assert_eq!(fit(w, h), want, "{w}×{h}");
        }
    }

    #[test]
    fn image_tokens_follow_the_tile_formula() {
        // OpenAI's worked examples: 1024×1024 → 768×768, 4 tiles, 765 tokens; 2048×4096 →
        // 768×1536, 6 tiles, 1105 tokens.
        assert_eq!(image_tokens(1024, 1024), 765);
        assert_eq!(image_tokens(2048, 4096), 1105);
        assert_eq!(image_tokens(512, 512), 255);
        assert_eq!(image_tokens(4000, 3000), 85 + 170 * 4);
    }

    #[test]
    fn which_models_see_images() {
        let none = BTreeMap::new();
        for (model, sees) in [
            ("gpt-4o", true),
            ("openai/gpt-4o-mini", true),
            ("gpt-3.5-turbo", false),
            ("deepseek-chat", false),
            ("qwen2.5-vl-7b-instruct", true),
            ("Qwen/Qwen2.5-VL-72B-Instruct", true),
            ("qwen-plus", false),
            ("llama3.2-vision:11b", true),
            ("smollm2", false),
            ("gemma3:4b", true),
            ("claude-sonnet-4-5", true),
            ("o1-mini", false),
            ("o3-mini-2025-01-31", false),
            ("o4-mini", true),
            ("o3", true),
        ] {
            assert_eq!(sees_images(model, &none), sees, "{model}");
        }
        let marks = BTreeMap::from([("smollm2".to_string(), true), ("gpt-4o".to_string(), false)]);
        assert!(sees_images("smollm2", &marks));
        assert!(!sees_images("gpt-4o", &marks));
        assert!(tokens_exact("gpt-4o-2024-08-06"));
        assert!(!tokens_exact("gpt-4o-mini"));
        assert!(!tokens_exact("llava"));
    }

    #[test]
    fn files_go_in_fenced_under_their_name() {
        assert_eq!(
            file_block("data.csv", "a,b\n1,2\n", 0),
            "File: data.csv\n```csv\na,b\n1,2\n```"
        );
        // A fence in the file never closes the block.
        assert_eq!(
            file_block("notes.md", "x\n````\ny", 0),
            "File: notes.md\n`````markdown\nx\n````\ny\n`````"
        );
        assert_eq!(
            file_block("r.pdf", "--- Page 1 ---\nhi", 2),
            "File: r.pdf (PDF, 2 pages)\n```\n--- Page 1 ---\nhi\n```"
        );
        // A name cannot add lines.
        assert_eq!(file_block("a\nb.txt", "t", 0), "File: a b.txt\n```\nt\n```");
    }

    fn att(kind: Kind, name: &str, hash: char, text: Option<char>) -> Attachment {
        Attachment {
            name: name.into(),
            kind,
            mime: "text/plain".into(),
            bytes: 1,
            hash: hash.to_string().repeat(64),
            width: 1,
            height: 1,
            pages: 1,
            text: text.map(|c| c.to_string().repeat(64)),
        }
    }

    #[test]
    fn messages_carry_their_files_text() {
        let texts = BTreeMap::from([
            ("a".repeat(64), "hello".to_string()),
            ("c".repeat(64), "page".to_string()),
        ]);
        let atts = [
            att(Kind::Text, "a.txt", 'a', None),
            att(Kind::Image, "i.png", 'b', None),
            att(Kind::Pdf, "p.pdf", 'd', Some('c')),
            att(Kind::Pdf, "scan.pdf", 'e', None),
            att(Kind::Text, "gone.txt", 'f', None),
        ];
        assert_eq!(
            with_files("Look:", &atts, &texts),
            format!(
                "Look:\n\nFile: a.txt\n```\nhello\n```\n\nFile: p.pdf (PDF, 1 page)\n```\npage\n```\n\nFile: scan.pdf\n{NO_TEXT_LAYER}\n\nFile: gone.txt\n{NOT_HERE}"
            )
        );
        assert_eq!(
            with_files("", &atts[..1], &texts),
            "File: a.txt\n```\nhello\n```"
        );
    }

    #[test]
    fn an_attachment_is_one_line() {
        let mut a = att(Kind::Pdf, "Q3 report (final).pdf", 'a', Some('b'));
        a.mime = "application/pdf".into();
        let line = String::from(a.clone());
        assert_eq!(
            line,
            format!(
                "{} pdf application/pdf 1 1x1 1 {} Q3 report (final).pdf",
                "a".repeat(64),
                "b".repeat(64)
            )
        );
        assert_eq!(Attachment::try_from(line.clone()), Ok(a));
        assert_eq!(read(&format!("{line}\njunk")).len(), 1);
        let mut image = att(Kind::Image, "photo.png", 'c', None);
        image.mime = "image/png".into();
        let line = String::from(image.clone());
        assert!(line.contains(" 1x1 1 - photo.png"), "{line}");
        assert_eq!(Attachment::try_from(line), Ok(image));
        for bad in [
            "",
            "zz image image/png 1 1x1 0 - a.png",
            &format!("{} movie video/mp4 1 1x1 0 - a.mp4", "a".repeat(64)),
            &format!("{} image image/png 1 0x1 0 - a.png", "a".repeat(64)),
            &format!("{} image image/png x 1x1 0 - a.png", "a".repeat(64)),
            &format!("{} image image/png 1 1x1 0 -", "a".repeat(64)),
            &format!("{} image image/png 1 1x1 0 - a\nb.png", "a".repeat(64)),
        ] {
            assert!(Attachment::try_from(bad.to_string()).is_err(), "{bad}");
        }
    }

    #[test]
    fn references_are_checked() {
        assert!(att(Kind::Image, "i.png", 'a', None).valid());
        let mut bad = att(Kind::Image, "i.png", 'a', None);
        bad.hash = "\"><script>".into();
        assert!(!bad.valid());
        let mut bad = att(Kind::Image, "i.png", 'a', None);
        bad.width = 0;
        assert!(!bad.valid());
        assert!(!att(Kind::Text, " ", 'a', None).valid());
        let mut bad = att(Kind::Pdf, "p.pdf", 'a', None);
        bad.text = Some("zz".into());
        assert!(!bad.valid());
    }
}
