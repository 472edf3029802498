//! The folder's write log: after writing records, a device notes them (each object's name, the
//! ETag the write replaced and the ETag after it) in a new, numbered log object, `satori-sync-log-<n>`, created only
//! if there is none of that number yet (`If-None-Match: *`). A pass learns what changed elsewhere
//! by reading the log objects after the last one it took in — one read, answered `404` when
//! nothing changed — instead of listing the whole folder (about 280 bytes a chat).
//!
//! Log objects are never written over, so two devices noting at once never lose a note (the
//! second finds the number taken and takes the next), and a server's weak or coarse ETags do not
//! matter to them. They hold nothing readable: object names are keyed hashes and ETags are the
//! server's own.
//!
//! The log is a hint, never the truth: a pass lists the folder when it cannot trust it (more
//! than [`MAX_READ`] log objects to read, one that cannot be read), and so do "Sync now", the
//! first pass after the page loads and one an hour, so a write the log missed (a device closed
//! between writing a chat and noting it, an older Satori that does not note, the folder edited
//! by hand) is found within that time. A listing also tells where the log stands (the highest
//! number + 1) and which log objects are old enough to remove ([`KEEP`]).

use super::webdav::Listed;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The log objects' names: this, then the number.
pub const PREFIX: &str = "satori-sync-log-";

/// How many log objects a pass reads before it lists the folder instead.
pub const MAX_READ: u64 = 64;

/// How many of the latest log objects are kept; older ones are removed by a device that lists
/// the folder. (A device reads past them only if it did not list the folder for that many
/// notes, and every device lists at least hourly.)
pub const KEEP: u64 = 1024;

/// The log objects' format.
const VERSION: u32 = 1;

/// One write of an object as noted: its name, the ETag the write replaced ("" for a new object)
/// and its ETag after the write ("" when the server did not say it: then the object is read).
pub type Noted = (String, String, String);

/// One log object: the writes one pass noted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// Its format (a newer one is not read: the folder is listed instead).
    pub v: u32,
    /// The objects written.
    pub writes: Vec<Noted>,
}

impl Note {
    /// A note of `writes`.
    pub fn new(writes: &[Noted]) -> Note {
        Note {
            v: VERSION,
            writes: writes.to_vec(),
        }
    }

    /// The note stored as `bytes`; `None` when it is not one this Satori reads (damaged, or a
    /// newer format).
    pub fn read(bytes: &[u8]) -> Option<Note> {
        let note: Note = serde_json::from_slice(bytes).ok()?;
        (note.v == VERSION).then_some(note)
    }

    /// The note as stored.
    pub fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// Log object number `n`'s name.
pub fn name(n: u64) -> String {
    format!("{PREFIX}{n}")
}

/// The number of log object `name` (`None`: not a log object).
pub fn number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix(PREFIX)?;
    let plain = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    plain.then(|| digits.parse().ok()).flatten()
}

/// Where the log stands in a listing: the number the next note takes (1 when there is none).
pub fn next(listing: &[Listed]) -> u64 {
    listing
        .iter()
        .filter_map(|l| number(&l.name))
        .max()
        .map_or(1, |n| n.saturating_add(1))
}

/// The log objects of a listing old enough to remove: all but the latest [`KEEP`].
pub fn old(listing: &[Listed]) -> Vec<&Listed> {
    let next = next(listing);
    listing
        .iter()
        .filter(|l| number(&l.name).is_some_and(|n| n.saturating_add(KEEP) < next))
        .collect()
}

/// The ETag [`listing`] gives an object whose latest ETag the notes cannot say: unlike any this
/// device holds, so the object is read.
pub const UNSURE: &str = "?";

/// The folder as this device last saw it (`known`: object name → ETag read or written) with what
/// the log's later `writes` say over it: what a listing would say, without one. Notes may arrive
/// out of the order of the writes (a device notes after all its writes, another may note a later
/// write of the same object first), so an object's ETag is the one no noted write of it replaced;
/// when the notes cannot say (an ETag not said, or no single latest), [`UNSURE`]. An object
/// another device removed is still in it (only a listing finds that).
pub fn listing(known: &BTreeMap<String, String>, writes: &[Noted]) -> Vec<Listed> {
    let mut now: BTreeMap<&str, &str> = known
        .iter()
        .map(|(name, etag)| (name.as_str(), etag.as_str()))
        .collect();
    let mut by_object: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    for (name, replaced, etag) in writes {
        by_object
            .entry(name)
            .or_default()
            .push((replaced.as_str(), etag.as_str()));
    }
    for (name, edges) in by_object {
        now.insert(name, latest(&edges).unwrap_or(UNSURE));
    }
    now.into_iter()
        .map(|(name, etag)| Listed {
            name: name.to_string(),
            etag: etag.to_string(),
        })
        .collect()
}

