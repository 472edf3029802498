//! What the app starts with: every stored record read into one [`Loaded`] value, with what
//! went wrong as [`LoadProblem`]s (the UI turns them into words). Pure: storage comes in as a
//! [`Records`] reader (localStorage in the app, a map in tests), and nothing is written.
//!
//! Rules:
//! - an unreadable record is reported and left alone; it never stops the others from loading;
//! - sessions the index does not list (a crash between the two writes) are added to it;
//! - the chat opened is the index's active one, else the newest readable one; listed chats whose
//!   record is gone are dropped from the index;
//! - settings that do not validate are reported and the defaults are used (`settings: None`).

use crate::persist::{self, ApiKeyRecord, DecodeError, Index, IndexEntry};
use crate::session::Session;
use crate::settings::{Settings, SettingsError};

/// Read access to stored records.
pub trait Records {
    /// The record under `key`, `Ok(None)` if there is none; `Err` says why it could not be read.
    fn read(&self, key: &str) -> Result<Option<String>, String>;
    /// Every key that starts with `prefix`.
    fn keys(&self, prefix: &str) -> Result<Vec<String>, String>;
}

/// Something that could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadProblem {
    /// Storage itself failed to answer.
    Storage(String),
    /// The chat list record is unreadable (the list was rebuilt from the stored chats; the
    /// original is in [`Loaded::index_original`] for the shell to keep).
    Index(DecodeError),
    /// The settings record is readable but its values are not valid.
    SettingsInvalid(SettingsError),
    /// The settings record is unreadable.
    SettingsUnreadable(DecodeError),
    /// The API key record is unreadable.
    Key(DecodeError),
    /// A chat record is unreadable (left untouched).
    Session(DecodeError),
}

/// Everything read at start-up.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Loaded {
    /// The chat list (repaired: unknown stored chats added, missing ones dropped).
    pub index: Index,
    /// Saved settings, `None` when the defaults apply.
    pub settings: Option<Settings>,
    /// The stored API key and its base URL.
    pub api_key: Option<ApiKeyRecord>,
    /// The chat to open, if any could be read.
    pub session: Option<Session>,
    /// The chat to open when its record is packed (it is unpacked, then opened; `session` is
    /// then `None`).
    pub packed: Option<String>,
    /// The unsent draft of that chat.
    pub draft: String,
    /// The user prompt templates record, as stored (read by the catalog).
    pub prompts: Option<String>,
    /// The chat list record as stored, when it could not be read: it must be kept (see
    /// [`persist::backup_key`]) before a rebuilt list replaces it.
    pub index_original: Option<String>,
    /// What went wrong, in the order found.
    pub problems: Vec<LoadProblem>,
}

const SESSION_PREFIX: &str = "satori.session.";
/// What untitled chats were listed as before they became "Untitled chat".
const OLD_UNTITLED: &str = "New chat";

/// The chat list line of chat `id` from its record `text` (packed ones say it in their header;
/// a head record has all but the messages).
fn entry_of(id: &str, text: &str) -> Option<IndexEntry> {
    if let Ok((header, _)) = crate::packed::split(text) {
        return Some(IndexEntry {
            id: id.to_string(),
            ..header.entry
        });
    }
    let s = persist::decode_head(text)
        .or_else(|_| persist::decode_session(text))
        .ok()?;
    Some(IndexEntry {
        id: id.to_string(),
        ..IndexEntry::of(&s)
    })
}

