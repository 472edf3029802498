//! ChatGPT's citation markers in a reply's text, made readable: each marker a citation of the
//! message names becomes a numbered Markdown link (`[1](https://…)`, one number per address, in
//! the order they first appear); a marker with no citation, or one without a web address, is
//! removed. Two shapes are known:
//! - `【6†source】` (and `【4:0†file.pdf】`), located by the message's `metadata.citations`
//!   (`start_ix`/`end_ix`, offsets in characters — Unicode scalar values, as Python counts them,
//!   not bytes or UTF-16 units; a citation whose offsets do not frame a marker is not used);
//! - `\u{e200}cite\u{e202}turn0search3\u{e201}` (private-use characters), matched by the
//!   `matched_text` of the message's `metadata.content_references`, whose `items` (or `url`)
//!   give the addresses.

use serde_json::Value;

const OPEN: char = '【';
const CLOSE: char = '】';
const NEW_OPEN: char = '\u{e200}';
const NEW_CLOSE: char = '\u{e201}';
/// The longest marker removed when no citation explains it, in characters.
const LONGEST: usize = 200;

/// A web address safe inside a Markdown link's parentheses, if `url` is one (http or https).
fn address(url: &str) -> Option<String> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("https://") || lower.starts_with("http://")) {
        return None;
    }
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    Some(out)
}

/// Numbers given to addresses, in order of first appearance.
#[derive(Default)]
struct Numbers(std::collections::HashMap<String, usize>);

impl Numbers {
    fn link(&mut self, url: &str) -> String {
        let next = self.0.len() + 1;
        let n = *self.0.entry(url.to_string()).or_insert(next);
        format!("[{n}]({url})")
    }
}

