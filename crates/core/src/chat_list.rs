//! The chat list as the sidebar shows it: pinned chats on top, then the rest grouped by the
//! local day of their last change (**Today**, **Yesterday**, **Previous 7 days**, **Older**),
//! newest first within each group, and its markup.
//!
//! Invariants, checked by the tests below:
//! - every chat of the index appears exactly once, pinned ones before all others;
//! - a group's heading appears only above at least one chat;
//! - days are the user's calendar days (the time zone's offset at each moment is passed in, so
//!   a change of daylight saving time between then and now moves nothing), so a chat changed at
//!   23:59 yesterday is "Yesterday" and one changed at 00:01 today is "Today"; a time in the
//!   future (another device's clock) counts as today;
//! - every text from a record (titles, ids) is escaped in the markup, and hidden characters in a
//!   title are shown (`<U+202E>`).

use crate::persist::{Index, IndexEntry};

/// A heading of the chat list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    /// Chats the user pinned.
    Pinned,
    /// Changed today.
    Today,
    /// Changed yesterday.
    Yesterday,
    /// Changed in the six days before yesterday.
    Week,
    /// Changed before that.
    Older,
}

impl Group {
    /// The heading's text (English; the translator draws it in the page's language).
    pub fn label(self) -> &'static str {
        match self {
            Group::Pinned => "Pinned",
            Group::Today => "Today",
            Group::Yesterday => "Yesterday",
            Group::Week => "Previous 7 days",
            Group::Older => "Older",
        }
    }
}

/// One row of the list: a heading or a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row<'a> {
    /// A group's heading.
    Head(Group),
    /// A chat.
    Chat(&'a IndexEntry),
}

const DAY_MS: i64 = 86_400_000;

/// The local calendar day of `at` (ms since the epoch) for a time zone `offset_min` minutes
/// behind UTC (JavaScript's `getTimezoneOffset`: −480 in Beijing, 300 in New York in winter).
fn day(at: i64, offset_min: i64) -> i64 {
    (at - offset_min * 60_000).div_euclid(DAY_MS)
}

/// The date group of a chat last changed at `at`, seen at `now`; `offset` gives the time zone's
/// offset at a moment (JavaScript's `getTimezoneOffset` of that date).
pub fn group_of(at: i64, now: i64, offset: &impl Fn(i64) -> i64) -> Group {
    match day(now, offset(now)) - day(at, offset(at)) {
        i64::MIN..=0 => Group::Today,
        1 => Group::Yesterday,
        2..=7 => Group::Week,
        _ => Group::Older,
    }
}

/// The rows of `index` (kept newest first) at `now`: the pinned chats, then each date group.
pub fn rows(index: &Index, now: i64, offset: impl Fn(i64) -> i64) -> Vec<Row<'_>> {
    let mut out = Vec::with_capacity(index.sessions.len() + 5);
    let mut last = None;
    let pinned = index.sessions.iter().filter(|e| e.pinned);
    let rest = index.sessions.iter().filter(|e| !e.pinned);
    for e in pinned.chain(rest) {
        let group = if e.pinned {
            Group::Pinned
        } else {
            group_of(e.updated_at, now, &offset)
        };
        if last != Some(group) {
            out.push(Row::Head(group));
            last = Some(group);
        }
        out.push(Row::Chat(e));
    }
    out
}

