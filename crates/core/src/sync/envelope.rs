//! What Satori writes to a sync server, byte for byte: nothing a server can read. Every object is
//! an envelope — a version line, then the nonce and the AES-256-GCM ciphertext of a synced record
//! (the sealing itself is WebCrypto's, `src/adapters/crypto.rs`); object names are keyed hashes
//! of the record's id, so they reveal nothing either. One plain object says how to derive the
//! key from the passphrase ([`Account`]): its salt and iterations, and a sealed known text that
//! tells a wrong passphrase from a damaged object.

use serde::{Deserialize, Serialize};

/// How an envelope starts: the format and its version.
pub const MAGIC: &[u8] = b"satori-sync 1\n";
/// Bytes of an AES-GCM nonce.
pub const NONCE: usize = 12;
/// Bytes of an AES-GCM authentication tag.
pub const TAG: usize = 16;
/// PBKDF2-SHA256 iterations for a new account (OWASP's figure for 2023 on).
pub const ITERATIONS: u32 = 600_000;
/// The most iterations an account object may ask (a hostile or damaged one must not freeze the
/// tab).
pub const MAX_ITERATIONS: u32 = 10_000_000;
/// Bytes of an account's salt.
pub const SALT: usize = 16;
/// The known text sealed in [`Account::check`].
pub const CHECK_TEXT: &[u8] = b"satori-sync passphrase check";
/// The name of the account object on the server.
pub const ACCOUNT_OBJECT: &str = "satori-sync.json";

/// Why an object could not be opened. Neither ever reads as "deleted": the local copy stays.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// Written by a newer Satori (its version line is later).
    #[error("it was written by a newer version of Satori ({0}); update this copy to read it")]
    Newer(String),
    /// Not an envelope, cut short, or it failed its authentication tag.
    #[error("it is damaged (not a Satori sync object, cut short, or changed on the server)")]
    Damaged,
}

/// An envelope's parts: the nonce and the ciphertext (with its tag).
pub fn open(bytes: &[u8]) -> Result<(&[u8], &[u8]), EnvelopeError> {
    let Some(rest) = bytes.strip_prefix(MAGIC) else {
        return Err(match bytes.strip_prefix(b"satori-sync ") {
            Some(v) => {
                let line = v.split(|b| *b == b'\n').next().unwrap_or_default();
                let version = String::from_utf8_lossy(&line[..line.len().min(20)]).into_owned();
                match version.parse::<u32>() {
                    Ok(n) if n > 1 => EnvelopeError::Newer(version),
                    _ => EnvelopeError::Damaged,
                }
            }
            None => EnvelopeError::Damaged,
        });
    };
    if rest.len() < NONCE + TAG {
        return Err(EnvelopeError::Damaged);
    }
    Ok(rest.split_at(NONCE))
}

/// An envelope of `nonce` and `ciphertext`.
pub fn seal(nonce: &[u8], ciphertext: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAGIC.len() + nonce.len() + ciphertext.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(nonce);
    out.extend_from_slice(ciphertext);
    out
}

/// The one plain object on the server: how the key is derived, and a check of the passphrase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// The format's version.
    pub v: u32,
    /// `PBKDF2-SHA256`.
    pub kdf: String,
    /// Its iterations.
    pub iterations: u32,
    /// Its salt, base64 (16 random bytes, made once per account).
    pub salt: String,
    /// [`CHECK_TEXT`] sealed with the key, base64 of an envelope: a passphrase that cannot open
    /// it is wrong.
    pub check: String,
}

impl Account {
    /// A new account of `salt`, with the passphrase's check sealed as `check` (an envelope).
    pub fn new(salt: &[u8], check: &[u8]) -> Account {
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD;
        Account {
            v: 1,
            kdf: "PBKDF2-SHA256".into(),
            iterations: ITERATIONS,
            salt: b64.encode(salt),
            check: b64.encode(check),
        }
    }

    /// Its salt and its check, as bytes.
    pub fn parts(&self) -> Result<(Vec<u8>, Vec<u8>), String> {
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD;
        let decode = |s: &str| b64.decode(s).map_err(|e| format!("it is damaged ({e})"));
        Ok((decode(&self.salt)?, decode(&self.check)?))
    }

    /// The account object read from the server, checked: a newer format or an unknown key
    /// derivation is refused, and so are iterations below what Satori writes (a server cannot
    /// weaken the key).
    pub fn read(text: &str) -> Result<Account, String> {
        let a: Account = serde_json::from_str(text).map_err(|e| format!("it is not JSON ({e})"))?;
        if a.v > 1 {
            return Err(format!(
                "it was written by a newer version of Satori (version {})",
                a.v
            ));
        }
        if a.kdf != "PBKDF2-SHA256" || !(ITERATIONS..=MAX_ITERATIONS).contains(&a.iterations) {
            return Err(format!(
                "its key derivation ({} × {}) is not one Satori accepts",
                a.kdf, a.iterations
            ));
        }
        match a.parts() {
            Ok((salt, _)) if salt.len() >= SALT => Ok(a),
            Ok(_) => Err("its salt is too short".into()),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_are_read_back_and_anything_else_is_damaged_or_newer() {
        let nonce = [7u8; NONCE];
        let body = [9u8; TAG + 5];
        let sealed = seal(&nonce, &body);
        assert_eq!(open(&sealed), Ok((&nonce[..], &body[..])));
        let cases: &[(&[u8], EnvelopeError)] = &[
            (b"", EnvelopeError::Damaged),
            (b"{\"title\":\"plain\"}", EnvelopeError::Damaged),
            (b"satori-sync 1\nshort", EnvelopeError::Damaged),
            (
                b"satori-sync 2\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                EnvelopeError::Newer("2".into()),
            ),
            (b"satori-sync x\n", EnvelopeError::Damaged),
        ];
        for (bytes, want) in cases {
            assert_eq!(
                open(bytes),
                Err(want.clone()),
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn an_account_object_cannot_weaken_the_key() {
        let salt = b"sixteen byte slt";
        let good = serde_json::to_string(&Account::new(salt, b"x")).unwrap();
        let good = good.as_str();
        assert_eq!(Account::read(good).unwrap().iterations, ITERATIONS);
        assert_eq!(Account::read(good).unwrap(), Account::new(salt, b"x"));
        assert_eq!(
            Account::new(salt, b"x").parts().unwrap(),
            (salt.to_vec(), b"x".to_vec())
        );
        let mut bad = Account::new(salt, b"x");
        bad.salt = "***".into();
        assert!(bad.parts().is_err());
        let slow = good.replace("600000", "4000000000");
        assert!(Account::read(&slow)
            .unwrap_err()
            .contains("not one Satori accepts"));
        let short = serde_json::to_string(&Account::new(b"salt", b"x")).unwrap();
        assert!(Account::read(&short)
            .unwrap_err()
            .contains("salt is too short"));
        let weak = good.replace("600000", "1000");
        assert!(Account::read(&weak)
            .unwrap_err()
            .contains("not one Satori accepts"));
        let newer = good.replace("\"v\":1", "\"v\":2");
        assert!(Account::read(&newer).unwrap_err().contains("newer version"));
        assert!(Account::read("<html>").unwrap_err().contains("not JSON"));
    }
}