/// `text` with its citation markers replaced from `meta` (a message's `metadata`), and how many
/// markers became links and how many were removed.
pub fn cite(text: &str, meta: Option<&Value>) -> (String, usize, usize) {
    if !text.contains([OPEN, NEW_OPEN]) {
        return (text.to_string(), 0, 0);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut spans: Vec<(usize, usize, Option<String>)> = meta
        .and_then(|m| m.get("citations"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|c| {
            let start = usize::try_from(c.get("start_ix")?.as_u64()?).ok()?;
            let end = usize::try_from(c.get("end_ix")?.as_u64()?).ok()?;
            let framed = start < end
                && end <= chars.len()
                && matches!(chars[start], OPEN | NEW_OPEN)
                && matches!(chars[end - 1], CLOSE | NEW_CLOSE);
            let url = c
                .get("metadata")
                .and_then(|m| m.get("url"))
                .and_then(Value::as_str)
                .and_then(address);
            framed.then_some((start, end, url))
        })
        .collect();
    spans.sort_by_key(|s| s.0);
    let mut numbers = Numbers::default();
    let (mut linked, mut removed) = (0, 0);
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut spans = spans.into_iter().peekable();
    while i < chars.len() {
        // Spans that overlap one already used are dropped.
        while spans.peek().is_some_and(|s| s.0 < i) {
            spans.next();
        }
        match spans.peek() {
            Some((start, end, url)) if *start == i => {
                match url {
                    Some(u) => {
                        out.push_str(&numbers.link(u));
                        linked += 1;
                    }
                    None => removed += 1,
                }
                i = *end;
                spans.next();
            }
            _ => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    // The newer markers, by the text they match.
    let refs = meta
        .and_then(|m| m.get("content_references"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    // Each marker's addresses, by its text, in the order the references give them: one pass
    // over the text replaces each marker found (a hostile file's many references cost no more
    // than its text).
    let mut wanted: std::collections::HashMap<&str, std::collections::VecDeque<Vec<String>>> =
        std::collections::HashMap::new();
    for r in refs {
        let Some(matched) = r.get("matched_text").and_then(Value::as_str) else {
            continue;
        };
        if !matched.starts_with([OPEN, NEW_OPEN]) || !matched.ends_with([CLOSE, NEW_CLOSE]) {
            continue;
        }
        let urls: Vec<String> = r
            .get("items")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .chain(std::iter::once(r))
            .filter_map(|x| x.get("url").and_then(Value::as_str).and_then(address))
            .collect();
        wanted.entry(matched).or_default().push_back(urls);
    }
    if !wanted.is_empty() {
        let mut with_refs = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find([OPEN, NEW_OPEN]) {
            with_refs.push_str(&rest[..at]);
            let marker = &rest[at..];
            let open = marker.chars().next().unwrap_or(OPEN);
            let close = if open == OPEN { CLOSE } else { NEW_CLOSE };
            // A marker is short: its end is looked for within [`LONGEST`] characters.
            let end = marker
                .char_indices()
                .skip(1)
                .take(LONGEST)
                .find(|(_, c)| *c == close)
                .map(|(e, c)| e + c.len_utf8());
            let urls = end.and_then(|e| wanted.get_mut(&marker[..e]).and_then(|q| q.pop_front()));
            match (end, urls) {
                (Some(e), Some(urls)) => {
                    let with: String = urls.iter().map(|u| numbers.link(u)).collect();
                    if with.is_empty() {
                        removed += 1;
                    } else {
                        linked += 1;
                    }
                    with_refs.push_str(&with);
                    rest = &marker[e..];
                }
                // Not a marker a reference names: its first character stays, the rest is read on.
                _ => {
                    with_refs.push(open);
                    rest = &marker[open.len_utf8()..];
                }
            }
        }
        with_refs.push_str(rest);
        out = with_refs;
    }
    // Whatever marker is left explains nothing: removed.
    let (out, rest) = strip(&out);
    (out, linked, removed + rest)
}

/// `text` without markers `【…†…】` and `\u{e200}…\u{e201}`, and how many there were.
fn strip(text: &str) -> (String, usize) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut n = 0;
    let mut i = 0;
    while i < chars.len() {
        let close = match chars[i] {
            OPEN => Some(CLOSE),
            NEW_OPEN => Some(NEW_CLOSE),
            _ => None,
        };
        let end = close.and_then(|close| {
            chars[i + 1..]
                .iter()
                .take(LONGEST)
                .position(|c| *c == close)
                .map(|p| i + 1 + p)
        });
        match end {
            Some(e) if chars[i] == NEW_OPEN || chars[i + 1..e].contains(&'†') => {
                n += 1;
                i = e + 1;
            }
            _ => {
                out.push(chars[i]);
                i += 1;
            }
        }
    }
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Where a marker starts and ends, in characters.
    fn ix(text: &str, marker: &str) -> (usize, usize) {
        let byte = text.find(marker).unwrap();
        let start = text[..byte].chars().count();
        (start, start + marker.chars().count())
    }

    #[test]
    fn markers_become_numbered_links_or_go() {
        let text =
            "東京の天気は晴れ🌞【3†source】。明日は雨【5†source】、風【3†source】【9†source】。";
        let cite_of = |m: &str, url: Option<&str>| {
            let (s, e) = ix(text, m);
            json!({"start_ix": s, "end_ix": e, "metadata": {"url": url, "title": "t"}})
        };
        // The second 【3†source】 is found after the first.
        let byte = text.rfind("【3†source】").unwrap();
        let s3 = text[..byte].chars().count();
        let meta = json!({"citations": [
            cite_of("【5†source】", Some("https://b.example/雨")),
            cite_of("【3†source】", Some("https://a.example/x (1)")),
            {"start_ix": s3, "end_ix": s3 + "【3†source】".chars().count(), "metadata": {"url": "https://a.example/x (1)"}},
            cite_of("【9†source】", Some("javascript:alert(1)")),
        ]});
        let cases: &[(&str, Value, &str, usize, usize)] = &[
            ("no markers", json!({}), "no markers", 0, 0),
            (
                text,
                meta,
                "東京の天気は晴れ🌞[1](https://a.example/x%20%281%29)。明日は雨[2](https://b.example/雨)、風[1](https://a.example/x%20%281%29)。",
                3,
                1,
            ),
            // Offsets that do not frame a marker (bytes, say) are not used; markers go.
            (
                "晴れ【1†source】",
                json!({"citations": [{"start_ix": 6, "end_ix": 21, "metadata": {"url": "https://a.example"}}]}),
                "晴れ",
                0,
                1,
            ),
            (
                "See \u{e200}cite\u{e202}turn0search0\u{e201} and \u{e200}cite\u{e202}turn0news2\u{e201}.",
                json!({"content_references": [
                    {"matched_text": "\u{e200}cite\u{e202}turn0search0\u{e201}", "items": [{"url": "https://a.example", "title": "A"}, {"url": "https://c.example"}]}
                ]}),
                "See [1](https://a.example)[2](https://c.example) and .",
                1,
                1,
            ),
            ("a 【note】 stays", json!({}), "a 【note】 stays", 0, 0),
            // Offsets one off (counted from 1, say) frame no marker: not used.
            (
                "晴れ【1†source】 and more text after it",
                json!({"citations": [{"start_ix": 3, "end_ix": 13, "metadata": {"url": "https://a.example"}}]}),
                "晴れ and more text after it",
                0,
                1,
            ),
        ];
        for (text, meta, want, linked, removed) in cases {
            assert_eq!(
                cite(text, Some(meta)),
                (want.to_string(), *linked, *removed),
                "{text}"
            );
        }
    }
}
