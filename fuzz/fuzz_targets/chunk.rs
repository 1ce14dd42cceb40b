//! The chunker on arbitrary text: every chunk is the document's slice and within the word limit.
#![no_main]

use fathom::corpus::{chunk_document, ChunkOptions, Document};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&max, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let max = usize::from(max % 64) + 1;
    let doc = Document {
        path: "fuzz.md".into(),
        title: "Fuzz".into(),
        date: None,
        year: None,
        text: text.to_string(),
        hash: String::new(),
    };
    let opts = ChunkOptions {
        target_words: max.div_ceil(2),
        max_words: max,
    };
    for c in chunk_document(&doc, &opts) {
        assert_eq!(&text[c.byte_start..c.byte_end], c.text);
        assert!(c.text.split_whitespace().count() <= max);
    }
});
