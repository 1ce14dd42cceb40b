//! `fathom search`: hybrid retrieval from the command line.

use super::parse_years;
use fathom::config::Config;
use fathom::index::open::{load_embedder, open_retriever};
use fathom::index::{Retriever, SearchMode, SearchRequest, SearchResponse};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// Print the hits and every score as JSON.
    #[arg(long)]
    json: bool,
    /// Only these years, e.g. 2019,2020 (year_mode explicit); default all years.
    #[arg(long, value_parser = parse_years, value_name = "YEARS")]
    years: Option<super::YearList>,
    /// How many hits to show.
    #[arg(long)]
    k: Option<usize>,
    /// What to search for.
    #[arg(required = true, num_args = 1.., value_name = "QUERY")]
    query: Vec<String>,
}

pub fn run(cfg: &Config, args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let status = load_embedder(cfg);
    if let Some(notice) = status.notice() {
        errln!("note: {notice}");
    }
    let retriever = open_retriever(cfg, status.into_embedder())?;
    let k = args.k.unwrap_or(cfg.retrieval.k);
    if k == 0 {
        return Err(super::UsageError("--k must be at least 1".into()).into());
    }
    let req = SearchRequest {
        query: args.query.join(" "),
        years: args.years.clone().map(|y| y.0).unwrap_or_default(),
        k,
    };
    let resp = retriever.search(&req, SearchMode::HybridRerank)?;
    if args.json {
        super::print_json(&serde_json::to_string_pretty(&resp)?);
    } else {
        print_human(&resp);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_human(r: &SearchResponse) {
    let years = if r.requested_years.is_empty() {
        "all years".to_string()
    } else {
        r.requested_years
            .iter()
            .map(|y| y.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    outln!(
        "{} · reranker {} · {} · {:.1} ms",
        if r.dense { "dense + BM25" } else { "BM25 only" },
        r.reranker,
        years,
        r.timings.total_ms
    );
    if r.hits.is_empty() {
        outln!("no matches");
    }
    for h in &r.hits {
        let date = h
            .date
            .map(|d| d.to_string())
            .unwrap_or_else(|| "undated".into());
        let section = h
            .section
            .as_deref()
            .map(|s| format!(" §{s}"))
            .unwrap_or_default();
        outln!(
            "\n{:>2}. {} ({date}){section}  [chunk {}]",
            h.rank,
            h.document,
            h.chunk_id
        );
        let part = |name: &str, rank: Option<usize>, score: Option<f32>| match (rank, score) {
            (Some(r), Some(s)) => format!("{name} #{r} {s:.3}"),
            _ => format!("{name} –"),
        };
        outln!(
            "    score {:.3} = rerank {:.3} + recency {:.3} · {} · {} · rrf {:.4}",
            h.score,
            h.rerank_score,
            h.recency_boost,
            part("dense", h.dense_rank, h.dense_score),
            part("bm25", h.sparse_rank, h.sparse_score),
            h.fused_score
        );
        outln!("    {}", h.snippet);
    }
}
