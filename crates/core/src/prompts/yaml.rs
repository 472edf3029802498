//! YAML text → [`Node`] tree, with positions, using the `saphyr-parser` event parser.
//!
//! Only the part of YAML that prompt files need is accepted: one document of mappings, lists
//! and scalars. Anchors, aliases and tags are refused (they make files hard to read and open the
//! door to exponential expansion), and so are duplicate keys, which YAML would otherwise resolve
//! silently. The tree is built with an explicit stack, so hostile nesting cannot overflow the
//! call stack. This module is compiled by `build.rs` and by the deferred YAML module only; the
//! app itself never links a YAML parser.

use super::node::{Key, Node, Pos, Value};
use saphyr_parser::{Event, Parser, ScalarStyle, Span};

/// A syntax error: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Where the problem is.
    pub at: Pos,
    /// What is wrong.
    pub message: String,
}

/// Deepest nesting accepted (prompt files need three or four levels).
pub const MAX_DEPTH: usize = 64;

enum Frame {
    Map {
        at: Pos,
        entries: Vec<(Key, Node)>,
        pending: Option<Key>,
    },
    Seq {
        at: Pos,
        items: Vec<Node>,
    },
}

fn pos(span: &Span) -> Pos {
    Pos {
        line: span.start.line(),
        col: span.start.col() + 1,
    }
}

fn err<T>(at: Pos, message: impl Into<String>) -> Result<T, SyntaxError> {
    Err(SyntaxError {
        at,
        message: message.into(),
    })
}

/// Parse one YAML document. An empty file gives an empty (null) scalar at line 1.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Node> = None;
    let mut documents = 0;
    for item in Parser::new_from_str(text) {
        let (event, span) = item.map_err(|e| SyntaxError {
            at: Pos {
                line: e.marker().line(),
                col: e.marker().col() + 1,
            },
            message: e.info().to_string(),
        })?;
        let at = pos(&span);
        let is_map = matches!(event, Event::MappingStart(..));
        let node = match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => continue,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return err(
                        at,
                        "a prompt file holds one YAML document; remove the extra `---`",
                    );
                }
                continue;
            }
            Event::Alias(_) => return err(at, "aliases (`*name`) are not supported"),
            Event::Scalar(text, style, anchor, tag) => {
                if anchor != 0 {
                    return err(at, "anchors (`&name`) are not supported");
                }
                if tag.is_some() {
                    return err(at, "tags (`!…`) are not supported");
                }
                Node {
                    at,
                    value: Value::Scalar {
                        text: text.into_owned(),
                        plain: style == ScalarStyle::Plain,
                        literal: style == ScalarStyle::Literal,
                    },
                }
            }
            Event::MappingStart(anchor, tag) | Event::SequenceStart(anchor, tag) => {
                if anchor != 0 {
                    return err(at, "anchors (`&name`) are not supported");
                }
                if tag.is_some() {
                    return err(at, "tags (`!…`) are not supported");
                }
                if stack.len() >= MAX_DEPTH {
                    return err(at, format!("nested deeper than {MAX_DEPTH} levels"));
                }
                stack.push(if is_map {
                    Frame::Map {
                        at,
                        entries: Vec::new(),
                        pending: None,
                    }
                } else {
                    Frame::Seq {
                        at,
                        items: Vec::new(),
                    }
                });
                continue;
            }
            Event::MappingEnd | Event::SequenceEnd => match stack.pop() {
                Some(Frame::Map { at, entries, .. }) => Node {
                    at,
                    value: Value::Map(entries),
                },
                Some(Frame::Seq { at, items }) => Node {
                    at,
                    value: Value::Seq(items),
                },
                None => return err(at, "unbalanced end of a block"),
            },
        };
        // Attach the finished node to its parent.
        match stack.last_mut() {
            None => root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries, pending, ..
            }) => match pending.take() {
                Some(key) => entries.push((key, node)),
                None => {
                    let Value::Scalar { text, .. } = node.value else {
                        return err(node.at, "a key must be plain text, not a list or mapping");
                    };
                    if let Some((first, _)) = entries.iter().find(|(k, _)| k.text == text) {
                        return err(
                            node.at,
                            format!(
                                "duplicate key `{text}` (first written at line {})",
                                first.at.line
                            ),
                        );
                    }
                    *pending = Some(Key { text, at: node.at });
                }
            },
        }
    }
    Ok(root.unwrap_or(Node {
        at: Pos { line: 1, col: 1 },
        value: Value::Scalar {
            text: String::new(),
            plain: true,
            literal: false,
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Node {
        parse(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
    }

    fn fails(text: &str) -> (usize, usize, String) {
        match parse(text) {
            Ok(n) => panic!("{text:?} parsed as {n:?}"),
            Err(e) => (e.at.line, e.at.col, e.message),
        }
    }

    #[test]
    fn keeps_order_positions_and_scalar_styles() {
        let n = ok("b: 1\na:\n  - x\n  - 'y'\n  - |\n    z\n");
        let map = n.as_map().unwrap();
        assert_eq!(map[0].0.text, "b");
        assert_eq!(map[1].0.text, "a");
        assert_eq!(map[1].0.at, Pos { line: 2, col: 1 });
        let items = map[1].1.as_seq().unwrap();
        assert_eq!(items[0].at, Pos { line: 3, col: 5 });
        assert_eq!(
            items[1].value,
            Value::Scalar {
                text: "y".into(),
                plain: false,
                literal: false
            }
        );
        assert_eq!(
            items[2].at,
            Pos { line: 6, col: 5 },
            "a block scalar starts at its first line"
        );
        assert_eq!(items[2].as_str(), Some("z\n"));
        assert!(ok("").is_null());
        assert!(ok("k:\n").as_map().unwrap()[0].1.is_null());
    }

    #[test]
    fn refuses_what_prompt_files_do_not_need() {
        let cases: &[(&str, usize, usize, &str)] = &[
            (
                "a: 1\na: 2\n",
                2,
                1,
                "duplicate key `a` (first written at line 1)",
            ),
            ("x:\n  k: 1\n  k: 2\n", 3, 3, "duplicate key `k`"),
            ("a: &x 1\nb: *x\n", 1, 4, "anchors"),
            ("a: !!str 1\n", 1, 4, "tags"),
            ("a: 1\n---\nb: 2\n", 2, 1, "one YAML document"),
            ("? [a]\n: 1\n", 1, 3, "a key must be plain text"),
            ("a: [1, 2\n", 2, 1, ""),
            ("a:\n  b: 1\n c: 2\n", 3, 2, ""),
            ("a: \"unterminated\n", 1, 4, "quoted scalar"),
        ];
        for (text, line, col, needle) in cases {
            let (l, c, m) = fails(text);
            assert_eq!((l, c), (*line, *col), "{text:?}: {m}");
            assert!(m.contains(needle), "{text:?}: {m}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        // The parser's own recursion limit or ours, whichever comes first: an error either way.
        for depth in [MAX_DEPTH + 1, 10_000, 1_000_000] {
            let (line, _, m) = fails(&"[".repeat(depth));
            assert!(
                line >= 1 && (m.contains("nested deeper") || m.contains("recursion limit")),
                "{depth}: {m}"
            );
        }
    }
}
