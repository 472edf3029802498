//! The quiet line under a reply's author: which model wrote it, tokens in and out (exact, or
//! "≈" when estimated), and what it cost where the model's price was known.
//!
//! Tokens come from the server's `usage` when it reported them (exact); otherwise the request's
//! count is the one Satori made while building it (exact with the model's tokenizer) and the
//! reply's is estimated from its text. The cost is reckoned once, when the reply ends, at the
//! price the user set for the model then (Settings), and kept on the reply: a later price change
//! leaves what a reply cost alone. It needs both counts; one from an estimate is marked "≈" too,
//! and an unknown price shows nothing.

use crate::provider::stream::Usage;
use crate::session::{Message, Role};
use crate::settings::Price;

/// A number of tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    /// Tokens.
    pub tokens: u64,
    /// Counted (by the server or the model's tokenizer), not estimated.
    pub exact: bool,
}

/// What a reply cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Cost {
    /// The amount, in `currency`.
    pub amount: f64,
    /// ISO 4217 code.
    pub currency: String,
    /// From exact counts.
    pub exact: bool,
}

/// The line of one reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    /// The model that wrote it.
    pub model: Option<String>,
    /// Its request.
    pub input: Option<Count>,
    /// The reply (reasoning included).
    pub output: Option<Count>,
    /// The cost, where the price was known.
    pub cost: Option<Cost>,
}

/// A reply's tokens in and out: the server's (`usage`), else the request's as Satori counted it
/// (`prompt`, `exact`) and the reply's as estimated when it ended (`reply`); an output nobody
/// counted (a reply kept before Satori estimated them) is `None`.
pub fn counts(
    usage: Option<&Usage>,
    prompt: Option<u64>,
    exact: bool,
    reply: Option<u64>,
) -> (Option<Count>, Option<Count>) {
    let count = |server: Option<u64>, ours: Option<u64>, exact: bool| match server {
        Some(tokens) => Some(Count {
            tokens,
            exact: true,
        }),
        None => ours.map(|tokens| Count { tokens, exact }),
    };
    (
        count(usage.and_then(|u| u.prompt_tokens), prompt, exact),
        count(usage.and_then(|u| u.completion_tokens), reply, false),
    )
}

/// What `input` and `output` tokens cost at `price`, in billionths of its currency (a price is
/// per million tokens).
pub fn cost_nanos(price: &Price, input: Count, output: Count) -> u64 {
    let per_million = input.tokens as f64 * price.input + output.tokens as f64 * price.output;
    (per_million * 1_000.0).round() as u64
}

/// The line of reply `msg` (`None` for other messages).
pub fn of(msg: &Message) -> Option<Meta> {
    if msg.role != Role::Assistant {
        return None;
    }
    let (input, output) = counts(
        msg.usage.as_ref(),
        msg.prompt_tokens,
        msg.prompt_exact,
        msg.reply_tokens,
    );
    let cost = msg
        .cost_nanos
        .filter(|_| !msg.currency.is_empty())
        .map(|nanos| Cost {
            amount: nanos as f64 / 1e9,
            currency: msg.currency.clone(),
            exact: input.is_some_and(|i| i.exact) && output.is_some_and(|o| o.exact),
        });
    Some(Meta {
        model: msg.model.clone().filter(|m| !m.trim().is_empty()),
        input,
        output,
        cost,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(tokens: u64, exact: bool) -> Option<Count> {
        Some(Count { tokens, exact })
    }

    fn usage(p: Option<u64>, c: Option<u64>) -> Option<Usage> {
        Some(Usage {
            prompt_tokens: p,
            completion_tokens: c,
            total_tokens: None,
        })
    }

    #[test]
    fn counts_prefer_the_servers() {
        type Case = (
            &'static str,
            Option<Usage>,
            (Option<u64>, bool, Option<u64>),
            (Option<Count>, Option<Count>),
        );
        let cases: Vec<Case> = vec![
            (
                "the server's",
                usage(Some(10), Some(20)),
                (Some(99), true, Some(7)),
                (count(10, true), count(20, true)),
            ),
            (
                "Satori's exact count, the reply estimated",
                None,
                (Some(99), true, Some(6)),
                (count(99, true), count(6, false)),
            ),
            (
                "Satori's estimate",
                None,
                (Some(99), false, Some(6)),
                (count(99, false), count(6, false)),
            ),
            (
                "the server's reply count, Satori's request count",
                usage(None, Some(7)),
                (Some(99), false, None),
                (count(99, false), count(7, true)),
            ),
            (
                "a reply kept before Satori counted",
                None,
                (None, false, None),
                (None, None),
            ),
        ];
        for (name, usage, (prompt, exact, reply), want) in cases {
            assert_eq!(counts(usage.as_ref(), prompt, exact, reply), want, "{name}");
        }
    }

    #[test]
    fn reply_lines() {
        let mut reply = Message::new(
            "r".into(),
            Some("q".into()),
            Role::Assistant,
            "four words of text".into(),
            0,
        );
        reply.model = Some("gpt-4o-mini".into());
        reply.usage = usage(Some(1_000), Some(500));
        reply.cost_nanos = Some(450_000);
        reply.currency = "USD".into();
        let meta = of(&reply).unwrap();
        assert_eq!(meta.model.as_deref(), Some("gpt-4o-mini"));
        assert_eq!(meta.input, count(1_000, true));
        assert_eq!(meta.output, count(500, true));
        let cost = meta.cost.unwrap();
        assert!((cost.amount - 0.00045).abs() < 1e-15);
        assert!(cost.exact);
        // Estimated counts make an estimated cost.
        reply.usage = None;
        reply.prompt_tokens = Some(1_000);
        reply.reply_tokens = Some(4);
        assert!(!of(&reply).unwrap().cost.unwrap().exact);
        // No cost recorded (no price then): none shown.
        reply.cost_nanos = None;
        assert_eq!(of(&reply).unwrap().cost, None);
        // Only replies have a line.
        for role in [Role::System, Role::User, Role::Tool] {
            let m = Message::new("m".into(), None, role, "text".into(), 0);
            assert_eq!(of(&m), None, "{role:?}");
        }
    }
}
