//! Built-in prompt roles, validated and embedded at build time from `prompts/agents.yaml`
//! (see `build.rs`). No YAML parser ships in the app.

/// A built-in role: its name, description and system prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinRole {
    /// Key in `agents.yaml` (e.g. `assistant`).
    pub name: &'static str,
    /// Template version.
    pub version: u32,
    /// One-line description.
    pub description: &'static str,
    /// The system prompt.
    pub system: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/prompts.rs"));

/// The role new chats start with.
pub const DEFAULT_ROLE: &str = "assistant";

/// The built-in role with this name.
pub fn role(name: &str) -> Option<&'static BuiltinRole> {
    ROLES.iter().find(|r| r.name == name)
}

/// The default role (always present: the build fails without it).
pub fn default_role() -> &'static BuiltinRole {
    role(DEFAULT_ROLE).unwrap_or(&ROLES[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_roles_are_embedded() {
        for name in ["assistant", "coder", "planner", "summarizer"] {
            let r = role(name).unwrap_or_else(|| panic!("missing role {name}"));
            assert!(!r.system.is_empty() && !r.description.is_empty(), "{name}");
        }
        assert_eq!(default_role().name, "assistant");
        assert!(role("summarizer").unwrap().system.contains("order number"));
    }
}
