//! What the keyboard does: the page's shortcuts ([`shortcut`]) and the arrow keys in a list of
//! options ([`step`]), kept apart from the events that carry them so that a table can test them.

/// A key press, as the browser reports it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Press<'a> {
    /// `KeyboardEvent.key`: the character the layout gives ("k", "л", "/", "Escape").
    pub key: &'a str,
    /// `KeyboardEvent.code`: the physical key ("KeyK", "Slash"), the same on every layout.
    pub code: &'a str,
    /// Ctrl held.
    pub ctrl: bool,
    /// ⌘ (the Windows key elsewhere) held.
    pub meta: bool,
    /// Shift held.
    pub shift: bool,
    /// Alt (Option) held.
    pub alt: bool,
    /// On a Mac (or an iPad): there ⌘ is the shortcuts' key, and Ctrl is left to the text
    /// fields (Ctrl+K deletes to the end of the line, Ctrl+O opens a line).
    pub mac: bool,
}

/// A shortcut of the page (see "Keyboard shortcuts" in `docs/design.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    /// Esc: stop the reply arriving.
    Stop,
    /// Ctrl/⌘+F: find in a chat too long for the browser's own find.
    Find,
    /// Ctrl/⌘+K: the command palette.
    Palette,
    /// Ctrl/⌘+/: the list of shortcuts.
    Shortcuts,
    /// Ctrl/⌘+Shift+O: a new chat.
    NewChat,
}

/// The shortcut `p` stands for, if any. The letter is the layout's; where the layout writes no
/// Latin letter or sign there (Russian, Greek, Hebrew…), the physical key's, so Ctrl+K works on
/// every keyboard. Alt never takes part (it types characters on many layouts). "Ctrl/⌘" is ⌘ on
/// a Mac, Ctrl or ⌘ elsewhere.
pub fn shortcut(p: Press) -> Option<Shortcut> {
    if p.key == "Escape" {
        return (!(p.ctrl || p.meta || p.shift || p.alt)).then_some(Shortcut::Stop);
    }
    let command = if p.mac { p.meta } else { p.ctrl || p.meta };
    if !command || p.alt {
        return None;
    }
    let key = match (p.key.as_bytes(), p.code.as_bytes()) {
        ([k], _) if k.is_ascii() => k.to_ascii_lowercase(),
        (_, [b'K', b'e', b'y', k]) => k.to_ascii_lowercase(),
        (_, b"Slash") => b'/',
        _ => return None,
    };
    match (key, p.shift) {
        (b'f', false) => Some(Shortcut::Find),
        (b'k', false) => Some(Shortcut::Palette),
        (b'/', _) => Some(Shortcut::Shortcuts),
        (b'o', true) => Some(Shortcut::NewChat),
        _ => None,
    }
}

/// Where `key` moves the active option of a list of `count` from `at`: down and up wrap around,
/// Home and End go to the ends. `None`: the key is not the list's (or the list is empty).
pub fn step(key: &str, at: usize, count: usize) -> Option<usize> {
    if count == 0 {
        return None;
    }
    let at = at.min(count - 1);
    match key {
        "ArrowDown" => Some((at + 1) % count),
        "ArrowUp" => Some((at + count - 1) % count),
        "Home" => Some(0),
        "End" => Some(count - 1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(key: &str, code: &str, mods: &str) -> Press<'static> {
        Press {
            key: Box::leak(key.to_string().into_boxed_str()),
            code: Box::leak(code.to_string().into_boxed_str()),
            ctrl: mods.contains('c'),
            meta: mods.contains('m'),
            shift: mods.contains('s'),
            alt: mods.contains('a'),
            mac: mods.contains('M'),
        }
    }

    #[test]
    fn shortcuts_by_key_and_by_physical_key() {
        use Shortcut::*;
        let cases: &[(&str, &str, &str, Option<Shortcut>)] = &[
            // key, code, modifiers (c = Ctrl, m = ⌘, s = Shift, a = Alt; M: on a Mac), shortcut
            ("k", "KeyK", "c", Some(Palette)),
            ("k", "KeyK", "m", Some(Palette)),
            ("k", "KeyK", "mM", Some(Palette)),
            // On a Mac, Ctrl+K is the text field's (delete to the end of the line).
            ("k", "KeyK", "cM", None),
            ("O", "KeyO", "csM", None),
            ("O", "KeyO", "msM", Some(NewChat)),
            ("/", "Slash", "mM", Some(Shortcuts)),
            ("K", "KeyK", "c", Some(Palette)),
            ("k", "KeyK", "", None),
            ("k", "KeyK", "cs", None),
            ("k", "KeyK", "ca", None),
            // A Russian layout writes "л" on the K key; a French one writes "k" on it too.
            ("л", "KeyK", "c", Some(Palette)),
            // Dvorak: the key marked "V" on a US board writes "k": the layout's letter wins.
            ("k", "KeyV", "c", Some(Palette)),
            ("v", "KeyK", "c", None),
            ("/", "Slash", "c", Some(Shortcuts)),
            // A German layout writes "/" with Shift+7.
            ("/", "Digit7", "cs", Some(Shortcuts)),
            ("?", "Slash", "cs", None),
            (".", "Slash", "c", None),
            ("O", "KeyO", "cs", Some(NewChat)),
            ("щ", "KeyO", "cs", Some(NewChat)),
            ("o", "KeyO", "c", None),
            ("f", "KeyF", "c", Some(Find)),
            ("а", "KeyF", "c", Some(Find)),
            ("f", "KeyF", "cs", None),
            ("Escape", "Escape", "", Some(Stop)),
            ("Escape", "Escape", "c", None),
            ("Escape", "Escape", "m", None),
            ("Enter", "Enter", "c", None),
            ("Dead", "KeyK", "c", Some(Palette)),
            ("", "", "c", None),
        ];
        for (key, code, mods, want) in cases {
            assert_eq!(
                shortcut(press(key, code, mods)),
                *want,
                "{key} {code} {mods}"
            );
        }
    }

    #[test]
    fn arrows_home_and_end_in_a_list() {
        let cases: &[(&str, usize, usize, Option<usize>)] = &[
            // key, at, count, to
            ("ArrowDown", 0, 3, Some(1)),
            ("ArrowDown", 2, 3, Some(0)),
            ("ArrowUp", 0, 3, Some(2)),
            ("ArrowUp", 1, 3, Some(0)),
            ("Home", 2, 3, Some(0)),
            ("End", 0, 3, Some(2)),
            // The list shrank under the active option (the user typed): from its last.
            ("ArrowDown", 7, 3, Some(0)),
            ("ArrowUp", 7, 3, Some(1)),
            ("ArrowDown", 0, 1, Some(0)),
            ("ArrowDown", 0, 0, None),
            ("End", 0, 0, None),
            ("Enter", 1, 3, None),
            ("a", 1, 3, None),
        ];
        for (key, at, count, want) in cases {
            assert_eq!(step(key, *at, *count), *want, "{key} from {at} of {count}");
        }
    }
}
