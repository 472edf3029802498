//! Which API key may go to which server.
//!
//! Invariant: a key is only ever sent to the base URL it was entered for. The Settings dialog
//! keeps the key field together with the base URL it belongs to ([`KeyField`]); changing the
//! base URL by any means — a preset, "Custom", or typing — empties the field unless the stored
//! key belongs to the new URL, and saving binds a key only to the URL it was typed for
//! ([`key_save`]). Sending looks the key up by the URL it sends to
//! ([`ApiKeyRecord::key_for`]).

use serde::{Deserialize, Serialize};

/// The API key and the base URL it was saved for (the `satori.api_key` record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKeyRecord {
    /// The secret.
    pub key: String,
    /// The API base URL the key belongs to.
    pub base_url: String,
}

impl ApiKeyRecord {
    /// The key, if it belongs to `base_url`.
    pub fn key_for(&self, base_url: &str) -> Option<&str> {
        same_base(&self.base_url, base_url).then_some(self.key.as_str())
    }
}

/// A base URL as compared for key ownership: trimmed, without trailing slashes, ASCII lowercase.
fn normalized(base_url: &str) -> String {
    base_url.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// Whether two base URLs name the same server for the purpose of sending a key.
pub fn same_base(a: &str, b: &str) -> bool {
    normalized(a) == normalized(b)
}

/// The key field of the Settings dialog and the base URL its text belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyField {
    /// What the field shows.
    pub text: String,
    /// The base URL the text was loaded or typed for.
    pub owner: String,
}

impl KeyField {
    /// The field as the dialog opens on `base_url`: the stored key if it belongs there.
    pub fn load(stored: Option<&ApiKeyRecord>, base_url: &str) -> KeyField {
        KeyField {
            text: stored
                .and_then(|r| r.key_for(base_url))
                .unwrap_or_default()
                .to_string(),
            owner: base_url.to_string(),
        }
    }

    /// The user typed `text` while the base URL field held `base_url`.
    pub fn typed(text: &str, base_url: &str) -> KeyField {
        KeyField {
            text: text.to_string(),
            owner: base_url.to_string(),
        }
    }

    /// The base URL field now holds `base_url`. A key typed for another URL never follows it:
    /// the field shows the stored key of the new URL, or nothing.
    pub fn follow_base(&self, base_url: &str, stored: Option<&ApiKeyRecord>) -> KeyField {
        if same_base(&self.owner, base_url) {
            return KeyField {
                text: self.text.clone(),
                owner: base_url.to_string(),
            };
        }
        KeyField::load(stored, base_url)
    }

    /// The key to send to `base_url` from the dialog (for its model list), if it belongs there.
    pub fn usable_for(&self, base_url: &str) -> Option<&str> {
        let key = self.text.trim();
        (!key.is_empty() && same_base(&self.owner, base_url)).then_some(key)
    }
}

/// What saving the Settings dialog does to the stored key record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeySave {
    /// Store this record (replacing any other).
    Write(ApiKeyRecord),
    /// Remove the stored key (the user emptied the field of the server it belongs to).
    Remove,
    /// Leave the stored record as it is (it stays bound to its own server).
    Keep,
}

/// What "Settings" tells the app when it saved: the validated settings, what happens to the key
/// record, and a storage problem if the records could not be written (the app then uses them in
/// memory for this tab, as it says).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SettingsSaved {
    /// The validated settings.
    pub settings: crate::settings::Settings,
    /// The key decision ([`key_save`]).
    pub key: KeySave,
    /// Why the records were not (all) written, in words, if so.
    pub problem: Option<String>,
}

/// The decision when settings with base URL `base_url` are saved with the key field `field`.
pub fn key_save(field: &KeyField, base_url: &str, stored: Option<&ApiKeyRecord>) -> KeySave {
    if let Some(key) = field.usable_for(base_url) {
        return KeySave::Write(ApiKeyRecord {
            key: key.to_string(),
            base_url: base_url.trim().trim_end_matches('/').to_string(),
        });
    }
    match stored {
        Some(r) if same_base(&r.base_url, base_url) && same_base(&field.owner, base_url) => {
            KeySave::Remove
        }
        _ => KeySave::Keep,
    }
}

/// True when `base_url` is plain `http://` to a host that is not this machine: a key sent
/// there travels unencrypted.
pub fn plain_http_remote(base_url: &str) -> bool {
    normalized(base_url).starts_with("http://") && !on_this_machine(base_url)
}

