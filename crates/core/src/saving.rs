//! What the app writes when it saves the open chat, what follows a write, and what another tab's
//! write means to this one: the decisions of `src/ui/state/`, pure and checked by tables.

use crate::persist::{self, Index};
use crate::session::Session;

/// How many of the open chat's first messages are stored exactly as the app has them, in parts
/// at their places: a save writes the parts from the first other one on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Clean {
    id: String,
    n: usize,
}

impl Clean {
    /// Nothing known to be stored.
    pub const fn new() -> Self {
        Clean {
            id: String::new(),
            n: 0,
        }
    }

    /// How many of chat `id`'s first messages are stored as the app has them.
    pub fn of(&self, id: &str) -> usize {
        if self.id == id {
            self.n
        } else {
            0
        }
    }

    /// The first `n` messages of chat `id` are stored as the app has them.
    pub fn set(&mut self, id: &str, n: usize) {
        self.id = id.to_string();
        self.n = n;
    }

    /// Chat `id`'s message `from` may now differ from what is stored.
    pub fn touch(&mut self, id: &str, from: usize) {
        if self.id == id {
            self.n = self.n.min(from);
        }
    }
}

/// What a save of the open chat writes, and what is clean once it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SavePlan {
    /// The first message whose part is written (the head is always written).
    pub from: usize,
    /// How many first messages are stored as the app has them once the write succeeds.
    pub clean_after: usize,
}

/// Plan the save of the open chat of `messages` messages, of which the first `clean` were
/// stored as it has them, when the stored head now declares `stored` messages (`None`: there is
/// no head) and the reply still arriving is message `streaming_at`.
///
/// What this tab wrote must still be there: a stored head with fewer messages than `clean` (or
/// none: packed, say, or removed) makes the whole chat written again. The reply still arriving
/// is written by every save until it ends, so it is never counted clean.
pub fn plan_save(
    messages: usize,
    clean: usize,
    stored: Option<usize>,
    streaming_at: Option<usize>,
) -> SavePlan {
    let clean = match stored {
        Some(count) if count >= clean => clean,
        _ => 0,
    };
    let end = streaming_at.unwrap_or(messages).min(messages);
    SavePlan {
        from: clean.min(end),
        clean_after: end,
    }
}

/// How writing a chat ended, as far as the app's next steps go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// Written.
    Ok,
    /// Storage is full.
    Full,
    /// The browser refused the write for another reason.
    Failed,
    /// There is no storage (said once at start-up).
    Unavailable,
}

/// What follows a write of a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AfterWrite {
    /// For the open chat: whether its latest change is now unsaved (leaving it then asks
    /// first); `None` for another chat.
    pub unsaved: Option<bool>,
    /// The index record is written too (otherwise the failure is reported).
    pub save_index: bool,
    /// The other chats are packed to make room for the open one.
    pub make_room: bool,
}

/// What follows writing a chat (the open one if `open`) that ended as `written`. Storage that
/// is unavailable keeps nothing anyway: leaving a chat then is not guarded.
pub fn after_write(open: bool, written: Written) -> AfterWrite {
    AfterWrite {
        unsaved: open.then_some(matches!(written, Written::Full | Written::Failed)),
        save_index: written == Written::Ok,
        make_room: open && written == Written::Full,
    }
}

/// How long after an attempt to make room that did not get the chat saved no other is made, ms.
pub const ROOM_PAUSE_MS: i64 = 30_000;

/// Whether room may be made at `now`: one attempt at a time (`busy`), none for
/// [`ROOM_PAUSE_MS`] after one that did not get the chat saved (at `fruitless_at`).
pub fn may_make_room(now: i64, fruitless_at: Option<i64>, busy: bool) -> bool {
    !busy && fruitless_at.is_none_or(|at| now - at >= ROOM_PAUSE_MS)
}

/// What another tab's change of a record means to this tab, whose open chat is `open`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The chat list changed: read it again.
    Index,
    /// The open chat was deleted: leave it and say so.
    OpenRemoved,
    /// The open chat's head was written: take in what the other tab added.
    OpenWritten,
    /// One of the open chat's parts was written or removed: read the chat again once its head
    /// declares the parts (a save that leaves the head byte for byte the same fires no event for
    /// the head).
    OpenPart,
    /// Nothing this tab shows.
    Elsewhere,
}

/// What a change of record `key` (`removed` or written) means to a tab showing chat `open`.
pub fn change_of(key: &str, open: &str, removed: bool) -> Change {
    if key == persist::KEY_INDEX {
        Change::Index
    } else if persist::is_part_of(key, open) {
        Change::OpenPart
    } else if key == persist::session_key(open) {
        if removed {
            Change::OpenRemoved
        } else {
            Change::OpenWritten
        }
    } else {
        Change::Elsewhere
    }
}

