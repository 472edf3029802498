//! One sync pass, decided: from the folder's listing and what this device knows of each record,
//! which objects to download (to merge in) and which to upload (and on what condition). Downloads
//! come first, so a device merges before it writes; a new, empty device has nothing to upload and
//! never writes emptiness over anything.

use super::webdav::{bare_etag, Listed};
use std::collections::BTreeMap;

/// What this device knows of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// Its object's name on the server (a keyed hash of the record's id).
    pub name: String,
    /// The object's ETag when this device last read or wrote it (`None`: never synced).
    pub etag: Option<String>,
    /// Changed here since then.
    pub dirty: bool,
}

/// A step of a pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Read object `name` and merge it in.
    Download(String),
    /// Write object `name`, only if its ETag is still `if_match` (`None`: only if there is none).
    Upload {
        /// The object.
        name: String,
        /// The ETag it must still have.
        if_match: Option<String>,
    },
}

/// Whether `name` is an object Satori writes: a record (64 hex digits, a keyed hash) or the
/// account object. Anything else in the folder (a `.DS_Store`, a file someone put there) is left
/// alone: never read, never reported as damaged.
pub fn ours(name: &str, account: &str) -> bool {
    name == account
        || (name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
}

/// The objects to download and merge in: the records of the folder that this device has not
/// seen as they are now.
pub fn downloads(listing: &[Listed], known: &[Known], account: &str) -> Vec<String> {
    let mine: BTreeMap<&str, &Known> = known.iter().map(|k| (k.name.as_str(), k)).collect();
    listing
        .iter()
        .filter(|l| l.name != account && ours(&l.name, account))
        .filter(|l| {
            mine.get(l.name.as_str())
                .is_none_or(|k| k.etag.as_deref().map(bare_etag) != Some(bare_etag(&l.etag)))
        })
        .map(|l| l.name.clone())
        .collect()
}

/// The objects to upload once the downloads are merged (`known` as they left this device: the
/// ETag each record was read or written at, and dirty when it holds what that object lacks):
/// each dirty record whose object the folder still lists at that ETag, on that ETag (an object
/// listed at another ETag is downloaded first: never written over unread), and each record the
/// folder lacks (never written, or lost by the server) as new. A record merged to what it read
/// is not written back, so two devices never answer each other's writes forever. A 412 means
/// another device wrote meanwhile: the caller downloads, merges and plans again.
pub fn uploads(listing: &[Listed], known: &[Known]) -> Vec<Step> {
    let remote: BTreeMap<&str, &str> = listing
        .iter()
        .map(|l| (l.name.as_str(), bare_etag(&l.etag)))
        .collect();
    known
        .iter()
        .filter_map(|k| match remote.get(k.name.as_str()) {
            Some(listed) if k.dirty && k.etag.as_deref().map(bare_etag) == Some(*listed) => {
                Some(Step::Upload {
                    name: k.name.clone(),
                    if_match: k.etag.clone(),
                })
            }
            Some(_) => None,
            None => Some(Step::Upload {
                name: k.name.clone(),
                if_match: None,
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str, etag: &str) -> Listed {
        Listed {
            name: name.into(),
            etag: etag.into(),
        }
    }

    fn known(name: &str, etag: Option<&str>, dirty: bool) -> Known {
        Known {
            name: name.into(),
            etag: etag.map(str::to_string),
            dirty,
        }
    }

    fn up(name: &str, if_match: Option<&str>) -> Step {
        Step::Upload {
            name: name.into(),
            if_match: if_match.map(str::to_string),
        }
    }

    #[test]
    fn a_pass_downloads_what_changed_and_uploads_only_what_this_device_adds() {
        let (a, b, n, g) = (
            &"a".repeat(64),
            &"b".repeat(64),
            &"c".repeat(64),
            &"d".repeat(64),
        );
        let account = listed("satori-sync.json", "1");
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        type Case = (Vec<Listed>, Vec<Known>, Vec<String>, Vec<Step>);
        let cases: Vec<Case> = vec![
            // A new, empty device: every record is downloaded, nothing uploaded; a file that is
            // not Satori's is left alone.
            (
                vec![
                    account.clone(),
                    listed(a, "1"),
                    listed(b, "1"),
                    listed(".DS_Store", "9"),
                ],
                vec![],
                names(&[a, b]),
                vec![],
            ),
            // Nothing changed anywhere: nothing to do (ETags compared bare).
            (
                vec![listed(a, "1")],
                vec![known(a, Some("\"1\""), false)],
                vec![],
                vec![],
            ),
            // Changed here only: written on the ETag it was read at, as the server wrote it.
            (
                vec![listed(a, "1")],
                vec![known(a, Some("\"1\""), true)],
                vec![],
                vec![up(a, Some("\"1\""))],
            ),
            // Changed there only: read; merged to what was read, so not written back.
            (
                vec![listed(a, "2")],
                vec![known(a, Some("1"), false)],
                names(&[a]),
                vec![],
            ),
            // Changed on both, and the download has not been merged yet: never written over
            // unread (after the merge, `known` holds the ETag read, and it is written then).
            (
                vec![listed(a, "2")],
                vec![known(a, Some("1"), true)],
                names(&[a]),
                vec![],
            ),
            (
                vec![listed(a, "2")],
                vec![known(a, Some("2"), true)],
                vec![],
                vec![up(a, Some("2"))],
            ),
            // New here: written as new; gone from the server: written again, as new.
            (
                vec![],
                vec![known(n, None, true), known(g, Some("4"), false)],
                vec![],
                vec![up(n, None), up(g, None)],
            ),
        ];
        for (listing, known, down, up) in cases {
            assert_eq!(
                downloads(&listing, &known, "satori-sync.json"),
                down,
                "{listing:?} {known:?}"
            );
            assert_eq!(uploads(&listing, &known), up, "{listing:?} {known:?}");
        }
    }
}
