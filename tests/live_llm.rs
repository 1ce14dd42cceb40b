//! Opt-in: `fathom ask` end to end against a real OpenAI-compatible server (for example
//! `../shared/tools/llm-server.sh start`, llama.cpp with SmolLM2-135M). Not part of `make test`:
//!
//! ```sh
//! FATHOM_LIVE_LLM=http://127.0.0.1:18765/v1 cargo test --test live_llm -- --ignored --nocapture
//! ```
//!
//! Whatever the model returns, each run must end with an answer (the model's or a fallback),
//! citations that point at retrieved passages, and a `cached_state` consistent with the trace.

mod common;

use serde_json::Value;
use std::collections::HashSet;
use std::time::Instant;

const QUESTIONS: [&str; 3] = [
    "What did the FOMC decide about the federal funds rate on March 15, 2020?",
    "What was the target range for the federal funds rate in January 2021?",
    "Why did the Committee cut rates in March 2020?",
];

fn corpus() -> std::path::PathBuf {
    common::fomc_subset(
        "live-llm-corpus",
        &[
            "2020-01-29_statement.md",
            "2020-03-03_statement.md",
            "2020-03-15_statement.md",
            "2020-04-29_statement.md",
            "2021-01-27_statement.md",
        ],
    )
}

#[test]
#[ignore = "needs a live model server: set FATHOM_LIVE_LLM to its base URL"]
fn fathom_ask_survives_a_real_model_server() {
    let base_url = std::env::var("FATHOM_LIVE_LLM")
        .expect("set FATHOM_LIVE_LLM to the server's base URL, e.g. http://127.0.0.1:18765/v1");
    let model = std::env::var("FATHOM_LIVE_LLM_MODEL").unwrap_or_else(|_| "smollm2".into());
    let data = tempfile::tempdir().unwrap();
    let corpus = corpus();
    let index = common::fathom_cmd(data.path())
        .args(["--corpus", corpus.to_str().unwrap(), "index"])
        .output()
        .unwrap();
    assert!(
        index.status.success(),
        "{}",
        String::from_utf8_lossy(&index.stderr)
    );
    for question in QUESTIONS {
        let t = Instant::now();
        let out = common::fathom_cmd(data.path())
            .env("FATHOM_LLM_BASE_URL", &base_url)
            .env("FATHOM_LLM_MODEL", &model)
            .env("FATHOM_LLM_TIMEOUT_SECS", "180")
            .env("FATHOM_LLM_FIRST_BYTE_TIMEOUT_SECS", "60")
            .args([
                "--corpus",
                corpus.to_str().unwrap(),
                "ask",
                "--json",
                question,
            ])
            .output()
            .unwrap();
        let seconds = t.elapsed().as_secs_f64();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let r: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!(
                "not a result ({e}): {stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        // An answer always comes back.
        assert!(
            !r["answer"].as_str().unwrap_or("").trim().is_empty(),
            "{r:#}"
        );
        // Citations point at retrieved passages only.
        let retrieved: HashSet<&str> = r["cached_state"]["rerank"]["top"]
            .as_array()
            .map(|a| a.iter().filter_map(|h| h["chunk_id"].as_str()).collect())
            .unwrap_or_default();
        for c in r["citations"].as_array().unwrap() {
            let id = c["chunk_id"].as_str().unwrap();
            assert!(retrieved.contains(id), "citation {id} was not retrieved");
        }
        // cached_state matches the trace: one slice per stage that ran, the session echoed.
        assert_eq!(r["cached_state"]["session_id"], r["session_id"]);
        let mut reissues = 0;
        let mut fell_back = Vec::new();
        for s in r["stages"].as_array().unwrap() {
            let id = s["id"].as_str().unwrap();
            let status = s["status"].as_str().unwrap();
            assert!(
                ["done", "fell_back"].contains(&status),
                "{id} ended {status}: {r:#}"
            );
            assert!(r["cached_state"].get(id).is_some(), "no slice for {id}");
            if status == "fell_back" {
                let why = s["fallback"].as_str().unwrap_or("");
                assert!(!why.is_empty(), "{id} fell back without a reason");
                fell_back.push(format!("{id}: {why}"));
            }
            reissues += r["cached_state"][id]["reissues"].as_u64().unwrap_or(0);
        }
        let tokens: u64 = r["tokens_used"]
            .as_object()
            .map(|m| m.values().filter_map(Value::as_u64).sum())
            .unwrap_or(0);
        println!(
            "{}",
            serde_json::json!({
                "question": question,
                "seconds": (seconds * 10.0).round() / 10.0,
                "final_reason": r["final_reason"],
                "confidence": r["confidence"],
                "citations": r["citations"].as_array().map(Vec::len),
                "reissues": reissues,
                "fell_back": fell_back,
                "tokens": tokens,
                "structured_output": r["cached_state"]["plan"]["structured_output"],
                "breaker": r["breakers"],
            })
        );
    }
}
