//! Moving chats in and out of Satori: the export format ([`format`]; with the files chats carry,
//! as a `.zip`: [`archive`]), ChatGPT's export
//! ([`chatgpt`], its citations: [`cite`]; in parts or as a `.zip`: [`parts`], [`zip`]), Claude's
//! ([`claude`]), Open WebUI's ([`openwebui`]), LibreChat's ([`librechat`]), NextChat's and
//! BetterChatGPT's ([`apps`]), what an import skipped and converted ([`report`]), why a file
//! cannot be imported ([`error`]), reading and checking a
//! file to import and planning the merge ([`import`]), a long export read as it arrives
//! ([`stream`]; its `.zip` or its parts picked together: [`bundle`]), a chat shared by link
//! ([`share`]), a chat
//! as Markdown for reading ([`markdown`]), and ISO 8601 timestamps ([`time`]). Pure: the dialogs
//! module does the reading of files, the compression, the downloads and the writes.

pub mod apps;
pub mod archive;
pub mod bundle;
pub mod chatgpt;
pub mod cite;
pub mod claude;
pub mod error;
pub mod format;
pub mod import;
pub mod librechat;
pub mod markdown;
pub mod openwebui;
pub mod parts;
pub mod report;
pub mod share;
pub mod stream;
pub mod time;
pub mod zip;

#[cfg(test)]
mod foreign_tests;
#[cfg(test)]
mod tests;
