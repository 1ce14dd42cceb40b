//! `fathom bench`: query latency (embed, both searches, fusion, rerank) over the configured
//! index, and embedding throughput in tokens per second.

use fathom::config::Config;
use fathom::eval::metrics::{median, percentile};
use fathom::index::open::{load_embedder, open_retriever};
use fathom::index::{Retriever, SearchMode, SearchRequest};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// JSON lines with a `question` field to use as queries (default: a built-in set).
    #[arg(long, value_name = "FILE")]
    queries: Option<PathBuf>,
    /// Times each query set is run (after one warm-up pass).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Chunks embedded for the throughput figure.
    #[arg(long, default_value_t = 512)]
    embed_chunks: usize,
    #[arg(long)]
    json: bool,
}

const DEFAULT_QUERIES: [&str; 8] = [
    "federal funds rate target range lowered",
    "inflation expectations remain well anchored",
    "balance sheet reduction of Treasury securities",
    "labor market conditions and unemployment rate",
    "What did the Committee decide in March 2020?",
    "forward guidance about the path of policy",
    "risks to the economic outlook",
    "discount rate approved by the Board",
];

pub fn run(cfg: &Config, args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let t = Instant::now();
    let status = load_embedder(cfg);
    let model_load_ms = t.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let retriever = open_retriever(cfg, status.into_embedder())?;
    let open_ms = t.elapsed().as_secs_f64() * 1000.0;
    let queries: Vec<String> = match &args.queries {
        Some(f) => fathom::eval::qa::load(f)?
            .into_iter()
            .map(|i| i.question)
            .collect(),
        None => DEFAULT_QUERIES.iter().map(|s| s.to_string()).collect(),
    };
    use fathom::index::Timings;
    let run_all = |times: &mut Vec<f64>, parts: &mut Vec<Timings>| -> anyhow::Result<()> {
        for q in &queries {
            let req = SearchRequest {
                query: q.clone(),
                years: Vec::new(),
                k: cfg.retrieval.k,
            };
            let t = Instant::now();
            let resp = retriever.search(&req, SearchMode::HybridRerank)?;
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            parts.push(resp.timings);
        }
        Ok(())
    };
    run_all(&mut Vec::new(), &mut Vec::new())?; // warm-up: page in the index and the model
    let mut times = Vec::new();
    let mut parts = Vec::new();
    for _ in 0..args.rounds.max(1) {
        run_all(&mut times, &mut parts)?;
    }
    let part = |f: fn(&Timings) -> f64| median(&parts.iter().map(f).collect::<Vec<_>>());
    let breakdown = serde_json::json!({
        "embed": part(|t| t.embed_ms),
        "dense": part(|t| t.dense_ms),
        "sparse": part(|t| t.sparse_ms),
        "fuse": part(|t| t.fuse_ms),
        "rerank": part(|t| t.rerank_ms),
    });

    let runtime = retriever.embedder().map(|e| e.runtime());
    let (tokens_per_s, embedded) = match retriever.embedder() {
        Some(e) => {
            let texts: Vec<&str> = retriever
                .store()
                .chunks()
                .iter()
                .take(args.embed_chunks)
                .map(|c| c.text.as_str())
                .collect();
            let tokens: usize = texts.iter().map(|t| e.count_tokens(t).min(256)).sum();
            let t = Instant::now();
            e.embed_documents(&texts)?;
            (Some(tokens as f64 / t.elapsed().as_secs_f64()), texts.len())
        }
        None => (None, 0),
    };
    let out = serde_json::json!({
        "chunks": retriever.store().chunks().len(),
        "dense": retriever.dense_enabled(),
        "reranker": retriever.info().reranker,
        "queries": times.len(),
        "query_ms": { "p50": median(&times), "p95": percentile(&times, 0.95), "max": percentile(&times, 1.0) },
        "stage_median_ms": breakdown,
        "model_load_ms": model_load_ms,
        "index_open_ms": open_ms,
        "embed_runtime": runtime,
        "embed_tokens_per_s": tokens_per_s,
        "embedded_chunks": embedded,
        "peak_rss_mb": peak_rss_mb(),
    });
    if args.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!(
            "index: {} chunks, dense {}, reranker {}",
            out["chunks"], out["dense"], out["reranker"]
        );
        println!(
            "query latency over {} queries: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
            times.len(),
            median(&times),
            percentile(&times, 0.95),
            percentile(&times, 1.0)
        );
        println!("median per part (ms): {}", out["stage_median_ms"]);
        println!("model load {model_load_ms:.0} ms, index open {open_ms:.0} ms");
        if let (Some(tps), Some(runtime)) = (tokens_per_s, runtime) {
            println!("embedding ({runtime}): {tps:.0} tokens/s over {embedded} chunks");
        }
        if let Some(rss) = peak_rss_mb() {
            println!("peak memory: {rss:.0} MB");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Peak resident memory of this process (Linux), in MB.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
