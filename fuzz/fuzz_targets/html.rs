//! The HTML reader on arbitrary text: no panic, and no control character that the input did
//! not already hold (numeric references must not make them).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(html) = std::str::from_utf8(data) else {
        return;
    };
    let (title, text) = fathom::corpus::html_to_text(html);
    let had = |c: char| html.contains(c);
    for c in text.chars().chain(title.unwrap_or_default().chars()) {
        assert!(
            !c.is_control() || c == '\n' || had(c),
            "{c:?} from {html:?}"
        );
    }
});
