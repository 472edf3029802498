//! Markdown → HTML rendering for untrusted text (model output, pasted user text).
//!
//! Owns [`render`], the only way chat content becomes markup. The UI assigns its result to
//! `innerHTML`, so this module is the XSS boundary of the app.
//!
//! Design: rather than sanitising HTML after the fact (no `ammonia`, to keep the wasm small), raw
//! HTML never gets through at all. The `pulldown_cmark` event stream is filtered before
//! `pulldown_cmark::html::push_html` sees it, and every piece of markup that is not produced by
//! `push_html` from a known-safe event is built here from fixed strings plus escaped values.
//!
//! Invariants of the returned HTML, for any input:
//! - Raw HTML from the input (blocks and inline) is shown as escaped text, never as markup.
//! - Every `<` in the output starts a tag this module or `push_html` wrote; all text is escaped.
//! - The only elements are structural/text ones (`p`, `em`, `table`, `ul`, `a`, `span`, `div`,
//!   `pre`, `code`, `button`, …). There is never an `<img>`, `<script>`, `<style>`, `<iframe>`,
//!   form element, or any element that fetches something on render.
//! - There are no `on*`, `style`, `src`, `srcset`, `id` or `name` attributes. Table alignment
//!   is carried by the classes `md-align-left|center|right`.
//! - Every `href` is absolute `http://`/`https://` (with `//`) or `mailto:`; other links,
//!   including relative, fragment and protocol-relative ones, render as their text only. Links
//!   carry `rel="noopener noreferrer nofollow" target="_blank"`.
//! - Images render as a `md-image-blocked` placeholder showing the alt text, followed by a plain
//!   link to the image URL when that URL is http(s).
//! - Code blocks render inside a `code-block` wrapper with a `copy-code` button; the language
//!   label is restricted to `[A-Za-z0-9_+#.-]{1,32}`.
//! - Hidden characters (bidi controls, zero-width and control characters: [`crate::hidden`]) in
//!   code blocks, inline code and link texts are each wrapped in a marker
//!   `<span class="md-hidden" role="img" aria-label="U+202E" title="Hidden character U+202E (…)">`
//!   holding the character itself (so copying the code copies it), which the stylesheet shows
//!   as its code point and isolates, so a bidi override cannot reorder the text around it. In an
//!   `href` they are percent-encoded.
//! - A link whose text names a host (`https://good.example`, `good.example/path`) other than
//!   the host it goes to is followed by that host, `<span class="md-real-host" title="This link
//!   goes to HOST">(HOST)</span>`, so its text cannot lie about where it leads (see #37).
//! - Formulas (`$…$`, `$$…$$`, and `\(…\)`, `\[…\]` outside code) render as their TeX source,
//!   escaped, in `<span class="md-math">` (`md-math md-display` for display math), which the
//!   page typesets as MathML (`src/web/math.js`). A closing `$` right before a digit ends no
//!   formula ("$5-$10" is text, as Pandoc reads it); a formula over [`MAX_TEX_BYTES`] or with
//!   hidden characters is shown as code.
//! - Output size is linear in input size: inputs over [`MAX_MARKDOWN_BYTES`] are shown as
//!   escaped plain text, and inputs whose tables could be padded into a huge number of empty
//!   cells are parsed with tables disabled.
//!
//! Classes the stylesheet can target: `code-block`, `code-head`, `code-lang`, `copy-code` (the UI
//! copies the sibling `<code>` text), `preview-code` ("Preview" on an `html` or `svg` block, with
//! `aria-expanded`; the page draws the block in a sandboxed frame), `md-mermaid` and
//! `source-code` (a `mermaid` block, which the page draws as a diagram in such a frame, and its
//! "Source" button, `aria-expanded` while the source shows), `md-hidden`, `md-real-host`, `md-image-blocked`, `md-task`/`md-task-done` (task list
//! markers, shown as ☑/☐ instead of `<input>`), `md-align-left|center|right` (table cells),
//! `md-math`/`md-display` (formulas), `md-raw-html` (a `<p>` holding an input HTML block as text; its newlines are kept in the text,
//! so `white-space: pre-wrap` shows them) and `md-plain` (the oversized-input fallback `<pre>`).
//!
//! Pure: no IO, clock, randomness or browser APIs.

use crate::hidden::{self, Piece};
use pulldown_cmark::{
    html, Alignment, CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd,
};
use std::borrow::Cow;

/// Largest input, in bytes, that is parsed as markdown. Longer input is rendered as escaped plain
/// text in a `<pre class="md-plain">`, which bounds parse time and memory for pathological input.
pub const MAX_MARKDOWN_BYTES: usize = 200_000;

/// Longest code-block language label that is kept; longer labels are dropped.
const MAX_LANG_LEN: usize = 32;

/// Upper bound on the empty table cells the parser may synthesise before tables are disabled.
///
/// GFM pads short table rows with empty cells, so a wide header followed by many one-cell rows
/// turns a few bytes of input into kilobytes of output (pulldown-cmark caps this per table, not
/// per document: ~190 KB of tables became ~145 MB of HTML in testing).
const MAX_TABLE_PADDING: u64 = 1 << 16;

/// Attributes every emitted link carries, after its `href`.
const LINK_ATTRS: &str = r#" rel="noopener noreferrer nofollow" target="_blank""#;

/// Render untrusted markdown (model output) to HTML that is safe to assign to innerHTML.
///
/// Supports CommonMark plus tables, strikethrough and task lists. See the module docs for the
/// guarantees on the output. Input longer than [`MAX_MARKDOWN_BYTES`] bytes is not parsed: it is
/// returned as escaped text inside `<pre class="md-plain">…</pre>`.
pub fn render(markdown: &str) -> String {
    if markdown.len() > MAX_MARKDOWN_BYTES {
        return render_plain(markdown);
    }
    let mut options =
        Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS | Options::ENABLE_MATH;
    if table_padding_bound(markdown) <= MAX_TABLE_PADDING {
        options |= Options::ENABLE_TABLES;
    }
    // Prices ("$5-$10") and shell variables ("$PATH:$HOME") are never formulas: the parser's
    // rule for a closing `$` (vendor/pulldown-cmark, `closes_no_math`).
    let text = tex_delimiters(markdown).text;
    let mut filter = Filter::default();
    let events = Parser::new_ext(&text, options).filter_map(|event| filter.map(event));
    let mut out = String::with_capacity(markdown.len() + markdown.len() / 2 + 64);
    html::push_html(&mut out, events);
    out
}

/// Longest formula, in bytes, that is marked for typesetting; a longer one is shown as its
/// source, as code.
const MAX_TEX_BYTES: usize = 4_000;

/// `markdown` with LaTeX's own delimiters written as the markdown parser's, and where each pair
/// was (see [`tex_delimiters`]).
struct TexRewrite<'a> {
    /// The text with `\(…\)` as `$…$` and `\[…\]` as `$$…$$`.
    text: Cow<'a, str>,
    /// Each rewritten pair: its range in `text` and in the original.
    pairs: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
}

/// `markdown` with LaTeX's own delimiters written as the markdown parser's: `\(…\)` as `$…$` and
/// `\[…\]` as `$$…$$` (what models trained on LaTeX write). Only in prose: never in code blocks
/// (fenced, also in a quote or a list, or indented), code spans, link targets, autolinks or
/// lines of raw HTML. A pair does not span a blank line or a code span; `\\(` is an escaped
/// backslash; `\(x\)5` (a digit right after) stays as written. Inline math is trimmed, since
/// `$ x $` is not math for the parser. Linear in the length of `markdown`.
fn tex_delimiters(markdown: &str) -> TexRewrite<'_> {
    if !markdown.contains("\\(") && !markdown.contains("\\[") {
        return TexRewrite {
            text: Cow::Borrowed(markdown),
            pairs: Vec::new(),
        };
    }
    let mut out = TexRewrite {
        text: Cow::Owned(String::with_capacity(markdown.len())),
        pairs: Vec::new(),
    };
    let mut fence: Option<(u8, usize)> = None;
    let mut after_blank = true;
    let mut in_list = false;
    // Where the prose not yet written starts: runs of prose lines are rewritten whole, so a
    // pair may span the lines of a paragraph.
    let mut prose = 0;
    let mut at = 0;
    while at < markdown.len() {
        let end = markdown[at..]
            .find('\n')
            .map_or(markdown.len(), |i| at + i + 1);
        let line = markdown[at..end].trim_end_matches(['\n', '\r']);
        // A fence may open inside a quote or a list item.
        let inner = line
            .trim_start_matches(['>', ' '])
            .trim_start_matches(['-', '*', '+'])
            .trim_start_matches(' ');
        let fence_run = fence_of(line).or_else(|| fence_of(inner));
        let indented = fence.is_none()
            && after_blank
            && !in_list
            && !blank(line)
            && (line.starts_with('\t') || line.starts_with("    "));
        // A line of raw HTML (a block the parser shows as text) is left as it is.
        let html = {
            let t = line.trim_start_matches(' ');
            t.starts_with('<')
                && t[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!')
        };
        let verbatim = if let Some((ch, len)) = fence {
            if fence_run.is_some_and(|(c, l, tail)| c == ch && l >= len && blank(tail)) {
                fence = None;
            }
            true
        } else if let Some((c, l, _)) = fence_run {
            fence = Some((c, l));
            true
        } else {
            indented || html
        };
        if verbatim {
            push_tex_prose(&mut out, markdown, prose..at);
            push_out(&mut out, &markdown[at..end]);
            prose = end;
        }
        if is_list_item(line.trim_start_matches(' ')) {
            in_list = true;
        } else if !blank(line) && !line.starts_with([' ', '\t']) {
            in_list = false;
        }
        after_blank = blank(line) || indented;
        at = end;
    }
    push_tex_prose(&mut out, markdown, prose..markdown.len());
    out
}

/// Appends `text` to the rewritten text.
fn push_out(out: &mut TexRewrite<'_>, text: &str) {
    out.text.to_mut().push_str(text);
}

