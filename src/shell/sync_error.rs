//! Why sync could not go on ([`SyncError`]): its own module, so the words for it
//! (`shell::error_text::sync_problem`) and the sync driver (`shell::sync`) both use it.

use crate::adapters::crypto::CryptoError;
use crate::adapters::webdav::DavError;

/// Why sync could not go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyncError {
    /// The folder's server.
    #[error("{0:?}")]
    Dav(DavError),
    /// Encryption, the passphrase or the account object.
    #[error("{0}")]
    Crypto(#[from] CryptoError),
    /// The folder's address cannot be used.
    #[error("{0}")]
    Url(String),
    /// This device's chats could not be listed.
    #[error("{0}")]
    Local(String),
    /// The folder holds Satori's records but not the account object that opens them.
    #[error("the sync folder holds Satori's records but not its satori-sync.json (removed, or unreadable): nothing was written; put it back, or sync to an empty folder")]
    NoAccount,
    /// The folder's account is not the one this device opened (its passphrase was changed on
    /// another device, or the account was started anew).
    #[error("the sync folder's encryption passphrase was changed on another device (or its account was started anew), so nothing was written")]
    AccountChanged,
    /// The server gives only weak ETags, on which no write can be made conditional.
    #[error("the server gives only weak ETags")]
    WeakEtags,
    /// The passphrase was not changed (why).
    #[error("the passphrase was not changed: {0}")]
    NotRekeyed(String),
}

impl From<DavError> for SyncError {
    fn from(e: DavError) -> Self {
        SyncError::Dav(e)
    }
}