/// The chat list `mine` of a tab whose open chat is `open`, read again from storage (`stored`):
/// the stored list, with this tab's active chat, and the open chat listed if it has started (it
/// may not be written yet).
pub fn list_reread(mine: &mut Index, stored: Index, open: &Session) {
    let active = mine.active.take();
    *mine = stored;
    mine.active = active;
    if open.started() && !mine.sessions.iter().any(|e| e.id == open.id) {
        mine.upsert(open);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::persist::IndexEntry;
    use crate::session::Command;

    #[test]
    fn clean_counts_only_for_its_chat_and_only_shrinks_when_touched() {
        let mut c = Clean::new();
        assert_eq!(c.of("a"), 0);
        c.set("a", 7);
        assert_eq!((c.of("a"), c.of("b")), (7, 0));
        c.touch("b", 2); // another chat: no change
        assert_eq!(c.of("a"), 7);
        c.touch("a", 9); // past the clean ones: no change
        assert_eq!(c.of("a"), 7);
        c.touch("a", 3);
        assert_eq!(c.of("a"), 3);
        c.set("b", 4);
        assert_eq!((c.of("a"), c.of("b")), (0, 4));
    }

    #[test]
    fn a_save_writes_from_the_first_message_not_stored_as_it_is() {
        // (messages, clean, stored head's count, streaming at) → (from, clean after)
        type Case = (usize, usize, Option<usize>, Option<usize>, usize, usize);
        let cases: &[Case] = &[
            // Nothing stored yet: everything.
            (3, 0, None, None, 0, 3),
            // All stored, one message added: from the new one.
            (4, 3, Some(3), None, 3, 4),
            // Stored head shorter than what this tab wrote (another tab, a pack): all again.
            (4, 3, Some(2), None, 0, 4),
            // The head is gone (removed or unreadable): all again.
            (4, 3, None, None, 0, 4),
            // A longer stored head (another tab added): what is clean stays clean.
            (4, 3, Some(5), None, 3, 4),
            // The reply arriving is message 3: written from it, never counted clean.
            (4, 4, Some(4), Some(3), 3, 3),
            // An edit touched message 1 (clean was lowered to 1) while a reply arrives at 3.
            (4, 1, Some(4), Some(3), 1, 3),
            // A stray reply position past the end counts as the end.
            (2, 2, Some(2), Some(9), 2, 2),
        ];
        for &(messages, clean, stored, streaming, from, after) in cases {
            assert_eq!(
                plan_save(messages, clean, stored, streaming),
                SavePlan {
                    from,
                    clean_after: after
                },
                "{messages} messages, {clean} clean, stored {stored:?}, streaming {streaming:?}"
            );
        }
    }

    #[test]
    fn what_follows_a_write() {
        use Written::*;
        // (open, written) → (unsaved, save index, make room)
        let cases = [
            (true, Ok, Some(false), true, false),
            (true, Full, Some(true), false, true),
            (true, Failed, Some(true), false, false),
            (true, Unavailable, Some(false), false, false),
            (false, Ok, None, true, false),
            (false, Full, None, false, false),
            (false, Failed, None, false, false),
            (false, Unavailable, None, false, false),
        ];
        for (open, written, unsaved, save_index, make_room) in cases {
            assert_eq!(
                after_write(open, written),
                AfterWrite {
                    unsaved,
                    save_index,
                    make_room
                },
                "open {open}, {written:?}"
            );
        }
    }

    #[test]
    fn room_is_made_once_at_a_time_and_not_again_soon_after_a_fruitless_try() {
        let cases = [
            (100_000, None, false, true),
            (100_000, None, true, false),
            (100_000, Some(70_000), false, true),
            (100_000, Some(70_001), false, false),
            (100_000, Some(99_000), true, false),
        ];
        for (now, fruitless, busy, may) in cases {
            assert_eq!(
                may_make_room(now, fruitless, busy),
                may,
                "{now} {fruitless:?} {busy}"
            );
        }
    }

    #[test]
    fn another_tabs_change_as_this_tab_sees_it() {
        let head = persist::session_key("c1");
        let part = persist::part_key("c1", 0);
        let other = persist::session_key("c2");
        let other_part = persist::part_key("c2", 3);
        let cases = [
            (persist::KEY_INDEX, false, Change::Index),
            (persist::KEY_INDEX, true, Change::Index),
            (head.as_str(), false, Change::OpenWritten),
            (head.as_str(), true, Change::OpenRemoved),
            (part.as_str(), false, Change::OpenPart),
            (part.as_str(), true, Change::OpenPart),
            (other.as_str(), false, Change::Elsewhere),
            (other.as_str(), true, Change::Elsewhere),
            (other_part.as_str(), false, Change::Elsewhere),
            (persist::KEY_SETTINGS, false, Change::Elsewhere),
        ];
        for (key, removed, change) in cases {
            assert_eq!(
                change_of(key, "c1", removed),
                change,
                "{key} removed {removed}"
            );
        }
    }

    fn entry(id: &str, at: i64) -> IndexEntry {
        IndexEntry {
            id: id.into(),
            title: id.into(),
            updated_at: at,
            pinned: false,
        }
    }

    #[test]
    fn the_list_read_again_keeps_this_tabs_active_and_open_chat() {
        let stored = Index {
            sessions: vec![entry("b", 20), entry("a", 10)],
            active: Some("b".into()),
        };
        let mine = Index {
            sessions: vec![entry("a", 10)],
            active: Some("open".into()),
        };
        let mut fresh = Session::new("open".into(), 5, None, Vec::new());
        // Not started: not listed (it would be an empty chat in the list).
        let reread = |stored: &Index, open: &Session| {
            let mut got = mine.clone();
            list_reread(&mut got, stored.clone(), open);
            got
        };
        let got = reread(&stored, &fresh);
        assert_eq!(got.active.as_deref(), Some("open"));
        assert_eq!(
            got.sessions
                .iter()
                .map(|e| e.id.as_str())
                .collect::<Vec<_>>(),
            ["b", "a"]
        );
        fresh
            .apply(Command::AddUser {
                attachments: String::new(),
                id: "m1".into(),
                text: "hello".into(),
                at: 30,
            })
            .unwrap();
        let got = reread(&stored, &fresh);
        assert_eq!(
            got.sessions
                .iter()
                .map(|e| e.id.as_str())
                .collect::<Vec<_>>(),
            ["open", "b", "a"]
        );
        // Listed already (another tab wrote it): its stored entry stays as it is.
        let mut listed = stored.clone();
        listed.sessions.push(entry("open", 1));
        let got = reread(&listed, &fresh);
        assert_eq!(got.sessions.len(), 3);
        assert_eq!(got.sessions[2], entry("open", 1));
    }
}