/// Read every record Satori keeps.
pub fn load(records: &impl Records) -> Loaded {
    let mut problems = Vec::new();
    let mut index_original = None;
    let mut index = match records.read(persist::KEY_INDEX) {
        Ok(Some(text)) => persist::decode_index(&text).unwrap_or_else(|e| {
            problems.push(LoadProblem::Index(e));
            index_original = Some(text);
            Index::default()
        }),
        Ok(None) => Index::default(),
        Err(e) => {
            problems.push(LoadProblem::Storage(e));
            Index::default()
        }
    };
    if let Ok(keys) = records.keys(SESSION_PREFIX) {
        let stored: Vec<&str> = keys.iter().map(|k| &k[SESSION_PREFIX.len()..]).collect();
        let gone: Vec<String> = index
            .sessions
            .iter()
            .filter(|e| !stored.contains(&e.id.as_str()))
            .map(|e| e.id.clone())
            .collect();
        for id in gone {
            index.remove(&id);
        }
        for key in &keys {
            let id = &key[SESSION_PREFIX.len()..];
            if index.sessions.iter().all(|e| e.id != id) {
                if let Some(entry) = records
                    .read(key)
                    .ok()
                    .flatten()
                    .and_then(|t| entry_of(id, &t))
                {
                    index.sessions.push(entry);
                    index.sort();
                }
            }
        }
    }
    // Untitled chats were once listed as "New chat", the name of the button that creates one:
    // list them under today's name (a chat the user named "New chat" keeps it).
    for entry in index
        .sessions
        .iter_mut()
        .filter(|e| e.title == OLD_UNTITLED)
    {
        if let Some(e) = records
            .read(&persist::session_key(&entry.id))
            .ok()
            .flatten()
            .and_then(|t| entry_of(&entry.id, &t))
        {
            entry.title = e.title;
        }
    }
    let settings = match records.read(persist::KEY_SETTINGS) {
        Ok(Some(text)) => match persist::decode_settings(&text).map(Settings::validated) {
            Ok(Ok(s)) => Some(s),
            Ok(Err(e)) => {
                problems.push(LoadProblem::SettingsInvalid(e));
                None
            }
            Err(e) => {
                problems.push(LoadProblem::SettingsUnreadable(e));
                None
            }
        },
        _ => None,
    };
    let api_key = match records.read(persist::KEY_API_KEY) {
        Ok(Some(text)) => persist::decode_api_key(&text)
            .map_err(|e| problems.push(LoadProblem::Key(e)))
            .ok(),
        _ => None,
    };
    let mut wanted: Vec<String> = index.active.iter().cloned().collect();
    for e in &index.sessions {
        if !wanted.contains(&e.id) {
            wanted.push(e.id.clone());
        }
    }
    let mut session = None;
    let mut packed = None;
    for id in wanted {
        match persist::read_chat(&|key: &str| records.read(key), &id) {
            Ok(Some(persist::ChatRecord { text, .. })) => match persist::decode_session(&text) {
                Ok(s) => {
                    session = Some(s);
                    break;
                }
                Err(DecodeError::Packed) => match crate::packed::split(&text) {
                    Ok(_) => {
                        packed = Some(id);
                        break;
                    }
                    Err(e) => problems.push(LoadProblem::Session(DecodeError::Invalid(format!(
                        "packed record: {e}"
                    )))),
                },
                Err(e) => problems.push(LoadProblem::Session(e)),
            },
            Ok(None) => index.remove(&id),
            Err(persist::ChatReadError::Storage(e)) => problems.push(LoadProblem::Storage(e)),
            Err(persist::ChatReadError::Damaged(e)) => problems.push(LoadProblem::Session(e)),
        }
    }
    let draft = session
        .as_ref()
        .and_then(|s| records.read(&persist::draft_key(&s.id)).ok().flatten())
        .and_then(|t| persist::decode_draft(&t).ok())
        .unwrap_or_default();
    let prompts = records.read(persist::KEY_PROMPTS).ok().flatten();
    Loaded {
        index,
        settings,
        api_key,
        session,
        packed,
        draft,
        prompts,
        index_original,
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Command, Preamble};
    use std::collections::BTreeMap;

    struct Map(BTreeMap<String, String>, Option<&'static str>);

    impl Records for Map {
        fn read(&self, key: &str) -> Result<Option<String>, String> {
            if self.1.is_some_and(|bad| key.starts_with(bad)) {
                return Err("read failed".into());
            }
            Ok(self.0.get(key).cloned())
        }
        fn keys(&self, prefix: &str) -> Result<Vec<String>, String> {
            Ok(self
                .0
                .keys()
                .filter(|k| k.starts_with(prefix))
                .cloned()
                .collect())
        }
    }

    fn chat(id: &str, text: &str, at: i64) -> Session {
        let mut s = Session::new(
            id.into(),
            at,
            None,
            vec![Preamble::system("sys", "Be brief.")],
        );
        s.apply(Command::AddUser {
            attachments: String::new(),
            id: "u".into(),
            text: text.into(),
            at,
        })
        .unwrap();
        s
    }

    fn store(records: &[(&str, String)]) -> Map {
        Map(
            records
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            None,
        )
    }

    #[test]
    fn an_empty_store_loads_nothing_and_reports_nothing() {
        assert_eq!(load(&store(&[])), Loaded::default());
    }

    #[test]
    fn the_active_chat_opens_with_its_draft_and_the_key_record() {
        let a = chat("a", "first", 1);
        let b = chat("b", "second", 2);
        let mut index = Index::default();
        index.upsert(&a);
        index.upsert(&b);
        index.active = Some("a".into());
        let key = ApiKeyRecord {
            key: "sk".into(),
            base_url: "https://x.test/v1".into(),
        };
        let loaded = load(&store(&[
            (persist::KEY_INDEX, persist::encode_index(&index)),
            (&persist::session_key("a"), persist::encode_session(&a)),
            (&persist::session_key("b"), persist::encode_session(&b)),
            (
                &persist::draft_key("a"),
                persist::encode_draft("half a thought"),
            ),
            (persist::KEY_API_KEY, persist::encode_api_key(&key)),
        ]));
        assert_eq!(loaded.session.as_ref().map(|s| s.id.as_str()), Some("a"));
        assert_eq!(loaded.draft, "half a thought");
        assert_eq!(loaded.api_key, Some(key));
        assert_eq!(loaded.settings, None);
        assert_eq!(loaded.problems, vec![]);
    }

    fn in_parts(s: &Session) -> Vec<(String, String)> {
        let mut s = s.clone();
        let (head, parts) = persist::encode_chat(&mut s);
        let mut out: Vec<(String, String)> = parts
            .into_iter()
            .map(|(k, t)| (persist::part_key(&s.id, k), t))
            .collect();
        out.push((persist::session_key(&s.id), head));
        out
    }

    #[test]
    fn chats_stored_in_parts_load_and_a_missing_part_is_a_damaged_chat() {
        let mut long = chat("long", "first", 5);
        for i in 0..40 {
            long.apply(Command::AddUser {
                attachments: String::new(),
                id: format!("u{i}"),
                text: format!("more {i}"),
                at: 6 + i,
            })
            .unwrap();
        }
        let other = chat("other", "second", 1);
        let mut records: Vec<(String, String)> = in_parts(&long);
        records.extend(in_parts(&other));
        // Not listed: found by its head, listed by its title.
        let mut index = Index::default();
        index.upsert(&other);
        index.active = Some("long".into());
        records.push((persist::KEY_INDEX.into(), persist::encode_index(&index)));
        let refs = |r: &[(String, String)]| {
            store(
                &r.iter()
                    .map(|(k, v)| (k.as_str(), v.clone()))
                    .collect::<Vec<_>>(),
            )
        };
        let loaded = load(&refs(&records));
        assert_eq!(loaded.problems, vec![]);
        assert_eq!(loaded.session.as_ref(), Some(&long));
        assert_eq!(
            loaded
                .index
                .sessions
                .iter()
                .map(|e| (e.id.as_str(), e.title.as_str()))
                .collect::<Vec<_>>(),
            [("long", "first"), ("other", "second")]
        );
        let gone = persist::part_key("long", 1);
        records.retain(|(k, _)| *k != gone);
        let loaded = load(&refs(&records));
        assert_eq!(loaded.session.map(|s| s.id), Some("other".into()));
        assert_eq!(
            loaded.problems,
            vec![LoadProblem::Session(DecodeError::Invalid(
                "part 2 of its 2 is missing or damaged".into()
            ))]
        );
    }

    #[test]
    fn bad_records_are_reported_and_the_rest_loads() {
        let good = chat("good", "kept", 5);
        let mut index = Index::default();
        index.upsert(&good);
        index.sessions.insert(
            0,
            persist::IndexEntry {
                id: "bad".into(),
                title: "Broken".into(),
                updated_at: 9,
                pinned: false,
            },
        );
        index.active = Some("bad".into());
        let mut stale = index.clone();
        stale.sessions.push(persist::IndexEntry {
            id: "gone".into(),
            title: "Gone".into(),
            updated_at: 1,
            pinned: false,
        });
        let loaded = load(&store(&[
            (persist::KEY_INDEX, persist::encode_index(&stale)),
            (
                &persist::session_key("bad"),
                r#"{"v":1,"id": broken"#.into(),
            ),
            (
                &persist::session_key("good"),
                persist::encode_session(&good),
            ),
            (
                persist::KEY_SETTINGS,
                r#"{"v":1,"provider":"custom","base_url":"ftp://x","model":"m"}"#.into(),
            ),
            (persist::KEY_API_KEY, "not json".into()),
        ]));
        assert_eq!(loaded.session.map(|s| s.id), Some("good".into()));
        assert_eq!(loaded.settings, None);
        assert_eq!(loaded.api_key, None);
        assert!(
            matches!(
                loaded.problems.as_slice(),
                [
                    LoadProblem::SettingsInvalid(SettingsError::BadBaseUrl),
                    LoadProblem::Key(DecodeError::Invalid(_)),
                    LoadProblem::Session(DecodeError::Invalid(_)),
                ]
            ),
            "{:?}",
            loaded.problems
        );
        // The unreadable chat stays listed (its record is kept); the chat with no record is dropped.
        let ids: Vec<_> = loaded
            .index
            .sessions
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(ids, ["bad", "good"]);
    }

    #[test]
    fn a_chat_missing_from_the_index_is_added_and_a_broken_index_rebuilt() {
        let lost = chat("lost", "after a crash", 3);
        let loaded = load(&store(&[
            (persist::KEY_INDEX, "{oops".into()),
            (
                &persist::session_key("lost"),
                persist::encode_session(&lost),
            ),
        ]));
        assert!(matches!(
            loaded.problems.as_slice(),
            [LoadProblem::Index(_)]
        ));
        assert_eq!(
            loaded.index_original.as_deref(),
            Some("{oops"),
            "the original is handed over to be kept"
        );
        assert_eq!(loaded.index.sessions.len(), 1);
        assert_eq!(loaded.index.sessions[0].title, "after a crash");
        assert_eq!(loaded.session.map(|s| s.id), Some("lost".into()));
    }

    #[test]
    fn chats_listed_under_the_old_untitled_name_are_renamed_unless_the_user_chose_it() {
        let untitled = Session::new("u".into(), 1, None, Vec::new());
        let mut named = chat("n", "x", 2);
        named
            .apply(Command::Rename {
                title: "New chat".into(),
            })
            .unwrap();
        let mut index = Index::default();
        index.upsert(&untitled);
        index.upsert(&named);
        for e in &mut index.sessions {
            e.title = "New chat".into();
        }
        let loaded = load(&store(&[
            (persist::KEY_INDEX, persist::encode_index(&index)),
            (
                &persist::session_key("u"),
                persist::encode_session(&untitled),
            ),
            (&persist::session_key("n"), persist::encode_session(&named)),
        ]));
        let titles: Vec<(&str, &str)> = loaded
            .index
            .sessions
            .iter()
            .map(|e| (e.id.as_str(), e.title.as_str()))
            .collect();
        assert_eq!(titles, [("n", "New chat"), ("u", "Untitled chat")]);
    }

    #[test]
    fn storage_that_fails_to_answer_is_a_problem_not_a_crash() {
        let a = chat("a", "x", 1);
        let mut index = Index::default();
        index.upsert(&a);
        let mut m = store(&[
            (persist::KEY_INDEX, persist::encode_index(&index)),
            (&persist::session_key("a"), persist::encode_session(&a)),
        ]);
        m.1 = Some("satori.session.");
        let loaded = load(&m);
        assert_eq!(loaded.session, None);
        assert_eq!(
            loaded.problems,
            vec![LoadProblem::Storage("read failed".into())]
        );
    }

    /// `session`'s record, packed (deflated here as the browser would).
    fn packed_record(session: &Session) -> String {
        let json = persist::encode_session(session);
        let bytes = miniz_oxide::deflate::compress_to_vec_zlib(json.as_bytes(), 6);
        crate::packed::record(
            &crate::packed::Header {
                entry: IndexEntry::of(session),
                json: json.len(),
                compressed: bytes.len(),
                codec: crate::packed::Codec::Deflate,
            },
            &bytes,
        )
    }

    /// Packed chats are listed from their header when the chat list is lost; the active one,
    /// packed, is named to be unpacked and opened (not reported, not skipped for another).
    #[test]
    fn packed_chats_are_listed_from_their_header_and_opened_once_unpacked() {
        let a = chat("a", "older 订单", 1);
        let b = chat("b", "newer", 2);
        let records = [
            (&persist::session_key("a")[..], packed_record(&a)),
            (&persist::session_key("b")[..], packed_record(&b)),
        ];
        let loaded = load(&store(&records));
        let titles: Vec<(&str, &str, i64)> = loaded
            .index
            .sessions
            .iter()
            .map(|e| (e.id.as_str(), e.title.as_str(), e.updated_at))
            .collect();
        assert_eq!(titles, [("b", "newer", 2), ("a", "older 订单", 1)]);
        assert_eq!(
            (loaded.session, loaded.packed),
            (None, Some("b".to_string()))
        );
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);

        // Listed and active, packed; the unpacked record is the chat exactly.
        let mut index = Index::default();
        index.upsert(&a);
        index.upsert(&b);
        index.active = Some("a".into());
        let mut with_index = records.to_vec();
        with_index.push((persist::KEY_INDEX, persist::encode_index(&index)));
        assert_eq!(load(&store(&with_index)).packed.as_deref(), Some("a"));
        let (_, json) = crate::packed::json(&packed_record(&a)).unwrap();
        assert_eq!(persist::decode_session(&json), Ok(a));

        // A damaged header is an unreadable record like any other: reported, the next one opens.
        let mut damaged = with_index.clone();
        damaged[0].1 = "z1:oops\n".into();
        let loaded = load(&store(&damaged));
        assert_eq!(loaded.packed.as_deref(), Some("b"));
        assert_eq!(
            loaded.problems,
            [LoadProblem::Session(DecodeError::Invalid(
                "packed record: its header is damaged".into()
            ))]
        );
    }
}
