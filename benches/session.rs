//! The session file: appending one finished turn (serialise, redact, write, fsync) — on the path
//! of every answer, before the UI shows it as done — and loading a long session to reopen it.
//! Run with `cargo bench --bench session`.

#[path = "support/fixture.rs"]
mod fixture;

use criterion::{criterion_group, criterion_main, Criterion};
use fathom::session::{self, SessionStore, TurnRecord};
use std::hint::black_box;

fn turn(index: usize) -> TurnRecord {
    TurnRecord {
        index,
        question: "What did the Committee do to rates in 2019?".into(),
        requested_years: vec![2019],
        asked_at: "2026-11-22T10:00:00Z".into(),
        finished_at: "2026-11-22T10:00:02Z".into(),
        result: fixture::result(&format!("q{index}")),
    }
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let id = session::new_session_id();
    let mut store =
        SessionStore::open(dir.path(), &id, vec!["sk-bench-0123456789".into()]).expect("store");
    let record = turn(0);
    let line = serde_json::to_string(&record).map(|l| l.len()).unwrap_or(0);
    println!("one turn is {line} bytes of JSON");
    c.bench_function("append_turn_fsync", |b| {
        b.iter(|| store.append(black_box(&record)).expect("append"))
    });

    let long = tempfile::tempdir().expect("temp dir");
    let long_id = session::new_session_id();
    let mut s = SessionStore::open(long.path(), &long_id, Vec::new()).expect("store");
    for i in 0..200 {
        s.append(&turn(i)).expect("append");
    }
    c.bench_function("load_200_turns", |b| {
        b.iter(|| {
            let loaded = session::load(long.path(), black_box(&long_id)).expect("load");
            assert_eq!(loaded.turns.len(), 200);
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
