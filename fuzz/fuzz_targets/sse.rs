//! The SSE parser on arbitrary bytes cut at arbitrary places: it never panics, and the cuts
//! never change the outcome.
#![no_main]

use fathom::model::sse::{SseError, SseEvent, SseParser};
use libfuzzer_sys::fuzz_target;

fn parse(bytes: &[u8], cuts: &[usize]) -> Result<Vec<SseEvent>, SseError> {
    let mut p = SseParser::with_limits(4096, 16 * 1024);
    let mut out = Vec::new();
    let mut from = 0;
    for &c in cuts {
        out.extend(p.push(&bytes[from..c])?);
        from = c;
    }
    out.extend(p.push(&bytes[from..])?);
    out.extend(p.finish()?);
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    // The first byte picks the cut points; the rest is the stream.
    let Some((&seed, bytes)) = data.split_first() else {
        return;
    };
    let step = usize::from(seed).max(1);
    let cuts: Vec<usize> = (step..bytes.len()).step_by(step).collect();
    assert_eq!(parse(bytes, &cuts), parse(bytes, &[]));
});
