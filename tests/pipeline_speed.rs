//! Not a test of speed (timings are printed, never asserted): builds the context of long
//! histories — checking each fits its budget — so
//! `cargo test --release --test pipeline_speed -- --nocapture` shows the cost.
use satori::core::context::count::{Cached, Estimator};
use satori::core::context::{build_lean as build, Config};
use satori::core::session::{Message, Role};

#[test]
fn pipeline_cost_grows_linearly() {
    for n in [100usize, 1000, 10_000] {
        let msgs: Vec<Message> = (0..n)
            .map(|i| {
                let role = if i % 2 == 0 {
                    Role::User
                } else {
                    Role::Assistant
                };
                Message::new(
                    format!("m{i}"),
                    None,
                    role,
                    format!("{i} {}", "lorem ipsum dolor sit amet ".repeat(12)),
                    0,
                )
            })
            .collect();
        let refs: Vec<&Message> = msgs.iter().collect();
        let cfg = Config {
            window: 8192,
            reply_reserve: 1024,
            margin: 100,
            keep_recent_rounds: 4,
            min_keep_rounds: 1,
            summarize: true,
            item_cap: 1000,
            image_rounds: 3,
            images: false,
            images_exact: false,
        };
        let mut counter = Cached::new(Estimator::default());
        let ctx = build(&refs, None, &cfg, &mut counter);
        assert!(ctx.total <= cfg.budget());
        let t = std::time::Instant::now();
        // One run in debug builds (`cargo test`), where the figures mean nothing anyway.
        let runs = if cfg!(debug_assertions) { 1 } else { 20 };
        for _ in 0..runs {
            std::hint::black_box(build(&refs, None, &cfg, &mut counter));
        }
        println!(
            "{n} messages: {:.3} ms per build",
            t.elapsed().as_secs_f64() * 1000.0 / runs as f64
        );
    }
}
