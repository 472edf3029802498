//! A synced record (one chat, or the templates): named keys, each holding the latest value
//! written with the stamp of that write, and the stamp of the record's deletion, if any.
//!
//! It is a join-semilattice: [`Doc::merge`] is commutative, associative and idempotent, so devices
//! that have seen the same changes hold the same record, whatever the order they saw them in.
//! A deletion removes every key written before it ("deletion wins over older edits"); a key
//! written after it (a device that had not heard of the deletion went on) is kept, and nothing
//! else is ever lost. Values are JSON; `null` is a removed key.

use super::clock::{Clock, Hlc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// One key's latest write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// When it was written.
    pub at: Hlc,
    /// What (`null`: removed).
    pub value: Value,
}

impl Entry {
    /// Whether this write wins over `other` (a later stamp; the same stamp never carries two
    /// values, but if it did, the greater text wins, so merging stays commutative).
    fn beats(&self, other: &Entry) -> bool {
        match self.at.cmp(&other.at) {
            std::cmp::Ordering::Equal => {
                let text = |v: &Value| serde_json::to_string(v).unwrap_or_default();
                text(&self.value) > text(&other.value)
            }
            o => o.is_gt(),
        }
    }
}

/// A synced record.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Doc {
    /// When it was deleted (the latest deletion seen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted: Option<Hlc>,
    /// Its keys, each written after `deleted`.
    #[serde(default)]
    pub keys: BTreeMap<String, Entry>,
}

impl Doc {
    /// Take in what `other` holds. Answers whether this record changed.
    pub fn merge(&mut self, other: &Doc) -> bool {
        let before = self.clone();
        if other.deleted > self.deleted {
            self.deleted = other.deleted.clone();
        }
        for (key, theirs) in &other.keys {
            let wins = self.keys.get(key).is_none_or(|ours| theirs.beats(ours));
            if wins {
                self.keys.insert(key.clone(), theirs.clone());
            }
        }
        self.prune();
        *self != before
    }

    /// Forget what the deletion removed.
    fn prune(&mut self) {
        if let Some(deleted) = &self.deleted {
            self.keys.retain(|_, e| e.at > *deleted);
        }
    }

    /// The record as it reads: every key with a value.
    pub fn view(&self) -> BTreeMap<String, Value> {
        self.keys
            .iter()
            .filter(|(_, e)| !e.value.is_null())
            .map(|(k, e)| (k.clone(), e.value.clone()))
            .collect()
    }

    /// Whether anything of it is left (never deleted, or written again since).
    pub fn is_live(&self) -> bool {
        self.keys.values().any(|e| !e.value.is_null())
    }

    /// The device's copy now reads `view`: each key whose value differs from the record's is
    /// written with a new stamp of `clock` (`wall`: the device's wall clock, ms), and each key
    /// the view no longer has is removed. Answers how many keys were written.
    pub fn record(
        &mut self,
        view: &BTreeMap<String, Value>,
        clock: &mut Clock,
        wall: i64,
    ) -> usize {
        // A write comes after everything the record holds, whoever's clock stamped it.
        if let Some(newest) = self.newest().cloned() {
            clock.observe(&newest);
        }
        let mut written = 0;
        let gone: Vec<String> = self
            .keys
            .iter()
            .filter(|(k, e)| !e.value.is_null() && !view.contains_key(*k))
            .map(|(k, _)| k.clone())
            .collect();
        let changed = view
            .iter()
            .filter(|(k, v)| self.keys.get(*k).is_none_or(|e| e.value != **v))
            .map(|(k, v)| (k.clone(), v.clone()));
        let writes: Vec<(String, Value)> = changed
            .chain(gone.into_iter().map(|k| (k, Value::Null)))
            .collect();
        for (key, value) in writes {
            let at = clock.stamp(wall);
            self.keys.insert(key, Entry { at, value });
            written += 1;
        }
        written
    }

    /// The device deleted the record.
    pub fn delete(&mut self, clock: &mut Clock, wall: i64) {
        if let Some(newest) = self.newest().cloned() {
            clock.observe(&newest);
        }
        self.deleted = Some(clock.stamp(wall));
        self.prune();
    }

