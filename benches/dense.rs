//! Exact dense search: one query against 10,000 random unit vectors of 384 dimensions (the
//! size of all-MiniLM-L6-v2's vectors; the whole FOMC corpus is ~10,400 chunks), served from a
//! memory-mapped vectors file as the app serves it. Run with `cargo bench --bench dense`
//! (release profile; the target is ≤ 2 ms per query).

use criterion::{criterion_group, criterion_main, Criterion};
use fathom::index::dense::{DenseMatrix, PartIds};
use fathom::index::generation::GenerationId;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;

const ROWS: usize = 10_000;
const DIM: usize = 384;
const LIMIT: usize = 50;

fn unit(rng: &mut StdRng) -> Vec<f32> {
    let mut v: Vec<f32> = (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

fn bench(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(7);
    let mut m = DenseMatrix::new(DIM);
    for _ in 0..ROWS {
        m.push(&unit(&mut rng)).expect("row");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("vectors.bin");
    let ids = PartIds {
        table: GenerationId::parse("0000000100000001").expect("id"),
        generation: GenerationId::parse("0000000100000001").expect("id"),
    };
    let part = m.write(&path, ids.table, ids.generation).expect("write");
    let mapped = DenseMatrix::open(&path, &part, ids).expect("open");
    // 30 years of documents, as in the FOMC corpus; the filter keeps 2 of them.
    let row_years: Vec<i32> = (0..ROWS).map(|i| 1994 + (i * 30 / ROWS) as i32).collect();
    let years = [2008, 2009];
    let query = unit(&mut rng);

    c.bench_function("dense_search_10k_x_384_top50", |b| {
        b.iter(|| black_box(mapped.search(black_box(&query), |_| true, LIMIT)))
    });
    c.bench_function("dense_search_10k_x_384_top50_two_years", |b| {
        b.iter(|| {
            black_box(mapped.search(
                black_box(&query),
                |row| years.contains(&row_years[row]),
                LIMIT,
            ))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
