//! Hybrid logical clocks: when a synced change was made, comparable across devices whose wall
//! clocks disagree. A stamp is the wall time in ms, a counter for changes within one ms (or made
//! while the wall clock stood behind what the device has seen), and the device's id (ties never
//! happen between devices). A device that has seen a stamp stamps every later change after it, so
//! a device whose clock runs ahead cannot win forever: the first change made elsewhere after its
//! change has been seen wins over it.

use serde::{Deserialize, Serialize};

/// A stamp: compared by time, then counter, then device.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct Hlc {
    /// Wall time, ms since the epoch (or the latest seen, if the wall clock is behind it).
    pub ms: i64,
    /// Changes within the same `ms`.
    pub n: u32,
    /// The device that made the change.
    pub device: String,
}

/// A device's clock: the latest stamp it made or saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    last: Hlc,
}

impl Clock {
    /// The clock of device `device`, which has seen nothing yet.
    pub fn new(device: &str) -> Clock {
        Clock {
            last: Hlc {
                device: device.to_string(),
                ..Hlc::default()
            },
        }
    }

    /// A stamp for a change made now (`wall`: the device's wall clock, ms): after every stamp
    /// this clock made or saw.
    pub fn stamp(&mut self, wall: i64) -> Hlc {
        let (ms, n) = if wall > self.last.ms {
            (wall, 0)
        } else {
            (self.last.ms, self.last.n.saturating_add(1))
        };
        self.last = Hlc {
            ms,
            n,
            device: self.last.device.clone(),
        };
        self.last.clone()
    }

    /// Stamp `seen` came from another device: later stamps of this one come after it.
    pub fn observe(&mut self, seen: &Hlc) {
        if (seen.ms, seen.n) > (self.last.ms, self.last.n) {
            self.last.ms = seen.ms;
            self.last.n = seen.n;
        }
    }

    /// The device this clock stamps for.
    pub fn device(&self) -> &str {
        &self.last.device
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_only_move_forward_and_follow_what_was_seen() {
        let mut a = Clock::new("a");
        let s1 = a.stamp(1_000);
        let s2 = a.stamp(1_000);
        let s3 = a.stamp(900); // the wall clock went back
        assert!(s1 < s2 && s2 < s3, "{s1:?} {s2:?} {s3:?}");
        assert_eq!((s3.ms, s3.n), (1_000, 2));
        // A device whose clock is an hour ahead: once its change is seen, the next change here
        // comes after it, whatever this wall clock says.
        let mut fast = Clock::new("fast");
        let ahead = fast.stamp(1_000 + 3_600_000);
        a.observe(&ahead);
        let after = a.stamp(1_100);
        assert!(after > ahead);
        assert_eq!(after.device, "a");
        // Seeing an older stamp changes nothing.
        let before = a.clone();
        a.observe(&s1);
        assert_eq!(a, before);
    }
}