    /// The latest stamp in it (for the device's clock to observe).
    pub fn newest(&self) -> Option<&Hlc> {
        self.keys
            .values()
            .map(|e| &e.at)
            .chain(self.deleted.iter())
            .max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn view(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn two_devices_editing_apart_keep_both_and_the_later_write_of_a_key() {
        let (mut a, mut b) = (Clock::new("a"), Clock::new("b"));
        let mut base = Doc::default();
        base.record(
            &view(&[("title", json!("Trip")), ("m:1", json!("hi"))]),
            &mut a,
            10,
        );
        let (mut on_a, mut on_b) = (base.clone(), base.clone());
        b.observe(base.newest().unwrap());
        on_a.record(
            &view(&[
                ("title", json!("Trip to Kyoto")),
                ("m:1", json!("hi")),
                ("m:2", json!("from a")),
            ]),
            &mut a,
            20,
        );
        on_b.record(
            &view(&[
                ("title", json!("Kyoto")),
                ("m:1", json!("hi")),
                ("m:3", json!("from b")),
            ]),
            &mut b,
            30,
        );
        let mut merged = on_a.clone();
        assert!(merged.merge(&on_b));
        let mut other = on_b.clone();
        other.merge(&on_a);
        assert_eq!(merged, other);
        assert_eq!(
            merged.view(),
            view(&[
                ("title", json!("Kyoto")),
                ("m:1", json!("hi")),
                ("m:2", json!("from a")),
                ("m:3", json!("from b"))
            ])
        );
        assert!(
            !merged.clone().merge(&on_a),
            "merging again changes nothing"
        );
    }

    #[test]
    fn a_deletion_wins_over_older_edits_and_a_later_edit_is_kept() {
        let (mut a, mut b) = (Clock::new("a"), Clock::new("b"));
        let mut doc = Doc::default();
        doc.record(
            &view(&[("title", json!("Old")), ("m:1", json!("secret"))]),
            &mut a,
            10,
        );
        let mut offline = doc.clone();
        offline.record(
            &view(&[
                ("title", json!("Old")),
                ("m:1", json!("secret")),
                ("m:2", json!("typed offline")),
            ]),
            &mut b,
            15,
        );
        doc.delete(&mut a, 20);
        assert!(!doc.is_live());
        let mut merged = doc.clone();
        merged.merge(&offline);
        assert!(
            !merged.is_live(),
            "an edit older than the deletion does not bring it back"
        );
        assert!(merged.keys.is_empty(), "nothing of it is kept");
        // Edited after the deletion (a device that had not heard of it): only that is kept.
        offline.record(
            &view(&[
                ("title", json!("Old")),
                ("m:1", json!("secret")),
                ("m:2", json!("typed offline")),
                ("m:3", json!("later")),
            ]),
            &mut b,
            25,
        );
        merged.merge(&offline);
        assert_eq!(merged.view(), view(&[("m:3", json!("later"))]));
        // A key removed is written as null and wins like any write.
        let mut doc = Doc::default();
        doc.record(&view(&[("a", json!(1)), ("b", json!(2))]), &mut a, 30);
        assert_eq!(doc.record(&view(&[("a", json!(1))]), &mut a, 31), 1);
        assert_eq!(doc.view(), view(&[("a", json!(1))]));
        assert_eq!(doc.keys["b"].value, Value::Null);
    }

    #[test]
    fn a_write_or_a_deletion_comes_after_what_the_record_holds_whatever_the_clock() {
        let (mut fast, mut slow) = (Clock::new("fast"), Clock::new("slow"));
        let mut doc = Doc::default();
        doc.record(
            &view(&[("t", json!("from the future"))]),
            &mut fast,
            9_000_000,
        );
        // The slow device merged it without its clock seeing it: its deletion still wins.
        let mut theirs = Doc::default();
        theirs.merge(&doc);
        theirs.delete(&mut slow, 1_000);
        assert!(!theirs.is_live());
        // And its write replaces the value it saw.
        let mut again = Doc::default();
        again.merge(&doc);
        again.record(
            &view(&[("t", json!("now"))]),
            &mut Clock::new("slow"),
            1_000,
        );
        assert_eq!(again.view(), view(&[("t", json!("now"))]));
    }

    /// A change a device makes: write `key` (0..6) with `value` (`None`: remove it), or delete
    /// the record; `wall` moves the device's clock (which may stand still or go back).
    #[derive(Debug, Clone)]
    enum Op {
        Write {
            key: u8,
            value: Option<u8>,
            wall: i64,
        },
        Delete {
            wall: i64,
        },
        /// Take in another device's record (by index).
        Pull {
            from: usize,
        },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u8..6, proptest::option::of(0u8..4), 0i64..50).prop_map(|(key, value, wall)| Op::Write { key, value, wall }),
            1 => (0i64..50).prop_map(|wall| Op::Delete { wall }),
            2 => (0usize..3).prop_map(|from| Op::Pull { from }),
        ]
    }

    /// Three devices each run their changes (taking in each other's records now and then).
    fn run(ops: &[(usize, Op)]) -> Vec<Doc> {
        let mut clocks: Vec<Clock> = ["a", "b", "c"].iter().map(|d| Clock::new(d)).collect();
        let mut docs = vec![Doc::default(); 3];
        for (who, op) in ops {
            let who = who % 3;
            match op {
                Op::Write { key, value, wall } => {
                    let mut v = docs[who].view();
                    let k = format!("k{key}");
                    match value {
                        Some(x) => v.insert(k, json!(x)),
                        None => v.remove(&k),
                    };
                    docs[who].record(&v, &mut clocks[who], *wall);
                }
                Op::Delete { wall } => docs[who].delete(&mut clocks[who], *wall),
                Op::Pull { from } => {
                    let theirs = docs[*from].clone();
                    if let Some(n) = theirs.newest() {
                        clocks[who].observe(n);
                    }
                    docs[who].merge(&theirs);
                }
            }
        }
        docs
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn any_order_of_the_same_changes_converges(
            ops in proptest::collection::vec((0usize..3, op()), 0..40),
            order in Just(vec![0usize, 1, 2]).prop_shuffle(),
        ) {
            let docs = run(&ops);
            let mut one = Doc::default();
            for d in &docs { one.merge(d); }
            let mut other = Doc::default();
            for i in order { other.merge(&docs[i]); }
            prop_assert_eq!(&one, &other);
            // Idempotent, and each device's record taken in again changes nothing.
            for d in &docs { prop_assert!(!one.clone().merge(d)); }
            // Nothing is lost but what the deletion removed: every write after the merged
            // deletion is there, or a later write of its key.
            for d in &docs {
                for (k, e) in &d.keys {
                    if one.deleted.as_ref().is_none_or(|del| e.at > *del) {
                        let kept = one.keys.get(k);
                        prop_assert!(kept.is_some_and(|x| x.at >= e.at), "{} lost", k);
                    }
                }
            }
            // Deletion wins over older edits: nothing kept is older than it.
            if let Some(del) = &one.deleted {
                prop_assert!(one.keys.values().all(|e| e.at > *del));
            }
        }
    }
}
