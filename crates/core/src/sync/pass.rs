//! One sync pass, decided: from the folder's listing and what this device knows of each record,
//! which objects to download (to merge in) and which to upload (and on what condition). Downloads
//! come first, so a device merges before it writes; a new, empty device has nothing to upload and
//! never writes emptiness over anything.

use super::webdav::Listed;
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

/// The objects to download and merge in: those of the folder (but `skip`, the account object)
/// that this device has not seen as they are now.
pub fn downloads(listing: &[Listed], known: &[Known], skip: &str) -> Vec<String> {
    let mine: BTreeMap<&str, &Known> = known.iter().map(|k| (k.name.as_str(), k)).collect();
    listing
        .iter()
        .filter(|l| l.name != skip)
        .filter(|l| {
            mine.get(l.name.as_str())
                .is_none_or(|k| k.etag.as_deref() != Some(l.etag.as_str()))
        })
        .map(|l| l.name.clone())
        .collect()
}

/// The objects to upload once the downloads are merged (`known` as they left this device: a
/// record whose merge holds what the object it read lacks is dirty, on the ETag it read): each
/// dirty record on the ETag the folder lists, and each record the folder lacks (never written,
/// or lost by the server) as new. A record merged to what it read is not written back, so two
/// devices never answer each other's writes forever. A 412 means another device wrote
/// meanwhile: the caller downloads, merges and plans again.
pub fn uploads(listing: &[Listed], known: &[Known]) -> Vec<Step> {
    let remote: BTreeMap<&str, &str> = listing
        .iter()
        .map(|l| (l.name.as_str(), l.etag.as_str()))
        .collect();
    known
        .iter()
        .filter_map(|k| match remote.get(k.name.as_str()) {
            Some(etag) if k.dirty => Some(Step::Upload {
                name: k.name.clone(),
                if_match: Some(etag.to_string()),
            }),
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
        let account = listed("satori-sync.json", "1");
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        type Case = (Vec<Listed>, Vec<Known>, Vec<String>, Vec<Step>);
        let cases: Vec<Case> = vec![
            // A new, empty device: everything is downloaded, nothing uploaded.
            (
                vec![account.clone(), listed("a", "1"), listed("b", "1")],
                vec![],
                names(&["a", "b"]),
                vec![],
            ),
            // Nothing changed anywhere: nothing to do.
            (
                vec![listed("a", "1")],
                vec![known("a", Some("1"), false)],
                vec![],
                vec![],
            ),
            // Changed here only: written on the ETag it has.
            (
                vec![listed("a", "1")],
                vec![known("a", Some("1"), true)],
                vec![],
                vec![up("a", Some("1"))],
            ),
            // Changed there only: read; merged to what was read, so not written back.
            (
                vec![listed("a", "2")],
                vec![known("a", Some("1"), false)],
                names(&["a"]),
                vec![],
            ),
            // Changed on both: read (and once merged, dirty) then written on that ETag.
            (
                vec![listed("a", "2")],
                vec![known("a", Some("1"), true)],
                names(&["a"]),
                vec![up("a", Some("2"))],
            ),
            // New here: written as new; gone from the server: written again, as new.
            (
                vec![],
                vec![known("n", None, true), known("g", Some("4"), false)],
                vec![],
                vec![up("n", None), up("g", None)],
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