/// Appends the prose `markdown[range]` (outside code blocks) with its `\(…\)` and `\[…\]` pairs
/// written as `$…$` and `$$…$$`, leaving code spans, link targets, autolinks and escaped
/// backslashes as they are.
fn push_tex_prose(out: &mut TexRewrite<'_>, markdown: &str, range: std::ops::Range<usize>) {
    let prose = &markdown[range.clone()];
    let b = prose.as_bytes();
    let mut copied = 0;
    let mut i = 0;
    // Where the paragraph of a delimiter found unclosed ends: no closer before it, so later
    // delimiters of the same kind before it are not searched again (linear time).
    let mut unclosed = [0usize; 2];
    while i < b.len() {
        match b[i] {
            b'`' => {
                let run = b[i..].iter().take_while(|c| **c == b'`').count();
                i += run + code_span_end(&prose[i + run..], run).unwrap_or(0);
            }
            // A link's target: `](…)`, with its parentheses balanced.
            b']' if b.get(i + 1) == Some(&b'(') => i = link_target_end(b, i + 1),
            // An autolink: `<scheme:…>`.
            b'<' if prose[i + 1..]
                .split(|c: char| !c.is_ascii_alphanumeric() && c != '+' && c != '.' && c != '-')
                .next()
                .is_some_and(|s| s.len() >= 2 && prose[i + 1 + s.len()..].starts_with(':')) =>
            {
                i += prose[i..].find(['>', '\n']).map_or(1, |n| n + 1);
            }
            b'\\' if matches!(b.get(i + 1), Some(b'(' | b'[')) => {
                let display = b[i + 1] == b'[';
                let kind = usize::from(display);
                if i < unclosed[kind] {
                    i += 2;
                    continue;
                }
                let closing = if display { "\\]" } else { "\\)" };
                let body = &prose[i + 2..];
                match tex_close(body, closing) {
                    Ok(len)
                        if !body[..len].trim().is_empty()
                            && (display
                                || !body[len + 2..].starts_with(|c: char| c.is_ascii_digit())) =>
                    {
                        push_out(out, &prose[copied..i]);
                        let (fence, tex) = match display {
                            true => ("$$", &body[..len]),
                            false => ("$", body[..len].trim()),
                        };
                        let from = out.text.len();
                        push_out(out, fence);
                        push_out(out, tex);
                        push_out(out, fence);
                        let was = range.start + i..range.start + i + 2 + len + 2;
                        out.pairs.push((from..out.text.len(), was));
                        i += 2 + len + 2;
                        copied = i;
                    }
                    Ok(_) => i += 2,
                    Err(end) => {
                        unclosed[kind] = i + 2 + end;
                        i += 2;
                    }
                }
            }
            // An escaped character (`\\` too) is never a delimiter.
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    push_out(out, &prose[copied.min(prose.len())..]);
}

/// Where a link target opened by the `(` at `open` ends (just after its `)`, parentheses
/// balanced, escapes skipped), or the line's end.
fn link_target_end(b: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            b'\n' => return i,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// Where a code span opened by `run` backticks ends in `text` (just after its closing run), if
/// it closes before a blank line.
fn code_span_end(text: &str, run: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\n'
            && text[i + 1..]
                .trim_start_matches([' ', '\t', '\r'])
                .starts_with('\n')
        {
            return None;
        }
        if b[i] == b'`' {
            let len = b[i..].iter().take_while(|c| **c == b'`').count();
            if len == run {
                return Some(i + len);
            }
            i += len;
        } else {
            i += 1;
        }
    }
    None
}

/// The length of the formula in `text` up to its `closing` delimiter (`\)` or `\]`), or, if there
/// is none before a blank line or a code span, where the paragraph ends. `\\` (a TeX line break)
/// is skipped whole.
fn tex_close(text: &str, closing: &str) -> Result<usize, usize> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if text[i..].starts_with(closing) => return Ok(i),
            b'\\' => i += 2,
            b'`' => return Err(i),
            b'\n'
                if text[i + 1..]
                    .trim_start_matches([' ', '\t', '\r'])
                    .starts_with('\n') =>
            {
                return Err(i)
            }
            _ => i += 1,
        }
    }
    Err(b.len())
}

/// A message shown as typed (the user's words are not markdown), as HTML: `text` escaped, with
/// its formulas marked for typesetting as [`render`] marks them (`$…$`, `$$…$$`, `\(…\)`,
/// `\[…\]`; never inside a code span, a price stays text). Everything else is shown exactly as
/// typed; a formula's delimiters are not shown: the page draws the formula instead.
pub fn plain_with_math(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 32);
    if text.len() > MAX_MARKDOWN_BYTES || !(text.contains('$') || text.contains('\\')) {
        push_escaped(&mut out, text);
        return out;
    }
    let src = tex_delimiters(text);
    // A position in the rewritten text, in `text`: shifted by the pairs rewritten before it.
    let original = |at: usize| {
        let mut shift = 0isize;
        for (new, was) in &src.pairs {
            if new.start >= at {
                break;
            }
            if at < new.end {
                return None; // inside a rewritten pair: not a formula's edge
            }
            shift = was.end as isize - new.end as isize;
        }
        Some((at as isize + shift) as usize)
    };
    let mut at = 0;
    for (event, range) in Parser::new_ext(&src.text, Options::ENABLE_MATH).into_offset_iter() {
        let (tex, display) = match event {
            Event::InlineMath(tex) => (tex, false),
            Event::DisplayMath(tex) => (tex, true),
            _ => continue,
        };
        let (Some(start), Some(end)) = (original(range.start), original(range.end)) else {
            continue;
        };
        if start < at {
            continue;
        }
        push_escaped(&mut out, &text[at..start]);
        out.push_str(&math_html(&tex, display));
        at = end;
    }
    push_escaped(&mut out, &text[at..]);
    out
}

/// Where a reply still arriving can be cut so that the part before renders on its own and never
/// changes again: the start of the last complete line at or after `from` (itself such a cut, or 0)
/// that begins a new top-level block — after a blank line, outside a code fence, not indented
/// (an indented line may continue a list or a code block) and not a list item (a list stays
/// whole) — or `from` if there is none. Only text after `from` is read, so a reply can be shown
/// piece by piece at a cost that grows with its last block, not with its length (one long list
/// or code block stays one growing block). Reference definitions written later, lists split by
/// other blocks and HTML blocks spanning blank lines may render differently until the whole
/// reply is rendered once it ends.
pub fn stream_cut(text: &str, from: usize) -> usize {
    let mut cut = from;
    let mut fence: Option<(u8, usize)> = None;
    let mut after_blank = false;
    let mut at = from;
    while let Some(end) = text.get(at..).and_then(|t| t.find('\n')) {
        let line = &text[at..at + end];
        let start = at;
        at += end + 1;
        let fence_run = fence_of(line);
        if let Some((ch, len)) = fence {
            if fence_run.is_some_and(|(c, l, rest)| c == ch && l >= len && blank(rest)) {
                fence = None;
            }
            after_blank = false;
            continue;
        }
        if blank(line) {
            after_blank = true;
            continue;
        }
        if after_blank && !line.starts_with([' ', '\t']) && !is_list_item(line) {
            cut = start;
        }
        fence = fence_run.map(|(c, l, _)| (c, l));
        after_blank = false;
    }
    cut
}

/// A code fence opening `line` (at most 3 spaces in, then 3 or more backticks or tildes; a
/// backtick fence's info string has no backtick): its character, length and what follows.
fn fence_of(line: &str) -> Option<(u8, usize, &str)> {
    let body = line.trim_start_matches(' ');
    if line.len() - body.len() > 3 {
        return None;
    }
    let ch = *body
        .as_bytes()
        .first()
        .filter(|c| **c == b'`' || **c == b'~')?;
    let len = body.bytes().take_while(|c| *c == ch).count();
    let rest = &body[len..];
    (len >= 3 && !(ch == b'`' && rest.contains('`'))).then_some((ch, len, rest))
}

/// Whether `line` is blank for markdown: spaces and tabs only (and the `\r` of a CRLF).
fn blank(line: &str) -> bool {
    line.bytes().all(|c| matches!(c, b' ' | b'\t' | b'\r'))
}

/// Whether `line` starts a list item (`- `, `* `, `+ `, `1. `, `1) `).
fn is_list_item(line: &str) -> bool {
    let b = line.as_bytes();
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let marker = match (digits, b.first()) {
        (0, Some(b'-' | b'*' | b'+')) => 1,
        (1..=9, _) if matches!(b.get(digits), Some(b'.' | b')')) => digits + 1,
        _ => return false,
    };
    matches!(b.get(marker), None | Some(b' ' | b'\t' | b'\r'))
}

/// Markdown for `text` as a fenced code block in `lang`: the fence is longer than any run of
/// backticks in `text`, so nothing in it can close the block early.
pub fn code_block(lang: &str, text: &str) -> String {
    let (mut longest, mut run) = (0, 0);
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{lang}\n{text}\n{fence}")
}

/// Text shown as-is: escaped, in a `<pre class="md-plain">`. Used for oversized input, and by the
/// UI until the markdown renderer has loaded.
pub fn render_plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 32);
    out.push_str(r#"<pre class="md-plain">"#);
    push_escaped(&mut out, text);
    out.push_str("</pre>\n");
    out
}

/// Rewrites parser events into safe ones. Each input event maps to at most one output event.
#[derive(Default)]
struct Filter {
    /// One entry per open link: whether an `<a>` was emitted for it (i.e. its URL was allowed).
    links: Vec<bool>,
    /// The host of the web link open, and the text of that link so far (see [`misnamed`]).
    link_text: Option<(String, String)>,
    /// Whether a code block is open.
    in_code: bool,
    /// The image being collected, if inside `Start(Image)` … `End(Image)`.
    image: Option<PendingImage>,
    /// Alignments of the current table's columns.
    alignments: Vec<Alignment>,
    /// Whether the current table cells are header cells.
    in_table_head: bool,
    /// Index of the next cell in the current table row.
    cell_index: usize,
}

/// An image whose alt text is being collected.
struct PendingImage {
    /// Nesting depth of `Start(Image)` events (alt text may itself contain images).
    depth: usize,
    /// The image URL, if it is an allowed http(s) URL.
    url: Option<String>,
    /// The alt text collected so far (unescaped).
    alt: String,
}

