//! Satori's records, written by what they are. The only writes of localStorage besides the chats
//! in parts ([`Store::write_chat`] and its kin): each record is encoded by `core::persist` here,
//! so no caller names a key and a value to write.

use super::{StorageError, Store};
use crate::core::agent::mcp::{Servers, Tokens};
use crate::core::persist::{self, ApiKeyRecord, Index};
use crate::core::prompts::user::UserPrompts;
use crate::core::session::ChatModel;
use crate::core::settings::Settings;

/// The record that keeps what the last import changed, for "Undo import".
pub const KEY_IMPORT_BACKUP: &str = "satori.backup.import";

/// A record that may be put back as it was read, byte for byte ([`Store::put_back`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The chat list.
    Index,
    /// The user's prompt templates.
    Prompts,
}

impl Kept {
    fn key(self) -> &'static str {
        match self {
            Kept::Index => persist::KEY_INDEX,
            Kept::Prompts => persist::KEY_PROMPTS,
        }
    }
}

impl Store {
    /// The settings (never the key: [`Store::save_api_key`]).
    pub fn save_settings(&self, settings: &Settings) -> Result<(), StorageError> {
        self.set(persist::KEY_SETTINGS, &persist::encode_settings(settings))
    }

    /// The API key with the base URL it is bound to; `None` removes it.
    pub fn save_api_key(&self, record: Option<&ApiKeyRecord>) -> Result<(), StorageError> {
        match record {
            Some(r) => self.set(persist::KEY_API_KEY, &persist::encode_api_key(r)),
            None => self.remove(persist::KEY_API_KEY),
        }
    }

    /// Where this browser syncs (`None`: it does not).
    pub fn save_sync(&self, setup: Option<&persist::SyncSetup>) -> Result<(), StorageError> {
        match setup {
            Some(s) => self.set(persist::KEY_SYNC, &persist::encode_sync(s)),
            None => self.remove(persist::KEY_SYNC),
        }
    }

    /// The interface language the user chose (`en`, `zh-CN`; `src/web/i18n.js` reads it).
    pub fn save_language(&self, language: &str) -> Result<(), StorageError> {
        self.set(persist::KEY_LANGUAGE, language)
    }

    /// The colour theme the user chose (`light`, `dark`; anything else: the system's, stored as
    /// nothing; `src/web/theme.js` reads it).
    pub fn save_theme(&self, theme: &str) -> Result<(), StorageError> {
        match theme {
            "light" | "dark" => self.set(persist::KEY_THEME, theme),
            _ => self.remove(persist::KEY_THEME),
        }
    }

    /// The models chosen last for a chat, newest first.
    pub fn save_recent_models(&self, recent: &[ChatModel]) -> Result<(), StorageError> {
        self.set(
            persist::KEY_RECENT_MODELS,
            &serde_json::to_string(recent).unwrap_or_default(),
        )
    }

    /// The models chosen last for a chat (none when the record is missing or unreadable: it is
    /// only a convenience).
    pub fn recent_models(&self) -> Vec<ChatModel> {
        self.get(persist::KEY_RECENT_MODELS)
            .ok()
            .flatten()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default()
    }

    /// What models cost (none when there is no record); an unreadable record is an error, in
    /// words, and is left as it is.
    pub fn prices(&self) -> Result<crate::core::settings::Prices, String> {
        match self.get(persist::KEY_PRICES) {
            Ok(Some(t)) => persist::decode_prices(&t).map_err(|e| e.to_string()),
            Ok(None) => Ok(Default::default()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// How images go to models (the defaults when there is no record, or it cannot be read).
    pub fn images(&self) -> crate::core::settings::ImageSettings {
        self.get(persist::KEY_IMAGES)
            .ok()
            .flatten()
            .and_then(|t| persist::decode_images(&t).ok())
            .unwrap_or_default()
    }

    /// Keep how images go to models.
    pub fn save_images(
        &self,
        images: &crate::core::settings::ImageSettings,
    ) -> Result<(), StorageError> {
        self.set(persist::KEY_IMAGES, &persist::encode_images(images))
    }

    /// Keep what models cost.
    pub fn save_prices(&self, prices: &crate::core::settings::Prices) -> Result<(), StorageError> {
        self.set(persist::KEY_PRICES, &persist::encode_prices(prices))
    }

    /// The user's prompt templates.
    pub fn save_prompts(&self, prompts: &UserPrompts) -> Result<(), StorageError> {
        self.set(persist::KEY_PROMPTS, &persist::encode_prompts(prompts))
    }

    /// The MCP servers, and their tokens (removed when there are none).
    pub fn save_mcp(&self, servers: &Servers, tokens: &Tokens) -> Result<(), StorageError> {
        self.set(persist::KEY_MCP, &persist::encode_mcp(servers))?;
        if tokens.tokens.is_empty() {
            self.remove(persist::KEY_MCP_TOKENS)
        } else {
            self.set(persist::KEY_MCP_TOKENS, &persist::encode_mcp_tokens(tokens))
        }
    }

    /// The MCP servers alone (agent mode's "Always allow this tool"; their tokens stay as they
    /// are).
    pub fn save_mcp_servers(&self, servers: &Servers) -> Result<(), StorageError> {
        self.set(persist::KEY_MCP, &persist::encode_mcp(servers))
    }

    /// The shared-origin warning was dismissed for the page folder `folder`.
    pub fn dismiss_origin_notice(&self, folder: &str) -> Result<(), StorageError> {
        self.set(persist::KEY_ORIGIN_NOTICE, folder)
    }

    /// The chat list.
    pub fn save_index(&self, index: &Index) -> Result<(), StorageError> {
        self.set(persist::KEY_INDEX, &persist::encode_index(index))
    }

    /// The draft of chat `id`; an empty one is removed.
    pub fn save_draft(&self, id: &str, text: &str) -> Result<(), StorageError> {
        let key = persist::draft_key(id);
        if text.is_empty() {
            self.remove(&key)
        } else {
            self.set(&key, &persist::encode_draft(text))
        }
    }

    /// Keep `raw`, a record of kind `what` that could not be read, under a new backup key (named
    /// for `at`, ms); answers the key.
    pub fn keep_backup(&self, what: &str, at: i64, raw: &str) -> Result<String, StorageError> {
        let key = persist::backup_key(what, at);
        self.set(&key, raw)?;
        Ok(key)
    }

    /// The record "Undo import" reads (JSON); `None` removes it.
    pub fn save_import_backup(&self, json: Option<&str>) -> Result<(), StorageError> {
        match json {
            Some(j) => self.set(KEY_IMPORT_BACKUP, j),
            None => self.remove(KEY_IMPORT_BACKUP),
        }
    }

    /// Put `record` back as it was read before a write that failed: `raw`, or absent.
    pub fn put_back(&self, record: Kept, raw: Option<&str>) -> Result<(), StorageError> {
        match raw {
            Some(text) => self.set(record.key(), text),
            None => self.remove(record.key()),
        }
    }
}