/// The latest ETag of an object from its noted writes (each: the ETag it replaced, its own):
/// the one no other noted write replaced; `None` when the notes cannot say.
fn latest<'a>(edges: &[(&'a str, &'a str)]) -> Option<&'a str> {
    use super::webdav::bare_etag;
    if edges.iter().any(|(_, etag)| etag.is_empty()) {
        return None;
    }
    let replaced: std::collections::BTreeSet<&str> =
        edges.iter().map(|(r, _)| bare_etag(r)).collect();
    let mut heads = edges
        .iter()
        .map(|(_, etag)| *etag)
        .filter(|etag| !replaced.contains(bare_etag(etag)));
    let head = heads.next()?;
    heads
        .all(|h| bare_etag(h) == bare_etag(head))
        .then_some(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str) -> Listed {
        Listed {
            name: name.into(),
            etag: "1".into(),
        }
    }

    #[test]
    fn log_objects_are_told_apart_by_their_names() {
        let cases = [
            ("satori-sync-log-1", Some(1)),
            ("satori-sync-log-1024", Some(1024)),
            ("satori-sync-log-", None),
            ("satori-sync-log-+1", None),
            ("satori-sync-log-1.json", None),
            ("satori-sync-log-99999999999999999999999", None),
            ("satori-sync.json", None),
            (&"a".repeat(64), None),
        ];
        for (name, want) in cases {
            assert_eq!(number(name), want, "{name}");
        }
        assert_eq!(name(7), "satori-sync-log-7");
        assert_eq!(number(&name(7)), Some(7));
    }

    #[test]
    fn a_listing_says_where_the_log_stands_and_what_is_old() {
        let none = [listed("satori-sync.json"), listed(&"a".repeat(64))];
        assert_eq!(next(&none), 1);
        assert!(old(&none).is_empty());
        let some: Vec<Listed> = [3, 1, 2].iter().map(|n| listed(&name(*n))).collect();
        assert_eq!(next(&some), 4);
        assert!(old(&some).is_empty());
        let many: Vec<Listed> = (1..=KEEP + 3).map(|n| listed(&name(n))).collect();
        let gone: Vec<&str> = old(&many).iter().map(|l| l.name.as_str()).collect();
        assert_eq!(gone, [name(1), name(2), name(3)]);
    }

    #[test]
    fn only_a_note_of_this_format_is_read() {
        let note = Note::new(&[("a".into(), String::new(), "1".into())]);
        assert_eq!(Note::read(&note.bytes()), Some(note.clone()));
        let mut newer = note.clone();
        newer.v = VERSION + 1;
        for bad in [newer.bytes(), b"{".to_vec(), b"[]".to_vec()] {
            assert_eq!(Note::read(&bad), None, "{}", String::from_utf8_lossy(&bad));
        }
    }

    fn noted(writes: &[(&str, &str, &str)]) -> Vec<Noted> {
        writes
            .iter()
            .map(|(n, r, e)| (n.to_string(), r.to_string(), e.to_string()))
            .collect()
    }

    #[test]
    fn the_listing_is_what_this_device_saw_with_the_later_writes_over_it() {
        let known = BTreeMap::from([
            ("a".to_string(), "1".to_string()),
            ("b".to_string(), "1".to_string()),
        ]);
        let writes = noted(&[
            ("b", "1", "2"),
            ("c", "", "1"),
            ("b", "2", "3"),
            ("d", "", ""),
        ]);
        let got: Vec<(String, String)> = listing(&known, &writes)
            .into_iter()
            .map(|l| (l.name, l.etag))
            .collect();
        let want = [("a", "1"), ("b", "3"), ("c", "1"), ("d", UNSURE)];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(n, e)| (n.to_string(), e.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn notes_out_of_the_order_of_the_writes_still_say_the_latest() {
        let of = |writes: &[(&str, &str, &str)]| -> String {
            let known = BTreeMap::from([("x".to_string(), "E2".to_string())]);
            listing(&known, &noted(writes))[0].etag.clone()
        };
        type Case<'a> = (&'a [(&'a str, &'a str, &'a str)], &'a str);
        let cases: &[Case] = &[
            // This device wrote E2 over E1; another device then read E2 and wrote E3, and noted
            // it first: E3 is the latest, though E2's note comes last.
            (&[("x", "E2", "E3"), ("x", "E1", "E2")], "E3"),
            (&[("x", "E1", "E2"), ("x", "E2", "E3")], "E3"),
            // Only this device's own write, noted again: E2, nothing to read.
            (&[("x", "E1", "E2")], "E2"),
            // Quoted and unquoted ETags of one write are one.
            (
                &[("x", "\"E1\"", "\"E2\""), ("x", "E2", "\"E3\"")],
                "\"E3\"",
            ),
            // Two writes over the same ETag, or one with no ETag said: the notes cannot say.
            (&[("x", "E1", "E2"), ("x", "E1", "E9")], UNSURE),
            (&[("x", "E1", "E2"), ("x", "E2", "")], UNSURE),
            // The object made anew after someone removed it: two heads, so read.
            (
                &[("x", "", "E1"), ("x", "E1", "E2"), ("x", "", "E5")],
                UNSURE,
            ),
        ];
        for (writes, want) in cases {
            assert_eq!(of(writes), *want, "{writes:?}");
        }
    }
}
