//! A test-only pause at the index's write points, so a test can SIGKILL a real `fathom index`
//! exactly there (`tests/index_crash.rs`).
//!
//! `FATHOM_TEST_HOLD_AT=<publication>:<point>` makes a debug build print
//! `FATHOM_TEST_HOLD <publication>:<point>` on stderr and sleep for good when it gets there.
//! Publications: `sparse` (the generation with BM25 and the chunk table, written first) and
//! `dense` (the generation that adds the vectors embedded behind it). Points, in write order:
//! `after_bm25`, `after_vectors`, `after_chunks`, `after_manifest` (everything written, `CURRENT`
//! not switched yet). And `embed:after_batch` holds after the first embedded batch is in the vector
//! cache. Unset — or in a release build — it does nothing.

/// Pauses here if the test hook names this point.
pub(crate) fn point(publication: &str, point: &str) {
    if !cfg!(debug_assertions) {
        return;
    }
    let Ok(want) = std::env::var("FATHOM_TEST_HOLD_AT") else {
        return;
    };
    let here = format!("{publication}:{point}");
    if want.trim() != here {
        return;
    }
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "FATHOM_TEST_HOLD {here}");
    let _ = err.flush();
    drop(err);
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}
