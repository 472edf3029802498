//! The user's prompt templates as one synced record: each template a key (`t:` and its key),
//! written last-writer-wins like a chat's fields, a removed template a removed key. One object in
//! the folder holds them ([`ID`]).

use super::clock::{Clock, Hlc};
use super::doc::{Doc, Entry};
use crate::prompts::{UserPrompts, UserTemplate};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The record's id (its object's name is a keyed hash of it, like a chat's).
pub const ID: &str = "satori:templates";

/// The templates as keys.
pub fn view_of(prompts: &UserPrompts) -> BTreeMap<String, Value> {
    prompts
        .templates
        .iter()
        .filter_map(|t| {
            Some((
                format!("t:{}", t.template.key),
                serde_json::to_value(t).ok()?,
            ))
        })
        .collect()
}

/// The templates a view reads as: those here first, in their order, then the others by key.
/// A value that is not a template is said; the template here of that key, if any, stays.
fn prompts_of(view: &BTreeMap<String, Value>, order: &UserPrompts) -> (UserPrompts, Vec<String>) {
    let mut bad = Vec::new();
    let mut read: BTreeMap<&str, UserTemplate> = BTreeMap::new();
    for (key, value) in view {
        let Some(name) = key.strip_prefix("t:") else {
            continue;
        };
        match serde_json::from_value::<UserTemplate>(value.clone()) {
            Ok(t) if t.template.key == name => {
                read.insert(name, t);
            }
            _ => {
                bad.push(name.to_string());
                if let Some(here) = order.get(name) {
                    read.insert(name, here.clone());
                }
            }
        }
    }
    let mut templates: Vec<UserTemplate> = order
        .templates
        .iter()
        .filter_map(|t| read.remove(t.template.key.as_str()))
        .collect();
    templates.extend(read.into_values());
    (UserPrompts { templates }, bad)
}

/// What a device keeps of the templates' record between passes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Templates {
    /// The record as this device holds it.
    pub doc: Doc,
    /// The templates as they were here when last in step (`None`: never).
    pub base: Option<BTreeMap<String, Value>>,
    /// The record holds something the folder may lack.
    pub pending: bool,
}

/// What a pass over the templates asks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TemplatesOutcome {
    /// The templates to store here (`None`: nothing changed here).
    pub store: Option<UserPrompts>,
    /// Templates of the folder that could not be read (their keys).
    pub unreadable: Vec<String>,
}

impl Templates {
    /// A pass: the folder's record (`remote`, when it was read anew) merged in, this device's
    /// changes since it was last in step (`local`: its templates now) recorded with `clock`.
    pub fn pass(
        &mut self,
        local: &UserPrompts,
        remote: Option<&Doc>,
        clock: &mut Clock,
        wall: i64,
    ) -> TemplatesOutcome {
        if let Some(theirs) = remote {
            if let Some(newest) = theirs.newest() {
                clock.observe(newest);
            }
            self.doc.merge(theirs);
            if self.doc != *theirs {
                self.pending = true;
            }
        }
        let view = view_of(local);
        let before = self.doc.clone();
        match &self.base {
            // Never in step: templates the record lacks are added as the oldest writes, so
            // the folder's version of a template both have wins.
            None => {
                let keys = view
                    .iter()
                    .filter(|(k, _)| !self.doc.keys.contains_key(*k))
                    .map(|(k, v)| {
                        let at = Hlc {
                            ms: 0,
                            n: 0,
                            device: clock.device().to_string(),
                        };
                        let entry = Entry {
                            at,
                            value: v.clone(),
                        };
                        (k.clone(), entry)
                    })
                    .collect();
                self.doc.merge(&Doc {
                    deleted: None,
                    keys,
                });
            }
            Some(base) => {
                let mut next = self.doc.view();
                let mut changed = false;
                for (k, v) in &view {
                    if base.get(k) != Some(v) {
                        next.insert(k.clone(), v.clone());
                        changed = true;
                    }
                }
                for k in base.keys().filter(|k| !view.contains_key(*k)) {
                    changed |= next.remove(k).is_some();
                }
                if changed {
                    self.doc.record(&next, clock, wall);
                }
            }
        }
        if self.doc != before {
            self.pending = true;
        }
        let (merged, unreadable) = prompts_of(&self.doc.view(), local);
        let store = (merged != *local).then_some(merged.clone());
        self.base = Some(view_of(&merged));
        TemplatesOutcome { store, unreadable }
    }

