//! What the app and the context module say to each other. The pipeline and everything around it
//! (counting, server probes, reports) run in the lazy `context` module; the app sends it an
//! [`Ask`] and gets an [`Answer`], both as JSON.

use super::summary::SummaryRequest;
use super::Verdict;
use crate::core::session::{ContextOverrides, Message, Summary};
use crate::core::settings::Settings;
use serde::{Deserialize, Serialize};

/// A request to build the context for answering `history`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    /// Read every message (the inspector) instead of only what the request can hold (sending).
    pub inspect: bool,
    /// The settings in use (they never hold the API key).
    pub settings: Settings,
    /// The branch being answered, root first, without the reply being written.
    pub history: Vec<Message>,
    /// The stored summary for this branch.
    pub summary: Option<Summary>,
    /// The chat's own context settings.
    pub overrides: ContextOverrides,
    /// Also describe the request for the inspector.
    pub report: Option<ReportAsk>,
}

/// What the inspector's report of a request needs besides the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportAsk {
    /// "Next request" (the module adds when a summary comes first), or when it was sent.
    pub title: String,
    /// Whether an API key goes with the request (the curl command then reads `$SATORI_API_KEY`).
    pub with_key: bool,
    /// Offer the chat's context settings for editing (the next request only).
    pub editable: bool,
    /// The chat's summaries wait (the summarizer failed a moment ago): a summary that is due
    /// will not be made for the next request.
    #[serde(default)]
    pub summaries_paused: bool,
}

/// The context module's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// Whether the request may be sent.
    pub verdict: Verdict,
    /// Prompt tokens of the request.
    pub total: u32,
    /// Whether every count is exact (else `total` is an estimate, to learn from `usage`).
    pub exact: bool,
    /// The window used.
    pub window: u32,
    /// A summary is due first: the request for it (`id` and `at` are the app's to fill).
    pub summary: Option<SummaryRequest>,
    /// The request body (JSON).
    pub body: String,
    /// The inspector's report (a `report::Report` as JSON), when asked for.
    pub report: Option<String>,
}
