//! End-to-end encryption for sync (`crypto.js`, WebCrypto): the keys derived from the passphrase,
//! sealing and opening the objects written to the server (`core::sync::envelope`), and the
//! keyed names that reveal nothing of what an object holds.

use crate::adapters::js::JsError;
use crate::core::sync::envelope::{self, Account, EnvelopeError};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/adapters/crypto.js")]
extern "C" {
    #[wasm_bindgen(js_name = deriveKeys, catch)]
    async fn derive_keys(
        passphrase: &str,
        salt: &[u8],
        iterations: u32,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = randomBytes)]
    fn random_bytes(n: u32) -> Vec<u8>;
    #[wasm_bindgen(catch)]
    async fn encrypt(
        keys: &JsValue,
        nonce: &[u8],
        name: &str,
        bytes: &[u8],
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch)]
    async fn decrypt(
        keys: &JsValue,
        nonce: &[u8],
        name: &str,
        bytes: &[u8],
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = keyedName, catch)]
    async fn keyed_name(keys: &JsValue, text: &str) -> Result<JsValue, JsValue>;
}

/// Why encryption could not be done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CryptoError {
    /// The page is not a secure context (plain http:// other than localhost): no WebCrypto.
    #[error("this page is not served over https:// (or from localhost), so the browser offers no encryption to sync with")]
    Insecure,
    /// The passphrase does not open the account's check.
    #[error("the encryption passphrase is not the one this sync folder was started with")]
    WrongPassphrase,
    /// The account object cannot be used.
    #[error("the sync folder's satori-sync.json cannot be used: {0}")]
    Account(String),
    /// An object could not be opened.
    #[error("{0}")]
    Object(#[from] EnvelopeError),
    /// Anything else WebCrypto said.
    #[error("the browser's encryption failed: {0}")]
    Failed(String),
}

fn failed(e: JsValue) -> CryptoError {
    let message = JsError::from(e).message;
    if message.contains("insecure") {
        CryptoError::Insecure
    } else {
        CryptoError::Failed(message)
    }
}

/// The keys of one sync account (not extractable: they never leave WebCrypto).
#[derive(Clone)]
pub struct Keys(JsValue);

impl Keys {
    /// The keys as the browser's database keeps them (structured clone: still not extractable).
    pub fn stored(&self) -> &JsValue {
        &self.0
    }

    /// Keys kept by [`Keys::stored`]; `None` when `value` is not such keys.
    pub fn from_stored(value: JsValue) -> Option<Keys> {
        let has = |k: &str| js_sys::Reflect::get(&value, &k.into()).is_ok_and(|v| v.is_object());
        (value.is_object() && has("aes") && has("mac")).then_some(Keys(value))
    }
}

/// `n` random bytes (the browser's CSPRNG).
pub fn random(n: u32) -> Vec<u8> {
    random_bytes(n)
}

/// The keys `passphrase` gives with `salt` and `iterations` (PBKDF2-SHA256).
pub async fn derive(passphrase: &str, salt: &[u8], iterations: u32) -> Result<Keys, CryptoError> {
    derive_keys(passphrase, salt, iterations)
        .await
        .map(Keys)
        .map_err(failed)
}

/// `plaintext`, sealed as object `name`: an envelope with a fresh random nonce, bound to that
/// name (it opens under no other).
pub async fn seal(keys: &Keys, name: &str, plaintext: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let nonce = random(envelope::NONCE as u32);
    let sealed = encrypt(&keys.0, &nonce, name, plaintext)
        .await
        .map_err(failed)?;
    Ok(envelope::seal(
        &nonce,
        &js_sys::Uint8Array::new(&sealed).to_vec(),
    ))
}

/// What envelope `bytes`, read as object `name`, holds: refused as damaged when it fails its tag
/// (changed on the server, moved under another name, or sealed with other keys), as newer when
/// a later Satori wrote it.
pub async fn open(keys: &Keys, name: &str, bytes: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let (nonce, ciphertext) = envelope::open(bytes)?;
    let plain = decrypt(&keys.0, nonce, name, ciphertext)
        .await
        .map_err(failed)?;
    if plain.is_null() {
        return Err(EnvelopeError::Damaged.into());
    }
    Ok(js_sys::Uint8Array::new(&plain).to_vec())
}

/// The server's name of the object holding record `id`: a keyed hash, hex.
pub async fn name(keys: &Keys, id: &str) -> Result<String, CryptoError> {
    keyed_name(&keys.0, id)
        .await
        .map_err(failed)?
        .as_string()
        .ok_or_else(|| CryptoError::Failed("no name".into()))
}

/// A new account for `passphrase`: a random salt, [`envelope::ITERATIONS`], and the sealed check.
pub async fn new_account(passphrase: &str) -> Result<(Account, Keys), CryptoError> {
    let salt = random(envelope::SALT as u32);
    let keys = derive(passphrase, &salt, envelope::ITERATIONS).await?;
    let check = seal(&keys, envelope::ACCOUNT_OBJECT, envelope::CHECK_TEXT).await?;
    Ok((Account::new(&salt, &check), keys))
}

/// The keys of the account in `text` (the server's `satori-sync.json`) for `passphrase`. A
/// passphrase that does not open the check is refused as wrong; a check that is not a whole
/// envelope is the account object's damage, not the passphrase's fault.
pub async fn unlock(text: &str, passphrase: &str) -> Result<Keys, CryptoError> {
    let account = Account::read(text).map_err(CryptoError::Account)?;
    let (salt, check) = account.parts().map_err(CryptoError::Account)?;
    envelope::open(&check).map_err(|e| CryptoError::Account(e.to_string()))?;
    let keys = derive(passphrase, &salt, account.iterations).await?;
    match open(&keys, envelope::ACCOUNT_OBJECT, &check).await {
        Ok(text) if text == envelope::CHECK_TEXT => Ok(keys),
        Ok(_) | Err(CryptoError::Object(EnvelopeError::Damaged)) => {
            Err(CryptoError::WrongPassphrase)
        }
        Err(e) => Err(e),
    }
}