    /// The templates could not be stored here (`local`: what is here still): the record holds
    /// this device's changes already, so it is in step with `local`; the next pass stores the
    /// record's templates again.
    pub fn not_stored(&mut self, local: &UserPrompts) {
        self.base = Some(view_of(local));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompts::UserTemplate;

    fn template(key: &str, text: &str) -> UserTemplate {
        let yaml =
            format!("{key}:\n  version: 1\n  description: {text}\n  system:\n    - text: {text}\n");
        match crate::prompts::user::read_yaml("t.yaml", &yaml, true, &BTreeMap::new()) {
            crate::prompts::YamlAnswer::Ok(mut list) => list.remove(0),
            crate::prompts::YamlAnswer::Errors(e) => panic!("{e:?}"),
        }
    }

    fn prompts(list: &[(&str, &str)]) -> UserPrompts {
        UserPrompts {
            templates: list.iter().map(|(k, t)| template(k, t)).collect(),
        }
    }

    fn keys(p: &UserPrompts) -> Vec<(String, String)> {
        p.templates
            .iter()
            .map(|t| (t.template.key.clone(), t.template.description.clone()))
            .collect()
    }

    /// Two devices, each a replica, a clock and its templates; `sync` runs a pass on one with
    /// the folder's record and writes the record back.
    struct Device {
        rep: Templates,
        clock: Clock,
        here: UserPrompts,
    }

    impl Device {
        fn new(name: &str, here: UserPrompts) -> Self {
            Device {
                rep: Templates::default(),
                clock: Clock::new(name),
                here,
            }
        }
        fn sync(&mut self, folder: &mut Option<Doc>, wall: i64) {
            let out = self
                .rep
                .pass(&self.here, folder.as_ref(), &mut self.clock, wall);
            if let Some(p) = out.store {
                self.here = p;
            }
            *folder = Some(self.rep.doc.clone());
        }
    }

    #[test]
    fn templates_merge_by_key_edits_win_by_time_and_removals_hold() {
        let mut folder = None;
        let mut a = Device::new("a", prompts(&[("coder", "Code"), ("poet", "Verse")]));
        let mut b = Device::new("b", prompts(&[("chef", "Cook"), ("coder", "Other")]));
        a.sync(&mut folder, 1_000);
        b.sync(&mut folder, 1_100);
        // B joined: the folder's "coder" wins over B's own, B's "chef" is added.
        assert_eq!(
            keys(&b.here),
            [
                ("chef".into(), "Cook".into()),
                ("coder".into(), "Code".into()),
                ("poet".into(), "Verse".into())
            ]
        );
        a.sync(&mut folder, 1_200);
        assert_eq!(keys(&a.here).len(), 3, "A gets B's template");
        // A edits "poet" and B removes it later: the removal holds; B edits "chef" and A
        // removes nothing.
        a.here.merge(vec![template("poet", "Rhyme")]);
        a.sync(&mut folder, 2_000);
        b.sync(&mut folder, 2_100);
        assert_eq!(b.here.get("poet").unwrap().template.description, "Rhyme");
        b.here.remove("poet");
        b.here.merge(vec![template("chef", "Bake")]);
        b.sync(&mut folder, 3_000);
        a.sync(&mut folder, 3_100);
        assert!(a.here.get("poet").is_none(), "the removal holds on A");
        assert_eq!(a.here.get("chef").unwrap().template.description, "Bake");
        // Nothing changed: no new writes.
        let before = folder.clone();
        a.rep.pending = false;
        a.sync(&mut folder, 4_000);
        assert!(!a.rep.pending);
        assert_eq!(folder, before);
    }

    #[test]
    fn a_device_with_no_templates_takes_the_folders_and_removes_nothing() {
        let mut folder = None;
        let mut a = Device::new("a", prompts(&[("coder", "Code")]));
        a.sync(&mut folder, 1_000);
        let mut c = Device::new("c", UserPrompts::default());
        c.sync(&mut folder, 900);
        assert_eq!(keys(&c.here), [("coder".into(), "Code".into())]);
        assert!(folder.as_ref().unwrap().is_live());
    }

    #[test]
    fn a_value_that_is_not_a_template_is_said_and_left_out() {
        let mut doc = Doc::default();
        let mut clock = Clock::new("x");
        let mut view = BTreeMap::new();
        view.insert("t:odd".to_string(), serde_json::json!({"nope": 1}));
        doc.record(&view, &mut clock, 5);
        let mut rep = Templates::default();
        let out = rep.pass(
            &UserPrompts::default(),
            Some(&doc),
            &mut Clock::new("y"),
            10,
        );
        assert_eq!(out.unreadable, ["odd"]);
        assert_eq!(out.store, None);
    }
}