/// True when `base_url` (`http://` or `https://`) names this machine (localhost, 127.x.x.x, ::1):
/// reachable with no network.
pub fn on_this_machine(base_url: &str) -> bool {
    let lower = normalized(base_url);
    let Some(rest) = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
    else {
        return false;
    };
    // Browsers end the host at `\` too (it is read as `/` in http URLs).
    let authority = rest.split(['/', '\\', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        host_port.split(':').next().unwrap_or_default()
    };
    let loopback = host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || (host.starts_with("127.")
            && host.split('.').count() == 4
            && host.split('.').all(|p| p.parse::<u8>().is_ok()));
    loopback
}

/// The folder of a page at URL path `path` (`/tools/satori/index.html` → `/tools/satori/`).
pub fn page_folder(path: &str) -> &str {
    &path[..path.rfind('/').map_or(0, |i| i + 1)]
}

/// Whether a page at URL path `path` may share its origin with pages that are not Satori's: it
/// is served under a folder of its host, not at the root. The browser keeps storage per origin
/// (scheme, host and port), not per path, so every page of the origin can read the API key and
/// the chats; Satori cannot know whether the host's other paths are its own, so Settings says so
/// once. At the root, the origin is Satori's.
pub fn may_share_origin(path: &str) -> bool {
    !matches!(page_folder(path), "" | "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "https://api.a.test/v1";
    const B: &str = "https://api.b.test/v1";

    fn rec(key: &str, base: &str) -> ApiKeyRecord {
        ApiKeyRecord {
            key: key.into(),
            base_url: base.into(),
        }
    }

    #[test]
    fn the_field_follows_its_base_url() {
        let stored = rec("sk-a", A);
        // (field before, new base, stored, field text after)
        let cases: &[(KeyField, &str, Option<&ApiKeyRecord>, &str)] = &[
            // Typing another URL empties a key loaded for the old one. See: #9
            (KeyField::load(Some(&stored), A), B, Some(&stored), ""),
            // Typing it char by char: the first changed character already empties it.
            (
                KeyField::load(Some(&stored), A),
                "https://api.a.test/v",
                Some(&stored),
                "",
            ),
            // A key typed for B does not follow to C.
            (
                KeyField::typed("sk-b", B),
                "https://c.test/v1",
                Some(&stored),
                "",
            ),
            // Going back to A shows A's stored key again.
            (KeyField::typed("", B), A, Some(&stored), "sk-a"),
            (
                KeyField::typed("sk-b", B),
                "HTTPS://API.A.TEST/v1/",
                Some(&stored),
                "sk-a",
            ),
            // The same URL with a trailing slash or other case keeps what was typed.
            (
                KeyField::typed("sk-new", A),
                "https://API.a.test/v1/",
                Some(&stored),
                "sk-new",
            ),
            // Nothing stored: nothing to restore.
            (KeyField::typed("sk-b", B), A, None, ""),
        ];
        for (before, base, stored, want) in cases {
            let after = before.follow_base(base, *stored);
            assert_eq!(after.text, *want, "{before:?} → {base}");
            assert_eq!(after.owner, *base);
        }
    }

    #[test]
    fn saving_binds_a_key_only_to_the_url_it_was_typed_for() {
        let stored = rec("sk-a", A);
        let cases: &[(KeyField, &str, Option<&ApiKeyRecord>, KeySave)] = &[
            (
                KeyField::typed("  sk-a2 ", A),
                "https://api.a.test/v1/",
                Some(&stored),
                KeySave::Write(rec("sk-a2", A)),
            ),
            (
                KeyField::typed("sk-b", B),
                B,
                Some(&stored),
                KeySave::Write(rec("sk-b", B)),
            ),
            // The defect: a key typed for A saved with base URL B. See: #9
            (KeyField::typed("sk-a", A), B, Some(&stored), KeySave::Keep),
            (KeyField::typed("sk-a", A), B, None, KeySave::Keep),
            // Emptying the field of A's own key removes it.
            (KeyField::typed("", A), A, Some(&stored), KeySave::Remove),
            // Saving B with no key keeps A's key bound to A.
            (KeyField::typed("", B), B, Some(&stored), KeySave::Keep),
            (KeyField::typed("", B), B, None, KeySave::Keep),
        ];
        for (field, base, stored, want) in cases {
            assert_eq!(
                key_save(field, base, *stored),
                *want,
                "{field:?} saved for {base}"
            );
        }
    }

    #[test]
    fn usable_only_for_its_owner() {
        let f = KeyField::typed("sk", A);
        assert_eq!(f.usable_for(A), Some("sk"));
        assert_eq!(f.usable_for(B), None);
        assert_eq!(KeyField::typed("  ", A).usable_for(A), None);
        assert_eq!(rec("sk", A).key_for("https://api.a.test/v1/"), Some("sk"));
        assert_eq!(rec("sk", A).key_for(B), None);
        assert_eq!(
            rec("sk", A).key_for("https://api.a.test.evil.test/v1"),
            None
        );
    }

    #[test]
    fn servers_on_this_machine_whatever_the_scheme() {
        for (url, want) in [
            ("https://localhost:8443/v1", true),
            ("http://127.0.0.1:8080/v1", true),
            ("https://[::1]/v1", true),
            ("https://api.openai.com/v1", false),
            ("https://127.0.0.1.evil.test/v1", false),
            ("ftp://localhost/", false),
        ] {
            assert_eq!(on_this_machine(url), want, "{url}");
        }
    }

    #[test]
    fn plain_http_to_another_machine_is_flagged() {
        let cases = [
            ("http://127.0.0.1:8080/v1", false),
            ("http://127.5.6.7/v1", false),
            ("http://localhost:11434/v1", false),
            ("http://LOCALHOST/v1", false),
            ("http://app.localhost/v1", false),
            ("http://[::1]:8080/v1", false),
            ("https://api.openai.com/v1", false),
            ("http://api.example.com/v1", true),
            ("http://192.168.1.10:8080/v1", true),
            ("http://127.0.0.1.evil.test/v1", true),
            ("http://localhost.evil.test/v1", true),
            ("http://user@evil.test/v1", true),
            ("http://127.0.0.1@evil.test/v1", true),
            ("http://evil.test\\@127.0.0.1/v1", true),
            ("http://[::2]/v1", true),
        ];
        for (url, want) in cases {
            assert_eq!(plain_http_remote(url), want, "{url}");
            if want {
                assert!(!on_this_machine(url), "{url}");
            }
        }
    }

    #[test]
    fn a_page_under_a_folder_may_share_its_origin() {
        let cases = [
            ("/", "/", false),
            ("/index.html", "/", false),
            ("", "", false),
            ("/satori/", "/satori/", true),
            ("/tools/satori/index.html", "/tools/satori/", true),
            ("/satori", "/", false),
            ("/~ann/satori/", "/~ann/satori/", true),
        ];
        for (path, folder, want) in cases {
            assert_eq!(page_folder(path), folder, "{path}");
            assert_eq!(may_share_origin(path), want, "{path}");
        }
    }
}
