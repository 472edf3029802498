//! Template text: literal text with `{name}` placeholders. `{{` and `}}` stand for literal
//! braces; any other brace is an error, so a typo never reaches the model silently.
//! Substitution is a single pass over the parsed pieces: a value is inserted as it is and never
//! read again, so braces inside values are never interpreted.

use std::collections::BTreeMap;

/// A piece of parsed template text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Literal text (escapes already undone when it came from `{{` or `}}`).
    Text(&'a str),
    /// A `{name}` placeholder.
    Var(&'a str),
}

/// A brace that is neither an escape nor a placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BraceError {
    /// 1-based line within the text.
    pub line: usize,
    /// 1-based column within that line, in characters.
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

/// Whether `s` can name a variable (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_var_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn brace_error(text: &str, at: usize, message: String) -> BraceError {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    BraceError { line, col, message }
}

/// Split template text into pieces.
pub fn parse(text: &str) -> Result<Vec<Piece<'_>>, BraceError> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'}' if bytes.get(i + 1) == Some(&bytes[i]) => {
                // `{{` or `}}`: keep one brace (the first of the pair) as text.
                if start < i {
                    out.push(Piece::Text(&text[start..i]));
                }
                out.push(Piece::Text(&text[i..=i]));
                i += 2;
                start = i;
            }
            b'{' => {
                let close = text[i + 1..].find('}').map(|j| i + 1 + j);
                let name = close.map(|c| &text[i + 1..c]);
                match (close, name) {
                    (Some(c), Some(name)) if is_var_name(name) => {
                        if start < i {
                            out.push(Piece::Text(&text[start..i]));
                        }
                        out.push(Piece::Var(name));
                        i = c + 1;
                        start = i;
                    }
                    _ => {
                        return Err(brace_error(
                            text,
                            i,
                            "`{` does not start a placeholder like `{name}`; write `{{` for a literal brace".into(),
                        ))
                    }
                }
            }
            b'}' => {
                return Err(brace_error(
                    text,
                    i,
                    "`}` closes nothing; write `}}` for a literal brace".into(),
                ))
            }
            _ => i += 1,
        }
    }
    if start < text.len() {
        out.push(Piece::Text(&text[start..]));
    }
    Ok(out)
}

/// The placeholder names used in `text`, in order of first use (empty if the text is invalid).
pub fn placeholders(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for piece in parse(text).unwrap_or_default() {
        if let Piece::Var(n) = piece {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    names
}

/// Each placeholder name used in `text` with the 1-based line and column (in characters) of its
/// first use (empty if the text is invalid).
pub fn placeholder_positions(text: &str) -> Vec<(&str, usize, usize)> {
    let mut out: Vec<(&str, usize, usize)> = Vec::new();
    let mut offset = 0;
    for piece in parse(text).unwrap_or_default() {
        match piece {
            Piece::Text(t) => {
                // An escaped brace stands for two characters of source.
                offset += if t == "{" || t == "}" { 2 } else { t.len() };
            }
            Piece::Var(name) => {
                if !out.iter().any(|(n, _, _)| *n == name) {
                    let e = brace_error(text, offset, String::new());
                    out.push((name, e.line, e.col));
                }
                offset += name.len() + 2;
            }
        }
    }
    out
}

/// Substitute `vars` into already validated text. Placeholders without a value are collected in
/// `missing` (and left out of the output); every name looked up is added to `used`.
pub fn substitute(
    text: &str,
    vars: &BTreeMap<String, String>,
    used: &mut Vec<String>,
    missing: &mut Vec<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    for piece in parse(text).unwrap_or_else(|_| vec![Piece::Text(text)]) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Var(name) => {
                if !used.iter().any(|u| u == name) {
                    used.push(name.to_string());
                }
                match vars.get(name) {
                    Some(v) => out.push_str(v),
                    None => {
                        if !missing.iter().any(|m| m == name) {
                            missing.push(name.to_string());
                        }
                    }
                }
            }
        }
    }
    out
}

/// Escape literal text so that it can be used as template text (`{` → `{{`, `}` → `}}`).
pub fn escape(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn substitution_cases() {
        // (template, vars, expected output, missing)
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str, &'a [&'a str]);
        let cases: &[Case] = &[
            ("plain", &[], "plain", &[]),
            ("Hi {name}!", &[("name", "Ada")], "Hi Ada!", &[]),
            ("{a}{b}{a}", &[("a", "1"), ("b", "2")], "121", &[]),
            ("{{literal}} {x}", &[("x", "v")], "{literal} v", &[]),
            ("{{{x}}}", &[("x", "v")], "{v}", &[]),
            ("json: {{\"k\": 1}}", &[], "json: {\"k\": 1}", &[]),
            // Values are inserted verbatim and never re-read.
            ("{x}", &[("x", "{y}")], "{y}", &[]),
            ("{x}", &[("x", "{{ }} {")], "{{ }} {", &[]),
            ("{x} and {y}", &[("x", "1")], "1 and ", &["y"]),
            ("{_u9}", &[("_u9", "ok")], "ok", &[]),
            ("über {x} 中文", &[("x", "✓")], "über ✓ 中文", &[]),
        ];
        for (tpl, v, want, want_missing) in cases {
            let (mut used, mut missing) = (Vec::new(), Vec::new());
            assert!(parse(tpl).is_ok(), "{tpl}");
            let got = substitute(tpl, &vars(v), &mut used, &mut missing);
            assert_eq!(&got, want, "{tpl}");
            assert_eq!(missing, *want_missing, "{tpl}");
        }
    }

    #[test]
    fn stray_braces_are_errors_with_positions() {
        let cases: &[(&str, usize, usize, &str)] = &[
            ("{", 1, 1, "does not start a placeholder"),
            ("a {b c}", 1, 3, "does not start a placeholder"),
            ("line\n  {1x}", 2, 3, "does not start a placeholder"),
            ("{}", 1, 1, "does not start a placeholder"),
            ("x }", 1, 3, "closes nothing"),
            ("{{ x }", 1, 6, "closes nothing"),
            ("中{", 1, 2, "does not start"),
        ];
        for (tpl, line, col, needle) in cases {
            let e = parse(tpl).expect_err(tpl);
            assert_eq!((e.line, e.col), (*line, *col), "{tpl}");
            assert!(e.message.contains(needle), "{tpl}: {}", e.message);
        }
    }

    #[test]
    fn placeholders_are_listed_once_in_order() {
        assert_eq!(placeholders("{b} {a} {b} {{c}}"), vec!["b", "a"]);
        assert_eq!(
            placeholder_positions("{{x}} {b}\n中 {a} {b}"),
            vec![("b", 1, 7), ("a", 2, 3)]
        );
    }

    #[test]
    fn escape_round_trips() {
        for s in ["", "{x}", "a}}b{{", "{{{", "plain"] {
            let (mut used, mut missing) = (Vec::new(), Vec::new());
            let esc = escape(s);
            assert_eq!(
                substitute(&esc, &BTreeMap::new(), &mut used, &mut missing),
                s
            );
            assert!(used.is_empty() && missing.is_empty());
        }
    }
}
