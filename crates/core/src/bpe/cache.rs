//! A bounded cache of merged pieces: piece bytes → token ids, for pieces that are not a token
//! themselves (words split in several tokens, CJK clauses, emoji). Pieces and ids are appended to
//! two arenas of fixed capacity, found through a direct-mapped index by hash; when an arena is
//! full, everything is forgotten at once and filling starts again. Memory is fixed at creation
//! (see [`Cache::new`]); keys are compared in full, so a hit is always exact. The caller owns
//! the cache (the core has no hidden state) and may clear it any time.
//!
//! It also keeps the merge buffers, so counting with a cache allocates nothing once warm.

use super::merge::Scratch;

/// Longest piece kept, in bytes.
pub const MAX_PIECE: usize = 255;

/// Where a piece lives in the arenas; `len == 0` marks an empty slot.
#[derive(Clone, Copy, Default)]
struct Slot {
    hash: u32,
    key: u32,
    ids: u32,
    len: u8,
    count: u8,
}

/// Merged pieces of earlier calls (see the module header).
pub struct Cache {
    index: Vec<Slot>,
    keys: Vec<u8>,
    ids: Vec<u32>,
    key_room: usize,
    id_room: usize,
    pub(super) scratch: Scratch,
    pub(super) merged: Vec<u32>,
}

impl Cache {
    /// A cache indexing `slots` pieces (rounded up to a power of two) in arenas of `key_bytes`
    /// bytes and `ids` ids: about `16 × slots + key_bytes + 4 × ids` bytes.
    pub fn new(slots: usize, key_bytes: usize, ids: usize) -> Cache {
        Cache {
            index: vec![Slot::default(); slots.max(1).next_power_of_two()],
            keys: Vec::with_capacity(key_bytes),
            ids: Vec::with_capacity(ids),
            key_room: key_bytes,
            id_room: ids,
            scratch: Scratch::default(),
            merged: Vec::new(),
        }
    }

    /// Forgets every piece.
    pub fn clear(&mut self) {
        self.index.fill(Slot::default());
        self.keys.clear();
        self.ids.clear();
    }

    fn slot(&self, hash: u64) -> usize {
        (hash >> 32) as usize & (self.index.len() - 1)
    }

    /// The ids of `piece` (whose hash is `hash`), if cached.
    pub fn get(&self, hash: u64, piece: &[u8]) -> Option<&[u32]> {
        let s = self.index[self.slot(hash)];
        let (key, ids) = (s.key as usize, s.ids as usize);
        let hit = usize::from(s.len) == piece.len()
            && s.hash == hash as u32
            && self.keys.get(key..key + piece.len()) == Some(piece);
        if hit {
            self.ids.get(ids..ids + usize::from(s.count))
        } else {
            None
        }
    }

    /// Remembers the ids of `piece` (whose hash is `hash`), if they fit the limits.
    pub fn put(&mut self, hash: u64, piece: &[u8], ids: &[u32]) {
        if piece.is_empty() || piece.len() > MAX_PIECE || ids.len() > 255 {
            return;
        }
        if self.keys.len() + piece.len() > self.key_room
            || self.ids.len() + ids.len() > self.id_room
        {
            self.clear();
            if piece.len() > self.key_room || ids.len() > self.id_room {
                return;
            }
        }
        let at = self.slot(hash);
        self.index[at] = Slot {
            hash: hash as u32,
            key: self.keys.len() as u32,
            ids: self.ids.len() as u32,
            len: piece.len() as u8,
            count: ids.len() as u8,
        };
        self.keys.extend_from_slice(piece);
        self.ids.extend_from_slice(ids);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_exact() {
        let mut c = Cache::new(3, 100, 100);
        assert_eq!(c.index.len(), 4);
        // The slot comes from bits 32 and up of the hash.
        let (a, b) = (1u64 << 32, 2u64 << 32);
        c.put(a, b"abc", &[1, 2]);
        assert_eq!(c.get(a, b"abc"), Some(&[1, 2][..]));
        assert_eq!(c.get(a, b"abd"), None, "same hash, other bytes");
        assert_eq!(c.get(a, b"ab"), None);
        assert_eq!(c.get(b, b"abc"), None);
        c.put(b, b"xyz", &[9]);
        assert_eq!(c.get(a, b"abc"), Some(&[1, 2][..]));
        assert_eq!(c.get(b, b"xyz"), Some(&[9][..]));
        // Same slot: the newer piece wins.
        c.put(a | 5, b"xy", &[5]);
        assert_eq!(c.get(a, b"abc"), None);
        assert_eq!(c.get(a | 5, b"xy"), Some(&[5][..]));
        c.clear();
        assert_eq!(c.get(a | 5, b"xy"), None);
    }

    #[test]
    fn memory_is_bounded() {
        let mut c = Cache::new(4, 10, 4);
        c.put(0, b"abcdef", &[1, 2]);
        c.put(1 << 32, b"ghij", &[3]);
        assert_eq!(c.get(0, b"abcdef"), Some(&[1, 2][..]));
        // The key arena is full: everything goes, then the new piece is kept.
        c.put(2 << 32, b"k", &[4]);
        assert_eq!(c.get(0, b"abcdef"), None);
        assert_eq!(c.get(1 << 32, b"ghij"), None);
        assert_eq!(c.get(2 << 32, b"k"), Some(&[4][..]));
        // The id arena is full likewise.
        c.put(3 << 32, b"l", &[5, 6, 7, 8]);
        assert_eq!(c.get(2 << 32, b"k"), None);
        assert_eq!(c.get(3 << 32, b"l"), Some(&[5, 6, 7, 8][..]));
        // Larger than an arena: not kept.
        c.put(0, b"abcdefghijk", &[1]);
        assert_eq!(c.get(0, b"abcdefghijk"), None);
        c.put(0, &[b'a'; MAX_PIECE + 1], &[1]);
        assert_eq!(c.get(0, &[b'a'; MAX_PIECE + 1]), None);
        assert!(c.keys.capacity() <= 10 && c.ids.capacity() <= 4);
    }
}
