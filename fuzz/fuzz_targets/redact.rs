//! Redaction on arbitrary text: the secret is gone, redacting again changes nothing, and JSON
//! stays JSON.
#![no_main]

use fathom::redact::redact;
use libfuzzer_sys::fuzz_target;

const SECRET: &str = "sk-fuzz-SECRET-0123456789";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let secrets = vec![SECRET.to_string()];
    // The input with the secret spliced in where the fuzzer put a `$`.
    let text = text.replace('$', SECRET);
    let once = redact(&text, &secrets).into_owned();
    assert!(!once.contains(SECRET));
    assert_eq!(redact(&once, &secrets), once);
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) {
        let line = serde_json::to_string(&value).unwrap_or_default();
        let red = redact(&line, &secrets);
        assert!(
            serde_json::from_str::<serde_json::Value>(&red).is_ok(),
            "{red}"
        );
    }
});
