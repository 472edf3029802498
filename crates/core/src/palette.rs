//! The command palette (Ctrl/⌘+K): one search over Satori's actions and the stored chats'
//! titles. What each action does is the control it stands for, clicked (`target`), so the palette
//! does exactly what the button does; a few act on their own (`Language`, `Theme`, the shortcuts).

use crate::persist::IndexEntry;
use crate::search::{matches, words};

/// An action the palette offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Action {
    /// What it is called (searched, and shown).
    pub label: &'static str,
    /// What it does (see [`Do`]).
    pub does: Do,
    /// Its keyboard shortcut, shown beside it.
    pub keys: &'static str,
}

/// What an action does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Do {
    /// Click the page's control that matches this CSS selector.
    Click(&'static str),
    /// Open "Keyboard shortcuts".
    Shortcuts,
    /// Switch the interface language to this one.
    Language(&'static str),
    /// Switch the theme ("" follows the system).
    Theme(&'static str),
}

/// Every action, in the order shown before anything is typed.
pub const ACTIONS: &[Action] = &[
    Action {
        label: "New chat",
        does: Do::Click(".side-tools [data-act=new]"),
        keys: "Ctrl+Shift+O",
    },
    Action {
        label: "Switch model",
        does: Do::Click(".model-btn"),
        keys: "",
    },
    Action {
        label: "Search chats",
        does: Do::Click(".side-tools [data-act=search]"),
        keys: "",
    },
    Action {
        label: "Settings",
        does: Do::Click(".settings-btn"),
        keys: "",
    },
    Action {
        label: "Context inspector",
        does: Do::Click("[aria-controls=context-inspector]"),
        keys: "",
    },
    Action {
        label: "Agent",
        does: Do::Click(".agent-btn"),
        keys: "",
    },
    Action {
        label: "Export chat",
        does: Do::Click("#chat-actions [data-act=export]"),
        keys: "",
    },
    Action {
        label: "Share chat",
        does: Do::Click("#chat-actions [data-act=share]"),
        keys: "",
    },
    Action {
        label: "Rename chat",
        does: Do::Click("#chat-actions [data-act=rename]"),
        keys: "",
    },
    Action {
        label: "Delete chat",
        does: Do::Click("#chat-actions [data-act=delete]"),
        keys: "",
    },
    Action {
        label: "Prompts",
        does: Do::Click(".side-tools [data-act=prompts]"),
        keys: "",
    },
    Action {
        label: "Import",
        does: Do::Click(".side-tools [data-act=import]"),
        keys: "",
    },
    Action {
        label: "Export all",
        does: Do::Click(".side-tools [data-act=export]"),
        keys: "",
    },
    Action {
        label: "Keyboard shortcuts",
        does: Do::Shortcuts,
        keys: "Ctrl+/",
    },
    Action {
        label: "Language: English",
        does: Do::Language("en"),
        keys: "",
    },
    Action {
        label: "Language: 简体中文",
        does: Do::Language("zh-CN"),
        keys: "",
    },
    Action {
        label: "Theme: System",
        does: Do::Theme(""),
        keys: "",
    },
    Action {
        label: "Theme: Light",
        does: Do::Theme("light"),
        keys: "",
    },
    Action {
        label: "Theme: Dark",
        does: Do::Theme("dark"),
        keys: "",
    },
];

/// What the palette lists: an action, or a chat to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// An action.
    Action(Action),
    /// A chat: its id and title.
    Chat {
        /// Id.
        id: String,
        /// Title.
        title: String,
    },
}

/// Chats shown at most (the newest that match).
pub const MAX_CHATS: usize = 50;
/// Chats shown before anything is typed.
pub const RECENT_CHATS: usize = 5;

/// The items for `query`: the actions whose name holds every word of it, then the chats whose
/// title does (newest first, at most [`MAX_CHATS`]). Before anything is typed: every action, then
/// the [`RECENT_CHATS`] newest chats. Words match as "Search chats" matches them: any case, Latin
/// accents ignored. An action is found by its English name and by `names[i]`, its name in the
/// interface language (empty, or shorter than [`ACTIONS`], in English).
pub fn find(query: &str, chats: &[IndexEntry], names: &[String]) -> (Vec<Item>, Vec<Item>) {
    let w = words(query);
    let named = |i: usize| {
        names
            .get(i)
            .is_some_and(|n| !n.is_empty() && matches(n, &w))
    };
    let actions = ACTIONS
        .iter()
        .enumerate()
        .filter(|(i, a)| matches(a.label, &w) || named(*i))
        .map(|(_, a)| a)
        .map(|a| Item::Action(*a))
        .collect();
    let mut newest: Vec<&IndexEntry> = chats.iter().collect();
    newest.sort_by_key(|c| std::cmp::Reverse(c.updated_at));
    let limit = if w.is_empty() {
        RECENT_CHATS
    } else {
        MAX_CHATS
    };
    let chats = newest
        .into_iter()
        .filter(|c| matches(&c.title, &w))
        .take(limit)
        .map(|c| Item::Chat {
            id: c.id.clone(),
            title: c.title.clone(),
        })
        .collect();
    (actions, chats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, title: &str, at: i64) -> IndexEntry {
        IndexEntry {
            id: id.into(),
            title: title.into(),
            updated_at: at,
            pinned: false,
        }
    }

    fn labels(items: &[Item]) -> Vec<&str> {
        items
            .iter()
            .map(|i| match i {
                Item::Action(a) => a.label,
                Item::Chat { title, .. } => title.as_str(),
            })
            .collect()
    }

    #[test]
    fn finds_actions_and_chats_by_words() {
        let chats = [
            entry("a", "Trip to Kraków in May", 3),
            entry("b", "Order #4417 refund", 5),
            entry("c", "订单查询 4417", 4),
            entry("d", "Export a CSV", 1),
        ];
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "",
                &[],
                &[
                    "Order #4417 refund",
                    "订单查询 4417",
                    "Trip to Kraków in May",
                    "Export a CSV",
                ],
            ),
            ("krakow", &[], &["Trip to Kraków in May"]),
            ("4417", &[], &["Order #4417 refund", "订单查询 4417"]),
            ("订单", &[], &["订单查询 4417"]),
            ("EXPORT", &["Export chat", "Export all"], &["Export a CSV"]),
            ("chat new", &["New chat"], &[]),
            ("theme dark", &["Theme: Dark"], &[]),
            ("model", &["Switch model"], &[]),
            ("nothing like this", &[], &[]),
        ];
        for (query, want_actions, want_chats) in cases {
            let (actions, found) = find(query, &chats, &[]);
            if !query.is_empty() {
                assert_eq!(labels(&actions), *want_actions, "{query:?}");
            } else {
                assert_eq!(actions.len(), ACTIONS.len());
            }
            assert_eq!(labels(&found), *want_chats, "{query:?}");
        }
    }

    #[test]
    fn finds_actions_by_their_names_in_the_interface_language() {
        let zh: &[(&str, &str)] = &[
            ("New chat", "新对话"),
            ("Settings", "设置"),
            ("Export chat", "导出对话"),
            ("Export all", "全部导出"),
            ("Theme: Dark", "主题：深色"),
        ];
        let names: Vec<String> = ACTIONS
            .iter()
            .map(|a| {
                let hit = zh.iter().find(|(en, _)| *en == a.label);
                hit.map_or(String::new(), |(_, local)| local.to_string())
            })
            .collect();
        let chats = [entry("a", "导出 CSV 的脚本", 1)];
        let cases: &[(&str, &[&str], &[&str])] = &[
            ("设置", &["Settings"], &[]),
            ("导出", &["Export chat", "Export all"], &["导出 CSV 的脚本"]),
            ("对话", &["New chat", "Export chat"], &[]),
            ("深色", &["Theme: Dark"], &[]),
            // English still finds them in Chinese.
            ("settings", &["Settings"], &[]),
            ("设置 dark", &[], &[]),
        ];
        for (query, want_actions, want_chats) in cases {
            let (actions, found) = find(query, &chats, &names);
            assert_eq!(labels(&actions), *want_actions, "{query:?}");
            assert_eq!(labels(&found), *want_chats, "{query:?}");
        }
        // Without names (English), a Chinese word finds no action.
        assert!(find("设置", &chats, &[]).0.is_empty());
    }

    #[test]
    fn shows_few_chats_before_a_query_and_caps_matches() {
        let chats: Vec<IndexEntry> = (0..120)
            .map(|i| entry(&format!("c{i}"), &format!("Chat number {i}"), i))
            .collect();
        let (_, recent) = find("", &chats, &[]);
        assert_eq!(recent.len(), RECENT_CHATS);
        assert_eq!(labels(&recent)[0], "Chat number 119");
        let (_, found) = find("number", &chats, &[]);
        assert_eq!(found.len(), MAX_CHATS);
        let (_, one) = find("number 7", &chats, &[]);
        assert!(labels(&one).iter().all(|t| t.contains('7')));
        assert_eq!(labels(&one)[0], "Chat number 117");
    }

    #[test]
    fn every_action_does_something_and_is_named_once() {
        let mut seen = std::collections::BTreeSet::new();
        for a in ACTIONS {
            assert!(seen.insert(a.label), "{} twice", a.label);
            if let Do::Click(sel) = a.does {
                assert!(!sel.is_empty() && !sel.contains('"'), "{}", a.label);
            }
        }
    }
}