impl Filter {
    /// Maps one parser event to the event handed to `push_html`, or drops it.
    fn map<'a>(&mut self, event: Event<'a>) -> Option<Event<'a>> {
        if let Some(image) = self.image.as_mut() {
            match event {
                Event::Start(Tag::Image { .. }) => image.depth = image.depth.saturating_add(1),
                Event::End(TagEnd::Image) => {
                    image.depth = image.depth.saturating_sub(1);
                    if image.depth == 0 {
                        let image = self.image.take()?;
                        return Some(Event::Html(self.image_html(image).into()));
                    }
                }
                Event::Text(text)
                | Event::Code(text)
                | Event::Html(text)
                | Event::InlineHtml(text)
                | Event::InlineMath(text)
                | Event::DisplayMath(text) => image.alt.push_str(&text),
                Event::SoftBreak | Event::HardBreak => image.alt.push(' '),
                _ => {}
            }
            return None;
        }
        if let Some((_, seen)) = self.link_text.as_mut() {
            if let Event::Text(text) | Event::Code(text) = &event {
                seen.push_str(text);
            }
        }
        match event {
            // Raw HTML from the input is shown literally; push_html escapes Text.
            Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
            // Hidden characters in code and in link texts are shown.
            Event::Text(text) if (self.in_code || !self.links.is_empty()) && hidden::any(&text) => {
                let mut html = String::new();
                push_marked(&mut html, &text);
                Some(Event::Html(html.into()))
            }
            Event::Code(text) if hidden::any(&text) => {
                let mut html = String::from("<code>");
                push_marked(&mut html, &text);
                html.push_str("</code>");
                Some(Event::Html(html.into()))
            }
            // Chat replies use single newlines as line breaks (addresses, verse, lists of
            // lines), so a soft break is kept as a break, as chat apps do.
            Event::SoftBreak => Some(Event::HardBreak),
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::InlineMath(tex) => Some(Event::Html(math_html(&tex, false).into())),
            Event::DisplayMath(tex) => Some(Event::Html(math_html(&tex, true).into())),
            // Footnotes are not enabled; if they ever were, push_html would emit `href="#…"`.
            Event::FootnoteReference(name) => Some(Event::Text(format!("[^{name}]").into())),
            // push_html would emit an <input>.
            Event::TaskListMarker(done) => Some(Event::Html(
                if done {
                    r#"<span class="md-task md-task-done" role="img" aria-label="Done">☑</span> "#
                } else {
                    r#"<span class="md-task" role="img" aria-label="Not done">☐</span> "#
                }
                .into(),
            )),
            other => Some(other),
        }
    }

    /// Maps a `Start` event.
    fn start<'a>(&mut self, tag: Tag<'a>) -> Option<Event<'a>> {
        let event = match tag {
            // Heading attributes are not enabled; drop them anyway (no ids: DOM clobbering).
            Tag::Heading { level, .. } => Event::Start(Tag::Heading {
                level,
                id: None,
                classes: Vec::new(),
                attrs: Vec::new(),
            }),
            // The block's content arrives as Html events, which become escaped text.
            Tag::HtmlBlock => Event::Html(r#"<p class="md-raw-html">"#.into()),
            Tag::CodeBlock(kind) => {
                self.in_code = true;
                Event::Html(code_block_open(&kind).into())
            }
            Tag::Table(alignments) => {
                self.alignments = alignments;
                // push_html would turn alignments into style attributes.
                Event::Start(Tag::Table(Vec::new()))
            }
            Tag::TableHead => {
                self.in_table_head = true;
                self.cell_index = 0;
                Event::Start(Tag::TableHead)
            }
            Tag::TableRow => {
                self.cell_index = 0;
                Event::Start(Tag::TableRow)
            }
            Tag::TableCell => Event::Html(self.table_cell_open().into()),
            Tag::FootnoteDefinition(_) => {
                Event::Html(r#"<div class="footnote-definition">"#.into())
            }
            Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            } => match allowed_url(&dest_url, link_type) {
                Some((url, scheme)) => {
                    self.links.push(true);
                    if scheme == Scheme::Web {
                        self.link_text = Some((url_host(&url).to_owned(), String::new()));
                    }
                    let mut html = String::new();
                    push_anchor_open(&mut html, &url, &title);
                    Event::Html(html.into())
                }
                None => {
                    self.links.push(false);
                    return None;
                }
            },
            Tag::Image {
                link_type,
                dest_url,
                ..
            } => {
                let url = allowed_url(&dest_url, link_type)
                    .filter(|(_, scheme)| *scheme == Scheme::Web)
                    .map(|(url, _)| url);
                self.image = Some(PendingImage {
                    depth: 1,
                    url,
                    alt: String::new(),
                });
                return None;
            }
            other => Event::Start(other),
        };
        Some(event)
    }

    /// Maps an `End` event.
    fn end<'a>(&mut self, tag: TagEnd) -> Option<Event<'a>> {
        let event = match tag {
            TagEnd::HtmlBlock => Event::Html("</p>\n".into()),
            TagEnd::CodeBlock => {
                self.in_code = false;
                Event::Html("</code></pre></div>\n".into())
            }
            TagEnd::TableHead => {
                self.in_table_head = false;
                Event::End(TagEnd::TableHead)
            }
            TagEnd::TableCell => {
                self.cell_index = self.cell_index.saturating_add(1);
                Event::End(TagEnd::TableCell)
            }
            TagEnd::Table => {
                self.alignments.clear();
                Event::End(TagEnd::Table)
            }
            TagEnd::Link => {
                return match self.links.pop() {
                    Some(true) => {
                        let mut html = String::from("</a>");
                        if let Some((host, text)) = self.link_text.take() {
                            if misnamed(&text, &host) {
                                html.push_str(
                                    r#" <span class="md-real-host" title="This link goes to "#,
                                );
                                push_escaped(&mut html, &host);
                                html.push_str(r#"">("#);
                                push_marked(&mut html, &host);
                                html.push_str(")</span>");
                            }
                        }
                        Some(Event::Html(html.into()))
                    }
                    _ => None,
                }
            }
            // Only reachable without a matching Start, which the parser never produces.
            TagEnd::Image => return None,
            other => Event::End(other),
        };
        Some(event)
    }

    /// The opening `<th>`/`<td>` of the next cell, with its alignment class.
    fn table_cell_open(&self) -> &'static str {
        let align = self
            .alignments
            .get(self.cell_index)
            .copied()
            .unwrap_or(Alignment::None);
        match (self.in_table_head, align) {
            (true, Alignment::None) => "<th>",
            (true, Alignment::Left) => r#"<th class="md-align-left">"#,
            (true, Alignment::Center) => r#"<th class="md-align-center">"#,
            (true, Alignment::Right) => r#"<th class="md-align-right">"#,
            (false, Alignment::None) => "<td>",
            (false, Alignment::Left) => r#"<td class="md-align-left">"#,
            (false, Alignment::Center) => r#"<td class="md-align-center">"#,
            (false, Alignment::Right) => r#"<td class="md-align-right">"#,
        }
    }

    /// The placeholder for a finished image, plus a link to it when its URL is http(s) and the
    /// image is not already inside a link (nested `<a>` is invalid HTML).
    fn image_html(&self, image: PendingImage) -> String {
        let mut html =
            String::from(r#"<span class="md-image-blocked" title="Image not loaded">🖼 Image"#);
        let alt = image.alt.trim();
        if !alt.is_empty() {
            html.push_str(": ");
            push_escaped(&mut html, alt);
        }
        html.push_str("</span>");
        let inside_link = self.links.iter().any(|&emitted| emitted);
        if let Some(url) = image.url.filter(|_| !inside_link) {
            html.push(' ');
            push_anchor_open(&mut html, &url, "");
            push_marked(&mut html, &url);
            html.push_str("</a>");
        }
        html
    }
}

/// The kind of an allowed link target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    /// `http://` or `https://`.
    Web,
    /// `mailto:`.
    Mailto,
}

/// Returns the URL a browser would see for `dest`, if it is an allowed link target.
///
/// Mirrors the WHATWG URL parser's preprocessing: leading/trailing C0 controls and spaces are
/// trimmed and tabs/newlines anywhere are removed (so `java\tscript:` is `javascript:`). Only
/// `http://`, `https://` and `mailto:` are allowed (scheme case-insensitive). Everything else —
/// other schemes, relative paths, fragments, `//host`, and `https:path` (which browsers resolve
/// against the page) — is rejected. `dest` is already entity-decoded by the parser.
fn allowed_url(dest: &str, link_type: LinkType) -> Option<(String, Scheme)> {
    let mut url: String = dest
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    if link_type == LinkType::Email {
        url.insert_str(0, "mailto:");
    }
    let (scheme, rest) = url.split_once(':')?;
    let kind = if scheme.eq_ignore_ascii_case("mailto") {
        Scheme::Mailto
    } else if (scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("http"))
        && rest.starts_with("//")
    {
        Scheme::Web
    } else {
        return None;
    };
    Some((url, kind))
}

/// Appends `<a href="URL" rel=… target="_blank"[ title="TITLE"]>` with both values escaped.
fn push_anchor_open(out: &mut String, url: &str, title: &str) {
    out.push_str("<a href=\"");
    push_href(out, url);
    out.push('"');
    out.push_str(LINK_ATTRS);
    if !title.is_empty() {
        out.push_str(" title=\"");
        push_escaped(out, title);
        out.push('"');
    }
    out.push('>');
}

/// Appends `url` for use inside a double-quoted `href`: ASCII controls, space, quotes, angle
/// brackets and hidden characters ([`crate::hidden`]) are percent-encoded, `&` and `'` are
/// entity-escaped, everything else is kept.
fn push_href(out: &mut String, url: &str) {
    for c in url.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_ascii_control()
                || matches!(c, ' ' | '"' | '<' | '>' | '`')
                || hidden::is_hidden(None, c, None) =>
            {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                for byte in c.encode_utf8(&mut [0; 4]).bytes() {
                    out.push('%');
                    out.push(char::from(HEX[usize::from(byte >> 4)]));
                    out.push(char::from(HEX[usize::from(byte & 0xF)]));
                }
            }
            c => out.push(c),
        }
    }
}

/// Appends `text` escaped as [`push_escaped`] does, each hidden character ([`crate::hidden`]) in
/// an `md-hidden` marker that holds it: its code point is its accessible name (which the
/// stylesheet shows) and its tooltip says what it is.
fn push_marked(out: &mut String, text: &str) {
    for piece in hidden::pieces(text) {
        match piece {
            Piece::Text(t) => push_escaped(out, t),
            Piece::Hidden(c) => {
                let point = hidden::code_point(c);
                out.push_str(r#"<span class="md-hidden" role="img" aria-label=""#);
                out.push_str(&point);
                out.push_str(r#"" title="Hidden character "#);
                out.push_str(&point);
                out.push_str(" (");
                out.push_str(hidden::name(c));
                out.push_str(r#")">"#);
                out.push(c);
                out.push_str("</span>");
            }
        }
    }
}

/// The host of an allowed web `url`: after `//`, without user info, port or a final dot. (A
/// `\` ends it, as browsers read it in http(s) URLs.)
fn url_host(url: &str) -> &str {
    let rest = url.split_once("//").map_or("", |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#', '\\']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    let host = match host.find(']') {
        Some(end) if host.starts_with('[') => &host[..=end],
        _ => host.split(':').next().unwrap_or(""),
    };
    host.strip_suffix('.').unwrap_or(host)
}

/// File names a link text often is (`README.md`, `main.rs`): not taken for host names when they
/// have no path, though some are top-level domains.
const FILE_ENDINGS: &[&str] = &[
    "c", "cpp", "css", "csv", "go", "h", "hpp", "html", "ipynb", "java", "js", "json", "jsx",
    "lock", "md", "mjs", "pdf", "png", "py", "rb", "rs", "sh", "svg", "toml", "ts", "tsx", "txt",
    "wasm", "xml", "yaml", "yml",
];

/// The host a word of a link's text names, lower-cased: the host of a URL (`https://host/…`,
/// `//host`), or the word up to its path when that looks like a host name (labels of letters,
/// digits and `-` joined by dots, the last with a letter: `good.example`, `www.good.example/x`).
/// Hidden characters are left out first, so they cannot hide a name. Not: e-mail addresses,
/// numbers (`1.5`), file names without a path (`README.md`).
fn named_host(word: &str) -> Option<String> {
    let word: String = word
        .chars()
        .filter(|&c| !hidden::is_hidden(None, c, None))
        .collect();
    let word = word
        .trim_matches(|c: char| "()[]<>{}\"'`,;!?*_".contains(c) || c == '.' || c == ':')
        .to_lowercase();
    if let Some((scheme, _)) = word.split_once("//") {
        let scheme_ok = scheme.is_empty()
            || scheme
                .strip_suffix(':')
                .is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic()));
        let host = url_host(&word);
        return (scheme_ok && !host.is_empty()).then(|| host.to_owned());
    }
    let (name, path) = match word.find(['/', '?', '#']) {
        Some(at) => (&word[..at], true),
        None => (word.as_str(), false),
    };
    let name = name.split(':').next().unwrap_or("");
    let labels: Vec<&str> = name.split('.').collect();
    let last = labels.last().copied().unwrap_or("");
    let host_like = labels.len() > 1
        && !name.contains('@')
        && labels
            .iter()
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_alphanumeric() || c == '-'))
        && last.chars().any(char::is_alphabetic)
        && (path || !FILE_ENDINGS.contains(&last));
    host_like.then(|| name.to_owned())
}

/// Whether the `text` of a link to `host` names another host in one of its words (a subdomain
/// of the host named, or the name with or without `www.`, is the same place).
fn misnamed(text: &str, host: &str) -> bool {
    let host = host.to_lowercase();
    text.split_whitespace().filter_map(named_host).any(|named| {
        !(host == named
            || host.strip_prefix("www.") == Some(named.as_str())
            || named.strip_prefix("www.") == Some(host.as_str())
            || host
                .strip_suffix(named.as_str())
                .is_some_and(|sub| sub.ends_with('.')))
    })
}

/// A formula's markup: its TeX source, escaped, in a `md-math` span (`md-display` for display
/// math) that the page typesets (`src/web/rendered.js`). A formula over [`MAX_TEX_BYTES`] or
/// with hidden characters is shown as its source, as code, with its delimiters.
fn math_html(tex: &str, display: bool) -> String {
    let mut html = String::with_capacity(tex.len() + 64);
    if tex.len() > MAX_TEX_BYTES || hidden::any(tex) {
        let fence = if display { "$$" } else { "$" };
        html.push_str("<code>");
        push_marked(&mut html, &[fence, tex, fence].concat());
        html.push_str("</code>");
        return html;
    }
    html.push_str(match display {
        true => r#"<span class="md-math md-display">"#,
        false => r#"<span class="md-math">"#,
    });
    push_escaped(&mut html, tex);
    html.push_str("</span>");
    html
}

