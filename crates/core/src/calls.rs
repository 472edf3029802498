//! Tool calls waiting for their results, in the order they were made: the context pipeline's
//! repair of the tool protocol and the importers' tool rounds keep one of these while they read
//! a reply's calls and the results that follow.
//!
//! Invariant: each operation costs the same however many calls wait (a hash look-up, and each
//! call passed over once in all), so a reply of thousands of calls is read in linear time. A
//! call made twice while it waits is one call.

use std::collections::HashMap;
use std::hash::Hash;

/// Calls (by id) waiting for their results.
#[derive(Debug, Clone)]
pub struct Waiting<K> {
    /// The calls in the order they were made; `None` once answered.
    order: Vec<Option<K>>,
    /// Where each waiting call is in `order`.
    at: HashMap<K, usize>,
    /// Every call in `order` before this one is answered.
    first: usize,
}

impl<K> Default for Waiting<K> {
    fn default() -> Self {
        Waiting {
            order: Vec::new(),
            at: HashMap::new(),
            first: 0,
        }
    }
}

#[cfg(test)]
thread_local! {
    // Why a static: a test counts the work done inside code that has no place to carry a
    // counter (test builds only; tests run each on a thread of its own).
    /// Steps taken by every [`Waiting`] of this thread: a test's measure of the work done.
    pub(crate) static STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One step of work (counted in tests).
fn step() {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + 1));
}

impl<K: Hash + Eq + Clone> Waiting<K> {
    /// Call `id` made: it waits, after the others (a call already waiting stays where it is).
    pub fn push(&mut self, id: K) {
        step();
        if !self.at.contains_key(&id) {
            self.at.insert(id.clone(), self.order.len());
            self.order.push(Some(id));
        }
    }

    /// Whether call `id` waits.
    pub fn contains(&self, id: &K) -> bool {
        step();
        self.at.contains_key(id)
    }

    /// Call `id` answered: whether it was waiting (it no longer is).
    pub fn answer(&mut self, id: &K) -> bool {
        step();
        match self.at.remove(id) {
            Some(p) => {
                self.order[p] = None;
                true
            }
            None => false,
        }
    }

    /// The call made first of those waiting.
    pub fn first(&mut self) -> Option<&K> {
        while self.order.get(self.first).is_some_and(Option::is_none) {
            step();
            self.first += 1;
        }
        self.order.get(self.first).and_then(Option::as_ref)
    }

    /// The calls waiting, in the order they were made; none waits afterwards.
    pub fn drain(&mut self) -> impl Iterator<Item = K> {
        let order = std::mem::take(&mut self.order);
        let first = self.first;
        self.at.clear();
        self.first = 0;
        order.into_iter().skip(first).flatten().inspect(|_| step())
    }

    /// None waits any more.
    pub fn clear(&mut self) {
        self.order.clear();
        self.at.clear();
        self.first = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list of ids as the calls were made, checked against the plain list it stands for.
    #[test]
    fn waiting_calls_answer_as_a_list_would() {
        // (operation, id): `p` push, `a` answer, `f` first, `c` contains.
        let cases: &[&[(char, &str)]] = &[
            &[
                ('p', "a"),
                ('p', "b"),
                ('f', ""),
                ('a', "a"),
                ('f', ""),
                ('a', "b"),
                ('f', ""),
            ],
            &[
                ('p', "a"),
                ('p', "b"),
                ('p', "a"),
                ('a', "b"),
                ('f', ""),
                ('a', "a"),
                ('f', ""),
            ],
            &[
                ('p', "a"),
                ('p', "b"),
                ('p', "c"),
                ('a', "b"),
                ('c', "b"),
                ('c', "c"),
                ('f', ""),
            ],
            &[
                ('a', "x"),
                ('f', ""),
                ('p', "x"),
                ('a', "x"),
                ('p', "x"),
                ('f', ""),
            ],
        ];
        for ops in cases {
            let mut list: Vec<&str> = Vec::new();
            let mut waiting = Waiting::default();
            for (op, id) in ops.iter() {
                match op {
                    'p' => {
                        if !list.contains(id) {
                            list.push(id);
                        }
                        waiting.push(*id);
                    }
                    'a' => {
                        let was = list.contains(id);
                        list.retain(|x| x != id);
                        assert_eq!(waiting.answer(id), was, "{ops:?}");
                    }
                    'c' => assert_eq!(waiting.contains(id), list.contains(id), "{ops:?}"),
                    _ => assert_eq!(waiting.first(), list.first(), "{ops:?}"),
                }
            }
            let rest: Vec<&str> = waiting.drain().collect();
            assert_eq!(rest, list, "{ops:?}");
            assert_eq!(waiting.first(), None);
        }
    }
}
