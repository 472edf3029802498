//! Moving chats in and out of Satori: the export format ([`format`]), ChatGPT's export
//! ([`chatgpt`]; in parts or as a `.zip`: [`parts`], [`zip`]), NextChat's and BetterChatGPT's ([`apps`]), why a file cannot be imported ([`error`]), reading and checking a
//! file to import and planning the merge ([`import`]), a chat shared by link ([`share`]), a chat
//! as Markdown for reading ([`markdown`]), and ISO 8601 timestamps ([`time`]). Pure: the dialogs
//! module does the reading of files, the compression, the downloads and the writes.

pub mod apps;
pub mod chatgpt;
pub mod error;
pub mod format;
pub mod import;
pub mod markdown;
pub mod parts;
pub mod share;
pub mod time;
pub mod zip;

#[cfg(test)]
mod tests;
