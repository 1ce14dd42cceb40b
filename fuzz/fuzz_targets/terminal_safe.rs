//! The terminal sanitiser: nothing a terminal obeys survives, and safe text is a fixed point.
#![no_main]

use fathom::text_safety::{json_safe, terminal_safe};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let out = terminal_safe(text);
    assert!(!out
        .chars()
        .any(|c| (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')));
    assert_eq!(terminal_safe(&out), out);
    let json = serde_json::to_string(text).unwrap_or_default();
    assert_eq!(
        serde_json::from_str::<String>(&json_safe(&json))
            .ok()
            .as_deref(),
        Some(text)
    );
});