/// The markup of `rows`, the first of them row `first` of the list, the chat `active` marked
/// `aria-current="page"`. Each chat is a button (`data-id`: which chat; `id`: `t-` and its row)
/// followed by its "Chat options" menu button (named with the chat's title, through the hidden
/// label `#opts-label` and the title's element id: the row's number, never the chat's id, which
/// an imported file chooses).
pub fn html(rows: &[Row<'_>], first: usize, active: &str) -> String {
    use crate::markdown::push_escaped;
    let mut out = String::with_capacity(rows.len() * 300);
    for (k, row) in rows.iter().enumerate() {
        let t = format!("t-{}", first + k);
        match row {
            Row::Head(g) => {
                out += "<li class=\"group\"><h2>";
                out += g.label();
                out += "</h2></li>";
            }
            Row::Chat(e) => {
                let mut id = String::new();
                push_escaped(&mut id, &e.id);
                out += "<li class=\"row\"><button type=\"button\" class=\"chat-link\" translate=\"no\" data-ours=\"Untitled chat\" data-id=\"";
                out += &id;
                out += "\" id=\"";
                out += &t;
                out += "\"";
                if e.id == active {
                    out += " aria-current=\"page\"";
                }
                out += ">";
                push_escaped(&mut out, &crate::hidden::reveal(&e.title));
                out += "</button><button type=\"button\" class=\"icon-btn row-opts\" aria-haspopup=\"menu\" popovertarget=\"row-menu\" aria-labelledby=\"opts-label ";
                out += &t;
                out += "\" data-id=\"";
                out += &id;
                if e.pinned {
                    out += "\" data-pinned=\"1";
                }
                out += "\"><svg class=\"icon\" aria-hidden=\"true\"><use href=\"#i-ellipsis\"></use></svg></button></li>";
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000;
    /// 2026-12-07 12:00 UTC.
    const NOON: i64 = 1_796_644_800_000;

    fn entry(id: &str, at: i64, pinned: bool) -> IndexEntry {
        IndexEntry {
            id: id.into(),
            title: id.into(),
            updated_at: at,
            pinned,
        }
    }

    #[test]
    fn days_are_the_users_calendar_days() {
        // (changed at, now, offset, group)
        let cases = [
            (NOON, NOON, 0, Group::Today),
            (NOON - 12 * H, NOON, 0, Group::Today), // 00:00 today
            (NOON - 12 * H - 1, NOON, 0, Group::Yesterday), // 23:59:59.999 yesterday
            (NOON - 36 * H, NOON, 0, Group::Yesterday),
            (NOON - 36 * H - 1, NOON, 0, Group::Week),
            (NOON - 7 * 24 * H, NOON, 0, Group::Week),
            (NOON - 8 * 24 * H, NOON, 0, Group::Older),
            (NOON + 48 * H, NOON, 0, Group::Today), // a clock ahead
            // Beijing (UTC+8): 12:00 UTC is 20:00; 15:59 UTC the day before is 23:59 there.
            (NOON - 20 * H - 1, NOON, -480, Group::Yesterday),
            (NOON - 20 * H, NOON, -480, Group::Today),
            // New York (UTC−5): 12:00 UTC is 07:00; 04:59 UTC is 23:59 the day before there.
            (NOON - 7 * H - 1, NOON, 300, Group::Yesterday),
            (NOON - 7 * H, NOON, 300, Group::Today),
            (0, NOON, 0, Group::Older),
            (-5 * DAY_MS, NOON, 0, Group::Older), // before 1970: still a day
        ];
        for (at, now, offset, want) in cases {
            assert_eq!(group_of(at, now, &|_| offset), want, "{at} {now} {offset}");
        }
        // Daylight saving time began between yesterday evening and now (Berlin: UTC+1, then
        // UTC+2): 23:30 yesterday, local time then, is still yesterday.
        let summer_from = NOON - 10 * H;
        let berlin = |t: i64| if t >= summer_from { -120 } else { -60 };
        let late_yesterday = NOON - 12 * H - 30 * 60_000 - 60 * 60_000; // 22:30 UTC = 23:30 CET
        assert_eq!(group_of(late_yesterday, NOON, &berlin), Group::Yesterday);
        assert_eq!(
            group_of(late_yesterday, NOON, &|_| -120),
            Group::Today,
            "one offset for both is wrong"
        );
    }

    fn shape(rows: &[Row<'_>]) -> Vec<String> {
        rows.iter()
            .map(|r| match r {
                Row::Head(g) => g.label().to_string(),
                Row::Chat(e) => format!("  {}", e.id),
            })
            .collect()
    }

    #[test]
    fn pinned_on_top_then_groups_newest_first() {
        let mut index = Index {
            sessions: vec![
                entry("old", NOON - 30 * 24 * H, false),
                entry("today", NOON - H, false),
                entry("pinned-old", NOON - 40 * 24 * H, true),
                entry("yesterday", NOON - 30 * H, false),
                entry("pinned-new", NOON - 2 * H, true),
                entry("week", NOON - 3 * 24 * H, false),
                entry("today2", NOON - 2 * H, false),
            ],
            active: None,
        };
        index.sort();
        let rows = rows(&index, NOON, |_| 0);
        assert_eq!(
            shape(&rows),
            [
                "Pinned",
                "  pinned-new",
                "  pinned-old",
                "Today",
                "  today",
                "  today2",
                "Yesterday",
                "  yesterday",
                "Previous 7 days",
                "  week",
                "Older",
                "  old"
            ]
        );
    }

    #[test]
    fn a_group_without_chats_has_no_heading() {
        let index = Index {
            sessions: vec![
                entry("a", NOON, false),
                entry("b", NOON - 30 * 24 * H, false),
            ],
            active: None,
        };
        assert_eq!(
            shape(&rows(&index, NOON, |_| 0)),
            ["Today", "  a", "Older", "  b"]
        );
        assert!(rows(&Index::default(), NOON, |_| 0).is_empty());
    }

    #[test]
    fn every_chat_once() {
        let sessions: Vec<IndexEntry> = (0..200)
            .map(|i| entry(&format!("c{i}"), NOON - i * 7 * H, i % 9 == 0))
            .collect();
        let mut index = Index {
            sessions,
            active: None,
        };
        index.sort();
        let rows = rows(&index, NOON, |_| -480);
        let mut ids: Vec<&str> = rows
            .iter()
            .filter_map(|r| match r {
                Row::Chat(e) => Some(e.id.as_str()),
                Row::Head(_) => None,
            })
            .collect();
        assert_eq!(ids.len(), 200);
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 200);
        let first_unpinned = rows
            .iter()
            .position(|r| matches!(r, Row::Chat(e) if !e.pinned))
            .unwrap();
        assert!(rows[first_unpinned..]
            .iter()
            .all(|r| !matches!(r, Row::Chat(e) if e.pinned)));
        let heads: Vec<Group> = rows
            .iter()
            .filter_map(|r| match r {
                Row::Head(g) => Some(*g),
                Row::Chat(_) => None,
            })
            .collect();
        let mut sorted = heads.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(heads, sorted, "each heading once, in order");
    }

    #[test]
    fn markup_escapes_and_marks_the_open_chat() {
        let hostile = IndexEntry {
            id: "x\"><img src=x onerror=alert(1)>".into(),
            title: "<script>alert(1)</script>\u{202E}txt".into(),
            updated_at: NOON,
            pinned: true,
        };
        let plain = entry("b", NOON, false);
        let rows = [
            Row::Head(Group::Pinned),
            Row::Chat(&hostile),
            Row::Chat(&plain),
        ];
        let html = html(&rows, 40, "b");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains("&lt;U+202E&gt;txt"), "{html}");
        assert_eq!(html.matches("aria-current=\"page\"").count(), 1);
        assert!(html.contains("data-id=\"b\" id=\"t-42\" aria-current=\"page\""));
        assert!(html.contains("aria-labelledby=\"opts-label t-42\""));
        // A title's element id is its row's: an id with spaces names no other row.
        assert!(html.contains("aria-labelledby=\"opts-label t-41\""));
        assert_eq!(html.matches("data-pinned=\"1\"").count(), 1);
        assert!(html.starts_with("<li class=\"group\"><h2>Pinned</h2></li>"));
    }
}