/// Appends `text` escaped for HTML text or a quoted attribute value (`& < > " '`).
pub fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// The opening markup of a code block: wrapper, header with language label and copy button,
/// then `<pre><code>`.
fn code_block_open(kind: &CodeBlockKind<'_>) -> String {
    let lang = match kind {
        CodeBlockKind::Fenced(info) => code_lang(info),
        CodeBlockKind::Indented => "",
    };
    // A mermaid block is drawn as a diagram in a sandboxed frame, its source one click away; an
    // html or svg block can be drawn in one ("Preview"). See src/web/rendered.js.
    let mermaid = lang.eq_ignore_ascii_case("mermaid");
    let mut html = String::from(match mermaid {
        true => {
            r#"<div class="code-block md-mermaid"><div class="code-head"><span class="code-lang">"#
        }
        false => r#"<div class="code-block"><div class="code-head"><span class="code-lang">"#,
    });
    push_escaped(&mut html, lang);
    html.push_str("</span>");
    if mermaid {
        html.push_str(
            r#"<button type="button" class="source-code" aria-expanded="true">Source</button>"#,
        );
    } else if ["html", "svg"].iter().any(|l| lang.eq_ignore_ascii_case(l)) {
        html.push_str(
            r#"<button type="button" class="preview-code" aria-expanded="false">Preview</button>"#,
        );
    }
    html.push_str(
        r#"<button type="button" class="copy-code" aria-label="Copy code">Copy</button></div><pre><code"#,
    );
    if !lang.is_empty() {
        html.push_str(r#" class="language-"#);
        push_escaped(&mut html, lang);
        html.push('"');
    }
    html.push('>');
    html
}

/// The language label of a fence info string: its first word (up to whitespace or `,`), or `""`
/// if that word is longer than [`MAX_LANG_LEN`] or has a character outside `[A-Za-z0-9_+#.-]`.
fn code_lang<'a>(info: &'a CowStr<'_>) -> &'a str {
    let word = info
        .split(|c: char| c.is_whitespace() || c == ',')
        .next()
        .unwrap_or("");
    let valid = word.len() <= MAX_LANG_LEN
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'.' | b'-'));
    if valid {
        word
    } else {
        ""
    }
}

/// An upper bound on the empty cells GFM table parsing could add to `markdown`.
///
/// A table starts where a delimiter row follows its header; after the container prefix
/// (`>` markers and indentation) a delimiter row holds only ` `, `:`, `-` and `|`, with at least
/// one `|` and one `-`, and its column count is computed below exactly as the parser does. The
/// table's rows end at the next blank line at the latest, and each row has at least one cell of
/// its own, so it is padded with at most (columns − 1) cells. Summing that, over every line, for
/// all delimiter-like lines since the last blank line bounds the padding. Overestimates only
/// cost tables (they get disabled), never safety.
fn table_padding_bound(markdown: &str) -> u64 {
    let mut bound: u64 = 0;
    let mut open_padding: u64 = 0;
    // Line endings are `\n`, `\r\n` and `\r`, as in CommonMark.
    let lines = markdown
        .split('\n')
        .flat_map(|line| line.strip_suffix('\r').unwrap_or(line).split('\r'));
    for line in lines {
        if line.bytes().all(|b| b == b' ' || b == b'\t') {
            open_padding = 0;
            continue;
        }
        bound = bound.saturating_add(open_padding);
        if let Some(columns) = delimiter_columns(line) {
            open_padding = open_padding.saturating_add(columns.saturating_sub(1));
        }
    }
    bound
}

/// The column count of `line` if it could be a table delimiter row (possibly after container
/// prefixes), counted like pulldown-cmark's `scan_table_head`: a leading `|` is skipped, every
/// other `|` closes a column, and non-space text after the last `|` is one more column.
fn delimiter_columns(line: &str) -> Option<u64> {
    let row = line.trim_start_matches([' ', '\t', '>']);
    let valid = row.contains('|')
        && row.contains('-')
        && row
            .bytes()
            .all(|b| matches!(b, b'|' | b'-' | b':' | b' ' | b'\t'));
    if !valid {
        return None;
    }
    let row = row.strip_prefix('|').unwrap_or(row);
    let pipes = row.bytes().filter(|&b| b == b'|').count() as u64;
    let tail = row.rsplit('|').next().unwrap_or("");
    let trailing = u64::from(tail.bytes().any(|b| b != b' ' && b != b'\t'));
    Some(pipes + trailing)
}

#[cfg(test)]
mod tests {
    #[test]
    fn streamed_replies_are_cut_between_top_level_blocks() {
        use super::stream_cut;
        // (text, from, the cut): `|` in the text marks where the cut should be.
        let cases = [
            ("One.\n\n|Two.\n", 0),
            ("One.\n\n|Two.\n\nThree", 0),
            // Only complete lines count: the last line may still grow.
            ("One.\n\nTw", 0),
            // Never inside a fence, even across blank lines; after it, yes.
            ("|```rust\nfn a() {}\n\nfn b() {}\n", 0),
            ("Text.\n\n|```rust\nfn a() {}\n\nfn b() {}\n```\n", 0),
            (
                "Text.\n\n```rust\nfn a() {}\n\nfn b() {}\n```\n\n|After.\n",
                0,
            ),
            ("Text.\n\n~~~~\n```\n\nstill code\n~~~~\n\n|After.\n", 0),
            // A fence closes only with its own character, at least as long.
            ("Text.\n\n|````\n```\n\nx\n", 0),
            // Never before a list item or an indented line.
            ("Intro:\n\n- a\n\n- b\n\n  more of b\n", 0),
            ("1. a\n\n2) b\n\n10. c\n", 0),
            ("Text.\n\n    code\n\n|Para.\n", 0),
            // `-1` and `**bold**` are not list items.
            ("A.\n\n-1 degrees\n\n|**bold**\n", 0),
            // Read from an earlier cut on.
            ("One.\n\n|Two.\n", 6),
            ("One.\n\nTwo.\n\n|Three.\n", 6),
            ("再见。\n\n|你好 🙂\n", 0),
            // A backtick in a backtick fence's info string: not a fence, so the fence after
            // it opens (it does not close one).
            ("Text.\n\n``` a`b\n\n|```\ncode\n\nmore code\n", 0),
            // Only spaces and tabs make a line blank; CRLF line ends count as line ends.
            ("Para\n\u{3000}\nNext\n", 0),
            ("One.\r\n\r\n|Two.\r\n", 0),
            ("A.\r\n\r\n-\r\n\r\n|B.\r\n", 0),
        ];
        for (marked, from) in cases {
            let want = marked.find('|').unwrap_or(from);
            let want = if marked.contains('|') { want } else { from };
            let text = marked.replace('|', "");
            assert_eq!(stream_cut(&text, from), want, "{marked:?}");
            assert!(text.is_char_boundary(stream_cut(&text, from)));
        }
    }

