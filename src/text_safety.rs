//! Text from documents, model replies and server errors made safe to print on a terminal.
//!
//! A terminal obeys control characters in what it prints: `ESC [ … m` recolours, `ESC ] 52 ; …`
//! (OSC 52) writes the clipboard, other sequences retitle the window, move the cursor or, on some
//! terminals, answer back as if typed. A downloaded corpus or a model server can put any of them
//! in text fathom prints, so every plain-text output of the binary goes through
//! [`terminal_safe`], and every JSON output through [`json_safe`].
//!
//! What is removed from plain text:
//! - escape sequences whole: `ESC` with what follows it (CSI `ESC [ … final`, the strings OSC
//!   `ESC ]`, DCS `ESC P`, SOS `ESC X`, PM `ESC ^` and APC `ESC _` up to their terminator, and
//!   two-character escapes such as `ESC c`), so no parameter text is left behind either;
//! - the same sequences introduced by their C1 forms (U+009B CSI, U+009D OSC, U+0090 DCS, …);
//! - every other C0 control but `\n` and `\t` (so `\r`, backspace and bell too: they overwrite or
//!   hide what was printed), DEL, and every other C1 control (U+0080–U+009F);
//! - the explicit bidirectional embeddings, overrides and isolates (U+202A–U+202E,
//!   U+2066–U+2069). They reorder how a span is shown, so printed text could read differently
//!   from what it is (the "Trojan Source" trick); without them right-to-left scripts still show
//!   in their own direction (the terminal's bidi algorithm needs no explicit controls for that).
//!   The marks U+200E, U+200F and U+061C stay: they only nudge neighbouring punctuation and appear
//!   in ordinary right-to-left text.
//!
//! JSON output keeps every character (it is data) but escapes DEL, C1 and those bidi controls as
//! `\u…`, which a JSON reader decodes back to the same text; `serde_json` already escapes C0.

use std::borrow::Cow;

/// Whether `c` is an explicit bidi embedding, override or isolate (or their terminators).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether `c` has to go from plain text (on its own or as the start of a sequence).
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
}

/// `s` without control characters, escape sequences or bidi overrides (see the module docs);
/// borrowed when there was nothing to remove. `\n` and `\t` are kept.
pub fn terminal_safe(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if is_unsafe(c) => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// After an ESC: drops the rest of its sequence.
fn skip_escape(chars: &mut Chars<'_>) {
    match chars.peek().copied() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            skip_string(chars);
        }
        // `ESC ( B` and kin: intermediates, then one final character.
        Some('\u{20}'..='\u{2f}') => {
            while chars
                .next_if(|c| ('\u{20}'..='\u{2f}').contains(c))
                .is_some()
            {}
            chars.next_if(|c| ('\u{30}'..='\u{7e}').contains(c));
        }
        // Two-character escapes: `ESC c`, `ESC 7`, `ESC =`, …
        Some('\u{30}'..='\u{7e}') => {
            chars.next();
        }
        // A lone ESC (at the end, or before something that starts no sequence): just the ESC.
        _ => {}
    }
}

/// After a CSI: parameters (0x30–0x3F), intermediates (0x20–0x2F), then the final byte
/// (0x40–0x7E). Stops early at anything else, which is then judged on its own.
fn skip_csi(chars: &mut Chars<'_>) {
    while chars
        .next_if(|c| ('\u{20}'..='\u{3f}').contains(c))
        .is_some()
    {}
    chars.next_if(|c| ('\u{40}'..='\u{7e}').contains(c));
}

/// After OSC, DCS, SOS, PM or APC: everything up to and including the terminator (BEL, ST as
/// `ESC \` or U+009C), or to the end of the text when it never comes (a terminal would swallow
/// that much too).
fn skip_string(chars: &mut Chars<'_>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => return,
            '\u{1b}' => {
                chars.next_if_eq(&'\\');
                return;
            }
            _ => {}
        }
    }
}

/// Serialised JSON with DEL, C1 controls and bidi controls escaped as `\u…` (lossless: inside a
/// JSON string the escape means the same character, and outside strings JSON has only ASCII).
pub fn json_safe(json: &str) -> Cow<'_, str> {
    let needs = |c: char| c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) || is_bidi_control(c);
    if !json.chars().any(needs) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if needs(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_text_passes_untouched() {
        for s in [
            "",
            "The Committee decided to lower the target range.\n\n\tSources: [1]",
            "€ — ✓ 😀 العربية עברית \u{200f}",
        ] {
            assert!(matches!(terminal_safe(s), Cow::Borrowed(_)), "{s:?}");
        }
    }

    #[test]
    fn escape_sequences_go_whole() {
        let cases = [
            ("red \u{1b}[31;1mRED\u{1b}[0m done", "red RED done"),
            // OSC 52 writes the clipboard; both terminators.
            ("a\u{1b}]52;c;cm0gLXJmIH4=\u{7}b", "ab"),
            ("a\u{1b}]52;c;cm0gLXJmIH4=\u{1b}\\b", "ab"),
            // Window title, then a DCS string, then a charset switch and a reset.
            (
                "\u{1b}]0;pwned\u{7}x\u{1b}Pq#0;2\u{1b}\\y\u{1b}(Bz\u{1b}c!",
                "xyz!",
            ),
            // The C1 forms.
            ("a\u{9b}31mb\u{9d}52;c;Zm9v\u{9c}c\u{85}d", "abcd"),
            // Other C0, DEL, CR.
            ("a\u{0}b\u{7}c\u{8}d\re\u{7f}f", "abcdef"),
            // A cut sequence at the end.
            ("tail\u{1b}", "tail"),
            ("tail\u{1b}[12;", "tail"),
            ("tail\u{1b}]52;c;unterminated", "tail"),
            // Bidi overrides go, marks stay.
            (
                "a\u{202e}cba\u{202c} \u{2067}x\u{2069}\u{200f}",
                "acba x\u{200f}",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(terminal_safe(input), want, "{input:?}");
        }
    }

    #[test]
    fn json_keeps_the_text_but_escapes_what_terminals_obey() {
        let value = serde_json::json!({"answer": "x\u{1b}]52;c;Zm9v\u{7}\u{9b}31m\u{202e}y\u{7f}"});
        let text = serde_json::to_string(&value).unwrap();
        let safe = json_safe(&text);
        assert!(!safe.chars().any(|c| is_unsafe(c) && c != '\n'), "{safe}");
        // Lossless: it reads back as the same value.
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }

    proptest! {
        #[test]
        fn nothing_a_terminal_obeys_survives(s in any::<String>()) {
            let out = terminal_safe(&s);
            prop_assert!(!out.chars().any(is_unsafe), "{:?} -> {:?}", s, out);
            // Idempotent: safe text is left alone.
            prop_assert!(matches!(terminal_safe(&out), Cow::Borrowed(_)));
        }

        #[test]
        fn safe_characters_are_never_lost(s in "[a-zA-Z0-9 .,\n\t€—😀]{0,40}") {
            prop_assert_eq!(terminal_safe(&s), s.as_str());
        }

        #[test]
        fn json_safe_is_lossless(s in any::<String>()) {
            let text = serde_json::to_string(&s).unwrap();
            let safe = json_safe(&text);
            prop_assert!(!safe.chars().any(is_unsafe));
            prop_assert_eq!(serde_json::from_str::<String>(&safe).unwrap(), s);
        }
    }
}
