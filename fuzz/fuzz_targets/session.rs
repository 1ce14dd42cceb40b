//! Reading a session file from arbitrary bytes: never a panic, every line accounted for.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = fathom::session::store::parse("sess_0123456789abcdef", data);
    let lines =
        data.split(|b| *b == b'\n').count() - usize::from(data.last().is_none_or(|b| *b == b'\n'));
    assert!(s.turns.len() + s.damaged.len() <= lines.max(1));
});
