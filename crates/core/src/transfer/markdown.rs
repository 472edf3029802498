//! A chat's visible branch as Markdown, for reading (not for importing back: the JSON export is
//! the complete one).

use super::time::iso;
use crate::session::{Role, Session};

/// The branch of `session` on screen as a Markdown document, written at `now` (ms).
pub fn markdown(session: &Session, now: i64) -> String {
    let stamp = iso(now);
    let mut out = format!(
        "# {}\n\n*Exported from Satori on {} {} UTC.*\n",
        one_line(session.display_title()),
        &stamp[..10],
        &stamp[11..16]
    );
    for m in session.path() {
        let who = match m.role {
            Role::System if m.example => "Example".to_string(),
            Role::System => "System prompt".to_string(),
            Role::User if m.example => "Example (user)".to_string(),
            Role::User => "You".to_string(),
            Role::Assistant => match &m.model {
                Some(model) => format!("Assistant ({})", one_line(model)),
                None => "Assistant".to_string(),
            },
            Role::Tool => "Tool result".to_string(),
        };
        out.push_str(&format!("\n## {who}\n\n"));
        if m.role == Role::Tool {
            out.push_str(&fenced(&m.content));
        } else if !m.content.is_empty() {
            out.push_str(m.content.trim_end());
            out.push('\n');
        }
        for call in &m.tool_calls {
            out.push_str(&format!("\nCalled `{}` with:\n\n", one_line(&call.name)));
            out.push_str(&fenced(&call.arguments));
        }
        if let Some(note) = &m.note {
            out.push_str(&format!("\n*{}*\n", one_line(note)));
        }
    }
    out
}

/// `text` on one line (titles, names).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` in a fence longer than any run of backticks inside it.
fn fenced(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}\n{}\n{fence}\n", text.trim_end())
}
