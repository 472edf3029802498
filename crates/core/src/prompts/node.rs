//! A YAML document as a small tree of strings, maps and lists, each node carrying the line and
//! column where it starts. The YAML parser (`yaml.rs`) produces it at build time and in the
//! deferred YAML module; validation (`validate.rs`) turns it into templates and can name the
//! exact place of every problem. Maps keep their source order.

use serde::{Deserialize, Serialize};

/// A position in a source file: 1-based line, 1-based column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Pos {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub col: usize,
}

/// One node of the tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Where the node starts.
    pub at: Pos,
    /// What it holds.
    pub value: Value,
}

/// The kinds of node. Every scalar is kept as text; `plain` tells whether it was written
/// without quotes (only plain scalars can be numbers, `null` or booleans).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    /// A scalar.
    Scalar {
        /// The text after YAML's quoting and folding rules.
        text: String,
        /// Written without quotes or block indicator.
        plain: bool,
        /// A literal block (`|`): its lines are the source lines from the node's position on.
        #[serde(default)]
        literal: bool,
    },
    /// A mapping, in source order. Keys are unique (the parser rejects duplicates).
    Map(Vec<(Key, Node)>),
    /// A sequence.
    Seq(Vec<Node>),
}

/// A mapping key and where it is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Key {
    /// The key text.
    pub text: String,
    /// Its position.
    pub at: Pos,
}

impl Node {
    /// The entries if this is a map.
    pub fn as_map(&self) -> Option<&[(Key, Node)]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items if this is a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The text if this is a scalar that is not `null` (an empty value or `~`).
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar { text, plain, .. } if !(*plain && is_null(text)) => Some(text),
            _ => None,
        }
    }

    /// Whether this is a null scalar (`key:` with nothing after it, `~`, `null`).
    pub fn is_null(&self) -> bool {
        matches!(&self.value, Value::Scalar { text, plain: true, .. } if is_null(text))
    }

    /// A word for the kind of node, for error messages.
    pub fn kind(&self) -> &'static str {
        match &self.value {
            Value::Scalar { .. } if self.is_null() => "an empty value",
            Value::Scalar { .. } => "text",
            Value::Map(_) => "a mapping",
            Value::Seq(_) => "a list",
        }
    }
}

fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}