    proptest::proptest! {
        /// Cutting piece by piece as a reply grows ends where cutting it whole ends, and every
        /// cut is at a line start, never inside a fence.
        #[test]
        fn cuts_as_it_grows_match_cutting_it_whole(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "word ", "\n", "\n\n", "```\n", "~~~\n", "- ", "1. ", "    ", "中文", "🙂", "`", "~",
                ]),
                0..80,
            ),
            step in 1usize..12,
        ) {
            let text: String = parts.concat();
            let mut cut = 0;
            let mut end = 0;
            while end < text.len() {
                end = (end + step).min(text.len());
                while !text.is_char_boundary(end) { end += 1; }
                cut = super::stream_cut(&text[..end], cut);
                proptest::prop_assert!(cut == 0 || text.as_bytes()[cut - 1] == b'\n');
            }
            proptest::prop_assert_eq!(cut, super::stream_cut(&text, 0));
        }
    }

    #[test]
    fn code_blocks_are_never_closed_by_their_text() {
        let cases = [
            ("{}", "```json\n{}\n```"),
            ("{\"a\": \"``` x\"}", "````json\n{\"a\": \"``` x\"}\n````"),
            ("`````", "``````json\n`````\n``````"),
        ];
        for (text, want) in cases {
            assert_eq!(super::code_block("json", text), want, "{text}");
        }
    }

    use super::*;
    use proptest::prelude::*;

    /// Elements that must never appear: they run script, fetch on render, or change the page.
    const FORBIDDEN_TAGS: &[&str] = &[
        "script",
        "img",
        "iframe",
        "svg",
        "math",
        "style",
        "link",
        "meta",
        "base",
        "object",
        "embed",
        "form",
        "input",
        "video",
        "audio",
        "source",
        "picture",
        "noscript",
        "details",
        "frame",
        "frameset",
        "template",
        "textarea",
        "select",
        "applet",
        "track",
        "area",
        "body",
        "html",
        "head",
        "title",
        "xmp",
        "plaintext",
        "dialog",
    ];

    /// The only elements render may produce.
    const ALLOWED_TAGS: &[&str] = &[
        "p",
        "em",
        "strong",
        "del",
        "a",
        "code",
        "pre",
        "div",
        "span",
        "button",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "ul",
        "ol",
        "li",
        "blockquote",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "br",
        "hr",
        "sup",
        "sub",
        "dl",
        "dt",
        "dd",
    ];

    /// The only attributes render may produce.
    const ALLOWED_ATTRS: &[&str] = &[
        "href",
        "rel",
        "target",
        "title",
        "class",
        "type",
        "aria-label",
        "role",
        "start",
        "aria-expanded",
    ];

    /// Attributes whose value is a URL the browser may load or navigate to.
    const URL_ATTRS: &[&str] = &[
        "href",
        "src",
        "action",
        "formaction",
        "data",
        "poster",
        "background",
        "xlink:href",
        "cite",
        "ping",
    ];

    /// A few characters either side of `at`, for failure messages.
    fn around(html: &str, at: usize) -> String {
        let start = html.floor_char_boundary(at.saturating_sub(60));
        let end = html.ceil_char_boundary((at + 60).min(html.len()));
        html[start..end].to_owned()
    }

    /// Asserts the safety invariants on rendered HTML, without an HTML parser: since all text is
    /// escaped, every literal `<` starts a tag, and each tag is scanned attribute by attribute.
    fn assert_safe(html: &str) {
        let bytes = html.as_bytes();
        let len = bytes.len();
        let mut i = 0;
        while i < len {
            if bytes[i] != b'<' {
                i += 1;
                continue;
            }
            let tag_start = i;
            i += 1;
            let closing = bytes.get(i) == Some(&b'/');
            if closing {
                i += 1;
            }
            let name_start = i;
            while i < len && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let name = html[name_start..i].to_ascii_lowercase();
            let ctx = || around(html, tag_start);
            assert!(
                !name.is_empty(),
                "literal '<' that is not a tag: {:?}",
                ctx()
            );
            assert!(
                !FORBIDDEN_TAGS.contains(&name.as_str()),
                "forbidden <{name}>: {:?}",
                ctx()
            );
            assert!(
                ALLOWED_TAGS.contains(&name.as_str()),
                "unexpected <{name}>: {:?}",
                ctx()
            );
            let mut attrs: Vec<(String, Option<&str>)> = Vec::new();
            loop {
                while i < len && bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                match bytes.get(i) {
                    None => panic!("unterminated tag: {:?}", ctx()),
                    Some(b'>') => {
                        i += 1;
                        break;
                    }
                    Some(b'/') if bytes.get(i + 1) == Some(&b'>') => {
                        i += 2;
                        break;
                    }
                    _ => {}
                }
                assert!(!closing, "attributes on a closing tag: {:?}", ctx());
                let attr_start = i;
                while i < len
                    && !bytes[i].is_ascii_whitespace()
                    && !matches!(bytes[i], b'=' | b'>' | b'/')
                {
                    i += 1;
                }
                let attr = html[attr_start..i].to_ascii_lowercase();
                assert!(!attr.is_empty(), "junk inside tag: {:?}", ctx());
                let mut value = None;
                if bytes.get(i) == Some(&b'=') {
                    i += 1;
                    match bytes.get(i) {
                        Some(&quote @ (b'"' | b'\'')) => {
                            i += 1;
                            let value_start = i;
                            while i < len && bytes[i] != quote {
                                i += 1;
                            }
                            assert!(i < len, "unterminated attribute value: {:?}", ctx());
                            value = Some(&html[value_start..i]);
                            i += 1;
                        }
                        _ => {
                            let value_start = i;
                            while i < len && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                                i += 1;
                            }
                            value = Some(&html[value_start..i]);
                        }
                    }
                }
                assert!(!attr.starts_with("on"), "event handler {attr}: {:?}", ctx());
                for banned in ["style", "srcset", "poster", "srcdoc", "id", "name"] {
                    assert_ne!(attr, banned, "banned attribute: {:?}", ctx());
                }
                assert!(
                    ALLOWED_ATTRS.contains(&attr.as_str()),
                    "unexpected attribute {attr}: {:?}",
                    ctx()
                );
                if URL_ATTRS.contains(&attr.as_str()) {
                    let url = value.unwrap_or("").to_ascii_lowercase();
                    assert!(
                        url.starts_with("https://")
                            || url.starts_with("http://")
                            || url.starts_with("mailto:"),
                        "disallowed URL in {attr}: {:?}",
                        ctx()
                    );
                }
                attrs.push((attr, value));
            }
            if name == "a" && !closing {
                let get = |key: &str| attrs.iter().find(|(k, _)| k == key).and_then(|(_, v)| *v);
                assert!(get("href").is_some(), "<a> without href: {:?}", ctx());
                assert_eq!(
                    get("rel"),
                    Some("noopener noreferrer nofollow"),
                    "{:?}",
                    ctx()
                );
                assert_eq!(get("target"), Some("_blank"), "{:?}", ctx());
            }
        }
    }

    /// Asserts the exact rendering of `input` (and that it is safe).
    fn check(input: &str, expected: &str) {
        let html = render(input);
        assert_eq!(html, expected, "input: {input:?}");
        assert_safe(&html);
    }

    const COPY: &str =
        r#"<button type="button" class="copy-code" aria-label="Copy code">Copy</button>"#;

    #[test]
    fn formulas_in_a_message_shown_as_typed_are_marked_and_nothing_else_changes() {
        const M: &str = r#"<span class="md-math">"#;
        const D: &str = r#"<span class="md-math md-display">"#;
        let cases = [
            (
                "What is \\(\\frac{a}{b}\\)?",
                format!("What is {M}\\frac{{a}}{{b}}</span>?"),
            ),
            ("$x$ and $$y$$", format!("{M}x</span> and {D}y</span>")),
            ("\\[\na\n\\]", format!("{D}\na\n</span>")),
            // Markdown is not rendered; markup is text.
            (
                "**$5** and *$10* <b>x</b>",
                "**$5** and *$10* &lt;b&gt;x&lt;/b&gt;".to_string(),
            ),
            ("From $5-$10", "From $5-$10".to_string()),
            ("`$x$` stays", "`$x$` stays".to_string()),
            ("no formula", "no formula".to_string()),
            ("# Title\n\n- $x$", format!("# Title\n\n- {M}x</span>")),
            // Everything but a formula exactly as typed.
            (
                "<div>\\(x\\)</div>",
                "&lt;div&gt;\\(x\\)&lt;/div&gt;".to_string(),
            ),
            (
                "see <http://x/\\(a\\)>",
                "see &lt;http://x/\\(a\\)&gt;".to_string(),
            ),
            (
                "\\(a\\) then `\\(b\\)` then \\( c \\) and $d$",
                format!("{M}a</span> then `\\(b\\)` then {M}c</span> and {M}d</span>"),
            ),
            ("PATH=$PATH:$HOME/bin", "PATH=$PATH:$HOME/bin".to_string()),
        ];
        for (text, want) in cases {
            assert_eq!(plain_with_math(text), want, "{text:?}");
            assert_safe(&plain_with_math(text));
        }
    }

    #[test]
    fn a_mermaid_block_is_marked_for_drawing_with_its_source_one_click_away() {
        let html = render("```mermaid\ngraph TD; A-->B\n```");
        assert!(html.starts_with(r#"<div class="code-block md-mermaid"><div class="code-head"><span class="code-lang">mermaid</span><button type="button" class="source-code" aria-expanded="true">Source</button>"#), "{html}");
        assert!(
            html.contains("<code class=\"language-mermaid\">graph TD; A--&gt;B\n</code>"),
            "{html}"
        );
        assert_safe(&html);
        for other in ["```js\nx\n```", "```html\nx\n```", "```\nx\n```"] {
            assert!(!render(other).contains("md-mermaid"), "{other}");
        }
    }

    #[test]
    fn html_and_svg_code_blocks_offer_a_preview() {
        const P: &str =
            r#"<button type="button" class="preview-code" aria-expanded="false">Preview</button>"#;
        for (lang, preview) in [
            ("html", true),
            ("SVG", true),
            ("js", false),
            ("", false),
            ("xhtml", false),
        ] {
            let html = render(&format!("```{lang}\n<p>x</p>\n```"));
            assert_eq!(html.contains(P), preview, "{lang}: {html}");
            assert_safe(&html);
        }
    }

    #[test]
    fn formulas_are_marked_for_typesetting_and_nothing_else_is() {
        const M: &str = r#"<span class="md-math">"#;
        const D: &str = r#"<span class="md-math md-display">"#;
        // (markdown, the rendered HTML)
        let cases = [
            ("$x^2$", format!("<p>{M}x^2</span></p>\n")),
            ("$$\\int_0^1 x\\,dx$$", format!("<p>{D}\\int_0^1 x\\,dx</span></p>\n")),
            // LaTeX's own delimiters, as models write them.
            ("\\(a_1 * b_2\\)", format!("<p>{M}a_1 * b_2</span></p>\n")),
            ("\\( \\frac{1}{2} \\)", format!("<p>{M}\\frac{{1}}{{2}}</span></p>\n")),
            ("\\[\nx = \\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}\n\\]", format!("<p>{D}\nx = \\begin{{pmatrix}}1&amp;2\\\\3&amp;4\\end{{pmatrix}}\n</span></p>\n")),
            ("面积是\\(\\pi r^2\\)。", format!("<p>面积是{M}\\pi r^2</span>。</p>\n")),
            // Escaped markup stays text inside a formula.
            ("$a<b>c$", format!("<p>{M}a&lt;b&gt;c</span></p>\n")),
            // Prices stay text.
            ("It costs $5 and $10.", "<p>It costs $5 and $10.</p>\n".to_string()),
            ("From $5-$10 a month", "<p>From $5-$10 a month</p>\n".to_string()),
            ("价格是$5，另一个是$10。", "<p>价格是$5，另一个是$10。</p>\n".to_string()),
            ("$5,000 to $6,000", "<p>$5,000 to $6,000</p>\n".to_string()),
            // Markup between two prices is still markup.
            (
                "Basic is $5 a month, **Pro** is more ($10).",
                "<p>Basic is $5 a month, <strong>Pro</strong> is more ($10).</p>\n".to_string(),
            ),
            ("Was $5 &amp; now *cheap* ($4)", "<p>Was $5 &amp; now <em>cheap</em> ($4)</p>\n".to_string()),
            // Shell variables are not formulas; `$n$th` is.
            ("PATH=$PATH:$HOME/bin", "<p>PATH=$PATH:$HOME/bin</p>\n".to_string()),
            ("Copy $SRC/$DST now", "<p>Copy $SRC/$DST now</p>\n".to_string()),
            ("the $n$th term", format!("<p>the {M}n</span>th term</p>\n")),
            // `\(x\)5` stays as written.
            ("\\(x\\)5 apples", "<p>(x)5 apples</p>\n".to_string()),
            // Not in link targets, autolinks, raw HTML or code in a quote.
            (
                "[Foo](https://en.wikipedia.org/wiki/Foo_\\(bar\\))",
                format!("<p><a href=\"https://en.wikipedia.org/wiki/Foo_(bar)\" {REL}>Foo</a></p>\n"),
            ),
            ("<div>\\(x\\)</div>", "<p class=\"md-raw-html\">&lt;div&gt;\\(x\\)&lt;/div&gt;</p>\n".to_string()),
            (
                "> ~~~\n> echo \\(x\\)\n> ~~~",
                format!("<blockquote>\n<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\"></span>{COPY}</div><pre><code>echo \\(x\\)\n</code></pre></div>\n</blockquote>\n"),
            ),
            // A code span ends a pair's search.
            ("Use \\( to open and `\\)` to close.", "<p>Use ( to open and <code>\\)</code> to close.</p>\n".to_string()),
            // A list item's second paragraph is prose, not code.
            ("- \\(x\\)\n\n    \\(y\\)", format!("<ul>\n<li>\n<p>{M}x</span></p>\n<p>{M}y</span></p>\n</li>\n</ul>\n")),
            // Never inside code.
            ("`$x$` and `\\(y\\)`", "<p><code>$x$</code> and <code>\\(y\\)</code></p>\n".to_string()),
            ("```\n\\(y\\) $x$\n```", format!("<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\"></span>{COPY}</div><pre><code>\\(y\\) $x$\n</code></pre></div>\n")),
            ("Text\n\n    \\(y\\)\n", format!("<p>Text</p>\n<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\"></span>{COPY}</div><pre><code>\\(y\\)\n</code></pre></div>\n")),
            // An escaped backslash, an unclosed pair, an empty one and one across a blank line
            // are not formulas.
            ("\\\\(x\\)", "<p>\\(x)</p>\n".to_string()),
            ("\\(x", "<p>(x</p>\n".to_string()),
            ("\\( \\)", "<p>( )</p>\n".to_string()),
            ("\\(x\n\ny\\)", "<p>(x</p>\n<p>y)</p>\n".to_string()),
            // Hidden characters: shown as the source, marked.
            ("$a\u{202E}b$", "<p><code>$a<span class=\"md-hidden\" role=\"img\" aria-label=\"U+202E\" title=\"Hidden character U+202E (right-to-left override)\">\u{202E}</span>b$</code></p>\n".to_string()),
        ];
        for (markdown, want) in cases {
            check(markdown, &want);
        }
        // Many unclosed delimiters: each paragraph is searched once (this took seconds when
        // every `\(` searched to the paragraph's end).
        let unclosed = "\\( ".repeat(45_000);
        assert!(render(&unclosed).starts_with("<p>( ( ("));
        assert!(plain_with_math(&unclosed).starts_with("\\( \\( "));
        // A formula too long to typeset is shown as code.
        let long = format!("${}$", "x+".repeat(2_500) + "x");
        assert!(
            render(&long).starts_with("<p><code>$x+x+"),
            "{}",
            &render(&long)[..40]
        );
    }
    const REL: &str = r#"rel="noopener noreferrer nofollow" target="_blank""#;

    #[test]
    fn renders_simple_markdown_exactly() {
        let cases: Vec<(&str, String)> = vec![
            ("Hello", "<p>Hello</p>\n".into()),
            ("", String::new()),
            ("line one\nline two", "<p>line one<br />\nline two</p>\n".into()),
            (
                "*a* **b** ~~c~~ `<d>`",
                "<p><em>a</em> <strong>b</strong> <del>c</del> <code>&lt;d&gt;</code></p>\n"
                    .into(),
            ),
            ("# Title {#id .cls}", "<h1>Title {#id .cls}</h1>\n".into()),
            ("a & b < c > d \"e\"", "<p>a &amp; b &lt; c &gt; d \"e\"</p>\n".into()),
            // Named entities (the parser's table, vendor/pulldown-cmark), first and last of
            // it, two characters, one that decodes to `;`; unknown names and code stay as written.
            (
                "&AElig; &copy; &fjlig; &NotNestedGreaterGreater; &semi; &zwnj;| &bogus; `&copy;`",
                "<p>\u{C6} \u{A9} fj \u{2AA2}\u{338} ; \u{200C}| &amp;bogus; <code>&amp;copy;</code></p>\n"
                    .into(),
            ),
            ("- one\n- two", "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n".into()),
            ("> quote", "<blockquote>\n<p>quote</p>\n</blockquote>\n".into()),
            (
                "- [x] done\n- [ ] todo",
                "<ul>\n<li><span class=\"md-task md-task-done\" role=\"img\" aria-label=\"Done\">☑</span> done</li>\n\
                 <li><span class=\"md-task\" role=\"img\" aria-label=\"Not done\">☐</span> todo</li>\n</ul>\n"
                    .into(),
            ),
            (
                "```rust\nlet a = 1 < 2 && \"x\";\n```",
                format!(
                    "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\">rust</span>{COPY}</div>\
                     <pre><code class=\"language-rust\">let a = 1 &lt; 2 &amp;&amp; \"x\";\n</code></pre></div>\n"
                ),
            ),
            (
                "```c++ extra words\nx\n```",
                format!(
                    "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\">c++</span>{COPY}</div>\
                     <pre><code class=\"language-c++\">x\n</code></pre></div>\n"
                ),
            ),
            (
                "```\nplain\n```",
                format!(
                    "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\"></span>{COPY}</div>\
                     <pre><code>plain\n</code></pre></div>\n"
                ),
            ),
            (
                "    indented <b>\n",
                format!(
                    "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\"></span>{COPY}</div>\
                     <pre><code>indented &lt;b&gt;\n</code></pre></div>\n"
                ),
            ),
            (
                "| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |",
                "<table><thead><tr><th class=\"md-align-left\">a</th><th class=\"md-align-center\">b</th>\
                 <th class=\"md-align-right\">c</th></tr></thead><tbody>\n\
                 <tr><td class=\"md-align-left\">1</td><td class=\"md-align-center\">2</td>\
                 <td class=\"md-align-right\">3</td></tr>\n</tbody></table>\n"
                    .into(),
            ),
            (
                "| a | b |\n|---|---|\n| 1 |",
                "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody>\n\
                 <tr><td>1</td><td></td></tr>\n</tbody></table>\n"
                    .into(),
            ),
            (
                "[site](https://a.test/x?y=1&z=2)",
                format!("<p><a href=\"https://a.test/x?y=1&amp;z=2\" {REL}>site</a></p>\n"),
            ),
            (
                "[t](HTTP://A.TEST \"it's \\\"q\\\"\")",
                format!("<p><a href=\"HTTP://A.TEST\" {REL} title=\"it&#39;s &quot;q&quot;\">t</a></p>\n"),
            ),
            (
                "[sp](<https://a.test/a b'c>)",
                format!("<p><a href=\"https://a.test/a%20b&#39;c\" {REL}>sp</a></p>\n"),
            ),
            (
                "<https://a.test> <me@x.test>",
                format!(
                    "<p><a href=\"https://a.test\" {REL}>https://a.test</a> \
                     <a href=\"mailto:me@x.test\" {REL}>me@x.test</a></p>\n"
                ),
            ),
            (
                "[mail](mailto:me@x.test)",
                format!("<p><a href=\"mailto:me@x.test\" {REL}>mail</a></p>\n"),
            ),
            ("[bad *x*](javascript:alert(1))", "<p>bad <em>x</em></p>\n".into()),
            ("[rel](/relative) [frag](#top)", "<p>rel frag</p>\n".into()),
            ("[r][1]\n\n[1]: ftp://a.test", "<p>r</p>\n".into()),
            (
                "![a <b> \"c\"](https://i.test/p.png)",
                format!(
                    "<p><span class=\"md-image-blocked\" title=\"Image not loaded\">🖼 Image: a &lt;b&gt; &quot;c&quot;</span> \
                     <a href=\"https://i.test/p.png\" {REL}>https://i.test/p.png</a></p>\n"
                ),
            ),
            (
                "![*x* `y`][r]\n\n[r]: https://i.test/r.png",
                format!(
                    "<p><span class=\"md-image-blocked\" title=\"Image not loaded\">🖼 Image: x y</span> \
                     <a href=\"https://i.test/r.png\" {REL}>https://i.test/r.png</a></p>\n"
                ),
            ),
            (
                "![](data:image/png;base64,AAAA)",
                "<p><span class=\"md-image-blocked\" title=\"Image not loaded\">🖼 Image</span></p>\n"
                    .into(),
            ),
            (
                "[![logo](https://i.test/l.png)](https://l.test)",
                format!(
                    "<p><a href=\"https://l.test\" {REL}><span class=\"md-image-blocked\" \
                     title=\"Image not loaded\">🖼 Image: logo</span></a></p>\n"
                ),
            ),
            (
                "<div onclick=\"x()\">\nhi\n</div>",
                "<p class=\"md-raw-html\">&lt;div onclick=\"x()\"&gt;\nhi\n&lt;/div&gt;</p>\n".into(),
            ),
            ("a <b>bold</b>", "<p>a &lt;b&gt;bold&lt;/b&gt;</p>\n".into()),
            // Footnotes are off: `[^1]: note` is a link reference definition to the relative URL
            // `note`, so the reference renders as its text.
            ("a[^1]\n\n[^1]: note", "<p>a^1</p>\n".into()),
            ("a[^1] b", "<p>a[^1] b</p>\n".into()),
        ];
        for (input, expected) in &cases {
            check(input, expected);
        }
    }

    #[test]
    fn oversized_input_is_escaped_plain_text() {
        let input = format!(
            "{}<script>alert('x')</script>",
            "# a\n".repeat(MAX_MARKDOWN_BYTES / 4)
        );
        assert!(input.len() > MAX_MARKDOWN_BYTES);
        let html = render(&input);
        assert!(html.starts_with("<pre class=\"md-plain\"># a\n# a\n"));
        assert!(html.ends_with("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</pre>\n"));
        assert_safe(&html);
        // Exactly at the limit it is still markdown.
        let at_limit = "a".repeat(MAX_MARKDOWN_BYTES);
        assert!(render(&at_limit).starts_with("<p>"));
    }

    #[test]
    fn allowed_url_accepts_only_absolute_web_and_mailto() {
        let allowed = [
            ("https://a.test", "https://a.test", Scheme::Web),
            ("HtTpS://a.test/p?q#f", "HtTpS://a.test/p?q#f", Scheme::Web),
            ("http://a.test", "http://a.test", Scheme::Web),
            ("  \u{1}https://a.test \n", "https://a.test", Scheme::Web),
            ("ht\ttp\ns://a.test", "https://a.test", Scheme::Web),
            ("mailto:me@x.test", "mailto:me@x.test", Scheme::Mailto),
        ];
        for (dest, url, scheme) in allowed {
            assert_eq!(
                allowed_url(dest, LinkType::Inline),
                Some((url.to_owned(), scheme)),
                "{dest:?}"
            );
        }
        assert_eq!(
            allowed_url("me@x.test", LinkType::Email),
            Some(("mailto:me@x.test".to_owned(), Scheme::Mailto))
        );
        let rejected = [
            "",
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            "\u{0}javascript:alert(1)",
            "vbscript:msgbox(1)",
            "data:text/html,x",
            "file:///etc/passwd",
            "//attacker.test",
            "/relative",
            "relative/path",
            "#fragment",
            "?query",
            "https:relative",
            "https:/relative",
            "\u{a0}https://a.test",
            "%68ttps://a.test",
            "https\u{200b}://a.test",
        ];
        for dest in rejected {
            assert_eq!(allowed_url(dest, LinkType::Inline), None, "{dest:?}");
        }
    }

    #[test]
    fn delimiter_columns_matches_the_parser() {
        let rows = [
            ("|-|-|", 2),
            ("-|-", 2),
            ("|-", 1),
            ("-|", 1),
            ("| --- | :-: | --: |", 3),
            ("|-|-| ", 2),
            ("  | :-- |-", 2),
        ];
        for (row, columns) in rows {
            assert_eq!(delimiter_columns(row), Some(columns), "{row:?}");
            // The parser agrees: a header with that many cells makes a table of that width.
            let header = vec!["h"; columns as usize].join("|");
            let input = format!("|{header}|\n{row}\n");
            let widths: Vec<usize> = Parser::new_ext(&input, Options::ENABLE_TABLES)
                .filter_map(|event| match event {
                    Event::Start(Tag::Table(alignments)) => Some(alignments.len()),
                    _ => None,
                })
                .collect();
            assert_eq!(widths, vec![columns as usize], "{input:?}");
            assert_eq!(delimiter_columns(&format!("> > {row}")), Some(columns));
        }
        for row in ["| a |", "---", "1. |-|", "* |-|", "| -1 |", "|", ""] {
            assert_eq!(delimiter_columns(row), None, "{row:?}");
        }
    }

    #[test]
    fn code_lang_is_restricted() {
        let cases = [
            ("rust", "rust"),
            ("c++", "c++"),
            ("c#", "c#"),
            ("objective-c", "objective-c"),
            ("rust,ignore", "rust"),
            ("python title=\"x\"", "python"),
            ("\"><script>alert(1)</script>", ""),
            ("a'b", ""),
            ("é", ""),
            ("", ""),
            (&"a".repeat(33), ""),
        ];
        for (info, lang) in cases {
            assert_eq!(code_lang(&CowStr::from(info)), lang, "{info:?}");
        }
        assert_eq!(code_lang(&CowStr::from("a".repeat(32))), "a".repeat(32));
    }

    #[test]
    fn table_padding_bound_counts_rows_until_blank_line() {
        assert_eq!(table_padding_bound(""), 0);
        // Two columns, two body rows: at most one padding cell each.
        assert_eq!(
            table_padding_bound("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 |"),
            2
        );
        assert_eq!(table_padding_bound("| a | b |\n|---|---|\n\n| 1 |"), 0);
        // `\r\n` and `\r` line endings, inside a block quote.
        assert_eq!(table_padding_bound("> a|b|c\r\n> -|-|-\r\n> 1\r2\n"), 4);
        assert_eq!(table_padding_bound("---\ntext\n"), 0);
        // Numeric rows (even with minus signs) are not delimiter rows.
        let numbers = format!("|a|b|c|\n|-|-|-|\n{}", "| -1 | 2 | -3 |\n".repeat(2000));
        assert_eq!(table_padding_bound(&numbers), 2 * 2000);
        assert!(render(&numbers).starts_with("<table>"));
    }

    /// Asserts the output of pathological input is safe and at most linearly larger.
    fn check_pathological(name: &str, input: &str) {
        let html = render(input);
        assert_safe(&html);
        assert!(
            html.len() <= 32 * input.len() + 4096,
            "{name}: {} bytes in, {} bytes out",
            input.len(),
            html.len()
        );
    }

    #[test]
    fn pathological_inputs_render_bounded_and_safe() {
        let mut refs = String::new();
        for i in 0..3000 {
            refs.push_str(&format!("[r{i}]: https://a.test/{i} \"t{i}\"\n"));
        }
        for i in 0..3000 {
            refs.push_str(&format!("[x][r{i}] ![y][r{}] ", 2999 - i));
        }
        let long_ref = format!(
            "[r]: https://a.test/{}\n\n{}",
            "a".repeat(40_000),
            "![x][r]".repeat(8000)
        );
        let mut wide_tables = String::new();
        while wide_tables.len() < 150_000 {
            wide_tables.push_str(&"|a".repeat(512));
            wide_tables.push_str("|\n");
            wide_tables.push_str(&"|-".repeat(512));
            wide_tables.push_str("|\n");
            wide_tables.push_str(&"x\n".repeat(520));
            wide_tables.push('\n');
        }
        let cases: Vec<(&str, String)> = vec![
            ("[a](<b", "[a](<b".repeat(17_000)),
            ("[a](<b full size", "[a](<b".repeat(50_000)),
            ("[ (](", "[ (](".repeat(20_000)),
            ("CDATA", "a <![CDATA[".repeat(9_000)),
            ("!-- <", "!-- <".repeat(20_000)),
            ("<!--", "<!-- ".repeat(20_000)),
            ("many refs", refs),
            ("reference expansion", long_ref),
            ("unclosed [^", "[^".repeat(50_000)),
            ("unclosed [^ lines", "[^a\n".repeat(25_000)),
            ("brackets", "[".repeat(100_000)),
            ("image brackets", "![a](".repeat(20_000)),
            ("emphasis", "*a_".repeat(33_000)),
            ("backticks", "`a``".repeat(25_000)),
            ("blockquotes", ">".repeat(100_000)),
            (
                "nested lists",
                "- ".repeat(1000) + "\n" + &"  - a\n".repeat(10_000),
            ),
            ("html tags", "<a ".repeat(33_000)),
            ("wide tables", wide_tables),
            ("pipes", "|".repeat(100_000)),
            (
                "table rows",
                format!("|a|b|\n|-|-|\n{}", "|x\n".repeat(30_000)),
            ),
            ("code fences", "```\n".repeat(25_000)),
            ("autolinks", "<https://a.test/".repeat(6_000)),
        ];
        for (name, input) in &cases {
            check_pathological(name, input);
        }
    }

    #[test]
    fn wide_table_padding_disables_tables() {
        let mut input = String::new();
        input.push_str(&"|a".repeat(512));
        input.push_str("|\n");
        input.push_str(&"|-".repeat(512));
        input.push_str("|\n");
        input.push_str(&"x\n".repeat(200));
        assert!(table_padding_bound(&input) > MAX_TABLE_PADDING);
        let html = render(&input);
        assert!(!html.contains("<table>"));
        assert_safe(&html);
        // A normal table is still a table.
        assert!(render("|a|b|\n|-|-|\n|1|2|").starts_with("<table>"));
    }

    /// XSS payloads: raw HTML, dangerous URLs, attribute breakouts and parser-confusion combos.
    const XSS_PAYLOADS: &[&str] = &[
        "<script>alert(1)</script>",
        "<SCRIPT SRC=https://attacker.test/x.js></SCRIPT>",
        "<img src=x onerror=alert(1)>",
        "<svg onload=alert(1)>",
        "<svg><script>alert(1)</script></svg>",
        "<iframe src=javascript:alert(1)>",
        "<iframe srcdoc=\"<script>alert(1)</script>\">",
        "<details open ontoggle=alert(1)>",
        "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
        "<a href=\"javascript:alert(1)\">x</a>",
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](java&#x09;script:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](&#x6A;&#x61;vascript:alert(1))",
        "[x]( javascript:alert(1))",
        "[x](<javascript:alert(1)>)",
        "[x](javascript&colon;alert(1))",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "![x](data:image/svg+xml,<svg onload=alert(1)>)",
        "![x](https://attacker.test/p.png?q=SECRET)",
        "![x][r]\n\n[r]: https://attacker.test/x.png",
        "[x][r]\n\n[r]: javascript:alert(1)",
        "<img srcset=\"https://attacker.test/x.png 1x\">",
        "<picture><source srcset=https://attacker.test/x.png></picture>",
        "<video poster=https://attacker.test/x.png>",
        "<input type=image src=https://attacker.test/x.png>",
        "<div style=\"background:url(https://attacker.test/x)\">x</div>",
        "<link rel=prefetch href=https://attacker.test/x>",
        "<meta http-equiv=refresh content=\"0;url=javascript:alert(1)\">",
        "<base href=//attacker.test/>",
        "<form action=https://attacker.test><button>go</button></form>",
        "<object data=https://attacker.test/x.swf>",
        "<embed src=https://attacker.test/x.swf>",
        "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
        "<style>@import url(//attacker.test/x.css)</style>",
        "[x](//attacker.test)",
        "[x](/relative)",
        "[x](https:attacker)",
        "<javascript:alert(1)>",
        "<JAVASCRIPT:alert(1)>",
        "```\"><script>alert(1)</script>\nx\n```",
        "~~~ x onmouseover=alert(1)\nx\n~~~",
        "[x](https://a.test \"\\\" onmouseover=alert(1) x=\\\"\")",
        "[x](https://a.test 'a\\' onmouseover=alert(1)')",
        "[x](<https://a.test/\" onmouseover=\"alert(1)>)",
        "<https://a.test/\"onmouseover=\"alert(1)>",
        "<a href=https://ok.test onclick=alert(1)>x</a>",
        "**<img src=x onerror=alert(1)>**",
        "*[x](javascript:alert(1))*",
        "> <script>alert(1)</script>",
        "- <iframe src=x>\n- [a](javascript:b)",
        "| <img src=x onerror=alert(1)> | b |\n|---|---|\n| <svg onload=alert(1)> | [x](javascript:y) |",
        "[<img src=x onerror=alert(1)>](https://a.test)",
        "![<img src=x onerror=alert(1)>](https://a.test/x.png)",
        "![x](https://a.test/\"onerror=\"alert(1))",
        "[![x](javascript:a)](javascript:b)",
        "<!-- --><script>alert(1)</script><!-- -->",
        "<![CDATA[<script>alert(1)</script>]]>",
        "<?php echo 1 ?><script>alert(1)</script>",
        "`<script>`<script>alert(1)</script>",
        "<scr<script>ipt>alert(1)</script>",
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "<textarea><script>alert(1)</script></textarea>",
        "<template><script>alert(1)</script></template>",
        "<x onpointerover=alert(1)>hover</x>",
        "[x](\u{0}javascript:alert(1))",
        "[x](\u{1}javascript:alert(1))",
        "- [x] <input type=checkbox onclick=alert(1)>",
        "# <h1 id=x onclick=alert(1)>",
        "Setext <b onclick=alert(1)>\n===",
        // Formulas: their source is text until the page typesets it (src/web/math.js).
        "$<script>alert(1)</script>$",
        "$$<img src=x onerror=alert(1)>$$",
        "\\(\\href{javascript:alert(1)}{x}\\)",
        "\\[\\url{javascript:alert(1)}\\]",
        "$\"><svg onload=alert(1)>$",
        "[$x$](javascript:alert(1))",
        "`$x$`<script>alert(1)</script>$y$",
    ];

    #[test]
    fn xss_corpus_is_neutralised() {
        assert!(XSS_PAYLOADS.len() >= 40);
        for payload in XSS_PAYLOADS {
            let html = render(payload);
            assert_safe(&html);
            // Also inside containers, tables and emphasis.
            for wrapped in [
                format!("> {payload}"),
                format!("- {payload}"),
                format!("| {payload} |\n|---|\n| {payload} |"),
                format!("*{payload}*"),
                format!("text\n{payload}\ntext"),
            ] {
                assert_safe(&render(&wrapped));
            }
        }
    }

    #[test]
    fn xss_payloads_render_as_text() {
        check(
            "<script>alert(1)</script>",
            "<p class=\"md-raw-html\">&lt;script&gt;alert(1)&lt;/script&gt;</p>\n",
        );
        check("[x](javascript:alert(1))", "<p>x</p>\n");
        check("[x](java&#x09;script:alert(1))", "<p>x</p>\n");
        // An autolink with a disallowed scheme renders as its text.
        check("<javascript:alert(1)>", "<p>javascript:alert(1)</p>\n");
        check(
            "```\"><script>alert(1)</script>\nx\n```",
            &format!(
                "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\"></span>{COPY}</div>\
                 <pre><code>x\n</code></pre></div>\n"
            ),
        );
        check(
            "[x](https://a.test \"\\\" onmouseover=alert(1) x=\\\"\")",
            &format!(
                "<p><a href=\"https://a.test\" {REL} title=\"&quot; onmouseover=alert(1) x=&quot;\">x</a></p>\n"
            ),
        );
        check(
            "![x](https://attacker.test/p.png?q=SECRET)",
            &format!(
                "<p><span class=\"md-image-blocked\" title=\"Image not loaded\">🖼 Image: x</span> \
                 <a href=\"https://attacker.test/p.png?q=SECRET\" {REL}>https://attacker.test/p.png?q=SECRET</a></p>\n"
            ),
        );
        check(
            "<https://a.test/\"onmouseover=\"alert(1)>",
            &format!(
                "<p><a href=\"https://a.test/%22onmouseover=%22alert(1)\" {REL}>https://a.test/\"onmouseover=\"alert(1)</a></p>\n"
            ),
        );
    }

    /// The payload families of the security review of #37, kept as a corpus of their own: they
    /// were found inert, and these keep them so. See: #37
    const REVIEW_PAYLOADS: &[&str] = &[
        // Entity-encoded schemes, every way the parser decodes them.
        "[x](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1))",
        "[x](&#x6a;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3a;alert(1))",
        "[x](&#0000106;avascript:alert(1))",
        "[x](javascript&#58;alert(1))",
        "[x](javascript&#x3A;alert(1))",
        "[x](&Tab;javascript:alert(1))",
        "[x](jav&#x0A;ascript:alert(1))",
        "[x](jav&NewLine;ascript&colon;alert(1))",
        "<&#106;avascript:alert(1)>",
        // Reference-style links and images whose definition is javascript: (or data:).
        "[x]\n\n[x]: javascript:alert(1)",
        "[x][]\n\n[x]: &#106;avascript:alert(1)",
        "![x][r]\n\n[r]: javascript:alert(1)",
        "![x][]\n\n[x]: <javascript:alert(1)> \"t\"",
        "![x]\n\n[x]: data:image/svg+xml,<svg/onload=alert(1)>",
        "[r]: data:text/html,<script>alert(1)</script>\n\n[x][r] ![y][r]",
        "[![a][i]][l]\n\n[i]: javascript:a\n[l]: javascript:b",
        "[x][r]\n\n[r]: \u{1}javascript:alert(1)",
        // <base href> and <meta refresh>, as blocks and inline.
        "<base href=\"https://attacker.test/\">",
        "<BASE HREF=javascript:alert(1)//>",
        "text <base href=https://attacker.test/> text",
        "<meta http-equiv=\"refresh\" content=\"0; url=https://attacker.test/\">",
        "a <meta http-equiv=refresh content=0;url=javascript:alert(1)> b",
        "<META HTTP-EQUIV=\"Set-Cookie\" CONTENT=\"x=1\">",
        // Title breakouts: `"` in every kind of link title.
        "[x](https://a.test \"a\\\" onmouseover=alert(1) \\\"\")",
        "[x](https://a.test 'x\" onmouseover=\"alert(1)')",
        "[x](https://a.test (x\" onmouseover=\"alert(1)))",
        "![x](https://a.test/p.png \"x\\\" onerror=alert(1) \\\"\")",
        "[x][r]\n\n[r]: https://a.test 'a\" onmouseover=\"alert(1)'",
        "[x][r]\n\n[r]: https://a.test\n  \"a\\\" onfocus=alert(1) autofocus \\\"\"",
        "[good.example](https://evil.example\"onmouseover=alert(1)/x)",
        "[good.example](<https://ev\"il.example/ onmouseover=x>)",
        // Fullwidth schemes and brackets.
        "[x](ｊａｖａｓｃｒｉｐｔ：alert(1))",
        "[x](ｊａｖａｓｃｒｉｐｔ:alert(1))",
        "<ｊａｖａｓｃｒｉｐｔ：alert(1)>",
        "＜script＞alert(1)＜/script＞",
        // Control characters inside and before schemes.
        "[x](java\tscript:alert(1))",
        "[x](<java\tscript:alert(1)>)",
        "[x](<java\nscript:alert(1)>)",
        "[x](java\u{0}script:alert(1))",
        "[x](\u{1}javascript:alert(1))",
        "[x](\u{1b}javascript:alert(1))",
        "[x](\u{7f}javascript:alert(1))",
        "[x](javascript\u{200b}:alert(1))",
        "[x](\u{202e}javascript:alert(1))",
        // Hidden characters next to markup.
        "```\n\u{202e}<script>alert(1)</script>\n```",
        "`\u{1b}<img src=x onerror=alert(1)>`",
        "[a\u{202e}<b>](https://a.test)",
    ];

    #[test]
    fn review_payload_families_are_neutralised() {
        for payload in REVIEW_PAYLOADS {
            let html = render(payload);
            assert_safe(&html);
            for wrapped in [
                format!("> {payload}"),
                format!("- {payload}"),
                format!("| {payload} |\n|---|\n| {payload} |"),
                format!("*{payload}*"),
                format!("text\n{payload}\ntext"),
            ] {
                assert_safe(&render(&wrapped));
            }
        }
        // Exactly: a title with `"` stays inside its attribute; a fullwidth scheme is no link.
        check(
            "[x](https://a.test 'x\" onmouseover=\"alert(1)')",
            &format!("<p><a href=\"https://a.test\" {REL} title=\"x&quot; onmouseover=&quot;alert(1)\">x</a></p>\n"),
        );
        check("[x](ｊａｖａｓｃｒｉｐｔ：alert(1))", "<p>x</p>\n");
        check("![x][r]\n\n[r]: javascript:alert(1)", "<p><span class=\"md-image-blocked\" title=\"Image not loaded\">🖼 Image: x</span></p>\n");
    }

    /// A reply arriving piece by piece is drawn as the app draws it: the blocks before the last
    /// cut ([`stream_cut`]) rendered once, the block still growing rendered again for every byte
    /// that arrives. Every piece rendered at every moment is safe on its own (each is assigned to
    /// `innerHTML` separately). See: #37
    #[test]
    fn payloads_split_across_stream_chunks_are_neutralised() {
        let reply = XSS_PAYLOADS
            .iter()
            .chain(REVIEW_PAYLOADS)
            .copied()
            .collect::<Vec<_>>()
            .join("\n\n");
        let mut cut = 0;
        let mut drawn = String::new();
        for end in (1..=reply.len()).filter(|&e| reply.is_char_boundary(e)) {
            let next = cut + stream_cut(&reply[cut..end], 0);
            if next > cut {
                let done = render(&reply[cut..next]);
                assert_safe(&done);
                drawn.push_str(&done);
                cut = next;
            }
            assert_safe(&render(&reply[cut..end]));
        }
        // The reply was drawn in many blocks, not as one.
        assert!(cut > reply.len() / 2, "cut at {cut} of {}", reply.len());
        assert_safe(&drawn);
    }

    #[test]
    fn a_link_whose_text_names_another_host_shows_the_real_one() {
        // See: #37
        check(
            "[good.example](https://evil.example)",
            &format!(
                "<p><a href=\"https://evil.example\" {REL}>good.example</a> \
                 <span class=\"md-real-host\" title=\"This link goes to evil.example\">(evil.example)</span></p>\n"
            ),
        );
        // (markdown, the host shown after the link, if any)
        let cases = [
            (
                "[https://good.example](http://other.example/x)",
                Some("other.example"),
            ),
            ("[good.example](https://evil.example)", Some("evil.example")),
            (
                "[www.good.example/login](https://evil.example/login)",
                Some("evil.example"),
            ),
            (
                "[Visit https://good.example today](https://evil.example)",
                Some("evil.example"),
            ),
            (
                "[Go to good.example.](https://evil.example)",
                Some("evil.example"),
            ),
            (
                "[https://good.example](https://good.example@evil.example/)",
                Some("evil.example"),
            ),
            (
                "[https://good.example](https://evil.example\\\\@good.example/)",
                Some("evil.example"),
            ),
            (
                "[https://good.example](https://evil.example:443/)",
                Some("evil.example"),
            ),
            (
                "[docs.good.example](https://good.example)",
                Some("good.example"),
            ),
            (
                "[good.example](https://good.example.evil.test)",
                Some("good.example.evil.test"),
            ),
            (
                "[good.example](https://evilgood.example)",
                Some("evilgood.example"),
            ),
            (
                "[good\u{200B}.example](https://evil.example)",
                Some("evil.example"),
            ),
            (
                "[`good.example`](https://evil.example)",
                Some("evil.example"),
            ),
            (
                "[**good**.example](https://evil.example)",
                Some("evil.example"),
            ),
            (
                "[中文.example](https://xn--fiq228c.example)",
                Some("xn--fiq228c.example"),
            ),
            ("[good.example](https://127.0.0.1/)", Some("127.0.0.1")),
            // The same place: case, a final dot, www., a subdomain of the host named, a port.
            ("[good.example](https://GOOD.example./x)", None),
            ("[good.example](https://www.good.example)", None),
            ("[www.good.example](https://good.example)", None),
            ("[good.example](https://docs.good.example/a)", None),
            (
                "[https://good.example:8443/x](https://good.example/y)",
                None,
            ),
            ("[http://[::1]/](http://[::1]:8080/)", None),
            ("<https://a.test/x>", None),
            // Texts that name no host.
            ("[site](https://evil.example)", None),
            ("[README.md](https://github.com/a/b)", None),
            ("[src/main.rs](https://github.com/a/b)", None),
            ("[version 1.5](https://a.test)", None),
            ("[me@good.example](https://evil.example)", None),
            ("[a//b](https://evil.example)", None),
            ("[good.example](mailto:x@evil.example)", None),
            ("[good.example](javascript:alert(1))", None),
        ];
        for (input, want) in cases {
            let html = render(input);
            assert_safe(&html);
            let shown = html
                .split_once("<span class=\"md-real-host\" title=\"This link goes to ")
                .map(|(_, rest)| rest.split('"').next().unwrap_or(""));
            assert_eq!(shown, want, "{input:?}: {html}");
        }
    }

    #[test]
    fn hidden_characters_in_code_and_links_are_shown() {
        // See: #37
        let mark = |point: &str, what: &str, c: char| {
            format!("<span class=\"md-hidden\" role=\"img\" aria-label=\"{point}\" title=\"Hidden character {point} ({what})\">{c}</span>")
        };
        let rlo = mark("U+202E", "right-to-left override", '\u{202E}');
        let esc = mark("U+001B", "escape", '\u{1b}');
        let zwsp = mark("U+200B", "zero-width space", '\u{200B}');
        let cases: Vec<(&str, String)> = vec![
            (
                "```sh\nrm -rf \u{202E}/ # safe\n```",
                format!(
                    "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\">sh</span>{COPY}</div>\
                     <pre><code class=\"language-sh\">rm -rf {rlo}/ # safe\n</code></pre></div>\n"
                ),
            ),
            (
                "    echo \u{1b}[2Kok <b>\n",
                format!(
                    "<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-lang\"></span>{COPY}</div>\
                     <pre><code>echo {esc}[2Kok &lt;b&gt;\n</code></pre></div>\n"
                ),
            ),
            ("`pay\u{200B}pal`", format!("<p><code>pay{zwsp}pal</code></p>\n")),
            (
                "[a\u{202E}b](https://a.test)",
                format!("<p><a href=\"https://a.test\" {REL}>a{rlo}b</a></p>\n"),
            ),
            // In a target: percent-encoded in the href, marked where the target is shown.
            (
                "[x](https://a.test/\u{202E}gpj.exe)",
                format!("<p><a href=\"https://a.test/%E2%80%AEgpj.exe\" {REL}>x</a></p>\n"),
            ),
            (
                "![x](https://a.test/\u{202E}gnp.p)",
                format!(
                    "<p><span class=\"md-image-blocked\" title=\"Image not loaded\">🖼 Image: x</span> \
                     <a href=\"https://a.test/%E2%80%AEgnp.p\" {REL}>https://a.test/{rlo}gnp.p</a></p>\n"
                ),
            ),
            // Prose and emoji sequences are left as they are.
            ("abc\u{200B}def", "<p>abc\u{200B}def</p>\n".into()),
            ("`👩\u{200D}💻`", "<p><code>👩\u{200D}💻</code></p>\n".into()),
        ];
        for (input, expected) in &cases {
            check(input, expected);
        }
    }

    #[test]
    fn assert_safe_rejects_unsafe_html() {
        let unsafe_html = [
            "<img src=x>",
            "<IMG SRC=x>",
            "<p onclick=\"x\">",
            "<p title=\"x\" onclick=x>",
            "<a href=\"javascript:x\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">",
            "<a href=\"/rel\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">",
            "<a href=\"https://a.test\">",
            "<p style=\"x\">",
            "<p class=\"a\" <img>",
            "<p",
            "a < b",
            "<!-- x -->",
            "<p title=\"x>",
            "<custom>",
        ];
        for html in unsafe_html {
            let result = std::panic::catch_unwind(|| assert_safe(html));
            assert!(result.is_err(), "assert_safe accepted {html:?}");
        }
        assert_safe("<p class=\"x\">a &lt; b</p><br /><a href=\"mailto:a@b\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">m</a>");
    }

    /// Fragments that combine into markdown/HTML-ish attack-shaped text.
    const ALPHABET: &[&str] = &[
        "<",
        ">",
        "\"",
        "'",
        "=",
        "[",
        "]",
        "(",
        ")",
        "!",
        ":",
        "/",
        "a",
        "b",
        "x",
        " ",
        "\n",
        "\t",
        "`",
        "```",
        "*",
        "_",
        "|",
        "-",
        "#",
        "&",
        ";",
        "\\",
        "script",
        "onerror",
        "onload",
        "javascript",
        "JaVaScRiPt",
        "img",
        "svg",
        "src",
        "href",
        "https",
        "mailto",
        "data",
        "&#106;",
        "&#x09;",
        "&colon;",
        "<!--",
        "-->",
        "<![CDATA[",
        "]]>",
        "<?",
        "?>",
        "> ",
        "- ",
        "    ",
        "[^",
        "|-|",
        "http://a.test",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1024))]

        #[test]
        fn render_is_safe_for_markup_soup(
            parts in proptest::collection::vec(proptest::sample::select(ALPHABET), 0..96)
        ) {
            let input = parts.concat();
            assert_safe(&render(&input));
        }

        #[test]
        fn render_is_safe_for_arbitrary_chars(
            chars in proptest::collection::vec(any::<char>(), 0..256)
        ) {
            let input: String = chars.into_iter().collect();
            assert_safe(&render(&input));
        }
    }
}
